"""Rapa Nui's observable facts: the observation layout, the shared vector and its event handlers.

The observation (:func:`parts`, one layout per configuration; see :mod:`.observer` for its
meaning) is padded to :data:`MAX_SEATS` seats. The observer keeps every fact of a position once,
seat-absolute, in one flat *shared* vector (:class:`Shared` places its fact groups for a player
count), created from scratch the first time a position is observed. Each change event
(:mod:`.events`) marks the fact groups it changed (:func:`event_groups`, told by the handlers of
:func:`handlers`), and the next read rewrites just those groups from the position's declared
accessors (:func:`write`): a pass changes only the turn, a draw one column. The engine knows
nothing of it. Pure standard library.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tabletop_gym.core.events import Handler
from tabletop_gym.core.game import TERMINAL
from tabletop_gym.core.layout import Grid, Part, ego_labels
from tabletop_gym.envs.rapa_nui import events as ev
from tabletop_gym.envs.rapa_nui.components import (
    CARD_NAMES,
    COLUMN_SIZE,
    DECK_COUNTS,
    HAND_SIZE,
    MAX_FACE_DOWN,
    MAX_MOAI_UNITS,
    MAX_VP,
    MAX_WOOD,
    MOAI,
    NUM_CARD_TYPES,
    NUM_COLUMNS,
    NUM_KINDS,
    OFFERING_STACK_SIZE,
    PHASES,
    PRIEST,
    START_PILE,
    WOODCUTTER,
)
from tabletop_gym.envs.rapa_nui.rules import RapaNuiConfig, RapaNuiGame, RapaNuiState

__all__ = ["MAX_SEATS", "Shared", "event_groups", "handlers", "parts", "write"]

MAX_SEATS = 4
"""Per-seat blocks are padded to this many seats."""

TYPECODES = {"float32": "f", "uint16": "H", "uint8": "B"}
"""The ``array`` type code of each observation dtype (the shared vector is stored in one)."""


def parts(config: RapaNuiConfig | Mapping[str, Any] | None = None) -> list[Part]:
    """``(name, size, low, high, doc[, grid])`` of every slice of ``config``'s observation.

    The bounds depend on ``offering_supply_limited`` only; every other switch and the player
    count leave the layout as it is.

    Raises:
        ConfigError: When ``config`` is not a valid Rapa Nui configuration.
    """
    game = RapaNuiGame(config)
    per_kind = game.max_held_per_kind
    # A display holds at most every deck card of one id plus the seat's start Woodcutter.
    display_max = DECK_COUNTS[WOODCUTTER] + 1
    cards = tuple(name.replace(" ", "_") for name in CARD_NAMES)
    places = tuple(f"c{c + 1}p{p + 1}" for c in range(NUM_COLUMNS) for p in range(COLUMN_SIZE))
    return [
        ("num_players", 3, 0, 1, "player count one-hot: 2, 3, 4"),
        ("seat", MAX_SEATS, 0, 1, "own seat one-hot (seat i starts with 2+i wood)"),
        ("phase", len(PHASES), 0, 1, "phase one-hot: " + ", ".join(PHASES)),
        ("active_player", MAX_SEATS, 0, 1, "seat on turn, ego-relative one-hot"),
        ("decider", MAX_SEATS, 0, 1, "seat to decide, ego-relative one-hot (all 0 at the end)"),
        ("draws_left", 1, 0, HAND_SIZE, "cards the active seat still draws this turn"),
        (
            "moai_units",
            MAX_SEATS,
            0,
            MAX_MOAI_UNITS,
            "Moai units each seat still has to split (ego order)",
        ),
        ("own_hand", NUM_CARD_TYPES, 0, HAND_SIZE, "own hand, count per card id"),
        ("own_holdings", NUM_KINDS, 0, per_kind, "own offering cards per kind"),
        (
            "own_face_down",
            NUM_KINDS,
            0,
            MAX_FACE_DOWN,
            "face-down stone cards this seat placed, per kind",
        ),
        (
            "displays",
            MAX_SEATS * NUM_CARD_TYPES,
            0,
            display_max,
            "per seat (ego order) display count per card id",
            Grid(ego_labels(MAX_SEATS), cards),
        ),
        ("wood", MAX_SEATS, 0, MAX_WOOD, "wood per seat (ego order)"),
        ("vp", MAX_SEATS, 0, MAX_VP, "VP tiles per seat (ego order)"),
        ("hand_sizes", MAX_SEATS, 0, HAND_SIZE, "hand cards per seat (ego order)"),
        (
            "holding_counts",
            MAX_SEATS,
            0,
            game.max_held_total,
            "offering cards held per seat (ego order; counts only)",
        ),
        (
            "face_down_counts",
            MAX_SEATS,
            0,
            MAX_FACE_DOWN,
            "face-down stone cards placed per seat (ego order; counts only)",
        ),
        (
            "columns",
            NUM_COLUMNS * COLUMN_SIZE * NUM_CARD_TYPES,
            0,
            1,
            "4 columns × 4 positions (front first) × card-id one-hot; 0 = empty",
            Grid(places, cards),
        ),
        (
            "stone_face_up",
            NUM_KINDS,
            0,
            game.max_face_up_per_kind,
            "face-up cards on the offering stone per kind",
        ),
        (
            "stone_face_down",
            1,
            0,
            MAX_FACE_DOWN,
            "face-down cards on the offering stone (all seats)",
        ),
        ("supply", NUM_KINDS, 0, OFFERING_STACK_SIZE, "offering supply stack sizes"),
        ("draw_pile", 1, 0, START_PILE, "cards left in the draw pile"),
        ("removed_moai", 1, 0, DECK_COUNTS[MOAI], "Moai removed from the game"),
    ]


# Fact groups of the shared vector, as bits of a pending mask: an event marks the groups it
# changed, and the next read rewrites just those from the position.
CH_PHASE = 1 << 0
"""Phase, active player, decider or draws left (every event ends or moves a turn)."""
CH_UNITS = 1 << 1
"""Moai units to split."""
CH_HANDS = 1 << 2
"""The hands of the seats whose :data:`CH_SEAT` bits are set (and their sizes)."""
CH_DISPLAYS = 1 << 3
"""The displays of the seats whose :data:`CH_SEAT` bits are set."""
CH_WOOD = 1 << 4
"""Every seat's wood."""
CH_VP = 1 << 5
"""Every seat's VP tiles."""
CH_HOLDINGS = 1 << 6
"""Every seat's offering cards (kinds private, counts public)."""
CH_FACE_DOWN = 1 << 7
"""The face-down cards on the offering stone (kinds private to the seat that placed them)."""
CH_STONE = 1 << 8
"""The face-up cards on the offering stone."""
CH_SUPPLY = 1 << 9
"""The offering supply stacks."""
CH_COLUMNS = 1 << 10
"""The columns whose :data:`CH_COLUMN` bits are set, and the draw pile."""
CH_REMOVED = 1 << 11
"""The Moai removed from the game."""
CH_SEAT = 1 << 12
"""Seat ``p``'s bit (bits 12-15, 4 seats at most) is ``CH_SEAT << p``."""
CH_COLUMN = 1 << 16
"""Column ``c``'s bit (bits 16-19) is ``CH_COLUMN << c``."""
_PLAIN_GROUPS: tuple[tuple[int, str, Callable[[RapaNuiState], Sequence[int]]], ...] = (
    (CH_WOOD, "wood", RapaNuiState.all_wood),
    (CH_VP, "vp", RapaNuiState.all_vp),
    (CH_UNITS, "units", RapaNuiState.all_moai_units),
    (CH_STONE, "stone", RapaNuiState.stone_face_up_counts),
    (CH_SUPPLY, "supply", RapaNuiState.supply_counts),
)
"""The groups the shared vector holds exactly as the state's accessor lists them: bit, group,
accessor."""
_PLAIN = CH_UNITS | CH_WOOD | CH_VP | CH_STONE | CH_SUPPLY
_SEAT_SHIFT = CH_SEAT.bit_length() - 1
_COLUMN_SHIFT = CH_COLUMN.bit_length() - 1
# The columns named by the 4 column bits of a mask.
_COLUMNS_OF = tuple(tuple(c for c in range(NUM_COLUMNS) if bits >> c & 1) for bits in range(16))


