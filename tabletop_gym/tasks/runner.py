"""Score an agent on every task of a suite and write one results file per run.

Protocol (the same for the agent under test and for the random and heuristic references):

* Seeds ``0 .. S-1``; seed ``s`` is a block of ``deals_per_seed`` fresh deals with engine seeds
  ``1000 * s + j`` (:func:`deal_base`).
* A multi-player deal is played once from every seat, the agent in that seat and the task's
  reference opponents in all the others (:func:`~tabletop_gym.arena.evaluation.evaluate`
  rotates the seats), so seat advantages cancel.
* Against-bots tasks: the reference opponents are the task's pinned bots. Self-play tasks have no
  bots; the agent is scored in turn against a table of random bots and a table of heuristic bots,
  and the task score is the mean of the two. Solo: the agent plays each deal once, the
  heuristic bot plays the same deal for the win-rate comparison.
* The score of a task is the agent's mean **return** (the task's reward for a whole game); the
  score of a seed is the mean over that seed's games. The task's 95 % interval is the normal
  interval over all its games.
* Normalised score: ``(score - random) / (heuristic - random)`` with the committed reference
  scores (:data:`REFERENCE_FILE`, made by ``tabletop-gym suite references``).
* Aggregate: the interquartile mean of the (seed, task) normalised scores with a stratified
  bootstrap 95 % interval (:mod:`tabletop_gym.arena.stats`).
"""

from __future__ import annotations

import datetime
import json
import math
import pathlib
import sys
import time
import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from tabletop_gym.arena.evaluation import evaluate
from tabletop_gym.arena.stats import (
    Z95,
    iqm,
    mean,
    mean_interval,
    normalize,
    stratified_bootstrap_ci,
    wilson_interval,
)
from tabletop_gym.provenance import metadata
from tabletop_gym.tasks import SUITES, TASKS, Task, suite_tasks

RESULTS_FORMAT = "tabletop-gym-suite-results"
RESULTS_FORMAT_VERSION = 2
HERE = pathlib.Path(__file__).resolve().parent
REFERENCE_FILE = HERE / "reference_scores.json"
SCHEMA_FILE = HERE / "results.schema.json"
REFERENCE_AGENTS = ("random", "heuristic")
SEED_STRIDE = 1000
"""Deal seeds of evaluation seed ``s`` start at ``SEED_STRIDE * s``."""
PROTOCOL_VERSION = 1
"""Version of the evaluation protocol. 1: the deals per seed are set per task by the power rule
(:func:`deals_needed`); 0 (before): 4 deals per seed on every task."""
MIN_REFERENCE_GAMES = 2000
"""The reference scores of a task come from at least this many seat-rotated games."""
FALLBACK_DEALS = 4
"""Deals per seed of a task without references under this protocol (it is then not normalised)."""
TARGET_HALF_WIDTH = 0.05
"""The half-width, on the normalised scale, of the heuristic bot's 95 % task-score interval
that the protocol's deals per task are chosen to reach."""


def deal_base(seed: int) -> int:
    """First engine seed of evaluation seed ``seed``'s block of deals."""
    return SEED_STRIDE * int(seed)


def _games(task: Task, deals: int) -> int:
    return deals * task.num_players


def games_per_deal(task: Task) -> int:
    """Games one deal gives: one per seat, against every table of reference opponents."""
    return task.num_players * len(task.reference_opponents)


def deals_needed(return_sd: float, span: float, task: Task, seeds: int,
                 half_width: float = TARGET_HALF_WIDTH) -> int:
    """Deals per seed for a 95 % task-score interval of ``half_width`` on the normalised scale.

    The task score's interval is the normal interval over all its games (:func:`score_task`),
    ``Z95 · sd / sqrt(games)`` on the return scale, and one normalised unit is ``span``
    (heuristic minus random) returns, so the games needed are
    ``(Z95 · sd / (half_width · span))²``, spread over ``seeds`` blocks of deals.

    Args:
        return_sd: Standard deviation of the returns of the agent's games.
        span: Heuristic reference minus random reference, in returns.
        task: The task (its seats and tables of opponents give the games per deal).
        seeds: Evaluation seeds.
        half_width: Target half-width, normalised.
    """
    if span <= 0:
        raise ValueError(f"the references of {task.id} have no positive span ({span})")
    games = (Z95 * return_sd / (half_width * span)) ** 2
    return max(1, math.ceil(games / (games_per_deal(task) * seeds)))


