"""Positano: the rules engine, scoring and observers of the board game Positano.

The engine's names are imported on first use, so the game's spec (``spec.py``), which the
registry reads, can be imported without the engine.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tabletop_gym.envs.positano.rules import PositanoConfig, PositanoGame, PositanoState

__all__ = ["PositanoConfig", "PositanoGame", "PositanoState"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        return getattr(importlib.import_module("tabletop_gym.envs.positano.rules"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
