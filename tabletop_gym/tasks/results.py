"""The results page: every row of the ``core`` suite from committed results files.

``tabletop-gym suite results`` writes ``docs/results.md`` and its figure from:

* the reference scores (``tabletop_gym/tasks/reference_scores.json``): the random and
  heuristic rows, whose runs are the evaluation seeds;
* ``benchmarks/suite-run/<row>/<task>.json``: fixed agents scored by ``tabletop-gym suite
  run`` (search at a stated budget per move, the shipped ``jax-ppo`` policies), runs =
  evaluation seeds;
* ``benchmarks/suite-train/<recipe>/<task>/seed-<s>/result.json``: the learned rows of
  ``tabletop-gym suite train``, runs = training seeds (each the mean over the evaluation
  seeds);
* ``benchmarks/held-out/references.json``: random and heuristic against the held-out
  population (:mod:`tabletop_gym.tasks.held_out`), which normalise the learned agents' held-out
  scores;
* ``benchmarks/datasets/<method>/*.json``: the offline baselines of ``tabletop-gym dataset
  baseline`` (:mod:`tabletop_gym.tasks.datasets.offline`), the best per task, learner and
  teacher.

Nothing on the page is typed by hand: ``--check`` fails when the page differs from what the
committed files give, and a test replays a slice of the files' games.

The one results pipeline also writes the measured baselines page beside it:
``docs/baselines.md`` from the committed ``docs/baselines.json`` that ``make baselines``
(:mod:`tabletop_gym.tasks.baselines`) measured (:func:`baselines_page`), and ``--check``
checks both pages.
"""

from __future__ import annotations

import dataclasses
import json
import pathlib
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from tabletop_gym.arena.stats import iqm, mean, normalize, stratified_bootstrap_ci
from tabletop_gym.tasks import SUITES, TASKS, held_out, leagues
from tabletop_gym.tasks.runner import load_references
from tabletop_gym.tasks.train import RECIPES

PAGE = pathlib.Path("docs") / "results.md"
FIGURE = pathlib.Path("docs") / "img" / "results.png"
EXPLOIT_FIGURE = "exploit.png"
"""The gain curves' file name, beside the page's figure."""
CALIBRATION = "exploit-calibration"
"""The exploit calibration's folder under the results root."""
BENCHMARKS = pathlib.Path("benchmarks")
SUITE = "core"
LEARNER_SEEDS = 5
"""Training seeds each learned row is meant to have."""
BOOTSTRAP_REPS = 2000


@dataclasses.dataclass(frozen=True)
class FixedRow:
    """A fixed agent's row: scored by ``tabletop-gym suite run``, one results file per task.

    Attributes:
        name: The row's name on the page.
        kind: ``"search"`` or ``"shipped"`` (a shipped policy).
        budget: What the page says of its budget; ``{deals}`` becomes the deals per seed it was
            scored on, ``{steps}`` the learner steps of the shipped policies of its games.
        same_as: Another row's folder, read for the tasks this row's own folder has no file
            of: where the two rows play the very same specs, a task is scored once and its
            file has one home. Followed on where that row names another in turn.
    """

    name: str
    kind: str
    budget: str
    same_as: str | None = None


