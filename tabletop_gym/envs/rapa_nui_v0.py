"""Rapa Nui, version 0: ``env()``, ``raw_env()`` (AEC) and ``parallel_env()`` (parallel).

Example:
    >>> from tabletop_gym.envs import rapa_nui_v0
    >>> env = rapa_nui_v0.env(num_players=3)
    >>> env.reset(seed=42)
    >>> env.agent_selection
    'player_0'

Version history:
    v0: first release.
"""

from tabletop_gym.envs.rapa_nui.env import env, parallel_env, raw_env, raw_parallel_env

__all__ = ["env", "parallel_env", "raw_env", "raw_parallel_env"]
