"""Positano observation vectors: what one seat may know, ego-centric, one layout for every config.

The layout is the same for every configuration (1–6 players, 4×4 or 5×5): per-player blocks are
padded to 6 colours (zeros for colours not in play), the cliff always has 25 lots in the shared
``pos = r * 5 + c`` indexing, tile slices have 25 entries per tile index, and the tiles on the
Beach Board and in the stacks are also described by their *contents* (blocks, 2X/3X, roof,
height bonus, extra action, gelato), because tile index ``t`` means different tiles in the 4×4 and
5×5 sets. Values are raw counts and flags; every slice's bounds are proven maxima over all
configurations (see :func:`_bounds`).

Ego-centric: every per-colour block lists the observing seat's colour first, then the other
colours in seat order after it; ``cliff_owner`` and the ``decider``/``acting_colour`` one-hots
use the same relative numbering. In solo the observer is seat 0 and Otto Amalfi is relative
colour 1.

Never encoded (information hygiene): the order of the face-down lot, block and build stacks (only
their contents, which are public by elimination), the order of Otto's undrawn cards (only how many
are left), and any pending bid (the engine holds none; the turn-based transform keeps them and its
observer adds only the seat's own).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from tabletop_gym.core.game import SIMULTANEOUS, State
from tabletop_gym.core.observer import ObservationLayout, Observer
from tabletop_gym.envs.positano import components as C
from tabletop_gym.envs.positano.rules import (
    ADD_ON,
    BID,
    BLOCK_CHOICE,
    BUILD,
    CH_BLOCK_ROW,
    CH_BUILD_ROW,
    CH_CLIFF,
    CH_HAND,
    CH_LOT_ROW,
    CH_ORDERS,
    CH_PHASE,
    CH_PLAYED,
    CH_ROOFS,
    CH_ROUND,
    CH_STACKS,
    CH_SUPPLY,
    CH_TAKEN,
    OVER,
    PHASES,
    REMODEL,
    PositanoGame,
    PositanoState,
)
from tabletop_gym.envs.positano.scoring import hidden_blocks

__all__ = [
    "BLOCK_FEATURES",
    "BLOCK_KINDS",
    "BUILD_FEATURES",
    "BUILD_KINDS",
    "MAX_COLOURS",
    "PositanoObserver",
]

MAX_COLOURS = 6
"""Per-colour blocks are padded to this many colours (the most players of any config)."""

NUM_LOTS = 25
"""Lots in the shared 5×5 indexing (the 4×4 cliff leaves rows/columns 5 empty)."""

MAX_TILES = 25
"""Tile indices per Beach Board row type (the 5×5 sets; the 4×4 sets use 0..15)."""

NUM_CARDS = len(C.BID_CARDS)
NUM_BOOSTERS = len(C.BOOSTERS)
NUM_GOALS = len(C.GOAL_NAMES)
MAX_ROUNDS = max(C.ROUNDS.values())
MAX_HEIGHT = max(C.BOARD_SIZES) + C.MAX_LEVEL_BONUS
"""Tallest possible building: regulation height 5 + 2 (rules §4)."""
MAX_BID = max(max(card.values) for card in C.BID_CARDS) + max(b.value for b in C.BOOSTERS)

BLOCK_KINDS: tuple[str, ...] = ("1", "2", "3", "4", "5", "2X", "3X")
"""Block tile kinds: plain tiles by blocks gained, then the 2X and 3X tiles (rules §1.6). A kind
determines the tile's gelato (1-block tiles 2, 2-block tiles 1, others 0) in both sets."""

_ACTIONS = (C.NO_ACTION, C.ADD_ON, C.REMODEL)
BUILD_KINDS: tuple[str, ...] = tuple(
    f"{C.ROOF_NAMES[roof]} +{bonus}{'' if not act else ' ' + act}"
    for roof in (C.BRONZE, C.SILVER, C.GOLD)
    for bonus in range(C.MAX_LEVEL_BONUS + 1)
    for act in _ACTIONS
)
"""Build tile kinds: roof × height bonus (+0/+1/+2) × extra action (none, Add-On, Remodel),
roof-major (rules §1.7)."""

