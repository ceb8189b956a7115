"""The public lookup of a game's envs, by any of the names the registry knows."""

from __future__ import annotations

from collections.abc import Callable

from tabletop_gym.core.aec import TabletopAECEnv
from tabletop_gym.registry import game_spec


def raw_env_factory(game: str) -> Callable[..., TabletopAECEnv]:
    """The AEC ``raw_env`` of a game given by name, env name or Gymnasium id.

    Example:
        >>> env = raw_env_factory("rapa_nui")(num_players=2)
        >>> len(env.possible_agents)
        2
    """
    factory: Callable[..., TabletopAECEnv] = game_spec(game).envs().raw_env
    return factory
