"""Every Positano component as data (``docs/rules/positano.md`` §1, §2, §7, §8).

Pure standard library. Board positions follow the shared convention ``pos = r * 5 + c``
(``r = 0`` is row 1, the lowest row nearest the sea; ``c = 0`` is column A), and tiles are indexed
by ``BGA id - base``: a lot tile's index is its position, block tile ``t`` is BGA id ``40 + t``,
build tile ``t`` is BGA id ``60 + t``. The 4×4 and 5×5 sets share ids but not contents.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

# --- roofs (rules §1.7, §4) ---------------------------------------------------------------------

BRONZE = 1
SILVER = 2
GOLD = 3
ROOF_NAMES = ("", "Bronze", "Silver", "Gold")
"""Roof rank → name; rank 0 means "no roof" (an empty lot). Rank = points per viewing block."""

NO_ACTION = ""
ADD_ON = "add_on"
REMODEL = "remodel"

BOARD_SIZES = (4, 5)
MAX_LEVEL_BONUS = 2
"""No building may ever exceed its regulation height + 2 (rules §4)."""

BLOCKS_PER_COLOUR = 16
"""16 blocks per colour: 1 in the personal supply, 15 in the general supply (rules §1.1, §2.2)."""
START_PERSONAL = 1
START_GENERAL = 15


NUM_POSITIONS = 25
"""Lots in the shared ``pos = r * 5 + c`` indexing (the 4×4 cliff leaves row and column 5
empty); every per-lot array has this many entries."""

ROW_STRIDE = 5
"""``pos`` of the lot one row further back minus ``pos`` of a lot (rules §1.2)."""

# --- cliff geometry (rules §1.2): the one home of every row/column/neighbour computation -------
# Tables rather than arithmetic, so hot loops (sea view, goals, observer, bots) pay an index.

LOT_ROWS: tuple[int, ...] = tuple(pos // ROW_STRIDE for pos in range(NUM_POSITIONS))
"""``LOT_ROWS[pos]``: 0-based row of the lot at ``pos`` (0 = row 1, nearest the sea)."""

LOT_COLUMNS: tuple[int, ...] = tuple(pos % ROW_STRIDE for pos in range(NUM_POSITIONS))
"""``LOT_COLUMNS[pos]``: 0-based column of the lot at ``pos`` (0 = column A)."""

LOT_LEVELS: tuple[int, ...] = tuple(row + 1 for row in LOT_ROWS)
"""``LOT_LEVELS[pos]``: level (= regulation height) of the lot at ``pos``, its row number
(rules §1.2, §4)."""

ORTHOGONAL_STEPS: tuple[tuple[int, int], ...] = ((-1, 0), (1, 0), (0, -1), (0, 1))
"""(row, column) steps to the orthogonal neighbours: in front, behind, left, right."""


def lot_position(row: int, column: int) -> int:
    """``pos`` of the lot at 0-based ``row`` and ``column`` (not checked against a cliff)."""
    return row * ROW_STRIDE + column


def lot_at(row: int, column: int, size: int) -> int | None:
    """``pos`` of the lot at 0-based ``row``/``column`` of a ``size`` cliff; None when off it."""
    if 0 <= row < size and 0 <= column < size:
        return lot_position(row, column)
    return None


def on_cliff(pos: int, size: int) -> bool:
    """Whether ``pos`` (0..24) is a lot of the ``size``×``size`` cliff (rules §1.2)."""
    return LOT_ROWS[pos] < size and LOT_COLUMNS[pos] < size


def _neighbour_table(size: int) -> tuple[tuple[int, ...], ...]:
    table = []
    for pos in range(NUM_POSITIONS):
        r, c = LOT_ROWS[pos], LOT_COLUMNS[pos]
        steps = (lot_at(r + dr, c + dc, size) for dr, dc in ORTHOGONAL_STEPS)
        table.append(tuple(q for q in steps if q is not None) if on_cliff(pos, size) else ())
    return tuple(table)


_NEIGHBOURS = {size: _neighbour_table(size) for size in BOARD_SIZES}


def neighbours(pos: int, size: int) -> tuple[int, ...]:
    """Orthogonally adjacent lots of ``pos`` on a ``size`` cliff (rules §5.3 Gruppo, Solitario).

    In the order of :data:`ORTHOGONAL_STEPS`; diagonal lots are not adjacent.
    """
    return _NEIGHBOURS[size][pos]


def column_lots(column: int, size: int) -> tuple[int, ...]:
    """The lots of a column of a ``size`` cliff, front row (nearest the sea) first."""
    return _COLUMN_LOTS[size][column]


# Scoring sweeps every column at the end of each game: a table, not a tuple built per call.
_COLUMN_LOTS = {
    size: tuple(tuple(lot_position(r, c) for r in range(size)) for c in range(size))
    for size in BOARD_SIZES
}


LOTS_IN_FRONT: tuple[tuple[int, ...], ...] = tuple(
    tuple(lot_position(r, LOT_COLUMNS[pos]) for r in range(LOT_ROWS[pos] - 1, -1, -1))
    for pos in range(NUM_POSITIONS)
)
"""``LOTS_IN_FRONT[pos]``: the lots between ``pos`` and the sea in its column, nearest first
(the ``k``-th is ``k`` rows in front; rules §5.1)."""


_BEHIND = {
    size: tuple(
        tuple(lot_position(r, LOT_COLUMNS[pos]) for r in range(LOT_ROWS[pos] + 1, size))
        for pos in range(NUM_POSITIONS)
    )
    for size in BOARD_SIZES
}


def lots_behind(pos: int, size: int) -> tuple[int, ...]:
    """The lots behind ``pos`` in its column on a ``size`` cliff, nearest first (rules §5.1)."""
    return _BEHIND[size][pos]


def lot_name(pos: int) -> str:
    """Name of the lot at ``pos`` in the rulebook's notation, e.g. ``2C`` (rules §1.2)."""
    return f"{LOT_LEVELS[pos]}{'ABCDE'[LOT_COLUMNS[pos]]}"


