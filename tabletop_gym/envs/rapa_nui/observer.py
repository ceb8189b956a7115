"""Rapa Nui observation vectors: what one seat may know, ego-centric, padded to 4 seats.

Per-seat blocks list the observing seat first, then the other seats in seat order after it
(clockwise); seats beyond the player count are zeros, so one policy serves 2–4 players. Values
are raw counts; every slice's bounds are proven maxima (see the bounds in ``rules.py``).

Never encoded: other seats' hand cards, the kinds of their offering cards and of the face-down
stone cards they placed, the order of the draw pile.
"""

from __future__ import annotations

import numpy as np

from tabletop_gym.core.game import State
from tabletop_gym.core.observer import ObservationLayout, Observer
from tabletop_gym.envs.rapa_nui.rules import (
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

    def _fill(self, state: State, player: int, out: np.ndarray) -> None:
        assert isinstance(state, RapaNuiState)
        s = state
        i = self._idx
        n = s.num_players
        seats = [(player + j) % n for j in range(n)]
        rel = {q: j for j, q in enumerate(seats)}

        out[i["num_players"] + n - 2] = 1
        out[i["seat"] + player] = 1
        out[i["phase"] + PHASES.index(s.phase())] = 1
        out[i["active_player"] + rel[s.active_player()]] = 1
        decider = s.decider()
        if decider is not None:
            out[i["decider"] + rel[decider]] = 1
        out[i["draws_left"]] = s.draws_left()
        out[i["own_hand"] : i["own_hand"] + NUM_CARD_TYPES] = s.hand(player)
        out[i["own_holdings"] : i["own_holdings"] + NUM_KINDS] = s.holdings(player)
        out[i["own_face_down"] : i["own_face_down"] + NUM_KINDS] = s.face_down(player)
        for j, q in enumerate(seats):
            d = i["displays"] + j * NUM_CARD_TYPES
            out[d : d + NUM_CARD_TYPES] = s.display(q)
            out[i["moai_units"] + j] = s.moai_units(q)
            out[i["wood"] + j] = s.wood(q)
            out[i["vp"] + j] = s.vp(q)
            out[i["hand_sizes"] + j] = s.hand_size(q)
            out[i["holding_counts"] + j] = s.holding_count(q)
            out[i["face_down_counts"] + j] = s.face_down_count(q)
        base = i["columns"]
        for c, col in enumerate(s.columns()):
            for pos, card in enumerate(col):
                out[base + (c * COLUMN_SIZE + pos) * NUM_CARD_TYPES + card] = 1
        out[i["stone_face_up"] : i["stone_face_up"] + NUM_KINDS] = s.stone_face_up()
        out[i["stone_face_down"]] = s.face_down_count()
        out[i["supply"] : i["supply"] + NUM_KINDS] = s.supply()
        out[i["draw_pile"]] = s.draw_pile_size()
        out[i["removed_moai"]] = s.removed_moai()
