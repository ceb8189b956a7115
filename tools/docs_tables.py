"""The docs tables that hold numbers, generated from the code: ``python tools/docs_tables.py``.

A generated table stands in its page between two markers::

    <!-- generated: NAME (python tools/docs_tables.py) -->
    ...
    <!-- end generated: NAME -->

Running this file rewrites every such block from its generator below (``--check`` only reports
the stale ones); ``tests/test_docs_tables.py`` fails when a committed block differs from what its
generator makes now, so a table cannot drift from the code it describes.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script from a source checkout
    sys.path.insert(0, str(ROOT))

from tabletop_gym.core.layout import markdown_table as _table  # noqa: E402

_BLOCK = re.compile(
    r"(?P<open><!-- generated: (?P<name>[\w-]+) \(python tools/docs_tables\.py\) -->\n)"
    r"(?P<body>.*?)"
    r"(?P<close><!-- end generated: (?P=name) -->)",
    re.S,
)


# --- training -------------------------------------------------------------------------------------


def training_budgets() -> str:
    """The default training budget of each env (``tabletop-gym train`` without ``--timesteps``)."""
    from tabletop_gym.tasks.recipes import DEFAULT_TIMESTEPS

    return _table(["env", "default budget (timesteps)"],
                  [[f"`{env}`", f"{steps:,}"] for env, steps in DEFAULT_TIMESTEPS.items()])


def distilled_nets() -> str:
    """The shipped distilled heuristics: their data and agreement, read from their metadata."""
    from tabletop_gym.agents.base import CHECKPOINTS
    from tabletop_gym.agents.jax_policy import load_policy

    rows = []
    for path in sorted(CHECKPOINTS.glob("heuristic_net_*.npz")):
        _arrays, meta = load_policy(path)
        d = meta["distilled"]
        rows.append([f"`{path.name}`", meta["game"], str(meta["num_players"]),
                     "×".join(map(str, meta["hidden"])) + f" {meta['activation']}",
                     f"{d['games']:,}", f"{d['samples']:,}",
                     f"{d['train_agreement']:.3f}", f"{d['holdout_agreement']:.3f}"])
    return _table(["checkpoint", "game", "players", "network", "games", "decisions",
                   "agreement (fit)", "agreement (held out)"], rows)


GPU = ROOT / "benchmarks" / "gpu"
"""The committed results of ``bench/jax_gpu.py`` (benchmarks/README.md)."""


def gpu_speed() -> str:
    """The trainer's learner steps/s on the GPU, timed alone (``bench/jax_gpu.py --round 1``)."""
    import json

    rows = []
    for path in sorted((GPU / "round-1").glob("speed_*.json"), reverse=True):
        doc = json.loads(path.read_text())
        for r in doc["rows"]:
            lo, hi = r["min_max"]
            rows.append([f"{r['game']} {r['players']}p", "×".join(map(str, r["hidden"])),
                         f"{r['num_envs']:,} + {r['eval_envs']}",
                         f"{r['learner_steps_per_s']:,} ({lo:,}–{hi:,})", f"{r['compile_s']}",
                         doc["device"]])
    return _table(["game", "network", "games per rollout (training + vs random)",
                   "learner steps/s (median, min–max)", "compile (s)", "device"], rows)


def gpu_runs() -> str:
    """Every training run of ``bench/jax_gpu.py`` and its policies' 200-game screen."""
    import json

    screen = json.loads((GPU / "screen.json").read_text())["rows"]
    rows = []
    for path in sorted(GPU.glob("round-*/*/run.json")):
        run = json.loads(path.read_text())
        t = run["train"]
        wins = [f"{r['win_rate']:.3f}" for r in sorted(screen, key=lambda r: r["seed_index"])
                if r["trainer"] == run["trainer"]]
        steps = sorted(run["learner_steps_per_seed"])
        rows.append([path.parent.parent.name.split("-")[1], f"`{run['trainer']}`",
                     f"{run['game']} {run['num_players']}p", t["opponents"],
                     "×".join(map(str, t["hidden"])), f"{t['gamma']:g}",
                     f"{t['num_envs']:,}",
                     " – ".join(dict.fromkeys(f"{x / 1e6:.1f} M" for x in steps)),
                     f"{run['learner_steps_per_s']:,.0f}",
                     f"{run['compile_and_first_iteration_s']:.0f} s / {run['seconds']:.0f} s",
                     " / ".join(wins)])
    return _table(["round", "trainer", "game", "opponents", "network", "γ", "games per seed",
                   "learner steps per seed", "learner steps/s, both seeds (GPU shared)",
                   "compile + first iteration / whole run",
                   "win rate vs heuristic, seed 0 / 1 (200 games)"],
                  rows)