def lot_level(pos: int) -> int:
    """Level (= regulation height) of the lot at ``pos``: its row number (rules §1.2, §4)."""
    return LOT_LEVELS[pos]


def board_positions(size: int) -> tuple[int, ...]:
    """Positions of the lots of a ``size``×``size`` cliff, in ascending order (rules §1.2)."""
    return tuple(lot_position(r, c) for r in range(size) for c in range(size))


# --- base bid cards (rules §1.3) -----------------------------------------------------------------


class BidCard(NamedTuple):
    """A Base Bid card: bid values per tile type and its gelato icons (rules §1.3).

    Attributes:
        number: Printed card number 1..7 (= BGA id).
        lot: Lot bid value (yellow).
        block: Block bid value (green).
        build: Build bid value (blue).
        gelato: Gelato icons on the card.
    """

    number: int
    lot: int
    block: int
    build: int
    gelato: int

    @property
    def values(self) -> tuple[int, int, int]:
        """The three bid values in tile-type order (lot, block, build)."""
        return (self.lot, self.block, self.build)


# rules §1.3, first table. Index c = card number - 1.
BID_CARDS: tuple[BidCard, ...] = (
    BidCard(1, 60, 50, 10, 1),
    BidCard(2, 10, 60, 50, 1),
    BidCard(3, 50, 10, 60, 1),
    BidCard(4, 40, 40, 40, 1),
    BidCard(5, 70, 20, 30, 0),
    BidCard(6, 30, 70, 20, 0),
    BidCard(7, 20, 30, 70, 0),
)

NUM_STAR_SETS = 6
# rules §1.3 closed form: stars(card c, set s) = T[(c - s) mod 7] with c, s 1-based.
_STAR_BASE: tuple[tuple[int, int, int], ...] = (
    (0, 4, 5),
    (1, 5, 3),
    (2, 6, 1),
    (3, 0, 6),
    (4, 1, 4),
    (5, 2, 2),
    (6, 3, 0),
)


def stars(card: int, star_set: int) -> tuple[int, int, int]:
    """Tie-break stars (lot, block, build) of card index ``card`` (0..6) in set 1..6 (§1.3)."""
    return _STAR_BASE[(card + 1 - star_set) % 7]


STARS: tuple[tuple[tuple[int, int, int], ...], ...] = tuple(
    tuple(stars(c, s) for c in range(len(BID_CARDS))) for s in range(NUM_STAR_SETS + 1)
)
"""``STARS[set][card]`` = (lot, block, build) stars; row 0 is unused (sets are 1-based)."""


# --- bid boosters (rules §1.4) -------------------------------------------------------------------


class Booster(NamedTuple):
    """A Bid Booster card (rules §1.4).

    Attributes:
        value: Amount added to each of the three bid values.
        gelato: Gelato icons on the card.
    """

    value: int
    gelato: int


