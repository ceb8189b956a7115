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


def match(game: str, search: str, opponent: str, games: int,
          clocks: dict[str, Clock]) -> dict[str, Any]:
    """Seat-rotated games of ``search`` against ``opponent``; the search's outcomes."""
    env = raw_env_factory(game)(num_players=2)
    rng = np.random.default_rng(FIRST_SEED)
    outcomes: list[float] = []
    diffs: list[float] = []
    for i in range(games):
        deal, seat = FIRST_SEED + i // 2, i % 2
        agents = {name: _agent(search if s == seat else opponent, env, rng)
                  for s, name in enumerate(env.possible_agents)}
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
                clock = clocks[search if isinstance(agent, SearchAgent) else opponent]
                clock.seconds += took
                clock.decisions += 1
                clock.steps += getattr(agent, "steps", 0) - before
            env.step(action)
        state = env.game_state
        winners = state.winners()
        outcomes.append(1.0 / len(winners) if seat in winners else 0.0)
        sc = state.scores()
        diffs.append(float(sc[seat] - sc[1 - seat]))
    rate = float(np.mean(outcomes))
    lo, hi = wilson_interval(rate, len(outcomes))
    return {"game": game, "search": search, "opponent": opponent, "games": games,
            "win_rate": round(rate, 3), "win_ci": [round(lo, 3), round(hi, 3)],
            "mean_score_diff": round(float(np.mean(diffs)), 2)}


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
    a = p.parse_args(argv)
    rows: list[dict[str, Any]] = []
    speed: list[dict[str, Any]] = []
    for game in a.games_list:
        env = raw_env_factory(game)(num_players=2)
        env.reset(seed=0)
        start = time.perf_counter()
        agent = make_agent(a.search, env.game, env.observer, np.random.default_rng(0))
        assert isinstance(agent, SearchAgent)
        agent.warm_up(env.game_state)
        compile_s = time.perf_counter() - start
        clocks = {a.search: Clock(), "ismcts:12:guided": Clock(), "heuristic": Clock()}
        rows.append(match(game, a.search, "ismcts:12:guided", a.games, clocks))
        if a.games_heuristic:
            rows.append(match(game, a.search, "heuristic", a.games_heuristic, clocks))
        s, m = clocks[a.search].row(), clocks["ismcts:12:guided"].row()
        ratio = (s["steps_per_s"] / m["steps_per_s"]
                 if s["steps_per_s"] and m["steps_per_s"] else None)
        speed.append({"game": game, "compile_s": round(compile_s, 1), "search": s,
                      "ismcts:12:guided": m, "heuristic": clocks["heuristic"].row(),
                      "steps_per_s_ratio": round(ratio, 2) if ratio else None})
        for r in rows[-2:]:
            print(json.dumps(r), flush=True)
        print(json.dumps(speed[-1]), flush=True)
    out = pathlib.Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    doc = {"command": "python bench/search.py " + " ".join(argv or sys.argv[1:]),
           "matches": rows, "speed": speed, "provenance": metadata()}
    out.with_suffix(".json").write_text(json.dumps(doc, indent=1) + "\n")
    lines = ["# Batched search against the Python ISMCTS (2 players, CPU, same run)", "",
             f"Command: `{doc['command']}`", "",
             "| game | search | opponent | games | win rate [95 % Wilson] | mean score diff |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['game']} | `{r['search']}` | `{r['opponent']}` | {r['games']} | "
                     f"{r['win_rate']:.3f} [{r['win_ci'][0]:.3f}, {r['win_ci'][1]:.3f}] | "
                     f"{r['mean_score_diff']:+.2f} |")
    lines += ["", "| game | agent | decisions timed | ms per move | continuation steps/s | "
              "ratio |", "|---|---|---|---|---|---|"]
    for sp in speed:
        for name in (a.search, "ismcts:12:guided"):
            c = sp["search" if name == a.search else name]
            ratio = sp["steps_per_s_ratio"] if name == a.search else 1.0
            lines.append(f"| {sp['game']} | `{name}` | {c['decisions']} | {c['ms_per_move']} | "
                         f"{c['steps_per_s']} | {ratio} |")
    lines += ["", "Search compile time (once per process, not in the timings): " +
              ", ".join(f"{sp['game']} {sp['compile_s']} s" for sp in speed) + "."]
    out.with_suffix(".md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