def jax_ppo_shipped() -> str:
    """The shipped ``jax-ppo`` policies: how each was trained and its confirming evaluation."""
    import json

    from tabletop_gym.agents.base import CHECKPOINTS
    from tabletop_gym.agents.jax_policy import load_policy

    rows = []
    for path in sorted(CHECKPOINTS.glob("jax_ppo_*.npz")):
        _arrays, meta = load_policy(path)
        on = meta["trained_on"]
        ev = json.loads((GPU / f"confirm-{meta['game']}.json").read_text())[0]
        lo, hi = ev["win_ci"]
        dlo, dhi = ev["diff_ci"]
        rows.append([f"`{path.name}`", f"`{on['trainer']}` seed {on['seed_index']}",
                     "×".join(map(str, meta["hidden"])), f"{meta['train']['gamma']:g}",
                     f"{meta['learner_steps']:,}", f"{ev['n_games']:,}",
                     f"{ev['win_rate']:.3f} [{lo:.3f}, {hi:.3f}]",
                     f"{ev['mean_score_diff']:+.2f} [{dlo:+.2f}, {dhi:+.2f}]"])
    return _table(["policy", "run", "network", "γ", "learner steps", "games",
                   "win rate vs heuristic [95 % CI]", "score difference [95 % CI]"], rows)


def jax_train_speed() -> str:
    """``make bench``'s trainer rows (``bench/results/jax_train.json``) with their targets."""
    import json

    rows = json.loads((ROOT / "bench" / "results" / "jax_train.json").read_text())
    out = []
    for r in rows:
        sb3 = r["sb3_maskable_ppo"]
        lo, hi = r["min_max"]
        slo, shi = sb3["min_max"]
        out.append([f"{r['game']} {r['players']}p", "×".join(map(str, r["hidden"])),
                    f"{r['learner_steps_per_s']:,} ({lo:,}–{hi:,})",
                    f"{r['compile_and_first_s']} s",
                    f"{sb3['learner_steps_per_s']:,} ({slo:,}–{shi:,})",
                    f"{r['ratio_vs_sb3']}×", f"{r['target']:g}×",
                    *(f"{r[k + '_steps_per_s']:,} ({r[k + '_ratio']}×)" if k + "_ratio" in r
                      else "–" for k in ("rollout_only", "arithmetic"))])
    load = max(max(r["load_avg"]) for r in rows)
    first = rows[0]
    return (_table(["game", "network", "JAX trainer: learner steps/s (median, min–max)",
                    "first iteration (compile + run)", "MaskablePPO steps/s (median, min–max)",
                    "ratio", "target", "bound: rollout alone", "bound: arithmetic"], out)
            + f"\n\n{first['cpus']} CPUs, backend {first['backend']}, jax {first['jax']}, "
            f"commit {first['commit']}; highest load average while measured "
            f"{load:.2f}; {first['iterations']} timed iterations per row.")


def openspiel_learning() -> str:
    """The MCCFR rows of ``bench/results/openspiel.md`` (``bench/openspiel.py learning``)."""
    text = (ROOT / "bench" / "results" / "openspiel.md").read_text(encoding="utf-8")
    # The bench script writes the table (its only formatter); this takes its rows as written.
    section = text.split("## OpenSpiel's outcome-sampling MCCFR", 1)[1].split("\n## ", 1)[0]
    return "\n".join(line for line in section.splitlines()[1:] if line.startswith("|"))


def jax_cpu_runs() -> str:
    """Rapa Nui 2p runs from scratch on this CPU, and what the shipped run would take here."""
    import json

    from tabletop_gym.agents.base import jax_checkpoint_path
    from tabletop_gym.agents.jax_policy import load_policy

    rows = []
    lines = []
    _arrays, shipped = load_policy(jax_checkpoint_path("rapa_nui", 2))
    for path in sorted((ROOT / "benchmarks" / "jax-cpu").glob("*/run.json")):
        run = json.loads(path.read_text())
        cpu = run["process_cpu_seconds"]
        ev = {e["opponent"]: e for e in run["evaluation"]}
        h, r = ev["heuristic"], ev["random"]
        steps = run["learner_steps_per_seed"][0]
        rows.append([f"`{path.parent.name}`", f"{steps:,}", f"{run['learner_steps_per_s']:,.0f}",
                     f"{(cpu['user'] + cpu['sys']) / 60:.1f} min", f"{cpu['wall'] / 60:.1f} min",
                     f"{h['win_rate']:.3f} [{h['win_ci_low']:.3f}, {h['win_ci_high']:.3f}]",
                     f"{r['win_rate']:.3f} [{r['win_ci_low']:.3f}, {r['win_ci_high']:.3f}]"])
        if list(run["train"]["hidden"]) != list(shipped["hidden"]):
            continue  # the shipped policy's steps say nothing of another network's time
        hours = shipped["learner_steps"] / run["learner_steps_per_s"] / 3600
        lines.append(f"At `{path.parent.name}`'s rate (the shipped network) the shipped "
                     f"Rapa Nui policy's "
                     f"{shipped['learner_steps']:,} learner steps would take about "
                     f"{hours:.1f} hours of wall-clock time here "
                     f"(about {hours * (cpu['user'] + cpu['sys']) / cpu['wall']:.1f} CPU hours).")
    table = _table(["run", "learner steps", "learner steps/s", "CPU (whole command)",
                    "wall clock", "win rate vs heuristic [95 % CI]",
                    "win rate vs random [95 % CI]"], rows)
    return table + "\n\n" + "\n".join(lines)


