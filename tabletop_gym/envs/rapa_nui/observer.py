"""Rapa Nui observation vectors: what one seat may know, ego-centric, padded to 4 seats.

Per-seat blocks list the observing seat first, then the other seats in seat order after it
(clockwise); seats beyond the player count are zeros, so one policy serves 2–4 players. Values
are raw counts; every slice's bounds are proven maxima (see the bounds in ``rules.py``).

Never encoded: other seats' hand cards, the kinds of their offering cards and of the face-down
stone cards they placed, the order of the draw pile.
"""

from __future__ import annotations

from array import array
from typing import Any, cast

import numpy as np

from tabletop_gym.core.events import Handlers
from tabletop_gym.core.game import TERMINAL, State
from tabletop_gym.core.layout import Grid, ego_labels
from tabletop_gym.core.observer import ONE, ZERO, ObservationLayout, SharedObserver
from tabletop_gym.envs.rapa_nui import events as ev
from tabletop_gym.envs.rapa_nui.rules import (
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
    RapaNuiGame,
    RapaNuiState,
)

MAX_SEATS = 4
"""Per-seat blocks are padded to this many seats."""

_TYPECODES = {"float32": "f", "uint16": "H", "uint8": "B"}
"""The ``array`` type code of each observation dtype (the shared vector is stored in one)."""

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


