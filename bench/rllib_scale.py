"""RLlib self-play throughput with 0, 1 and 2 env runners, and the raw env loop per core.

For each runner count: the PPO self-play config of ``tabletop-gym train --backend rllib``
(Rapa Nui, 2 players, one shared policy, 8 envs per runner, 4000 env steps per iteration) runs
``--iterations`` iterations after one warm-up iteration; the table gives env steps/s of whole
iterations, the sampling and learner seconds per iteration (RLlib's timers) and the sampling
rate alone. The raw env row is random legal play through the AEC env with the observation of
every move in one process, per CPU second (``time.process_time``), i.e. what one core can feed
without RLlib. Results go to ``bench/results/rllib_scale.json`` and ``.md``.

Usage (in the RLlib venv): ``.venv-rllib/bin/python bench/rllib_scale.py [--iterations 3]``.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
RESULTS = ROOT / "bench" / "results"


def raw_env_rate(seconds: float) -> float:
    """Agent steps per CPU second of random legal play, observing every move."""
    from tabletop_gym.integrations import make_env

    env = make_env("rapa_nui", layout="rllib", num_players=2)
    rng = np.random.default_rng(0)
    steps, seed = 0, 0
    env.reset(seed=seed)
    t0 = time.process_time()
    while time.process_time() - t0 < seconds:
        obs = env.observe(env.agent_selection)
        if env.terminations[env.agent_selection]:
            seed += 1
            env.reset(seed=seed)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        steps += 1
    return steps / (time.process_time() - t0)


def one(runners: int, iterations: int) -> dict:
    """Throughput of ``iterations`` iterations (after a warm-up) with ``runners`` env runners."""
    import ray
    import torch

    from tabletop_gym.integrations.rllib import init_ray, ppo_config

    torch.set_num_threads(1)
    init_ray(None, runners)
    config, _ = ppo_config("rapa_nui", 2, "shared", num_env_runners=runners, envs_per_runner=8)
    algo = config.build_algo()
    rows = []
    try:
        for it in range(iterations + 1):
            t0 = time.perf_counter()
            result = algo.train()
            wall = time.perf_counter() - t0
            if it == 0:
                continue
            steps = int(result["env_runners"]["num_env_steps_sampled"])
            rows.append({"steps": steps, "wall": wall,
                         "sample": float(result["timers"]["env_runner_sampling_timer"]),
                         "learn": float(result["timers"]["learner_update_timer"])})
    finally:
        algo.stop()
        ray.shutdown()
    med = {k: statistics.median(r[k] for r in rows) for k in rows[0]}
    return {"env_runners": runners, "iterations": iterations,
            "env_steps_per_s": round(sum(r["steps"] for r in rows) / sum(r["wall"] for r in rows),
                                     1),
            "sample_s": round(med["sample"], 2), "learn_s": round(med["learn"], 2),
            "sampling_steps_per_s": round(med["steps"] / med["sample"], 1),
            "steps_per_iteration": int(med["steps"])}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=3)
    parser.add_argument("--runners", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--seconds", type=float, default=10.0, help="raw env loop, CPU s")
    parser.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:  # one runner count per process: Ray starts fresh each time
        print(json.dumps(one(args.child, args.iterations)))
        return
    load = os.getloadavg()
    rows = []
    for runners in args.runners:
        out = subprocess.run([sys.executable, __file__, "--child", str(runners),
                              "--iterations", str(args.iterations)],
                             capture_output=True, text=True, check=True,
                             env=dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1"))
        rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
        print(rows[-1], flush=True)
    raw = round(raw_env_rate(args.seconds), 1)
    report = {"rows": rows, "raw_env_steps_per_cpu_s": raw, "cpus": os.cpu_count(),
              "load_before": [round(x, 1) for x in load],
              "load_after": [round(x, 1) for x in os.getloadavg()]}
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "rllib_scale.json").write_text(json.dumps(report, indent=1))
    lines = ["| env runners | env steps/s (whole iterations) | sampling s / iteration | "
             "learner s / iteration | sampling env steps/s |", "|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['env_runners']} | {r['env_steps_per_s']:.0f} | {r['sample_s']:.1f} | "
                     f"{r['learn_s']:.1f} | {r['sampling_steps_per_s']:.0f} |")
    lines.append(f"\nRaw AEC env, random legal play with observations: {raw:.0f} agent steps "
                 f"per CPU second. {os.cpu_count()} CPUs, load average {report['load_before']}"
                 f" before and {report['load_after']} after.")
    (RESULTS / "rllib_scale.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