# Per-tile content features written for face-up tiles, indexed by tile index.
_BLOCK_FEATURES = ("face up", "blocks (flat amount for 2X/3X)", "2X", "3X", "gelato")
_BUILD_FEATURES = ("face up", "Bronze", "Silver", "Gold", "bonus", "Add-On", "Remodel", "gelato")
BLOCK_FEATURES = _BLOCK_FEATURES
"""Per-tile columns of ``beach_blocks`` (tile-major: ``MAX_TILES`` rows of these)."""
BUILD_FEATURES = _BUILD_FEATURES
"""Per-tile columns of ``beach_builds``; ``build_tile`` holds the same columns but "face up"."""


def _block_kind(tile: C.BlockTile) -> int:
    if tile.multiplier:
        return 5 if tile.multiplier == 2 else 6
    return tile.blocks - 1


def _build_kind(tile: C.BuildTile) -> int:
    return ((tile.roof - 1) * 3 + tile.bonus) * 3 + _ACTIONS.index(tile.action)


def _best(values: list[int], k: int) -> int:
    return sum(sorted(values, reverse=True)[:k])


def _bounds() -> dict[str, int]:
    """Maxima over every configuration, derived from the component tables (rules §1)."""
    gelato = 0
    kind_block = 0
    kind_build = 0
    for size in C.BOARD_SIZES:
        blocks, builds = C.BLOCK_TILES[size], C.BUILD_TILES[size]
        # A colour plays at most one card, booster, lot, block and build tile per round.
        gelato = max(
            gelato,
            _best([c.gelato for c in C.BID_CARDS], MAX_ROUNDS)
            + _best([b.gelato for b in C.BOOSTERS], MAX_ROUNDS)
            + _best([t.gelato for t in C.LOT_TILES[size].values()], MAX_ROUNDS)
            + _best([t.gelato for t in blocks], MAX_ROUNDS)
            + _best([t.gelato for t in builds], MAX_ROUNDS),
        )
        for k in range(len(BLOCK_KINDS)):
            kind_block = max(kind_block, sum(1 for t in blocks if _block_kind(t) == k))
        for k in range(len(BUILD_KINDS)):
            kind_build = max(kind_build, sum(1 for t in builds if _build_kind(t) == k))
    return {
        "gelato": gelato,
        "kind_block": kind_block,
        "kind_build": kind_build,
        "roofs": max(max(v) for v in C.ROOF_SUPPLY.values()),
        "block_value": max(t.blocks for s in C.BOARD_SIZES for t in C.BLOCK_TILES[s]),
        "tile_gelato": max(
            t.gelato
            for s in C.BOARD_SIZES
            for tiles in (C.BLOCK_TILES[s], C.BUILD_TILES[s])
            for t in tiles
        ),
    }


