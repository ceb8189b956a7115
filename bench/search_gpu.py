"""The batched search and expert iteration on a GPU: one prepared run, sized to a wall clock.

One run for a machine with a CUDA GPU and a few CPU cores (``--seconds``, 480 by default: the
recipe's budget of 8 minutes). It starts, side by side:

* on the **CPU** (``JAX_PLATFORMS=cpu``, one process per game): ``bench/search.py`` with
  ``--games 4 --games-heuristic 0``, which times the Python ``ismcts:12:guided`` (and the
  one-position search on the CPU) in continuation steps per second on this machine, into
  ``cpu-<game>.json``: the denominator of the speed ratio (on a machine with fewer cores than
  these processes and the speed rows, they run first, alone);
* on the **GPU**, one process: first the **speed rows**, the batched self-play of
  ``search:jax-ppo?worlds=16`` (:func:`tabletop_gym.jax.search.selfplay`: every game's decision
  searched in one call, ``games × width × worlds`` continuations at once) at each batch of
  :data:`SPEED_BATCHES` games, timed after the first decision (whose call compiles), written to
  ``speed.json`` after each row; then **expert iteration** (``python -m
  tabletop_gym.jax.search --batched``, the recipe of ``docs/search.md``) from the shipped
  ``jax-ppo`` policy, warm, with value-improved targets, until the budget's end. Every part of
  self-play games is saved as it ends, so a run stopped at the deadline keeps them and the same
  command resumes it;
* on the **CPU**, an evaluator: each iteration's checkpoint, as it appears, scored against the
  real Python heuristic on the page's 2,000 games (``tabletop-gym eval ... --games 2000 --seed
  61000``, the games of the CPU runs in ``benchmarks/expert-iteration/``).

At the end everything under ``--out`` except the parts' decisions is packed into
``<out>/search-gpu.tgz``; unpacked here, the files go into ``benchmarks/`` as the CPU runs'
did. Usage: ``python bench/search_gpu.py --out DIR [--seconds 480]`` (``--smoke``: tiny sizes,
any backend, to check the script on a CPU).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import platform
import subprocess
import sys
import tarfile
import time
from typing import Any

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SPEED_GAMES = ("positano", "rapa_nui")
SPEED_TEACHER = "search:jax-ppo?worlds=16"
"""The shipped 2-player search of Positano; Rapa Nui's differs only in ``z``, which changes no
work."""
SPEED_BATCHES = (128, 2048)
"""Games per batch: ``× 8 candidates × 16 worlds`` continuations searched at once."""
RECIPE: dict[str, Any] = {"game": "positano", "players": 2, "start": "jax-ppo", "worlds": 64,
                          "z": 2.0, "beta": 10.0, "games": 4096, "part_games": 1024,
                          "iterations": 100}
"""Expert iteration as the CPU runs measured it best (64 worlds, ``z = 2``, warm, β = 10), at
the GPU's batch; the iterations run until the budget ends."""
SMOKE: dict[str, Any] = {"speed_batches": (2,), "speed_teacher": "search:jax-ppo?worlds=2&width=2",
         "recipe": {**RECIPE, "game": "rapa_nui", "worlds": 2, "games": 2, "part_games": 2,
                    "iterations": 1},
         "eval_games": 4, "cpu_games": 2}
EVAL_SEED = 61000
EVAL_GAMES = 2000
MARGIN_S = 20.0
"""Seconds kept at the end for the last evaluation to start and the packing."""


def cpu_env() -> dict[str, str]:
    """A process on the CPU alone, one thread for XLA and numpy, its output unbuffered.

    ``bench/exploit_gpu.py``'s scorers run with it too.
    """
    return {**os.environ, "JAX_PLATFORMS": "cpu", "CUDA_VISIBLE_DEVICES": "",
            "OMP_NUM_THREADS": "1", "PYTHONUNBUFFERED": "1",
            "XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"}