# rules §1.4 table. Index b = BGA id - 8.
BOOSTERS: tuple[Booster, ...] = (
    Booster(5, 2),
    Booster(6, 1),
    Booster(13, 0),
    Booster(14, 0),
    Booster(21, 0),
    Booster(22, 0),
)


BID_VALUES: tuple[tuple[tuple[int, int, int], ...], ...] = tuple(
    tuple((card.lot + b.value, card.block + b.value, card.build + b.value) for b in BOOSTERS)
    for card in BID_CARDS
)
"""``BID_VALUES[card][booster]``: the (lot, block, build) bid of base card ``card`` (index 0..6)
played with booster ``booster`` (index 0..5), each card value plus the booster's (rules §3.1)."""


# --- lot tiles (rules §1.5) ----------------------------------------------------------------------


class LotTile(NamedTuple):
    """A Lot tile: it names one cliff lot (rules §1.5).

    Attributes:
        pos: Board position (also the tile index).
        level: Row number = regulation height.
        gelato: Gelato icons (5×5 row-5 lots show 1).
    """

    pos: int
    level: int
    gelato: int


def _lot_tiles(size: int) -> dict[int, LotTile]:
    # rules §1.5: no gelato on 4×4; on 5×5 each row-5 lot shows 1 gelato.
    return {
        p: LotTile(p, lot_level(p), 1 if size == 5 and lot_level(p) == 5 else 0)
        for p in board_positions(size)
    }


LOT_TILES: dict[int, dict[int, LotTile]] = {4: _lot_tiles(4), 5: _lot_tiles(5)}
"""``LOT_TILES[size][pos]``: the lot tiles of each cliff size (rules §1.5)."""


# --- block tiles (rules §1.6) --------------------------------------------------------------------


class BlockTile(NamedTuple):
    """A Block tile (rules §1.6).

    Attributes:
        index: Tile index = BGA id - 40.
        blocks: Blocks gained (for a 2X/3X tile: the flat option, 2 or 3).
        multiplier: 0 for a plain tile, 2 for 2X, 3 for 3X.
        gelato: Gelato icons.
        start_icon: Player-count icon of a starting tile (0: not a starting tile).
    """

    index: int  # type: ignore[assignment]  # the rules' name; shadows tuple.index
    blocks: int
    multiplier: int
    gelato: int
    start_icon: int

    @property
    def bga_id(self) -> int:
        """The BGA id printed in the tables of the rules reference."""
        return 40 + self.index

    def label(self) -> str:
        """Short text such as ``3X`` or ``2 blocks``."""
        if self.multiplier:
            return f"{self.multiplier}X"
        return f"{self.blocks} block{'s' if self.blocks != 1 else ''}"


def _blocks(rows: tuple[tuple[int, int, int], ...]) -> tuple[BlockTile, ...]:
    # Row = (blocks or -N for an NX tile, gelato, start icon).
    return tuple(
        BlockTile(i, abs(b), -b if b < 0 else 0, g, icon) for i, (b, g, icon) in enumerate(rows)
    )


# rules §1.6, 4×4 set (16 tiles, ids 40..55). -3 = 3X (or +3), -2 = 2X (or +2).
BLOCK_TILES_4: tuple[BlockTile, ...] = _blocks(
    (
        (2, 1, 2),
        (3, 0, 2),
        (4, 0, 3),
        (2, 1, 4),
        (-3, 0, 0),
        (4, 0, 0),
        (5, 0, 0),
        (5, 0, 0),
        (3, 0, 0),
        (3, 0, 0),
        (2, 1, 0),
        (2, 1, 0),
        (2, 1, 0),
        (-2, 0, 0),
        (1, 2, 0),
        (1, 2, 0),
    )
)

# rules §1.6, 5×5 set (25 tiles, ids 40..64).
BLOCK_TILES_5: tuple[BlockTile, ...] = _blocks(
    (
        (2, 1, 2),
        (3, 0, 2),
        (4, 0, 3),
        (2, 1, 4),
        (5, 0, 5),
        (3, 0, 6),
        (-3, 0, 0),
        (4, 0, 0),
        (5, 0, 0),
        (5, 0, 0),
        (3, 0, 0),
        (3, 0, 0),
        (2, 1, 0),
        (2, 1, 0),
        (2, 1, 0),
        (-2, 0, 0),
        (1, 2, 0),
        (1, 2, 0),
        (-2, 0, 0),
        (-2, 0, 0),
        (3, 0, 0),
        (3, 0, 0),
        (4, 0, 0),
        (4, 0, 0),
        (5, 0, 0),
    )
)