def event_groups(code: int, args: tuple[int, ...]) -> int:
    """The fact groups an event (:mod:`.events`) changed, as :data:`CH_PHASE`-style bits.

    Exact per event, so a read rewrites no group that cannot have changed (a pass changes only
    the turn).
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

class RapaNuiObserver(SharedObserver):
    """Encodes a :class:`~tabletop_gym.envs.rapa_nui.rules.RapaNuiState` as one seat sees it.

    Every fact is kept once, seat-absolute, in the shared vector (see
    :class:`~tabletop_gym.core.observer.SharedObserver`); a seat's gather row picks its own
    private facts and the public ones, in its ego order, with zeros for the seats a smaller
    game lacks.
    """

    game: RapaNuiGame

    def __init__(self, game: RapaNuiGame):
        """Lay out the slices; bounds depend on ``offering_supply_limited`` only."""
        super().__init__(game)
        # Every (event, arguments) seen gets its groups computed once, then looked up: per code,
        # keyed by the argument tuple, or by the argument itself for a one-argument event.
        self._groups: list[dict[Any, int]] = [{} for _ in ev.EVENTS.kinds]
        per_kind = game.max_held_per_kind
        # A display holds at most every deck card of one id plus the seat's start Woodcutter.
        display_max = DECK_COUNTS[WOODCUTTER] + 1
        cards = tuple(name.replace(" ", "_") for name in CARD_NAMES)
        places = tuple(
            f"c{c + 1}p{p + 1}" for c in range(NUM_COLUMNS) for p in range(COLUMN_SIZE)
        )
        self.layout = ObservationLayout(
            [
                ("num_players", 3, 0, 1, "player count one-hot: 2, 3, 4"),
                ("seat", MAX_SEATS, 0, 1, "own seat one-hot (seat i starts with 2+i wood)"),
                ("phase", len(PHASES), 0, 1, "phase one-hot: " + ", ".join(PHASES)),
                ("active_player", MAX_SEATS, 0, 1, "seat on turn, ego-relative one-hot"),
                (
                    "decider",
                    MAX_SEATS,
                    0,
                    1,
                    "seat to decide, ego-relative one-hot (all 0 at the end)",
                ),
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
        )
        self._shared_layout()

    # --- the shared vector: seat-absolute, every fact once, rewritten per logged fact group ---

    def _shared_layout(self) -> None:
        """Place every fact group in the shared vector and build each seat's gather row."""
        n = self.game.num_players
        t, k = NUM_CARD_TYPES, NUM_KINDS
        at = 2  # after the constant entries ZERO and ONE
        place: dict[str, int] = {}
        # Each group is contiguous, in the order the engine's flat lists hold it (seat-major),
        # so a logged group is one slice assignment.
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
        self.shared_size = at
        self._at = place
        self._meta_size = len(PHASES) + 2 * n + 1
        # The phase group's entries: phase one-hot, active seat one-hot, decider one-hot, draws.
        self._active_at = place["active"]
        self._decider_at = place["decider"]
        self._draws_at = place["draws"]
        # Groups the shared vector holds exactly as the engine's flat list does.
        self._wood_at = place["wood"]
        self._vp_at = place["vp"]
        self._units_at = place["units"]
        self._stone_at = place["stone"]
        self._supply_at = place["supply"]
        self._plain_bits = CH_UNITS | CH_WOOD | CH_VP | CH_STONE | CH_SUPPLY
        # The seats (columns) named by the 4 seat (column) bits of a log entry: hands and
        # displays are rewritten for those seats only, the columns block for those columns.
        self._seats_of = tuple(tuple(q for q in range(n) if bits >> q & 1) for bits in range(16))
        self._columns_of = tuple(
            tuple(c for c in range(NUM_COLUMNS) if bits >> c & 1) for bits in range(16)
        )
        self._seat_shift = CH_SEAT.bit_length() - 1
        self._column_shift = CH_COLUMN.bit_length() - 1
        columns = COLUMN_SIZE * NUM_CARD_TYPES
        # Exactly as long as the slices they clear (an array slice assignment of another
        # length would resize the array).
        meta = self._draws_at - place["phase"]
        self._zero_meta = {c: array(c, bytes(meta * array(c).itemsize))
                           for c in _TYPECODES.values()}
        self._zero_columns = {c: array(c, bytes(columns * array(c).itemsize))
                              for c in _TYPECODES.values()}
        gather = np.full((n, self.layout.size), ZERO, dtype=np.intp)
        sl = self.layout.slices
        for p in range(n):
            row = gather[p]
            ego = [(p + j) % n for j in range(n)]  # ego position j -> absolute seat

            def put(slice_name: str, sources: list[int], row: np.ndarray = row) -> None:
                start = sl[slice_name].start
                row[start : start + len(sources)] = sources

            put("num_players", [ONE if m == n - 2 else ZERO for m in range(3)])
            put("seat", [ONE if q == p else ZERO for q in range(MAX_SEATS)])
            put("phase", [place["phase"] + i for i in range(len(PHASES))])
            put("active_player", [place["active"] + q for q in ego])
            put("decider", [place["decider"] + q for q in ego])
            put("draws_left", [place["draws"]])
            put("moai_units", [place["units"] + q for q in ego])
            put("own_hand", [place["hands"] + p * t + c for c in range(t)])
            put("own_holdings", [place["holdings"] + p * k + i for i in range(k)])
            put("own_face_down", [place["face_down"] + p * k + i for i in range(k)])
            put("displays", [place["displays"] + q * t + c for q in ego for c in range(t)])
            put("wood", [place["wood"] + q for q in ego])
            put("vp", [place["vp"] + q for q in ego])
            put("hand_sizes", [place["hand_sizes"] + q for q in ego])
            put("holding_counts", [place["holding_counts"] + q for q in ego])
            put("face_down_counts", [place["face_down_counts"] + q for q in ego])
            put("columns", [place["columns"] + i for i in range(sl["columns"].size)])
            put("stone_face_up", [place["stone"] + i for i in range(k)])
            put("stone_face_down", [place["face_down_total"]])
            put("supply", [place["supply"] + i for i in range(k)])
            put("draw_pile", [place["pile"]])
            put("removed_moai", [place["removed"]])
        gather.setflags(write=False)
        self.gather = gather

    def _new_shared(self, state: State) -> np.ndarray:
        """A shared vector stored in an ``array.array`` (``vec.base.obj``), all groups written.

        Python writes into an ``array`` slot or slice cost about half of numpy's (no scalar or
        list conversion), and the numpy view over it gathers the observations as before.
        """
        code = _TYPECODES[self.dtype.name]
        store = array(code, bytes(self.shared_size * self.dtype.itemsize))
        store[ONE] = 1
        vec = np.frombuffer(store, dtype=self.dtype)
        self._write_shared(state, vec, -1)
        return vec

    def _listener(self, entry: list[Any]) -> Handlers:
        # One handler per code, of the code's own arity, so an event packs no argument tuple
        # beyond its memo key; each memo holds event_groups' answer per argument values.
        def handler(code: int) -> Any:
            of_code = self._groups[code]
            arity = len(ev.EVENTS.kinds[code].args)
            if arity == 1:
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

        return Handlers(ev.EVENTS, [handler(code) for code in range(len(ev.EVENTS))])

    def _write_shared(self, state: State, vec: np.ndarray, mask: int) -> None:
        """Rewrite the fact groups ``mask`` names, straight from the engine's flat lists.

        The observer is the engine's partner in this package: it reads the state's lists
        without the accessors' copies (and never changes them). ``vec`` is a vector of
        :meth:`_new_shared` (written through its ``array``) or any other of the right size
        and dtype (every group copied from a fresh one).
        """
        s = cast(RapaNuiState, state)  # this observer is built for a Rapa Nui game only
        view: Any = vec.base
        a: Any = view.obj if type(view) is memoryview else None
        if type(a) is not array:
            # Every group rewritten is as right as the named ones (all hold the state's facts).
            vec[:] = self._new_shared(state)
            return
        at = self._at
        n = s._n
        code = a.typecode
        # Every action changes the phase group and a draw the columns: those two are zeroed
        # from a kept array of zeros, then written entry by entry.
        if mask & CH_PHASE:
            i = at["phase"]
            end = self._draws_at
            a[i:end] = self._zero_meta[code]
            a[i + s._phase] = 1
            a[self._active_at + s._active] = 1
            if s._cur != TERMINAL:
                a[self._decider_at + s._cur] = 1
            a[end] = s._draws_left
        if mask & (CH_HANDS | CH_DISPLAYS):
            t = NUM_CARD_TYPES
            seats = self._seats_of[(mask >> self._seat_shift) & 15]
            if mask & CH_HANDS:
                h = s._hands
                i = at["hands"]
                sizes = i + t * n  # the hand sizes follow the hands
                for q in seats:
                    b = q * t
                    cards = h[b : b + t]
                    a[i + b : i + b + t] = array(code, cards)
                    a[sizes + q] = sum(cards)
            if mask & CH_DISPLAYS:
                d = s._displays
                i = at["displays"]
                for q in seats:
                    b = q * t
                    a[i + b : i + b + t] = array(code, d[b : b + t])
        if mask & CH_HOLDINGS:
            h = s._holdings
            i = at["holdings"]
            a[i : i + 5 * n] = array(code, h + [sum(h[b : b + 4]) for b in range(0, 4 * n, 4)])
        if mask & CH_FACE_DOWN:
            h = s._face_down
            i = at["face_down"]
            counts = [sum(h[b : b + 4]) for b in range(0, 4 * n, 4)]
            a[i : i + 5 * n + 1] = array(code, h + counts + [sum(counts)])
        if mask & self._plain_bits:
            if mask & CH_WOOD:
                a[self._wood_at : self._wood_at + n] = array(code, s._wood)
            if mask & CH_VP:
                a[self._vp_at : self._vp_at + n] = array(code, s._vp)
            if mask & CH_UNITS:
                a[self._units_at : self._units_at + n] = array(code, s._units)
            if mask & CH_STONE:
                a[self._stone_at : self._stone_at + NUM_KINDS] = array(code, s._stone_up)
            if mask & CH_SUPPLY:
                a[self._supply_at : self._supply_at + NUM_KINDS] = array(code, s._supply)
        if mask & CH_COLUMNS:
            start = at["columns"]
            block = COLUMN_SIZE * NUM_CARD_TYPES
            zero = self._zero_columns[code]
            columns = s._columns
            for c in self._columns_of[(mask >> self._column_shift) & 15]:
                j = start + c * block
                a[j : j + block] = zero
                for card in columns[c]:  # front first, one position of 7 card ids after another
                    a[j + card] = 1
                    j += NUM_CARD_TYPES
            a[at["pile"]] = len(s._pile)  # the pile's size follows the columns
        if mask & CH_REMOVED:
            a[at["removed"]] = s._removed
