"""Positano's observable facts: the observation layout, the facts array and its event handlers.

One layout for every configuration (see :mod:`.observer` for its meaning). The observer keeps
the facts of a position in one flat ``array('f')`` laid out as the observation of seat 0
(absolute colours: colour ``c``'s entries where seat 0 sees relative colour ``c``), followed by
every colour's hand and a constant zero; the handler of each change event writes the entries it
changed, in place. The values are small whole numbers, exact in float32, the observation's default
dtype: an observer turns that array into any seat's ego-centric vector with one precomputed
gather, which is also the fresh copy it hands out. The entries that say whose turn it is
(phase, seats to act, decider, acting colour, the pending build or 2X/3X context) are rewritten
by :func:`turn` when an observer reads a changed position, not by every rule.

The array is created from scratch (:func:`build`) the first time a position is observed; the
observer then listens to the position's change events (:mod:`.events`) and calls the writer of
each (:data:`HANDLERS`) with the array and the game's :class:`Tables`, so the engine pays for the
facts only while someone observes, and knows nothing of them (core/events.py: the handlers read
the position's public attributes and accessors, and nothing is kept on the state or the game).
Pure standard library.
"""

from __future__ import annotations

import functools
from array import array
from collections.abc import Sequence
from typing import Any

from tabletop_gym.core.game import SIMULTANEOUS
from tabletop_gym.core.layout import Grid, Part, ego_labels
from tabletop_gym.envs.positano import components as C

# The phases and tile types are the rules' (components.py): the layout names them, and the JAX
# twin reads the phases' indices from here (hence the imports this module does not use).
from tabletop_gym.envs.positano.components import (
    MAX_HEIGHT as MAX_HEIGHT,
    MAX_TILES,
    NUM_LOTS,
    PHASE_ADD_ON as ADD_ON,
    PHASE_BID as BID,  # noqa: F401
    PHASE_BLOCK_CHOICE as BLOCK_CHOICE,
    PHASE_BUILD as BUILD,
    PHASE_DRAFT_BLOCK as DRAFT_BLOCK,  # noqa: F401
    PHASE_DRAFT_BUILD as DRAFT_BUILD,  # noqa: F401
    PHASE_DRAFT_LOT as DRAFT_LOT,  # noqa: F401
    PHASE_OVER as OVER,  # noqa: F401
    PHASE_REMODEL as REMODEL,
    PHASES as PHASES,
    TILE_TYPES,
)
from tabletop_gym.envs.positano.scoring import hidden_blocks

_BUILD_PHASES = (BUILD, ADD_ON, REMODEL)
_CONTEXT_PHASES = (BLOCK_CHOICE, *_BUILD_PHASES)

MAX_COLOURS = 6
"""Per-colour blocks are padded to this many colours (the most players of any config)."""

NUM_CARDS = len(C.BID_CARDS)
NUM_BOOSTERS = len(C.BOOSTERS)
NUM_GOALS = len(C.GOAL_NAMES)
MAX_ROUNDS = max(C.ROUNDS.values())
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

BLOCK_FEATURES: tuple[str, ...] = (
    "face up", "blocks (flat amount for 2X/3X)", "2X", "3X", "gelato"
)
"""Per-tile columns of ``beach_blocks`` (tile-major: ``MAX_TILES`` rows of these)."""
BUILD_FEATURES: tuple[str, ...] = (
    "face up", "Bronze", "Silver", "Gold", "bonus", "Add-On", "Remodel", "gelato"
)
"""Per-tile columns of ``beach_builds``; ``build_tile`` holds the same columns but "face up"."""


def block_kind(tile: C.BlockTile) -> int:
    """Index of ``tile``'s kind in :data:`BLOCK_KINDS`."""
    if tile.multiplier:
        return 5 if tile.multiplier == 2 else 6
    return tile.blocks - 1


