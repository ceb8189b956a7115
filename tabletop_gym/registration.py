"""Registration of the envs with Gymnasium (single-agent views) and PettingZoo (AEC/parallel)."""

from __future__ import annotations

import gymnasium

from tabletop_gym.registry import game_specs

GYM_ENVS = {spec.gym_id: (spec.gym_entry_point, spec.max_episode_steps, spec.gym_kwargs)
            for spec in game_specs()}
"""Gymnasium id -> (entry point, max_episode_steps, the entry point's keywords). Every game ends
long before the limit."""

PZ_ENVS = {
    (kind, f"tabletop_gym/{spec.gym_id}"): f"{spec.env_module}:{factory}"
    for spec in game_specs()
    for kind, factory in (("aec", "env"), ("parallel", "parallel_env"))
}
"""(kind, PettingZoo id) -> entry point, for every registered game."""

def register_envs() -> None:
    """Register every env id and task id (idempotent: ids already registered are left alone)."""
    from tabletop_gym.tasks import register_tasks

    register_tasks()
    for env_id, (entry, steps, kwargs) in GYM_ENVS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(env_id, entry_point=entry, max_episode_steps=steps,
                               kwargs=dict(kwargs))
    try:
        from pettingzoo import register as pz_register, spec as pz_spec
    except ImportError:  # PettingZoo before its registry existed
        return
    for (kind, env_id), entry in PZ_ENVS.items():
        try:
            pz_spec(kind, env_id)
            continue
        except Exception:
            pass
        pz_register(kind, env_id, entry_point=entry)
