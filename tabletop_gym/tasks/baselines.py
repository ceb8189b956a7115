"""``make baselines``: every number of ``docs/baselines.md`` from one command.

The page is a list of *jobs*, each one evaluation
(:func:`tabletop_gym.arena.evaluation.evaluate`) or one league
(:func:`tabletop_gym.arena.league.run_league`) with fixed seeds and budgets. A job's result is
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
import itertools
import json
import os
import pathlib
import sys
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from tabletop_gym.agents.base import CHECKPOINTS
from tabletop_gym.agents.ismcts import GUIDED_WIDTH, SWITCH_Z
from tabletop_gym.provenance import commit_text, metadata
from tabletop_gym.registry import game_spec, game_specs

_ROWS = {spec.name: spec.benchmark.baselines for spec in game_specs()
         if spec.benchmark.baselines is not None}
"""Each game's rows of the page (its benchmark block's ``baselines``), in registration order."""

SEARCH = {game: rows.search for game, rows in _ROWS.items()}
"""The search agent of each game's ISMCTS row: the guided variant (paired root search with
heuristic rollouts, :mod:`tabletop_gym.agents.ismcts`) at a budget under 1 s of CPU per move
(``--timing``). A random rollout of Rapa Nui's ~120 moves says little about a position, and a
heuristic rollout costs too much there to grow a tree in a second."""

ISMCTS_GAMES = {game: rows.search_games for game, rows in _ROWS.items()}
"""Games of the ISMCTS rows (30 or 50 deals, both seats)."""

CURVE = {game: rows.curve for game, rows in _ROWS.items()}
"""The budget/strength curve's other points and their games (the first games of the ISMCTS row:
the same deals and seats). In Positano also UCT with random rollouts (``ismcts:N``), the search
of the earlier pages."""

LEAGUE_AGENT = {game: rows.league_agent for game, rows in _ROWS.items()}
"""The search agent of the leagues: the curve's cheapest point, whose games against the heuristic
the league reuses (a league pair plays the same deals as the row)."""

LEAGUE_GAMES = 4

SEARCH_SEED = 50_000

TIMING_POSITIONS = 20
"""Positions of the CPU-seconds-per-move timing (``--timing``)."""

PPO_GAMES = 1000
"""Games of the shipped checkpoints' rows. A residual policy differs from the heuristic in a few
decisions of a game, so the games it wins or loses against it differ by little and a gain of
half a point (solo Positano) or a few points of win rate (Rapa Nui) needs about 1,000 games to
show; 100 games leave a win-rate interval of about ±0.1. A game costs about 25 CPU ms (solo
Positano, both policies on the deal) or 40 CPU ms (Rapa Nui, 2 players)."""

SEED_GAMES = PPO_GAMES
"""Games of each training seed's evaluation against the heuristic."""

HINT_GAMES = 20
"""Games over which :func:`leaves_hint` counts a hinted model's own moves."""

SLICE_GAMES = 2
"""Games per row (per pair, in a league) that the staleness test replays."""

SLICE_DECISIONS = 4
"""Where ISMCTS plays, the staleness test replays the first game's moves up to the search's
fourth real decision instead (its games cost tens of CPU seconds each)."""


def curve_specs(game: str) -> list[str]:
    """Every search agent of ``game``'s budget/strength curve: the ISMCTS row's and the others."""
    return [SEARCH[game], *(spec for spec, _ in CURVE[game])]


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

    def pairs(self) -> list[tuple[str, str]]:
        """The evaluations behind the job: its one pair, or every pair of the league."""
        if self.kind == "eval":
            return [(self.agents[0], self.agents[1])]
        return list(itertools.combinations(self.agents, 2))

    def run(self, played: dict[tuple[str, str], list[dict[str, Any]]] | None = None,
            bootstrap: int = 1000) -> dict[str, Any]:
        """Play the job (a league reuses the ``played`` games of rows with the same deals)."""
        if self.kind == "eval":
            from tabletop_gym.arena.evaluation import evaluate

            res = evaluate(self.game, self.agents[0], self.agents[1], n_games=self.games,
                           seed=self.seed, **self.config)
            return {"row": res.row(), "per_game": res.per_game, "slice": self.replay()}
        from tabletop_gym.arena.league import run_league

        league = run_league(self.game, list(self.agents), games_per_pair=self.games,
                            seed=self.seed, bootstrap=bootstrap, played=played, **self.config)
        return {"league": {k: v for k, v in league.to_dict().items() if k != "metadata"},
                "markdown": league.markdown(), "per_game": league.games,
                "slice": self.replay()}

    def replay(self) -> list[dict[str, Any]]:
        """The slice the staleness test compares: a few games or moves of every pair."""
        out = []
        for a, b in self.pairs():
            if a.startswith("ismcts") or b.startswith("ismcts"):
                out.append({"pair": [a, b], "moves": first_moves(self.game, a, b, self.seed,
                                                                 **self.config)})
            else:
                from tabletop_gym.arena.evaluation import evaluate

                res = evaluate(self.game, a, b, n_games=SLICE_GAMES, seed=self.seed,
                               **self.config)
                out.append({"pair": [a, b], "games": res.per_game})
        return out