def build_kind(tile: C.BuildTile) -> int:
    """Index of ``tile``'s kind in :data:`BUILD_KINDS`."""
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
            kind_block = max(kind_block, sum(1 for t in blocks if block_kind(t) == k))
        for k in range(len(BUILD_KINDS)):
            kind_build = max(kind_build, sum(1 for t in builds if build_kind(t) == k))
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


def _label(feature: str) -> str:
    """A grid column label for a feature name: its words before any parenthesis, joined."""
    return feature.split(" (")[0].replace(" ", "_")


def _parts() -> list[Part]:
    """``(name, size, low, high, doc[, grid])`` of every slice, in order (the layout)."""
    b = _bounds()
    m = MAX_COLOURS
    gel = b["tile_gelato"]
    colours = ego_labels(m)
    lots = tuple(C.lot_name(pos) for pos in range(NUM_LOTS))
    tiles = tuple(f"t{t}" for t in range(MAX_TILES))
    cards = tuple(f"#{card.number}" for card in C.BID_CARDS)
    boosters = tuple(f"+{bo.value}" for bo in C.BOOSTERS)
    roofs = C.ROOF_NAMES[1:]
    types = TILE_TYPES
    # A per-lot slice (pos = r * 5 + c) is the cliff itself: rows 1..5, columns A..E.
    cliff = Grid(
        tuple(lots[r * C.ROW_STRIDE][:-1] for r in range(C.ROW_STRIDE)),
        tuple(lots[c][-1] for c in range(C.ROW_STRIDE)),
    )
    return (
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
                Grid(lots, colours),
            ),
            ("cliff_height", NUM_LOTS, 0, MAX_HEIGHT, "per lot, blocks of the building", cliff),
            (
                "cliff_roof",
                NUM_LOTS * 3,
                0,
                1,
                "per lot (lot-major), roof one-hot: Bronze, Silver, Gold",
                Grid(lots, roofs),
            ),
            (
                "cliff_visible",
                NUM_LOTS,
                0,
                MAX_HEIGHT,
                "per lot, blocks with a sea view now (rules §5.1)",
                cliff,
            ),
            ("lot_removed", NUM_LOTS, 0, 1, "per lot, removed face-up at set-up", cliff),
            (
                "lot_open",
                NUM_LOTS,
                0,
                1,
                "per lot, still to come: its tile is on the Beach Board or in the stack",
                cliff,
            ),
            (
                "lot_empty",
                NUM_LOTS,
                0,
                1,
                "per lot, drafted by a colour that had no block: stays empty for good",
                cliff,
            ),
            (
                "lot_this_round",
                m * NUM_LOTS,
                0,
                1,
                "per relative colour (colour-major), the lot it drafted this round",
                Grid(colours, lots),
            ),
            ("beach_lots", NUM_LOTS, 0, 1, "lot tiles face up on the Beach Board, by lot", cliff),
            (
                "beach_blocks",
                MAX_TILES * len(BLOCK_FEATURES),
                0,
                b["block_value"],
                "per block tile index t = id − 40 (tile-major), of a face-up tile: "
                + ", ".join(BLOCK_FEATURES),
                Grid(tiles, tuple(_label(f) for f in BLOCK_FEATURES)),
            ),
            (
                "beach_builds",
                MAX_TILES * len(BUILD_FEATURES),
                0,
                max(C.MAX_LEVEL_BONUS, gel),
                "per build tile index t = id − 60 (tile-major), of a face-up tile: "
                + ", ".join(BUILD_FEATURES),
                Grid(tiles, tuple(_label(f) for f in BUILD_FEATURES)),
            ),
            (
                "beach_leftmost",
                3 * MAX_TILES,
                0,
                1,
                "solo only: the leftmost tile of the lot, block and build rows (the higher "
                "bid takes it), by tile index",
                Grid(types, tuple(str(t) for t in range(MAX_TILES))),
            ),
            ("unseen_lots", NUM_LOTS, 0, 1, "lot tiles in the face-down stack (set only)", cliff),
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
                Grid(colours, cards),
            ),
            (
                "played_boosters",
                m * NUM_BOOSTERS,
                0,
                1,
                "per relative colour (colour-major), boosters played (public)",
                Grid(colours, boosters),
            ),
            (
                "bid_card",
                m * NUM_CARDS,
                0,
                1,
                "per relative colour, this round's revealed base bid card one-hot (solo: "
                "Otto's is revealed before the player bids)",
                Grid(colours, cards),
            ),
            (
                "bid_booster",
                m * NUM_BOOSTERS,
                0,
                1,
                "per relative colour, this round's revealed booster one-hot",
                Grid(colours, boosters),
            ),
            (
                "bid_values",
                m * 3,
                0,
                MAX_BID,
                "per relative colour, this round's revealed bid for lot, block, build",
                Grid(colours, types),
            ),
            (
                "draft_rank",
                m * 3,
                0,
                MAX_COLOURS,
                "per relative colour, 1-based place in the lot, block, build draft order "
                "(0 before the reveal)",
                Grid(colours, types),
            ),
            (
                "star_set",
                m * C.NUM_STAR_SETS,
                0,
                1,
                "per relative colour, tie-break star set one-hot (1..6, rules §1.3)",
                Grid(colours, tuple(str(k + 1) for k in range(C.NUM_STAR_SETS))),
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
                cliff,
            ),
        ]
    )