def event_groups(code: int, args: tuple[int, ...]) -> int:
    """The fact groups an event (:mod:`.events`) changed, as :data:`CH_PHASE`-style bits.

    Exact per event, so a read rewrites no group that cannot have changed (a pass changes only
    the turn).

    Raises:
        ValueError: On a code that is not one of :data:`.events.EVENTS`.
    """
    if code == ev.SCORED:
        card = args[0]
        return CH_PHASE | (CH_WOOD if card == WOODCUTTER else CH_VP if card == PRIEST
                           else CH_UNITS if card == MOAI else CH_HOLDINGS | CH_SUPPLY)
    seat = CH_SEAT << args[0]
    if code == ev.BOUGHT:
        return CH_WOOD | CH_SUPPLY | CH_HOLDINGS | CH_PHASE | seat
    if code == ev.PASSED:
        return CH_PHASE | seat
    if code == ev.PLAYED:
        card, count = args[1], args[2]
        wood = CH_WOOD if card == MOAI or count > 1 else 0
        return CH_HANDS | CH_DISPLAYS | CH_PHASE | wood | seat
    if code == ev.MOAI_REMOVED:
        return CH_HANDS | CH_REMOVED | CH_PHASE | seat
    if code == ev.DREW:
        return CH_COLUMNS | (CH_COLUMN << args[1]) | CH_HANDS | CH_PHASE | seat
    if code == ev.OFFERED:
        return CH_HOLDINGS | CH_PHASE | seat | (CH_FACE_DOWN if args[2] else CH_STONE)
    if code == ev.SUPPLIED:
        return CH_SUPPLY | CH_STONE | CH_PHASE | seat
    if code == ev.SPLIT:
        return CH_VP | CH_WOOD | CH_UNITS | CH_PHASE | seat
    raise ValueError(f"unknown Rapa Nui event code {code}; codes are 0..{len(ev.EVENTS) - 1}")


