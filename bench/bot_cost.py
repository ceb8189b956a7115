"""CPU time of the Rapa Nui heuristic bot per decision, split by phase.

Usage: ``python bench/bot_cost.py [--games 20]``. Plays seeded games of 2, 3 and 4 players with
the bot at every seat (one observer and one bot per seat, as RapaNui-v0's opponents have), then
times ``act`` again on every recorded observation with a fresh bot of the same seed. Forced
moves (one legal action) are counted too, as the bot answers them without thinking. Reports
microseconds of CPU time (``time.process_time``) per decision, overall and per phase.
"""

from __future__ import annotations

import argparse
import pathlib
import random
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main(argv: list[str] | None = None) -> int:
    """Record the positions, time the decisions, print the table."""
    from tabletop_gym.agents.rapa_nui_heuristic import RapaNuiHeuristic
    from tabletop_gym.envs.rapa_nui.observer import RapaNuiObserver
    from tabletop_gym.envs.rapa_nui.rules import PHASES, RapaNuiGame

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=20, help="seeded games per player count")
    args = p.parse_args(argv)
    records = []
    for n in (2, 3, 4):
        game = RapaNuiGame(num_players=n)
        observer = RapaNuiObserver(game)
        for seed in range(args.games):
            bots = [RapaNuiHeuristic(game, observer, np.random.default_rng(seed * 10 + q))
                    for q in range(n)]
            state = game.new_initial_state(random.Random(seed))
            while not state.is_terminal():
                seat = state.current_player()
                obs = {"observation": observer.encode(state, seat),
                       "action_mask": observer.action_mask(state, seat)}
                records.append((n, seed, seat, state.phase(), obs))
                state.apply_action(bots[seat].act(obs))
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
