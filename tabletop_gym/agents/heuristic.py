"""The rule-based bot of each game, as its registration names it, and its named variants.

A game's bot lives in its own package (``tabletop_gym/envs/<game>/bot.py``) and is found through
the registry (:attr:`tabletop_gym.registry.GameSpec.heuristic`), so this module names no game.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tabletop_gym.agents.base import Agent
from tabletop_gym.core.game import Game
from tabletop_gym.core.observer import Observer
from tabletop_gym.registry import game_spec


def variants_of(game_name: str) -> dict[str, Any]:
    """The named variants (``heuristic:NAME``) of ``game_name``'s bot: name -> priorities.

    Raises:
        ValueError: When the game is not registered.
    """
    return dict(getattr(game_spec(game_name).heuristic_class(), "variants", {}))


def heuristic_for(game: Game, observer: Observer, rng: np.random.Generator | None = None,
                  variant: str | None = None) -> Agent:
    """The heuristic bot for ``game`` reading observations laid out by ``observer``.

    Args:
        game: The game (or the turn-based game around it).
        observer: The observer whose layout the observations follow.
        rng: Generator that breaks the bot's ties.
        variant: A named variant of the bot (``None``: the bot itself).

    Raises:
        ValueError: When the game is not registered or the variant is not one of its bot's.
    """
    name = str(game.name)
    cls = game_spec(name).heuristic_class()
    if variant is None:
        bot: Agent = cls(game, observer, rng)
        return bot
    known = variants_of(name)
    if variant not in known:
        raise ValueError(f"unknown heuristic variant {variant!r} for {name}; its variants: "
                         f"{sorted(known)}")
    variant_bot: Any = cls(game, observer, rng, priorities=known[variant])
    variant_bot.name = f"heuristic:{variant}"  # what leagues, records and results call it
    return variant_bot  # type: ignore[no-any-return]
