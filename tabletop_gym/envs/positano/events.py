"""Positano's change events: what each rule changed, as the engine tells its listener.

Standard library only: the engine imports it. The observer's facts (:mod:`.facts`) follow these
events; the engine knows nothing of them. Rule sections are those of ``docs/rules/positano.md``.
"""

from __future__ import annotations

from tabletop_gym.core.events import Vocabulary

__all__ = ["EVENTS"]

EVENTS = Vocabulary("positano", [
    ("TURN", (), "the phase, the draft turn or the seat to act changed (every action)"),
    ("BID_PLAYED", ("colour", "card", "booster"),
     "a colour's bid card and booster left its hand and were revealed (§3.1; Otto's top card "
     "and booster in solo, §7)"),
    ("ORDERS_SET", (), "this round's three draft orders were set from the bids (§3.2)"),
    ("LOT_TAKEN", ("colour", "pos"), "a colour drafted the lot tile at ``pos`` (§3.2)"),
    ("TILE_TAKEN", ("colour", "kind", "tile"),
     "a colour drafted a block (``kind`` 1) or build (2) tile from the Beach Board (§3.3, §3.4)"),
    ("SUPPLY", ("colour",), "a colour's personal or general supply of blocks changed (§3.3, §4)"),
    ("ROOFS", (), "the roof pieces left changed (§4)"),
    ("BUILDING", ("pos", "old_owner", "old_height", "old_roof"),
     "the building at ``pos`` changed (built, raised, re-roofed); the old one's owner, height "
     "and roof (-1, 0, 0: none) (§4)"),
    ("ROUND_ENDED", ("old_round", "lots", "blocks", "builds"),
     "round ``old_round`` ended: orders cleared; on a new round these tiles came face up from "
     "the stacks (§3.5), at the end none (§6)"),
])
"""Every change the Positano engine reports, by code."""

(TURN, BID_PLAYED, ORDERS_SET, LOT_TAKEN, TILE_TAKEN, SUPPLY, ROOFS, BUILDING,
 ROUND_ENDED) = range(len(EVENTS))