PARTS = _parts()
"""The observation's slices as ``(name, size, low, high, doc)``."""

OFFSET: dict[str, int] = {}
_start = 0
for _name, _size, *_ in PARTS:
    OFFSET[_name] = _start
    _start += _size
OBS_SIZE = _start
"""Length of the observation vector."""
HAND_CARDS = OBS_SIZE
"""Facts only: colour ``c``'s base bid cards in hand at ``HAND_CARDS + c * NUM_CARDS``."""
HAND_BOOSTERS = HAND_CARDS + MAX_COLOURS * NUM_CARDS
"""Facts only: colour ``c``'s boosters in hand at ``HAND_BOOSTERS + c * NUM_BOOSTERS``."""
TO_ACT = HAND_BOOSTERS + MAX_COLOURS * NUM_BOOSTERS
"""Facts only: 1 at ``TO_ACT + c`` when colour ``c``'s seat has a decision now."""
ZERO = TO_ACT + MAX_COLOURS
"""Facts only: an entry that is always 0 (what padding colours read)."""
_LAST = ZERO + 1
# Facts only, never observed: what turn() wrote last (phase + 1, 0 before the first write;
# seat to act + 3; acting colour + 1), so that the next call clears just those entries.
SIZE = _LAST + 3
"""Length of the facts array."""

PER_COLOUR: dict[str, int] = {
    "decider": 1,
    "acting_colour": 1,
    "lot_this_round": NUM_LOTS,
    "colour_present": 1,
    "played_cards": NUM_CARDS,
    "played_boosters": NUM_BOOSTERS,
    "bid_card": NUM_CARDS,
    "bid_booster": NUM_BOOSTERS,
    "bid_values": 3,
    "draft_rank": 3,
    "star_set": C.NUM_STAR_SETS,
    "personal": 1,
    "general": 1,
    "gelato": 1,
    "building_points": 1,
}
"""Colour-major slices and the width of one colour's block (absolute colours in the facts)."""