def recipe_command(recipe: dict[str, Any], out: pathlib.Path) -> list[str]:
    """The expert-iteration command line of ``recipe`` into ``out``."""
    return [sys.executable, "-m", "tabletop_gym.jax.search", "--game", recipe["game"],
            "--players", str(recipe["players"]), "--iterations", str(recipe["iterations"]),
            "--games", str(recipe["games"]), "--worlds", str(recipe["worlds"]),
            "--z", str(recipe["z"]), "--start", recipe["start"], "--warm",
            "--beta", str(recipe["beta"]), "--batched", "--part-games",
            str(recipe["part_games"]), "--out", str(out)]


def eval_command(recipe: dict[str, Any], checkpoint: pathlib.Path, games: int,
                 out: pathlib.Path) -> list[str]:
    """The command that scores one iteration's checkpoint against the real heuristic."""
    return [sys.executable, "-m", "tabletop_gym.cli", "eval", "--game", recipe["game"],
            "--players", str(recipe["players"]), "--candidate", f"jax:{checkpoint}",
            "--opponent", "heuristic", "--games", str(games), "--seed", str(EVAL_SEED),
            "--out", str(out)]


def speed_rows(out: pathlib.Path, batches: tuple[int, ...], teacher: str,
               deadline: float) -> list[dict[str, Any]]:
    """Time the batched self-play at each batch and game; ``speed.json`` after each row."""
    import jax

    from tabletop_gym.jax.search import selfplay

    rows: list[dict[str, Any]] = []
    for game in SPEED_GAMES:
        for batch in batches:
            if time.time() > deadline:
                return rows
            stats: dict[str, float] = {}
            samples = selfplay(game, 2, batch, seed=900_000, teacher=teacher, stats=stats)
            timed = stats["seconds"] - stats["first_seconds"]
            steps = stats["steps"] - stats["first_steps"]
            rows.append({"game": game, "players": 2, "teacher": teacher, "games": batch,
                         "decisions": samples.action.size,
                         "searched_decisions": stats["decisions"],
                         # Of the candidate slots whose continuations the steps count, the
                         # share that searched a legal move (the rest repeat the first).
                         "candidate_share": round(stats["candidates"]
                                                  / max(stats["decisions"] * stats["width"], 1),
                                                  3),
                         "continuation_steps": stats["steps"],
                         "first_decision_s": round(stats["first_seconds"], 2),
                         "seconds": round(stats["seconds"], 2),
                         "steps_per_s": round(steps / timed) if timed > 0 else None,
                         "device": jax.devices()[0].device_kind,
                         "backend": jax.default_backend()})
            (out / "speed.json").write_text(json.dumps(rows, indent=1) + "\n")
            print(json.dumps(rows[-1]), flush=True)
    return rows


def pack(out: pathlib.Path) -> pathlib.Path:
    """Everything under ``out`` but the parts' decisions and the archive itself, packed."""
    path = out / "search-gpu.tgz"
    with tarfile.open(path, "w:gz") as tar:
        for f in sorted(out.rglob("*")):
            if f.is_file() and f != path and "_deals_" not in f.name:
                tar.add(f, arcname=str(f.relative_to(out)))
    return path


