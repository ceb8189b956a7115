"""Speed of tabletop-gym against PettingZoo and OpenSpiel anchors measured in the same run.

Every configuration runs for a fixed wall-time slice, round-robin, ``--reps`` times; the table shows
the median with min–max, and each target is a ratio of two figures of this one run, so the verdict
does not depend on how fast the machine is. Results go to ``bench/results/latest.json`` and
``bench/results/latest.md``.

Usage: ``make bench`` or ``python bench/run.py [--reps 3] [--seconds 2.0] [--quick]``.
Needs the ``bench`` extra (``pettingzoo[classic]``, which brings OpenSpiel) and, for the
MaskablePPO share, the ``train`` extra.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

RESULTS = ROOT / "bench" / "results"


# --- workloads: each returns (units done, seconds) ------------------------------------------


def aec_random_play(make_env: Callable[[], object], seconds: float) -> dict[str, float]:
    """Random legal play through a PettingZoo AEC env: agent steps/s and games/s."""
    env = make_env()
    rng = np.random.default_rng(0)
    steps = games = 0
    seed = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        env.reset(seed=seed)
        seed += 1
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            if term or trunc:
                env.step(None)
                continue
            mask = obs["action_mask"] if isinstance(obs, dict) else info["action_mask"]
            legal = np.flatnonzero(mask)
            env.step(int(legal[rng.integers(legal.size)]))
            steps += 1
        games += 1
    dt = time.perf_counter() - t0
    return {"steps_per_s": steps / dt, "games_per_s": games / dt}


def engine_only(game_name: str, config: dict, seconds: float) -> dict[str, float]:
    """legal_actions + apply_action (+ clone every 10 decisions), no observation."""
    from tabletop_gym.core.game import SIMULTANEOUS
    from tabletop_gym.core.records import make_game

    game = make_game(game_name, config)
    rng = random.Random(0)
    decisions = 0
    seed = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        state = game.new_initial_state(random.Random(seed))
        seed += 1
        while not state.is_terminal():
            if state.current_player() == SIMULTANEOUS:
                joint = [rng.choice(state.legal_actions(p)) for p in range(game.num_players)]
                state.apply_joint_action(joint)
            else:
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])
            decisions += 1
            if decisions % 10 == 0:
                state = state.clone()
    dt = time.perf_counter() - t0
    return {"decisions_per_s": decisions / dt}


def observe_cost(make_env: Callable[[], object], seconds: float) -> dict[str, float]:
    """Microseconds per ``observe`` (vector + mask) on positions from random play."""
    env = make_env()
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    agents = list(env.possible_agents)
    calls = 0
    total = 0.0
    t_end = time.perf_counter() + seconds
    while time.perf_counter() < t_end:
        env.reset(seed=calls)
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last(observe=False)
            if term or trunc:
                env.step(None)
                continue
            t0 = time.perf_counter()
            for a in agents:
                env.observe(a)
            total += time.perf_counter() - t0
            calls += len(agents)
            mask = info["action_mask"]
            legal = np.flatnonzero(mask)
            env.step(int(legal[rng.integers(legal.size)]))
    return {"us_per_observe": 1e6 * total / calls}


def single_agent_steps(env_id: str, seconds: float, **kwargs) -> dict[str, float]:
    """Random masked play through the single-agent Gymnasium view: learner steps/s."""
    import gymnasium

    import tabletop_gym  # noqa: F401

    env = gymnasium.make(env_id, **kwargs)
    rng = np.random.default_rng(0)
    steps = 0
    seed = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        env.reset(seed=seed)
        seed += 1
        done = False
        while not done:
            mask = env.unwrapped.action_masks()
            _, _, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
            steps += 1
            done = term or trunc
    return {"steps_per_s": steps / (time.perf_counter() - t0)}


def ppo_env_share(timesteps: int) -> dict[str, float]:
    """Share of a short MaskablePPO run's wall time spent inside the env (reset/step/masks)."""
    import gymnasium
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import DummyVecEnv

    import tabletop_gym  # noqa: F401

    torch.set_num_threads(1)
    spent = [0.0]

    class Timed(gymnasium.Wrapper):
        def step(self, action):
            t0 = time.perf_counter()
            out = self.env.step(action)
            spent[0] += time.perf_counter() - t0
            return out

        def reset(self, **kw):
            t0 = time.perf_counter()
            out = self.env.reset(**kw)
            spent[0] += time.perf_counter() - t0
            return out

        def action_masks(self):
            t0 = time.perf_counter()
            out = self.env.unwrapped.action_masks()
            spent[0] += time.perf_counter() - t0
            return out

    vec = make_vec_env(lambda: Timed(gymnasium.make("Positano-v0")), n_envs=8, seed=0,
                       vec_env_cls=DummyVecEnv)
    model = MaskablePPO("MlpPolicy", vec, n_steps=256, batch_size=256, n_epochs=4, seed=0,
                        device="cpu", policy_kwargs={"net_arch": [128, 128]})
    t0 = time.perf_counter()
    model.learn(total_timesteps=timesteps)
    wall = time.perf_counter() - t0
    return {"env_share": spent[0] / wall, "timesteps_per_s": timesteps / wall}


