"""The rule-based bot of each game, as its registration names it."""

from __future__ import annotations

import numpy as np

from tabletop_gym.agents.base import Agent
from tabletop_gym.core.game import Game
from tabletop_gym.core.observer import Observer
from tabletop_gym.registry import game_spec


def heuristic_for(game: Game, observer: Observer, rng: np.random.Generator | None = None) -> Agent:
    """The heuristic bot for ``game`` reading observations laid out by ``observer``.

    Raises:
        ValueError: When the game is not registered.
    """
    spec = game_spec(game.name)
    bot: Agent = spec.heuristic_class()(game, observer, rng)
    return bot
