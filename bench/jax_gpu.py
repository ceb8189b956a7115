"""The JAX trainer on a GPU: learner steps/s at large batches, and from-scratch training runs.

One prepared run for a machine with a CUDA GPU, sized to a fixed wall-clock budget
(``--seconds``). It starts, side by side:

* one **speed** process per game, which compiles that game's rows of :data:`SPEED_ROWS`
  (self-play, the PPO settings of ``bench/jax_train.py``, ``num_envs`` ≥ 4096) ahead of time,
  waits until the trainers are done, and only then times each row alone on the GPU (compile
  time and the median learner steps/s over whole iterations), writing ``speed_<game>.json``
  after each row;
* one process per trainer of the round (:data:`ROUNDS`, :data:`TRAINERS`):
  ``tabletop_gym.jax.train.train`` from scratch against the distilled heuristic, its own
  snapshots or itself, until the budget ends (compile included), with its run directory packed
  into ``<name>.tgz``.

XLA compiles on the CPU, so the trainers compile while the speed process compiles; the GPU
is shared by the trainers only, and the speed rows are timed once it is free. Each process gets
its slice of the GPU's memory (``XLA_PYTHON_CLIENT_MEM_FRACTION``).

Usage: ``python bench/jax_gpu.py --out DIR --seconds 420 [--round 2]`` (``--smoke``: tiny sizes, any
backend, to check the script itself on a CPU). The trained policies are then scored against the
real Python heuristic on a CPU by ``tabletop-gym eval`` (``docs/jax-train.md``).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import platform
import statistics
import subprocess
import sys
import tarfile
import time
from typing import Any

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SPEED_ROWS: list[dict[str, Any]] = [
    {"game": "rapa_nui", "hidden": [64, 64], "num_envs": 4096},
    {"game": "rapa_nui", "hidden": [64, 64], "num_envs": 16384},
    {"game": "rapa_nui", "hidden": [256, 256], "num_envs": 4096},
    {"game": "positano", "hidden": [64, 64], "num_envs": 4096},
    {"game": "positano", "hidden": [256, 256], "num_envs": 4096},
]
"""Speed rows: 2 players, self-play, 64 steps per rollout, 4 epochs × 4 minibatches."""
SPEED_GAMES = ("rapa_nui", "positano")
"""The order in which the games' speed rows are timed."""

TRAINERS: dict[str, dict[str, Any]] = {
    # Round 1. The jax-ppo recipe's network and PPO settings, at 4x its batch.
    "positano_64": {"game": "positano", "hidden": [64, 64], "num_envs": 2048, "seeds": 2},
    "positano_256_g1": {"game": "positano", "hidden": [256, 256], "num_envs": 2048, "seeds": 2,
                        "gamma": 1.0},
    "rapa_nui_256": {"game": "rapa_nui", "hidden": [256, 256], "num_envs": 4096, "seeds": 2},
    "rapa_nui_256_g1": {"game": "rapa_nui", "hidden": [256, 256], "num_envs": 4096, "seeds": 2,
                        "gamma": 1.0},
    # Round 2: Positano against its own snapshots or itself, and against the net with 2x256.
    "positano_pool_64": {"game": "positano", "hidden": [64, 64], "num_envs": 2048, "seeds": 2,
                         "opponents": "pool"},
    "positano_self_256": {"game": "positano", "hidden": [256, 256], "num_envs": 2048,
                          "seeds": 2, "opponents": "self"},
    "positano_256": {"game": "positano", "hidden": [256, 256], "num_envs": 2048, "seeds": 2},
    "rapa_nui_self_256": {"game": "rapa_nui", "hidden": [256, 256], "num_envs": 4096,
                          "seeds": 2, "opponents": "self"},
    # Round 3: the best Positano trainer of rounds 1-2 (positano_64, even with the heuristic
    # over 200 games) given the GPU nearly alone for longer, at twice the batch.
    "positano_64_long": {"game": "positano", "hidden": [64, 64], "num_envs": 4096, "seeds": 2},
}
"""Training runs from scratch, 2 players; against the distilled heuristic unless ``opponents``
says otherwise."""
ROUNDS = {
    1: ["positano_64", "positano_256_g1", "rapa_nui_256", "rapa_nui_256_g1"],
    2: ["positano_pool_64", "positano_self_256", "positano_256", "rapa_nui_self_256"],
    3: ["positano_64_long"],
}
"""The trainers of each run on the device (round 1 also times the speed rows)."""

ROW_SECONDS = 8.0
"""Timing budget of one speed row (it still gets two timed iterations)."""

SMOKE = {"num_envs": 8, "hidden": [8]}
"""What ``--smoke`` puts in place of every row's batch and network."""