BLOCK_TILES: dict[int, tuple[BlockTile, ...]] = {4: BLOCK_TILES_4, 5: BLOCK_TILES_5}


# --- build tiles (rules §1.7) --------------------------------------------------------------------


class BuildTile(NamedTuple):
    """A Build tile (rules §1.7).

    Attributes:
        index: Tile index = BGA id - 60.
        roof: Roof rank placed on the building (1 Bronze, 2 Silver, 3 Gold).
        bonus: Blocks allowed above regulation height (0, 1 or 2).
        action: Extra action: ``""``, ``"add_on"`` or ``"remodel"``. A Remodel tile upgrades a
            building whose roof is exactly one rank below this tile's roof (rules §1.7).
        gelato: Gelato icons.
        start_icon: Player-count icon of a starting tile (0: not a starting tile).
    """

    index: int  # type: ignore[assignment]  # the rules' name; shadows tuple.index
    roof: int
    bonus: int
    action: str
    gelato: int
    start_icon: int

    @property
    def bga_id(self) -> int:
        """The BGA id printed in the tables of the rules reference."""
        return 60 + self.index

    def label(self) -> str:
        """Short text such as ``Silver +1, Add-On``."""
        text = ROOF_NAMES[self.roof]
        if self.bonus:
            text += f" +{self.bonus}"
        if self.action == ADD_ON:
            text += ", Add-On"
        elif self.action == REMODEL:
            text += f", Remodel {ROOF_NAMES[self.roof - 1]}→{ROOF_NAMES[self.roof]}"
        return text


_B, _S, _G = BRONZE, SILVER, GOLD
_A, _R, _N = ADD_ON, REMODEL, NO_ACTION


def _builds(rows: tuple[tuple[int, int, str, int, int], ...]) -> tuple[BuildTile, ...]:
    return tuple(BuildTile(i, *row) for i, row in enumerate(rows))


# rules §1.7, 4×4 set (16 tiles, ids 60..75): (roof, bonus, action, gelato, start icon).
BUILD_TILES_4: tuple[BuildTile, ...] = _builds(
    (
        (_B, 0, _N, 2, 2),
        (_S, 0, _N, 0, 2),
        (_G, 0, _N, 0, 3),
        (_B, 1, _N, 0, 4),
        (_B, 0, _N, 2, 0),
        (_S, 1, _N, 0, 0),
        (_B, 1, _A, 0, 0),
        (_B, 2, _A, 0, 0),
        (_S, 1, _A, 0, 0),
        (_S, 2, _A, 0, 0),
        (_G, 1, _A, 0, 0),
        (_G, 2, _A, 0, 0),
        (_B, 2, _N, 0, 0),
        (_G, 1, _N, 0, 0),
        (_G, 0, _R, 0, 0),
        (_S, 0, _R, 0, 0),
    )
)

# rules §1.7, 5×5 set (25 tiles, ids 60..84), from the art; id 68 is Bronze +1 Add-On (Decisions).
BUILD_TILES_5: tuple[BuildTile, ...] = _builds(
    (
        (_B, 0, _N, 2, 2),
        (_S, 0, _N, 0, 2),
        (_G, 0, _N, 0, 3),
        (_B, 1, _N, 0, 4),
        (_S, 1, _N, 0, 5),
        (_G, 1, _N, 0, 6),
        (_B, 0, _N, 2, 0),
        (_S, 1, _N, 0, 0),
        (_B, 1, _A, 0, 0),
        (_B, 2, _A, 0, 0),
        (_S, 1, _A, 0, 0),
        (_S, 2, _A, 0, 0),
        (_G, 1, _A, 0, 0),
        (_G, 2, _A, 0, 0),
        (_B, 2, _N, 0, 0),
        (_G, 1, _N, 0, 0),
        (_G, 0, _R, 0, 0),
        (_S, 0, _R, 0, 0),
        (_S, 1, _A, 0, 0),
        (_G, 0, _N, 0, 0),
        (_B, 2, _A, 0, 0),
        (_G, 0, _R, 0, 0),
        (_S, 0, _R, 0, 0),
        (_B, 0, _N, 2, 0),
        (_B, 1, _A, 0, 0),
    )
)