def first_moves(game: str, candidate: str, opponent: str, seed: int,
                decisions: int = SLICE_DECISIONS, **config: Any) -> list[int]:
    """The moves of an evaluation's first game up to the search's ``decisions``-th real choice.

    The game and the agents are made exactly as
    :func:`tabletop_gym.arena.evaluation.evaluate` makes its first game (deal ``seed``, the
    candidate in seat 0, agents drawn from one generator in seat order), so these are that game's
    first moves.
    """
    from tabletop_gym.agents.base import choose_action, decides_on
    from tabletop_gym.agents.kinds import make_agent
    from tabletop_gym.arena.envs import raw_env_factory

    env = raw_env_factory(game)(**config)
    rng = np.random.default_rng(seed)
    agents = {name: make_agent(candidate if s == 0 else opponent, env.game, env.observer, rng)
              for s, name in enumerate(env.possible_agents)}
    env.reset(seed=seed)
    moves: list[int] = []
    searched = 0
    while not env.game_state.is_terminal() and searched < decisions:
        name = env.agent_selection
        agent = agents[name]
        if decides_on(agent) == "state" and len(env.game_state.legal_actions()) > 1:
            searched += 1
        action = choose_action(agent, env, name)
        moves.append(int(action))
        env.step(action)
    return moves


def _eval(table: str, game: str, players: int, cand: str, opp: str, games: int, seed: int,
          **config: Any) -> Job:
    tag = "-".join(f"{k}{v}" for k, v in sorted(config.items()))
    jid = f"{game}-{players}p{'-' + tag if tag else ''}-{cand}-vs-{opp}".replace(":", "_")
    return Job(jid, table, "eval", game, {"num_players": players, **config}, (cand, opp),
               games, seed)


def shipped(game: str, players: int) -> bool:
    """Whether a trained checkpoint of ``game`` at ``players`` is shipped."""
    return (CHECKPOINTS / f"{game}_{players}p.zip").exists()


def jobs() -> list[Job]:
    """Every job of the page, in page order."""
    out = []
    by_name = sorted(_ROWS)  # the heuristic and PPO rows: games in alphabetical order
    for game in by_name:
        for row in _ROWS[game].heuristic_rows:
            extra = {k: v for k, v in row.items() if k != "num_players"}
            out.append(_eval("heuristic", game, row["num_players"], "heuristic", "random", 200,
                             30_000, **extra))
    for game, players in ((g, _ROWS[g].ppo_players) for g in by_name):
        if not shipped(game, players):
            continue  # rows of the shipped checkpoints appear once they are shipped
        for opp in ("heuristic", "random"):
            out.append(_eval("ppo", game, players, "ppo", opp, PPO_GAMES, 40_000))
    for game in _ROWS:
        out.append(_eval("ismcts", game, 2, SEARCH[game], "heuristic", ISMCTS_GAMES[game],
                         SEARCH_SEED))
        for spec, games in CURVE[game]:
            out.append(_eval("curve", game, 2, spec, "heuristic", games, SEARCH_SEED))
    for game, players in ((g, 2) for g in _ROWS):
        # random first: the ratings are pinned at the first agent; the search before the
        # heuristic, so that pair is the curve row's games (same deals, same seats)
        agents = ["random", LEAGUE_AGENT[game], "heuristic"]
        if shipped(game, players):
            agents.append("ppo")
        out.append(Job(f"league-{game}-{players}p", "league", "league", game,
                       {"num_players": players}, tuple(agents), LEAGUE_GAMES, SEARCH_SEED))
    return out


# --- aggregation over training seeds ---------------------------------------------------------


def iqm(values: Sequence[float]) -> float:
    """Interquartile mean of per-seed values (:func:`tabletop_gym.arena.stats.iqm`)."""
    from tabletop_gym.arena.stats import iqm as _iqm

    return _iqm(np.asarray(values, dtype=float))


def bootstrap_ci(values: Sequence[float], reps: int = 2000, seed: int = 0) -> tuple[float, float]:
    """95 % stratified-bootstrap interval of the IQM over seeds (one task: one stratum)."""
    from tabletop_gym.arena.stats import iqm as _iqm, stratified_bootstrap_ci

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