_GROUPS: tuple[dict[Any, int], ...] = tuple({} for _ in ev.EVENTS.kinds)
"""Per code, :func:`event_groups`' answer per argument values (the argument itself for a
one-argument event, else the argument tuple), computed once each."""


def _marker(code: int, entry: list[Any]) -> Handler:
    # A handler of the code's own arity, so an event packs no argument tuple beyond its memo key.
    of_code = _GROUPS[code]
    if len(ev.EVENTS.kinds[code].args) == 1:
        def one(state: Any, a: Any) -> None:
            bits = of_code.get(a)
            if bits is None:
                bits = of_code[a] = event_groups(code, (a,))
            entry[1] |= bits

        return one

    def marks(state: Any, *args: Any) -> None:
        bits = of_code.get(args)
        if bits is None:
            bits = of_code[args] = event_groups(code, args)
        entry[1] |= bits

    return marks


def handlers(entry: list[Any]) -> list[Handler]:
    """The handler of each event of :data:`.events.EVENTS`, by code, for one kept vector.

    Each ORs the fact groups its event changed into ``entry[1]`` (``entry`` is the observer's
    ``[vector, pending, ...]``); the next read rewrites them (:func:`write`).
    """
    return [_marker(code, entry) for code in range(len(ev.EVENTS))]