_O = OFFSET
_ROUND, _ROUNDS_LEFT = _O["round"], _O["rounds_left"]
_OWNER, _HEIGHT, _ROOF, _VISIBLE = (
    _O["cliff_owner"], _O["cliff_height"], _O["cliff_roof"], _O["cliff_visible"]
)
_OPEN, _EMPTY, _THIS_ROUND, _BEACH_LOTS = (
    _O["lot_open"], _O["lot_empty"], _O["lot_this_round"], _O["beach_lots"]
)
_LEFTMOST = _O["beach_leftmost"]
_UNSEEN_LOTS, _UNSEEN_BLOCKS, _UNSEEN_BUILDS = (
    _O["unseen_lots"], _O["unseen_blocks"], _O["unseen_builds"]
)
_BLOCK_KIND_COUNT, _BUILD_KIND_COUNT = _O["unseen_block_kinds"], _O["unseen_build_kinds"]
_PLAYED_CARDS, _PLAYED_BOOSTERS = _O["played_cards"], _O["played_boosters"]
_BID_CARD, _BID_BOOSTER, _BID_VALUES = _O["bid_card"], _O["bid_booster"], _O["bid_values"]
_RANK = _O["draft_rank"]
_BIDS_END = _RANK + MAX_COLOURS * 3
_GOALS, _REMOVED, _STAR = _O["goals"], _O["lot_removed"], _O["star_set"]
_PERSONAL, _GENERAL, _GELATO, _POINTS = (
    _O["personal"], _O["general"], _O["gelato"], _O["building_points"]
)
_ROOFS_LEFT, _OTTO_DECK = _O["roofs_left"], _O["otto_deck"]
_PHASE, _DECIDER, _ACTING = _O["phase"], _O["decider"], _O["acting_colour"]
# The pending 2X/3X choice and build context: contiguous, from block_choice to build_lot.
_CONTEXT = _O["block_choice"]
_CONTEXT_END = _O["build_lot"] + NUM_LOTS
_CHOICE, _GAIN, _BUILD_TILE, _LIMIT, _BUILD_LOT = (
    _O["block_choice"], _O["block_choice_gain"], _O["build_tile"], _O["build_limit"],
    _O["build_lot"],
)
_CARD_GELATO = [c.gelato for c in C.BID_CARDS]
_BOOSTER_GELATO = [b.gelato for b in C.BOOSTERS]


def _zeros(n: int) -> array:
    return array("f", bytes(4 * n))


@functools.lru_cache(maxsize=64)
def tables(game: Any) -> Tables:
    """The :class:`Tables` of ``game``, made on first use and kept here.

    Games are equal, and hash alike, when their configs are: equal games share their tables.
    The engine knows nothing of them, and nothing is kept on the game: the observer binds the
    tables of a position's game into its handlers.
    """
    return Tables(game)


class Tables:
    """Per-game index tables: where each face-up tile's features go, kinds and gelato.

    Attributes:
        features: Per row kind (1 blocks, 2 builds) and tile, the start of its face-up features
            in ``beach_blocks`` / ``beach_builds`` and their values.
        build_feats: Per build tile, its ``build_tile`` context values.
        block_kind, build_kind: Per tile, its kind index.
        lot_gelato, block_gelato, build_gelato: Gelato per lot position and tile index
            (rules §5.2).
        columns: Per cliff column, its lot positions front row first.
        shaded: Per lot, the lot and the lots behind it in its column.
        solo: Whether the game is solo (the leftmost tiles are facts then).
    """

    def __init__(self, game: Any):
        """Derive the tables of ``game``'s tile sets (a :class:`~.rules.PositanoGame`)."""
        # features[kind][tile]: where the face-up tile's row of features starts (kind 1 blocks,
        # 2 builds; 0, the lots, has none) and its values, written as one slice.
        blocks: list[tuple[int, array]] = []
        nb = len(BLOCK_FEATURES)
        for block in game.block_tiles:
            feats = [1, block.blocks, block.multiplier == 2, block.multiplier == 3, block.gelato]
            blocks.append((_O["beach_blocks"] + block.index * nb, array("f", map(float, feats))))
        builds: list[tuple[int, array]] = []
        self.build_feats: list[array] = []
        nbf = len(BUILD_FEATURES)
        for t in game.build_tiles:
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
            builds.append((_O["beach_builds"] + t.index * nbf, array("f", map(float, feats))))
            self.build_feats.append(array("f", map(float, feats[1:])))
        self.features: tuple[list[tuple[int, array]], ...] = ([], blocks, builds)
        self.no_features = (_zeros(0), _zeros(nb), _zeros(nbf))
        self.block_kind = [block_kind(t) for t in game.block_tiles]
        self.build_kind = [build_kind(t) for t in game.build_tiles]
        self.lot_gelato = [0] * NUM_LOTS
        for pos, lot in game.lot_tiles.items():
            self.lot_gelato[pos] = lot.gelato
        self.block_gelato = [t.gelato for t in game.block_tiles]
        self.build_gelato = [t.gelato for t in game.build_tiles]
        self.columns = [list(C.column_lots(c, game.size)) for c in range(game.size)]
        # A lot and the lots behind it: those whose sea view a change at the lot can alter.
        self.shaded = [(p, *C.lots_behind(p, game.size)) for p in range(NUM_LOTS)]
        self.tile_gelato = (self.lot_gelato, self.block_gelato, self.build_gelato)
        self.multiplier = [tile.multiplier for tile in game.block_tiles]
        self.flat = [tile.blocks for tile in game.block_tiles]
        self.bonus = [tile.bonus for tile in game.build_tiles]
        self.solo = game.solo
        self.num_rounds = game.num_rounds
        # What every position of this game shares: the config's one-hots.
        nc = game.num_colours
        template = _zeros(SIZE)
        template[_O["num_players"] + game.num_players - 1] = 1
        template[_O["board_size"] + game.size - 4] = 1
        for c in range(nc):
            template[_O["colour_present"] + c] = 1
        self.template = template


