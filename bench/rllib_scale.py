"""RLlib self-play throughput with 0, 1 and 2 env runners, and the raw env loop per core.

For each runner count: the PPO self-play config of ``tabletop-gym train --backend rllib``
(Rapa Nui, 2 players, one shared policy, 8 envs per runner, 4000 env steps per iteration) runs
one warm-up iteration, then ``--iterations`` rounds of: sampling one batch alone, the
learner's update on it alone, one whole iteration. The raw
env row is random legal play through the AEC env with the observation of every move in one
process, per CPU second (``time.process_time``), i.e. what one core can feed
without RLlib. Results go to ``bench/results/rllib_scale.json`` and ``.md``.

Usage (in the RLlib venv): ``.venv-rllib/bin/python bench/rllib_scale.py [--iterations 3]``.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
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


def _sample(algo, runners: int, steps: int) -> list:
    """Sample ``steps`` env steps as PPO does (split over the runners, in parallel)."""
    if runners == 0:
        return algo.env_runner.sample(num_timesteps=steps)
    parts = algo.env_runner_group.foreach_env_runner(
        lambda r: r.sample(num_timesteps=steps // runners), local_env_runner=False)
    return [e for part in parts for e in part]


def one(runners: int, iterations: int) -> dict:
    """Throughput with ``runners`` env runners, sampling and learning timed apart.

    RLlib's own timers are moving averages dominated by the first iterations, so each round
    here times, one after the other (so that the machine's load falls on all three alike):
    sampling one batch as ``train()`` does (every runner's ``sample()`` in parallel, the
    episodes sent back to the driver), the learner's update on that batch (PPO's epochs and
    minibatches, in this process, also in CPU seconds), and one whole ``Algorithm.train()``.
    """
    import ray
    import torch
    from ray.rllib.utils.metrics import (
        NUM_ENV_STEPS_SAMPLED_LIFETIME,
        NUM_MODULE_STEPS_TRAINED_LIFETIME,
    )

    from tabletop_gym.integrations.rllib import init_ray, ppo_config

    torch.set_num_threads(1)
    init_ray(None, runners)
    config, _ = ppo_config("rapa_nui", 2, "shared", num_env_runners=runners, envs_per_runner=8)
    algo = config.build_algo()
    batch = config.train_batch_size_per_learner
    rows = []
    try:
        algo.train()  # warm-up
        for _ in range(iterations):
            t0, c0 = time.perf_counter(), time.process_time()
            episodes = _sample(algo, runners, batch)
            t1, c1 = time.perf_counter(), time.process_time()
            algo.learner_group.update(
                episodes=episodes,
                timesteps={NUM_ENV_STEPS_SAMPLED_LIFETIME: 0, NUM_MODULE_STEPS_TRAINED_LIFETIME: 0},
                num_epochs=config.num_epochs, minibatch_size=config.minibatch_size,
                shuffle_batch_per_epoch=True)
            t2, c2 = time.perf_counter(), time.process_time()
            result = algo.train()
            t3 = time.perf_counter()
            rows.append({"steps": sum(len(e) for e in episodes), "sample": t1 - t0,
                         "sample_cpu": c1 - c0, "learn": t2 - t1, "learn_cpu": c2 - c1,
                         # train() samples one batch; its result's step count would also hold
                         # the steps sampled above on the local runner.
                         "train_steps": batch if result else 0, "train": t3 - t2})
    finally:
        algo.stop()
        ray.shutdown()

    def total(key: str) -> float:
        return sum(r[key] for r in rows)

    out = {"env_runners": runners, "rounds": iterations, "batch": batch,
           "env_steps_per_s": round(total("train_steps") / total("train"), 1),
           "sampling_steps_per_s": round(total("steps") / total("sample"), 1),
           "sample_s": round(batch * total("sample") / total("steps"), 2),
           "learn_s": round(total("learn") / len(rows), 2),
           "learn_cpu_s": round(total("learn_cpu") / len(rows), 2),
           "iteration_s": round(total("train") / len(rows), 2)}
    if runners == 0:  # sampling ran in this process too: its CPU time is known
        out["sampling_steps_per_cpu_s"] = round(total("steps") / total("sample_cpu"), 1)
    return out


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
    lines = ["| env runners | env steps/s, whole iterations | env steps/s, sampling alone | "
             "s per iteration | s sampling 4000 steps | s learner update (CPU s) |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['env_runners']} | {r['env_steps_per_s']:.0f} | "
                     f"{r['sampling_steps_per_s']:.0f} | {r['iteration_s']:.1f} | "
                     f"{r['sample_s']:.1f} | {r['learn_s']:.1f} ({r['learn_cpu_s']:.1f}) |")
    zero = next((r for r in rows if "sampling_steps_per_cpu_s" in r), None)
    if zero:
        lines.append(f"\nSampling in one process (0 env runners): "
                     f"{zero['sampling_steps_per_cpu_s']:.0f} env steps per CPU second.")
    lines.append(f"\nRaw AEC env, random legal play with observations: {raw:.0f} agent steps "
                 f"per CPU second. {os.cpu_count()} CPUs, load average {report['load_before']}"
                 f" before and {report['load_after']} after.")
    (RESULTS / "rllib_scale.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
