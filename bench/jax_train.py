"""Learner steps per second of ``tabletop_gym.jax.train`` over whole PPO iterations.

An iteration is the rollout (``num_envs × num_steps`` decisions of training games, plus the
games against random), the per-seat credit assignment and ``epochs × minibatches`` updates, in one
jitted call; learner steps are the decisions that enter the loss. The first call compiles, so it
is timed apart (``compile_and_first_s``); the rate is the median over the later iterations, in
wall-clock time (the program uses every core XLA is given).

Usage: ``python bench/jax_train.py [--game rapa_nui] [--players 2] [--num-envs 512]
[--num-steps 64] [--hidden 64 64] [--opponents self] [--seeds 1] [--iterations 5]``; prints one
JSON row. Needs the ``jax`` extra.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def measure(game: str, players: int, num_envs: int, num_steps: int, hidden: tuple[int, ...],
            opponents: str, seeds: int, iterations: int) -> dict[str, Any]:
    """Compile time and the median learner steps/s over ``iterations`` timed iterations."""
    import jax

    from tabletop_gym.jax.core import make
    from tabletop_gym.jax.train import TrainConfig, Trainer
    from tabletop_gym.provenance import git_commit

    config = TrainConfig(num_envs=num_envs, num_steps=num_steps, hidden=hidden,
                         opponents=opponents)
    trainer = Trainer(make(game, num_players=players), config)
    init, update = trainer.compiled
    runner = init(jax.random.split(jax.random.PRNGKey(0), seeds))
    jax.block_until_ready(runner)
    t0 = time.perf_counter()
    runner, m = update(runner)
    jax.block_until_ready(m)
    compile_s = time.perf_counter() - t0
    rates = []
    for _ in range(iterations):
        t0 = time.perf_counter()
        runner, m = update(runner)
        steps = int(jax.device_get(m["learner_steps"]).sum())
        rates.append(steps / (time.perf_counter() - t0))
    return {
        "game": game, "players": players, "num_envs": num_envs, "num_steps": num_steps,
        "hidden": list(hidden), "opponents": opponents, "seeds": seeds,
        "eval_envs": config.eval_envs, "epochs": config.epochs,
        "minibatches": config.minibatches, "compile_and_first_s": round(compile_s, 1),
        "learner_steps_per_s": round(statistics.median(rates)),
        "min_max": [round(min(rates)), round(max(rates))], "iterations": iterations,
        "backend": jax.default_backend(), "cpus": os.cpu_count(),
        "load_avg": [round(x, 2) for x in os.getloadavg()],
        "python": platform.python_version(), "jax": jax.__version__, "commit": git_commit(),
    }


def main(argv: list[str] | None = None) -> int:
    """Parse the flags, measure, print the row."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--game", default="rapa_nui", choices=["rapa_nui", "positano"])
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--num-envs", type=int, default=512)
    p.add_argument("--num-steps", type=int, default=64)
    p.add_argument("--hidden", type=int, nargs="+", default=[64, 64])
    p.add_argument("--opponents", default="self", choices=["self", "pool", "random"])
    p.add_argument("--seeds", type=int, default=1)
    p.add_argument("--iterations", type=int, default=5)
    a = p.parse_args(argv)
    if a.iterations < 1 or a.seeds < 1:
        p.error("--iterations and --seeds must be at least 1")
    row = measure(a.game, a.players, a.num_envs, a.num_steps, tuple(a.hidden), a.opponents,
                  a.seeds, a.iterations)
    print(json.dumps(row))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
