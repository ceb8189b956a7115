"""Evaluate a saved MaskablePPO model against the random and heuristic bots, seats rotated.

Usage: python examples/evaluate_saved_model.py MODEL.zip [--game rapa_nui] [--players 2]
       [--games 200] [--out runs/eval]
"""

from __future__ import annotations

import argparse

from sb3_contrib import MaskablePPO

from tabletop_gym.arena.evaluation import evaluate, format_table, save_results


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("--game", default="rapa_nui", choices=["rapa_nui", "positano"])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    model = MaskablePPO.load(args.model, device="cpu")
    results = []
    for opponent in ("random", "heuristic"):
        res = evaluate(args.game, model, opponent, n_games=args.games, seed=0,
                       num_players=args.players)
        res.candidate = "model"
        results.append(res)
    print(format_table(results))
    if args.out:
        for path in save_results(results, args.out):
            print(f"saved {path}")


if __name__ == "__main__":
    main()