class PositanoObserver(Observer):
    """Encodes a :class:`~tabletop_gym.envs.positano.rules.PositanoState` as one seat sees it.

    The layout (:attr:`layout`) is identical for every configuration; its slices are listed in
    the env's docs page (generated from :meth:`ObservationLayout.markdown_table`).
    """

    game: PositanoGame
    incremental = True

    def __init__(self, game: PositanoGame):
        """Lay out the slices and precompute the index tables of this game's tile sets."""
        super().__init__(game)
        b = _bounds()
        m = MAX_COLOURS
        gel = b["tile_gelato"]
        self.layout = ObservationLayout(
            [
                ("num_players", m, 0, 1, "player count one-hot: 1 (solo), 2, …, 6"),
                ("board_size", 2, 0, 1, "cliff size one-hot: 4×4, 5×5"),
                ("round", 1, 0, MAX_ROUNDS, "current round (1-based)"),
                ("rounds_left", 1, 0, MAX_ROUNDS - 1, "rounds still to come after this one"),
                ("phase", len(PHASES), 0, 1, "phase one-hot: " + ", ".join(PHASES)),
                (
                    "own_turn",
                    1,
                    0,
                    1,
                    "1 when this seat has a decision now (every seat at a simultaneous bid)",
                ),
                (
                    "decider",
                    m,
                    0,
                    1,
                    "seat to act, relative one-hot (0 = self); all 0 at a simultaneous bid "
                    "and at the end",
                ),
                (
                    "acting_colour",
                    m,
                    0,
                    1,
                    "colour the decision is for, relative one-hot (solo: 1 = Otto Amalfi); "
                    "all 0 at a simultaneous bid and at the end",
                ),
                ("goals", NUM_GOALS, 0, 1, "goals in play: " + ", ".join(C.GOAL_NAMES)),
                (
                    "cliff_owner",
                    NUM_LOTS * m,
                    0,
                    1,
                    "per lot pos = r·5 + c (lot-major), relative colour one-hot of the "
                    "building's owner",
                ),
                ("cliff_height", NUM_LOTS, 0, MAX_HEIGHT, "per lot, blocks of the building"),
                (
                    "cliff_roof",
                    NUM_LOTS * 3,
                    0,
                    1,
                    "per lot (lot-major), roof one-hot: Bronze, Silver, Gold",
                ),
                (
                    "cliff_visible",
                    NUM_LOTS,
                    0,
                    MAX_HEIGHT,
                    "per lot, blocks with a sea view now (rules §5.1)",
                ),
                ("lot_removed", NUM_LOTS, 0, 1, "per lot, removed face-up at set-up"),
                (
                    "lot_open",
                    NUM_LOTS,
                    0,
                    1,
                    "per lot, still to come: its tile is on the Beach Board or in the stack",
                ),
                (
                    "lot_empty",
                    NUM_LOTS,
                    0,
                    1,
                    "per lot, drafted by a colour that had no block: stays empty for good",
                ),
                (
                    "lot_this_round",
                    m * NUM_LOTS,
                    0,
                    1,
                    "per relative colour (colour-major), the lot it drafted this round",
                ),
                ("beach_lots", NUM_LOTS, 0, 1, "lot tiles face up on the Beach Board, by lot"),
                (
                    "beach_blocks",
                    MAX_TILES * len(_BLOCK_FEATURES),
                    0,
                    b["block_value"],
                    "per block tile index t = id − 40 (tile-major), of a face-up tile: "
                    + ", ".join(_BLOCK_FEATURES),
                ),
                (
                    "beach_builds",
                    MAX_TILES * len(_BUILD_FEATURES),
                    0,
                    max(C.MAX_LEVEL_BONUS, gel),
                    "per build tile index t = id − 60 (tile-major), of a face-up tile: "
                    + ", ".join(_BUILD_FEATURES),
                ),
                (
                    "beach_leftmost",
                    3 * MAX_TILES,
                    0,
                    1,
                    "solo only: the leftmost tile of the lot, block and build rows (the higher "
                    "bid takes it), by tile index",
                ),
                ("unseen_lots", NUM_LOTS, 0, 1, "lot tiles in the face-down stack (set only)"),
                (
                    "unseen_blocks",
                    MAX_TILES,
                    0,
                    1,
                    "block tiles in the face-down stack, by index (set only)",
                ),
                (
                    "unseen_builds",
                    MAX_TILES,
                    0,
                    1,
                    "build tiles in the face-down stack, by index (set only)",
                ),
                (
                    "unseen_block_kinds",
                    len(BLOCK_KINDS),
                    0,
                    b["kind_block"],
                    "face-down block tiles per kind: " + ", ".join(BLOCK_KINDS),
                ),
                (
                    "unseen_build_kinds",
                    len(BUILD_KINDS),
                    0,
                    b["kind_build"],
                    "face-down build tiles per kind at 9·(roof − 1) + 3·bonus + action "
                    "(roof 1 Bronze, 2 Silver, 3 Gold; bonus 0..2; action 0 none, 1 Add-On, "
                    "2 Remodel)",
                ),
                ("own_cards", NUM_CARDS, 0, 1, "base bid cards #1..#7 in own hand"),
                ("own_boosters", NUM_BOOSTERS, 0, 1, "boosters +5 +6 +13 +14 +21 +22 in hand"),
                ("colour_present", m, 0, 1, "per relative colour, 1 if that colour is in play"),
                (
                    "played_cards",
                    m * NUM_CARDS,
                    0,
                    1,
                    "per relative colour (colour-major), base bid cards played (public)",
                ),
                (
                    "played_boosters",
                    m * NUM_BOOSTERS,
                    0,
                    1,
                    "per relative colour (colour-major), boosters played (public)",
                ),
                (
                    "bid_card",
                    m * NUM_CARDS,
                    0,
                    1,
                    "per relative colour, this round's revealed base bid card one-hot (solo: "
                    "Otto's is revealed before the player bids)",
                ),
                (
                    "bid_booster",
                    m * NUM_BOOSTERS,
                    0,
                    1,
                    "per relative colour, this round's revealed booster one-hot",
                ),
                (
                    "bid_values",
                    m * 3,
                    0,
                    MAX_BID,
                    "per relative colour, this round's revealed bid for lot, block, build",
                ),
                (
                    "draft_rank",
                    m * 3,
                    0,
                    MAX_COLOURS,
                    "per relative colour, 1-based place in the lot, block, build draft order "
                    "(0 before the reveal)",
                ),
                (
                    "star_set",
                    m * C.NUM_STAR_SETS,
                    0,
                    1,
                    "per relative colour, tie-break star set one-hot (1..6, rules §1.3)",
                ),
                (
                    "personal",
                    m,
                    0,
                    C.BLOCKS_PER_COLOUR,
                    "per relative colour, blocks in the personal supply",
                ),
                (
                    "general",
                    m,
                    0,
                    C.START_GENERAL,
                    "per relative colour, blocks left in the general supply",
                ),
                ("gelato", m, 0, b["gelato"], "per relative colour, gelato icons so far"),
                (
                    "building_points",
                    m,
                    0,
                    3 * C.BLOCKS_PER_COLOUR,
                    "per relative colour, sea-view points of its buildings now (rules §5.1)",
                ),
                ("roofs_left", 3, 0, b["roofs"], "roof pieces left: Bronze, Silver, Gold"),
                (
                    "otto_deck",
                    2,
                    0,
                    NUM_CARDS,
                    "solo only: Otto's face-down base bid cards and boosters left (counts)",
                ),
                (
                    "block_choice",
                    2,
                    0,
                    1,
                    "2X/3X choice pending: the drafted tile is 2X, 3X (one-hot)",
                ),
                (
                    "block_choice_gain",
                    2,
                    0,
                    C.START_GENERAL,
                    "2X/3X choice pending: blocks gained by the multiply and the flat option",
                ),
                (
                    "build_tile",
                    7,
                    0,
                    max(C.MAX_LEVEL_BONUS, gel),
                    "build / Add-On / Remodel pending: the drafted build tile's Bronze, "
                    "Silver, Gold, bonus, Add-On, Remodel, gelato",
                ),
                (
                    "build_limit",
                    1,
                    0,
                    MAX_HEIGHT,
                    "build / Add-On / Remodel pending: regulation height + bonus of the lot "
                    "built on",
                ),
                (
                    "build_lot",
                    NUM_LOTS,
                    0,
                    1,
                    "build / Add-On / Remodel pending: the lot built on this turn, one-hot",
                ),
            ]
        )
        self._precompute()

    # --- precomputed index tables --------------------------------------------------------------

    def _precompute(self) -> None:
        # _fill runs at every step: resolve every slice offset and tile feature once, here.
        g = self.game
        s = self.layout.slices
        o = {name: sl.start for name, sl in s.items()}
        self._o = o
        nc = g.num_colours
        self._nc = nc
        self._solo = g.solo
        # Entries fixed by the config alone, written on every call from one list.
        const_ones = [o["num_players"] + g.num_players - 1, o["board_size"] + g.size - 4]
        const_ones += [o["colour_present"] + j for j in range(nc)]
        self._const_ones = const_ones
        self._goal_index = {name: o["goals"] + i for i, name in enumerate(C.GOAL_NAMES)}
        # rel[player][colour] = relative colour; ego[player] = colours in ego order.
        self._ego = [[(p + j) % nc for j in range(nc)] for p in range(nc)]
        self._rel = [[(c - p) % nc for c in range(nc)] for p in range(nc)]
        # Per-tile features of the face-up tiles (absolute indices and values).
        self._block_idx: list[list[int]] = []
        self._block_val: list[list[int]] = []
        nb = len(_BLOCK_FEATURES)
        for block in g.block_tiles:
            base = o["beach_blocks"] + block.index * nb
            feats = [1, block.blocks, block.multiplier == 2, block.multiplier == 3, block.gelato]
            idx = [base + i for i, v in enumerate(feats) if v]
            self._block_idx.append(idx)
            self._block_val.append([int(feats[i - base]) for i in idx])
        self._build_idx: list[list[int]] = []
        self._build_val: list[list[int]] = []
        self._build_feats: list[list[int]] = []
        nbf = len(_BUILD_FEATURES)
        for t in g.build_tiles:
            feats = [
                1,
                t.roof == C.BRONZE,
                t.roof == C.SILVER,
                t.roof == C.GOLD,
                t.bonus,
                t.action == C.ADD_ON,
                t.action == C.REMODEL,
                t.gelato,
            ]
            base = o["beach_builds"] + t.index * nbf
            idx = [base + i for i, v in enumerate(feats) if v]
            self._build_idx.append(idx)
            self._build_val.append([int(feats[i - base]) for i in idx])
            self._build_feats.append([int(v) for v in feats[1:]])
        self._block_kind = [_block_kind(t) for t in g.block_tiles]
        self._build_kind = [_build_kind(t) for t in g.build_tiles]
        self._multiplier = [t.multiplier for t in g.block_tiles]
        self._flat = [t.blocks for t in g.block_tiles]
        self._bonus = [t.bonus for t in g.build_tiles]
        # Gelato tables by index (rules §5.2); lots only carry gelato on 5×5.
        lot_gel = [0] * NUM_LOTS
        for p, lot in g.lot_tiles.items():
            lot_gel[p] = lot.gelato
        self._lots_have_gelato = any(lot_gel)
        self._gelato_tables = (
            [c.gelato for c in C.BID_CARDS],
            [bo.gelato for bo in C.BOOSTERS],
            lot_gel,
            [t.gelato for t in g.block_tiles],
            [t.gelato for t in g.build_tiles],
        )
        # Bid values (lot, block, build) of card c with booster b at c * 6 + b (rules §3.1).
        self._bid_values = [
            tuple(v + bo.value for v in card.values)
            for card in C.BID_CARDS
            for bo in C.BOOSTERS
        ]
        # Start indices of relative colour j's entries in every per-colour slice; the star-set
        # base is shifted by -1 because sets are numbered from 1.
        self._bases = [
            (
                o["played_cards"] + j * NUM_CARDS,
                o["played_boosters"] + j * NUM_BOOSTERS,
                o["bid_card"] + j * NUM_CARDS,
                o["bid_booster"] + j * NUM_BOOSTERS,
                o["bid_values"] + j * 3,
                o["star_set"] + j * C.NUM_STAR_SETS - 1,
                o["personal"] + j,
                o["general"] + j,
                o["gelato"] + j,
                o["building_points"] + j,
            )
            for j in range(MAX_COLOURS)
        ]
        # Columns of the cliff, front row first, for the sea-view sweep.
        self._columns = [list(C.column_lots(c, g.size)) for c in range(g.size)]
        self._sections()

    def _column_entries(
        self, s: PositanoState, rel: list[int], column: list[int]
    ) -> tuple[list[int], list[int], list[int], list[tuple[int, int]]]:
        """Owner/roof one-hots, heights, viewing blocks and (colour, points) of one column."""
        o = self._o
        o_own, o_h, o_roof, o_vis = (
            o["cliff_owner"],
            o["cliff_height"],
            o["cliff_roof"],
            o["cliff_visible"],
        )
        height, owner, roof = s.height, s.owner, s.roof
        ones: list[int] = []
        idx: list[int] = []
        val: list[int] = []
        points: list[tuple[int, int]] = []
        for p in column:
            h = height[p]
            if h:
                ones.append(o_own + p * MAX_COLOURS + rel[owner[p]])
                ones.append(o_roof + p * 3 + roof[p] - 1)
                idx.append(o_h + p)
                val.append(h)
                cover = hidden_blocks(height, p)
                if h > cover:
                    idx.append(o_vis + p)
                    val.append(h - cover)
                    points.append((owner[p], (h - cover) * roof[p]))
        return ones, idx, val, points

    def _bid_entries(
        self, s: PositanoState, player: int, ego: list[int]
    ) -> tuple[list[int], list[int], list[int]]:
        """Own hand, every colour's played cards, this round's bids and star sets (ego order).

        Otto's hand is never encoded: its order is his hidden deck order.
        """
        o = self._o
        rnd = s.round
        ones = [o["own_cards"] + x for x in s.hand_cards[player]]
        ones += [o["own_boosters"] + x for x in s.hand_boosters[player]]
        idx: list[int] = []
        val: list[int] = []
        bidv = self._bid_values
        for j, c in enumerate(ego):
            pc = s.played_cards[c]
            pb = s.played_boosters[c]
            b_pc, b_pb, b_bc, b_bb, b_bv, b_star = self._bases[j][:6]
            ones += [b_pc + x for x in pc]
            ones += [b_pb + x for x in pb]
            if len(pc) == rnd:
                card, boost = pc[-1], pb[-1]
                ones += [b_bc + card, b_bb + boost]
                idx += [b_bv, b_bv + 1, b_bv + 2]
                val += bidv[card * NUM_BOOSTERS + boost]
            ones.append(b_star + s.star_sets[c])
        return ones, idx, val

    def _gelato(self, s: PositanoState) -> list[int]:
        """Gelato so far of every colour (rules §5.2), by colour."""
        cg, bg, lg, kg, ug = self._gelato_tables
        out = []
        for c in range(self._nc):
            gel = (
                sum(map(cg.__getitem__, s.played_cards[c]))
                + sum(map(bg.__getitem__, s.played_boosters[c]))
                + sum(map(kg.__getitem__, s.blocks_taken[c]))
                + sum(map(ug.__getitem__, s.builds_taken[c]))
            )
            if self._lots_have_gelato:
                gel += sum(map(lg.__getitem__, s.lots_taken[c]))
            out.append(gel)
        return out

    def _stack_entries(self, s: PositanoState) -> tuple[list[int], list[int]]:
        """Removed lots and the contents of the face-down stacks (their order is never read)."""
        o = self._o
        idx = [o["lot_removed"] + p for p in s.removed_lots]
        idx += [o["unseen_lots"] + p for p in s.lot_stack]
        idx += [o["unseen_blocks"] + t for t in s.block_stack]
        idx += [o["unseen_builds"] + t for t in s.build_stack]
        val = [1] * len(idx)
        for stack, kind_of, n_kinds, base in (
            (s.block_stack, self._block_kind, len(BLOCK_KINDS), o["unseen_block_kinds"]),
            (s.build_stack, self._build_kind, len(BUILD_KINDS), o["unseen_build_kinds"]),
        ):
            kinds = [0] * n_kinds
            for t in stack:
                kinds[kind_of[t]] += 1
            for k, n in enumerate(kinds):
                if n:
                    idx.append(base + k)
                    val.append(n)
        return idx, val

    # --- sections: each writes a disjoint set of entries and names the fact groups it reads ----

    def _sections(self) -> None:
        """Per seat, the sections in update order with the change-log bits they depend on."""
        cliff_all = 0
        for c in range(5):
            cliff_all |= CH_CLIFF << c
        self._cliff_all = cliff_all
        self.sections = []
        for player in range(self._nc):
            hand = (CH_HAND << player) if player < self.game.num_players else 0
            secs: list[tuple[Any, int]] = [
                (self._sec_const, 0),
                (self._sec_meta, CH_PHASE | CH_ROUND | CH_ORDERS),
            ]
            # The columns first: the building points read what they leave in the memo.
            secs += [
                (functools.partial(self._sec_column, c), CH_CLIFF << c)
                for c in range(len(self._columns))
            ]
            secs += [
                (self._sec_points, cliff_all),
                (self._sec_stacks, CH_STACKS),
                (self._sec_lot_row, CH_LOT_ROW | CH_STACKS),
                (self._sec_block_row, CH_BLOCK_ROW),
                (self._sec_build_row, CH_BUILD_ROW),
                # An empty lot's entry changes with its build: the build tile drafted (taken),
                # the building built (cliff), a new round; the phase alone never changes it.
                (self._sec_lots, CH_TAKEN | cliff_all | CH_ROUND),
                (self._sec_bids, CH_PLAYED | CH_ROUND | hand),
                (self._sec_supply, CH_SUPPLY),
                (self._sec_gelato, CH_PLAYED | CH_TAKEN),
                (self._sec_ranks, CH_ORDERS),
                (self._sec_roofs, CH_ROOFS | ((CH_HAND << 1) if self._solo else 0)),
                (self._sec_context, CH_PHASE | CH_SUPPLY | CH_TAKEN | CH_ROUND),
            ]
            self.sections.append(secs)

    def _sec_meta(self, s: PositanoState, player: int, memo: list[Any]) -> tuple[list, list]:
        o = self._o
        rel = self._rel[player]
        idx = [o["round"], o["rounds_left"], o["phase"] + s.phase_index]
        val = [s.round, self.game.num_rounds - s.round, 1]
        cur = s.current_player()
        if cur in (SIMULTANEOUS, player):
            idx.append(o["own_turn"])
            val.append(1)
        if cur >= 0:
            idx.append(o["decider"] + rel[cur])
            val.append(1)
        acting = s.acting_colour()
        if acting >= 0:
            idx.append(o["acting_colour"] + rel[acting])
            val.append(1)
        return idx, val

    def _sec_column(
        self, c: int, s: PositanoState, player: int, memo: list[Any]
    ) -> tuple[list, list]:
        ones, idx, val, points = self._column_entries(s, self._rel[player], self._columns[c])
        memo[-1][c] = points
        return ones + idx, [1] * len(ones) + val

    def _sec_points(self, s: PositanoState, player: int, memo: list[Any]) -> tuple[list, list]:
        points = [0] * self._nc
        for column in memo[-1]:
            for colour, pts in column:
                points[colour] += pts
        o_bp = self._o["building_points"]
        return [o_bp + j for j in range(self._nc)], [points[c] for c in self._ego[player]]

    def _sec_stacks(self, s: PositanoState, player: int, memo: list[Any]) -> tuple[list, list]:
        return self._stack_entries(s)

    def _sec_lot_row(self, s: PositanoState, player: int, memo: list[Any]) -> tuple[list, list]:
        o = self._o
        o_open, o_bl = o["lot_open"], o["beach_lots"]
        row = s.lot_row
        idx = [o_open + p for p in s.lot_stack]
        idx += [o_open + p for p in row]
        idx += [o_bl + p for p in row]
        if self._solo and row:
            idx.append(o["beach_leftmost"] + row[0])
        return idx, [1] * len(idx)

    def _sec_block_row(self, s: PositanoState, player: int, memo: list[Any]) -> tuple[list, list]:
        idx: list[int] = []
        val: list[int] = []
        row = s.block_row
        for t in row:
            idx += self._block_idx[t]
            val += self._block_val[t]
        if self._solo and row:
            idx.append(self._o["beach_leftmost"] + MAX_TILES + row[0])
            val.append(1)
        return idx, val

    def _sec_build_row(self, s: PositanoState, player: int, memo: list[Any]) -> tuple[list, list]:
        idx: list[int] = []
        val: list[int] = []
        row = s.build_row
        for t in row:
            idx += self._build_idx[t]
            val += self._build_val[t]
        if self._solo and row:
            idx.append(self._o["beach_leftmost"] + 2 * MAX_TILES + row[0])
            val.append(1)
        return idx, val

    def _sec_lots(self, s: PositanoState, player: int, memo: list[Any]) -> tuple[list, list]:
        o = self._o
        rel = self._rel[player]
        o_empty, o_this = o["lot_empty"], o["lot_this_round"]
        ph, rnd, height = s.phase_index, s.round, s.height
        acting = s.acting_colour()
        idx = []
        for c in range(self._nc):
            taken = s.lots_taken[c]
            nb = len(s.builds_taken[c])
            for i, p in enumerate(taken):
                # A drafted lot without a building is empty for good once its build tile was
                # drafted and the build decision (if any) is over (rules §4).
                if not height[p] and i < nb and not (ph == BUILD and acting == c and i == rnd - 1):
                    idx.append(o_empty + p)
            if len(taken) == rnd:
                idx.append(o_this + rel[c] * NUM_LOTS + taken[-1])
        return idx, [1] * len(idx)

    def _sec_bids(self, s: PositanoState, player: int, memo: list[Any]) -> tuple[list, list]:
        ones, idx, val = self._bid_entries(s, player, self._ego[player])
        return ones + idx, [1] * len(ones) + val

    def _sec_supply(self, s: PositanoState, player: int, memo: list[Any]) -> tuple[list, list]:
        o = self._o
        o_p, o_g = o["personal"], o["general"]
        ego = self._ego[player]
        idx = [o_p + j for j in range(self._nc)] + [o_g + j for j in range(self._nc)]
        return idx, [s.personal[c] for c in ego] + [s.general[c] for c in ego]

    def _sec_gelato(self, s: PositanoState, player: int, memo: list[Any]) -> tuple[list, list]:
        gelato = self._gelato(s)
        o_gel = self._o["gelato"]
        return [o_gel + j for j in range(self._nc)], [gelato[c] for c in self._ego[player]]

    def _sec_ranks(self, s: PositanoState, player: int, memo: list[Any]) -> tuple[list, list]:
        # The draft orders exist from the reveal to the end of the round.
        if s.phase_index in (BID, OVER):
            return [], []
        o_dr = self._o["draft_rank"]
        rel = self._rel[player]
        nc = self._nc
        idx = [o_dr + rel[c] * 3 + k for k in range(3) for c in s.draft_order(k)]
        return idx, [place + 1 for k in range(3) for place in range(nc)]

    def _sec_roofs(self, s: PositanoState, player: int, memo: list[Any]) -> tuple[list, list]:
        o_r = self._o["roofs_left"]
        idx = [o_r, o_r + 1, o_r + 2]
        val = list(s.roofs_left)
        if self._solo:
            o_d = self._o["otto_deck"]
            idx += [o_d, o_d + 1]
            val += [len(s.hand_cards[1]), len(s.hand_boosters[1])]
        return idx, val

    def _sec_context(self, s: PositanoState, player: int, memo: list[Any]) -> tuple[list, list]:
        """The pending draft context of the acting colour (2X/3X choice, build, extra action)."""
        o = self._o
        ph = s.phase_index
        idx: list[int] = []
        val: list[int] = []
        if ph == BLOCK_CHOICE:
            acting = s.acting_colour()
            tile = s.blocks_taken[acting][-1]
            mult = self._multiplier[tile]
            gen = s.general[acting]
            idx = [o["block_choice"] + mult - 2, o["block_choice_gain"],
                   o["block_choice_gain"] + 1]
            val = [1, min(s.personal[acting] * (mult - 1), gen), min(self._flat[tile], gen)]
        elif ph in (BUILD, ADD_ON, REMODEL):
            acting = s.acting_colour()
            tile = s.builds_taken[acting][-1]
            o_bt = o["build_tile"]
            lot = s.lots_taken[acting][s.round - 1]
            idx = [*range(o_bt, o_bt + 7), o["build_limit"], o["build_lot"] + lot]
            val = [*self._build_feats[tile], C.LOT_LEVELS[lot] + self._bonus[tile], 1]
        return idx, val

    # --- encoding -----------------------------------------------------------------------------

    def _fill(self, state: State, player: int, out: np.ndarray) -> None:
        self._start(state, player, out)

    def _memo_extra(self) -> Any:
        # The (colour, points) of each column, left by the column sections for the points.
        return [()] * len(self._columns)

    def _sec_const(self, s: PositanoState, player: int, memo: list[Any]) -> tuple[list, list]:
        """The config's one-hots and the goals in play: fixed for the whole game."""
        idx = list(self._const_ones)
        gi = self._goal_index
        idx += [gi[goal] for goal in s.goals]
        return idx, [1] * len(idx)