def llm_grammars() -> str:
    """The move grammar of each game, as the ``grammar`` prompt mode's system prompt gives it."""
    from tabletop_gym.text.rules import GRAMMARS, grammar_text

    return "\n\n".join(f"{game}:\n\n```text\n{grammar_text(game)}\n```" for game in GRAMMARS)


def llm_transcript() -> str:
    """A decision of a grammar-mode game against the scripted server, replayed.

    The script answers the short form of the last legal move with a reasoning trace apart
    (``reasoning_content``); at its fourth decision it first answers a number, which has no
    meaning without a list. Latencies vary from run to run and are shown as ``~``.
    """
    from tabletop_gym.agents.llm import (
        LLMAgent,
        agent_from_spec,
        record_with_logs,
        transcript_lines,
    )
    from tabletop_gym.arena.envs import raw_env_factory
    from tabletop_gym.arena.scripted_server import Reply, ScriptedServer
    from tabletop_gym.text.moves import short_form
    from tabletop_gym.text.view import legal_moves

    env = raw_env_factory("rapa_nui")(num_players=2)
    asked = [0]

    def script(messages: list[dict[str, str]], k: int) -> Reply:
        state = env.game_state
        moves = [m for _, m in legal_moves(state, state.current_player())]
        if len(messages) == 2:
            asked[0] += 1
            if asked[0] == 4:
                return Reply("Move: 2")
        return Reply(f"Move: {short_form(moves[-1])}",
                     reasoning=f"{len(moves)} moves are legal; I take the last one.")

    with ScriptedServer(script) as server:
        agent = agent_from_spec(f"llm:scripted@{server.base_url}?timeout=5&prompt=grammar",
                                "rapa_nui")
        other = LLMAgent(lambda m: "Move: 1", "rapa_nui", rng=0)
        env.reset(seed=1)
        while not env.game_state.is_terminal():
            name = env.agent_selection
            env.step((agent if name == "player_0" else other).act_env(env, name))
    rec = record_with_logs(env, {"player_0": agent})
    decision = next(d for d in rec.agent_logs[0]["decisions"] if len(d["attempts"]) > 1)
    lines = transcript_lines(rec.agent_logs, decision["index"], 0, prompts=True)
    body = [re.sub(r"; [0-9.]+ s", "; ~ s", line) for line in lines]
    head = f"[{decision['index'] + 1}] seat 0: {decision['move']}"
    return "```text\n" + "\n".join([head, *("    " + x for x in body)]) + "\n```"


def llm_league() -> str:
    """The LLM report of a league of the heuristic and the scripted server.

    The script answers the last listed move with a two-word reasoning trace, every seventh
    decision first in prose and every eleventh first with the name of a move that is not legal;
    the price table is ``{"scripted": {"prompt": 0.10, "completion": 0.30}}``. Seconds per
    decision vary from run to run and are shown as ``~``.
    """
    from tabletop_gym.agents.llm import report_markdown
    from tabletop_gym.arena.league import run_league
    from tabletop_gym.arena.scripted_server import Reply, ScriptedServer, listed_moves

    count = [0]

    def script(messages: list[dict[str, str]], k: int) -> Reply:
        moves = listed_moves(messages)
        if len(messages) == 2:
            count[0] += 1
            if count[0] % 7 == 0:
                return Reply("I would rather not say.")
            if count[0] % 11 == 0 and "no purchase" not in moves:
                return Reply("Move: no purchase")
        return Reply(f"Move: {len(moves)}", reasoning="last one")

    with ScriptedServer(script) as server:
        spec = f"llm:scripted@{server.base_url}?timeout=5&name=scripted"
        res = run_league("rapa_nui", ["heuristic", spec], games_per_pair=4, seed=0,
                         bootstrap=0, prices={"scripted": {"prompt": 0.10, "completion": 0.30}},
                         num_players=2)
    rows = [{**r, "seconds_per_decision": float("nan")} for r in res.llm]
    table = report_markdown(rows).replace("| nan |", "| ~ |")
    return "```text\n" + table + "\n```"


