"""Rapa Nui as a PettingZoo AEC env: wiring only (engine + observer + render)."""

from __future__ import annotations

from typing import Any

from tabletop_gym.core.aec import OrderEnforcing, TabletopAECEnv
from tabletop_gym.core.render import RENDER_MODES
from tabletop_gym.envs.rapa_nui.observer import RapaNuiObserver
from tabletop_gym.envs.rapa_nui.picture import draw_rapa_nui
from tabletop_gym.envs.rapa_nui.render import describe_events, render_text
from tabletop_gym.envs.rapa_nui.rules import RapaNuiGame


class raw_env(TabletopAECEnv):
    """Rapa Nui for 2–4 players; see ``docs/envs/rapa_nui.md``."""

    metadata = {  # noqa: RUF012 - PettingZoo reads metadata as a class attribute
        "render_modes": RENDER_MODES,
        "name": "rapa_nui_v0",
        "is_parallelizable": False,
        "render_fps": 1,
    }
    game_class = RapaNuiGame
    observer_class = RapaNuiObserver
    renderer = staticmethod(render_text)
    painter = staticmethod(draw_rapa_nui)
    narrator = staticmethod(describe_events)


def env(**kwargs: Any) -> OrderEnforcing:
    """The Rapa Nui AEC env with PettingZoo's order enforcement.

    Args:
        **kwargs: ``render_mode``, ``illegal_action`` and the game's config switches
            (``num_players``, ``reward_type``, ``moai_choice``, ...).
    """
    return OrderEnforcing(raw_env(**kwargs))
