"""``make baselines``: every number of ``docs/baselines.md`` from one command.

The page is a list of *jobs*, each one evaluation (:func:`tabletop_gym.evaluation.evaluate`) or
one league (:func:`tabletop_gym.league.run_league`) with fixed seeds and budgets. A job's result is
cached as JSON under ``runs/baselines/<job>.json`` with the provenance block, so an interrupted
run resumes; ``--fresh`` reruns everything. The page and ``docs/baselines.json`` (the numbers, and
for every row the first few games as a *slice*) are rendered from those results.

``tests/test_baselines.py`` replays every row's slice (the same seeds, the same agents, a few
games) and compares it with ``docs/baselines.json``: a change that moves a number fails until the
page is regenerated.

Trained agents: the shipped checkpoints (``"ppo"``) are rows like any other; the training seeds
behind them are summarised from their run folders (``--ppo-runs``, default ``runs/final``) with
the interquartile mean over seeds and a bootstrap interval over seeds (as ``rliable`` computes it).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import pathlib
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from tabletop_gym.agents.base import CHECKPOINTS
from tabletop_gym.provenance import metadata

ISMCTS_BUDGET = 200
"""Simulations per move of the ISMCTS rows and leagues (well under 1 s of CPU per move)."""

ISMCTS_GAMES = 20
"""Games of the ISMCTS rows (10 deals, both seats): what the shared 2-core machine allowed."""

CURVE_BUDGETS = (50, 200, 400)
"""Budgets of the ISMCTS budget/strength curve (the other points play 10 games each)."""

LEAGUE_ISMCTS = f"ismcts:{ISMCTS_BUDGET}"
"""The search agent of the leagues."""

SLICE_GAMES = 2
"""Games per row (per pair, in a league) that the staleness test replays; one where a search
agent plays, whose games cost seconds each."""


@dataclasses.dataclass(frozen=True)
class Job:
    """One evaluation or league behind a table row.

    Attributes:
        id: File name of the cached result and key in ``docs/baselines.json``.
        table: Table the row belongs to.
        kind: ``"eval"`` or ``"league"``.
        game: Game name.
        config: Game config.
        agents: ``(candidate, opponent)`` for an evaluation, the agents of a league.
        games: Games of the evaluation, or per pair of the league.
        seed: First deal's seed.
    """

    id: str
    table: str
    kind: str
    game: str
    config: dict[str, Any]
    agents: tuple[str, ...]
    games: int
    seed: int

    @property
    def slice_games(self) -> int:
        """Games per row (league: per pair) that the staleness test replays."""
        return 1 if any(a.startswith("ismcts") for a in self.agents) else SLICE_GAMES

    def run(self, games: int | None = None, bootstrap: int = 1000) -> dict[str, Any]:
        """Play the job (``games`` overrides its size, as the slice replay does)."""
        n = self.games if games is None else games
        if self.kind == "eval":
            from tabletop_gym.evaluation import evaluate

            res = evaluate(self.game, self.agents[0], self.agents[1], n_games=n, seed=self.seed,
                           **self.config)
            return {"row": res.row(), "per_game": res.per_game}
        from tabletop_gym.league import run_league

        league = run_league(self.game, list(self.agents), games_per_pair=n, seed=self.seed,
                            bootstrap=bootstrap, **self.config)
        return {"league": {k: v for k, v in league.to_dict().items() if k != "metadata"},
                "markdown": league.markdown(), "per_game": league.games}


def _eval(table: str, game: str, players: int, cand: str, opp: str, games: int, seed: int,
          **config: Any) -> Job:
    tag = "-".join(f"{k}{v}" for k, v in sorted(config.items()))
    jid = f"{game}-{players}p{'-' + tag if tag else ''}-{cand}-vs-{opp}".replace(":", "_")
    return Job(jid, table, "eval", game, {"num_players": players, **config}, (cand, opp),
               games, seed)


def jobs() -> list[Job]:
    """Every job of the page, in page order."""
    out = []
    for game, players, extra in (
        ("positano", 1, {}), ("positano", 2, {}), ("positano", 3, {}), ("positano", 4, {}),
        ("positano", 4, {"board_size": 5}), ("positano", 5, {}),
        ("rapa_nui", 2, {}), ("rapa_nui", 3, {}), ("rapa_nui", 4, {}),
    ):
        out.append(_eval("heuristic", game, players, "heuristic", "random", 200, 30_000,
                         **extra))
    for game, players in (("positano", 1), ("rapa_nui", 2)):
        if not (CHECKPOINTS / f"{game}_{players}p.zip").exists():
            continue  # rows of the shipped checkpoints appear once they are shipped
        for opp in ("heuristic", "random"):
            out.append(_eval("ppo", game, players, "ppo", opp, 200, 40_000))
    for game in ("rapa_nui", "positano"):
        out.append(_eval("ismcts", game, 2, f"ismcts:{ISMCTS_BUDGET}", "heuristic",
                         ISMCTS_GAMES, 50_000))
        for budget in CURVE_BUDGETS:
            if budget != ISMCTS_BUDGET:
                out.append(_eval("curve", game, 2, f"ismcts:{budget}", "heuristic", 10, 50_000))
    for game, players in (("rapa_nui", 2), ("positano", 2)):
        agents = ["random", "heuristic", LEAGUE_ISMCTS]
        if (CHECKPOINTS / f"{game}_{players}p.zip").exists():
            agents.append("ppo")
        out.append(Job(f"league-{game}-{players}p", "league", "league", game,
                       {"num_players": players}, tuple(agents), 6, 70_000))
    return out


# --- aggregation over training seeds ---------------------------------------------------------


def iqm(values: Sequence[float]) -> float:
    """Interquartile mean of per-seed values (:func:`tabletop_gym.tasks.stats.iqm`)."""
    from tabletop_gym.tasks.stats import iqm as _iqm

    return _iqm(np.asarray(values, dtype=float))


def bootstrap_ci(values: Sequence[float], reps: int = 2000, seed: int = 0) -> tuple[float, float]:
    """95 % stratified-bootstrap interval of the IQM over seeds (one task: one stratum)."""
    from tabletop_gym.tasks.stats import iqm as _iqm
    from tabletop_gym.tasks.stats import stratified_bootstrap_ci

    col = np.asarray(values, dtype=float).reshape(-1, 1)
    return stratified_bootstrap_ci(col, _iqm, reps=reps, seed=seed)


def seed_runs(folder: str | pathlib.Path, env_id: str) -> list[dict[str, Any]]:
    """Summaries (``summary.json``, with ``seed_eval`` when evaluated) of the runs of ``env_id``."""
    runs = []
    for path in sorted(pathlib.Path(folder).glob(f"{env_id}-*/summary.json")):
        data = json.loads(path.read_text())
        data["run_dir"] = str(path.parent)
        runs.append(data)
    return runs


def evaluate_seed_runs(folder: str | pathlib.Path, games: int = 200) -> None:
    """Evaluate every run's ``model.zip`` against the heuristic and store it in its summary."""
    from sb3_contrib import MaskablePPO

    from tabletop_gym.evaluation import evaluate

    for env_id, game, players in (("RapaNui-v0", "rapa_nui", 2), ("Positano-v0", "positano", 1)):
        for run in seed_runs(folder, env_id):
            if "seed_eval" in run:
                continue
            model = MaskablePPO.load(pathlib.Path(run["run_dir"]) / "model.zip", device="cpu")
            res = evaluate(game, model, "heuristic", n_games=games, seed=20_000,
                           num_players=players)
            res.candidate = f"MaskablePPO seed {run['seed']}"
            summary_path = pathlib.Path(run["run_dir"]) / "summary.json"
            data = json.loads(summary_path.read_text())
            data["seed_eval"] = res.row()
            summary_path.write_text(json.dumps(data, indent=1))
            print(f"{env_id} seed {run['seed']}: {res.win_rate:.3f} "
                  f"[{res.win_ci[0]:.3f}, {res.win_ci[1]:.3f}]", flush=True)


