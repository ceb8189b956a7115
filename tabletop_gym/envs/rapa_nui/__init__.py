"""Rapa Nui: the rules engine, observer and text render of the board game Rapa Nui.

The engine's names are imported on first use, so the game's spec (``spec.py``), which the
registry reads, can be imported without the engine.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tabletop_gym.envs.rapa_nui.observer import RapaNuiObserver
    from tabletop_gym.envs.rapa_nui.rules import RapaNuiConfig, RapaNuiGame, RapaNuiState

__all__ = ["RapaNuiConfig", "RapaNuiGame", "RapaNuiObserver", "RapaNuiState"]
_HOMES = {"RapaNuiObserver": "observer"}


def __getattr__(name: str) -> Any:
    if name in __all__:
        module = importlib.import_module(f"tabletop_gym.envs.rapa_nui.{_HOMES.get(name, 'rules')}")
        return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
