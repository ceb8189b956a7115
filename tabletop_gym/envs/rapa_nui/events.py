"""Rapa Nui's change events: what each action changed, as the engine tells its listener.

Standard library only: the engine imports it. The observer follows these events (it marks the
fact groups an event changed and rewrites them when next read); the engine knows nothing of
it. Every event also ends or moves a turn: the phase, the active seat, the seat to decide or
the draws left may have changed with it. Rule sections are those of ``docs/rules/rapa_nui.md``.
"""

from __future__ import annotations

from tabletop_gym.core.events import Vocabulary

__all__ = ["EVENTS"]

EVENTS = Vocabulary("rapa_nui", [
    ("BOUGHT", ("seat", "kind"),
     "a seat paid wood for an offering card of ``kind`` from the supply (§3)"),
    ("PASSED", ("seat",), "a seat bought nothing or skipped the supply offering (§3, §3.1.2)"),
    ("PLAYED", ("seat", "card", "count"),
     "a seat played ``count`` cards of id ``card`` from its hand to its display, paying wood "
     "for a Moai or for each Hunter & Gatherer card after the first (§3)"),
    ("MOAI_REMOVED", ("seat",), "a seat removed a Moai card from the game (§3)"),
    ("DREW", ("seat", "column"),
     "a seat drew the front card of ``column``, which the draw pile refilled (§3)"),
    ("OFFERED", ("seat", "kind", "face_down"),
     "a seat put an offering card of ``kind`` on the stone, face down (the active seat's, "
     "its kind private) or face up (§3.1.1, §3.1.2)"),
    ("SUPPLIED", ("seat", "kind"),
     "the active seat put a card of ``kind`` from the supply face up on the stone (§3.1.2)"),
    ("SPLIT", ("seat", "vp"), "a seat split its Moai units into ``vp`` VP and the rest wood (§4)"),
    ("SCORED", ("card",),
     "the turn scoring of the revealed ``card`` paid every seat (§4)"),
])
"""Every change the Rapa Nui engine reports, by code."""

(BOUGHT, PASSED, PLAYED, MOAI_REMOVED, DREW, OFFERED, SUPPLIED, SPLIT,
 SCORED) = range(len(EVENTS))