FIXED_ROWS: dict[str, FixedRow] = {
    "ismcts-12-guided": FixedRow(
        "ismcts:12:guided", "search",
        "12 heuristic rollouts per move; {deals} deals per seed (fewer than the protocol's)"),
    "jax-ppo-shipped": FixedRow(
        "jax-ppo (shipped)", "shipped",
        "the shipped 2-player policies, {steps} learner steps on a GPU "
        "([JAX training](jax-train.md)); {deals} deals per seed"),
    "search-shipped": FixedRow(
        "search, first settings", "search",
        "the batched search ([search](search.md)) as first shipped, continued by the shipped "
        "`jax-ppo` policy "
        "at 2 players with 16 worlds a move (`search:jax-ppo?worlds=16&z=2` on Rapa Nui, whose "
        "policy is stronger than the heuristic; `search:jax-ppo?worlds=16` on Positano) and by "
        "the distilled heuristic at 4 and solo with 32 (`search:heuristic-net?worlds=32`); "
        "{deals} deals per seed (fewer than the protocol's)"),
    # The first settings with the distilled heuristic's second version as the continuation
    # wherever that row continues with the first (solo and 4 players), on its deals.
    "search-v2": FixedRow(
        "search, heuristic-net-v2", "search",
        "the `search, first settings` row's specs with the second version of the distilled "
        "heuristic "
        "(`heuristic-net-v2`, fitted on 4 to 20 times the games, [search](search.md#a-closer-"
        "copy-of-the-heuristic)) as the continuation at 4 players and solo "
        "(`search:heuristic-net-v2?worlds=32`); at 2 players that row's specs, and its "
        "results; {deals} deals per seed (fewer than the protocol's)", same_as="search-shipped"),
    # The v2 row with the distilled heuristic's third version where one is shipped (Positano 2p
    # and 4p); every other task is the v2 row's.
    "search-v3": FixedRow(
        "search, heuristic-net-v3", "search",
        "the `search, heuristic-net-v2` row with the third version of the distilled heuristic "
        "(`heuristic-net-v3`, ReLU units on more games, [search](search.md#a-third-version)) "
        "as the continuation on Positano at 2 players with 28 worlds a move (less time a move "
        "than `ismcts:12:guided` takes) and at 4 with 32 (`search:heuristic-net-v3?worlds=28`, "
        "`?worlds=32`); on the other tasks that row's specs, and its results; {deals} deals "
        "per seed (fewer than the protocol's)", same_as="search-v2"),
    # What search:best plays (each game spec's Benchmark.search): the v3 row's specs but at the
    # Positano 4p table, where the continuations are valued by the seats finished above.
    "search-best": FixedRow(
        "search:best", "search",
        "what `search:best` plays, the strongest settings measured for each game and table size "
        "([search](search.md#the-search-agent)): the `search, heuristic-net-v3` row's specs, "
        "but at the Positano 4p table, where a continuation is valued by the seats it finished "
        "above (`search:heuristic-net-v3?worlds=32&value=above`, [search](search.md#valued-by-"
        "the-seats-finished-above)); on the other tasks that row's results; {deals} deals per "
        "seed (fewer than the protocol's)", same_as="search-v3"),
    # The search's one free threshold, every task at one z and 16 worlds, on the same deals as
    # the shipped row (z = 1 is the row as first shipped).
    **{f"search-z{z}": FixedRow(
        f"search, z = {z}", "search",
        f"the search's specs at 16 worlds with `z={z}` on every task: the policy's own move is "
        "left only for "
        f"a gain of {z} standard error{'s' if z != 1 else ''} "
        "([search](search.md#the-threshold-z)); {deals} deals per seed (fewer than the "
        "protocol's)") for z in (1, 2, 3)},
}
"""Fixed-agent rows by their folder under ``benchmarks/suite-run`` (each file names the agent
spec it scored)."""
COMMAND = "tabletop-gym suite results"


@dataclasses.dataclass
class Cell:
    """One row's result on one task."""

    runs: list[float]  # normalised score of each run
    score: float  # mean return (mean over runs)
    normalized: float | None
    interval: tuple[float, float] | None  # 95 %, normalised
    interval_kind: str  # what the interval is over
    deals_per_seed: int | None = None
    seeds: list[int] = dataclasses.field(default_factory=list)  # learners: the training seeds


@dataclasses.dataclass
class Row:
    """One agent's line of the page."""

    name: str
    kind: str  # "reference", "search", "shipped" or "learner"
    runs_are: str  # "evaluation seeds" or "training seeds"
    budget: str
    cells: dict[str, Cell]
    cpu_seconds: float | None
    complete_runs: list[int]  # learners: seeds finished on every task
    held_out: dict[str, dict[str, dict[str, float | None]]] = dataclasses.field(
        default_factory=dict)  # task -> opponent -> {normalized, win_rate, seeds}
    aggregate: dict[str, Any] = dataclasses.field(default_factory=dict)
    trained_on: dict[str, int] = dataclasses.field(default_factory=dict)  # device -> rows


def _ci(values: Sequence[float]) -> tuple[float, float] | None:
    if len(values) < 2:
        return None
    return stratified_bootstrap_ci(np.array(values, dtype=float)[:, None], mean,
                                   reps=BOOTSTRAP_REPS)


def _norm_interval(ci: Sequence[float], ref: Mapping[str, Any]) -> tuple[float, float] | None:
    r, h = float(ref["random"]["score"]), float(ref["heuristic"]["score"])
    lo, hi = normalize(float(ci[0]), r, h), normalize(float(ci[1]), r, h)
    if lo is None or hi is None:
        return None
    return (min(lo, hi), max(lo, hi))


def _reference_rows(refs: Mapping[str, Any], task_ids: Sequence[str]) -> list[Row]:
    rows = []
    for agent in ("random", "heuristic"):
        cells = {}
        for t in task_ids:
            ref = refs["tasks"].get(t)
            if ref is None:
                continue
            r, h = float(ref["random"]["score"]), float(ref["heuristic"]["score"])
            runs = [normalize(float(x), r, h) for x in ref[agent]["per_seed"]]
            cells[t] = Cell([float(x) for x in runs if x is not None],
                            float(ref[agent]["score"]),
                            normalize(float(ref[agent]["score"]), r, h),
                            _norm_interval(ref[agent]["ci"], ref), "games",
                            int(ref["deals_per_seed"]))
        rows.append(Row(agent, "reference", "evaluation seeds",
                        f"{ref_games(refs, task_ids)} seat-rotated games per task", cells, None,
                        []))
    return rows