# --- writes: the handler of each change event (:mod:`.events`), called as the rule makes it --


def hands(s: Any, f: Any) -> None:
    """Write every colour's hand (the facts' own region; seat ``p`` sees only colour ``p``'s)."""
    for c in range(len(s.hand_cards)):
        for x in s.hand_cards[c]:
            f[HAND_CARDS + c * NUM_CARDS + x] = 1
        for x in s.hand_boosters[c]:
            f[HAND_BOOSTERS + c * NUM_BOOSTERS + x] = 1


def play_bid(f: Any, t: Tables, s: Any, c: int, card: int, booster: int) -> None:
    """Colour ``c`` played (and revealed) ``card`` with ``booster`` this round."""
    f[HAND_CARDS + c * NUM_CARDS + card] = 0
    f[HAND_BOOSTERS + c * NUM_BOOSTERS + booster] = 0
    f[_PLAYED_CARDS + c * NUM_CARDS + card] = 1
    f[_PLAYED_BOOSTERS + c * NUM_BOOSTERS + booster] = 1
    f[_BID_CARD + c * NUM_CARDS + card] = 1
    f[_BID_BOOSTER + c * NUM_BOOSTERS + booster] = 1
    b = _BID_VALUES + c * 3
    f[b], f[b + 1], f[b + 2] = C.BID_VALUES[card][booster]
    f[_GELATO + c] += _CARD_GELATO[card] + _BOOSTER_GELATO[booster]
    if s.game.solo and c == 1:
        f[_OTTO_DECK] = len(s.hand_cards[1])
        f[_OTTO_DECK + 1] = len(s.hand_boosters[1])


def orders(f: Any, t: Tables, s: Any) -> None:
    """This round's draft orders were set: every colour's 1-based place per tile type."""
    for k in range(len(TILE_TYPES)):
        for place, c in enumerate(s.draft_order(k)):
            f[_RANK + c * 3 + k] = place + 1


_NO_TILES = _zeros(MAX_TILES)
_NO_RANKS = _zeros(_BIDS_END - _RANK)
_NO_BIDS = _zeros(_BIDS_END - _BID_CARD)
_NO_COLOUR = _zeros(MAX_COLOURS)
_NO_CONTEXT = _zeros(_CONTEXT_END - _CONTEXT)