def seed_table(folder: str | pathlib.Path) -> dict[str, Any]:
    """Per env: each seed's evaluation and the IQM over seeds with its bootstrap interval."""
    out: dict[str, Any] = {}
    for env_id in ("RapaNui-v0", "Positano-v0"):
        runs = [r for r in seed_runs(folder, env_id) if "seed_eval" in r]
        if not runs:
            continue
        rows = [{"seed": r["seed"], "timesteps": r["timesteps"],
                 "train_seconds": r["train_seconds"], "hparams": r.get("hparams"),
                 **r["seed_eval"]} for r in runs]
        wins = [r["win_rate"] for r in rows]
        diffs = [r["mean_score_diff"] for r in rows]
        out[env_id] = {
            "seeds": rows,
            "iqm_win_rate": iqm(wins), "iqm_win_rate_ci": bootstrap_ci(wins),
            "iqm_score_diff": iqm(diffs), "iqm_score_diff_ci": bootstrap_ci(diffs),
        }
    return out


# --- running and rendering ---------------------------------------------------------------------


def seconds_per_move(game: str, budgets: Sequence[int], positions: int = 20,
                     seed: int = 0) -> dict[int, float]:
    """CPU seconds an ISMCTS decision takes at each budget, over positions of heuristic games."""
    from tabletop_gym.agents.base import make_agent
    from tabletop_gym.agents.ismcts import ISMCTSAgent
    from tabletop_gym.evaluation import _raw_env_factory

    env = _raw_env_factory(game)(num_players=2)
    rng = np.random.default_rng(seed)
    bot = make_agent("heuristic", env.game, env.observer, rng)
    states: list[Any] = []
    deal = seed
    while len(states) < positions:
        env.reset(seed=deal)
        step = 0
        while not env.game_state.is_terminal():
            if step % 7 == 3 and len(env.game_state.legal_actions()) > 1:
                states.append(env.game_state.clone())
            env.step(bot.act(env.observe(env.agent_selection)))
            step += 1
        deal += 1
    states = states[:positions]
    out = {}
    for budget in budgets:
        agent = ISMCTSAgent(env.game, env.observer, seed, simulations=budget)
        t0 = time.process_time()
        for s in states:
            agent.act_in(s, s.current_player())
        out[budget] = (time.process_time() - t0) / len(states)
    return out


