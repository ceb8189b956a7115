"""Evaluation harness: N games, seats rotated on paired deals, win rate and scores with 95 % CIs.

Multi-player games: game ``i`` deals seed ``seed + i // n`` and seats the candidate at
``i mod n``, so every deal is played once from every seat and seat advantages cancel. A shared win
counts ``1/k`` of a win for each of the ``k`` winners. Solo Positano has no opponent at the table,
so the candidate and the opponent policy each play the *same* deals ("duplicate" format): the
candidate wins a deal when its solo score is higher, and a tie counts one half.

Intervals (:mod:`tabletop_gym.arena.stats`): win rate by the Wilson score interval; mean score
and mean score difference by the normal approximation (1.96 standard errors).

Example:
    >>> res = evaluate("rapa_nui", "random", "random", n_games=4, seed=0)
    >>> 0.0 <= res.win_rate <= 1.0
    True
"""

from __future__ import annotations

import csv
import dataclasses
import json
import math
import pathlib
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tabletop_gym.agents.base import Agent, choose_action
from tabletop_gym.agents.kinds import agent_name, make_agent
from tabletop_gym.agents.llm import (
    add_stats,
    empty_stats,
    game_stats,
    record_with_logs,
    report_rows,
    warn_invalid,
)
from tabletop_gym.arena.envs import raw_env_factory
from tabletop_gym.arena.stats import mean_interval, wilson_interval
from tabletop_gym.core.aec import TabletopAECEnv


@dataclasses.dataclass
class EvalResult:
    """Outcome of an evaluation of ``candidate`` against ``opponent``.

    Attributes:
        game: Game name.
        config: Game config used.
        candidate: Name of the evaluated agent.
        opponent: Name of the opponent agent.
        n_games: Games played.
        win_rate: Candidate's share of wins (shared wins split).
        win_ci: Wilson 95 % interval of the win rate.
        mean_score: Candidate's mean final score (solo: solo score).
        score_ci: 95 % interval of the mean score.
        mean_score_diff: Candidate's score minus the mean opponent score (solo: minus the
            opponent policy's score on the same deal).
        diff_ci: 95 % interval of the score difference.
        opponent_mean_score: Mean score of the opponents.
        per_game: One dict per game (seed, seat, scores, outcome, and the candidate's
            ``return``: its reward for the game under the config's ``reward_type``).
        llm: One row per language-model agent over all the games
            (:func:`tabletop_gym.agents.llm.report_rows`); empty without one.
        invalid: ``{agent name: why}`` for each language-model agent whose fallback rate
            passed :data:`tabletop_gym.agents.llm.FALLBACK_LIMIT`: this result then measures
            the fallback as much as the model (docs/llm.md, "Invalid results").
    """

    game: str
    config: dict[str, Any]
    candidate: str
    opponent: str
    n_games: int
    win_rate: float
    win_ci: tuple[float, float]
    mean_score: float
    score_ci: tuple[float, float]
    mean_score_diff: float
    diff_ci: tuple[float, float]
    opponent_mean_score: float
    per_game: list[dict[str, Any]] = dataclasses.field(default_factory=list, repr=False)
    llm: list[dict[str, Any]] = dataclasses.field(default_factory=list, repr=False)
    invalid: dict[str, str] = dataclasses.field(default_factory=dict)

    def row(self) -> dict[str, Any]:
        """Summary as one flat row (for tables and CSV)."""
        return {
            "game": self.game,
            "players": self.config.get("num_players"),
            "candidate": self.candidate,
            "opponent": self.opponent,
            "games": self.n_games,
            "win_rate": round(self.win_rate, 4),
            "win_ci_low": round(self.win_ci[0], 4),
            "win_ci_high": round(self.win_ci[1], 4),
            "mean_score": round(self.mean_score, 3),
            "score_ci_low": round(self.score_ci[0], 3),
            "score_ci_high": round(self.score_ci[1], 3),
            "mean_score_diff": round(self.mean_score_diff, 3),
            "diff_ci_low": round(self.diff_ci[0], 3),
            "diff_ci_high": round(self.diff_ci[1], 3),
            "opponent_mean_score": round(self.opponent_mean_score, 3),
            "invalid": "; ".join(f"{name}: {why}" for name, why in self.invalid.items()),
        }