def llm_probe_references() -> str:
    """The two references of every belief probe over 6 seeded 3-player games of random play."""
    from tabletop_gym.text.probes import reference_table

    rows = [[f"`{r['probe']}`", r["game"], str(r["points"]), f"{r['uniform_log_loss']:.3f}",
             f"{r['posterior_log_loss']:.3f}", f"{r['uniform_brier']:.3f}",
             f"{r['posterior_brier']:.3f}"]
            for r in reference_table(games=6, worlds=50, seed=0, num_players=3)]
    return _table(["probe", "game", "probes asked", "uniform log-loss", "resampler log-loss",
                   "uniform Brier", "resampler Brier"], rows)


def ladder_ratings() -> str:
    """The committed reference ladder's ratings, as fitted by ``tabletop-gym ladder --refit``."""
    from tabletop_gym.arena.ladder import load_ladder

    doc = load_ladder()
    rows = [[f"`{m}`", f"{r:.0f}", f"[{doc['rating_ci'][m][0]:.0f}, {doc['rating_ci'][m][1]:.0f}]",
             f"{(doc['rating_ci'][m][1] - doc['rating_ci'][m][0]) / 2:.0f}"]
            for m, r in doc["ratings"].items()]
    return (_table(["member", "rating (Elo)", "95 % CI", "CI half-width"], rows)
            + f"\n\nFitted by tabletop-gym {doc['package_version']} from "
              f"{doc['games_per_pair']} games per pair (protocol {doc['protocol']}).")


def datasets_bc() -> str:
    """The offline baselines, one row per committed result (``benchmarks/datasets/<method>/``)."""
    from tabletop_gym.registry import game_spec
    from tabletop_gym.tasks import TASKS
    from tabletop_gym.tasks.datasets.offline import load_results, normalised_interval

    rows = []
    for doc in load_results(ROOT / "benchmarks" / "datasets"):
        data, fit, score = doc["dataset"], doc.get("clone") or doc["learner"], doc["score"]
        if doc["method"] == "behaviour cloning":
            method = "BC"
        elif doc["method"] == "discrete CQL":
            method = f"CQL, α {fit['alpha']:g}, γ {fit['gamma']:g}"
        else:
            method = (f"values, weight {fit['value_weight']:g}, {fit['value_passes']} "
                      f"pass/epoch, β {fit['beta']:g}")
        annotation = data.get("annotation")
        annotated = "" if not annotation else (
            f" ({annotation['annotated_games']:,} annotated {_annotated_by(annotation)})")
        row = score["task"]
        source = TASKS[data["task"]]
        norm_lo, norm_hi = normalised_interval(doc)
        seed_lo, seed_hi = score["aggregate"]["iqm_ci"]
        vs = row["by_opponent"]["heuristic"]
        rows.append([
            method, "×".join(str(h) for h in fit["hidden"]) + f", {fit['epochs']} epochs",
            f"{game_spec(source.game).title} {source.num_players}p {data['policy']}, "
            f"{data['games']:,} games{_in_parts(data)}{annotated}",
            f"{fit['valid_accuracy']:.3f}",
            f"`{row['id']}`",
            f"{row['normalized']:.2f} [{norm_lo:.2f}, {norm_hi:.2f}]",
            f"[{seed_lo:.2f}, {seed_hi:.2f}]",
            f"{vs['win_rate']:.3f} [{vs['win_ci'][0]:.3f}, {vs['win_ci'][1]:.3f}]",
            f"{data['cpu_seconds']:.0f} / {fit['cpu_seconds']:.0f} / {score['cpu_seconds']:.0f}",
        ])
    return _table(["method", "network", "trained on", "held-out accuracy", "task",
                   "normalised score [95 %]", "seed interval (IQM)",
                   "win rate against the heuristic", "CPU s: make / fit / score"], rows)


def _in_parts(data: dict[str, Any]) -> str:
    """`` in 3 parts`` for a dataset made in parts and merged (``dataset merge``)."""
    parts = int(data.get("parts", 1))
    return f" in {parts} parts" if parts > 1 else ""