def _config(row: dict[str, Any], smoke: bool, **extra: Any) -> Any:
    from tabletop_gym.jax.train import TrainConfig

    settings = {k: v for k, v in row.items() if k not in ("game", "seeds")}
    settings.update(extra)
    if smoke:
        settings.update(SMOKE)
        settings["num_steps"] = 8
        settings["eval_envs"] = 4
    settings["hidden"] = tuple(settings["hidden"])
    return TrainConfig(**settings)


def _wait_for(flags: list[pathlib.Path], deadline: float) -> None:
    while time.time() < deadline and not all(f.exists() for f in flags):
        time.sleep(0.5)


def speed(game: str, out: pathlib.Path, smoke: bool, wait: list[pathlib.Path], deadline: float,
          iterations: int) -> None:
    """Compile the game's speed rows, wait for the ``wait`` flags, then time each row alone."""
    import jax

    from tabletop_gym.jax.core import make
    from tabletop_gym.jax.train import Trainer

    compiled = []
    for row in (r for r in SPEED_ROWS if r["game"] == game):
        config = _config(row, smoke, opponents="self")
        trainer = Trainer(make(row["game"], num_players=2), config)
        init, update = trainer.compiled
        runner = init(jax.random.split(jax.random.PRNGKey(0), 1))
        jax.block_until_ready(runner)
        t0 = time.perf_counter()
        program = update.lower(runner).compile()
        compile_s = time.perf_counter() - t0
        print(f"[speed] compiled {row} in {compile_s:.1f} s", flush=True)
        compiled.append((row, config, program, runner, compile_s))
    _wait_for(wait, deadline)
    print(f"[speed] {game}: the device is free; timing", flush=True)
    rows = []
    for row, config, program, runner, compile_s in compiled:
        runner, m = program(runner)  # the first run allocates; untimed
        jax.block_until_ready(m)
        rates: list[float] = []
        row_start = time.perf_counter()
        # At least two timed iterations, then stop at `iterations` or after ROW_SECONDS.
        while len(rates) < iterations and (
                len(rates) < 2 or time.perf_counter() - row_start < ROW_SECONDS):
            t0 = time.perf_counter()
            runner, m = program(runner)
            steps = int(jax.device_get(m["learner_steps"]).sum())
            rates.append(steps / (time.perf_counter() - t0))
        result = {
            **row, "players": 2, "opponents": "self", "num_steps": config.num_steps,
            "epochs": config.epochs, "minibatches": config.minibatches,
            "eval_envs": config.eval_envs, "compile_s": round(compile_s, 1),
            "learner_steps_per_s": round(statistics.median(rates)),
            "min_max": [round(min(rates)), round(max(rates))], "iterations": len(rates),
            "decisions_per_iteration": (config.num_envs + config.eval_envs) * config.num_steps,
        }
        rows.append(result)
        print(f"[speed] {json.dumps(result)}", flush=True)
        record = {"rows": rows, **_machine()}
        (out / f"speed_{game}.json").write_text(json.dumps(record, indent=1) + "\n")


def _machine() -> dict[str, Any]:
    import jax

    devices = jax.devices()
    return {"backend": jax.default_backend(), "device": str(devices[0].device_kind),
            "jax": jax.__version__, "python": platform.python_version(),
            "cpus": os.cpu_count(), "commit": os.environ.get("TABLETOP_GYM_COMMIT")}


def trainer_config(name: str, smoke: bool = False) -> Any:
    """The ``TrainConfig`` of one entry of :data:`TRAINERS`."""
    from tabletop_gym.jax.distill import shipped

    row = dict(TRAINERS[name])
    opponents = row.pop("opponents", "heuristic-net")
    net = {"opponent_net": str(shipped(row["game"], 2))} if opponents == "heuristic-net" else {}
    return _config(row, smoke, opponents=opponents, **net)


def trainer(name: str, out: pathlib.Path, work: pathlib.Path, smoke: bool,
            deadline: float) -> None:
    """Train one entry of :data:`TRAINERS` until ``deadline``, then pack its run directory."""
    from tabletop_gym.jax.train import train

    row = TRAINERS[name]
    config = trainer_config(name, smoke)
    minutes = max(deadline - time.time(), 1.0) / 60
    runs = work / name
    summary = train(row["game"], 2, config=config, seeds=row["seeds"], seed=0, minutes=minutes,
                    out=runs, eval_games=0, progress=True, echo=_every(name, 6))
    summary.update(_machine())
    run_dir = pathlib.Path(summary["run_dir"])
    (run_dir / "run.json").write_text(json.dumps(summary, indent=2) + "\n")
    with tarfile.open(out / f"{name}.tgz", "w:gz") as tar:
        tar.add(run_dir, arcname=name)
    print(f"[{name}] done: {summary['learner_steps_per_seed']} learner steps per seed, "
          f"{summary['learner_steps_per_s']} steps/s, compile and first iteration "
          f"{summary['compile_and_first_iteration_s']} s", flush=True)


