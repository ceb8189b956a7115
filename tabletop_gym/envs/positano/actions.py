"""Positano's action ids, declared once: :data:`ACTIONS`, one layout for every configuration.

Pure standard library (the rules engine imports it). The rules, ``action_to_string``, the bots,
the docs table and the JAX twin read the ids from this layout: a bid id is
``ACTIONS["bid"].encode(card, booster)`` and ``ACTIONS["bid"].decode(id)`` gives the pair back;
``ACTIONS.decision_of(id)`` names the decision an id answers (a phase name, or ``bid_card`` /
``bid_booster`` for the split-bid sub-decisions). The ``A_*`` constants are the ranges' first
ids, for the engine's hot paths.
"""

from __future__ import annotations

from tabletop_gym.core.layout import ActionLayout
from tabletop_gym.envs.positano import components as C

__all__ = ["ACTIONS", "BIDS", "NUM_ACTIONS"]

_CARDS = f"#{C.BID_CARDS[0].number}..#{C.BID_CARDS[-1].number}"
_BOOSTERS = ", ".join(f"+{b.value}" for b in C.BOOSTERS)

ACTIONS = ActionLayout(
    [
        (
            "bid",
            (len(C.BID_CARDS), len(C.BOOSTERS)),
            "bid",
            f"bid: base card c (0..{len(C.BID_CARDS) - 1} = card {_CARDS}) with booster b "
            f"(0..{len(C.BOOSTERS) - 1} = {_BOOSTERS})",
        ),
        (
            "bid_card",
            len(C.BID_CARDS),
            "bid_card",
            "bid card c only (first sub-decision with `split_bids=True`; never legal in the "
            "engine itself)",
        ),
        (
            "bid_booster",
            len(C.BOOSTERS),
            "bid_booster",
            "booster b only (second sub-decision with `split_bids=True`; never legal in the "
            "engine itself)",
        ),
        (
            "lot",
            C.NUM_LOTS,
            "draft_lot",
            "draft the lot tile at position pos = r·5 + c (r = row − 1, c = column A = 0)",
        ),
        ("block", C.MAX_TILES, "draft_block", "draft block tile index t (t = printed id − 40)"),
        (
            "multiply",
            1,
            "block_choice",
            "2X/3X tile: multiply option (double/triple the personal supply)",
        ),
        ("flat", 1, "block_choice", "2X/3X tile: flat option (+2 / +3)"),
        (
            "build_tile",
            C.MAX_TILES,
            "draft_build",
            "draft build tile index t (t = printed id − 60)",
        ),
        ("height", C.MAX_HEIGHT, "build", f"build with height h = 1..{C.MAX_HEIGHT}: index h − 1"),
        ("add_on", C.NUM_LOTS, "add_on", "Add-On: add 1 block to own building at pos"),
        ("skip_add_on", 1, "add_on", "skip the Add-On"),
        ("remodel", C.NUM_LOTS, "remodel", "Remodel: upgrade the roof of own building at pos"),
        ("skip_remodel", 1, "remodel", "skip the Remodel"),
        (
            "noop",
            1,
            "noop",
            "no-op (never legal in the engine; the parallel env's only id for agents not to act)",
        ),
    ]
)
"""Every action id of every configuration, as named ranges (see the env's docs page)."""

NUM_ACTIONS = ACTIONS.size
BIDS = ACTIONS["bid"]
"""The bid range: id ``BIDS.encode(card, booster)``, ``BIDS.decode(id) == (card, booster)``."""

A_BID = BIDS.start
A_BID_CARD = ACTIONS["bid_card"].start
A_BID_BOOSTER = ACTIONS["bid_booster"].start
A_LOT = ACTIONS["lot"].start
A_BLOCK = ACTIONS["block"].start
A_MULTIPLY = ACTIONS["multiply"].start
A_FLAT = ACTIONS["flat"].start
A_BUILD_TILE = ACTIONS["build_tile"].start
A_HEIGHT = ACTIONS["height"].start - 1
"""Building ``h`` blocks (h = 1..7) is id ``A_HEIGHT + h``."""
A_ADD_ON = ACTIONS["add_on"].start
A_SKIP_ADD_ON = ACTIONS["skip_add_on"].start
A_REMODEL = ACTIONS["remodel"].start
A_SKIP_REMODEL = ACTIONS["skip_remodel"].start
A_NOOP = ACTIONS["noop"].start
BOOSTERS_PER_CARD = BIDS.shape[1]
"""Boosters per base card in the bid range (its second axis)."""

BID_ID: tuple[tuple[int, ...], ...] = tuple(
    tuple(BIDS.encode(c, b) for b in range(BIDS.shape[1])) for c in range(BIDS.shape[0])
)
"""``BID_ID[card][booster]``: the bid's id, looked up (the engine lists bids in hot paths)."""
BID_PAIR: tuple[tuple[int, int], ...] = tuple(
    (p[0], p[1]) for p in (BIDS.decode(a) for a in range(BIDS.start, BIDS.stop))
)
"""``BID_PAIR[id - A_BID]``: the (card, booster) of a bid id, looked up."""