def _play(
    task: Task, agent: Any, seeds: Sequence[int], deals_per_seed: int,
    opponents: Sequence[str] | None = None, first_deal: int = 0,
    llm: dict[str, Any] | None = None,
) -> tuple[list[float], list[float], dict[str, dict[str, list[float]]]]:
    """The protocol's games: per-seed scores, every game's return, and per opponent table.

    ``llm``: where an LLM agent's counters over every game are summed (left empty for another
    agent).
    """
    from tabletop_gym.agents.llm import add_stats

    if deals_per_seed < 1:
        raise ValueError(f"deals_per_seed must be at least 1, got {deals_per_seed}")
    tables = tuple(task.reference_opponents if opponents is None else opponents)
    per_seed: list[float] = []
    returns: list[float] = []
    by_opp: dict[str, dict[str, list[float]]] = {
        o: {"returns": [], "outcomes": [], "scores": []} for o in tables
    }
    for s in seeds:
        seed_means = []
        for opp in tables:
            res = evaluate(task.game, agent, opp, n_games=_games(task, deals_per_seed),
                           seed=first_deal + deal_base(s), **task.config, **task.env_settings)
            rets = [float(g["return"]) for g in res.per_game]
            for g in res.per_game:
                if llm is not None and "candidate" in g.get("llm", {}):
                    add_stats(llm, g["llm"]["candidate"])
            seed_means.append(float(np.mean(rets)))
            returns.extend(rets)
            by_opp[opp]["returns"].extend(rets)
            by_opp[opp]["outcomes"].extend(g["outcome"] for g in res.per_game)
            by_opp[opp]["scores"].append(res.mean_score)
        per_seed.append(float(np.mean(seed_means)))
    return per_seed, returns, by_opp


def score_task(task: Task, agent: Any, seeds: Sequence[int], deals_per_seed: int,
               opponents: Sequence[str] | None = None, first_deal: int = 0) -> dict[str, Any]:
    """Play the protocol on one task; the per-seed scores, the pooled interval and breakdowns.

    Args:
        task: The task.
        agent: Agent spec (``"random"``, ``"heuristic"``, an Agent, a callable, a model).
        seeds: Evaluation seeds.
        deals_per_seed: Deals of every seed.
        opponents: Tables of opponents to play against instead of the task's reference
            opponents (the held-out population, :mod:`tabletop_gym.tasks.held_out`).
        first_deal: Engine seed added to every deal's (another block of deals).
    """
    llm: dict[str, Any] = {}
    per_seed, returns, by_opp = _play(task, agent, seeds, deals_per_seed, opponents, first_deal,
                                      llm)
    _, lo, hi = mean_interval(returns)
    breakdown = {}
    for opp, d in by_opp.items():
        m, rlo, rhi = mean_interval(d["returns"])
        win = float(np.mean(d["outcomes"]))
        breakdown[opp] = {
            "games": len(d["returns"]),
            "mean_return": m,
            "return_ci": [rlo, rhi],
            "win_rate": win,
            "win_ci": list(wilson_interval(win, len(d["outcomes"]))),
            "mean_score": float(np.mean(d["scores"])),
        }
    out: dict[str, Any] = {
        "score": float(np.mean(per_seed)),
        "score_ci": [lo, hi],
        "per_seed": per_seed,
        "games": len(returns),
        "by_opponent": breakdown,
    }
    if llm:
        # an LLM agent's counters over the task's games, and whether its score is valid
        from tabletop_gym.agents.llm import report_rows

        (row,) = report_rows({_label(agent): llm})
        out["llm"] = {k: v for k, v in row.items() if k not in ("agent", "invalid")}
        out["invalid"] = row["invalid"]
    return out


# --- reference scores --------------------------------------------------------------------------


def _reference_cell(
    args: tuple[str, str, tuple[int, ...], int],
) -> tuple[str, str, list[float], list[float]]:
    task_id, agent, seeds, deals = args
    per_seed, returns, _ = _play(TASKS[task_id], agent, seeds, deals)
    return task_id, agent, per_seed, returns