def run_jobs(selected: Sequence[Job], cache: pathlib.Path, fresh: bool = False) -> None:
    """Run every job whose cached result is missing (or all with ``fresh``)."""
    cache.mkdir(parents=True, exist_ok=True)
    for job in selected:
        path = cache / f"{job.id}.json"
        if path.exists() and not fresh:
            continue
        t0 = time.perf_counter()
        result = job.run()
        result["seconds"] = round(time.perf_counter() - t0, 1)
        result["job"] = dataclasses.asdict(job)
        result["metadata"] = metadata(job=job.id, seed=job.seed, games=job.games,
                                      agents=list(job.agents), config=job.config)
        path.write_text(json.dumps(result, indent=1))
        print(f"{job.id}: {result['seconds']} s", flush=True)


def _where(job: Job) -> str:
    extra = ", ".join(f"{k}={v}" for k, v in job.config.items() if k != "num_players")
    return f"{job.config['num_players']}{' (' + extra + ')' if extra else ''}"


def _ci(row: dict[str, Any]) -> str:
    return f"{row['win_rate']:.3f} [{row['win_ci_low']:.3f}, {row['win_ci_high']:.3f}]"


def _diff(row: dict[str, Any]) -> str:
    return (f"{row['mean_score_diff']:+.1f} [{row['diff_ci_low']:+.1f}, "
            f"{row['diff_ci_high']:+.1f}]")


