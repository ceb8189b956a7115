"""The batched search agent against the Python ISMCTS: speed and strength in the same run.

Plays seat-rotated 2-player games of ``--search`` (default ``search:jax-ppo?worlds=16``)
against ``ismcts:12:guided`` and against ``heuristic`` on Rapa Nui and Positano, on deals no
other page uses (seeds from 41000), and times every decision of both agents that had a choice
(``time.perf_counter`` around the agent's call; forced moves are played without a search and not
counted); XLA runs on one thread, as Python does. The search is compiled first for every width
it can use, so no timed decision pays for a compile (the compile time is reported apart).

Speed: *simulated continuation steps per second*: the game steps each search plays beyond the
position it decides in (the search: every step of every candidate × world game, counted inside
the jitted loop; ISMCTS: every heuristic move of its rollouts, one ``_policy_action`` call each),
divided by the agent's own decision time. Strength: the search agent's win rate (a shared win
counts one half) with its 95 % Wilson interval.

Usage: ``nice python bench/search.py [--games 40] [--search SPEC] [--games-heuristic 20]``;
writes ``bench/results/search.{md,json}``. Needs the ``jax`` extra.

Paired mode (``--paired A.json B.json``): two runs from the same first deal played the same
games, seat for seat, as far as the shorter goes; it prints A's outcome minus B's over those,
with its 95 % interval.

Table mode (``--players 4 --table ismcts:12:guided heuristic heuristic --out
bench/results/search-4p``): the search at a table of those seats, its seat rotated on each deal;
per opponent kind, how often the search finished above it (the share of that kind's seats it
outscored, a tie one half), with every agent's time per move.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys
import time
from typing import Any

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
# One core for XLA, as the Python ISMCTS has one: the comparison is per core.
os.environ.setdefault(
    "XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
)

from tabletop_gym.agents.base import choose_action  # noqa: E402
from tabletop_gym.agents.ismcts import ISMCTSAgent  # noqa: E402
from tabletop_gym.agents.kinds import make_agent  # noqa: E402
from tabletop_gym.arena.envs import raw_env_factory  # noqa: E402
from tabletop_gym.arena.stats import wilson_interval  # noqa: E402
from tabletop_gym.jax.search import SearchAgent  # noqa: E402
from tabletop_gym.provenance import metadata  # noqa: E402

RESULTS = ROOT / "bench" / "results"
FIRST_SEED = 41000
GAMES = ("rapa_nui", "positano")


class CountingISMCTS(ISMCTSAgent):
    """``ismcts:12:guided`` that counts the rollout moves it simulates."""

    steps = 0

    def _policy_action(self, d: Any, p: int) -> int:
        self.steps += 1
        return super()._policy_action(d, p)


class Clock:
    """Decision time and count of one agent over many games (choices only)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.decisions = 0
        self.steps = 0

    def row(self) -> dict[str, Any]:
        per = self.seconds / max(self.decisions, 1)
        return {"decisions": self.decisions, "seconds": round(self.seconds, 3),
                "ms_per_move": round(1000 * per, 2), "steps": self.steps,
                "steps_per_s": round(self.steps / self.seconds, 1) if self.seconds else None}


def _agent(spec: str, env: Any, rng: np.random.Generator) -> Any:
    if spec == "ismcts:12:guided":
        return CountingISMCTS(env.game, env.observer, rng, simulations=12, rollout="guided")
    return make_agent(spec, env.game, env.observer, rng)


def play(env: Any, deal: int, specs: list[str], rng: np.random.Generator,
         clocks: dict[str, Clock]) -> Any:
    """One game of ``env`` dealt by ``deal``, seat ``s`` played by ``specs[s]``; its end state.

    Every decision with a choice is timed on its spec's clock, with the continuation steps the
    agent counts (forced moves are played without a search and not counted).
    """
    agents = {name: _agent(specs[s], env, rng) for s, name in enumerate(env.possible_agents)}
    env.reset(seed=deal)
    while not env.game_state.is_terminal():
        name = env.agent_selection
        agent = agents[name]
        choice = len(env.game_state.legal_actions()) > 1
        before = getattr(agent, "steps", 0)
        start = time.perf_counter()
        action = choose_action(agent, env, name)
        took = time.perf_counter() - start
        if choice:
            clock = clocks[specs[env.possible_agents.index(name)]]
            clock.seconds += took
            clock.decisions += 1
            clock.steps += getattr(agent, "steps", 0) - before
        env.step(action)
    return env.game_state