BUILD_TILES: dict[int, tuple[BuildTile, ...]] = {4: BUILD_TILES_4, 5: BUILD_TILES_5}


def _roof_supply(tiles: tuple[BuildTile, ...]) -> tuple[int, int, int]:
    # A roof of rank k is placed by a tile with roof k or by a Remodel tile of roof k (which also
    # places its own building's roof); a remodel returns the replaced roof, so these counts are the
    # most roofs of each rank that can ever be on the cliff at once.
    return tuple(  # type: ignore[return-value]
        sum(t.roof == k for t in tiles) + sum(t.roof == k and t.action == REMODEL for t in tiles)
        for k in (BRONZE, SILVER, GOLD)
    )


ROOF_SUPPLY: dict[int, tuple[int, int, int]] = {4: (6, 6, 6), 5: _roof_supply(BUILD_TILES_5)}
"""Roof pieces per rank (Bronze, Silver, Gold). 4×4: the retail 6 of each (rules §1.1), exactly
sufficient (rules §1.7 "Derived"). 5×5: no source gives a count; the number the 25-tile set can
ever need (9/10/10), so roofs never run out, as on 4×4."""


# --- goal cards (rules §1.8) ---------------------------------------------------------------------

GOAL_NAMES: tuple[str, ...] = (
    "grande",
    "piccolo",
    "solitario",
    "gruppo",
    "eccesso",
    "equilibrato",
    "dietro",
    "colonna",
    "bordo",
    "mezzo",
    "centro",
    "perfetto",
    "altezza",
)

# rules §1.8: the six double-sided goal cards (front, back). On 5×5 card 5's back reads Centro.
GOAL_CARDS_4: tuple[tuple[str, str], ...] = (
    ("grande", "piccolo"),
    ("solitario", "gruppo"),
    ("eccesso", "equilibrato"),
    ("dietro", "colonna"),
    ("bordo", "mezzo"),
    ("perfetto", "altezza"),
)
GOAL_CARDS_5: tuple[tuple[str, str], ...] = (
    *GOAL_CARDS_4[:4],
    ("bordo", "centro"),
    GOAL_CARDS_4[5],
)
GOAL_CARDS: dict[int, tuple[tuple[str, str], ...]] = {4: GOAL_CARDS_4, 5: GOAL_CARDS_5}


def goal_card(goal: str) -> int:
    """Index 0..5 of the card that carries ``goal`` on one of its faces (rules §1.8)."""
    for i, (front, back) in enumerate(GOAL_CARDS_4):
        if goal in (front, back):
            return i
    if goal == "centro":
        return 4
    raise KeyError(f"unknown goal {goal!r}; goals are {GOAL_NAMES}")


class GoalInfo(NamedTuple):
    """Kind and most points of one goal for one player (rules §1.8, §5.3).

    Attributes:
        kind: ``"competition"``, ``"per_item"`` or ``"threshold"``.
        points: Points for 1st place (competition), per item (per-item) or once (threshold).
    """

    kind: str
    points: int


# rules §1.8 goal table and §5.3.
def goal_problem(goals: Sequence[Any], size: int) -> str:
    """Why ``goals`` cannot be the goals of a game on a ``size`` cliff ("" when they can).

    Args:
        goals: Goal names.
        size: 4 or 5.

    Returns:
        An explanation naming what was wrong and what is allowed, or an empty string.
    """
    if len(goals) != 3:
        return (
            f"exactly 3 goals are in play (or none for a random draw), got {len(goals)}: "
            f"{list(goals)}"
        )
    for g in goals:
        if not isinstance(g, str) or g not in GOAL_NAMES:
            return f"unknown goal {g!r}; goals are {list(GOAL_NAMES)}"
        if g == "mezzo" and size != 4:
            return "'mezzo' is played only on the 4×4 cliff; the 5×5 cliff uses 'centro'"
        if g == "centro" and size != 5:
            return "'centro' is played only on the 5×5 cliff; the 4×4 cliff uses 'mezzo'"
    cards = [goal_card(g) for g in goals]
    for i in range(3):
        for j in range(i + 1, 3):
            if cards[i] == cards[j]:
                return (
                    f"{goals[i]!r} and {goals[j]!r} are on the same card (its two faces never "
                    f"play together); choose 3 goals on 3 different cards: "
                    f"{[f'{a}/{b}' for a, b in GOAL_CARDS[size]]}"
                )
    return ""