def datasets_values_gains() -> str:
    """The values learner's held-out search gain by ``beta``, one row per committed result."""
    from tabletop_gym.registry import game_spec
    from tabletop_gym.tasks import TASKS
    from tabletop_gym.tasks.datasets.offline import load_results

    docs = load_results(ROOT / "benchmarks" / "datasets", methods=("values",))
    betas = sorted({float(b) for d in docs for b in d["learner"]["gains"]})
    rows = []
    for doc in docs:
        data, fit = doc["dataset"], doc["learner"]
        source = TASKS[data["task"]]
        rows.append([
            f"{game_spec(source.game).title} {source.num_players}p {data['policy']}, "
            f"{data['games']:,} games, {data['annotation']['annotated_games']} annotated "
            f"{_annotated_by(data['annotation'])}",
            f"{fit['value_weight']:g}", f"{fit['value_passes']}",
            f"{fit['annotated_decisions']:,} / "
            f"{fit['held_out_annotated']:,}", f"{fit['beta']:g}",
            *[f"{1000 * fit['gains'][f'{b:g}']:+.1f}" for b in betas]])
    return _table(["trained on", "value weight", "value passes",
                   "annotated decisions fitted / held out",
                   "β chosen", *[f"β {b:g}" for b in betas]], rows)


CARDS = ROOT / "benchmarks" / "datasets" / "cards"
"""The standard datasets' cards (``tabletop-gym dataset card``)."""


def _numbered(paths: Iterable[Path], strip: str = "") -> list[Path]:
    """Files named ``<strip><n>-...`` in the order of ``n``, the order they were added.

    Sorted as text, ``10-`` would come before ``2-``.
    """
    def key(path: Path) -> tuple[int, str]:
        head = path.name.removeprefix(strip).split("-", 1)[0]
        return (int(head) if head.isdigit() else -1, path.name)
    return sorted(paths, key=key)


def _card_rows(kind: str) -> list[dict]:
    from tabletop_gym.tasks.datasets.cards import load_card

    cards = [load_card(p) for p in _numbered(CARDS.glob(f"{kind}-*.json"),
                                             strip=f"{kind}-")]
    if not cards:
        raise FileNotFoundError(f"no {kind} cards under {CARDS}")
    return cards


def _rate(making: dict) -> str:
    def num(x: float) -> str:
        return f"{x:,.0f}" if x >= 100 else f"{x:.1f}"

    text = num(making["decisions_per_second"])
    if "decisions_per_cpu_second" in making:
        text += f" ({num(making['decisions_per_cpu_second'])})"
    return text


def _commit(card: dict) -> str:
    sha, _, dirty = card["commit"].partition("+")
    return f"`{sha[:7]}`" + (f" +{dirty}" if dirty else "")


def _what(card: dict) -> str:
    from tabletop_gym.registry import game_spec
    from tabletop_gym.tasks import TASKS

    task = TASKS[card["task"]]
    policies = ", ".join(f"`{p}`" if ":" in p else p for p in dict.fromkeys(card["policies"]))
    text = f"{game_spec(task.game).title} {task.num_players}p, {policies}"
    ann = card.get("annotation")
    return text + (f", annotated {_annotated_by(ann)}" if ann else "")


def _annotated_by(annotation: dict) -> str:
    """``at 8 simulations`` (the guided ISMCTS) or ``by `search:...` `` (a batched search)."""
    from tabletop_gym.tasks.datasets.games import annotation_label

    label = annotation_label(annotation)
    return f"at {label}" if "simulations" in annotation else f"by {label}"


def datasets_games_cards() -> str:
    """The standard games datasets, one row per committed card, and the commands that made them."""
    rows, commands = [], []
    for c in _card_rows("games"):
        b = c["bytes"]
        count = f"{c['games']:,} games, {c['decisions']:,} decisions"
        if c["annotated"]:
            count += f", {c['annotated']:,} annotated"
        rows.append([_what(c), count, f"{b / 1e6:.1f} MB" if b >= 1e6 else f"{b / 1e6:.2f} MB",
                     _rate(c["making"]), f"`{c['sha256'][:16]}`", _commit(c)])
        commands.extend(_made_by(c["manifest"]["metadata"], c["command"], c["name"]))
    return (_table(["dataset", "what", "size", "made at (decisions/s)", "SHA-256 (first 16)",
                    "commit"], rows)
            + "\n\nCommands, in the table's order:\n\n```bash\n" + "\n".join(commands)
            + "\n```")


def _made_by(meta: dict[str, Any], command: str, name: str) -> list[str]:
    """The commands that make a games dataset: its parts' first, then their merge."""
    if "parts" not in meta:
        return [f"{command} --out {name}"]
    return [line for part in meta["parts"]
            for line in _made_by(part, part["command"], part["name"])] + [command]


def datasets_minari_cards() -> str:
    """The standard Minari datasets, one row per committed card, and the commands that made them."""
    rows, commands = [], []
    for c in _card_rows("minari"):
        n = c["normalised_return"]
        rows.append([f"`{c['name']}`", f"{c['episodes']:,} episodes, {c['decisions']:,} steps",
                     f"{c['bytes'] / 1e6:.0f} MB", _rate(c["making"]),
                     f"{n['mean']:.2f} [{n['low']:.2f}, {n['high']:.2f}]", _commit(c)])
        commands.append(c["command"])
    return (_table(["dataset", "what", "size", "made at (decisions/s)", "normalised return",
                    "commit"], rows)
            + "\n\nCommands, in the table's order:\n\n```bash\n" + "\n".join(commands)
            + "\n```")


