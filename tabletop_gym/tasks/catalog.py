"""The registry written out: the docs page ``docs/tasks.md`` and the committed snapshot.

Both are generated (``tabletop-gym suite docs``, ``tabletop-gym suite snapshot``); tests fail when
the committed files differ from what the registry gives, so neither can drift.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tabletop_gym.registry import game_spec
from tabletop_gym.tasks import (
    BASE_IDS,
    FREE_KWARGS,
    GAMES,
    SUITES,
    TASKS,
    _plain,
    describe,
)
from tabletop_gym.version import __version__

SNAPSHOT_FIELDS = (
    "version", "game", "mode", "num_players", "board_size", "reward_type", "config",
    "env_settings", "opponents", "seat_mode", "learner_seat", "reference_opponents",
    "max_episode_steps",
)
"""What a task pins (the description and budgets may change freely)."""

MODE_TEXT = {"solo": "solo", "vs": "against bots", "selfplay": "self-play"}


def snapshot() -> dict[str, Any]:
    """Every task's pinned settings, by id (the content of ``tests/data/tasks_snapshot.json``)."""
    out = {}
    for task_id in TASKS:
        d = describe(task_id)
        out[task_id] = {f: d[f] for f in SNAPSHOT_FIELDS}
    return out


def compare_snapshot(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """Differences that break the rule "same id and version, same settings".

    A setting in ``old`` that changed or vanished is a problem, and so is a task that joined the
    registry without the snapshot, or left it without a newer version of the same name. A config
    key in ``new`` only is allowed: adding a switch whose default keeps the old behaviour changes
    no trajectory (CHANGELOG.md).
    """
    problems = []
    fix = ("bump the task's version (CHANGELOG.md: any change that can change a trajectory or a "
           "reward bumps the version of every task it touches), then run "
           "`tabletop-gym suite snapshot`")
    for task_id, settings in old.items():
        if task_id not in new:
            name, _, version = task_id.rpartition("-v")
            if not any(i.rpartition("-v")[0] == name and int(i.rpartition("-v")[2]) > int(version)
                       for i in new):
                problems.append(f"{task_id} left the registry without a newer version of "
                                f"{name}; a published task is retired only by a version bump")
            continue
        cur = new[task_id]
        for field, value in settings.items():
            if field == "config":
                for key, v in value.items():
                    if key not in cur["config"]:
                        problems.append(f"{task_id}: config setting {key!r} vanished; {fix}")
                    elif cur["config"][key] != v:
                        problems.append(f"{task_id}: config {key} changed from {v!r} to "
                                        f"{cur['config'][key]!r}; {fix}")
            elif cur.get(field) != value:
                problems.append(f"{task_id}: {field} changed from {value!r} to "
                                f"{cur.get(field)!r}; {fix}")
    for task_id in new:
        if task_id not in old:
            problems.append(f"{task_id} is not in the snapshot; run `tabletop-gym suite snapshot`")
    return problems


def _fmt(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value) if value else "random"
    return str(value)


def _variant_text(task_id: str) -> str:
    t = TASKS[task_id]
    standard = GAMES[t.game]["standard"]
    diff = {k: v for k, v in t.config.items() if k in standard and standard[k] != _plain(v)}
    return "standard" if not diff else ", ".join(f"`{k}={v!r}`" for k, v in diff.items())


def tasks_table() -> str:
    """The markdown table of every task and its pinned settings."""
    head = ("| id | game | mode | players | board | reward | learner seat | opponents | "
            "scored against | variants | made with |")
    lines = [head, "|" + "---|" * 11]
    for task_id in TASKS:
        d = describe(task_id)
        board = f"{d['board_size']}×{d['board_size']}" if d["board_size"] else "–"
        reward = "solo result / 100" if d["mode"] == "solo" else d["reward_type"]
        seat = {"rotate": "rotates", "fixed": "0"}.get(
            str(d["seat_mode"]), "every seat")
        made = "`gymnasium.make`" if d["interfaces"] == ["gymnasium"] else "`pettingzoo.make`"
        opponents = (str(game_spec(d["game"]).benchmark.solo_opponent) if d["mode"] == "solo"
                     else _fmt(d["opponents"]))
        lines.append(
            f"| `{task_id}` | {GAMES[d['game']]['title']} | {MODE_TEXT[d['mode']]} | "
            f"{d['num_players']} | {board} | {reward} | {seat} | {opponents} | "
            f"{_fmt(d['reference_opponents'])} | {_variant_text(task_id)} | {made} |"
        )
    return "\n".join(lines)


def _standard_switches() -> str:
    lines = ["| game | switch | pinned value |", "|---|---|---|"]
    for game in GAMES:
        first = next((t for t in TASKS.values() if t.game == game), None)
        if first is None:
            continue  # a game without tasks pins nothing
        bench = game_spec(game).benchmark
        # What the tasks of a game vary is in their ids, not among the pinned switches.
        varied = {"num_players", "reward_type", *(k for line in bench.tasks for k in line.config)}
        d = describe(first.id)
        switches = {k: v for k, v in d["config"].items() if k not in varied}
        switches.update({f"{k} (env)": v for k, v in d["env_settings"].items()})
        for key, value in switches.items():
            shown = bench.standard_text.get(key, f"`{value!r}`")
            lines.append(f"| {GAMES[game]['title']} | `{key}` | {shown} |")
    return "\n".join(lines)


def _suites_table() -> str:
    from tabletop_gym.tasks.runner import load_references, protocol_deals

    refs = load_references()
    lines = ["| suite | tasks | seeds | deals per seed | training budget per task | what |",
             "|---|---|---|---|---|---|"]
    for s in SUITES.values():
        budgets = sorted({s.train_timesteps(t) for t in s.task_ids})
        budget = " or ".join(f"{b / 1e6:g}M steps" for b in budgets)
        deals = [protocol_deals(TASKS[t], refs) for t in s.task_ids]
        known = [d for d in deals if d]
        per = (f"{min(known)}–{max(known)} (per task)" if known else "–")
        if len(known) < len(deals):
            per += f"; {len(deals) - len(known)} without references yet"
        lines.append(f"| `{s.name}` | {len(s.task_ids)} | {s.seeds} | {per} | "
                     f"{budget} | {s.description} |")
    lines.append("")
    lines.append("`core`: " + ", ".join(f"`{t}`" for t in SUITES["core"].task_ids) + ".")
    return "\n".join(lines)


def _references_table() -> str:
    from tabletop_gym.tasks.runner import load_references

    refs = load_references()
    rows = refs.get("tasks", {})
    if not rows:
        return "No reference scores are committed yet (`tabletop-gym suite references`)."
    proto = refs["protocol"]
    meta = refs.get("metadata", {})
    half = proto["half_width"]
    lines = [
        f"Mean return by the suite protocol (version {proto['version']}: {len(proto['seeds'])} "
        f"seeds, at least {proto['min_games']:,} games per agent and task), tabletop-gym "
        f"{meta.get('package_version')}, with 95 % intervals over the games. *Deals per seed*: "
        f"the protocol's for the task, chosen so that the heuristic bot's task score has a 95 % "
        f"interval no wider than ±{half:g} normalised: from the spread of its returns (*sd*) "
        f"and the span heuristic − random, the games needed are (1.96 · sd / ({half:g} · "
        f"span))², spread over the seeds and the games of a deal (one per seat and table of "
        f"opponents); a task is played on at least enough deals for the minimum of games. "
        f"*±*: the half-width reached, normalised.",
        "",
        "| task | deals per seed | games | random agent (0) | heuristic bot (1) | sd | ± |",
        "|---|---|---|---|---|---|---|",
    ]
    missing = []
    for task_id in TASKS:
        r = rows.get(task_id)
        if r is None or "power" not in r:
            missing.append(task_id)
            continue
        cells = []
        for a in ("random", "heuristic"):
            lo, hi = r[a]["ci"]
            cells.append(f"{r[a]['score']:.3f} [{lo:.3f}, {hi:.3f}]")
        p = r["power"]
        lines.append(f"| `{task_id}` | {r['deals_per_seed']} | {r['heuristic']['games']:,} | "
                     f"{cells[0]} | {cells[1]} | {p['heuristic_return_sd']:.3f} | "
                     f"{p['heuristic_half_width']:.3f} |")
    if missing:
        lines += ["", "No references under this protocol yet (their scores are not "
                  "normalised until `tabletop-gym suite references` reaches them): "
                  + ", ".join(f"`{t}`" for t in missing) + "."]
    lines += [
        "",
        "Each reference is an estimate from the same deals every run plays, so the random agent",
        "and the heuristic bot score exactly 0 and 1 by the default protocol; with other seeds",
        "or deals they land near 0 and 1. Every results file copies the two references it used",
        "for each task, so a normalised score can always be traced to its scale.",
    ]
    return "\n".join(lines)


def _base_ids_table() -> str:
    lines = ["| id | made with | defaults |", "|---|---|---|"]
    for base_id in BASE_IDS:
        d = describe(base_id)
        made = "`gymnasium.make`" if d["interfaces"] == ["gymnasium"] else (
            f"`tabletop_gym.envs.{base_id}.env()`")
        parts = [f"num_players={d['num_players']}", f"reward_type={d['reward_type']}"]
        if d["opponents"]:
            parts += [f"opponents={d['opponents']}", f"seat_mode={d['seat_mode']}",
                      f"learner_seat={d['learner_seat']}"]
        lines.append(f"| `{base_id}` | {made} | {', '.join(parts)} |")
    return "\n".join(lines)


PAGE = """# Benchmark tasks

<!-- Generated by `tabletop-gym suite docs` from tabletop_gym/tasks; do not edit by hand. -->

A task id names one exact benchmark: the game, the player count, the board, every variant switch,
the reward, the learner's seat policy and the opponents. A paper that names
`Positano-2p-vsHeuristic-v0` has said everything needed to rebuild its environment; two papers
that name the same id and version ran the same one.

```python
import gymnasium

import tabletop_gym
from tabletop_gym import tasks

env = gymnasium.make("RapaNui-2p-vsHeuristic-v0")  # solo and against-bots tasks
obs, info = env.reset(seed=0)
aec = tasks.make("Positano-4p-SelfPlay-v0")  # self-play tasks: a PettingZoo env
aec.reset(seed=0)
print(tasks.describe("RapaNui-2p-vsHeuristic-v0")["description"])
```

Self-play tasks are also PettingZoo registry ids: `pettingzoo.make("aec",
"tabletop_gym/RapaNui-4p-SelfPlay-v0")`, and `pettingzoo.make("parallel", ...)` where the game has
a parallel env (`tasks.make(id, parallel=True)` says when it has none).

A task refuses any keyword that would change a pinned setting, with an error that names the
setting and the configurable id to use instead; it accepts only keywords that change no trajectory
(Gymnasium: {gym_free}; PettingZoo: {pz_free}).

## Tasks

{tasks}

*Mode*: solo (Positano against the automa Otto Amalfi), against bots (one learner, the other seats
played by pinned bots; the Gymnasium env steps them), self-play (every seat a learner).
*Learner seat*: with "rotates", `reset(seed=e)` plays seat `e mod n` and each unseeded reset moves
one seat on, so training sees every seat and a seed fixes the seat. *Scored against*: who fills
the other seats when an agent is scored on the task (below).
*Reward*: `win_loss` gives +1 to each winner and -1 to each other player at the end of the game
(0 to all if all tie); solo Positano gives min(own score, Otto's) / 100.

Every task pins these variant switches ("standard" in the table):

{standard}

## Suites and protocol

{suites}

`tabletop-gym suite run --suite core --agent heuristic --seeds 5` scores an agent on every task of
a suite and writes one results file (`--agent` takes `random`, `heuristic`, any other opponent
name the package knows, or a checkpoint `.zip`; `--agent positano=a.zip --agent rapa_nui=b.zip`
gives one per game; `--held-out` also scores it against the held-out population of bots on
every multi-player task). The protocol, the same for every agent and for the reference scores:

* **Seeds and deals**: evaluation seed `s` is a block of deals with engine seeds `1000·s + j`.
* **Seat rotation**: every multi-player deal is played once from every seat, the agent in that
  seat and the task's reference opponents in all the others, so seat advantages cancel.
* **Against bots**: the reference opponents are the task's pinned bots. **Self-play**: the agent is
  scored against a table of random bots and a table of heuristic bots, and the task score is the
  mean of the two. **Solo**: the agent plays each deal; the heuristic bot plays the same deal for
  the win rate.
* **Score**: the agent's mean return (the task's reward for a whole game), with a 95 % normal
  interval over all games; per seed, the mean over that seed's games.
* **Normalised score**: `(score − random) / (heuristic − random)`, 0 for the random agent and 1 for
  the heuristic bot, as Atari scores are normalised by the random and human scores. The reference
  scores are committed (`tabletop_gym/tasks/reference_scores.json`, made by
  `tabletop-gym suite references`).
* **Aggregate**: the interquartile mean of the (seed, task) normalised scores, with a stratified
  bootstrap 95 % interval (each replicate resamples the seeds of every task independently), as
  `rliable` computes it: for the same seed the IQM, the mean and both intervals equal rliable's
  to the last bit (`tests/test_rliable_agreement.py`).

The results file (schema: `tabletop_gym/tasks/results.schema.json`) holds the task ids and
versions, the seeds, the package version, commit and library versions, every task's score with its
interval and breakdown by opponent, the normalised scores and the aggregate.
`tabletop-gym suite report results/*.json --out report.md` turns several runs into a markdown
table and a plot (`report.png`; `--no-plot` writes the table only, and the plot needs matplotlib).

## Training a named algorithm on a suite

`tabletop-gym suite train --suite core --algo sb3-ppo --seeds 5` trains one agent per (task,
training seed) by a pinned, versioned recipe, scores each with the protocol above and writes, under
`results/suite-train/<algo>/<task>/seed-<s>/`, the checkpoint, the trainer's files and
`result.json` (the task's results row, the recipe and its version, the budget, the CPU seconds,
and on a multi-player task the scores against a held-out population of bots no recipe trains
against: `tabletop_gym.tasks.held_out`). A finished (task, seed) is never trained again, so a run
resumes where it stopped, on this machine or another with the folder copied; `--seed K`
(repeatable) trains only those seeds, one process or machine each (`bench/suite_gpu.py` runs the
missing rows side by side on a machine with many cores and a GPU). `<algo>/results.json`
gathers the finished rows, with the IQM over (training seed, task) and its stratified bootstrap
interval. The [results page](results.md) (`tabletop-gym suite results`) puts every row of the
core suite side by side; the same command rewrites the [baselines page](baselines.md) from the
numbers `make baselines` measured (`docs/baselines.json`), and `--check` fails when either page
is not what its committed files give. Recipes:

{recipes}

{references}

## The configurable ids

The ids that came before tasks keep working and pin nothing: every keyword changes a setting, so a
paper that uses them must list every keyword. `tasks.describe` reports their defaults:

{base_ids}

## Versions and citing a task

A task's version is the number after `-v`. Any change that can change a trajectory or a reward for
the same seed and actions (rules, their defaults, action ids, observations, rewards, seeding, the
bots' play, the opponents or the seat policy) bumps the version of every task it touches; the
bumped version replaces the old one, and CHANGELOG.md lists every bump. A committed snapshot of
the registry (`tests/data/tasks_snapshot.json`) makes the tests fail when a pinned setting changes
under the same id and version.

To cite a task, give its full id and the package version, e.g. "`RapaNui-2p-vsHeuristic-v0`
(tabletop-gym {version})", report scores by the suite protocol with the number of seeds, and
cite the package itself by the repository's citation file. `tasks.describe(id)` prints every
pinned setting for an appendix.
"""


def _recipes_table() -> str:
    from tabletop_gym.tasks.train import RECIPES

    lines = ["| recipe | version | budget per (task, seed) | what |", "|---|---|---|---|"]
    for r in RECIPES.values():
        lines.append(f"| `{r.name}` | {r.version} | {r.timesteps:,} {r.unit} | {r.description} |")
    return "\n".join(lines)


def docs_page() -> str:
    """The content of ``docs/tasks.md``."""
    return PAGE.format(
        gym_free=", ".join(f"`{k}`" for k in FREE_KWARGS["gymnasium"]),
        pz_free=", ".join(f"`{k}`" for k in FREE_KWARGS["pettingzoo"]),
        tasks=tasks_table(),
        standard=_standard_switches(),
        suites=_suites_table(),
        recipes=_recipes_table(),
        references=_references_table(),
        base_ids=_base_ids_table(),
        version=__version__,
    )