GOALS: dict[str, GoalInfo] = {
    "grande": GoalInfo("competition", 6),
    "piccolo": GoalInfo("per_item", 3),
    "solitario": GoalInfo("per_item", 2),
    "gruppo": GoalInfo("competition", 6),
    "eccesso": GoalInfo("competition", 6),
    "equilibrato": GoalInfo("threshold", 5),
    "dietro": GoalInfo("competition", 6),
    "colonna": GoalInfo("competition", 6),
    "bordo": GoalInfo("competition", 6),
    "mezzo": GoalInfo("competition", 6),
    "centro": GoalInfo("competition", 6),
    "perfetto": GoalInfo("per_item", 2),
    "altezza": GoalInfo("per_item", 2),
}
COMPETITION_POINTS = (6, 3)
"""1st and 2nd place of a competition goal (rules §5.3)."""

# rules §7: the six recommended solo goal sets; ``solo_goal_set`` k uses SOLO_GOAL_SETS[k - 1].
SOLO_GOAL_SETS: tuple[tuple[str, tuple[str, str, str]], ...] = (
    ("Big in the Back", ("grande", "gruppo", "dietro")),
    ("The Spice of Life", ("altezza", "equilibrato", "bordo")),
    ("Tiny Homes", ("piccolo", "solitario", "eccesso")),
    ("Balanced and Centered", ("mezzo", "perfetto", "colonna")),
    ("Location, Location, Location", ("solitario", "mezzo", "dietro")),
    ("More Blocks, More Problems", ("grande", "altezza", "eccesso")),
)


# --- set-up tables (rules §2, §6, §8) ------------------------------------------------------------

# rules §2.4 and §8: lots removed face-up at set-up, keyed (board size, players); solo = 1.
LOTS_REMOVED: dict[tuple[int, int], int] = {
    (4, 1): 4,
    (4, 2): 4,
    (4, 3): 1,
    (4, 4): 0,
    (5, 4): 1,
    (5, 5): 0,
    (5, 6): 1,
}


def tiles_per_round(num_players: int) -> int:
    """Tiles revealed per Beach Board row each round: one per player, 2 in solo (rules §2.5)."""
    return max(2, num_players)


def num_rounds(size: int, num_players: int) -> int:
    """Rounds of a game = lots available / tiles per round (rules §2, §6, §8)."""
    lots = size * size - LOTS_REMOVED[(size, num_players)]
    return lots // tiles_per_round(num_players)


ROUNDS: dict[tuple[int, int], int] = {key: num_rounds(*key) for key in LOTS_REMOVED}
"""Rounds per (board size, players): 1p 6, 2p 6, 3p 5, 4p 4; 5×5 4p 6, 5p 5, 6p 4 (rules §2)."""


# --- phases of a round (rules §3) ------------------------------------------------------------

PHASES: tuple[str, ...] = (
    "bid",
    "draft_lot",
    "draft_block",
    "block_choice",
    "draft_build",
    "build",
    "add_on",
    "remodel",
    "terminal",
)
"""Phase names, indexed by ``PositanoState.phase_index`` (rules §3)."""
(PHASE_BID, PHASE_DRAFT_LOT, PHASE_DRAFT_BLOCK, PHASE_BLOCK_CHOICE, PHASE_DRAFT_BUILD,
 PHASE_BUILD, PHASE_ADD_ON, PHASE_REMODEL, PHASE_OVER) = range(len(PHASES))
PHASE_INDEX = {name: i for i, name in enumerate(PHASES)}
"""Phase name -> its index."""
PHASE_KIND = (-1, 0, 1, 1, 2, 2, 2, 2, -1)
"""Per phase, the tile type (:data:`TILE_TYPES` index) whose draft order it follows; -1 none."""
TILE_TYPES = ("lot", "block", "build")
"""The tile types in bid-value order: a bid card's values and the three drafts of a round."""


# --- index ranges shared by the action layout and the observation (rules §1) -------------

NUM_LOTS = 25
"""Lots in the shared 5×5 indexing (the 4×4 cliff leaves rows/columns 5 empty)."""
MAX_TILES = 25
"""Tile indices per Beach Board row type (the 5×5 sets; the 4×4 sets use 0..15)."""
MAX_HEIGHT = max(BOARD_SIZES) + MAX_LEVEL_BONUS
"""Tallest possible building: regulation height 5 + 2 (rules §4)."""
