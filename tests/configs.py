"""Every configuration the generic tests run over, from the game registry."""

from __future__ import annotations

from typing import Any

from tabletop_gym.arena.envs import raw_env_factory
from tabletop_gym.registry import game_spec, game_specs


def _configs(game: str) -> list[dict[str, Any]]:
    return [dict(cfg) for _, cfg in game_spec(game).test_configs]


RAPA_NUI = _configs("rapa_nui")
POSITANO = _configs("positano")
POSITANO_IDS = [name for name, _ in game_spec("positano").test_configs]

ENGINE_CONFIGS = [(spec.name, dict(cfg)) for spec in game_specs() for _, cfg in spec.test_configs]


def config_id(item) -> str:
    game, cfg = item
    return game + "-" + "-".join(f"{k}{v}" for k, v in cfg.items())


def raw_env(game: str, **kwargs):
    """A raw AEC env of ``game`` (by the package's lookup, :mod:`tabletop_gym.arena.envs`)."""
    return raw_env_factory(game)(**kwargs)


def wrapped_env(game: str, **kwargs):
    """The public (order-enforced) AEC env of ``game``."""
    return game_spec(game).envs().env(**kwargs)