def match(game: str, search: str, opponent: str, games: int,
          clocks: dict[str, Clock], first_deal: int = FIRST_SEED) -> dict[str, Any]:
    """Seat-rotated games of ``search`` against ``opponent``; the search's outcomes.

    The games are dealt by ``first_deal``, ``first_deal + 1``, ... (two games, one per seat, a
    deal); the agents' generator is seeded by ``first_deal`` too, so runs on disjoint deals are
    independent and can be pooled (``--pool``).
    """
    env = raw_env_factory(game)(num_players=2)
    rng = np.random.default_rng(first_deal)
    outcomes: list[float] = []
    diffs: list[float] = []
    for i in range(games):
        deal, seat = first_deal + i // 2, i % 2
        specs = [search if s == seat else opponent for s in range(2)]
        state = play(env, deal, specs, rng, clocks)
        winners = state.winners()
        outcomes.append(1.0 / len(winners) if seat in winners else 0.0)
        sc = state.scores()
        diffs.append(float(sc[seat] - sc[1 - seat]))
    rate = float(np.mean(outcomes))
    lo, hi = wilson_interval(rate, len(outcomes))
    return {"game": game, "search": search, "opponent": opponent, "games": games,
            "win_rate": round(rate, 3), "win_ci": [round(lo, 3), round(hi, 3)],
            "mean_score_diff": round(float(np.mean(diffs)), 2), "first_deal": first_deal,
            "outcomes": outcomes, "score_diffs": diffs}


def finished_above(scores: Any, seat: int, others: dict[int, str]) -> dict[str, float]:
    """Per opponent kind, the share of its seats that ``seat`` finished above (a tie one half).

    Args:
        scores: Every seat's final score.
        seat: The search agent's seat.
        others: The other seats and the spec each plays.
    """
    out: dict[str, list[float]] = {}
    for s, spec in others.items():
        mine, theirs = float(scores[seat]), float(scores[s])
        out.setdefault(spec, []).append(1.0 if mine > theirs else 0.5 if mine == theirs else 0.0)
    return {spec: float(np.mean(v)) for spec, v in out.items()}


def table_match(game: str, players: int, search: str, opponents: list[str], games: int,
                clocks: dict[str, Clock], first_deal: int = FIRST_SEED) -> list[dict[str, Any]]:
    """Games of ``search`` at a table of ``opponents``, the search's seat rotated on each deal.

    The other seats play ``opponents`` in that order, from the seat after the search's. The
    result per opponent kind is the finished-above rate: the mean over games of the share of that
    kind's seats the search finished above (ties one half), with a normal 95 % interval over
    games. The games are dealt by ``first_deal``, ``first_deal + 1``, ... (``players`` games, one
    per seat, a deal), and the agents' generator is seeded by ``first_deal``: runs on disjoint
    deals are independent and can be pooled (``--pool``).
    """
    if len(opponents) != players - 1:
        raise ValueError(f"{players} seats need {players - 1} opponents, got {opponents}")
    env = raw_env_factory(game)(num_players=players)
    rng = np.random.default_rng(first_deal)
    per_game: dict[str, list[float]] = {}
    wins: list[float] = []
    seats: list[int] = []
    for i in range(games):
        deal, seat = first_deal + i // players, i % players
        seats.append(seat)
        by_seat = {(seat + 1 + k) % players: opp for k, opp in enumerate(opponents)}
        by_seat[seat] = search
        specs = [by_seat[s] for s in range(players)]
        state = play(env, deal, specs, rng, clocks)
        winners = state.winners()
        wins.append(1.0 / len(winners) if seat in winners else 0.0)
        above = finished_above(state.scores(), seat,
                               {s: x for s, x in enumerate(specs) if s != seat})
        for spec, v in above.items():
            per_game.setdefault(spec, []).append(v)
    return [{**table_row(game, players, search, [search, *opponents], spec, vals, wins),
             "first_deal": first_deal, "search_seats": seats, "finished_above_per_game": vals,
             "search_wins": wins} for spec, vals in per_game.items()]


