"""Positano: the rules engine, scoring and observers of the board game Positano."""

from tabletop_gym.envs.positano.rules import PositanoConfig, PositanoGame, PositanoState

__all__ = ["PositanoConfig", "PositanoGame", "PositanoState"]