def datasets_coverage() -> str:
    """Which teachers' games the committed cards hold for each core task's game and table size.

    A card counts for a core task when its task is of the same game and number of seats (a
    Minari card of the task's own view, or whole games of its self-play). The learned teacher is
    every policy the package ships for that game and size (``jax-ppo``, ``ppo``).
    """
    from tabletop_gym.agents.base import checkpoint_path, jax_checkpoint_path
    from tabletop_gym.agents.kinds import is_kind
    from tabletop_gym.arena.envs import raw_env_factory
    from tabletop_gym.registry import game_spec
    from tabletop_gym.tasks import SUITES, TASKS

    cards = _card_rows("games") + _card_rows("minari")

    def teacher(policy: str) -> str:
        if is_kind(policy, "heuristic"):
            return "heuristic"
        return "search" if is_kind(policy, "ismcts") else "learned"

    def shipped(game: str, num_players: int) -> list[str]:
        found = []
        for spec, path in (("jax-ppo", lambda: jax_checkpoint_path(game, num_players)),
                           ("ppo", lambda: checkpoint_path(
                               raw_env_factory(game)(num_players=num_players).game))):
            try:
                path()
            except ValueError:
                continue  # none shipped at this size
            found.append(spec)
        return found

    def size(card: dict) -> str:
        if card["kind"] == "minari":
            return f"{card['episodes']:,} episodes (Minari)"
        text = f"{card['games']:,} games"
        ann = card["annotation"]
        return text + (f", {ann['annotated_games']:,} annotated {_annotated_by(ann)}"
                       if ann else "")

    rows = []
    for task_id in SUITES["core"].task_ids:
        task = TASKS[task_id]
        mine = [c for c in cards if (TASKS[c["task"]].game, TASKS[c["task"]].num_players)
                == (task.game, task.num_players)]
        cells = {}
        for kind in ("heuristic", "search", "learned"):
            held = [c for c in mine if len(set(c["policies"])) == 1
                    and teacher(c["policies"][0]) == kind]
            cells[kind] = "; ".join(
                (f"`{c['policies'][0]}` " if kind != "heuristic" else "") + size(c)
                for c in held) or "none"
        if not shipped(task.game, task.num_players):
            cells["learned"] = "no learned policy shipped"
        rows.append([f"`{task_id}`", f"{game_spec(task.game).title} {task.num_players}p",
                     cells["heuristic"], cells["search"], cells["learned"]])
    return _table(["core task", "game", "heuristic", "search (`ismcts`)",
                   "shipped learned policy"], rows)


EXIT_EVAL = "eval-heuristic-2000-61000"
"""The evaluation every expert-iteration run of the docs is scored by (its files' stem).

A run of one iteration scored on the CPU names it so; a run of several (``bench/search_gpu.py``
scores each iteration's checkpoint as it appears) adds the iteration, ``<stem>-iteration_<k>``.
"""


