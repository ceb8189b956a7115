"""Text views, a text env and the TextArena adapter: the games as language-model agents see them.

See :mod:`tabletop_gym.text.view` (one seat's view and its legal moves as strings),
:mod:`tabletop_gym.text.env` (a PettingZoo-style env over text) and
:mod:`tabletop_gym.text.textarena` (the games registered with TextArena).
"""

from __future__ import annotations

from tabletop_gym.text.view import (
    TEXT_VIEW_VERSION,
    PublicHistory,
    SeatTracker,
    TextObservation,
    legal_moves,
    seat_view,
)

__all__ = [
    "TEXT_VIEW_VERSION",
    "PublicHistory",
    "SeatTracker",
    "TextObservation",
    "legal_moves",
    "seat_view",
]
