"""Instructions per step of one env loop in this checkout and in others, counted by valgrind.

Usage: ``python bench/icount.py WORKLOAD [--steps 8000] [--trees BASE_TREE ...]`` with
``WORKLOAD`` one of ``aec:GAME:N`` (the public AEC env, as ``bench/run.py``'s ``aec`` rows play
it), ``par:GAME:N`` (the parallel env) or ``gym:ENV_ID`` (the single-agent view, opponents
included), for example ``aec:positano:1`` or ``gym:RapaNui-v0``. ``--trees`` adds checkouts to
compare against (for example made by ``git worktree add BASE_TREE <commit>``); this checkout is
always counted, last.

A shared machine makes wall-clock and CPU-time comparisons of a few per cent noisy (the paired
runs of ``bench/compare.py`` spread by ±10 % and more here). The count of instructions a fixed
loop executes does not depend on the load: each tree plays the same games (seeds 0, 1, ...,
random legal actions from ``numpy.random.default_rng(0)``, ``PYTHONHASHSEED=0``) under
``valgrind --tool=cachegrind --cache-sim=no``, once for ``--warm-up`` steps (a quarter of
``--steps`` unless given) and once for ``--steps`` steps; the difference over the steps between
is the figure, so start-up, imports and each game's first-use caches cancel.
Instructions are not time (a cache miss or a numpy call weighs differently), so this answers
"does the change make the loop do more work" and ``bench/run.py`` answers "how fast". Needs
``valgrind`` on the PATH (Debian: ``apt-get install valgrind``); about a minute per 10,000 steps.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import re
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
_MOD = 2**61 - 1


def play(workload: str, steps: int) -> tuple[int, int]:
    """Play ``steps`` agent steps (joint steps for ``par``) of ``workload``.

    Returns:
        The games begun and a checksum of the actions taken (the same in every checkout whose
        rules deal and play the same games).
    """
    import numpy as np

    rng = np.random.default_rng(0)
    kind, _, rest = workload.partition(":")
    done = 0
    seed = 0
    check = 0
    if kind == "gym":
        import gymnasium

        import tabletop_gym  # noqa: F401  (registers the ids)

        env = gymnasium.make(rest)
        while done < steps:
            _, info = env.reset(seed=seed)
            seed += 1
            over = False
            while not over and done < steps:
                legal = np.flatnonzero(info["action_mask"])
                action = int(legal[rng.integers(legal.size)])
                _, _, term, trunc, info = env.step(action)
                check = (check * 31 + action) % _MOD
                over = term or trunc
                done += 1
        return seed, check
    from tabletop_gym.registry import game_spec

    game, _, n = rest.partition(":")
    mod = game_spec(game).envs()
    if kind == "aec":
        aec = mod.env(num_players=int(n))
        while done < steps:
            aec.reset(seed=seed)
            seed += 1
            for _agent in aec.agent_iter():
                obs, _, term, trunc, _ = aec.last()
                if term or trunc:
                    aec.step(None)
                    continue
                if done == steps:
                    break
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rng.integers(legal.size)])
                aec.step(action)
                check = (check * 31 + action) % _MOD
                done += 1
        return seed, check
    if kind != "par":
        raise ValueError(f"unknown workload {workload!r}; use aec:GAME:N, par:GAME:N or gym:ID")
    par = mod.parallel_env(num_players=int(n))
    while done < steps:
        obs, _ = par.reset(seed=seed)
        seed += 1
        while par.agents and done < steps:
            actions = {}
            for a in par.agents:
                legal = np.flatnonzero(obs[a]["action_mask"])
                actions[a] = action = int(legal[rng.integers(legal.size)])
                check = (check * 31 + action) % _MOD
            obs, *_ = par.step(actions)
            done += 1
    return seed, check


def instructions(tree: pathlib.Path, workload: str, steps: int) -> int:
    """Instructions valgrind counts for ``steps`` steps of ``workload`` in checkout ``tree``."""
    env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": str(tree)}
    play_cmd = [sys.executable, str(pathlib.Path(__file__).resolve()), "--play", workload,
                "--steps", str(steps)]
    # One plain run first, so that a checkout whose bytecode is stale compiles it there and
    # not in a counted run (a compile would count as the steps' work).
    subprocess.run(play_cmd, cwd=tree, env=env, capture_output=True, check=True)
    cmd = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
           *play_cmd]
    out = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True, check=True)
    found = re.search(r"I\s+refs:\s+([\d,]+)", out.stderr)
    if found is None:
        raise RuntimeError(f"no instruction count in valgrind's output:\n{out.stderr[-2000:]}")
    return int(found.group(1).replace(",", ""))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("workload", help="aec:GAME:N, par:GAME:N or gym:ENV_ID")
    p.add_argument("--steps", type=int, default=8000)
    p.add_argument("--warm-up", type=int, default=None,
                   help="steps whose count is subtracted (default: a quarter of --steps)")
    p.add_argument("--trees", nargs="*", type=pathlib.Path, default=[],
                   help="other checkouts to count (this one is counted last)")
    p.add_argument("--play", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.play:
        play(args.workload, args.steps)
        return
    kind = args.workload.split(":")[0]
    if kind not in ("aec", "par", "gym") or args.workload.count(":") != (1 if kind == "gym" else 2):
        p.error(f"unknown workload {args.workload!r}; use aec:GAME:N, par:GAME:N or gym:ENV_ID")
    warm = args.steps // 4 if args.warm_up is None else args.warm_up
    if not 1 <= warm < args.steps:
        p.error(f"--warm-up must be at least 1 and below --steps ({args.steps}), got {warm}")
    if shutil.which("valgrind") is None:
        p.error("valgrind is not on the PATH (Debian: apt-get install valgrind)")
    trees = [t.resolve() for t in args.trees] + [ROOT]
    for tree in trees:
        if not (tree / "tabletop_gym").is_dir():
            p.error(f"{tree} is not a checkout of this project (no tabletop_gym/ in it)")
    counts = []
    for tree in trees:
        per_step = (instructions(tree, args.workload, args.steps)
                    - instructions(tree, args.workload, warm)) / (args.steps - warm)
        counts.append(per_step)
        print(f"{args.workload} {tree}: {per_step:,.0f} instructions per step", flush=True)
    for tree, per_step in zip(trees[:-1], counts[:-1], strict=True):
        print(f"this checkout / {tree}: {counts[-1] / per_step:.3f}")


if __name__ == "__main__":
    main()