def turn(s: Any, f: Any, t: Tables) -> None:
    """Write who decides now and for what.

    Phase, seats to act, decider, acting colour and the pending 2X/3X choice or build context;
    what the last call wrote is cleared first. The observer calls it when the position changed
    (the rules do not, so the engine alone never pays for it).
    """
    last = int(f[_LAST])
    if last:
        f[_PHASE + last - 1] = 0
        cur = int(f[_LAST + 1]) - 3
        if cur == SIMULTANEOUS:
            f[TO_ACT : TO_ACT + MAX_COLOURS] = _NO_COLOUR
        elif cur >= 0:
            f[TO_ACT + cur] = 0
            f[_DECIDER + cur] = 0
        acting = int(f[_LAST + 2]) - 1
        if acting >= 0:
            f[_ACTING + acting] = 0
        if last - 1 in _CONTEXT_PHASES:
            f[_CONTEXT:_CONTEXT_END] = _NO_CONTEXT
    ph = s.phase_index
    cur = s.current_player()
    acting = s.acting_colour()
    f[_LAST] = ph + 1
    f[_LAST + 1] = cur + 3 if cur >= SIMULTANEOUS else 0
    f[_LAST + 2] = acting + 1
    f[_PHASE + ph] = 1
    if cur == SIMULTANEOUS:
        for c in range(len(s.hand_cards)):
            f[TO_ACT + c] = 1
    elif cur >= 0:
        f[TO_ACT + cur] = 1
        f[_DECIDER + cur] = 1
    if acting < 0:
        return
    f[_ACTING + acting] = 1
    if ph == BLOCK_CHOICE:
        # What each option of the drafted 2X/3X tile would gain (rules §1.6).
        tile = s.blocks_taken[acting][-1]
        mult = t.multiplier[tile]
        gen = s.general[acting]
        f[_CHOICE + mult - 2] = 1
        f[_GAIN] = min(s.personal[acting] * (mult - 1), gen)
        f[_GAIN + 1] = min(t.flat[tile], gen)
    elif ph in _BUILD_PHASES:
        # The build tile in play, the height limit and the lot built on this turn (rules §4).
        tile = s.builds_taken[acting][-1]
        lot = s.lots_taken[acting][s.round - 1]
        f[_BUILD_TILE : _BUILD_TILE + 7] = t.build_feats[tile]
        f[_LIMIT] = C.LOT_LEVELS[lot] + t.bonus[tile]
        f[_BUILD_LOT + lot] = 1


def _leftmost(s: Any, f: Any, kind: int, row: list[int]) -> None:
    # Solo: the leftmost tile of a row goes to the higher bid (rules §7).
    base = _LEFTMOST + kind * MAX_TILES
    f[base : base + MAX_TILES] = _NO_TILES
    if row:
        f[base + row[0]] = 1


def take_lot(f: Any, t: Tables, s: Any, c: int, pos: int) -> None:
    """Colour ``c`` drafted the lot tile ``pos`` from the Beach Board."""
    f[_OPEN + pos] = 0
    f[_BEACH_LOTS + pos] = 0
    f[_THIS_ROUND + c * NUM_LOTS + pos] = 1
    f[_GELATO + c] += t.lot_gelato[pos]
    if t.solo:
        _leftmost(s, f, 0, s.lot_row)


def take_tile(f: Any, t: Tables, s: Any, c: int, kind: int, tile: int) -> None:
    """Colour ``c`` drafted ``tile`` of the block (``kind`` 1) or build (2) row.

    The supply a block tile brings is written by :func:`supply`; a build tile drafted without a
    block leaves the colour's lot empty for good (rules §4).
    """
    start, values = t.features[kind][tile]
    f[start : start + len(values)] = t.no_features[kind]
    f[_GELATO + c] += t.tile_gelato[kind][tile]
    if t.solo:
        _leftmost(s, f, kind, s.build_row if kind == 2 else s.block_row)
    if kind == 2 and s.personal[c] == 0:
        f[_EMPTY + s.lots_taken[c][s.round - 1]] = 1


