"""The rule-based bot of each game, as its registration names it."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from tabletop_gym.agents.base import Agent
from tabletop_gym.core.game import Game
from tabletop_gym.core.observer import Observer
from tabletop_gym.registry import game_spec

if TYPE_CHECKING:
    # What each bot offers beyond ``act`` (tabletop_gym.agents.base), checked by the type
    # checker against the protocols: Rapa Nui's decides from the parts of its observation, plays
    # forced moves blind and is as good as new after a reseed; Positano's is reseeded.
    from tabletop_gym.agents.base import (
        BlindToForcedMoves,
        PartsAgent,
        ResetBySeed,
        SeedableAgent,
    )
    from tabletop_gym.agents.positano_heuristic import PositanoHeuristic
    from tabletop_gym.agents.rapa_nui_heuristic import RapaNuiHeuristic

    _rapa_nui_parts: type[PartsAgent] = RapaNuiHeuristic
    _rapa_nui_blind: type[BlindToForcedMoves] = RapaNuiHeuristic
    _rapa_nui_reset: type[ResetBySeed] = RapaNuiHeuristic
    _rapa_nui_seed: type[SeedableAgent] = RapaNuiHeuristic
    _positano_seed: type[SeedableAgent] = PositanoHeuristic


def heuristic_for(game: Game, observer: Observer, rng: np.random.Generator | None = None) -> Agent:
    """The heuristic bot for ``game`` reading observations laid out by ``observer``.

    Raises:
        ValueError: When the game is not registered.
    """
    spec = game_spec(game.name)
    bot: Agent = spec.heuristic_class()(game, observer, rng)
    return bot
