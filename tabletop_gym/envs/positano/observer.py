"""Positano observation vectors: what one seat may know, ego-centric, one layout for every config.

The layout is the same for every configuration (1–6 players, 4×4 or 5×5): per-player blocks are
padded to 6 colours (zeros for colours not in play), the cliff always has 25 lots in the shared
``pos = r * 5 + c`` indexing, tile slices have 25 entries per tile index, and the tiles on the
Beach Board and in the stacks are also described by their *contents* (blocks, 2X/3X, roof,
height bonus, extra action, gelato), because tile index ``t`` means different tiles in the 4×4 and
5×5 sets. Values are raw counts and flags; every slice's bounds are proven maxima over all
configurations (see :mod:`.facts`, which holds the layout).

How a vector is made: the observer keeps the position's observable facts in one flat float32
array laid out as seat 0's view (:mod:`.facts`; built from scratch the first time a position is
observed, then written in place by the handler of each change event the engine tells, see
:mod:`.events`). A seat's vector is one precomputed gather from that array (its ego-centric
order, its own hand), so an observation costs about a copy.

Never encoded (information hygiene): the order of the face-down lot, block and build stacks (only
their contents, which are public by elimination), the order of Otto's undrawn cards (only how many
are left), and any pending bid (the engine holds none; the turn-based transform keeps them and its
observer adds only the seat's own).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from tabletop_gym.core.events import Handlers
from tabletop_gym.core.game import State
from tabletop_gym.core.observer import ObservationLayout, SharedObserver
from tabletop_gym.envs.positano import facts as F
from tabletop_gym.envs.positano.events import EVENTS
from tabletop_gym.envs.positano.facts import (
    BLOCK_FEATURES,
    BLOCK_KINDS,
    BUILD_FEATURES,
    BUILD_KINDS,
    MAX_BID,
    MAX_COLOURS,
    NUM_BOOSTERS,
    NUM_CARDS,
    NUM_LOTS,
)
from tabletop_gym.envs.positano.rules import PositanoGame

__all__ = [
    "BLOCK_FEATURES",
    "BLOCK_KINDS",
    "BUILD_FEATURES",
    "BUILD_KINDS",
    "MAX_BID",
    "MAX_COLOURS",
    "NUM_BOOSTERS",
    "NUM_CARDS",
    "NUM_LOTS",
    "PositanoObserver",
]

_FACTS_KEY = "positano-facts"
"""Key of a position's facts among its kept observations (shared by every Positano observer)."""


class PositanoObserver(SharedObserver):
    """Encodes a :class:`~tabletop_gym.envs.positano.rules.PositanoState` as one seat sees it.

    The layout (:attr:`layout`) is identical for every configuration; its slices are listed in
    the env's docs page (generated from :meth:`ObservationLayout.markdown_table`). The shared
    vector is the position's facts array (:mod:`.facts`), which every Positano observer shares
    and reads in place.
    """

    game: PositanoGame
    shared_size = F.SIZE
    zero_index = F.ZERO

    def __init__(self, game: PositanoGame):
        """Lay out the slices and precompute each seat's gather from the facts."""
        super().__init__(game)
        self.layout = ObservationLayout(F.PARTS)
        self._o = {name: sl.start for name, sl in self.layout.slices.items()}
        self._nc = game.num_colours
        self._own_tables = F.tables(game)
        self.gather = np.stack([self._permutation(p) for p in range(game.num_players)])

    def _permutation(self, player: int) -> np.ndarray:
        """Facts index of each entry of ``player``'s vector (its ego-centric view)."""
        o = self._o
        nc = self._nc
        perm = np.arange(F.OBS_SIZE, dtype=np.intp)
        perm[o["own_turn"]] = F.TO_ACT + player
        # Relative colour j of this seat is absolute colour (player + j) % nc.
        src = [(player + j) % nc if j < nc else -1 for j in range(MAX_COLOURS)]
        for name, w in F.PER_COLOUR.items():
            base = o[name]
            for j, c in enumerate(src):
                for x in range(w):
                    perm[base + j * w + x] = F.ZERO if c < 0 else base + c * w + x
        own = o["cliff_owner"]
        for pos in range(NUM_LOTS):
            k = own + pos * MAX_COLOURS
            for j, c in enumerate(src):
                perm[k + j] = F.ZERO if c < 0 else k + c
        oc, ob = o["own_cards"], o["own_boosters"]
        perm[oc : oc + NUM_CARDS] = np.arange(NUM_CARDS) + F.HAND_CARDS + player * NUM_CARDS
        perm[ob : ob + NUM_BOOSTERS] = (
            np.arange(NUM_BOOSTERS) + F.HAND_BOOSTERS + player * NUM_BOOSTERS
        )
        return perm

    # --- encoding -----------------------------------------------------------------------------

    # One facts array per position, whichever Positano observer reads it (they differ only in
    # their gathers and output dtypes).
    _shared_key = _FACTS_KEY

    def _tables(self, state: State) -> F.Tables:
        # The tables of the position's game (this observer's, but for a position of another).
        return self._own_tables if state.game is self.game else F.tables(state.game)

    def _new_shared(self, state: State) -> np.ndarray:
        # A float32 view over the facts' array('f'): the handlers write through the array
        # (``vec.base.obj``), the gathers read the view.
        t = self._tables(state)
        f = F.build(state, t)
        F.turn(state, f, t)
        return np.frombuffer(f, dtype=np.float32)

    def _listener(self, state: State, entry: list[Any]) -> Handlers:
        f = entry[0].base.obj
        t = self._tables(state)

        def turn(state: Any) -> None:
            # TURN, told after every action: whose turn it is is rewritten when next read (the
            # other events come within an action, so before its TURN).
            entry[1] = 1

        return Handlers(EVENTS, [turn if h is None else functools.partial(h, f, t)
                                 for h in F.HANDLERS])

    def _write_shared(self, state: State, vec: np.ndarray, pending: int) -> None:
        # Everything but the turn's entries is written by the event handlers as it changes.
        view: Any = vec.base  # the memoryview over the facts' array('f') (_new_shared)
        F.turn(state, view.obj, self._tables(state))

    def encode(self, state: State, player: int) -> np.ndarray:
        """A fresh vector of what ``player`` may know of ``state`` (one gather)."""
        out: np.ndarray = self.shared_vector(state).take(self.gather[player])
        return out if out.dtype == self.dtype else out.astype(self.dtype)

    def encode_seats(self, state: State) -> np.ndarray:
        """Every seat's observation: one gather into a fresh ``(num_players, size)`` array."""
        out: np.ndarray = self.shared_vector(state).take(self.gather)
        return out if out.dtype == self.dtype else out.astype(self.dtype)