def render(cache: pathlib.Path, ppo_runs: pathlib.Path, docs: pathlib.Path) -> dict[str, Any]:
    """Write ``docs/baselines.md`` and ``docs/baselines.json`` from the cached results."""
    results = {}
    for job in jobs():
        path = cache / f"{job.id}.json"
        if path.exists():
            results[job.id] = (job, json.loads(path.read_text()))
    timing = json.loads((cache / "timing.json").read_text()) if (
        cache / "timing.json").exists() else {}
    seeds = seed_table(ppo_runs)
    meta = metadata(ismcts_budget=ISMCTS_BUDGET, curve_budgets=list(CURVE_BUDGETS),
                    slice_games=SLICE_GAMES)
    doc: dict[str, Any] = {"metadata": meta, "rows": {}, "seeds": seeds, "timing": timing}
    for jid, (job, res) in results.items():
        k = job.slice_games
        entry = {"job": dataclasses.asdict(job), "slice": res["per_game"][:k]
                 if job.kind == "eval" else _league_slice(res["per_game"], k)}
        entry["row" if job.kind == "eval" else "league"] = res.get("row") or res.get("league")
        doc["rows"][jid] = entry
    (docs / "baselines.json").write_text(json.dumps(doc, indent=1) + "\n")
    for jid, (job, res) in results.items():
        if job.kind == "league":
            from tabletop_gym.league import LeagueResult

            data = dict(res["league"])
            data["ci"] = [[tuple(c) for c in row] for row in data["ci"]]
            data["rating_ci"] = [tuple(c) for c in data["rating_ci"]]
            LeagueResult(**data).heatmap(docs / "img" / f"{jid}.png")
    (docs / "baselines.md").write_text(_page(results, seeds, timing, meta))
    return doc


def _league_slice(games: list[dict[str, Any]], k: int) -> list[dict[str, Any]]:
    """The first ``k`` games of every pair."""
    out: list[dict[str, Any]] = []
    count: dict[tuple[str, str], int] = {}
    for g in games:
        key = (g["agent"], g["opponent"])
        count[key] = count.get(key, 0) + 1
        if count[key] <= k:
            out.append(g)
    return out


