"""Are the JAX trainer's networks the same to the bit on another core, or on more cores?

Trains the exploitability ladder's best response (``tabletop_gym.tasks.exploit``, training
only: ``phase="train"``, the ladder's PPO settings, 2 seeds, root seed 0) for ``--steps``
learner steps three times, each in a fresh process whose CPU affinity is set before JAX is
imported: on the first core alone, on the last core alone, and on every core this process may
use. It then compares the checkpoints array by array: the largest absolute difference of any
weight, and how many arrays differ at all.

XLA splits some operations over the cores it sees, which changes the order of float additions,
so two runs on one core each should agree to the bit and a run on several cores should not;
over a long run the difference grows into another trajectory (another number of iterations to
the same learner steps). The docs quote this run (``docs/jax-train.md``).

Usage: ``python bench/jax_cores.py [--game rapa_nui --players 4 --agent heuristic --steps
30000]``; writes ``bench/results/jax_cores.{md,json}``. Needs the ``jax`` extra and at least two
usable cores.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time
from typing import Any

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
RESULTS = ROOT / "bench" / "results"


def child(args: argparse.Namespace) -> int:
    """Train on the cores given, before anything imports JAX; print the checkpoints' paths."""
    os.sched_setaffinity(0, {int(c) for c in args.cores.split(",")})
    from tabletop_gym.tasks.exploit import exploit

    exploit(args.game, args.players, args.agent, budgets=[args.steps], seeds=2,
            eval_games=args.players, out=args.dir, policies=args.dir, phase="train",
            echo=lambda _line: None)
    paths = sorted(str(p) for p in pathlib.Path(args.dir).glob("*.npz"))
    print(json.dumps(paths))
    return 0


def weights(path: str) -> dict[str, np.ndarray]:
    """A checkpoint's float arrays by name (its metadata left out)."""
    with np.load(path, allow_pickle=False) as f:
        return {k: f[k] for k in f.files if np.issubdtype(f[k].dtype, np.floating)}


def compare(a: list[str], b: list[str]) -> dict[str, Any]:
    """The largest absolute difference of any weight of two runs, and the arrays that differ."""
    worst, differ, total = 0.0, 0, 0
    for pa, pb in zip(a, b, strict=True):
        wa, wb = weights(pa), weights(pb)
        if wa.keys() != wb.keys():
            raise ValueError(f"{pa} and {pb} hold other arrays")
        for k in wa:
            total += 1
            d = float(np.max(np.abs(wa[k].astype(np.float64) - wb[k].astype(np.float64))))
            differ += d > 0
            worst = max(worst, d)
    return {"max_abs_difference": worst, "arrays_differing": differ, "arrays": total}


def meta(path: str) -> dict[str, Any]:
    """The checkpoint's learner steps, iterations and recorded core count."""
    from tabletop_gym.agents.jax_policy import load_policy

    m = load_policy(path)[1]
    return {k: m.get(k) for k in ("learner_steps", "iterations", "train_cpus")}


def main(argv: list[str] | None = None) -> int:
    """Run the three trainings and write the comparison."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--game", default="rapa_nui")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--agent", default="heuristic")
    p.add_argument("--steps", type=int, default=30_000)
    p.add_argument("--out", default=str(RESULTS / "jax_cores"))
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--cores", help=argparse.SUPPRESS)
    p.add_argument("--dir", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.child:
        return child(a)
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) < 2:
        p.error(f"this process may use {len(cores)} core; the comparison needs at least 2")
    runs = {"first core": [cores[0]], "last core": [cores[-1]], "every core": cores}
    found: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        paths: dict[str, list[str]] = {}
        for label, use in runs.items():
            where = pathlib.Path(tmp) / label.replace(" ", "_")
            t0 = time.perf_counter()
            done = subprocess.run(
                [sys.executable, __file__, "--child", "--game", a.game, "--players",
                 str(a.players), "--agent", a.agent, "--steps", str(a.steps), "--cores",
                 ",".join(map(str, use)), "--dir", str(where)],
                check=True, capture_output=True, text=True)
            paths[label] = json.loads(done.stdout.strip().splitlines()[-1])
            found[label] = {"cores": use, "seconds": round(time.perf_counter() - t0, 1),
                            "seeds": [meta(q) for q in paths[label]]}
            print(label, found[label], flush=True)
        pairs = {"first core vs last core": compare(paths["first core"], paths["last core"]),
                 "first core vs every core": compare(paths["first core"], paths["every core"])}
    from tabletop_gym.provenance import metadata

    result = {"game": a.game, "num_players": a.players, "agent": a.agent,
              "learner_steps": a.steps, "seeds": 2, "runs": found, "pairs": pairs,
              "xla_flags": os.environ.get("XLA_FLAGS", ""),
              "provenance": metadata(cpus=len(cores))}
    out = pathlib.Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps(result, indent=1) + "\n")
    lines = [f"# The JAX trainer's networks on one core and on {len(cores)}", "",
             f"`python bench/jax_cores.py --game {a.game} --players {a.players} --agent "
             f"{a.agent} --steps {a.steps}`: the exploitability ladder's best response, 2 seeds, "
             "trained three times, each in a process pinned to the cores given.", "",
             "| run | cores | learner steps (seeds) | iterations (seeds) | seconds |",
             "|---|---|---|---|---|"]
    for label, r in found.items():
        lines.append(f"| {label} | {','.join(map(str, r['cores']))} | "
                     f"{' / '.join(str(s['learner_steps']) for s in r['seeds'])} | "
                     f"{' / '.join(str(s['iterations']) for s in r['seeds'])} | {r['seconds']} |")
    lines += ["", "| pair | largest weight difference | arrays that differ |", "|---|---|---|"]
    for label, c in pairs.items():
        lines.append(f"| {label} | {c['max_abs_difference']:.3g} | "
                     f"{c['arrays_differing']} of {c['arrays']} |")
    out.with_suffix(".md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