def _reference_row(task: Task, seeds: int, deals: int, jobs: int,
                   progress: bool) -> dict[str, Any]:
    cells = [(task.id, a, (s,), deals) for a in REFERENCE_AGENTS for s in range(seeds)]
    if jobs > 1:
        import multiprocessing

        with multiprocessing.get_context("spawn").Pool(jobs) as pool:
            done = list(pool.imap(_reference_cell, cells, chunksize=1))
    else:
        done = [_reference_cell(c) for c in cells]
    row: dict[str, Any] = {"version": task.version, "deals_per_seed": deals}
    for a in REFERENCE_AGENTS:
        per_seed = [x for _, agent, seed_scores, _ in done if agent == a for x in seed_scores]
        returns = [x for _, agent, _, rets in done if agent == a for x in rets]
        _, lo, hi = mean_interval(returns)
        row[a] = {"per_seed": per_seed, "score": float(np.mean(per_seed)), "ci": [lo, hi],
                  "games": len(returns), "return_sd": float(np.std(returns, ddof=1))}
    if progress:
        print(f"{task.id}: {deals} deals per seed, {row['heuristic']['games']} games per agent",
              file=sys.stderr, flush=True)
    return row


def compute_references(
    task_ids: Iterable[str] | None = None,
    seeds: int = 5,
    min_games: int = MIN_REFERENCE_GAMES,
    half_width: float = TARGET_HALF_WIDTH,
    jobs: int = 1,
    progress: bool = False,
    out: str | pathlib.Path | None = None,
    deals_per_seed: int | None = None,
) -> dict[str, Any]:
    """Scores of the random agent and the heuristic bot on each task, and its protocol deals.

    Each task is first played on enough deals for ``min_games`` games per agent. From the
    heuristic bot's returns and the two references, :func:`deals_needed` gives the deals per
    seed for a task-score interval of ``half_width`` (normalised); where that is more, the task
    is played again on that many deals. Those deals are the task's deals per seed under the
    protocol, so the references come from exactly the deals every run of the task plays.

    Args:
        task_ids: Tasks (default: every task).
        seeds: Number of evaluation seeds.
        min_games: Fewest games per agent and task.
        half_width: Target half-width of the heuristic's task-score interval, normalised.
        jobs: Worker processes (each (task, agent, seed) cell is independent and deterministic).
        progress: Print one line per finished task to stderr.
        out: Write the document here after every task, merged with the tasks already there
            under this protocol (which are not played again), so a long run resumes.
        deals_per_seed: Play exactly this many deals per seed instead (tests, quick looks).
    """
    ids = list(task_ids) if task_ids is not None else list(TASKS)
    protocol = {"version": PROTOCOL_VERSION, "seeds": list(range(seeds)),
                "seed_stride": SEED_STRIDE, "min_games": min_games, "half_width": half_width}
    doc: dict[str, Any] = {"protocol": protocol, "metadata": {}, "tasks": {}}
    if out is not None and pathlib.Path(out).is_file():
        old = load_references(out)
        if old.get("protocol") == protocol:
            doc["tasks"] = dict(old.get("tasks", {}))
    for task_id in ids:
        task = TASKS[task_id]
        kept = doc["tasks"].get(task_id)
        if kept is not None and kept.get("version") == task.version and deals_per_seed is None:
            continue
        if deals_per_seed is not None:
            row = _reference_row(task, seeds, deals_per_seed, jobs, progress)
        else:
            first = max(1, math.ceil(min_games / (games_per_deal(task) * seeds)))
            row = _reference_row(task, seeds, first, jobs, progress)
            for _ in range(3):
                # The need is itself estimated: play 10 % more, and again if still short.
                need = _power(row, task, seeds, half_width)["deals_per_seed_needed"]
                if need <= row["deals_per_seed"]:
                    break
                row = _reference_row(task, seeds, math.ceil(1.1 * need), jobs, progress)
        row["power"] = _power(row, task, seeds, half_width)
        doc["tasks"][task_id] = row
        doc["metadata"] = metadata(command="tabletop-gym suite references")
        if out is not None:
            write_results(doc, out)
    return doc


def _power(row: Mapping[str, Any], task: Task, seeds: int, half_width: float) -> dict[str, Any]:
    """The heuristic's measured spread, the normalised half-width reached and the deals needed."""
    h, r = row["heuristic"], row["random"]
    span = float(h["score"]) - float(r["score"])
    sd = float(h["return_sd"])
    reached = Z95 * sd / math.sqrt(h["games"]) / span if span > 0 else None
    return {"span": span, "heuristic_return_sd": sd, "heuristic_half_width": reached,
            "deals_per_seed_needed": deals_needed(sd, span, task, seeds, half_width)}