def expert_iteration_positano() -> str:
    """Every iteration of every expert-iteration run from ``jax-ppo`` (``benchmarks/``).

    The runs are under ``benchmarks/expert-iteration/positano-2p/``.

    Each fitted policy's win rate against the heuristic over the same 2,000 seat-rotated games,
    and its difference from ``jax-ppo``'s own games on those deals, paired by deal (the
    interval over the 1,000 deals' mean differences). An iteration whose scoring is not there
    (a run cut off before its evaluation ended) has its row, marked not scored.
    """
    import csv

    import numpy as np

    from tabletop_gym.arena.stats import mean_interval

    folder = ROOT / "benchmarks" / "expert-iteration" / "positano-2p"

    def scoring(run: str, k: int) -> Path | None:
        """The stem of iteration ``k``'s evaluation, or None where it was not scored."""
        for stem in (f"{EXIT_EVAL}-iteration_{k}", *([EXIT_EVAL] if k == 1 else [])):
            if (folder / run / f"{stem}.csv").is_file():
                return folder / run / stem
        return None

    def outcomes(stem: Path) -> np.ndarray:
        """Every game's outcome: the committed ``.outcomes.json``, else the eval's own json."""
        kept = stem.with_name(f"{stem.name}.outcomes.json")
        if kept.is_file():
            return np.asarray(json.loads(kept.read_text())["outcomes"], float)
        (result,) = json.loads(stem.with_name(f"{stem.name}.json").read_text())
        return np.asarray([g["outcome"] for g in result["per_game"]], float)

    def rate(stem: Path) -> str:
        with stem.with_name(f"{stem.name}.csv").open(newline="") as fh:
            row = next(csv.DictReader(fh))
        return (f"{float(row['win_rate']):.3f} [{float(row['win_ci_low']):.3f}, "
                f"{float(row['win_ci_high']):.3f}]")

    def minus(text: str) -> str:
        return text.replace("-", "\u2212")

    base_stem = scoring("jax-ppo", 1)
    assert base_stem is not None, f"{folder / 'jax-ppo'} has no {EXIT_EVAL}.csv"
    base = outcomes(base_stem)
    reports: list[tuple[str, int, dict[str, Any]]] = []
    for path in sorted(p for p in folder.iterdir() if p.is_dir()):
        its = sorted(int(m.group(1)) for f in path.iterdir()
                     if (m := re.fullmatch(r"iteration_(\d+)\.json", f.name)))
        reports += [(path.name, k, json.loads((path / f"iteration_{k}.json").read_text()))
                    for k in its]
    several = {run for run, k, _ in reports if k > 1}
    rows = [["`jax-ppo` itself", "", "", "", rate(base_stem), ""]]
    for run, k, r in sorted(reports, key=lambda t: ("beta" in t[2], t[2]["games"],
                                                    t[2].get("beta", 0.0), t[0], t[1])):
        target = f"gains, B = {r['beta']:g}" if "beta" in r else "searched moves"
        name = f"`{run}`, iteration {k}" if run in several else f"`{run}`"
        cells = [f"`{r['teacher']}`, {target} ({name})", f"{r['games']:,}", f"{r['samples']:,}",
                 f"{r['init_holdout_agreement']:.3f} \u2192 {r['holdout_agreement']:.3f}"]
        stem = scoring(run, k)
        if stem is None:
            rows.append([*cells, "not scored", ""])
            continue
        d = outcomes(stem) - base
        mean, lo, hi = mean_interval(d.reshape(-1, 2).mean(1))  # over deals: a pair of games each
        rows.append([*cells, rate(stem), minus(f"{mean:+.3f}") + f" \u00b1 {(hi - lo) / 2:.3f}"])
    return _table(["teacher, fit target (run)", "self-play games", "decisions",
                   "held-out agreement with the searched moves, start \u2192 fitted",
                   "win rate vs `heuristic` [95 %]", "paired difference [95 %]"], rows)


SETTINGS_BUDGETS = (100_000, 300_000, 1_000_000, 3_000_000)
"""The budgets the PPO-settings table compares at: the page's, up to the Rapa Nui ladders' top."""


def exploit_settings() -> str:
    """The ladders' PPO settings against others, on Nim's calibration and a board-game ladder.

    One row for the page's own (``benchmarks/exploit-calibration/``, the count cases, and
    ``benchmarks/exploit/rapa_nui-2p/heuristic/``), then one per folder of
    ``benchmarks/exploit-settings/``: ``calibration/`` (``tools/exploit_calibration.py --hp
    ...``) and ``rapa_nui-2p/heuristic/`` (``tabletop-gym exploit ... --hp ...``), each
    settings' name read from its files (the settings that differ from the page's).
    """
    from tabletop_gym.tasks.exploit import (
        LADDER_SETTINGS,
        learner_settings,
        load_calibration,
        settings_said,
        summary,
    )

    def nim(root: Path) -> tuple[str, str, dict[str, Any]]:
        cases = [c for c in load_calibration(root) if c["observation"] == "count"]
        rungs = [(c["config"]["pile"], r) for c in cases for r in c["rungs"]
                 if r["budget"] in SETTINGS_BUDGETS]
        within = sum(r["within"] for _, r in rungs)
        per_pile = "; ".join(
            f"{pile}: " + (", ".join(_short(r["budget"]) for q, r in rungs
                                     if q == pile and r["within"]) or "none")
            for pile in sorted({q for q, _ in rungs}))
        train = json.loads(next(root.glob("*/nim-2p/random/budget*_seed0.json")).read_text())
        return f"{within} of {len(rungs)}", per_pile, train["train"]

    def board(folder: Path) -> tuple[str, dict[str, Any]]:
        rungs = {r["budget"]: r for r in summary(folder)["rungs"]}
        train = json.loads(next(folder.glob("budget*_seed0.json")).read_text())["train"]
        return " / ".join(f"{rungs[b]['win_rate']:.3f} \u00b1 {rungs[b]['win_half']:.3f}"
                          if b in rungs else "\u2013" for b in SETTINGS_BUDGETS), train

    bench = ROOT / "benchmarks"
    cells, piles, page = nim(bench / "exploit-calibration")
    scores, _ = board(bench / "exploit" / "rapa_nui-2p" / "heuristic")
    assert all(page.get(k) == v for k, v in LADDER_SETTINGS.items())
    rows = [["the ladders' own (the results page)", cells, piles, scores]]
    for folder in sorted(p for p in (bench / "exploit-settings").glob("*") if p.is_dir()):
        cells, piles, train = nim(folder / "calibration")
        scores, other = board(folder / "rapa_nui-2p" / "heuristic")
        if learner_settings(other) != learner_settings(train):
            raise ValueError(f"{folder}: the Nim and Rapa Nui ladders were trained with other "
                             f"settings ({train} and {other})")
        rows.append([settings_said(train, page), cells, piles, scores])
    return _table(["PPO settings", "Nim, the pile as a count: cells within the exact value's "
                   "interval", "per pile, the budgets within",
                   "Rapa Nui 2p, BR to `heuristic`: win rate at "
                   + " / ".join(_short(b) for b in SETTINGS_BUDGETS)], rows)


