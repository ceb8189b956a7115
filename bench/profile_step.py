"""Where an AEC step goes: cProfile of random play, split into observation, engine and adapter.

Usage: ``python bench/profile_step.py [--games 20] [config ...]`` with configs such as
``positano:1`` ``positano:6`` ``rapa_nui:2`` (default: Positano solo, 2p, 6p and Rapa Nui 2p),
or ``gym:RapaNui-v0`` for the single-agent view with its heuristic opponent, or ``vec:RapaNui-v0``
for the vector env MaskablePPO steps at ``make train``'s settings (8 envs in
``tabletop_gym.integrations.sb3``'s vector env, the action masks fetched every step; the policy
is replaced by a random masked choice, which the loop's own share holds, and the heuristic's
hint that ``make train``'s policy reads, policy-side, is left out), or
``dummyvec:RapaNui-v0`` for the same over SB3's ``DummyVecEnv`` and ``gymnasium.make`` (the
construction ``train()`` used before, kept as a reference). Shares are of the profiled loop's
total time (profiling inflates every call by about the same overhead, so the shares, not the
absolute times, are the result; it inflates Python-heavy parts such as ``deepcopy`` most).
"""

from __future__ import annotations

import argparse
import cProfile
import pathlib
import pstats
import sys
import time
from typing import Any

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# (label, file suffix, function name): cumulative time of these functions, in loop order.
PARTS = [
    ("observation (encode + mask copy)", "core/aec.py", "observe"),
    ("adapter bookkeeping (_after_change: mask, infos)", "core/aec.py", "_after_change"),
    ("whole step() (engine and bookkeeping included)", "core/aec.py", "step"),
    ("heuristic opponent (act_on)", "envs/rapa_nui/bot.py", "act_on"),
    ("observation encode", "core/observer.py", "encode"),
]
VEC_PARTS = [
    ("single-agent step (opponents included)", "wrappers/single_agent.py", "step"),
    ("opponents' moves (_opponent_action)", "wrappers/single_agent.py", "_opponent_action"),
    ("single-agent reset", "wrappers/single_agent.py", "reset"),
    ("action_masks (one env's)", "wrappers/single_agent.py", "action_masks"),
    ("SingleAgentVecEnv.step_wait (all of the step)", "integrations/sb3.py", "step_wait"),
    ("SingleAgentVecEnv.env_method (the mask fetch)", "integrations/sb3.py", "env_method"),
    ("DummyVecEnv.step_wait (all of the step)", "vec_env/dummy_vec_env.py", "step_wait"),
    ("deep copy of the infos (in step_wait)", "/copy.py", "deepcopy"),
    ("DummyVecEnv.env_method (the mask fetch)", "vec_env/dummy_vec_env.py", "env_method"),
]
"""Rows of a ``vec:``/``dummyvec:`` profile; a row whose function was not called is left out."""


def play_aec(game: str, n: int, games: int) -> None:
    """Random legal play through the public AEC env."""
    from tabletop_gym.envs import positano_v0, rapa_nui_v0

    mod = positano_v0 if game == "positano" else rapa_nui_v0
    env = mod.env(num_players=n)
    rng = np.random.default_rng(0)
    for seed in range(games):
        env.reset(seed=seed)
        for _agent in env.agent_iter():
            obs, _r, term, trunc, _info = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(legal.size)]))


def play_gym(env_id: str, games: int) -> None:
    """Random masked play through the single-agent view (opponents included)."""
    import gymnasium

    import tabletop_gym  # noqa: F401

    env = gymnasium.make(env_id)
    rng = np.random.default_rng(0)
    for seed in range(games):
        env.reset(seed=seed)
        done = False
        while not done:
            mask = env.unwrapped.action_masks()
            _, _, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
            done = term or trunc


ENGINE = "engine (step()'s apply call, transform included)"
"""The engine's row: whatever ``apply_*`` method the AEC env's ``step()`` calls (the trusted
path binds it to the game's own ``_apply_action``), counted as called from ``step()``."""