def main(argv: list[str] | None = None) -> int:
    """Run the CPU references, the speed rows, expert iteration and the evaluator."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True, type=pathlib.Path)
    p.add_argument("--seconds", type=float, default=480.0,
                   help="wall-clock budget of the whole run, packing included")
    p.add_argument("--speed-seconds", type=float, default=150.0,
                   help="at most this long for the speed rows before expert iteration starts")
    p.add_argument("--batches", type=int, nargs="+", default=None,
                   help=f"games per batch of the speed rows (default {SPEED_BATCHES})")
    p.add_argument("--only", choices=("speed", "recipe"), default=None,
                   help="run the speed rows (with the CPU references) or the recipe (with its "
                        "evaluator) alone, each with the whole budget")
    p.add_argument("--smoke", action="store_true",
                   help="tiny sizes on any backend, to check the script itself")
    a = p.parse_args(argv)
    if a.batches is not None and min(a.batches) < 1:
        p.error(f"--batches must be positive game counts, got {a.batches}")
    if a.seconds <= MARGIN_S or a.speed_seconds < 0:
        p.error(f"--seconds must exceed {MARGIN_S:g} and --speed-seconds be >= 0, got "
                f"{a.seconds:g} and {a.speed_seconds:g}")
    start = time.time()
    deadline = start + a.seconds - MARGIN_S
    out: pathlib.Path = a.out
    out.mkdir(parents=True, exist_ok=True)
    recipe = SMOKE["recipe"] if a.smoke else RECIPE
    batches = a.batches or (SMOKE["speed_batches"] if a.smoke else SPEED_BATCHES)
    teacher = SMOKE["speed_teacher"] if a.smoke else SPEED_TEACHER
    eval_games = SMOKE["eval_games"] if a.smoke else EVAL_GAMES
    cpu_games = SMOKE["cpu_games"] if a.smoke else 4
    logs = out / "logs"
    logs.mkdir(exist_ok=True)

    def launch(cmd: list[str], log: str, env: dict[str, str] | None = None) -> Any:
        with open(logs / log, "w") as f:
            return subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=f, stderr=subprocess.STDOUT)

    cpu = [launch([sys.executable, str(ROOT / "bench" / "search.py"), "--search", teacher,
                   "--games", str(cpu_games), "--games-heuristic", "0", "--games-list", game,
                   "--out", str(out / f"cpu-{game}")], f"cpu-{game}.log", cpu_env())
           for game in SPEED_GAMES] if a.only != "recipe" else []
    if (os.cpu_count() or 1) < 2 + len(cpu):
        for proc in cpu:  # too few cores to time them beside the speed rows: first, alone
            proc.wait()
    if a.only != "recipe":
        speed_rows(out, batches, teacher,
                   deadline if a.only == "speed" else min(deadline, start + a.speed_seconds))
    run = out / "expert-iteration"
    trainer = (launch(recipe_command(recipe, run), "expert-iteration.log")
               if a.only != "speed" else None)
    scored: dict[pathlib.Path, Any] = {}
    while True:
        for ckpt in sorted(run.glob("iteration_*.npz")):
            if "_deals_" in ckpt.name or ckpt in scored:
                continue
            if not ckpt.with_suffix(".json").is_file():
                continue  # the report is written after the checkpoint: not finished yet
            csv = ckpt.with_name(f"eval-heuristic-{eval_games}-{EVAL_SEED}-{ckpt.stem}")
            scored[ckpt] = launch(eval_command(recipe, ckpt, eval_games, csv),
                                  f"eval-{ckpt.stem}.log", cpu_env())
        if trainer is None or trainer.poll() is not None or time.time() > deadline:
            break
        time.sleep(2.0)
    if trainer is not None and trainer.poll() is None:
        trainer.terminate()  # its finished parts and iterations are on disk: a rerun resumes
        trainer.wait()
    for proc in [*cpu, *scored.values()]:
        try:
            proc.wait(timeout=max(1.0, start + a.seconds - 10 - time.time()))
        except subprocess.TimeoutExpired:
            proc.terminate()
    import jax

    (out / "run.json").write_text(json.dumps({
        "command": "python bench/search_gpu.py " + " ".join(argv or sys.argv[1:]),
        "recipe": recipe if a.only != "speed" else None,
        "expert_iteration": recipe_command(recipe, run)[1:] if a.only != "speed" else None,
        "speed_batches": list(batches) if a.only != "recipe" else None,
        "seconds": round(time.time() - start, 1), "device": jax.devices()[0].device_kind,
        "host": platform.node(), "cpus": os.cpu_count(),
        "trainer_returncode": None if trainer is None else trainer.returncode,
        "evaluated": sorted(c.name for c in scored)}, indent=1) + "\n")
    print(pack(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
