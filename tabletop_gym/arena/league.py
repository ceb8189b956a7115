"""A round-robin league of agents with a win-rate matrix, ratings and their uncertainty.

Every pair of agents meets in :func:`tabletop_gym.arena.evaluation.evaluate`: seats rotated
over paired deals, the first agent of the pair in one seat and the second in every other seat.
From all games the league fits Bradley–Terry strengths by maximum likelihood and reports them on
the Elo scale (400 · log10 odds, the first agent pinned at 0); a shared win counts as half a win.
Each pair also gets one virtual drawn game, a weak prior that keeps the fit finite when one agent
wins every game against another (random against the heuristic). The 95 % interval of each rating
comes from a bootstrap that re-draws the games of every pair with replacement (stratified by
pair), refitting each time.

Example:
    >>> res = run_league("rapa_nui", ["random", "heuristic"], games_per_pair=4, seed=0,
    ...                  bootstrap=20, num_players=2)
    >>> res.matrix[1][0] > 0.5
    True
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import pathlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from tabletop_gym.agents.kinds import agent_name, check_spec
from tabletop_gym.agents.llm import (
    add_stats,
    empty_stats,
    game_stats,
    invalid_agents,
    load_prices,
    report_rows,
    warn_invalid,
)
from tabletop_gym.arena.envs import raw_env_factory
from tabletop_gym.arena.evaluation import evaluate, summarise
from tabletop_gym.arena.stats import wilson_interval
from tabletop_gym.provenance import metadata

ELO = 400.0 / np.log(10.0)


@dataclasses.dataclass
class LeagueResult:
    """What a league produced.

    Attributes:
        game: Game name.
        config: Game config.
        agents: Agent names, in the order given.
        games_per_pair: Games every pair played.
        seed: First deal's seed.
        matrix: ``matrix[i][j]``: agent ``i``'s win rate against ``j`` (NaN on the diagonal).
        ci: ``ci[i][j]``: the Wilson 95 % interval of ``matrix[i][j]``.
        ratings: Elo-scale rating of each agent (the first at 0).
        rating_ci: Bootstrap 95 % interval of each rating.
        bootstrap: Bootstrap resamples drawn.
        pairs: One summary row per pair (``EvalResult.row()``).
        games: Every game: the pair, the seat of the first agent, the scores and its outcome.
        llm: One row per language-model agent (``"llm:..."``): its decisions, answers,
            fallback rate, illegal-answer rate (and the other classes' rates), tokens and
            seconds per decision over all its games (:func:`tabletop_gym.agents.llm.report_rows`).
        invalid: ``{agent: why}`` for each language-model agent whose fallback rate passed
            :data:`tabletop_gym.agents.llm.FALLBACK_LIMIT`: its rating and win rates measure
            the fallback as much as the model, and every table marks it ``(INVALID)``.
    """

    game: str
    config: dict[str, Any]
    agents: list[str]
    games_per_pair: int
    seed: int
    matrix: list[list[float]]
    ci: list[list[tuple[float, float]]]
    ratings: list[float]
    rating_ci: list[tuple[float, float]]
    bootstrap: int
    pairs: list[dict[str, Any]]
    games: list[dict[str, Any]] = dataclasses.field(repr=False, default_factory=list)
    llm: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    invalid: dict[str, str] = dataclasses.field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The league as JSON-ready data, with the provenance block."""
        data = dataclasses.asdict(self)
        data["metadata"] = metadata(game=self.game, agents=self.agents,
                                    games_per_pair=self.games_per_pair, seed=self.seed,
                                    bootstrap=self.bootstrap)
        return data

    def markdown(self, digits: int = 2) -> str:
        """The ratings table and the win-rate matrix as markdown."""
        def beats(i: int, j: int) -> str:
            lo, hi = self.ci[i][j]
            return f"{self.matrix[i][j]:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"

        return rated_markdown(self.agents, self.ratings, self.rating_ci, self.invalid, self.llm,
                              {}, "row beats column", beats)

    def save(self, out: str | pathlib.Path, heatmap: bool = True) -> list[pathlib.Path]:
        """Write ``league.json``, ``league.md`` and (with matplotlib) ``league.png`` to ``out``."""
        folder = pathlib.Path(out)
        folder.mkdir(parents=True, exist_ok=True)
        paths = [folder / "league.json", folder / "league.md"]
        paths[0].write_text(json.dumps(self.to_dict(), indent=1))
        paths[1].write_text(self.markdown() + "\n")
        if heatmap:
            paths.append(self.heatmap(folder / "league.png"))
        return paths

    def heatmap(self, path: str | pathlib.Path) -> pathlib.Path:
        """Draw the win-rate matrix as a heatmap PNG (needs matplotlib, the ``train`` extra)."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        k = len(self.agents)
        m = np.array(self.matrix, dtype=float)
        fig, ax = plt.subplots(figsize=(1.3 * k + 2.5, 1.1 * k + 1.5))
        im = ax.imshow(m, cmap="RdBu", vmin=0.0, vmax=1.0)
        for i in range(k):
            for j in range(k):
                if i != j:
                    ax.text(j, i, f"{m[i, j]:.2f}", ha="center", va="center",
                            color="white" if abs(m[i, j] - 0.5) > 0.3 else "black")
        labels = [f"{a} (INVALID)" if a in self.invalid else a for a in self.agents]
        ax.set_xticks(range(k), labels, rotation=30, ha="right")
        ax.set_yticks(range(k), labels)
        ax.set_xlabel("opponent")
        ax.set_ylabel("agent (row's win rate)")
        n = self.config.get("num_players")
        ax.set_title(f"{self.game}, {n} players, {self.games_per_pair} games per pair")
        fig.colorbar(im, ax=ax, fraction=0.046)
        fig.tight_layout()
        out = pathlib.Path(path)
        fig.savefig(out, dpi=100)
        plt.close(fig)
        return out


def agent_cell(name: str, invalid: Mapping[str, str]) -> str:
    """An agent's name as a table cell, marked ``(INVALID)`` when its results are invalid."""
    return f"`{name}` **(INVALID)**" if name in invalid else f"`{name}`"


def rated_markdown(agents: Sequence[str], ratings: Sequence[float],
                   rating_ci: Sequence[tuple[float, float]], invalid: Mapping[str, str],
                   llm: Sequence[dict[str, Any]], columns: Mapping[str, Sequence[str]],
                   title: str, pair: Callable[[int, int], str]) -> str:
    """A league as markdown: the ratings table, best first, then the pairwise matrix.

    Args:
        agents: The agents' names, in the league's order.
        ratings: Each agent's rating (Elo).
        rating_ci: Each rating's 95 % interval.
        invalid: ``{agent: why}`` of the agents whose results are invalid (marked).
        llm: The language-model rows appended after the tables (:func:`llm_lines`).
        columns: More columns of the ratings table: ``{header: one cell per agent}``.
        title: The matrix's corner cell (what a row's cell says of the column).
        pair: The matrix cell of row agent ``i`` against column agent ``j`` (``i != j``).
    """
    order = sorted(range(len(agents)), key=lambda i: -ratings[i])
    cell = [agent_cell(a, invalid) for a in agents]
    heads = ["rank", "agent", "rating (Elo) [95 % CI]", *columns]
    lines = ["| " + " | ".join(heads) + " |", "|" + "---|" * len(heads)]
    for rank, i in enumerate(order, 1):
        lo, hi = rating_ci[i]
        row = [str(rank), cell[i], f"{ratings[i]:.0f} [{lo:.0f}, {hi:.0f}]",
               *(values[i] for values in columns.values())]
        lines.append("| " + " | ".join(row) + " |")
    lines += ["", f"| {title} | " + " | ".join(cell) + " |", "|---|" + "---|" * len(agents)]
    for i in range(len(agents)):
        cells = ["–" if i == j else pair(i, j) for j in range(len(agents))]
        lines.append(f"| {cell[i]} | " + " | ".join(cells) + " |")
    return "\n".join(lines + llm_lines(llm))


def llm_lines(rows: Sequence[dict[str, Any]]) -> list[str]:
    """The LLM report under a league's tables (none without a language model)."""
    if not rows:
        return []
    from tabletop_gym.agents.llm import report_markdown

    lines = ["", report_markdown(rows)]
    if invalid_agents(rows):
        lines += ["", "An INVALID agent's rating and win rates measure the fallback as much as "
                  "the model (docs/llm.md, \"Invalid results\")."]
    return lines


def fit_ratings(k: int, i: np.ndarray, j: np.ndarray, y: np.ndarray,
                prior_draws: float = 1.0, iters: int = 200) -> np.ndarray:
    """Bradley–Terry strengths on the Elo scale from games ``i`` vs ``j`` with outcome ``y``.

    Args:
        k: Number of agents.
        i: First agent of each game.
        j: Second agent of each game.
        y: The first agent's result in each game (1 win, 0.5 draw, 0 loss).
        prior_draws: Virtual drawn games added to every pair (keeps the fit finite).
        iters: Minorisation–maximisation iterations (Hunter 2004).

    Returns:
        Ratings with the first agent at 0.
    """
    wins = np.zeros((k, k))
    np.add.at(wins, (i, j), y)
    np.add.at(wins, (j, i), 1.0 - y)
    games = wins + wins.T
    met = games > 0
    prior = prior_draws * (met & ~np.eye(k, dtype=bool))
    wins = wins + prior / 2
    games = games + prior
    total_wins = wins.sum(axis=1)
    gamma = np.ones(k)
    for _ in range(iters):
        denom = (games / (gamma[:, None] + gamma[None, :])).sum(axis=1)
        gamma = np.where(denom > 0, total_wins / np.maximum(denom, 1e-300), gamma)
        gamma /= np.exp(np.mean(np.log(gamma)))
    r = ELO * np.log(gamma)
    return r - r[0]


def run_league(
    game: str,
    agents: Sequence[Any],
    games_per_pair: int = 40,
    seed: int = 0,
    bootstrap: int = 1000,
    verbose: bool = False,
    played: Mapping[tuple[str, str], Sequence[dict[str, Any]]] | None = None,
    record_sink: Callable[[Any], None] | None = None,
    prices: Mapping[str, dict[str, float]] | None = None,
    **config: Any,
) -> LeagueResult:
    """Play every pair of ``agents`` and rate them.

    Args:
        game: ``"positano"`` or ``"rapa_nui"``.
        agents: Agent specs (names such as ``"random"``, ``"heuristic"``, ``"ismcts:200"``,
            ``"ppo"``, or objects); at least two.
        games_per_pair: Games per pair (a multiple of the player count keeps seats balanced).
        seed: First deal's seed; every pair plays the same deals.
        bootstrap: Bootstrap resamples for the rating intervals.
        verbose: Print each pair's result as it finishes.
        played: Games already played, by pair of names ``(first, second)`` in league order:
            the ``per_game`` rows of ``evaluate(game, first, second, n, seed, **config)`` with
            ``n >= games_per_pair``. Their first ``games_per_pair`` games are exactly the games
            this league would play for the pair, so they are used instead of replaying them.
        record_sink: Called with the record of every game played (see ``evaluate``).
        prices: The price table of the LLM agents' tokens, for the cost column of the LLM
            report (:func:`tabletop_gym.agents.llm.load_prices`).
        **config: Game config (``num_players``, variants); solo games are not leagues.

    Raises:
        ValueError: With fewer than two agents or a solo game.
    """
    if len(agents) < 2:
        raise ValueError(f"a league needs at least two agents, got {len(agents)}")
    if int(config.get("num_players", 2)) < 2:
        raise ValueError("a league needs at least 2 players; compare solo agents with evaluate()")
    if games_per_pair < 1:
        raise ValueError(f"games_per_pair must be positive, got {games_per_pair}")
    for spec in agents:
        check_spec(spec)  # a malformed llm: spec fails now, not after the first pairs
    price_table = load_prices(dict(prices or {}))
    names = [agent_name(a) for a in agents]
    if len(set(names)) != len(names):
        raise ValueError(f"agent names must be distinct, got {names}")
    k = len(agents)
    matrix = [[float("nan")] * k for _ in range(k)]
    ci: list[list[tuple[float, float]]] = [[(float("nan"),) * 2 for _ in range(k)]  # type: ignore[misc]
                                           for _ in range(k)]
    pairs, games = [], []
    llm_stats: dict[str, dict[str, Any]] = {}
    gi, gj, gy, gpair = [], [], [], []
    cfg: dict[str, Any] = {}
    for p, (a, b) in enumerate(itertools.combinations(range(k), 2)):
        known = (played or {}).get((names[a], names[b]))
        if known is not None and len(known) >= games_per_pair:
            cfg = raw_env_factory(game)(**config).game.config.to_dict()
            res = summarise(game, cfg, names[a], names[b], list(known[:games_per_pair]))
        else:
            res = evaluate(game, agents[a], agents[b], n_games=games_per_pair, seed=seed,
                           record_sink=record_sink, **config)
        res.candidate, res.opponent = names[a], names[b]
        cfg = res.config
        n = len(res.per_game)
        matrix[a][b], matrix[b][a] = res.win_rate, 1.0 - res.win_rate
        ci[a][b] = res.win_ci
        ci[b][a] = wilson_interval(1.0 - res.win_rate, n)
        pairs.append(res.row())
        for g in res.per_game:
            games.append({"agent": names[a], "opponent": names[b], **g})
            for role, who in (("candidate", names[a]), ("opponent", names[b])):
                if role in g.get("llm", {}):
                    add_stats(llm_stats.setdefault(who, empty_stats()), g["llm"][role])
            gi.append(a)
            gj.append(b)
            gy.append(g["outcome"])
            gpair.append(p)
        if verbose:
            print(f"{names[a]:>20} vs {names[b]:<20} {res.win_rate:.3f} "
                  f"[{res.win_ci[0]:.3f}, {res.win_ci[1]:.3f}]", flush=True)
    llm_rows = report_rows(llm_stats, price_table)
    i_arr, j_arr, y_arr = np.array(gi), np.array(gj), np.array(gy, dtype=float)
    ratings = fit_ratings(k, i_arr, j_arr, y_arr)
    rng = np.random.default_rng(seed)
    pair_arr = np.array(gpair)
    groups = [np.flatnonzero(pair_arr == p) for p in range(len(pairs))]
    boots = np.empty((bootstrap, k))
    for b in range(bootstrap):
        idx = np.concatenate([g[rng.integers(0, g.size, g.size)] for g in groups])
        boots[b] = fit_ratings(k, i_arr[idx], j_arr[idx], y_arr[idx])
    lo, hi = np.percentile(boots, [2.5, 97.5], axis=0) if bootstrap else (ratings, ratings)
    return LeagueResult(
        game=game,
        config=cfg,
        agents=names,
        games_per_pair=games_per_pair,
        seed=seed,
        matrix=matrix,
        ci=ci,
        ratings=[float(x) for x in ratings],
        rating_ci=[(float(a), float(b)) for a, b in zip(lo, hi, strict=True)],
        bootstrap=bootstrap,
        pairs=pairs,
        games=games,
        llm=llm_rows,
        invalid=invalid_agents(llm_rows),
    )


# --- leagues of tables (3 or more players) -------------------------------------------------------


@dataclasses.dataclass
class TableLeagueResult:
    """A league of multi-player tables, rated from the pairwise results inside each game.

    Attributes:
        game: Game name.
        config: Game config.
        agents: Agent names, in the order given (the first is rated 0).
        tables: Every table: the agents at it (indices into ``agents``).
        deals_per_table: Deals every table played, each once in every seat rotation.
        seed: First deal's seed (every table plays the same deals).
        ratings: Bradley–Terry rating on the Elo scale from the pairwise results.
        rating_ci: Bootstrap 95 % interval of each rating (whole games re-drawn per table).
        bootstrap: Bootstrap resamples drawn.
        above: ``above[i][j]``: the share of games at one table in which ``i`` finished above
            ``j`` (a tie counts half; NaN where they never met).
        met: ``met[i][j]``: games ``i`` and ``j`` played at one table.
        win_rate: Each agent's share of the games it played that it won (a shared win split).
        games: Every game: the deal, the agent in each seat, the scores and the winners.
        llm: One row per language-model agent, as :attr:`LeagueResult.llm`.
        invalid: ``{agent: why}`` of the language-model agents, as :attr:`LeagueResult.invalid`.
    """

    game: str
    config: dict[str, Any]
    agents: list[str]
    tables: list[list[int]]
    deals_per_table: int
    seed: int
    ratings: list[float]
    rating_ci: list[tuple[float, float]]
    bootstrap: int
    above: list[list[float]]
    met: list[list[int]]
    win_rate: list[float]
    games: list[dict[str, Any]] = dataclasses.field(repr=False, default_factory=list)
    llm: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    invalid: dict[str, str] = dataclasses.field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The league as JSON-ready data, with the provenance block."""
        data = dataclasses.asdict(self)
        # JSON has no NaN: agents that never met (and the diagonal) are null.
        data["above"] = [[None if x != x else x for x in row] for row in self.above]
        data["metadata"] = metadata(game=self.game, agents=self.agents,
                                    deals_per_table=self.deals_per_table, seed=self.seed,
                                    bootstrap=self.bootstrap)
        return data

    def markdown(self, digits: int = 2) -> str:
        """The ratings table and the finished-above matrix as markdown."""
        half = [f"{(hi - lo) / 2:.0f}" for lo, hi in self.rating_ci]
        wins = [f"{w:.{digits}f}" for w in self.win_rate]
        return rated_markdown(self.agents, self.ratings, self.rating_ci, self.invalid, self.llm,
                              {"±": half, "wins": wins}, "row finished above column",
                              lambda i, j: f"{self.above[i][j]:.{digits}f}")


def pairwise_results(seats: Sequence[int], scores: Sequence[float],
                     winners: Sequence[int]) -> list[tuple[int, int, float]]:
    """Every pair of agents at one table as a two-player result: ``(i, j, i's result)``.

    ``seats[s]`` is the agent in seat ``s``. A winner finishes above every non-winner (the game's
    tie-breakers decide who wins); otherwise the higher score finishes above, and equal scores
    (or two shared winners) are a draw.
    """
    out = []
    won = set(winners)
    for a, b in itertools.combinations(range(len(seats)), 2):
        if (a in won) != (b in won):
            y = 1.0 if a in won else 0.0
        elif scores[a] != scores[b]:
            y = 1.0 if scores[a] > scores[b] else 0.0
        else:
            y = 0.5
        out.append((int(seats[a]), int(seats[b]), y))
    return out


def run_table_league(
    game: str,
    agents: Sequence[Any],
    deals_per_table: int = 10,
    seed: int = 0,
    bootstrap: int = 1000,
    verbose: bool = False,
    **config: Any,
) -> TableLeagueResult:
    """Play every table of distinct agents and rate them from the pairwise results.

    Every combination of ``num_players`` distinct agents is a table. A table plays each deal
    once in every cyclic rotation of its seats (so each agent plays each seat once per deal),
    and every table plays the same deals. Each game is reduced to the results of the pairs at
    its table (:func:`pairwise_results`, as Kaggle's Game Arena rates its multi-player games)
    and Bradley–Terry ratings are fitted to all of them (:func:`fit_ratings`). The intervals
    come from a bootstrap that re-draws whole games within each table, so the pairs of one game
    stay together.

    Args:
        game: ``"positano"`` or ``"rapa_nui"``.
        agents: At least ``num_players`` agent specs with distinct names.
        deals_per_table: Deals every table plays.
        seed: First deal's seed.
        bootstrap: Bootstrap resamples for the rating intervals.
        verbose: Print each table's wins as it finishes.
        **config: Game config with ``num_players`` of at least 3 (two players: :func:`run_league`).

    Raises:
        ValueError: With fewer agents than seats, repeated names, fewer than 3 players or no
            deals, before any game is played.
    """
    from tabletop_gym.agents.kinds import make_agent
    from tabletop_gym.arena.evaluation import _play

    n = int(config.get("num_players", 2))
    if n < 3:
        raise ValueError(f"a table league needs at least 3 players, got {n}; two players: "
                         "run_league()")
    for spec in agents:
        check_spec(spec)
    names = [agent_name(a) for a in agents]
    if len(names) < n:
        raise ValueError(f"{n} seats need at least {n} distinct agents, got {len(names)}")
    if len(set(names)) != len(names):
        raise ValueError(f"agent names must be distinct, got {names}")
    if deals_per_table < 1:
        raise ValueError(f"deals_per_table must be positive, got {deals_per_table}")
    k = len(agents)
    env = raw_env_factory(game)(**config)
    rng = np.random.default_rng(seed)
    tables = [list(t) for t in itertools.combinations(range(k), n)]
    games: list[dict[str, Any]] = []
    llm_stats: dict[str, dict[str, Any]] = {}
    for t, table in enumerate(tables):
        for d in range(deals_per_table):
            for r in range(n):
                seats = [table[(s + r) % n] for s in range(n)]
                players = {name: make_agent(agents[seats[s]], env.game, env.observer, rng)
                           for s, name in enumerate(env.possible_agents)}
                _play(env, players, seed + d)
                roles = {a: names[seats[s]] for s, a in enumerate(env.possible_agents)}
                for who, st in game_stats(players, roles).items():
                    add_stats(llm_stats.setdefault(who, empty_stats()), st)
                state = env.game_state
                games.append({"table": t, "seed": seed + d, "seats": [names[i] for i in seats],
                              "agents": seats, "scores": [float(x) for x in state.scores()],
                              "winners": [int(w) for w in state.winners()]})
        if verbose:
            print(f"table {[names[i] for i in table]}: {deals_per_table * n} games", flush=True)
    llm_rows = report_rows(llm_stats)
    invalid = warn_invalid(llm_rows, "this league's results are", stacklevel=2)
    pairs = [pairwise_results(g["agents"], g["scores"], g["winners"]) for g in games]
    per_game = [np.array(p, dtype=float).reshape(-1, 3) for p in pairs]

    def fit(idx: Sequence[int]) -> np.ndarray:
        rows = np.concatenate([per_game[g] for g in idx])
        return fit_ratings(k, rows[:, 0].astype(int), rows[:, 1].astype(int), rows[:, 2])

    ratings = fit(range(len(games)))
    by_table = [np.flatnonzero(np.array([g["table"] for g in games]) == t)
                for t in range(len(tables))]
    boots = np.empty((bootstrap, k))
    for b in range(bootstrap):
        idx = np.concatenate([g[rng.integers(0, g.size, g.size)] for g in by_table])
        boots[b] = fit(idx.tolist())
    lo, hi = np.percentile(boots, [2.5, 97.5], axis=0) if bootstrap else (ratings, ratings)
    above_sum = np.zeros((k, k))
    met = np.zeros((k, k), dtype=int)
    for p in pairs:
        for i, j, y in p:
            above_sum[i, j] += y
            above_sum[j, i] += 1.0 - y
            met[i, j] += 1
            met[j, i] += 1
    above = [[float(above_sum[i, j] / met[i, j]) if met[i, j] else float("nan")
              for j in range(k)] for i in range(k)]
    wins = np.zeros(k)
    played = np.zeros(k)
    for g in games:
        for s, i in enumerate(g["agents"]):
            played[i] += 1
            if s in g["winners"]:
                wins[i] += 1.0 / len(g["winners"])
    return TableLeagueResult(
        game=game, config=env.game.config.to_dict(), agents=names, tables=tables,
        deals_per_table=deals_per_table, seed=seed, ratings=[float(x) for x in ratings],
        rating_ci=[(float(a), float(b)) for a, b in zip(lo, hi, strict=True)],
        bootstrap=bootstrap, above=above, met=met.tolist(),
        win_rate=(wins / np.maximum(played, 1)).tolist(), games=games, llm=llm_rows,
        invalid=invalid)