def protocol_deals(task: Task, references: Mapping[str, Any]) -> int | None:
    """Deals per seed of ``task`` under the protocol: those of its committed references."""
    row = references.get("tasks", {}).get(task.id)
    if row is None or row.get("version") != task.version or "deals_per_seed" not in row:
        return None
    return int(row["deals_per_seed"])


def load_references(path: str | pathlib.Path = REFERENCE_FILE) -> dict[str, Any]:
    """The committed reference scores (empty tables when the file is absent)."""
    p = pathlib.Path(path)
    if not p.exists():
        return {"protocol": {}, "tasks": {}}
    return json.loads(p.read_text())


# --- a run ---------------------------------------------------------------------------------------


def agent_for(agent: Any, game: str) -> Any:
    """The spec of ``agent`` for ``game`` (a mapping gives one spec per game)."""
    if isinstance(agent, Mapping):
        if game not in agent:
            raise ValueError(f"no agent given for {game}; give one per game in the suite, "
                             f"got {sorted(agent)}")
        return agent[game]
    return agent


def check_agent(task: Task, agent: Any) -> None:
    """Build ``agent`` for ``task`` and let it choose a first action.

    Raises:
        ValueError: When the spec names no agent, or the agent cannot play this game (e.g. a
            checkpoint trained on the other game).
    """
    from tabletop_gym.agents.base import choose_action
    from tabletop_gym.agents.kinds import make_agent
    from tabletop_gym.arena.envs import raw_env_factory

    env = raw_env_factory(task.game)(**task.config, **task.env_settings)
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)
    player = make_agent(agent, env.game, env.observer, np.random.default_rng(0))
    try:
        # as evaluate() asks it: a search or text agent gets the env, not only the observation
        action = choose_action(player, env, env.agent_selection)
    except Exception as err:
        raise ValueError(f"agent {_label(agent)!r} cannot play {task.id}: {err}") from err
    if not (0 <= int(action) < len(obs["action_mask"])) or not obs["action_mask"][int(action)]:
        raise ValueError(f"agent {_label(agent)!r} chose the illegal action {action} on "
                         f"{task.id}; is it a {task.game} agent?")


def _label(agent: Any) -> str:
    if isinstance(agent, Mapping):
        return ", ".join(f"{g}={_label(a)}" for g, a in agent.items())
    if isinstance(agent, str):
        return agent
    return str(getattr(agent, "name", type(agent).__name__))