TRAIN_SEEDS = (0, 1, 2)
"""Training seeds of each env behind the trained rows."""

SEED_ENVS = tuple((spec.gym_id, spec.name, int(spec.single_agent_defaults["num_players"]))
                  for spec in game_specs())
"""``(env id, game, players)`` of every registered single-agent view the seeds train on."""


def train_seeds(folder: str | pathlib.Path, seeds: Sequence[int] = TRAIN_SEEDS) -> None:
    """Train every seed of every env that has no run in ``folder`` yet.

    Each env's recipe (:func:`tabletop_gym.tasks.recipes.recipe`) and default budget
    (:data:`tabletop_gym.tasks.recipes.DEFAULT_TIMESTEPS`): what
    ``tabletop-gym train --env ID`` runs.
    """
    from tabletop_gym.tasks.recipes import train

    for env_id, _, _ in SEED_ENVS:
        done = {r["seed"] for r in seed_runs(folder, env_id)}
        for seed in seeds:
            if seed not in done:
                train(env_id, seed=seed, out=folder, eval_games=0, progress_bar=False)


def evaluate_seed_runs(folder: str | pathlib.Path, games: int = SEED_GAMES) -> None:
    """Evaluate every run's ``model.zip`` against the heuristic and store it in its summary."""
    from sb3_contrib import MaskablePPO

    from tabletop_gym.arena.evaluation import evaluate

    for env_id, game, players in SEED_ENVS:
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
            data["seed_eval"]["leaves_hint"] = leaves_hint(model, game, players)
            summary_path.write_text(json.dumps(data, indent=1))
            print(f"{env_id} seed {run['seed']}: {res.win_rate:.3f} "
                  f"[{res.win_ci[0]:.3f}, {res.win_ci[1]:.3f}]", flush=True)


def leaves_hint(model: Any, game: str, players: int, games: int = HINT_GAMES,
                seed: int = 20_000) -> float | None:
    """How often a hinted model plays another move than the heuristic's (None: not hinted).

    Counted over the decisions with a choice of ``games`` games against the heuristic (the first
    deals of the seed evaluation), with one agent playing all of them.
    """
    from tabletop_gym.agents.base import HintedModelAgent
    from tabletop_gym.agents.kinds import model_agent
    from tabletop_gym.arena.envs import raw_env_factory
    from tabletop_gym.arena.evaluation import evaluate

    env = raw_env_factory(game)(num_players=players)
    agent = model_agent(model, env.game, env.observer, np.random.default_rng(seed))
    if not isinstance(agent, HintedModelAgent):
        return None
    evaluate(game, agent, "heuristic", n_games=games, seed=seed, num_players=players)
    return round(agent.left / max(agent.choices, 1), 4)


def seed_table(folder: str | pathlib.Path) -> dict[str, Any]:
    """Per env: each seed's evaluation and the IQM over seeds with its bootstrap interval."""
    out: dict[str, Any] = {}
    for env_id, _, _ in SEED_ENVS:
        runs = [r for r in seed_runs(folder, env_id) if "seed_eval" in r]
        if not runs:
            continue
        rows = [{"seed": r["seed"], "timesteps": r["timesteps"],
                 "train_seconds": r["train_seconds"], "cpu_seconds": r.get("cpu_seconds"),
                 "hparams": r.get("hparams"),
                 "bc_agreement": (r.get("behaviour_cloning") or {}).get("agreement"),
                 "run_dir": r["run_dir"], **r["seed_eval"]} for r in runs]
        wins = [r["win_rate"] for r in rows]
        diffs = [r["mean_score_diff"] for r in rows]
        out[env_id] = {
            "seeds": rows,
            "iqm_win_rate": iqm(wins), "iqm_win_rate_ci": bootstrap_ci(wins),
            "iqm_score_diff": iqm(diffs), "iqm_score_diff_ci": bootstrap_ci(diffs),
        }
    return out


def ship_best(folder: str | pathlib.Path) -> dict[str, Any]:
    """Ship the best evaluated seed of each env as its checkpoint (``"ppo"`` then loads it).

    Best: the highest win rate against the heuristic on the seed evaluation's deals, then the
    higher mean score difference. Returns, per env, the seed shipped and where.
    """
    from tabletop_gym.tasks.recipes import GAME_OF, ship_checkpoint

    shipped_now = {}
    for env_id, agg in seed_table(folder).items():
        best = max(agg["seeds"], key=lambda r: (r["win_rate"], r["mean_score_diff"]))
        players = best["players"]
        dest = CHECKPOINTS / f"{GAME_OF[env_id]}_{players}p.zip"
        ship_checkpoint(pathlib.Path(best["run_dir"]) / "model.zip", dest)
        shipped_now[env_id] = {"seed": best["seed"], "path": str(dest.name)}
        print(f"{env_id}: shipped seed {best['seed']} as {dest}", flush=True)
    return shipped_now


