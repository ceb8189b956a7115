"""The rule-based bot of each game, chosen by the game's name."""

from __future__ import annotations

import numpy as np

from tabletop_gym.agents.base import Agent
from tabletop_gym.core.game import Game
from tabletop_gym.core.observer import Observer


def heuristic_for(game: Game, observer: Observer, rng: np.random.Generator | None = None) -> Agent:
    """The heuristic bot for ``game`` reading observations laid out by ``observer``.

    Raises:
        ValueError: When the game has no heuristic bot.
    """
    if game.name == "rapa_nui":
        from tabletop_gym.agents.rapa_nui_heuristic import RapaNuiHeuristic

        return RapaNuiHeuristic(game, observer, rng)
    if game.name == "positano":
        from tabletop_gym.agents.positano_heuristic import PositanoHeuristic

        return PositanoHeuristic(game, observer, rng)
    raise ValueError(f"no heuristic bot for game {game.name!r}")