def _play(env: TabletopAECEnv, agents: dict[str, Agent], seed: int) -> TabletopAECEnv:
    env.reset(seed=seed)
    while not env.game_state.is_terminal():
        name = env.agent_selection
        env.step(choose_action(agents[name], env, name))
    return env


def _after_game(env: TabletopAECEnv, agents: dict[str, Agent],
                sink: Callable[[Any], None] | None) -> None:
    if sink is not None:
        sink(record_with_logs(env, agents))


def _solo_score(env: TabletopAECEnv) -> float:
    # The solo result is min(own, Otto's), reported by the engine as the score of seat 0.
    return float(env.game_state.scores()[0])


def evaluate(
    game: str,
    candidate: Any,
    opponent: Any = "random",
    n_games: int = 200,
    seed: int = 0,
    record_sink: Callable[[Any], None] | None = None,
    **config: Any,
) -> EvalResult:
    """Play ``n_games`` and summarise the candidate's results.

    A game with a language-model agent (``"llm:..."``) adds its counters to its ``per_game``
    row (``"llm": {"candidate": ..., "opponent": ...}``, see
    :func:`tabletop_gym.agents.llm.game_stats`).

    Args:
        game: ``"positano"`` or ``"rapa_nui"``.
        candidate: Agent spec (``"random"``, ``"heuristic"``, Agent, callable, SB3 model).
        opponent: Agent spec for every other seat (solo: the policy compared on the same deals).
        n_games: Number of games (multi-player: a multiple of the player count keeps the seat
            rotation balanced).
        seed: First deal's seed.
        record_sink: Called with every game's record (:class:`GameRecord`, with the decision
            logs of language-model agents in ``agent_logs``), e.g. to save them.
        **config: Game config (``num_players``, variants).
    """
    from tabletop_gym.agents.kinds import check_spec

    check_spec(candidate)
    check_spec(opponent)
    factory = raw_env_factory(game)
    env = factory(**config)
    n = env.game.num_players
    rng = np.random.default_rng(seed)
    per_game: list[dict[str, Any]] = []
    if n == 1:
        opp_env = factory(**config)
        for i in range(n_games):
            deal = seed + i
            cand = make_agent(candidate, env.game, env.observer, rng)
            opp = make_agent(opponent, opp_env.game, opp_env.observer, rng)
            a = _solo_score(_play(env, {"player_0": cand}, deal))
            _after_game(env, {"player_0": cand}, record_sink)
            b = _solo_score(_play(opp_env, {"player_0": opp}, deal))
            _after_game(opp_env, {"player_0": opp}, record_sink)
            outcome = 1.0 if a > b else 0.5 if a == b else 0.0
            row: dict[str, Any] = {"seed": deal, "seat": 0, "score": a, "opponent_score": b,
                   "outcome": outcome, "return": float(env.game_state.returns()[0])}
            stats = {**game_stats({"c": cand}, {"c": "candidate"}),
                     **game_stats({"o": opp}, {"o": "opponent"})}
            if stats:
                row["llm"] = stats
            per_game.append(row)
    else:
        for i in range(n_games):
            deal = seed + i // n
            seat = i % n
            agents = {}
            for s, name in enumerate(env.possible_agents):
                spec = candidate if s == seat else opponent
                agents[name] = make_agent(spec, env.game, env.observer, rng)
            _play(env, agents, deal)
            _after_game(env, agents, record_sink)
            state = env.game_state
            sc = [float(x) for x in state.scores()]
            winners = state.winners()
            outcome = 1.0 / len(winners) if seat in winners else 0.0
            row = {"seed": deal, "seat": seat, "scores": sc, "winners": winners,
                   "outcome": outcome, "return": float(state.returns()[seat])}
            roles = {name: "candidate" if s == seat else "opponent"
                     for s, name in enumerate(env.possible_agents)}
            stats = game_stats(agents, roles)
            if stats:
                row["llm"] = stats
            per_game.append(row)
    return summarise(game, env.game.config.to_dict(), agent_name(candidate), agent_name(opponent),
                     per_game)