def ref_games(refs: Mapping[str, Any], task_ids: Sequence[str]) -> str:
    """The fewest and most reference games of the tasks, as the page states them."""
    games = [int(refs["tasks"][t]["random"]["games"]) for t in task_ids if t in refs["tasks"]]
    return f"{min(games):,}–{max(games):,}" if games else "no"


def _held_out_cells(docs: Sequence[Mapping[str, Any]], task_id: str,
                    held_refs: Mapping[str, Any],
                    per_seed: bool) -> dict[str, dict[str, float | None]]:
    """Per held-out opponent: the normalised score and win rate, averaged over ``docs``.

    ``docs`` are the held-out documents of one row on one task (a learned row: one per training
    seed; a fixed agent: its one). ``seeds`` counts them where ``per_seed``, else is ``None``.
    """
    by_opp: dict[str, list[tuple[float | None, float]]] = {}
    for doc in docs:
        norm = held_out.normalized(doc, task_id, held_refs) or {}
        for opp, cell in doc["by_opponent"].items():
            by_opp.setdefault(opp, []).append((norm.get(opp), float(cell["win_rate"])))
    out: dict[str, dict[str, float | None]] = {}
    for opp, pairs in by_opp.items():
        norms = [p[0] for p in pairs if p[0] is not None]
        out[opp] = {"normalized": float(np.mean(norms)) if norms else None,
                    "win_rate": float(np.mean([p[1] for p in pairs])),
                    "seeds": float(len(pairs)) if per_seed else None}
    return out


def _fixed_rows(root: pathlib.Path, refs: Mapping[str, Any], held_refs: Mapping[str, Any],
                task_ids: Sequence[str]) -> list[Row]:
    rows = []
    for folder, fixed in FIXED_ROWS.items():
        cells: dict[str, Cell] = {}
        held: dict[str, dict[str, dict[str, float | None]]] = {}
        cpu = 0.0
        deals = set()
        games = set()
        for t in task_ids:
            path = root / "suite-run" / folder / f"{t}.json"
            link = fixed.same_as
            while not path.is_file() and link is not None:
                path = root / "suite-run" / link / f"{t}.json"
                link = FIXED_ROWS[link].same_as
            if not path.is_file():
                continue
            doc = json.loads(path.read_text())
            task_row = doc["tasks"][0]
            cpu += float(doc.get("cpu_seconds") or 0.0) + float(
                doc.get("held_out_cpu_seconds") or 0.0)
            if "held_out" in task_row:  # `suite run --held-out`: one agent, no seeds to average
                held[t] = _held_out_cells([task_row["held_out"]], t, held_refs, per_seed=False)
            deals.add(int(task_row["deals_per_seed"]))
            games.add(TASKS[t].game)
            cells[t] = Cell([float(x) for x in task_row["normalized_per_seed"] or []],
                            float(task_row["score"]), task_row["normalized"],
                            _norm_interval(task_row["score_ci"], refs["tasks"][t]), "games",
                            int(task_row["deals_per_seed"]))
        if cells:
            per_deal = ", ".join(str(d) for d in sorted(deals))
            budget = fixed.budget.format(deals=per_deal, steps=_shipped_steps(sorted(games))
                                         if "{steps}" in fixed.budget else "")
            rows.append(Row(fixed.name, fixed.kind, "evaluation seeds", budget, cells, cpu, [],
                            held))
    return rows


def _shipped_steps(games: Sequence[str]) -> str:
    """The learner steps of the shipped 2-player ``jax-ppo`` policies of ``games``, as a range."""
    from tabletop_gym.agents.base import jax_checkpoint_path
    from tabletop_gym.agents.jax_policy import load_policy

    steps = sorted(int(load_policy(jax_checkpoint_path(g, 2))[1]["learner_steps"])
                   for g in games)
    low, high = (f"{x / 1e6:.0f}" for x in (steps[0], steps[-1]))
    return f"{low} M" if low == high else f"{low}–{high} M"