# --- running and rendering ---------------------------------------------------------------------


def seconds_per_move(game: str, specs: Sequence[str], positions: int = 10,
                     seed: int = 0) -> dict[str, float]:
    """CPU seconds one decision of each search agent takes (``time.process_time``).

    Averaged over positions of heuristic games with more than one legal action.
    """
    from tabletop_gym.agents.kinds import make_agent
    from tabletop_gym.arena.envs import raw_env_factory

    env = raw_env_factory(game)(num_players=2)
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
    for spec in specs:
        agent: Any = make_agent(spec, env.game, env.observer, np.random.default_rng(seed))
        t0 = time.process_time()
        for s in states:
            agent.act_in(s, s.current_player())
        out[spec] = (time.process_time() - t0) / len(states)
    return out


def played_games(cache: pathlib.Path, job: Job) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """The cached evaluation rows a league job can reuse: same game, config and first deal."""
    out = {}
    for other in jobs():
        path = cache / f"{other.id}.json"
        if (other.kind == "eval" and other.game == job.game and other.config == job.config
                and other.seed == job.seed and path.exists()):
            games = json.loads(path.read_text()).get("per_game")
            if games is not None:  # a row reused from the page has no games: play them again
                out[(other.agents[0], other.agents[1])] = games
    return out


def run_jobs(selected: Sequence[Job], cache: pathlib.Path, fresh: bool = False) -> None:
    """Run every job whose cached result is missing (or all with ``fresh``)."""
    cache.mkdir(parents=True, exist_ok=True)
    for job in selected:
        path = cache / f"{job.id}.json"
        if path.exists() and not fresh:
            continue
        t0, c0 = time.perf_counter(), time.process_time()
        result = job.run(played=played_games(cache, job) if job.kind == "league" else None)
        result["seconds"] = round(time.perf_counter() - t0, 1)
        result["cpu_seconds"] = round(time.process_time() - c0, 1)
        result["job"] = dataclasses.asdict(job)
        result["metadata"] = metadata(job=job.id, seed=job.seed, games=job.games,
                                      agents=list(job.agents), config=job.config)
        path.write_text(json.dumps(result, indent=1))
        print(f"{job.id}: {result['cpu_seconds']} CPU s", flush=True)


def _league_result(data: dict[str, Any]) -> Any:
    """The :class:`tabletop_gym.arena.league.LeagueResult` of a league's stored dict."""
    from tabletop_gym.arena.league import LeagueResult

    data = dict(data)
    data["ci"] = [[tuple(c) for c in row] for row in data["ci"]]
    data["rating_ci"] = [tuple(c) for c in data["rating_ci"]]
    return LeagueResult(**data)


def _committed_result(job: Job, entry: dict[str, Any]) -> dict[str, Any]:
    """A job's cached result as its committed ``docs/baselines.json`` entry holds it."""
    result: dict[str, Any] = {"slice": entry["slice"], "cpu_seconds": entry["cpu_seconds"],
                              "job": entry["job"]}
    if job.kind == "eval":
        result["row"] = entry["row"]
    else:
        result["league"] = entry["league"]
        result["markdown"] = _league_result(entry["league"]).markdown()
    return result


def reuse_committed(cache: pathlib.Path, docs: pathlib.Path,
                    keep: Sequence[str] = ("ppo",)) -> list[str]:
    """Seed the cache with the committed results of the jobs no agent of ``keep`` plays in.

    For a run that changes only the trained agents: the rows without them, and the search's
    timing, are read back from ``docs/baselines.json`` (the numbers and the slice the staleness
    test replays) instead of being measured again; a job with a cached result, or with an
    agent of ``keep``, is left to :func:`run_jobs`. Returns the ids seeded.
    """
    committed = docs / "baselines.json"
    if not committed.exists():
        return []
    doc = json.loads(committed.read_text())
    rows = doc["rows"]
    cache.mkdir(parents=True, exist_ok=True)
    seeded = []
    if doc.get("timing") and not (cache / "timing.json").exists():
        (cache / "timing.json").write_text(json.dumps(doc["timing"], indent=1))
        seeded.append("timing")
    for job in jobs():
        path = cache / f"{job.id}.json"
        entry = rows.get(job.id)
        if path.exists() or entry is None or any(a in keep for a in job.agents):
            continue
        result = {**_committed_result(job, entry), "reused_from": str(committed)}
        path.write_text(json.dumps(result, indent=1))
        seeded.append(job.id)
    return seeded


