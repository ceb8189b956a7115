"""The batched engine of a registered game, looked up by name: :func:`make`.

The primitives every batched game shares (:class:`~tabletop_gym.core.batched.BatchedGame`,
exact returns, the shuffles of hidden information) live in :mod:`tabletop_gym.core.batched`;
each game's twin lives in its package (``tabletop_gym.envs.<game>.batched``) and is found
through the registry (``GameSpec.batched``).
"""

from __future__ import annotations

import functools
from typing import Any

from tabletop_gym.core.batched import BatchedGame
from tabletop_gym.core.game import ConfigError
from tabletop_gym.registry import game_spec, game_specs


def batched_games() -> tuple[str, ...]:
    """Registry names of the games that have a batched engine."""
    return tuple(spec.name for spec in game_specs() if spec.batched is not None)


def make(game: str, **config: Any) -> BatchedGame:
    """The batched engine of ``game`` bound to a config given by its switches.

    Args:
        game: A registered game with a batched engine (:func:`batched_games`), by any name the
            registry resolves.
        **config: The reference config's switches (``num_players``, ``reward_type``, ...),
            validated by the reference config class.

    Raises:
        ConfigError: For an unknown game, key or value.
    """
    try:
        spec = game_spec(game)
    except ValueError:
        spec = None
    if spec is None or spec.batched is None:
        raise ConfigError(
            f"game={game!r} has no batched engine; choose one of {batched_games()}"
        )
    return _bind(spec.name, spec.game_class()(**config).config)


@functools.cache
def _bind(game: str, cfg: Any) -> BatchedGame:
    # One object per config, so that jit caches keyed on it are reused, not recompiled.
    bound: BatchedGame = game_spec(game).batched_spec()(cfg)
    return bound


__all__ = ["batched_games", "make"]
