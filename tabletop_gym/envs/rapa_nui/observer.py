"""Rapa Nui observation vectors: what one seat may know, ego-centric, padded to 4 seats.

Per-seat blocks list the observing seat first, then the other seats in seat order after it
(clockwise); seats beyond the player count are zeros, so one policy serves 2–4 players. Values
are raw counts; every slice's bounds are proven maxima (see the bounds in ``rules.py``).

Never encoded: other seats' hand cards, the kinds of their offering cards and of the face-down
stone cards they placed, the order of the draw pile.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tabletop_gym.core.game import State
from tabletop_gym.core.observer import ObservationLayout, Observer
from tabletop_gym.envs.rapa_nui.rules import (
    CH_COLUMNS,
    CH_DISPLAYS,
    CH_FACE_DOWN,
    CH_HANDS,
    CH_HOLDINGS,
    CH_PHASE,
    CH_REMOVED,
    CH_STONE,
    CH_SUPPLY,
    CH_UNITS,
    CH_VP,
    CH_WOOD,
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
    START_PILE,
    WOODCUTTER,
    RapaNuiGame,
    RapaNuiState,
)

MAX_SEATS = 4
"""Per-seat blocks are padded to this many seats."""


class RapaNuiObserver(Observer):
    """Encodes a :class:`~tabletop_gym.envs.rapa_nui.rules.RapaNuiState` as one seat sees it."""

    game: RapaNuiGame
    incremental = True

    def __init__(self, game: RapaNuiGame):
        """Lay out the slices; bounds depend on ``offering_supply_limited`` only."""
        super().__init__(game)
        per_kind = game.max_held_per_kind
        # A display holds at most every deck card of one id plus the seat's start Woodcutter.
        display_max = DECK_COUNTS[WOODCUTTER] + 1
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
        sl = self.layout.slices
        self._idx = {name: s.start for name, s in sl.items()}
        self._phase_index = {name: k for k, name in enumerate(PHASES)}
        self._sections()

    # --- sections: each writes a disjoint set of entries and names the fact groups it reads ----

    def _sections(self) -> None:
        self.sections = []
        for _ in range(self.game.num_players):
            self.sections.append(
                [
                    (self._sec_const, 0),
                    (self._sec_meta, CH_PHASE),
                    (self._sec_units, CH_UNITS),
                    (self._sec_hands, CH_HANDS),
                    (self._sec_holdings, CH_HOLDINGS),
                    (self._sec_face_down, CH_FACE_DOWN),
                    (self._sec_displays, CH_DISPLAYS),
                    (self._sec_wood_vp, CH_WOOD | CH_VP),
                    (self._sec_columns, CH_COLUMNS),
                    (self._sec_stone, CH_STONE),
                    (self._sec_supply, CH_SUPPLY),
                    (self._sec_removed, CH_REMOVED),
                ]
            )

    def _seats(self, s: RapaNuiState, player: int) -> list[int]:
        n = s.num_players
        return [(player + j) % n for j in range(n)]

    def _sec_const(self, s: RapaNuiState, player: int, memo: list[Any]) -> tuple[list, list]:
        i = self._idx
        return [i["num_players"] + s.num_players - 2, i["seat"] + player], [1, 1]

    def _sec_meta(self, s: RapaNuiState, player: int, memo: list[Any]) -> tuple[list, list]:
        i = self._idx
        n = s.num_players
        idx = [
            i["phase"] + self._phase_index[s.phase()],
            i["active_player"] + (s.active_player() - player) % n,
            i["draws_left"],
        ]
        val = [1, 1, s.draws_left()]
        decider = s.decider()
        if decider is not None:
            idx.append(i["decider"] + (decider - player) % n)
            val.append(1)
        return idx, val

    def _sec_units(self, s: RapaNuiState, player: int, memo: list[Any]) -> tuple[list, list]:
        base = self._idx["moai_units"]
        seats = self._seats(s, player)
        return [base + j for j in range(len(seats))], [s.moai_units(q) for q in seats]

    def _sec_hands(self, s: RapaNuiState, player: int, memo: list[Any]) -> tuple[list, list]:
        i = self._idx
        own, sizes = i["own_hand"], i["hand_sizes"]
        seats = self._seats(s, player)
        idx = [own + t for t in range(NUM_CARD_TYPES)] + [sizes + j for j in range(len(seats))]
        return idx, s.hand(player) + [s.hand_size(q) for q in seats]

    def _sec_holdings(self, s: RapaNuiState, player: int, memo: list[Any]) -> tuple[list, list]:
        i = self._idx
        own, counts = i["own_holdings"], i["holding_counts"]
        seats = self._seats(s, player)
        idx = [own + k for k in range(NUM_KINDS)] + [counts + j for j in range(len(seats))]
        return idx, s.holdings(player) + [s.holding_count(q) for q in seats]

    def _sec_face_down(self, s: RapaNuiState, player: int, memo: list[Any]) -> tuple[list, list]:
        i = self._idx
        own, counts = i["own_face_down"], i["face_down_counts"]
        seats = self._seats(s, player)
        idx = [own + k for k in range(NUM_KINDS)] + [counts + j for j in range(len(seats))]
        idx.append(i["stone_face_down"])
        val = s.face_down(player) + [s.face_down_count(q) for q in seats]
        val.append(s.face_down_count())
        return idx, val

    def _sec_displays(self, s: RapaNuiState, player: int, memo: list[Any]) -> tuple[list, list]:
        base = self._idx["displays"]
        idx: list[int] = []
        val: list[int] = []
        for j, q in enumerate(self._seats(s, player)):
            idx += range(base + j * NUM_CARD_TYPES, base + (j + 1) * NUM_CARD_TYPES)
            val += s.display(q)
        return idx, val

    def _sec_wood_vp(self, s: RapaNuiState, player: int, memo: list[Any]) -> tuple[list, list]:
        i = self._idx
        seats = self._seats(s, player)
        n = len(seats)
        idx = [i["wood"] + j for j in range(n)] + [i["vp"] + j for j in range(n)]
        return idx, [s.wood(q) for q in seats] + [s.vp(q) for q in seats]

    def _sec_columns(self, s: RapaNuiState, player: int, memo: list[Any]) -> tuple[list, list]:
        base = self._idx["columns"]
        idx = [
            base + (c * COLUMN_SIZE + pos) * NUM_CARD_TYPES + card
            for c, col in enumerate(s.columns())
            for pos, card in enumerate(col)
        ]
        val = [1] * len(idx)
        idx.append(self._idx["draw_pile"])
        val.append(s.draw_pile_size())
        return idx, val

    def _sec_stone(self, s: RapaNuiState, player: int, memo: list[Any]) -> tuple[list, list]:
        base = self._idx["stone_face_up"]
        return list(range(base, base + NUM_KINDS)), s.stone_face_up()

    def _sec_supply(self, s: RapaNuiState, player: int, memo: list[Any]) -> tuple[list, list]:
        base = self._idx["supply"]
        return list(range(base, base + NUM_KINDS)), s.supply()

    def _sec_removed(self, s: RapaNuiState, player: int, memo: list[Any]) -> tuple[list, list]:
        return [self._idx["removed_moai"]], [s.removed_moai()]

    def _fill(self, state: State, player: int, out: np.ndarray) -> None:
        self._start(state, player, out)