def committed_page(docs: pathlib.Path) -> str:
    """``docs/baselines.md`` as the committed ``docs/baselines.json`` gives it, playing nothing.

    The page of the results pipeline (``tabletop-gym suite results``): every number, the seeds
    table, the timing and the provenance line come from the numbers file that
    :func:`render` wrote beside the page.
    """
    doc = json.loads((docs / "baselines.json").read_text())
    results = {job.id: (job, _committed_result(job, doc["rows"][job.id]))
               for job in jobs() if job.id in doc["rows"]}
    return _page(results, doc["seeds"], doc["timing"], doc["metadata"])


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
    committed = docs / "baselines.json"
    if not seeds and committed.exists():
        # The training runs are not in the repository: without them (a fresh clone), keep the
        # seeds table the page was generated with instead of dropping it.
        seeds = json.loads(committed.read_text()).get("seeds", {})
    meta = metadata(search=SEARCH, curve=CURVE, league_agent=LEAGUE_AGENT, slice_games=SLICE_GAMES,
                    slice_decisions=SLICE_DECISIONS)
    doc: dict[str, Any] = {"metadata": meta, "rows": {}, "seeds": seeds, "timing": timing}
    for jid, (job, res) in results.items():
        entry = {"job": dataclasses.asdict(job), "slice": res["slice"],
                 "cpu_seconds": res.get("cpu_seconds")}
        entry["row" if job.kind == "eval" else "league"] = res.get("row") or res.get("league")
        doc["rows"][jid] = entry
    (docs / "baselines.json").write_text(json.dumps(doc, indent=1) + "\n")
    for jid, (job, res) in results.items():
        if job.kind == "league":
            _league_result(res["league"]).heatmap(docs / "img" / f"{jid}.png")
    (docs / "baselines.md").write_text(_page(results, seeds, timing, meta))
    return doc