def table_row(game: str, players: int, search: str, table: list[str], opponent: str,
              above: list[float], wins: list[float]) -> dict[str, Any]:
    """A table's result against one opponent kind: the finished-above rate over ``above``
    (one value a game) with its normal 95 % interval, and the search's win rate."""
    x = np.asarray(above, float)
    half = 1.959964 * x.std(ddof=1) / np.sqrt(x.size) if x.size > 1 else float("nan")
    return {"game": game, "players": players, "search": search, "opponent": opponent,
            "table": table, "games": int(x.size),
            "finished_above": round(float(x.mean()), 3),
            "finished_above_ci": [round(float(x.mean() - half), 3),
                                  round(float(x.mean() + half), 3)],
            "search_win_rate": round(float(np.mean(wins)), 3)}


def compile_search(game: str, players: int, spec: str) -> float:
    """Seconds to build the search agent ``spec`` and compile it for every width it can use."""
    env = raw_env_factory(game)(num_players=players)
    env.reset(seed=0)
    start = time.perf_counter()
    agent = make_agent(spec, env.game, env.observer, np.random.default_rng(0))
    assert isinstance(agent, SearchAgent)
    agent.warm_up(env.game_state)
    return time.perf_counter() - start


def write(out: str, doc: dict[str, Any], lines: list[str]) -> None:
    """Write ``doc`` to ``<out>.json`` and the page, with the compile times, to ``<out>.md``."""
    path = pathlib.Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.with_suffix(".json").write_text(json.dumps(doc, indent=1) + "\n")
    def seconds(compile_s: float | list[float]) -> str:
        return " / ".join(map(str, compile_s)) if isinstance(compile_s, list) else str(compile_s)

    lines = [*lines, "", "Search compile time (once per process, not in the timings): "
             + ", ".join(f"{sp['game']} {seconds(sp['compile_s'])} s" for sp in doc["speed"])
             + "."]
    path.with_suffix(".md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def main_table(a: argparse.Namespace, argv: list[str] | None) -> int:
    """The table mode (``--players`` above 2): finished-above rates, speed of every agent."""
    rows: list[dict[str, Any]] = []
    speed: list[dict[str, Any]] = []
    for game in a.games_list:
        compile_s = compile_search(game, a.players, a.search)
        clocks = {spec: Clock() for spec in {a.search, *a.table}}
        rows += table_match(game, a.players, a.search, list(a.table), a.games, clocks,
                            a.first_deal)
        speed.append({"game": game, "players": a.players, "compile_s": round(compile_s, 1),
                      **{spec: c.row() for spec, c in clocks.items()}})
        print(json.dumps(rows[-1]), json.dumps(speed[-1]), flush=True)
    doc = {"command": "python bench/search.py " + " ".join(argv or sys.argv[1:]),
           "tables": rows, "speed": speed, "provenance": metadata()}
    write_tables(a.out, doc, f"# Batched search at {a.players}-player tables (CPU, same run)")
    return 0


def write_tables(out: str, doc: dict[str, Any], title: str,
                 runs: list[str] | None = None) -> None:
    """The table page: each opponent kind's finished-above rate, then every agent's speed."""
    lines = [title, "", f"Command: `{doc['command']}`", ""]
    if runs:
        lines += ["Runs pooled (each timed every agent in the same run):", "", *runs, ""]
    lines += ["| game | table | opponent | games | finished above it [95 %] | search's win rate |",
              "|---|---|---|---|---|---|"]
    for r in doc["tables"]:
        lines.append(f"| {r['game']} | " + ", ".join(f"`{x}`" for x in r["table"]) +
                     f" | `{r['opponent']}` | {r['games']} | {r['finished_above']:.3f} "
                     f"[{r['finished_above_ci'][0]:.3f}, {r['finished_above_ci'][1]:.3f}] | "
                     f"{r['search_win_rate']:.3f} |")
    lines += ["", "| game | agent | decisions timed | ms per move | continuation steps/s |",
              "|---|---|---|---|---|"]
    for sp in doc["speed"]:
        table = next(r["table"] for r in doc["tables"] if r["game"] == sp["game"])
        for spec in dict.fromkeys(table):
            c = sp[spec]
            lines.append(f"| {sp['game']} | `{spec}` | {c['decisions']} | {c['ms_per_move']} | "
                         f"{c['steps_per_s']} |")
    write(out, doc, lines)


def pool_tables(docs: list[tuple[str, dict[str, Any]]]) -> tuple[list[dict[str, Any]],
                                                                  list[dict[str, Any]]]:
    """The tables and speed rows of several table-mode files, pooled per (game, table, opponent).

    Returns:
        ``(tables, speed)``: per key, the games of every file (finished-above rate with its
        normal interval over all of them, the search's win rate, the files' first deals); per
        game, each agent's decisions, seconds and steps summed over the files.

    Raises:
        ValueError: A file lacks per-game values (written before they were kept: run it again),
            or two files share a deal of a table.
    """
    pooled: dict[tuple[Any, ...], dict[str, Any]] = {}
    for name, doc in docs:
        for r in doc.get("tables", []):
            if "finished_above_per_game" not in r:
                raise ValueError(f"{name}: the {r['game']} table has no per-game values (a file "
                                 "written before they were kept); run it again to pool it")
            key = (r["game"], r["players"], r["search"], tuple(r["table"]), r["opponent"])
            m = pooled.setdefault(key, {"above": [], "wins": [], "deals": set(),
                                        "first_deals": []})
            first = int(r["first_deal"])
            deals = set(range(first, first + -(-int(r["games"]) // int(r["players"]))))
            if m["deals"] & deals:
                raise ValueError(f"{name}: the {r['game']} table repeats deals of an earlier "
                                 f"file (deals {min(m['deals'] & deals)}...); pool files of "
                                 "disjoint deals")
            m["deals"] |= deals
            m["first_deals"].append(first)
            m["above"] += list(r["finished_above_per_game"])
            m["wins"] += list(r["search_wins"])
    tables = [{**table_row(game, players, search, list(table), opponent, m["above"], m["wins"]),
               "first_deals": m["first_deals"]}
              for (game, players, search, table, opponent), m in pooled.items()]
    speed = []
    for game, runs in speed_by_game(docs).items():
        agents = dict.fromkeys(k for sp in runs for k, c in sp.items() if isinstance(c, dict))
        speed.append({"game": game, "players": runs[0]["players"],
                      "compile_s": [sp["compile_s"] for sp in runs],
                      **{spec: pooled_clock([sp[spec] for sp in runs]) for spec in agents}})
    return tables, speed


def speed_by_game(docs: list[tuple[str, dict[str, Any]]]) -> dict[str, list[dict[str, Any]]]:
    """Each game's speed rows over the files, in the order given."""
    runs: dict[str, list[dict[str, Any]]] = {}
    for _, doc in docs:
        for sp in doc.get("speed", []):
            runs.setdefault(sp["game"], []).append(sp)
    return runs


def pooled_clock(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """One agent's timings summed over runs, as :meth:`Clock.row` gives them (seconds to the
    millisecond first, as each run's file holds them)."""
    clock = Clock()
    clock.decisions = sum(int(r["decisions"]) for r in rows)
    clock.seconds = round(sum(float(r["seconds"]) for r in rows), 3)
    clock.steps = sum(int(r["steps"]) for r in rows)
    return clock.row()


def main(argv: list[str] | None = None) -> int:
    """Compile, play the matches, write the table."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--search", default="search:jax-ppo?worlds=16")
    p.add_argument("--games", type=int, default=40,
                   help="games against ismcts:12:guided per game (even: both seats per deal)")
    p.add_argument("--games-heuristic", type=int, default=20,
                   help="games against the heuristic per game")
    p.add_argument("--games-list", nargs="+", default=list(GAMES), choices=GAMES)
    p.add_argument("--out", default=str(RESULTS / "search"))
    p.add_argument("--players", type=int, default=2,
                   help="above 2: the table mode, the search against --table's seats")
    p.add_argument("--table", nargs="+", default=["ismcts:12:guided", "heuristic", "heuristic"],
                   help="table mode: the other seats' specs, in seat order after the search's")
    p.add_argument("--first-deal", type=int, default=FIRST_SEED,
                   help="the first deal (and the agents' generator's seed)")
    p.add_argument("--pool", nargs="+", metavar="JSON",
                   help="pool the matches of these result files (disjoint deals) into --out")
    p.add_argument("--paired", nargs=2, metavar=("A", "B"),
                   help="two result files' common games (same deals and seats): A's outcome "
                        "minus B's, with its 95 %% interval; prints, writes nothing")
    a = p.parse_args(argv)
    if a.paired:
        try:
            docs = [json.loads(pathlib.Path(name).read_text()) for name in a.paired]
            for line in paired(*docs):
                print(line)
        except (OSError, json.JSONDecodeError, ValueError) as e:
            raise SystemExit(f"--paired: {e}") from e
        return 0
    if a.pool:
        return main_pool(a, argv)
    if a.players > 2:
        return main_table(a, argv)
    rows: list[dict[str, Any]] = []
    speed: list[dict[str, Any]] = []
    for game in a.games_list:
        compile_s = compile_search(game, 2, a.search)
        clocks = {a.search: Clock(), "ismcts:12:guided": Clock(), "heuristic": Clock()}
        rows.append(match(game, a.search, "ismcts:12:guided", a.games, clocks, a.first_deal))
        if a.games_heuristic:
            rows.append(match(game, a.search, "heuristic", a.games_heuristic, clocks,
                              a.first_deal))
        s, m = clocks[a.search].row(), clocks["ismcts:12:guided"].row()
        ratio = (s["steps_per_s"] / m["steps_per_s"]
                 if s["steps_per_s"] and m["steps_per_s"] else None)
        speed.append({"game": game, "compile_s": round(compile_s, 1), "search": s,
                      "ismcts:12:guided": m, "heuristic": clocks["heuristic"].row(),
                      "steps_per_s_ratio": round(ratio, 2) if ratio else None})
        for r in rows[-2:]:
            print(json.dumps(r), flush=True)
        print(json.dumps(speed[-1]), flush=True)
    doc = {"command": "python bench/search.py " + " ".join(argv or sys.argv[1:]),
           "matches": rows, "speed": speed, "provenance": metadata()}
    write_matches(a.out, doc,
                  "# Batched search against the Python ISMCTS (2 players, CPU, same run)")
    return 0


def deals_of(row: dict[str, Any]) -> set[int]:
    """The deals a match row's games were dealt by (files before ``first_deal``: from 41000)."""
    first = int(row.get("first_deal", FIRST_SEED))
    return set(range(first, first + (int(row["games"]) + 1) // 2))


def legacy_halves(name: str, row: dict[str, Any]) -> int:
    """The half points won in a match row written before per-game outcomes were kept.

    Such a file holds the win rate rounded to 3 decimals; it is used only where exactly one count
    of half points over its games rounds to that rate.

    Raises:
        ValueError: More than one count (or none) rounds to the file's rate.
    """
    games, rate = int(row["games"]), float(row["win_rate"])
    fits = [k for k in range(2 * games + 1) if round(k / (2 * games), 3) == rate]
    if len(fits) != 1:
        raise ValueError(f"{name}: the {row['game']} match has no per-game outcomes and its "
                         f"rate {rate} over {games} games fits {len(fits)} win counts")
    return fits[0]


def pool_rows(docs: list[tuple[str, dict[str, Any]]]) -> tuple[list[dict[str, Any]],
                                                                 list[dict[str, Any]]]:
    """The matches and speed rows of several result files, pooled per (game, search, opponent).

    Args:
        docs: ``(name, document)`` of each file, in the order given.

    Returns:
        ``(matches, speed)``: per match key, the games of every file (win rate and Wilson
        interval over all of them, the mean score difference, the files' first deals); per game,
        each agent's decisions, seconds and steps summed over the files (each file timed both
        agents in its own run, on the same machine).

    Raises:
        ValueError: A file lacks per-game outcomes, or two files share a deal of a match.
    """
    matches: dict[tuple[str, str, str], dict[str, Any]] = {}
    for name, doc in docs:
        for r in doc.get("matches", []):
            key = (r["game"], r["search"], r["opponent"])
            m = matches.setdefault(key, {"outcomes": [], "diffs": [], "deals": set(),
                                         "first_deals": []})
            deals = deals_of(r)
            if m["deals"] & deals:
                raise ValueError(f"{name}: the {r['game']} match against {r['opponent']} "
                                 f"repeats deals of an earlier file (deals "
                                 f"{min(m['deals'] & deals)}...); pool files of disjoint deals")
            m["deals"] |= deals
            m["first_deals"].append(int(r.get("first_deal", FIRST_SEED)))
            if "outcomes" in r:
                m["outcomes"] += list(r["outcomes"])
                m["diffs"] += list(r["score_diffs"])
            else:
                halves = legacy_halves(name, r)
                # A shared win counts one half: ``halves`` is the count of half points, so the
                # games are that many halves spread as whole wins and at most one tie.
                m["outcomes"] += ([1.0] * (halves // 2) + [0.5] * (halves % 2)
                                  + [0.0] * (r["games"] - halves // 2 - halves % 2))
                # Only the mean is reported, so the file's mean stands for each of its games.
                m["diffs"] += [float(r["mean_score_diff"])] * r["games"]
    rows = []
    for (game, search, opponent), m in matches.items():
        rate = float(np.mean(m["outcomes"]))
        lo, hi = wilson_interval(rate, len(m["outcomes"]))
        rows.append({"game": game, "search": search, "opponent": opponent,
                     "games": len(m["outcomes"]), "win_rate": round(rate, 3),
                     "win_ci": [round(lo, 3), round(hi, 3)],
                     "mean_score_diff": round(float(np.mean(m["diffs"])), 2),
                     "first_deals": m["first_deals"]})
    speed = []
    for game, runs in speed_by_game(docs).items():
        out: dict[str, Any] = {"game": game, "compile_s": [sp["compile_s"] for sp in runs],
               **{agent: pooled_clock([sp[agent] for sp in runs])
                  for agent in ("search", "ismcts:12:guided", "heuristic")}}
        s, m2 = out["search"]["steps_per_s"], out["ismcts:12:guided"]["steps_per_s"]
        out["steps_per_s_ratio"] = round(s / m2, 2) if s and m2 else None
        speed.append(out)
    return rows, speed


def paired(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    """Per game and opponent, the mean of A's outcome minus B's over the games both played.

    A run plays deal ``first_deal + i // 2`` from seat ``i % 2`` as its game ``i``, so two runs
    from the same first deal share their first ``min(games)`` games, seat for seat. The interval
    is the normal one over those per-game differences.

    Raises:
        ValueError: When the files share no match (game and opponent) from the same first deal,
            or a shared match has no per-game outcomes.
    """
    lines = []
    for ra in a["matches"]:
        for rb in b["matches"]:
            if (ra["game"], ra["opponent"]) != (rb["game"], rb["opponent"]) or (
                    ra.get("first_deal", FIRST_SEED) != rb.get("first_deal", FIRST_SEED)):
                continue
            if "outcomes" not in ra or "outcomes" not in rb:
                raise ValueError(f"the {ra['game']} match against {ra['opponent']} has no "
                                 "per-game outcomes in both files")
            n = min(len(ra["outcomes"]), len(rb["outcomes"]))
            d = np.asarray(ra["outcomes"][:n], float) - np.asarray(rb["outcomes"][:n], float)
            half = 1.96 * float(d.std(ddof=1)) / np.sqrt(n) if n > 1 else float("nan")
            lines.append(f"{ra['game']} against {ra['opponent']}, {n} common games from deal "
                         f"{ra.get('first_deal', FIRST_SEED)}: `{ra['search']}` "
                         f"{np.mean(ra['outcomes'][:n]):.3f}, `{rb['search']}` "
                         f"{np.mean(rb['outcomes'][:n]):.3f}, paired difference "
                         f"{d.mean():+.3f} ± {half:.3f}")
    if not lines:
        raise ValueError("the two files share no match (game, opponent and first deal)")
    return lines


def main_pool(a: argparse.Namespace, argv: list[str] | None) -> int:
    """The pool mode: several result files on disjoint deals as one (2-player or tables)."""
    docs = []
    for name in a.pool:
        try:
            docs.append((name, json.loads(pathlib.Path(name).read_text())))
        except (OSError, json.JSONDecodeError) as e:
            raise SystemExit(f"--pool: cannot read {name}: {e}") from e
    pooled = [{"file": n, "command": str(d.get("command")),
               "commit": str(d.get("provenance", {}).get("commit"))} for n, d in docs]
    runs = [f"* `{p['command']}` (commit `{p['commit'][:7]}`)" for p in pooled]
    kinds = {"tables" in d for _, d in docs}
    if len(kinds) > 1:
        raise SystemExit("--pool: give either 2-player files or table files, not both")
    if kinds == {True}:
        try:
            tables, speed = pool_tables(docs)
        except ValueError as e:
            raise SystemExit(f"--pool: {e}") from e
        players = tables[0]["players"] if tables else "n"
        write_tables(a.out, {"command": "python bench/search.py " + " ".join(argv or
                                                                             sys.argv[1:]),
                             "pooled": pooled, "tables": tables, "speed": speed,
                             "provenance": metadata()},
                     f"# Batched search at {players}-player tables (CPU, pooled runs)", runs)
        return 0
    try:
        rows, speed = pool_rows(docs)
    except ValueError as e:
        raise SystemExit(f"--pool: {e}") from e
    doc = {"command": "python bench/search.py " + " ".join(argv or sys.argv[1:]),
           "pooled": pooled, "matches": rows, "speed": speed, "provenance": metadata()}
    title = "# Batched search against the Python ISMCTS (2 players, CPU, pooled runs)"
    write_matches(a.out, doc, title, runs)
    return 0


def write_matches(out: str, doc: dict[str, Any], title: str,
                  runs: list[str] | None = None) -> None:
    """The 2-player page: the matches, then each game's speed of both agents."""
    search = doc["matches"][0]["search"] if doc["matches"] else "search"
    rows, speed = doc["matches"], doc["speed"]
    lines = [title, "", f"Command: `{doc['command']}`", ""]
    if runs:
        lines += ["Runs pooled (each timed both agents in the same run):", "", *runs, ""]
    lines += [
             "| game | search | opponent | games | win rate [95 % Wilson] | mean score diff |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['game']} | `{r['search']}` | `{r['opponent']}` | {r['games']} | "
                     f"{r['win_rate']:.3f} [{r['win_ci'][0]:.3f}, {r['win_ci'][1]:.3f}] | "
                     f"{r['mean_score_diff']:+.2f} |")
    lines += ["", "| game | agent | decisions timed | ms per move | continuation steps/s | "
              "ratio |", "|---|---|---|---|---|---|"]
    for sp in speed:
        for name in (search, "ismcts:12:guided"):
            c = sp["search" if name == search else name]
            ratio = sp["steps_per_s_ratio"] if name == search else 1.0
            lines.append(f"| {sp['game']} | `{name}` | {c['decisions']} | {c['ms_per_move']} | "
                         f"{c['steps_per_s']} | {ratio} |")
    write(out, doc, lines)


if __name__ == "__main__":
    raise SystemExit(main())
