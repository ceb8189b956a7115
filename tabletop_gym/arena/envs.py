"""The public lookup of a game's envs, by any of the names the registry knows."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tabletop_gym.core.aec import TabletopAECEnv
from tabletop_gym.core.game import ConfigError
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


def people_env(game: str, split: bool = True, **kwargs: Any) -> TabletopAECEnv:
    """The raw AEC env a person plays (the CLI's ``play`` and the web app).

    With ``split``, each simultaneous action is entered as sub-decisions wherever the
    configuration has one (a Positano bid as two clicks, the card and then the booster, rather
    than one of 42 pairs). A configuration without a simultaneous action to split (Positano
    solo, where the player bids alone) refuses the game's ``split_switch``, and is then played
    with single decisions.

    Args:
        game: A game name, env name or Gymnasium id.
        split: Turn the game's ``split_switch`` on where the configuration allows it.
        **kwargs: ``raw_env`` keywords (config switches, ``render_mode``).

    Raises:
        ConfigError: For a bad configuration (the env's own message).
    """
    spec = game_spec(game)
    cls = raw_env_factory(game)
    if split and spec.split_switch is not None:
        try:
            return cls(**{**kwargs, spec.split_switch: True})
        except ConfigError:
            pass
    return cls(**kwargs)