def _every(name: str, k: int) -> Any:
    """An echo that prints every ``k``-th progress line of a trainer (the log stays short)."""
    count = [0]

    def echo(line: str) -> None:
        if count[0] % k == 0:
            print(f"[{name}] {line}", flush=True)
        count[0] += 1

    return echo


def orchestrate(out: pathlib.Path, work: pathlib.Path, seconds: float, smoke: bool,
                round_: int) -> int:
    """Start the speed process and every trainer; wait for all; say how each ended."""
    out.mkdir(parents=True, exist_ok=True)
    if not smoke:
        # In a child process: jax in this one would take a share of the device's memory.
        probe = subprocess.run(
            [sys.executable, "-c", "import jax; print(jax.default_backend(), jax.devices())"],
            capture_output=True, text=True, env={**os.environ,
                                                 "XLA_PYTHON_CLIENT_PREALLOCATE": "false"})
        print(f"[all] {probe.stdout.strip()} {probe.stderr.strip()[-500:]}", flush=True)
        if not probe.stdout.startswith("gpu"):
            print("[all] no GPU backend: nothing run", flush=True)
            return 2
    start = time.time()
    trainers = ROUNDS[round_]
    games = SPEED_GAMES if round_ == 1 else ()
    # Timing the speed rows alone, after the trainers.
    speed_budget = 0.0 if not games else 30.0 if smoke else 75.0
    train_end = start + seconds - speed_budget
    work.mkdir(parents=True, exist_ok=True)
    share = 0.85 / (len(trainers) + len(games))
    env = {**os.environ, "XLA_PYTHON_CLIENT_MEM_FRACTION": f"{share:.3f}"}
    base = [sys.executable, __file__, "--out", str(out), "--work", str(work),
            "--seconds", str(seconds)]
    if smoke:
        base.append("--smoke")
    procs: dict[str, subprocess.Popen[bytes]] = {}
    # One speed process per game, so their compiles run side by side; they time one after
    # the other (SPEED_GAMES order), each once the trainers and the one before have ended.
    for game in games:
        procs[f"speed-{game}"] = subprocess.Popen(
            [*base, "--role", f"speed-{game}", "--deadline", str(train_end + speed_budget)],
            env=env)
    for name in trainers:
        procs[name] = subprocess.Popen(
            [*base, "--role", name, "--deadline", str(train_end)], env=env)
    codes: dict[str, int | str] = {}
    for name, proc in procs.items():
        try:
            codes[name] = proc.wait(timeout=max(start + seconds + 45 - time.time(), 1))
        except subprocess.TimeoutExpired:
            proc.kill()
            codes[name] = "killed"
        if name in TRAINERS:
            (work / f"{name}.done").touch()
    print(f"[all] exit codes {codes} after {time.time() - start:.0f} s", flush=True)
    return 0 if all(c == 0 for c in codes.values()) else 1


def main(argv: list[str] | None = None) -> int:
    """Parse the flags and play one role (default: start them all)."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True, type=pathlib.Path)
    p.add_argument("--work", type=pathlib.Path, default=pathlib.Path("/tmp/jax_gpu_work"),
                   help="where the run directories and flags live (only packs go to --out)")
    p.add_argument("--seconds", type=float, default=480.0)
    p.add_argument("--smoke", action="store_true")
    p.add_argument("--role", default="all",
                   choices=["all", *(f"speed-{g}" for g in SPEED_GAMES), *TRAINERS])
    p.add_argument("--deadline", type=float, default=None)
    p.add_argument("--round", type=int, default=1, choices=sorted(ROUNDS),
                   help="which trainers (ROUNDS); round 1 also times the speed rows")
    p.add_argument("--iterations", type=int, default=5)
    a = p.parse_args(argv)
    if a.role == "all":
        return orchestrate(a.out, a.work, a.seconds, a.smoke, a.round)
    deadline = a.deadline if a.deadline is not None else time.time() + a.seconds
    if a.role.startswith("speed-"):
        game = a.role.removeprefix("speed-")
        flags = [a.work / f"{name}.done" for name in ROUNDS[1]]
        flags += [a.work / f"speed-{g}.done" for g in SPEED_GAMES[:SPEED_GAMES.index(game)]]
        try:
            speed(game, a.out, a.smoke, flags, deadline, a.iterations)
        finally:
            (a.work / f"{a.role}.done").touch()
        return 0
    try:
        trainer(a.role, a.out, a.work, a.smoke, deadline)
    finally:
        (a.work / f"{a.role}.done").touch()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
