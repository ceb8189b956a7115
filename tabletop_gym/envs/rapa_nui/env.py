"""Rapa Nui as PettingZoo AEC and parallel envs: wiring only (engine + observer + render).

The game is sequential, so in the parallel env the agent to act sends its action and every other
agent sends the no-op 45 (the one id the parallel view appends to the game's 45 actions).
"""

from __future__ import annotations

from typing import Any

from tabletop_gym.core.aec import OrderEnforcing, TabletopAECEnv
from tabletop_gym.core.parallel import TabletopParallelEnv
from tabletop_gym.core.render import RENDER_MODES
from tabletop_gym.envs.rapa_nui.observer import RapaNuiObserver
from tabletop_gym.envs.rapa_nui.picture import draw_rapa_nui, scene_rapa_nui
from tabletop_gym.envs.rapa_nui.render import describe_events, render_text
from tabletop_gym.envs.rapa_nui.rules import RapaNuiGame

_METADATA = {
    "render_modes": RENDER_MODES,
    "name": "rapa_nui_v0",
    "is_parallelizable": False,
    "render_fps": 1,
}


class raw_env(TabletopAECEnv):
    """Rapa Nui for 2–4 players; see ``docs/envs/rapa_nui.md``."""

    metadata = _METADATA
    game_class = RapaNuiGame
    observer_class = RapaNuiObserver
    renderer = staticmethod(render_text)
    painter = staticmethod(draw_rapa_nui)
    scene = staticmethod(scene_rapa_nui)
    narrator = staticmethod(describe_events)


class raw_parallel_env(TabletopParallelEnv):
    """Rapa Nui as a PettingZoo parallel env (``Discrete(46)``: the others send the no-op 45)."""

    metadata = {**_METADATA, "name": "rapa_nui_parallel_v0"}  # noqa: RUF012
    game_class = RapaNuiGame
    observer_class = RapaNuiObserver
    renderer = staticmethod(render_text)
    painter = staticmethod(draw_rapa_nui)


def env(**kwargs: Any) -> OrderEnforcing:
    """The Rapa Nui AEC env with PettingZoo's order enforcement.

    Args:
        **kwargs: ``render_mode``, ``illegal_action`` and the game's config switches
            (``num_players``, ``reward_type``, ``moai_choice``, ...).
    """
    return OrderEnforcing(raw_env(**kwargs))


def parallel_env(**kwargs: Any) -> raw_parallel_env:
    """The Rapa Nui parallel env (same keyword arguments as :func:`env`)."""
    return raw_parallel_env(**kwargs)
