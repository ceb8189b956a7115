"""A single-agent vector env in this checkout against another, paired in fresh processes.

Usage: ``python bench/compare.py BASE_TREE [--env RapaNui-v0|Positano-v0] [--pairs 6]
[--vec-steps 3000] [--ppo-steps 8192]``,
where ``BASE_TREE`` is a checkout of the commit to compare against (for example made by
``git worktree add BASE_TREE <commit>``). Each pair runs both trees one after the other, in
alternating order, each in a fresh interpreter that imports its own tree:

* ``vec``: the vector env ``train()`` builds (8 envs, ``seat_mode="rotate"``, seed 0) stepped as
  ``MaskablePPO`` steps it, both mask fetches of a step included (``action_masks()`` and
  ``env_method("action_masks")``) and a random masked choice in place of the policy (not timed),
  with this checkout's ``bench/floor.py`` loop (``timed_steps``) for both trees: CPU
  microseconds per learner step over ``--vec-steps`` vector steps after 300 of warm-up;
* ``ppo``: ``bench/run.py``'s ``ppo_env_share(--env, --ppo-steps)`` of that tree (the
  env share of the bench's MaskablePPO run and the vector env's microseconds per learner step).

Prints every run, the medians per tree and the paired ratios (base over this checkout).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]

VEC = """
import importlib.util, json, sys
import numpy as np
from tabletop_gym.integrations.sb3 import make_vec_env
spec = importlib.util.spec_from_file_location("bench_floor", sys.argv[2])
floor = importlib.util.module_from_spec(spec)
spec.loader.exec_module(floor)
venv = make_vec_env(sys.argv[3], n_envs=8, seed=0, env_kwargs={"seat_mode": "rotate"})
rng = np.random.default_rng(0)
choose = lambda obs, masks: (rng.random(masks.shape) * masks).argmax(axis=1)
obs = floor.timed_steps(venv, venv.reset(), 300, choose)[1]
steps = int(sys.argv[1])
spent = floor.timed_steps(venv, obs, steps, choose)[0]
print(json.dumps({"vec_us_per_step": spent / (steps * venv.num_envs) * 1e6}))
"""
FLOOR = ROOT / "bench" / "floor.py"
"""This checkout's timing loop (``floor.timed_steps``), the same for both trees."""

PPO = """
import json, sys
sys.path.insert(0, "bench")
import run
r = run.ppo_env_share(sys.argv[3], int(sys.argv[1]))
print(json.dumps({"env_share": r["env_share"], "env_us_per_step": r["env_us_per_step"]}))
"""


def run_in(tree: pathlib.Path, code: str, arg: int, env_id: str) -> dict[str, float]:
    """Run ``code`` with ``arg`` on ``env_id`` in a fresh interpreter importing ``tree``."""
    env = dict(os.environ, PYTHONPATH=str(tree), OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    out = subprocess.run([sys.executable, "-c", code, str(arg), str(FLOOR), env_id], cwd=tree,
                         env=env, capture_output=True, text=True, check=True)
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main(argv: list[str] | None = None) -> int:
    """Run the pairs and print the comparison."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("base", type=pathlib.Path, help="checkout of the commit to compare against")
    p.add_argument("--env", default="RapaNui-v0", choices=("RapaNui-v0", "Positano-v0"),
                   help="the single-agent env whose vector env is timed")
    p.add_argument("--pairs", type=int, default=6)
    p.add_argument("--vec-steps", type=int, default=3000)
    p.add_argument("--ppo-steps", type=int, default=8192)
    args = p.parse_args(argv)
    base = args.base.resolve()
    if not (base / "tabletop_gym").is_dir():
        p.error(f"{base} is not a checkout of this repository (no tabletop_gym/ in it)")
    trees = {"base": base, "this": ROOT}
    runs: dict[str, dict[str, list[dict[str, float]]]] = {
        kind: {name: [] for name in trees} for kind in ("vec", "ppo")}
    for i in range(args.pairs):
        order = list(trees) if i % 2 == 0 else list(trees)[::-1]
        for kind, code, arg in (("vec", VEC, args.vec_steps), ("ppo", PPO, args.ppo_steps)):
            if arg <= 0:
                continue
            for name in order:
                runs[kind][name].append(run_in(trees[name], code, arg, args.env))
                print(f"pair {i + 1} {kind} {name}: {runs[kind][name][-1]}", flush=True)
    for kind, by_tree in runs.items():
        for key in (by_tree["this"][0] if by_tree["this"] else {}):
            medians = {n: statistics.median(r[key] for r in rs) for n, rs in by_tree.items()}
            ratios = [b[key] / t[key] for b, t in zip(by_tree["base"], by_tree["this"],
                                                       strict=True)]
            print(f"{kind} {key}: base {medians['base']:.4g}, this {medians['this']:.4g}; "
                  f"paired ratio base/this median {statistics.median(ratios):.3f} "
                  f"({min(ratios):.3f}-{max(ratios):.3f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