def openspiel_connect_four(seconds: float) -> dict[str, float]:
    """OpenSpiel connect_four, random legal play with a numpy observation each step."""
    import pyspiel

    game = pyspiel.load_game("connect_four")
    rng = np.random.default_rng(0)
    steps = games = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            np.asarray(state.observation_tensor(), dtype=np.float32)
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
            steps += 1
        games += 1
    dt = time.perf_counter() - t0
    return {"steps_per_s": steps / dt, "games_per_s": games / dt}


# --- the suite ------------------------------------------------------------------------------


def suite(seconds: float, ppo_steps: int) -> dict[str, Callable[[], dict[str, float]]]:
    """Name -> workload."""
    from pettingzoo.classic import connect_four_v3, texas_holdem_no_limit_v6

    from tabletop_gym.envs import positano_v0, rapa_nui_v0

    s = seconds
    jobs: dict[str, Callable[[], dict[str, float]]] = {
        "aec rapa_nui 2p": lambda: aec_random_play(lambda: rapa_nui_v0.env(num_players=2), s),
        "aec rapa_nui 4p": lambda: aec_random_play(lambda: rapa_nui_v0.env(num_players=4), s),
        "aec positano 2p": lambda: aec_random_play(lambda: positano_v0.env(num_players=2), s),
        "aec positano 4p": lambda: aec_random_play(lambda: positano_v0.env(num_players=4), s),
        "aec positano solo": lambda: aec_random_play(lambda: positano_v0.env(num_players=1), s),
        "engine rapa_nui 2p": lambda: engine_only("rapa_nui", {"num_players": 2}, s),
        "engine rapa_nui 4p": lambda: engine_only("rapa_nui", {"num_players": 4}, s),
        "engine positano 2p": lambda: engine_only("positano", {"num_players": 2}, s),
        "engine positano 4p": lambda: engine_only("positano", {"num_players": 4}, s),
        "observe rapa_nui 2p": lambda: observe_cost(lambda: rapa_nui_v0.raw_env(num_players=2), s),
        "observe positano 2p": lambda: observe_cost(lambda: positano_v0.raw_env(num_players=2), s),
        "gym Positano-v0": lambda: single_agent_steps("Positano-v0", s),
        "gym RapaNui-v0": lambda: single_agent_steps("RapaNui-v0", s),
        "anchor pz connect_four_v3": lambda: aec_random_play(connect_four_v3.env, s),
        "anchor pz texas_holdem_no_limit_v6": lambda: aec_random_play(
            texas_holdem_no_limit_v6.env, s),
        "anchor openspiel connect_four": lambda: openspiel_connect_four(s),
    }
    if ppo_steps:
        jobs["ppo Positano-v0 env share"] = lambda: ppo_env_share(ppo_steps)
    return jobs


