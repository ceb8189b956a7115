"""Learner steps per second of ``tabletop_gym.jax.train`` over whole PPO iterations.

An iteration is the rollout (``num_envs × num_steps`` decisions of training games, plus the
games against random), the per-seat credit assignment and ``epochs × minibatches`` updates, in one
jitted call; learner steps are the decisions that enter the loss. The first call compiles, so it
is timed apart (``compile_and_first_s``); the rate is the median over the later iterations, in
wall-clock time (the program uses every core XLA is given).

With ``--sb3``, the same row also times sb3-contrib's ``MaskablePPO`` on the game's
single-agent env against random opponents (8 envs × 256 steps per rollout, 4 epochs of
minibatches of 512, the same separate 2-layer tanh actor and critic, the same PPO settings), over
whole ``learn`` calls after one untimed iteration, and reports the ratio.

Usage: ``python bench/jax_train.py [--game rapa_nui] [--players 2] [--num-envs 512]
[--num-steps 64] [--hidden 64 64] [--opponents self] [--seeds 1] [--iterations 5] [--sb3]``;
prints one JSON row. Needs the ``jax`` extra (and the ``train`` extra for ``--sb3``).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import statistics
import sys
import time
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def flops_per_learner_step(observation_size: int, num_actions: int, hidden: tuple[int, ...],
                           num_envs: int, eval_envs: int, num_steps: int, num_players: int,
                           epochs: int) -> int:
    """Floating-point operations of the networks per learner step of a self-play iteration.

    The actor (``observation → hidden… → actions``) and the critic (``… → 1``) cost one
    multiply-add per weight per row (biases and activations are left out). Per learner step
    the rollout runs both networks once for every game of the batch (the games against random
    included), the bootstrap values once per seat and game per iteration, and each epoch one
    forward and one backward pass: three passes for every layer but the first, whose input
    needs no gradient (two). Two operations per multiply-add.
    """
    def macs(out: int) -> tuple[int, int]:
        sizes = [observation_size, *hidden, out]
        layers = [a * b for a, b in itertools.pairwise(sizes)]
        return layers[0], sum(layers[1:])

    first_a, rest_a = macs(num_actions)
    first_c, rest_c = macs(1)
    first, rest = first_a + first_c, rest_a + rest_c
    forward = first + rest
    batch = num_envs + eval_envs
    rollout = forward * batch * num_steps + forward * batch * num_players
    update = epochs * (2 * first + 3 * rest) * num_envs * num_steps
    return round(2 * (rollout + update) / (num_envs * num_steps))


def _median_seconds(f: Any, *args: Any, repeats: int) -> float:
    """Median wall-clock seconds of ``f(*args)`` over ``repeats`` calls after one untimed call."""
    import jax

    jax.block_until_ready(f(*args))
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        jax.block_until_ready(f(*args))
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def gemm_gflops(rows: int, inner: int, cols: int, repeats: int = 20) -> float:
    """GFLOP/s of one ``(rows, inner) @ (inner, cols)`` float32 product on the default device."""
    import jax
    import jax.numpy as jnp

    a = jnp.ones((rows, inner), jnp.float32)
    b = jnp.ones((inner, cols), jnp.float32)
    seconds = _median_seconds(jax.jit(lambda x, y: x @ y), a, b, repeats=repeats)
    return 2 * rows * inner * cols / seconds / 1e9


def measure(game: str, players: int, num_envs: int, num_steps: int, hidden: tuple[int, ...],
            opponents: str, seeds: int, iterations: int) -> dict[str, Any]:
    """Compile time and the median learner steps/s over ``iterations`` timed iterations.

    Also what bounds the rate on this device (self-play only, where every decision of a
    training game is a learner step): the rollout alone, timed as the trainer runs it, and the
    networks' arithmetic (:func:`flops_per_learner_step`) at the rate of the update's largest
    matrix product (:func:`gemm_gflops`).
    """
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
    bounds: dict[str, Any] = {}
    if opponents == "self":
        g = trainer.game
        rollout = jax.jit(jax.vmap(lambda r: jax.lax.scan(trainer._step, r, None, num_steps)[0]))
        rollout_s = _median_seconds(rollout, runner, repeats=iterations)
        flops = flops_per_learner_step(g.observation_size, g.num_actions, hidden, num_envs,
                                       config.eval_envs, num_steps, players, config.epochs)
        gemm = gemm_gflops(num_envs * num_steps // config.minibatches, g.observation_size,
                           hidden[0])
        bounds = {"rollout_s": round(rollout_s, 4),
                  "rollout_only_steps_per_s": round(seeds * num_envs * num_steps / rollout_s),
                  "flops_per_learner_step": flops, "gemm_gflops": round(gemm, 1),
                  "arithmetic_steps_per_s": round(gemm * 1e9 / flops)}
    return {
        **bounds,
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


SB3_ENVS, SB3_STEPS, SB3_BATCH = 8, 256, 512
"""MaskablePPO's rollout (envs × steps per env) and minibatch size in the ``--sb3`` row."""