def _page(results: dict[str, Any], seeds: dict[str, Any], timing: dict[str, Any],
          meta: dict[str, Any]) -> str:
    libs = ", ".join(f"{k} {v}" for k, v in meta["libraries"].items())
    commit = f"commit `{meta['commit']}`" if meta["commit"] else commit_text(None)
    lines = [
        "# Baselines",
        "",
        "<!-- generated by `make baselines` (python -m tabletop_gym.tasks.baselines); do "
        "not edit -->",
        "",
        f"Package {meta['package']} {meta['package_version']}, {commit}, "
        f"Python {meta['python']}; {libs}. Every row: seats rotated over paired deals (solo: "
        "the same deals for both policies, \"duplicate\" format), a shared win counted 1/k, "
        "95 % intervals (win rate: Wilson; score difference: normal). Seeds and budgets are in "
        "each table; `docs/baselines.json` holds every number with the first "
        f"{SLICE_GAMES} games of each row (where ISMCTS plays: the first game's moves up to "
        f"the search's {SLICE_DECISIONS}th real decision), which `tests/test_baselines.py` "
        "replays.",
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
    lines += ["## Targets", "", *_verdicts(results, timing), ""]
    lines += _unmet(results, seeds, timing)
    missing = [j.id for j in jobs() if j.id not in results]
    if missing:
        lines += ["Jobs of this page without a result yet (`make baselines` runs them): "
                  + ", ".join(f"`{m}`" for m in missing) + ".", ""]
    lines += ["## Regenerating", "",
              "- `make baselines` (`python -m tabletop_gym.tasks.baselines`) plays every "
              "job of this "
              "page that has no cached result under `runs/baselines/` (`--fresh`: all of them; "
              "`--only ID ...`: those) and renders the page, `docs/baselines.json` and the "
              "league heatmaps. A league reuses the games of the row that played the same pair "
              "on the same deals.",
              "- `python -m tabletop_gym.tasks.baselines --train-seeds --eval-seeds "
              "--ship` trains "
              f"seeds {', '.join(map(str, TRAIN_SEEDS))} of each env with its recipe "
              "(`tabletop_gym.tasks.recipes.recipe`) and default budget "
              "(`tabletop_gym.tasks.recipes.DEFAULT_TIMESTEPS`) into `runs/final/`, "
              "evaluates "
              "them and ships the best "
              "seed of each env; `--timing` measures the search's CPU seconds per move.",
              "- CPU seconds of every job are in `docs/baselines.json` (`cpu_seconds`).", ""]
    lines += ["## The heuristic bots against random", ""]
    lines += [*table("heuristic", head), ""]
    specs = ", ".join(f"`{spec}` ({g})" for g, spec in SEARCH.items())
    load = timing.get("load")
    where = ("" if load is None else
             f" at a 1-minute load average of {load[0]:.1f} to {load[1]:.1f} on 2 cores")
    lines += ["## Search: information-set MCTS against the heuristic", "",
              f"{specs}: simulations per move and variant (`tabletop_gym.agents.ismcts`). "
              "Every simulation re-deals what the searching seat cannot see. `ismcts:N`: UCT "
              "over action sequences with random rollouts; a simulation's value mixes the win "
              "with `tanh(margin / 10)`. `ismcts:N:guided`: N heuristic rollouts per move spent "
              "at the root, in rounds that each re-deal once and play every candidate (the "
              f"heuristic's move and up to {GUIDED_WIDTH - 1} other legal actions, drawn at "
              "random where there are more) to the end on that same deal with the same rollout "
              "seeds, the heuristic moving every seat; it leaves the heuristic's move only for "
              f"a candidate whose mean paired gain exceeds {SWITCH_Z:g} standard error.", ""]
    lines += [*table("ismcts", head), ""]
    lines += ["### Budget/strength curve", "",
              "Win rate against the heuristic (2 players) by variant and simulations per move "
              "(every point plays the first games of the row above: the same deals and seats), "
              "and the mean CPU seconds one decision takes (`--timing`: `time.process_time` over "
              f"{timing.get('positions', '?')} positions of heuristic games with a choice, "
              f"one timing run at a time{where}).", "",
              "| game | agent | games | win rate [95 % CI] | diff [95 % CI] | "
              "CPU s / move |", "|---|---|---|---|---|---|"]
    for game in _ROWS:
        for spec in sorted(curve_specs(game), key=_curve_order):
            found = [(j, r) for j, r in results.values()
                     if j.game == game and j.agents[0] == spec and j.kind == "eval"]
            secs = timing.get(game, {}).get(spec)
            cpu = "" if secs is None else f"{secs:.3f}"
            if found:
                row = found[0][1]["row"]
                lines.append(f"| {game} | `{spec}` | {row['games']} | {_ci(row)} | "
                             f"{_diff(row)} | {cpu} |")
            else:
                lines.append(f"| {game} | `{spec}` | no result yet | | | {cpu} |")
    lines += [""]
    lines += ["## Trained: MaskablePPO", "",
              "`ppo` is the shipped checkpoint (`tabletop_gym/agents/checkpoints/`), played "
              "greedily with its mask. It is a residual policy over the heuristic "
              "(`tabletop_gym.agents.ppo.HintedPolicy`): its input is the seat's own "
              "observation **and the move the game's heuristic bot would play from that same "
              "observation** (a one-hot block, computed by `tabletop_gym.agents.base."
              "HintedModelAgent` when it plays; the bot reads nothing else), and its logits "
              "start as the heuristic's choice; PPO then trains it, free to leave that "
              "choice where it pays. So it is the "
              "heuristic plus what training learned, and the column *leaves heuristic* of the "
              "seeds table says at what share of its decisions with a choice it plays "
              "another move.", ""]
    if any(j.table == "ppo" for j in jobs()):
        lines += [*table("ppo", head), ""]
    else:
        lines += ["No checkpoint is shipped yet, so `\"ppo\"` raises a `ValueError` that says "
                  "so; the rows appear here once `tabletop_gym/agents/checkpoints/"
                  "<game>_<players>p.zip` exist "
                  "(`tabletop_gym.tasks.recipes.ship_checkpoint`).", ""]
    if seeds:
        lines += ["### Training seeds", "",
                  "Each env's recipe (`tabletop_gym.tasks.recipes.recipe(env)`: the "
                  "residual "
                  "policy, a warm-up (solo Positano: the value head on the heuristic's games; "
                  "Rapa Nui: also the policy regressed on the guided search's gain estimates), "
                  "then PPO; `docs/training.md`) once per seed "
                  "for the budget in the timesteps column "
                  "(`tabletop_gym.tasks.recipes.train(env, timesteps=T, seed=s, "
                  "out=\"runs/final\")`"
                  ", then `python -m tabletop_gym.tasks.baselines --eval-seeds --ship`). "
                  "Each seed "
                  f"evaluated against the heuristic ({SEED_GAMES:,} games, first deal 20000; "
                  "solo: the same deals for both); aggregate: interquartile mean over seeds "
                  "with a 95 % percentile bootstrap over seeds (2000 resamples), as `rliable` "
                  "computes it. "
                  "Leaves heuristic: the share of the decisions with a choice, over the first "
                  f"{HINT_GAMES} of those games, where the greedy policy plays another move "
                  "than the heuristic's (`tabletop_gym.tasks.baselines.leaves_hint`). "
                  "CPU s: the "
                  "warm-up (with the search's labels where the recipe has them) and PPO "
                  "together, on the shared machine. The shipped "
                  "checkpoint is the best seed (win rate, then score difference).", "",
                  "| env | seed | timesteps | leaves heuristic | CPU s | win rate [95 % CI] | "
                  "diff [95 % CI] |", "|---|---|---|---|---|---|---|"]
        for env_id, agg in seeds.items():
            best = max(agg["seeds"], key=lambda r: (r["win_rate"], r["mean_score_diff"]))
            for r in agg["seeds"]:
                tag = " (shipped)" if r is best else ""
                agree = "" if r.get("leaves_hint") is None else f"{r['leaves_hint']:.1%}"
                cpu = "" if r.get("cpu_seconds") is None else f"{r['cpu_seconds']:.0f}"
                lines.append(f"| `{env_id}` | {r['seed']}{tag} | {r['timesteps']:,} | {agree} | "
                             f"{cpu} | {_ci(r)} | {_diff(r)} |")
            lo, hi = agg["iqm_win_rate_ci"]
            dlo, dhi = agg["iqm_score_diff_ci"]
            lines.append(f"| `{env_id}` | IQM | | | | {agg['iqm_win_rate']:.3f} [{lo:.3f}, "
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


def _curve_order(spec: str) -> tuple[str, int]:
    """Variant, then simulations."""
    parts = spec.split(":")
    return (parts[2] if len(parts) > 2 else "", int(parts[1]))


def _unmet(results: dict[str, Any], seeds: dict[str, Any],
           timing: dict[str, Any]) -> list[str]:
    """Why a target was not met, from the measurements of this page."""
    out = []
    for job, res in results.values():
        row = res.get("row")
        if job.table != "ismcts" or row is None:
            continue
        if row["win_ci_low"] > 0.5:
            secs = timing.get(job.game, {}).get(job.agents[0])
            if secs is None:
                out.append(f"- `{job.agents[0]}` in {job.game}: it beats the heuristic, but its "
                           "CPU seconds per move are not measured in this generation of the page "
                           "(`--timing`).")
            elif secs > 1.0:
                out.append(f"- `{job.agents[0]}` in {job.game}: it beats the heuristic, but a "
                           f"decision takes {secs:.2f} CPU s, over the 1 s of the target.")
            continue
        cpu = res.get("cpu_seconds")
        per_game = "" if not cpu else f" ({cpu / row['games']:.0f} CPU s per game here)"
        if row["win_rate"] > 0.5:
            out.append(f"- `{job.agents[0]}` in {job.game}{per_game}: it wins most games "
                       f"({_ci(row)}, score difference {_diff(row)}), but {row['games']} games "
                       "leave the win-rate interval wide enough to hold 0.5; more games would "
                       "settle it.")
            continue
        out.append(f"- `{job.agents[0]}` in {job.game}{per_game}: at this budget it does not "
                   f"outplay the heuristic ({_ci(row)}, score difference {_diff(row)}); the "
                   "budget/strength curve below shows how the win rate moves with the budget "
                   "on the same deals.")
    for env_id, agg in seeds.items():
        solo = game_spec(env_id).single_agent_defaults["num_players"] == 1
        lo = agg["iqm_score_diff_ci"][0] if solo else agg["iqm_win_rate_ci"][0]
        if lo > (0.0 if solo else 0.5):
            continue
        left = [r["leaves_hint"] for r in agg["seeds"] if r.get("leaves_hint") is not None]
        steps = sorted({r["timesteps"] for r in agg["seeds"]})
        cpu = [r["cpu_seconds"] for r in agg["seeds"] if r.get("cpu_seconds")]
        lo_a, hi_a = min(left, default=float("nan")), max(left, default=float("nan"))
        span = f"{lo_a:.1%}" if f"{lo_a:.1%}" == f"{hi_a:.1%}" else f"{lo_a:.1%}–{hi_a:.1%}"
        what = (f"IQM score difference {agg['iqm_score_diff']:+.2f} "
                f"[{agg['iqm_score_diff_ci'][0]:+.2f}, {agg['iqm_score_diff_ci'][1]:+.2f}]"
                if solo else
                f"IQM win rate {agg['iqm_win_rate']:.3f} [{agg['iqm_win_rate_ci'][0]:.3f}, "
                f"{agg['iqm_win_rate_ci'][1]:.3f}]")
        out.append(f"- MaskablePPO on `{env_id}`: the residual policy starts as the heuristic; "
                   f"after {', '.join(f'{t:,}' for t in steps)} PPO steps per seed "
                   f"({min(cpu, default=0):.0f}–{max(cpu, default=0):.0f} CPU s, what the "
                   f"shared machine allowed) it leaves the heuristic's move at {span} of its "
                   f"decisions; the seeds' {what} does not lie above a tie. What was tried "
                   "and measured on the way to the recipe (other warm-ups, rewards and "
                   "budgets) is in docs/training.md.")
    return ["### Why a target is not met", "", *out, ""] if out else []


def _verdicts(results: dict[str, Any], timing: dict[str, Any]) -> list[str]:
    """One line per target: met or not, with the measurement that says so.

    A search agent's target also needs its decisions to take at most 1 CPU second (``--timing``).
    """
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
            what = (f"win rate {_ci(row)} over {row['games']} games (score difference "
                    f"{_diff(row)})")
        if job.table == "ismcts":
            secs = timing.get(job.game, {}).get(job.agents[0])
            ok = ok and secs is not None and secs <= 1.0
            what += (", CPU seconds per move not measured (`--timing`)" if secs is None else
                     f", {secs:.2f} CPU s per move")
        verdict = "**met**" if ok else "**not met**"
        goal = ("a higher mean solo score than the heuristic (interval above 0)" if solo else
                "beats the heuristic (win-rate interval above 0.5)")
        if job.table == "ismcts":
            goal += " deciding in at most 1 CPU s per move"
        out.append(f"- `{job.agents[0]}`, {job.game} {job.config['num_players']}p, {goal}: "
                   f"{verdict}: {what}.")
    measured = {(j.table, j.game) for j, r in results.values() if r.get("row")}
    for table, game, players in [*(("ismcts", g, 2) for g in _ROWS),
                                 *(("ppo", g, rows.ppo_players) for g, rows in _ROWS.items())]:
        if (table, game) not in measured:
            agent = SEARCH[game] if table == "ismcts" else "ppo"
            out.append(f"- `{agent}`, {game} {players}p, beats the heuristic: **not met**: "
                       "not measured (no result in this generation of the page).")
    return out


def main(argv: list[str] | None = None) -> int:
    """Run the missing jobs, then render the page."""
    from tabletop_gym.console import line_buffered

    line_buffered(sys.stdout)  # a long job: each line reaches its log when it is printed
    p = argparse.ArgumentParser(prog="python -m tabletop_gym.tasks.baselines",
                                description=__doc__)
    p.add_argument("--cache", default="runs/baselines")
    p.add_argument("--ppo-runs", default="runs/final")
    p.add_argument("--docs", default="docs")
    p.add_argument("--fresh", action="store_true", help="rerun every job")
    p.add_argument("--only", nargs="*", default=None,
                   help="job ids to run, in this order (default: all)")
    p.add_argument("--render-only", action="store_true")
    p.add_argument("--reuse-committed", action="store_true",
                   help="take the rows no trained agent plays in from the committed "
                        "docs/baselines.json instead of playing them again")
    p.add_argument("--timing", action="store_true", help="measure ISMCTS seconds per move")
    p.add_argument("--train-seeds", action="store_true",
                   help=f"train the seeds {TRAIN_SEEDS} of each env missing under --ppo-runs")
    p.add_argument("--eval-seeds", action="store_true", help="evaluate the training seeds")
    p.add_argument("--ship", action="store_true",
                   help="ship the best evaluated seed of each env as its checkpoint")
    args = p.parse_args(argv)
    cache = pathlib.Path(args.cache)
    if args.train_seeds:
        train_seeds(args.ppo_runs)
    if args.eval_seeds:
        evaluate_seed_runs(args.ppo_runs)
    if args.ship:
        ship_best(args.ppo_runs)
    if args.timing:
        cache.mkdir(parents=True, exist_ok=True)
        load_before = os.getloadavg()[0]
        timing: dict[str, Any] = {
            g: seconds_per_move(g, curve_specs(g),
                                positions=TIMING_POSITIONS)
            for g in _ROWS}
        timing["positions"] = TIMING_POSITIONS
        timing["load"] = [load_before, os.getloadavg()[0]]
        timing["metadata"] = metadata()
        (cache / "timing.json").write_text(json.dumps(timing, indent=1))
    if args.reuse_committed:
        seeded = reuse_committed(cache, pathlib.Path(args.docs))
        print(f"reused {len(seeded)} committed rows: {', '.join(seeded)}", flush=True)
    if not args.render_only:
        by_id = {j.id: j for j in jobs()}
        unknown = sorted(set(args.only or ()) - set(by_id))
        if unknown:
            p.error(f"unknown job ids {unknown}; the jobs are {sorted(by_id)}")
        selected = list(by_id.values()) if args.only is None else [by_id[i] for i in args.only]
        run_jobs(selected, cache, fresh=args.fresh)
    (pathlib.Path(args.docs) / "img").mkdir(parents=True, exist_ok=True)
    render(cache, pathlib.Path(args.ppo_runs), pathlib.Path(args.docs))
    print(f"wrote {args.docs}/baselines.md and {args.docs}/baselines.json")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