def make_train_vec(env_id: str, dummy: bool = False) -> Any:
    """The vector env ``make train`` steps (8 envs, seed 0, ``train()``'s env kwargs); with
    ``dummy``, the same envs through ``gymnasium.make`` in SB3's ``DummyVecEnv``."""
    import tabletop_gym  # noqa: F401
    from tabletop_gym.tasks.recipes import DEFAULT_ENV_KWARGS

    kwargs = DEFAULT_ENV_KWARGS.get(env_id, {})
    if dummy:
        import gymnasium
        from stable_baselines3.common.env_util import make_vec_env as sb3_make_vec_env
        from stable_baselines3.common.vec_env import DummyVecEnv

        return sb3_make_vec_env(lambda: gymnasium.make(env_id, **kwargs), n_envs=8, seed=0,
                                vec_env_cls=DummyVecEnv)
    from tabletop_gym.integrations.sb3 import make_vec_env

    return make_vec_env(env_id, n_envs=8, seed=0, env_kwargs=kwargs)


def play_vec(env_id: str, steps: int, dummy: bool = False) -> None:
    """The vector env as MaskablePPO drives it, with a random masked choice as the policy."""
    vec = make_train_vec(env_id, dummy)
    vec.reset()
    rng = np.random.default_rng(0)
    for _ in range(steps):
        masks = np.stack(vec.env_method("action_masks"))
        vec.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))


def shares(profile: cProfile.Profile, total_fn: str) -> list[tuple[str, float]]:
    """Cumulative share of each part in :data:`PARTS` of the loop function ``total_fn``."""
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    cum: dict[tuple[str, str], float] = {}
    total = 0.0
    engine = 0.0
    for (file, _line, name), (_cc, _nc, _tt, ct, callers) in stats.items():
        if name == total_fn and file.endswith("profile_step.py"):
            total = ct
        if total_fn == "play_vec":
            continue
        for _label, suffix, fn in PARTS:
            if name == fn and file.endswith(suffix):
                # A wrapper's method of the same name calls the env's: the outer one counts.
                cum[(suffix, fn)] = max(cum.get((suffix, fn), 0.0), ct)
        if "apply" in name:
            for (cfile, _cline, cname), caller_stats in callers.items():
                if cname == "step" and cfile.endswith("core/aec.py"):
                    engine += caller_stats[3]
    if total_fn == "play_vec":
        return vec_shares(stats, total)
    out = [(label, cum[(s, f)] / total) for label, s, f in PARTS if (s, f) in cum]
    return [*out[:1], (ENGINE, engine / total), *out[1:]]


def vec_shares(stats: dict[Any, Any], total: float) -> list[tuple[str, float]]:
    """Shares of :data:`VEC_PARTS` in the vector-env loop (outermost calls, so no double count
    of a recursive function such as ``deepcopy``)."""
    out = []
    for label, suffix, fn in VEC_PARTS:
        ct = 0.0
        for (file, _line, name), (_cc, _nc, _tt, fct, callers) in stats.items():
            if name != fn or not file.endswith(suffix):
                continue
            if fn == "deepcopy":
                # Only the calls step_wait makes itself: the nested ones are inside them.
                ct += sum(c[3] for (cf, _cl, cn), c in callers.items()
                          if cn == "step_wait" and cf.endswith("dummy_vec_env.py"))
            else:
                # The outermost call: gymnasium's wrappers of the same name call the env's.
                ct = max(ct, fct)
        if ct:
            out.append((label, ct / total))
    return out


def main(argv: list[str] | None = None) -> int:
    """Profile each configuration and print the shares."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=20)
    p.add_argument("configs", nargs="*",
                   default=["positano:1", "positano:2", "positano:6", "rapa_nui:2",
                            "gym:RapaNui-v0"])
    args = p.parse_args(argv)
    for spec in args.configs:
        kind, _, arg = spec.partition(":")
        # CPU time, not wall time: a shared machine then disturbs the shares less.
        prof = cProfile.Profile(time.process_time)
        # One unprofiled game first: imports and first-time tables stay out of the shares.
        if kind == "gym":
            play_gym(arg, 1)
            prof.runcall(play_gym, arg, args.games)
            total_fn = "play_gym"
        elif kind in ("vec", "dummyvec"):
            dummy = kind == "dummyvec"
            play_vec(arg, 20, dummy)
            # About as many learner steps as ``--games`` whole games would have.
            prof.runcall(play_vec, arg, 25 * args.games, dummy)
            total_fn = "play_vec"
        else:
            play_aec(kind, int(arg), 1)
            prof.runcall(play_aec, kind, int(arg), args.games)
            total_fn = "play_aec"
        print(f"{spec}:")
        for label, share in shares(prof, total_fn):
            print(f"  {label:52s} {100 * share:5.1f} %")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