def measure_sb3(game: str, players: int, hidden: tuple[int, ...],
                iterations: int) -> dict[str, Any]:
    """MaskablePPO learner steps/s (wall clock) over ``iterations`` whole rollout-and-update
    iterations on the single-agent env against random opponents."""
    from sb3_contrib import MaskablePPO

    from tabletop_gym.integrations.sb3 import make_vec_env
    from tabletop_gym.jax.train import TrainConfig
    from tabletop_gym.registry import game_spec

    c = TrainConfig()
    env_id = game_spec(game).gym_id
    vec = make_vec_env(env_id, n_envs=SB3_ENVS, seed=0,
                       env_kwargs={"num_players": players, "opponents": "random"})
    model = MaskablePPO(
        "MlpPolicy", vec, learning_rate=c.lr, n_steps=SB3_STEPS, batch_size=SB3_BATCH,
        n_epochs=c.epochs, gamma=c.gamma, gae_lambda=c.gae_lambda, clip_range=c.clip_eps,
        ent_coef=c.ent_coef, vf_coef=c.vf_coef, max_grad_norm=c.max_grad_norm,
        policy_kwargs={"net_arch": {"pi": list(hidden), "vf": list(hidden)}},
        seed=0, device="cpu", verbose=0,
    )
    per_iteration = SB3_ENVS * SB3_STEPS
    model.learn(per_iteration)  # warm-up, untimed
    rates = []
    for _ in range(iterations):
        t0 = time.perf_counter()
        model.learn(per_iteration, reset_num_timesteps=False)
        rates.append(per_iteration / (time.perf_counter() - t0))
    return {"env_id": env_id, "learner_steps_per_s": round(statistics.median(rates)),
            "min_max": [round(min(rates)), round(max(rates))], "iterations": iterations,
            "rollout": [SB3_ENVS, SB3_STEPS], "batch_size": SB3_BATCH}


TARGETS = {"rapa_nui": 30.0, "positano": 10.0}
"""Speed-up over MaskablePPO each game's 2-player row aims at."""
ALL_ROWS = [(game, hidden) for game in ("rapa_nui", "positano") for hidden in ((64, 64),
                                                                              (256, 256))]


def _bound(row: dict[str, Any], key: str) -> str:
    if f"{key}_ratio" not in row:
        return "–"
    return f"{row[key + '_steps_per_s']:,} ({row[key + '_ratio']}x)"


def table(rows: list[dict[str, Any]]) -> str:
    """The rows as the markdown table ``make bench`` prints, with the targets."""
    lines = ["| game | network | JAX learner steps/s | compile + first (s) | MaskablePPO steps/s "
             "| ratio | target | met | bound: rollout alone | bound: arithmetic |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        target = TARGETS[r["game"]]
        ratio = r["ratio_vs_sb3"]
        lines.append(
            f"| {r['game']} {r['players']}p | {'x'.join(map(str, r['hidden']))} | "
            f"{r['learner_steps_per_s']:,} | {r['compile_and_first_s']} | "
            f"{r['sb3_maskable_ppo']['learner_steps_per_s']:,} | {ratio}x | {target:g}x | "
            f"{'yes' if ratio >= target else 'no'} | {_bound(r, 'rollout_only')} | "
            f"{_bound(r, 'arithmetic')} |")
    load = sorted({tuple(r["load_avg"]) for r in rows})
    lines += ["", f"Load average while measured (1, 5, 15 min): {load}; {rows[0]['cpus']} CPUs, "
              f"backend {rows[0]['backend']}, commit {rows[0]['commit']}.", "",
              "Bounds (learner steps/s and ratio to MaskablePPO): *rollout alone*, the rate if the "
              "update cost nothing; *arithmetic*, the rate if the env cost nothing and every "
              "operation of the networks ran at the measured rate of the update's largest matrix "
              "product."]
    return "\n".join(lines) + "\n"


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
    p.add_argument("--sb3", action="store_true",
                   help="also time MaskablePPO on the single-agent env, same networks")
    p.add_argument("--all", action="store_true",
                   help="every row of make bench (both games, 2x64 and 2x256, with --sb3)")
    p.add_argument("--out", default=None,
                   help="with --all: write OUT.json and OUT.md (e.g. bench/results/jax_train)")
    a = p.parse_args(argv)
    if a.iterations < 1 or a.seeds < 1:
        p.error("--iterations and --seeds must be at least 1")
    if a.out is not None and not a.all:
        p.error("--out goes with --all")
    if a.all:
        import torch

        torch.set_num_threads(1)
        rows = []
        for game, hidden in ALL_ROWS:
            row = measure(game, 2, a.num_envs, a.num_steps, hidden, a.opponents, a.seeds,
                          a.iterations)
            row["sb3_maskable_ppo"] = measure_sb3(game, 2, hidden, a.iterations)
            sb3 = row["sb3_maskable_ppo"]["learner_steps_per_s"]
            row["ratio_vs_sb3"] = round(row["learner_steps_per_s"] / sb3, 1)
            for key in ("rollout_only", "arithmetic"):
                row[f"{key}_ratio"] = round(row[f"{key}_steps_per_s"] / sb3, 1)
            row["target"] = TARGETS[game]
            rows.append(row)
            print(json.dumps(row), flush=True)
        text = table(rows)
        print(text)
        if a.out is not None:
            base = a.out[:-5] if a.out.endswith(".json") else a.out
            with open(base + ".json", "w") as fh:
                json.dump(rows, fh, indent=1)
            with open(base + ".md", "w") as fh:
                fh.write(text)
        return 0
    row = measure(a.game, a.players, a.num_envs, a.num_steps, tuple(a.hidden), a.opponents,
                  a.seeds, a.iterations)
    if a.sb3:
        import torch

        torch.set_num_threads(1)  # as make train runs it: faster than more threads for 2×64
        sb3 = measure_sb3(a.game, a.players, tuple(a.hidden), a.iterations)
        row["sb3_maskable_ppo"] = sb3
        row["ratio_vs_sb3"] = round(row["learner_steps_per_s"] / sb3["learner_steps_per_s"], 1)
    print(json.dumps(row))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