def summarise(game: str, config: dict[str, Any], candidate: str, opponent: str,
              per_game: list[dict[str, Any]]) -> EvalResult:
    """The :class:`EvalResult` of games already played (the ``per_game`` rows of one).

    The first ``k`` games of an evaluation are the whole evaluation of ``k`` games with the same
    seed (every game draws from one generator in order), so a league can reuse them.
    """
    outcomes = [g["outcome"] for g in per_game]
    if per_game and "score" in per_game[0]:  # solo: the two policies' scores on one deal
        scores = [g["score"] for g in per_game]
        opp_scores = [g["opponent_score"] for g in per_game]
        diffs = [a - b for a, b in zip(scores, opp_scores, strict=True)]
    else:
        scores, opp_scores, diffs = [], [], []
        for g in per_game:
            sc, seat = g["scores"], g["seat"]
            others = float(np.mean([sc[s] for s in range(len(sc)) if s != seat]))
            scores.append(sc[seat])
            opp_scores.append(others)
            diffs.append(sc[seat] - others)
    totals: dict[str, dict[str, Any]] = {}
    for g in per_game:
        for role, name in (("candidate", candidate), ("opponent", opponent)):
            if role in g.get("llm", {}):
                add_stats(totals.setdefault(name, empty_stats()), g["llm"][role])
    llm = report_rows(totals)
    invalid = warn_invalid(llm, "this result is", stacklevel=3)
    win_rate = float(np.mean(outcomes)) if outcomes else math.nan
    mean_s, lo_s, hi_s = mean_interval(scores)
    mean_d, lo_d, hi_d = mean_interval(diffs)
    return EvalResult(
        game=game,
        config=config,
        candidate=candidate,
        opponent=opponent,
        n_games=len(per_game),
        win_rate=win_rate,
        win_ci=wilson_interval(win_rate, len(outcomes)),
        mean_score=mean_s,
        score_ci=(lo_s, hi_s),
        mean_score_diff=mean_d,
        diff_ci=(lo_d, hi_d),
        opponent_mean_score=float(np.mean(opp_scores)) if opp_scores else math.nan,
        per_game=per_game,
        llm=llm,
        invalid=invalid,
    )


def format_table(results: Sequence[EvalResult]) -> str:
    """A fixed-width table of results (win rate and scores with 95 % intervals).

    The name columns are as wide as the longest name; an agent whose result is invalid
    (:attr:`EvalResult.invalid`) is marked ``(INVALID)``.
    """
    def label(r: EvalResult, name: str) -> str:
        return f"{name} (INVALID)" if name in r.invalid else name

    cw = max([9] + [len(label(r, r.candidate)) for r in results])
    ow = max([8] + [len(label(r, r.opponent)) for r in results])
    head = (f"{'game':<9} {'n':>2} {'candidate':<{cw}} {'opponent':<{ow}} {'games':>5}  "
            f"{'win rate [95% CI]':<22} {'score [95% CI]':<24} {'diff [95% CI]':<24}")
    lines = [head, "-" * len(head)]
    for r in results:
        lines.append(
            f"{r.game:<9} {r.config.get('num_players', ''):>2} {label(r, r.candidate):<{cw}} "
            f"{label(r, r.opponent):<{ow}} {r.n_games:>5}  "
            f"{r.win_rate:5.3f} [{r.win_ci[0]:.3f}, {r.win_ci[1]:.3f}]   "
            f"{r.mean_score:6.2f} [{r.score_ci[0]:6.2f}, {r.score_ci[1]:6.2f}]   "
            f"{r.mean_score_diff:+6.2f} [{r.diff_ci[0]:+6.2f}, {r.diff_ci[1]:+6.2f}]"
        )
    return "\n".join(lines)


def save_results(results: Sequence[EvalResult], path: str | pathlib.Path) -> list[pathlib.Path]:
    """Write ``<path>.csv`` (one row per result) and ``<path>.json`` (with every game)."""
    base = pathlib.Path(path)
    base.parent.mkdir(parents=True, exist_ok=True)
    rows = [r.row() for r in results]
    csv_path = base.with_suffix(".csv")
    with csv_path.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    json_path = base.with_suffix(".json")
    json_path.write_text(json.dumps([dataclasses.asdict(r) for r in results], indent=1))
    return [csv_path, json_path]
