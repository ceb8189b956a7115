"""Cost of handing out the acting agent's action mask read-only, per AEC step.

The AEC env builds one int8 mask per step and marks it read-only before it goes into
``info["action_mask"]`` (so no caller can write into the env's own buffer). This script times
that flag against the same step without it, and against the copy it replaced as the alternative,
with a whole random-play step of each game for scale.

Usage: ``python bench/mask_cost.py [--number 200000]``; prints one line per figure.
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import timeit

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def per_call_ns(stmt: str, number: int) -> float:
    """Best of 7 timings of ``stmt`` (a mask ``m`` is set up), in nanoseconds per call."""
    setup = "import numpy as np; m = np.zeros(192, dtype=np.int8)"
    return min(timeit.repeat(stmt, setup, number=number, repeat=7)) / number * 1e9


def step_us(make_env, steps: int = 20000) -> float:
    """Mean microseconds per AEC step of random legal play."""
    import time

    env = make_env()
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    done = 0
    start = time.perf_counter()
    while done < steps:
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            if not env.agents:
                env.reset()
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        done += 1
    return (time.perf_counter() - start) / steps * 1e6


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--number", type=int, default=200_000)
    args = parser.parse_args()
    flag = per_call_ns("m.setflags(write=False)", args.number)
    copy = per_call_ns("m.copy()", args.number)
    from tabletop_gym.envs import positano_v0, rapa_nui_v0

    pos = step_us(lambda: positano_v0.env(num_players=4))
    rapa = step_us(lambda: rapa_nui_v0.env(num_players=3))
    print(f"read-only flag per step: {flag:.0f} ns (a copy instead: {copy:.0f} ns)")
    print(f"AEC step, random play: Positano 4p {pos:.1f} us, Rapa Nui 3p {rapa:.1f} us")
    print(f"flag share of a step: Positano {flag / 10 / pos:.2f} %, Rapa Nui "
          f"{flag / 10 / rapa:.2f} %")


if __name__ == "__main__":
    main()