def supply(f: Any, t: Tables, s: Any, c: int) -> None:
    """Colour ``c``'s personal and general supply changed."""
    f[_PERSONAL + c] = s.personal[c]
    f[_GENERAL + c] = s.general[c]


def roofs(f: Any, t: Tables, s: Any) -> None:
    """The roof pieces left changed."""
    left = s.roofs_left
    f[_ROOFS_LEFT], f[_ROOFS_LEFT + 1], f[_ROOFS_LEFT + 2] = left[0], left[1], left[2]


def building(f: Any, t: Tables, s: Any, pos: int, old_owner: int, old_height: int,
             old_roof: int) -> None:
    """The building at ``pos`` changed from ``(old_owner, old_height, old_roof)``.

    Its facts and those of the lots behind it are cleared (what a lot shows of the sea depends
    only on the lots in front of it, rules §5.1, so the lots in front stay as they are), then
    written anew from the position.
    """
    owner, roof, height = s.owner, s.roof, s.height
    shaded = t.shaded[pos]
    for p in shaded:
        if p == pos:
            h, o, r = old_height, old_owner, old_roof
        else:
            h, o, r = height[p], owner[p], roof[p]
        if h:
            f[_OWNER + p * MAX_COLOURS + o] = 0
            f[_ROOF + p * 3 + r - 1] = 0
            f[_HEIGHT + p] = 0
            f[_POINTS + o] -= f[_VISIBLE + p] * r
            f[_VISIBLE + p] = 0
    _column(s, f, shaded)
    f[_EMPTY + pos] = 1 if s.lot_stays_empty(pos) else 0


def _column(s: Any, f: Any, column: Sequence[int]) -> None:
    # Write the buildings of these lots of one column and their sea-view points (rules §5.1).
    height, owner, roof = s.height, s.owner, s.roof
    for p in column:
        h = height[p]
        if h:
            hidden = hidden_blocks(height, p)
            vis = h - hidden if h > hidden else 0
            o = owner[p]
            r = roof[p]
            f[_OWNER + p * MAX_COLOURS + o] = 1
            f[_ROOF + p * 3 + r - 1] = 1
            f[_HEIGHT + p] = h
            f[_VISIBLE + p] = vis
            f[_POINTS + o] += vis * r


def refresh(f: Any, t: Tables, s: Any, old_round: int, lots: Sequence[int],
            blocks: Sequence[int], builds: Sequence[int]) -> None:
    """Round ``old_round`` ended: its draft orders are gone.

    On a new round these ``lots``, ``blocks`` and ``builds`` came face up from the stacks, and
    the last round's bids and lots are no longer this round's.
    """
    if s.round == old_round:
        # The game is over: the last round's bids and lots stay this round's.
        f[_RANK:_BIDS_END] = _NO_RANKS
        return
    f[_ROUND] = s.round
    f[_ROUNDS_LEFT] = t.num_rounds - s.round
    for c, taken in enumerate(s.lots_taken):
        if len(taken) == old_round:
            f[_THIS_ROUND + c * NUM_LOTS + taken[-1]] = 0
    # This round's bids, their values and the draft ranks lie side by side.
    f[_BID_CARD:_BIDS_END] = _NO_BIDS
    _stacked(f, t, lots, blocks, builds, 0)
    _face_up(s, f, t, lots, blocks, builds)


def _stacked(f: Any, t: Tables, lots: Sequence[int], blocks: Sequence[int],
             builds: Sequence[int], flag: int) -> None:
    # Tiles put into (flag 1) or taken out of (flag 0) the face-down stacks: their contents.
    step = 1 if flag else -1
    for pos in lots:
        f[_UNSEEN_LOTS + pos] = flag
    for tile in blocks:
        f[_UNSEEN_BLOCKS + tile] = flag
        f[_BLOCK_KIND_COUNT + t.block_kind[tile]] += step
    for tile in builds:
        f[_UNSEEN_BUILDS + tile] = flag
        f[_BUILD_KIND_COUNT + t.build_kind[tile]] += step