def _learner_rows(root: pathlib.Path, held_refs: Mapping[str, Any],
                  task_ids: Sequence[str]) -> list[Row]:
    rows = []
    for name, recipe in RECIPES.items():
        docs: dict[str, dict[int, dict[str, Any]]] = {t: {} for t in task_ids}
        for t in task_ids:
            for path in sorted((root / "suite-train" / name / t).glob("seed-*/result.json")):
                doc = json.loads(path.read_text())
                if doc.get("overrides") or doc.get("recipe_version") != recipe.version:
                    continue  # not the recipe's own row
                docs[t][int(doc["seed"])] = doc
        if not any(docs.values()):
            continue
        cells = {}
        cpu = 0.0
        held: dict[str, dict[str, dict[str, float | None]]] = {}
        devices: dict[str, int] = {}
        for t, by_seed in docs.items():
            if not by_seed:
                continue
            seeds = sorted(by_seed)
            runs = [float(by_seed[s]["row"]["normalized"]) for s in seeds]
            scores = [float(by_seed[s]["row"]["score"]) for s in seeds]
            if len(runs) >= 2:
                interval, kind = _ci(runs), "training seeds"
            else:  # one trained agent: its own protocol interval over the games
                only = by_seed[seeds[0]]["row"]
                interval = _norm_interval(only["score_ci"], {
                    "random": {"score": only["reference"]["random"]},
                    "heuristic": {"score": only["reference"]["heuristic"]}})
                kind = "games of 1 seed"
            cells[t] = Cell(runs, float(np.mean(scores)), float(np.mean(runs)), interval, kind,
                            int(by_seed[seeds[0]]["row"]["deals_per_seed"]), seeds)
            cpu += sum(float(d.get("cpu_seconds_in_process") or 0.0)
                       + float(d.get("held_out_cpu_seconds") or 0.0) for d in by_seed.values())
            for d in by_seed.values():
                # A row trained on an accelerator says so (the recipe records its backend).
                if d.get("training", {}).get("jax_backend") == "gpu":
                    device = str(d["training"].get("device") or "GPU")
                    devices[device] = devices.get(device, 0) + 1
            cells_held = _held_out_cells([d["held_out"] for d in by_seed.values()
                                          if "held_out" in d], t, held_refs, per_seed=True)
            if cells_held:
                held[t] = cells_held
        complete = sorted(set.intersection(*(set(v) for v in docs.values())))
        budget = f"{recipe.timesteps:,} {recipe.unit} per (task, seed)"
        rows.append(Row(name, "learner", "training seeds", budget, cells, cpu, complete, held,
                        trained_on=devices))
    return rows


def _aggregate(row: Row, task_ids: Sequence[str]) -> dict[str, Any]:
    """IQM and mean over (run, task) with stratified bootstrap intervals, where complete."""
    if any(t not in row.cells for t in task_ids):
        return {"missing": [t for t in task_ids if t not in row.cells]}
    if row.kind == "learner":
        if not row.complete_runs:
            return {"missing": []}
        cols = []
        for t in task_ids:
            by_seed = dict(zip(row.cells[t].seeds, row.cells[t].runs, strict=True))
            cols.append([by_seed[s] for s in row.complete_runs])
        mat = np.array(cols, dtype=float).T
    else:
        mat = np.array([row.cells[t].runs for t in task_ids], dtype=float).T
    out: dict[str, Any] = {"runs": int(mat.shape[0]), "iqm": iqm(mat), "mean": mean(mat)}
    if mat.shape[0] >= 2:
        out["iqm_ci"] = stratified_bootstrap_ci(mat, iqm, reps=BOOTSTRAP_REPS)
        out["mean_ci"] = stratified_bootstrap_ci(mat, mean, reps=BOOTSTRAP_REPS)
    return out


def collect(root: str | pathlib.Path = BENCHMARKS,
            references: Mapping[str, Any] | None = None) -> tuple[list[Row], dict[str, Any]]:
    """Every row of the page, from the committed files; and the held-out references."""
    base = pathlib.Path(root)
    refs = load_references() if references is None else references
    task_ids = list(SUITES[SUITE].task_ids)
    held_refs = held_out.load_references(base / "held-out" / "references.json")
    rows = (_reference_rows(refs, task_ids) + _fixed_rows(base, refs, held_refs, task_ids)
            + _learner_rows(base, held_refs, task_ids))
    for row in rows:
        row.aggregate = _aggregate(row, task_ids)
    return rows, held_refs


def _f(x: float | None, digits: int = 2) -> str:
    return "–" if x is None else f"{x:.{digits}f}"


def _iv(iv: Sequence[float] | None, digits: int = 2) -> str:
    return "" if iv is None else f" [{_f(iv[0], digits)}, {_f(iv[1], digits)}]"


def _aggregate_table(rows: Sequence[Row]) -> list[str]:
    lines = ["| row | runs | IQM [95 % CI] | mean [95 % CI] | budget |", "|---|---|---|---|---|"]
    for row in rows:
        a = row.aggregate
        if "iqm" not in a:
            missing = a.get("missing") or []
            what = (f"not run on {len(missing)} of the tasks" if missing
                    else "no seed finished on every task yet")
            lines.append(f"| `{row.name}` | – | {what} | | {row.budget} |")
            continue
        runs = f"{a['runs']} {row.runs_are if a['runs'] != 1 else row.runs_are[:-1]}"
        if row.kind == "learner" and a["runs"] < LEARNER_SEEDS:
            runs += f" (of {LEARNER_SEEDS})"
        lines.append(f"| `{row.name}` | {runs} | **{_f(a['iqm'])}**{_iv(a.get('iqm_ci'))} | "
                     f"{_f(a['mean'])}{_iv(a.get('mean_ci'))} | {row.budget} |")
    return lines