def _page(results: dict[str, Any], seeds: dict[str, Any], timing: dict[str, Any],
          meta: dict[str, Any]) -> str:
    libs = ", ".join(f"{k} {v}" for k, v in meta["libraries"].items())
    lines = [
        "# Baselines",
        "",
        "<!-- generated by `make baselines` (python -m tabletop_gym.baselines); do not edit -->",
        "",
        f"Package {meta['package']} {meta['package_version']}, commit `{meta['commit']}`, "
        f"Python {meta['python']}; {libs}. Every row: seats rotated over paired deals (solo: "
        "the same deals for both policies, \"duplicate\" format), a shared win counted 1/k, "
        "95 % intervals (win rate: Wilson; score difference: normal). Seeds and budgets are in "
        "each table; `docs/baselines.json` holds every number with the first "
        f"{SLICE_GAMES} games of each row (one where ISMCTS plays), which "
        "`tests/test_baselines.py` replays.",
        "",
    ]

    def table(name: str, head: str) -> list[str]:
        rows = [(j, r) for j, r in results.values() if j.table == name]
        out = [head, "|" + "---|" * (head.count("|") - 1)]
        out += [f"| {j.game} | {_where(j)} | `{j.agents[0]}` | `{j.agents[1]}` | "
                f"{j.games} | {j.seed} | no result yet | | | |"
                for j in jobs() if j.table == name and j.id not in results]
        for job, res in rows:
            row = res["row"]
            out.append(f"| {job.game} | {_where(job)} | `{job.agents[0]}` | `{job.agents[1]}` | "
                       f"{row['games']} | {job.seed} | {_ci(row)} | {row['mean_score']:.1f} | "
                       f"{row['opponent_mean_score']:.1f} | {_diff(row)} |")
        return out

    head = ("| game | players | agent | opponent | games | first deal | win rate [95 % CI] | "
            "agent score | opponent score | diff [95 % CI] |")
    lines += ["## Targets", "", *_verdicts(results), ""]
    missing = [j.id for j in jobs() if j.id not in results]
    if missing:
        lines += ["Jobs of this page without a result yet (`make baselines` runs them): "
                  + ", ".join(f"`{m}`" for m in missing) + ".", ""]
    lines += ["## The heuristic bots against random", ""]
    lines += [*table("heuristic", head), ""]
    lines += ["## Search: information-set MCTS against the heuristic", "",
              f"`ismcts:{ISMCTS_BUDGET}`: {ISMCTS_BUDGET} simulations per move, random rollouts "
              "(`tabletop_gym.agents.ismcts`).", ""]
    lines += [*table("ismcts", head), ""]
    lines += ["### Budget/strength curve", "",
              "Win rate against the heuristic (2 players) by simulations per move (the "
              f"{ISMCTS_BUDGET}-simulation point is the row above; the others play its first "
              "deals), and the CPU seconds one decision takes (`--timing`: mean over "
              f"{timing.get('positions', '?')} positions of heuristic games, measured on the "
              "shared machine).", "",
              "| game | simulations | games | win rate [95 % CI] | diff [95 % CI] | "
              "CPU s / move |", "|---|---|---|---|---|---|"]
    for game in ("rapa_nui", "positano"):
        for budget in CURVE_BUDGETS:
            spec = f"ismcts:{budget}"
            found = [(j, r) for j, r in results.values()
                     if j.game == game and j.agents[0] == spec and j.kind == "eval"]
            secs = timing.get(game, {}).get(str(budget))
            cpu = "" if secs is None else f"{secs:.3f}"
            if found:
                row = found[0][1]["row"]
                lines.append(f"| {game} | {budget} | {row['games']} | {_ci(row)} | "
                             f"{_diff(row)} | {cpu} |")
            else:
                lines.append(f"| {game} | {budget} | no result yet | | | {cpu} |")
    lines += [""]
    lines += ["## Trained: MaskablePPO", "",
              "`ppo` is the shipped checkpoint (`tabletop_gym/agents/checkpoints/`), played "
              "greedily with its mask.", ""]
    if any(j.table == "ppo" for j in jobs()):
        lines += [*table("ppo", head), ""]
    else:
        lines += ["No checkpoint is shipped yet, so `\"ppo\"` raises a `ValueError` that says "
                  "so; the rows appear here once `tabletop_gym/agents/checkpoints/"
                  "<game>_<players>p.zip` exist (`tabletop_gym.training.ship_checkpoint`).", ""]
    if seeds:
        lines += ["### Training seeds", "",
                  "Each seed evaluated against the heuristic (200 games, first deal 20000); "
                  "aggregate: interquartile mean over seeds with a 95 % percentile bootstrap "
                  "over seeds (2000 resamples), as `rliable` computes it.", "",
                  "| env | seed | timesteps | train s | win rate [95 % CI] | diff [95 % CI] |",
                  "|---|---|---|---|---|---|"]
        for env_id, agg in seeds.items():
            for r in agg["seeds"]:
                lines.append(f"| `{env_id}` | {r['seed']} | {r['timesteps']:,} | "
                             f"{r['train_seconds']:.0f} | {_ci(r)} | {_diff(r)} |")
            lo, hi = agg["iqm_win_rate_ci"]
            dlo, dhi = agg["iqm_score_diff_ci"]
            lines.append(f"| `{env_id}` | IQM | | | {agg['iqm_win_rate']:.3f} [{lo:.3f}, "
                         f"{hi:.3f}] | {agg['iqm_score_diff']:+.1f} [{dlo:+.1f}, {dhi:+.1f}] |")
        lines += [""]
    for job, res in results.values():
        if job.kind != "league":
            continue
        lines += [f"## League: {job.game}, {job.config['num_players']} players", "",
                  f"Round robin, {job.games} games per pair (seats rotated, paired deals, first "
                  f"deal {job.seed}); Bradley–Terry ratings on the Elo scale (`random` = 0) "
                  "with 95 % bootstrap intervals (games re-drawn within each pair). Rerun with "
                  f"`tabletop-gym league --game {job.game} --players "
                  f"{job.config['num_players']} --agents {' '.join(job.agents)} --games "
                  f"{job.games} --seed {job.seed}`.", "",
                  res["markdown"], "", f"![{job.id}](img/{job.id}.png)", ""]
    return "\n".join(lines) + "\n"


