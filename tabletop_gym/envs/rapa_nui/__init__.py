"""Rapa Nui: the rules engine, observer and text render of the board game Rapa Nui."""

from tabletop_gym.envs.rapa_nui.observer import RapaNuiObserver
from tabletop_gym.envs.rapa_nui.rules import RapaNuiConfig, RapaNuiGame, RapaNuiState

__all__ = ["RapaNuiConfig", "RapaNuiGame", "RapaNuiObserver", "RapaNuiState"]