def _task_table(rows: Sequence[Row], task_ids: Sequence[str]) -> list[str]:
    head = ["task", *(f"`{r.name}`" for r in rows)]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for t in task_ids:
        cells = []
        for row in rows:
            c = row.cells.get(t)
            if c is None:
                cells.append("not run")
                continue
            n = (f" ({len(c.runs)} seed{'s' if len(c.runs) != 1 else ''})"
                 if row.kind == "learner" else "")
            cells.append(f"{_f(c.normalized)}{_iv(c.interval)}{n}")
        lines.append(f"| `{t}` | " + " | ".join(cells) + " |")
    return lines


def _power_table(refs: Mapping[str, Any], task_ids: Sequence[str]) -> list[str]:
    lines = ["| task | random | heuristic | deals per seed needed for ±0.05 | deals per seed "
             "played | games per agent | heuristic 95 % half-width (normalised) |",
             "|---|---|---|---|---|---|---|"]
    for t in task_ids:
        ref = refs["tasks"][t]
        hw = ref["power"]["heuristic_half_width"]
        lines.append(f"| `{t}` | {ref['random']['score']:+.3f}{_iv(ref['random']['ci'], 3)} | "
                     f"{ref['heuristic']['score']:+.3f}{_iv(ref['heuristic']['ci'], 3)} | "
                     f"{ref['power']['deals_per_seed_needed']} | {ref['deals_per_seed']} | "
                     f"{ref['heuristic']['games']:,} | ±{hw:.3f} |")
    return lines


def _held_out_table(rows: Sequence[Row], held_refs: Mapping[str, Any],
                    task_ids: Sequence[str]) -> list[str]:
    learners = [r for r in rows if r.held_out]
    head = ["task", "opponent", "`random` wins", "`heuristic` wins",
            *(f"`{r.name}` normalised (wins)" for r in learners)]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    tasks = held_refs.get("tasks", {})
    for t in task_ids:
        if not held_out.applies(TASKS[t]):
            continue
        for opp in held_out.POPULATION[TASKS[t].game]:
            ref = tasks.get(t, {})
            rw = ref.get("random", {}).get("by_opponent", {}).get(opp, {}).get("win_rate")
            hw = ref.get("heuristic", {}).get("by_opponent", {}).get(opp, {}).get("win_rate")
            cells = [f"`{t}`", f"`{opp}`", _f(rw), _f(hw)]
            for r in learners:
                got = r.held_out.get(t, {}).get(opp)
                n = None if got is None or got["seeds"] is None else int(got["seeds"])
                seeds = "" if n is None else f", {n} seed{'s' if n != 1 else ''}"
                cells.append("not scored" if got is None else
                             f"{_f(got['normalized'])} ({_f(got['win_rate'])}{seeds})")
            lines.append("| " + " | ".join(cells) + " |")
    return lines


def _league_sections(played: Mapping[str, Mapping[str, Any]]) -> list[str]:
    lines: list[str] = []
    for name, spec in leagues.LEAGUES.items():
        lines += [f"### {name}", ""]
        doc = played.get(name)
        if doc is None:
            lines += [f"Not played yet: `tabletop-gym suite leagues --league {name}`.", ""]
            continue
        res = doc["result"]
        half = [(hi - lo) / 2 for lo, hi in res["rating_ci"]][1:]  # the anchor's is 0
        worst = max(half)
        verdict = "met" if worst <= leagues.TARGET_HALF_WIDTH_ELO else "not met"
        if doc["kind"] == "round robin":
            how = (f"Round robin, {res['games_per_pair']} seat-rotated games per pair on the "
                   f"same deals (first deal {res['seed']:,}).")
            kept = (doc.get("reused") or {}).get("pairs") or []
            if kept:
                commit = str(doc["reused"].get("from_commit") or "an earlier commit")[:7]
                how += (f" The games of {len(kept)} of its {len(res['pairs'])} pairs are kept "
                        f"from the league as played at `{commit}`, each pair checked by "
                        "replaying its first deal from both seats (the same games); the others "
                        "were played for this file.")
        else:
            how = (f"Every table of {spec.num_players} distinct agents, {res['deals_per_table']} "
                   f"deals per table, each in every seat rotation ({len(res['games']):,} games); "
                   "rated from the pairwise results inside each game.")
        lines += [
            f"{how} Bradley–Terry ratings on the Elo scale, `{res['agents'][0]}` = 0, 95 % "
            "bootstrap intervals. Widest half-width of the other ratings: "
            f"**±{worst:.0f} Elo** (target ±{leagues.TARGET_HALF_WIDTH_ELO:.0f}: {verdict}). "
            f"`{leagues.LEARNED}` is {doc.get('learned', spec.learned_from)}.",
            "",
            doc["markdown"],
            "",
        ]
    return lines