class Shared:
    """Where each fact group lies in the shared vector of an ``n``-seat game.

    Every group is contiguous, in the order the state's seat-major accessors list it, so a
    marked group is one slice assignment.

    Attributes:
        at: The first entry of each group (entries 0 and 1 hold the constants 0 and 1).
        size: Length of the shared vector.
        plain: ``(bit, first entry, accessor)`` of each group held as its accessor lists it.
    """

    def __init__(self, n: int):
        """Place the fact groups of an ``n``-seat game."""
        t, k = NUM_CARD_TYPES, NUM_KINDS
        at = 2  # after the observer's constant entries 0 and 1 (core/observer.py ZERO, ONE)
        place: dict[str, int] = {}
        for name, size in (
            ("phase", len(PHASES)), ("active", n), ("decider", n), ("draws", 1),
            ("units", n),
            ("hands", n * t), ("hand_sizes", n),
            ("holdings", n * k), ("holding_counts", n),
            ("face_down", n * k), ("face_down_counts", n), ("face_down_total", 1),
            ("displays", n * t),
            ("wood", n),
            ("vp", n),
            ("columns", NUM_COLUMNS * COLUMN_SIZE * t), ("pile", 1),
            ("stone", k),
            ("supply", k),
            ("removed", 1),
        ):
            place[name] = at
            at += size
        self.n = n
        self.size = at
        self.at = place
        self.plain = tuple((bit, place[name], read) for bit, name, read in _PLAIN_GROUPS)
        # The seats named by the 4 seat bits of a mask: hands and displays are rewritten for
        # those seats only.
        self.seats_of = tuple(tuple(q for q in range(n) if bits >> q & 1) for bits in range(16))
        # Exactly as long as the slices they clear (an array slice assignment of another length
        # would resize the array).
        meta = place["draws"] - place["phase"]
        columns = COLUMN_SIZE * NUM_CARD_TYPES
        self.zero_meta = {c: array(c, bytes(meta * array(c).itemsize)) for c in TYPECODES.values()}
        self.zero_columns = {c: array(c, bytes(columns * array(c).itemsize))
                             for c in TYPECODES.values()}


def write(s: Any, a: array, mask: int, sh: Shared) -> None:
    """Rewrite in the shared vector ``a`` the fact groups ``mask`` names (-1: all of them).

    Reads the state ``s`` (a :class:`~.rules.RapaNuiState`) through its declared accessors, the
    seat-major ones without copies (and never changes what they return).
    """
    at = sh.at
    n = sh.n
    code = a.typecode
    # Every action changes the phase group and a draw the columns: those two are zeroed from a
    # kept array of zeros, then written entry by entry.
    if mask & CH_PHASE:
        i = at["phase"]
        end = at["draws"]
        a[i:end] = sh.zero_meta[code]
        phase, active, cur, draws = s.turn_counters()  # one call: read on every action
        a[i + phase] = 1
        a[at["active"] + active] = 1
        if cur != TERMINAL:
            a[at["decider"] + cur] = 1
        a[end] = draws
    if mask & (CH_HANDS | CH_DISPLAYS):
        t = NUM_CARD_TYPES
        seats = sh.seats_of[(mask >> _SEAT_SHIFT) & 15]
        if mask & CH_HANDS:
            h = s.all_hands()
            i = at["hands"]
            sizes = i + t * n  # the hand sizes follow the hands
            for q in seats:
                b = q * t
                cards = h[b : b + t]
                a[i + b : i + b + t] = array(code, cards)
                a[sizes + q] = sum(cards)
        if mask & CH_DISPLAYS:
            d = s.all_displays()
            i = at["displays"]
            for q in seats:
                b = q * t
                a[i + b : i + b + t] = array(code, d[b : b + t])
    if mask & CH_HOLDINGS:
        h = s.all_holdings()
        i = at["holdings"]
        a[i : i + 5 * n] = array(code, h + [sum(h[b : b + 4]) for b in range(0, 4 * n, 4)])
    if mask & CH_FACE_DOWN:
        h = s.all_face_down()
        i = at["face_down"]
        counts = [sum(h[b : b + 4]) for b in range(0, 4 * n, 4)]
        a[i : i + 5 * n + 1] = array(code, h + counts + [sum(counts)])
    if mask & _PLAIN:
        for bit, i, read in sh.plain:
            if mask & bit:
                values = read(s)
                a[i : i + len(values)] = array(code, values)
    if mask & CH_COLUMNS:
        start = at["columns"]
        block = COLUMN_SIZE * NUM_CARD_TYPES
        zero = sh.zero_columns[code]
        for c in _COLUMNS_OF[(mask >> _COLUMN_SHIFT) & 15]:
            j = start + c * block
            a[j : j + block] = zero
            for card in s.column(c):  # front first, one position of 7 card ids after another
                a[j + card] = 1
                j += NUM_CARD_TYPES
        a[at["pile"]] = s.draw_pile_size()  # the pile's size follows the columns
    if mask & CH_REMOVED:
        a[at["removed"]] = s.removed_moai()
