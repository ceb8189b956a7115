"""Registration of the envs with Gymnasium (single-agent views) and PettingZoo (AEC/parallel)."""

from __future__ import annotations

import gymnasium

GYM_ENVS = {
    "Positano-v0": ("tabletop_gym.wrappers.single_agent:make_positano", 400),
    "RapaNui-v0": ("tabletop_gym.wrappers.single_agent:make_rapa_nui", 1000),
}
"""Gymnasium id -> (entry point, max_episode_steps). Every game ends long before the limit."""

PZ_ENVS = {
    ("aec", "tabletop_gym/Positano-v0"): "tabletop_gym.envs.positano_v0:env",
    ("parallel", "tabletop_gym/Positano-v0"): "tabletop_gym.envs.positano_v0:parallel_env",
    ("aec", "tabletop_gym/RapaNui-v0"): "tabletop_gym.envs.rapa_nui_v0:env",
    ("parallel", "tabletop_gym/RapaNui-v0"): "tabletop_gym.envs.rapa_nui_v0:parallel_env",
}


def register_envs() -> None:
    """Register every env id and task id (idempotent: ids already registered are left alone)."""
    from tabletop_gym.tasks import register_tasks

    register_tasks()
    for env_id, (entry, steps) in GYM_ENVS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(env_id, entry_point=entry, max_episode_steps=steps)
    try:
        from pettingzoo import register as pz_register
        from pettingzoo import spec as pz_spec
    except ImportError:  # PettingZoo before its registry existed
        return
    for (kind, env_id), entry in PZ_ENVS.items():
        try:
            pz_spec(kind, env_id)
            continue
        except Exception:
            pass
        pz_register(kind, env_id, entry_point=entry)
