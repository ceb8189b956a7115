"""CPU time of the Rapa Nui heuristic bot per decision, split by phase.

Usage: ``python bench/bot_cost.py [--games 20] [--warmup 200] [--random-seat]``. Plays seeded
games of 2, 3 and 4 players with the bot at every seat (one observer and one bot per seat, as
RapaNui-v0's opponents have) and records every position the bots decide in; with
``--random-seat`` one seat per game (rotating) plays uniformly random legal moves instead, as
an untrained learner does in RapaNui-v0, and only the bots' positions are recorded.

The bots of a game config share memo tables of pure valuations, which fill as play goes on. So
that the timing neither profits from the recorded games having filled them nor pays for an
empty start, the tables are emptied after recording and refilled by ``--warmup`` other games
per player count (seeds 10000 on), as a long training run has them. Then ``act`` is timed
again on every recorded observation with a fresh bot of the same seed. Forced moves (one legal
action) are counted too, as the bot answers them without thinking. Reports microseconds of CPU
time (``time.process_time``) per decision, overall and per phase.
"""

from __future__ import annotations

import argparse
import pathlib
import random
import sys
import time
from typing import Any

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def play(game: Any, observer: Any, seed: int, random_seat: bool) -> list[Any]:
    """One seeded game: ``(n, seed, seat, phase, observation)`` of every bot decision.

    With ``random_seat``, seat ``seed % n`` plays uniformly random legal moves.
    """
    from tabletop_gym.envs.rapa_nui.bot import RapaNuiHeuristic

    n = game.num_players
    bots = [RapaNuiHeuristic(game, observer, np.random.default_rng(seed * 10 + q))
            for q in range(n)]
    learner = seed % n if random_seat else -1
    moves = random.Random(seed + 1)
    state = game.new_initial_state(random.Random(seed))
    records = []
    while not state.is_terminal():
        seat = state.current_player()
        if seat == learner:
            state.apply_action(moves.choice(state.legal_actions()))
            continue
        obs = {"observation": observer.encode(state, seat),
               "action_mask": observer.action_mask(state, seat)}
        records.append((n, seed, seat, state.phase(), obs))
        state.apply_action(bots[seat].act(obs))
    return records


def main(argv: list[str] | None = None) -> int:
    """Record the positions, refill the tables, time the decisions, print the table."""
    from tabletop_gym.envs.rapa_nui.bot import RapaNuiHeuristic, clear_memo_tables
    from tabletop_gym.envs.rapa_nui.observer import RapaNuiObserver
    from tabletop_gym.envs.rapa_nui.rules import PHASES, RapaNuiGame

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=20, help="seeded games per player count")
    p.add_argument("--warmup", type=int, default=200,
                   help="games per player count that fill the memo tables before the timing")
    p.add_argument("--random-seat", action="store_true",
                   help="one seat per game plays random legal moves (RapaNui-v0's learner)")
    args = p.parse_args(argv)
    records: list[Any] = []
    for n in (2, 3, 4):
        game = RapaNuiGame(num_players=n)
        observer = RapaNuiObserver(game)
        for seed in range(args.games):
            records += play(game, observer, seed, args.random_seat)
    clear_memo_tables()
    for n in (2, 3, 4):
        game = RapaNuiGame(num_players=n)
        observer = RapaNuiObserver(game)
        for seed in range(10_000, 10_000 + args.warmup):
            play(game, observer, seed, args.random_seat)
    spent: dict[str, float] = {}
    count: dict[str, int] = {}
    bots_by_game: dict[tuple[int, int], list[RapaNuiHeuristic]] = {}
    clock = time.process_time
    for n, seed, seat, phase, obs in records:
        key = (n, seed)
        if key not in bots_by_game:
            game = RapaNuiGame(num_players=n)
            observer = RapaNuiObserver(game)
            bots_by_game[key] = [
                RapaNuiHeuristic(game, observer, np.random.default_rng(seed * 10 + q))
                for q in range(n)]
        bot = bots_by_game[key][seat]
        t0 = clock()
        bot.act(obs)
        spent[phase] = spent.get(phase, 0.0) + clock() - t0
        count[phase] = count.get(phase, 0) + 1
    total = sum(spent.values())
    decisions = sum(count.values())
    print(f"{decisions} decisions of {3 * args.games} games: "
          f"{1e6 * total / decisions:.1f} µs of CPU per decision")
    print("| phase | decisions | µs per decision | share of the bot's time |")
    print("|---|---|---|---|")
    for phase in PHASES:
        if phase in count:
            print(f"| {phase} | {count[phase]} | {1e6 * spent[phase] / count[phase]:.1f} | "
                  f"{100 * spent[phase] / total:.0f} % |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
