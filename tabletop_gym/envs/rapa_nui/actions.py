"""Rapa Nui's action ids, declared once: :data:`ACTIONS`, one layout for every player count.

Pure standard library (the rules engine imports it). The rules, ``action_to_string``, the bots,
the docs table and the JAX twin read the ids from this layout: playing ``c`` H&G cards of kind
``k`` is ``ACTIONS["play_hg"].encode(k, c - 1)`` (:func:`play_hg_action`), and
``ACTIONS.decision_of(id)`` names the phase an id answers. The upper-case constants are the
ranges' first ids, for the engine's hot paths.
"""

from __future__ import annotations

from tabletop_gym.core.layout import ActionLayout
from tabletop_gym.envs.rapa_nui.components import (
    BUY_BASE_COST,
    HAND_SIZE,
    MAX_MOAI_UNITS,
    MOAI_COST,
    NUM_COLUMNS,
    NUM_KINDS,
)

__all__ = ["ACTIONS", "NUM_ACTIONS", "PLAY_HG_RANGE", "play_hg_action"]

ACTIONS = ActionLayout(
    [
        (
            "buy",
            NUM_KINDS,
            "buy",
            f"phase 1: buy an offering card of kind k (cost max(0, {BUY_BASE_COST} − own H&G of "
            "kind k in the display))",
        ),
        ("no_buy", 1, "buy", "phase 1: make no purchase"),
        ("play_woodcutter", 1, "play", "phase 2: play a Woodcutter"),
        ("play_priest", 1, "play", "phase 2: play a Priest"),
        (
            "play_moai",
            1,
            "play",
            f"phase 2: build a Moai ({MOAI_COST} wood; starts an offering round)",
        ),
        (
            "play_hg",
            (NUM_KINDS, HAND_SIZE),
            "play",
            f"phase 2: play c = 1..{HAND_SIZE} H&G of kind k (c − 1 wood), index (k, c − 1)",
        ),
        ("remove_moai", 1, "play", "phase 2: remove a Moai from the game (three Moai in hand)"),
        ("draw", NUM_COLUMNS, "draw", "phase 3: take the front card of column c (0-based)"),
        (
            "offer",
            NUM_KINDS,
            "offer",
            "offering round: place an own offering card of kind k (face up by the other "
            "players, face down by the active one)",
        ),
        (
            "supply",
            NUM_KINDS,
            "supply_offer",
            "offering round: the active player offers kind k from the supply, face up",
        ),
        (
            "supply_skip",
            1,
            "supply_offer",
            "offering round: no supply card (only with active_supply_offering_optional)",
        ),
        (
            "moai_vp",
            MAX_MOAI_UNITS + 1,
            "moai_split",
            f"Moai scoring: take v = 0..{MAX_MOAI_UNITS} of the units as VP, the rest as wood",
        ),
    ]
)
"""Every action id, as named ranges (one layout for every player count and phase)."""

PLAY_HG_RANGE = ACTIONS["play_hg"]
"""Playing H&G cards: ``PLAY_HG_RANGE.encode(kind, count - 1)``."""
BUY = ACTIONS["buy"].start
NO_BUY = ACTIONS["no_buy"].start
PLAY_WOODCUTTER = ACTIONS["play_woodcutter"].start
PLAY_PRIEST = ACTIONS["play_priest"].start
PLAY_MOAI = ACTIONS["play_moai"].start
PLAY_HG = PLAY_HG_RANGE.start
REMOVE_MOAI = ACTIONS["remove_moai"].start
DRAW = ACTIONS["draw"].start
OFFER = ACTIONS["offer"].start
SUPPLY = ACTIONS["supply"].start
SUPPLY_SKIP = ACTIONS["supply_skip"].start
MOAI_VP = ACTIONS["moai_vp"].start
NUM_ACTIONS = ACTIONS.size
"""Number of action ids (:data:`ACTIONS`' size)."""

HG_OF: tuple[tuple[int, int], ...] = tuple(
    (k, c) for k, c in map(PLAY_HG_RANGE.decode, range(PLAY_HG, PLAY_HG_RANGE.stop))
)
"""``HG_OF[id - PLAY_HG]``: the (kind, count - 1) of an H&G id, looked up (engine hot paths)."""
HG_ID: tuple[tuple[int, ...], ...] = tuple(
    tuple(PLAY_HG_RANGE.encode(k, c) for c in range(HAND_SIZE)) for k in range(NUM_KINDS)
)
"""``HG_ID[kind][count - 1]``: the id of playing ``count`` H&G cards of ``kind``, looked up."""


def play_hg_action(kind: int, count: int) -> int:
    """Action id of playing ``count`` (1..3) H&G cards of ``kind``."""
    return PLAY_HG_RANGE.encode(kind, count - 1)