def _compute_table(rows: Sequence[Row],
                   played: Mapping[str, Mapping[str, Any]]) -> tuple[list[str], float]:
    lines = ["| row | what it costs | CPU hours (recorded) |", "|---|---|---|"]
    total = 0.0
    for row in rows:
        if row.cpu_seconds is None:
            continue
        total += row.cpu_seconds
        what = {"learner": "training and scoring (protocol and held-out), summed over its rows",
                "shipped": "scoring on the suite (its training ran on a GPU: not counted here)",
                }.get(row.kind, "scoring on the suite")
        if row.trained_on:
            rows_of = sum(len(c.seeds) for c in row.cells.values())
            on = ", ".join(f"{n} on a GPU ({d})" for d, n in sorted(row.trained_on.items()))
            what += (f"; of its {rows_of} rows {on}, where the hours are the process CPU time of "
                     "that machine (its trainer's host side and its scoring), not GPU time")
        lines.append(f"| `{row.name}` | {what} | {row.cpu_seconds / 3600:.2f} |")
    for name, doc in played.items():
        cpu = doc.get("cpu_seconds")
        if cpu is not None:
            total += float(cpu)
            lines.append(f"| league `{name}` | its games and bootstrap | {cpu / 3600:.2f} |")
        own = doc.get("learned_cpu_seconds")
        if own is not None:
            total += float(own)
            lines.append(f"| league `{name}`: its learned policy | training it and scoring it on "
                         f"its task | {own / 3600:.2f} |")
    lines.append(f"| **total recorded** | | **{total / 3600:.2f}** |")
    return lines, total