def _short(steps: int) -> str:
    """``100k``, ``1M``: a budget in a table's narrow cell."""
    return f"{steps // 1_000_000}M" if steps % 1_000_000 == 0 else f"{steps // 1_000}k"


def ladder_heuristic() -> str:
    """The heuristic rated under the protocol (``benchmarks/ladder/heuristic.json``)."""
    from tabletop_gym.arena.ladder import LadderRating

    doc = json.loads((ROOT / "benchmarks" / "ladder" / "heuristic.json").read_text())
    rating = LadderRating.from_json(doc)
    return (rating.markdown() + "\n\nHalf-width of the interval: "
            f"{(rating.ci[1] - rating.ci[0]) / 2:.0f} Elo.")


GENERATORS: dict[str, Callable[[], str]] = {
    "training-budgets": training_budgets,
    "distilled-nets": distilled_nets,
    "gpu-speed": gpu_speed,
    "gpu-runs": gpu_runs,
    "jax-ppo-shipped": jax_ppo_shipped,
    "jax-cpu-runs": jax_cpu_runs,
    "jax-train-speed": jax_train_speed,
    "openspiel-learning": openspiel_learning,
    "llm-grammars": llm_grammars,
    "llm-transcript": llm_transcript,
    "llm-league": llm_league,
    "llm-probe-references": llm_probe_references,
    "ladder-ratings": ladder_ratings,
    "ladder-heuristic": ladder_heuristic,
    "datasets-bc": datasets_bc,
    "datasets-values-gains": datasets_values_gains,
    "datasets-games-cards": datasets_games_cards,
    "datasets-minari-cards": datasets_minari_cards,
    "datasets-coverage": datasets_coverage,
    "expert-iteration-positano": expert_iteration_positano,
    "exploit-settings": exploit_settings,
}
"""The generators of the tables that are not a game's own."""


def _game_tables() -> dict[str, Callable[[], str]]:
    """Every registered game's own tables (its spec's ``docs_tables``), named ``<game>-<table>``."""
    from tabletop_gym.registry import game_specs, resolve

    return {f"{spec.name}-{name}": make for spec in game_specs() if spec.docs_tables
            for name, make in resolve(spec.docs_tables).items()}


GENERATORS.update(_game_tables())


def regenerate(text: str, cache: dict[str, str] | None = None) -> tuple[str, list[str]]:
    """``text`` with every generated block rewritten, and the names of the blocks that changed.

    Raises:
        KeyError: A block names no generator.
    """
    cache = {} if cache is None else cache
    changed: list[str] = []

    def sub(m: re.Match[str]) -> str:
        name = m.group("name")
        if name not in GENERATORS:
            known = sorted(GENERATORS)
            raise KeyError(f"generated block {name!r} has no generator; known: {known}")
        if name not in cache:
            cache[name] = GENERATORS[name]().rstrip("\n") + "\n"
        if m.group("body") != cache[name]:
            changed.append(name)
        return m.group("open") + cache[name] + m.group("close")

    return _BLOCK.sub(sub, text), changed


def pages() -> list[Path]:
    """Every Markdown page that may hold generated blocks."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def main(argv: list[str] | None = None) -> int:
    """Rewrite (or with ``--check`` only report) the stale generated blocks."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="report stale blocks, change nothing")
    args = parser.parse_args(argv)
    cache: dict[str, str] = {}
    stale = []
    for page in pages():
        text = page.read_text(encoding="utf-8")
        new, changed = regenerate(text, cache)
        rel = page.relative_to(ROOT)
        stale += [f"{rel}: {name}" for name in changed]
        if changed and not args.check:
            page.write_text(new, encoding="utf-8")
            print(f"rewrote {rel}: {', '.join(changed)}")
    if args.check and stale:
        print("stale generated blocks:\n" + "\n".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