def summarise(runs: dict[str, list[dict[str, float]]]) -> dict[str, dict[str, list[float]]]:
    """Per job and metric: [median, min, max]."""
    out: dict[str, dict[str, list[float]]] = {}
    for name, reps in runs.items():
        out[name] = {}
        for metric in reps[0]:
            vals = [r[metric] for r in reps]
            out[name][metric] = [statistics.median(vals), min(vals), max(vals)]
    return out


def targets(summary: dict[str, dict[str, list[float]]]) -> list[dict[str, object]]:
    """The issue's targets as ratios of figures of this run."""
    anchor = summary["anchor pz connect_four_v3"]["steps_per_s"][0]
    rows: list[dict[str, object]] = []
    for name, metrics in summary.items():
        if name.startswith("aec "):
            ratio = metrics["steps_per_s"][0] / anchor
            rows.append({"target": f"{name} ≥ 1.0× PZ connect_four_v3",
                         "value": f"{ratio:.2f}×", "pass": ratio >= 1.0})
    for name in ("engine rapa_nui 2p", "engine positano 2p"):
        v = summary[name]["decisions_per_s"][0]
        rows.append({"target": f"{name} ≥ 100,000 decisions/s", "value": f"{v:,.0f}",
                     "pass": v >= 100_000})
    if "ppo Positano-v0 env share" in summary:
        share = summary["ppo Positano-v0 env share"]["env_share"][0]
        rows.append({"target": "env ≤ 15 % of MaskablePPO wall time (Positano-v0)",
                     "value": f"{100 * share:.1f} %", "pass": share <= 0.15})
    return rows


def markdown(summary: dict[str, dict[str, list[float]]], rows: list[dict[str, object]],
             meta: dict[str, object]) -> str:
    """The results as Markdown tables."""
    lines = [f"Measured {meta['date']} on {meta['machine']} (Python {meta['python']}), "
             f"{meta['reps']} repetitions × {meta['seconds']} s, median [min–max].", "",
             "| configuration | metric | median | min | max |", "|---|---|---|---|---|"]
    for name, metrics in summary.items():
        for metric, (med, lo, hi) in metrics.items():
            fmt = "{:,.3f}" if metric == "env_share" else "{:,.1f}"
            lines.append(f"| {name} | {metric} | {fmt.format(med)} | {fmt.format(lo)} | "
                         f"{fmt.format(hi)} |")
    lines += ["", "| target | value | verdict |", "|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['target']} | {r['value']} | {'PASS' if r['pass'] else 'FAIL'} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Run the suite round-robin and write the results."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--seconds", type=float, default=2.0)
    p.add_argument("--ppo-steps", type=int, default=8192)
    p.add_argument("--quick", action="store_true", help="1 repetition of 0.3 s, no PPO")
    args = p.parse_args(argv)
    if args.quick:
        args.reps, args.seconds, args.ppo_steps = 1, 0.3, 0
    jobs = suite(args.seconds, args.ppo_steps)
    runs: dict[str, list[dict[str, float]]] = {k: [] for k in jobs}
    for rep in range(args.reps):
        for name, job in jobs.items():
            runs[name].append(job())
            print(f"[rep {rep + 1}/{args.reps}] {name}: "
                  + ", ".join(f"{k}={v:,.2f}" for k, v in runs[name][-1].items()), flush=True)
    summary = summarise(runs)
    rows = targets(summary)
    meta = {"date": time.strftime("%Y-%m-%d"), "machine": platform.machine(),
            "python": platform.python_version(), "reps": args.reps, "seconds": args.seconds}
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "latest.json").write_text(json.dumps(
        {"meta": meta, "summary": summary, "targets": rows, "runs": runs}, indent=1))
    md = markdown(summary, rows, meta)
    (RESULTS / "latest.md").write_text(md)
    print()
    print(md)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
