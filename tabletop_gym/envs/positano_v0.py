"""Positano, version 0: ``env()``, ``raw_env()`` (AEC) and ``parallel_env()`` (parallel).

Example:
    >>> from tabletop_gym.envs import positano_v0
    >>> env = positano_v0.env(num_players=4)
    >>> env.reset(seed=1)
    >>> env.agent_selection  # bids are entered one seat after another, hidden
    'player_0'

Version history:
    v0: first release.
"""

from tabletop_gym.envs.positano.env import env, parallel_env, raw_env, raw_parallel_env

__all__ = ["env", "parallel_env", "raw_env", "raw_parallel_env"]