def _face_up(s: Any, f: Any, t: Tables, lots: Sequence[int], blocks: Sequence[int],
             builds: Sequence[int]) -> None:
    # Tiles put face up on the Beach Board (the leftmost of each row re-read in solo).
    for pos in lots:
        f[_OPEN + pos] = 1
        f[_BEACH_LOTS + pos] = 1
    for kind, tiles in ((1, blocks), (2, builds)):
        features = t.features[kind]
        for tile in tiles:
            start, values = features[tile]
            f[start : start + len(values)] = values
    if t.solo:
        _leftmost(s, f, 0, s.lot_row)
        _leftmost(s, f, 1, s.block_row)
        _leftmost(s, f, 2, s.build_row)


def build(s: Any, t: Tables) -> array:
    """The facts of position ``s`` (of the game of tables ``t``) from scratch.

    Every slice is written; the per-turn ones stay zero (:func:`turn` writes them).
    """
    f = array("f", t.template)
    nc = len(s.lots_taken)
    rnd = s.round
    for goal in s.goals:
        f[_GOALS + C.GOAL_NAMES.index(goal)] = 1
    f[_ROUND] = rnd
    f[_ROUNDS_LEFT] = t.num_rounds - rnd
    if any(s.height):  # an empty cliff (every deal) writes nothing here
        for column in t.columns:
            _column(s, f, column)
    for pos in s.removed_lots:
        f[_REMOVED + pos] = 1
    for pos in s.lot_stack:
        f[_OPEN + pos] = 1
    _stacked(f, t, s.lot_stack, s.block_stack, s.build_stack, 1)
    _face_up(s, f, t, s.lot_row, s.block_row, s.build_row)
    hands(s, f)
    for c in range(nc):
        taken = s.lots_taken[c]
        for pos in taken:
            if s.lot_stays_empty(pos):
                f[_EMPTY + pos] = 1
        if len(taken) == rnd:
            f[_THIS_ROUND + c * NUM_LOTS + taken[-1]] = 1
        pc, pb = s.played_cards[c], s.played_boosters[c]
        for card in pc:
            f[_PLAYED_CARDS + c * NUM_CARDS + card] = 1
        for booster in pb:
            f[_PLAYED_BOOSTERS + c * NUM_BOOSTERS + booster] = 1
        f[_GELATO + c] = s.gelato(c)
        if len(pc) == rnd:
            card, booster = pc[-1], pb[-1]
            f[_BID_CARD + c * NUM_CARDS + card] = 1
            f[_BID_BOOSTER + c * NUM_BOOSTERS + booster] = 1
            b = _BID_VALUES + c * 3
            f[b], f[b + 1], f[b + 2] = C.BID_VALUES[card][booster]
        f[_STAR + c * C.NUM_STAR_SETS + s.star_sets[c] - 1] = 1
        supply(f, t, s, c)
    orders(f, t, s)  # nothing before the bids are revealed (no draft order yet)
    roofs(f, t, s)
    if t.solo:
        f[_OTTO_DECK] = len(s.hand_cards[1])
        f[_OTTO_DECK + 1] = len(s.hand_boosters[1])
    return f


HANDLERS: tuple[Any, ...] = (
    None,  # TURN: nothing to write; the observer rewrites the turn's entries when next read
    play_bid,  # BID_PLAYED
    orders,  # ORDERS_SET
    take_lot,  # LOT_TAKEN
    take_tile,  # TILE_TAKEN
    supply,  # SUPPLY
    roofs,  # ROOFS
    building,  # BUILDING
    refresh,  # ROUND_ENDED
)
"""The writer of each event of :data:`.events.EVENTS`, by code:
``handler(facts, tables, state, *args)`` (the facts and the game's :class:`Tables` first, so the
observer binds them with :func:`functools.partial` and the engine calls the bound writer straight
from its handler table); ``None`` for ``TURN``."""