def page(rows: Sequence[Row], refs: Mapping[str, Any], held_refs: Mapping[str, Any],
         figure: str | None = "img/results.png",
         played: Mapping[str, Mapping[str, Any]] | None = None,
         ladders: Sequence[Mapping[str, Any]] = (),
         calibrated: Sequence[Mapping[str, Any]] = (),
         offline: Sequence[dict[str, Any]] = (),
         compared: Sequence[Mapping[str, Any]] = ()) -> str:
    """The Markdown of ``docs/results.md``.

    ``ladders``: :func:`.exploit.load`'s; ``calibrated``: :func:`.exploit.load_calibration`'s;
    ``offline``: :func:`.datasets.offline.load_results`'s; ``compared``:
    :func:`.exploit.compare_settings`'.
    """
    from tabletop_gym.tasks import exploit
    from tabletop_gym.tasks.datasets import offline as offline_results

    task_ids = list(SUITES[SUITE].task_ids)
    played = {} if played is None else played
    compute, _total = _compute_table(rows, played)
    recipes = "\n".join(f"- `{r.name}` (version {r.version}): {r.description}; "
                        f"{r.timesteps:,} {r.unit} per (task, seed)."
                        for r in RECIPES.values())
    variants = "; ".join(f"{g}: " + ", ".join(f"`{p}`" for p in pop)
                         for g, pop in held_out.POPULATION.items())
    parts = [
        "# Results on the core suite",
        "",
        f"<!-- Generated by `{COMMAND}` from the committed results files; do not edit. -->",
        "",
        f"Every number here comes from a committed results file and is rewritten by `{COMMAND}` "
        "(`--check` fails when the page is stale). Scores are normalised per task: 0 is the "
        "random agent, 1 the heuristic bot, both measured under the same protocol "
        "([tasks](tasks.md)). Intervals are 95 %.",
        "",
        "## Aggregate",
        "",
        "The interquartile mean (IQM) over (run, task) of the normalised scores, with "
        f"stratified bootstrap intervals ({BOOTSTRAP_REPS:,} replicates, computed as rliable "
        "computes them: `tests/test_rliable_agreement.py`). A learned row's runs are its "
        "training seeds, each scored on every evaluation seed; a fixed agent's runs are the "
        "evaluation seeds. Only the training seeds finished on every task enter a learned "
        "row's aggregate.",
        "",
        *_aggregate_table(rows),
        "",
    ]
    if figure:
        parts += [f"![aggregate IQM and per-task normalised scores]({figure})", ""]
    parts += [
        "## Per task",
        "",
        "Normalised score [95 % interval]. The references' and fixed agents' intervals are over "
        "the games of the task; a learned row's are over its training seeds (a bootstrap of "
        "the seeds' scores) where it has two or more, else over the games of its one seed.",
        "",
        *_task_table(rows, task_ids),
        "",
        "## Statistical power",
        "",
        "Each task is scored on the deals per seed that make the heuristic bot's task-score "
        "interval at most ±0.05 normalised (protocol 1, the power rule of "
        "[tasks](tasks.md)). The references below are mean returns [95 % interval].",
        "",
        *_power_table(refs, task_ids),
        "",
        "## Against a held-out population",
        "",
        "Bots that no recipe trains against (the `sb3-ppo` recipe plays the heuristic bot, "
        "`jax-ppo` the distilled heuristic or itself, the shipped `jax-ppo` policies the "
        f"distilled heuristic): {variants}. Each fills every other seat in turn, on "
        f"{held_out.GAMES_PER_OPPONENT} seat-rotated games of deals no suite protocol plays "
        "(`tabletop_gym.tasks.held_out`). A learned agent's score against an opponent is "
        "normalised by the random agent's and the heuristic bot's against the same opponent "
        "on the same deals (`tabletop-gym suite held-out`), and averaged over its training "
        "seeds (a fixed agent's, `suite run --held-out`, is its one policy's). Wins: the mean "
        "win rate (a tie shared).",
        "",
        *_held_out_table(rows, held_refs, task_ids),
        "",
        "## Leagues",
        "",
        "Two-player leagues: round robins. Four-player leagues: tables reduced to pairwise "
        "results. The agents: the heuristic bot, the search row (`ismcts:12:guided`), one "
        "held-out variant, the learned `jax-ppo`, the shipped batched search of the table size "
        "(`search:...`, [search](search.md)) in the leagues that seat it, and, at 4-player tables "
        "only, random (`tabletop_gym.tasks.leagues` says why of each choice). `tabletop-gym suite "
        "leagues` plays them.",
        "",
        *_league_sections(played),
        *exploit.section(ladders, f"img/{EXPLOIT_FIGURE}" if figure and ladders else None,
                         calibrated, floor=exploit.PAGE_FLOOR, compared=compared),
        *offline_results.section(list(offline), task_ids),
        "## Recipes and compute",
        "",
        recipes,
        "",
        "Rerun a learned row with `tabletop-gym suite train --suite core --algo NAME --seeds 5 "
        "--out benchmarks/suite-train` (a finished (task, seed) is never trained again); the "
        "search row with `tabletop-gym suite run --suite core --agent ismcts:12:guided --deals "
        "10 --task TASK --out benchmarks/suite-run/ismcts-12-guided/TASK.json`; the shipped "
        "`jax-ppo` policies with `tabletop-gym suite run --suite core --agent jax-ppo --task "
        "TASK --held-out --out benchmarks/suite-run/jax-ppo-shipped/TASK.json` on the "
        "2-player tasks; the batched search with `tabletop-gym suite run --suite core --agent "
        "'search:jax-ppo?worlds=16&z=2' --deals 10 --task TASK --label 'search (shipped)' --out "
        "benchmarks/suite-run/search-shipped/TASK.json` on Rapa Nui 2p, "
        "`'search:jax-ppo?worlds=16'` on Positano 2p and `'search:heuristic-net?worlds=32'` on "
        "the others (with `--held-out`, its held-out "
        "scores too); its rows at one `z` by the same commands with `&z=Z` ending the spec on "
        "every task, `--label 'search, z = Z'` and `--out "
        "benchmarks/suite-run/search-zZ/TASK.json`; the `search, heuristic-net-v2` row by the "
        "shipped row's commands with `heuristic-net-v2` for `heuristic-net`, `--label 'search, "
        "heuristic-net-v2'` and `--out benchmarks/suite-run/search-v2/TASK.json` on the solo and "
        "4-player tasks (at 2 players its specs are the shipped row's, whose files it reads); "
        "the `search, heuristic-net-v3` row by `tabletop-gym suite run --suite core --agent "
        "'search:heuristic-net-v3?worlds=32' --deals 10 --task TASK --held-out --label 'search, "
        "heuristic-net-v3' --out benchmarks/suite-run/search-v3/TASK.json` on Positano 4p, and "
        "with `worlds=28` on Positano 2p (its other tasks are the v2 row's, whose files, or "
        "those that row reads, it reads); the `search:best` row by the same command with "
        "`'search:heuristic-net-v3?worlds=32&value=above'`, `--label 'search:best'` and `--out "
        "benchmarks/suite-run/search-best/TASK.json` on Positano 4p (the rest it reads from the "
        "v3 row).",
        "",
        *compute,
        "",
        "The reference scores' compute is not recorded in their file.",
        "",
    ]
    return "\n".join(parts)