def run_suite(
    suite: str,
    agent: Any,
    seeds: int | None = None,
    deals_per_seed: int | None = None,
    task_ids: Sequence[str] | None = None,
    agent_label: str | None = None,
    references: Mapping[str, Any] | None = None,
    bootstrap_reps: int = 2000,
) -> dict[str, Any]:
    """Score ``agent`` on every task of ``suite``; the results document (see the schema).

    Args:
        suite: Suite name (:data:`tabletop_gym.tasks.SUITES`).
        agent: Agent spec, or a mapping ``{game: spec}`` (a checkpoint plays one game only).
        seeds: Number of evaluation seeds (default: the suite's).
        deals_per_seed: Deals per seed (default: the suite's).
        task_ids: Only these tasks of the suite.
        agent_label: Name written to the results (default: derived from ``agent``).
        references: Reference scores (default: the committed file).
        bootstrap_reps: Replicates of the aggregate's bootstrap.
    """
    tasks = suite_tasks(suite)
    spec = SUITES[suite]
    if task_ids is not None:
        unknown = [t for t in task_ids if t not in spec.task_ids]
        if unknown:
            raise ValueError(f"tasks {unknown} are not in suite {suite!r}; its tasks: "
                             f"{list(spec.task_ids)}")
        tasks = [t for t in tasks if t.id in task_ids]
    n_seeds = spec.seeds if seeds is None else int(seeds)
    if n_seeds < 1 or (deals_per_seed is not None and int(deals_per_seed) < 1):
        raise ValueError(f"seeds and deals_per_seed must be at least 1, got {n_seeds} and "
                         f"{deals_per_seed}")
    agents = {t.game: agent_for(agent, t.game) for t in tasks}
    for task in tasks:  # an unknown name or a wrong checkpoint fails before any game is played
        check_agent(task, agents[task.game])
    refs = load_references() if references is None else references
    ref_tasks = refs.get("tasks", {})
    # The protocol's deals of each task are those of its references (the power rule).
    deals_of = {t.id: int(deals_per_seed) if deals_per_seed is not None
                else protocol_deals(t, refs) or FALLBACK_DEALS for t in tasks}
    seed_list = list(range(n_seeds))
    rows = []
    cpu0 = time.process_time()
    for task in tasks:
        row: dict[str, Any] = {
            "id": task.id, "name": task.name, "version": task.version, "game": task.game,
            "mode": task.mode, "num_players": task.num_players,
            "reference_opponents": list(task.reference_opponents),
            "deals_per_seed": deals_of[task.id],
        }
        row.update(score_task(task, agents[task.game], seed_list, deals_of[task.id]))
        ref = ref_tasks.get(task.id)
        if ref is None or ref.get("version") != task.version:
            warnings.warn(f"no reference scores for {task.id}; its normalised score is left "
                          "out (run `tabletop-gym suite references`)", stacklevel=2)
            row["reference"] = None
            row["normalized"] = None
            row["normalized_per_seed"] = None
        else:
            r, h = float(ref["random"]["score"]), float(ref["heuristic"]["score"])
            row["reference"] = {"random": r, "heuristic": h}
            row["normalized"] = normalize(row["score"], r, h)
            per = [normalize(x, r, h) for x in row["per_seed"]]
            row["normalized_per_seed"] = None if None in per else per
        rows.append(row)
    return {
        "format": RESULTS_FORMAT,
        "format_version": RESULTS_FORMAT_VERSION,
        "suite": suite,
        "agent": agent_label or _label(agent),
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "protocol": {
            "version": PROTOCOL_VERSION,
            "seeds": seed_list,
            "deals_per_seed": deals_of,
            "seed_stride": SEED_STRIDE,
            "seat_rotation": "every multi-player deal is played once from every seat",
            "score": "mean return of the agent (the task's reward for a whole game)",
            "normalized": "(score - random) / (heuristic - random)",
            "aggregate": "interquartile mean over (seed, task), stratified bootstrap 95% CI",
        },
        "references": {"protocol": refs.get("protocol", {}),
                       "package_version": refs.get("metadata", {}).get("package_version")},
        "metadata": metadata(suite=suite, seeds=seed_list, deals_per_seed=deals_of,
                             tasks={t.id: t.version for t in tasks}),
        "tasks": rows,
        "aggregate": aggregate(rows, reps=bootstrap_reps),
        "invalid": {r["id"]: r["invalid"] for r in rows if r.get("invalid")},
        "cpu_seconds": round(time.process_time() - cpu0, 1),
    }


def aggregate(rows: Sequence[Mapping[str, Any]], reps: int = 2000) -> dict[str, Any]:
    """IQM and mean of the normalised (seed, task) scores, with stratified bootstrap intervals."""
    used = [r for r in rows if r.get("normalized_per_seed")]
    if not used:
        return {"tasks": [], "runs": 0, "iqm": None, "iqm_ci": None, "mean": None,
                "mean_ci": None, "bootstrap_reps": reps}
    mat = np.array([r["normalized_per_seed"] for r in used], dtype=float).T  # (seeds, tasks)
    return {
        "tasks": [r["id"] for r in used],
        "runs": int(mat.shape[0]),
        "iqm": iqm(mat),
        "iqm_ci": list(stratified_bootstrap_ci(mat, iqm, reps=reps)),
        "mean": mean(mat),
        "mean_ci": list(stratified_bootstrap_ci(mat, mean, reps=reps)),
        "bootstrap_reps": reps,
    }


def finite_or_none(value: float | None) -> float | None:
    """JSON has no NaN: a non-finite number is written as null."""
    if value is None or not math.isfinite(value):
        return None
    return float(value)


def write_results(results: Mapping[str, Any], path: str | pathlib.Path) -> pathlib.Path:
    """Write a results document as JSON (non-finite numbers as null)."""
    p = pathlib.Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(_clean(results), indent=1) + "\n")
    return p


def _clean(obj: Any) -> Any:
    if isinstance(obj, float):
        return finite_or_none(obj)
    if isinstance(obj, Mapping):
        return {k: _clean(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_clean(v) for v in obj]
    return obj