def _verdicts(results: dict[str, Any]) -> list[str]:
    """One line per target: met or not, with the measurement that says so."""
    out = []
    for job, res in results.values():
        row = res.get("row")
        if row is None or row["opponent"] != "heuristic" or job.table not in ("ismcts", "ppo"):
            continue
        solo = job.config["num_players"] == 1
        if solo:
            ok = row["diff_ci_low"] > 0
            what = (f"mean solo score {row['mean_score']:.1f} against the heuristic's "
                    f"{row['opponent_mean_score']:.1f} on the same deals, difference "
                    f"{_diff(row)}")
        else:
            ok = row["win_ci_low"] > 0.5
            what = f"win rate {_ci(row)} over {row['games']} games"
        verdict = "**met**" if ok else "**not met**"
        goal = ("a higher mean solo score than the heuristic (interval above 0)" if solo else
                "beats the heuristic (win-rate interval above 0.5)")
        out.append(f"- `{job.agents[0]}`, {job.game} {job.config['num_players']}p, {goal}: "
                   f"{verdict}: {what}.")
    measured = {(j.table, j.game) for j, r in results.values() if r.get("row")}
    for table, game, players in (("ismcts", "rapa_nui", 2), ("ismcts", "positano", 2),
                                 ("ppo", "rapa_nui", 2), ("ppo", "positano", 1)):
        if (table, game) not in measured:
            agent = f"ismcts:{ISMCTS_BUDGET}" if table == "ismcts" else "ppo"
            out.append(f"- `{agent}`, {game} {players}p, beats the heuristic: **not met**: "
                       "not measured (no result in this generation of the page).")
    return out


def main(argv: list[str] | None = None) -> int:
    """Run the missing jobs, then render the page."""
    p = argparse.ArgumentParser(prog="python -m tabletop_gym.baselines", description=__doc__)
    p.add_argument("--cache", default="runs/baselines")
    p.add_argument("--ppo-runs", default="runs/final")
    p.add_argument("--docs", default="docs")
    p.add_argument("--fresh", action="store_true", help="rerun every job")
    p.add_argument("--only", nargs="*", default=None, help="job ids to run (default: all)")
    p.add_argument("--render-only", action="store_true")
    p.add_argument("--timing", action="store_true", help="measure ISMCTS seconds per move")
    p.add_argument("--eval-seeds", action="store_true", help="evaluate the training seeds")
    args = p.parse_args(argv)
    cache = pathlib.Path(args.cache)
    if args.eval_seeds:
        evaluate_seed_runs(args.ppo_runs)
    if args.timing:
        cache.mkdir(parents=True, exist_ok=True)
        timing: dict[str, Any] = {
            g: {str(k): v for k, v in seconds_per_move(g, CURVE_BUDGETS).items()}
            for g in ("rapa_nui", "positano")
        }
        timing["positions"] = 20
        timing["metadata"] = metadata()
        (cache / "timing.json").write_text(json.dumps(timing, indent=1))
    if not args.render_only:
        selected = [j for j in jobs() if args.only is None or j.id in args.only]
        run_jobs(selected, cache, fresh=args.fresh)
    (pathlib.Path(args.docs) / "img").mkdir(parents=True, exist_ok=True)
    render(cache, pathlib.Path(args.ppo_runs), pathlib.Path(args.docs))
    print(f"wrote {args.docs}/baselines.md and {args.docs}/baselines.json")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