def plot(rows: Sequence[Row], path: str | pathlib.Path = FIGURE) -> pathlib.Path:
    """The aggregate IQM intervals (left) and each task's normalised score (right), per row."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    task_ids = list(SUITES[SUITE].task_ids)
    from tabletop_gym.tasks.report import save_figure

    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 0.5 * len(rows) + 2.5),
                                      gridspec_kw={"width_ratios": [1, 2]})
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for k, row in enumerate(rows):
        a = row.aggregate
        if "iqm" not in a:
            continue
        lo, hi = a.get("iqm_ci", (a["iqm"], a["iqm"]))
        # rliable's interval plot: the interval as a bar, the point estimate as a tick
        left.barh(k, hi - lo, left=lo, height=0.6, color=colours[k % len(colours)], alpha=0.75)
        left.vlines(a["iqm"], k - 0.3, k + 0.3, color="black", lw=1.5)
    left.set_yticks(range(len(rows)), [r.name for r in rows])
    left.invert_yaxis()
    left.set_xlabel("IQM of normalised scores")
    for x, style in ((0, ":"), (1, "--")):
        left.axvline(x, color="grey", lw=0.8, ls=style)
        right.axvline(x, color="grey", lw=0.8, ls=style)
    width = 0.8 / max(len(rows), 1)
    for k, row in enumerate(rows):
        labelled = False  # the legend names a row at its first drawn task, whichever that is
        for i, t in enumerate(task_ids):
            c = row.cells.get(t)
            if c is None or c.normalized is None:
                continue
            y = i + k * width
            err = None
            if c.interval is not None:
                err = [[c.normalized - c.interval[0]], [c.interval[1] - c.normalized]]
            right.errorbar([c.normalized], [y], xerr=err, fmt="o", ms=4, capsize=2,
                           color=colours[k % len(colours)],
                           label=None if labelled else row.name)
            labelled = True
    right.set_yticks([i + 0.4 - width / 2 for i in range(len(task_ids))], task_ids, fontsize=8)
    right.invert_yaxis()
    right.set_xlabel("normalised score per task (0 random, 1 heuristic)")
    right.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    return save_figure(fig, path)


def write(root: str | pathlib.Path = BENCHMARKS, out: str | pathlib.Path = PAGE,
          figure: str | pathlib.Path | None = FIGURE) -> str:
    """Write the page and, unless ``figure`` is None, redraw its figure; the page's text."""
    from tabletop_gym.tasks import exploit

    rows, held_refs = collect(root)
    ladders = exploit.load(pathlib.Path(root) / "exploit")
    text = page(rows, load_references(), held_refs,
                played=leagues.load(pathlib.Path(root) / "leagues"), ladders=ladders,
                calibrated=exploit.load_calibration(pathlib.Path(root) / CALIBRATION),
                offline=_offline(root), compared=_compared(root))
    pathlib.Path(out).write_text(text)
    if figure is not None:
        plot(rows, figure)
        if ladders:
            exploit.plot(ladders, pathlib.Path(figure).parent / EXPLOIT_FIGURE,
                         floor=exploit.PAGE_FLOOR)
    return text


def baselines_page(out: str | pathlib.Path = PAGE) -> pathlib.Path | None:
    """The baselines page beside the results page ``out``, where its numbers file is too.

    ``make baselines`` measures and writes ``baselines.json`` (and the page); the pipeline
    rewrites ``baselines.md`` from that file. A folder without ``baselines.json`` (a results
    page written elsewhere) has no baselines page to write: None.
    """
    docs = pathlib.Path(out).parent
    return docs / "baselines.md" if (docs / "baselines.json").is_file() else None


def write_baselines(out: str | pathlib.Path = PAGE) -> pathlib.Path | None:
    """Rewrite the baselines page beside ``out`` from its committed numbers; its path, or None."""
    from tabletop_gym.tasks import baselines

    path = baselines_page(out)
    if path is not None:
        path.write_text(baselines.committed_page(path.parent))
    return path


def check_baselines(out: str | pathlib.Path = PAGE) -> bool:
    """Whether the baselines page beside ``out`` is what its committed numbers give."""
    from tabletop_gym.tasks import baselines

    path = baselines_page(out)
    return path is None or (path.is_file()
                            and path.read_text() == baselines.committed_page(path.parent))


def check(root: str | pathlib.Path = BENCHMARKS, out: str | pathlib.Path = PAGE) -> bool:
    """Whether the committed page is what the committed files give."""
    from tabletop_gym.tasks import exploit

    rows, held_refs = collect(root)
    text = page(rows, load_references(), held_refs,
                played=leagues.load(pathlib.Path(root) / "leagues"),
                ladders=exploit.load(pathlib.Path(root) / "exploit"),
                calibrated=exploit.load_calibration(pathlib.Path(root) / CALIBRATION),
                offline=_offline(root), compared=_compared(root))
    return pathlib.Path(out).is_file() and pathlib.Path(out).read_text() == text


def _compared(root: str | pathlib.Path) -> list[dict[str, Any]]:
    """The ladders under ``root/exploit-settings`` against the page's, from its smallest budget."""
    from tabletop_gym.tasks import exploit

    return exploit.compare_settings(pathlib.Path(root) / exploit.SETTINGS_ROOT.name,
                                    pathlib.Path(root) / exploit.ROOT.name,
                                    floor=exploit.PAGE_FLOOR)


def _offline(root: str | pathlib.Path) -> list[dict[str, Any]]:
    """The committed offline baselines under ``root/datasets`` (none where it has no folder)."""
    from tabletop_gym.tasks.datasets.offline import load_results

    return load_results(pathlib.Path(root) / "datasets")
