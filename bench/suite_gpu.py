"""The missing (recipe, task, seed) rows of ``suite train``, side by side on a big machine.

The results page wants five training seeds of every learned recipe on every core task
(``docs/results.md``). Each row is one ``tabletop-gym suite train --task T --seed K`` process:
the recipe trains (``jax-ppo`` on the JAX backend of the machine, a GPU when there is one;
``sb3-ppo`` on one CPU core), then scores the agent by the suite protocol and against the
held-out population on the CPU. This script lists the rows that ``benchmarks/suite-train``
lacks, runs them ``--workers`` at a time, seed by seed (only seeds finished on every task enter
the aggregate), stops what is still running at the budget's end, and packs the finished rows'
``result.json`` files into ``<out>/suite.tgz`` (checkpoints and logs stay on the machine).
Unpacked over ``benchmarks/suite-train`` they are the committed results; the same command on
any machine resumes what is left.

Usage: ``python bench/suite_gpu.py --out DIR --seconds 540 [--workers 16] [--algo jax-ppo]``
(``--smoke``: a tiny budget and one deal per evaluation seed, to check the script itself).
"""

from __future__ import annotations

import argparse
import os
import pathlib
import subprocess
import sys
import tarfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

ALGOS = ("jax-ppo", "sb3-ppo")
"""The recipes, in the order their rows of one seed start (the JAX ones wait for the GPU least)."""


def missing_rows(root: pathlib.Path, algos: tuple[str, ...], seeds: int,
                 suite: str = "core") -> list[tuple[str, str, int]]:
    """``(algo, task, seed)`` of every row without a ``result.json`` under ``root``, seed-major."""
    from tabletop_gym.tasks import SUITES

    return [(algo, task, seed)
            for seed in range(seeds)
            for algo in algos
            for task in SUITES[suite].task_ids
            if not (root / algo / task / f"seed-{seed}" / "result.json").is_file()]


def command(algo: str, task: str, seed: int, seeds: int, work: pathlib.Path,
            smoke: bool) -> list[str]:
    """The ``suite train`` command line of one row."""
    args = ["suite", "train", "--algo", algo, "--task", task, "--seeds", str(seeds),
            "--seed", str(seed), "--out", str(work)]
    if smoke:
        args += ["--timesteps", "64", "--deals", "1", "--eval-seeds", "1"]
    return [sys.executable, "-c",
            "import sys; from tabletop_gym.cli import main; sys.exit(main(sys.argv[1:]))", *args]


def row_env(algo: str) -> dict[str, str]:
    """One process's environment: one CPU thread for its numpy and torch; JAX on demand."""
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
           "OPENBLAS_NUM_THREADS": "1", "PYTHONUNBUFFERED": "1",
           # Many processes share the GPU: each takes memory as it goes.
           "XLA_PYTHON_CLIENT_PREALLOCATE": "false"}
    if algo != "jax-ppo":
        env["CUDA_VISIBLE_DEVICES"] = ""
    return env


def run(out: pathlib.Path, work: pathlib.Path, seconds: float, workers: int,
        algos: tuple[str, ...], seeds: int, smoke: bool) -> int:
    """Run the missing rows until done or the budget ends; pack what finished."""
    start = time.time()
    out.mkdir(parents=True, exist_ok=True)
    work.mkdir(parents=True, exist_ok=True)
    todo = missing_rows(ROOT / "benchmarks" / "suite-train", algos, seeds)
    if smoke:
        todo = todo[:2]
    print(f"[all] {len(todo)} rows to run, {workers} at a time, {seconds:.0f} s", flush=True)
    logs = work / "logs"
    logs.mkdir(exist_ok=True)
    running: dict[tuple[str, str, int], tuple[subprocess.Popen[bytes], float]] = {}
    ended: dict[tuple[str, str, int], str] = {}
    stop = start + seconds
    while todo or running:
        for row, (proc, began) in list(running.items()):
            code = proc.poll()
            if code is not None:
                ended[row] = f"exit {code} after {time.time() - began:.0f} s"
                print(f"[row] {' '.join(map(str, row))}: {ended[row]}", flush=True)
                del running[row]
        if time.time() >= stop:
            break
        while todo and len(running) < workers:
            row = todo.pop(0)
            name = "_".join(map(str, row))
            with open(logs / f"{name}.log", "wb") as log:
                proc = subprocess.Popen(command(*row, seeds, work, smoke), stdout=log,
                                        stderr=subprocess.STDOUT, env=row_env(row[0]),
                                        cwd=ROOT)
            running[row] = (proc, time.time())
        time.sleep(1.0)
    for row, (proc, began) in running.items():
        proc.kill()
        proc.wait()
        ended[row] = f"stopped at the budget's end after {time.time() - began:.0f} s"
    for row in todo:
        ended[row] = "not started"
    finished = sorted(work.glob("*/*/seed-*/result.json"))
    # Results only: checkpoints and full logs would pass the size a machine can send back.
    with tarfile.open(out / "suite.tgz", "w:gz") as tar:
        for path in finished:
            tar.add(path, arcname=str(path.relative_to(work)))
    for row, how in sorted(ended.items()):
        print(f"[end] {' '.join(map(str, row))}: {how}", flush=True)
    print(f"[all] {len(finished)} rows finished after {time.time() - start:.0f} s", flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    """Parse the flags and run."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True, type=pathlib.Path)
    p.add_argument("--work", type=pathlib.Path, default=pathlib.Path("/tmp/suite_gpu_work"))
    p.add_argument("--seconds", type=float, default=540.0)
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    p.add_argument("--algo", action="append", choices=ALGOS, default=[],
                   help="only this recipe (repeatable; default both)")
    p.add_argument("--seeds", type=int, default=5, help="training seeds 0..N-1")
    p.add_argument("--smoke", action="store_true")
    a = p.parse_args(argv)
    if a.workers < 1 or a.seeds < 1 or a.seconds <= 0:
        p.error("--workers and --seeds must be at least 1 and --seconds positive")
    algos = tuple(x for x in ALGOS if x in a.algo) if a.algo else ALGOS
    return run(a.out, a.work, a.seconds, a.workers, algos, a.seeds, a.smoke)


if __name__ == "__main__":
    sys.exit(main())
