"""Positano observation vectors: what one seat may know, ego-centric, one layout for every config.

The layout is the same for every configuration (1–6 players, 4×4 or 5×5): per-player blocks are
padded to 6 colours (zeros for colours not in play), the cliff always has 25 lots in the shared
``pos = r * 5 + c`` indexing, tile slices have 25 entries per tile index, and the tiles on the
Beach Board and in the stacks are also described by their *contents* (blocks, 2X/3X, roof,
height bonus, extra action, gelato), because tile index ``t`` means different tiles in the 4×4 and
5×5 sets. Values are raw counts and flags; every slice's bounds are proven maxima over all
configurations (see :mod:`.facts`, which holds the layout).

How a vector is made: the engine keeps the position's observable facts in one flat integer array
laid out as seat 0's view (:mod:`.facts`; built from scratch the first time a position is
observed, then written in place by every rule that changes a fact). A seat's vector is that array
through one precomputed index permutation (its ego-centric order, its own hand), plus the few
entries that depend on whose turn it is; so an observation costs about a copy.

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

from typing import Any

import numpy as np

from tabletop_gym.core.game import State
from tabletop_gym.core.observer import ObservationLayout, Observer
from tabletop_gym.envs.positano import facts as F
from tabletop_gym.envs.positano.rules import (
    PositanoGame,
    PositanoState,
)

__all__ = [
    "BLOCK_FEATURES",
    "BLOCK_KINDS",
    "BUILD_FEATURES",
    "BUILD_KINDS",
    "MAX_COLOURS",
    "PositanoObserver",
]

MAX_COLOURS = F.MAX_COLOURS
NUM_LOTS = F.NUM_LOTS
MAX_TILES = F.MAX_TILES
NUM_CARDS = F.NUM_CARDS
NUM_BOOSTERS = F.NUM_BOOSTERS
MAX_BID = F.MAX_BID
BLOCK_KINDS = F.BLOCK_KINDS
BUILD_KINDS = F.BUILD_KINDS
BLOCK_FEATURES = F.BLOCK_FEATURES
BUILD_FEATURES = F.BUILD_FEATURES


class PositanoObserver(Observer):
    """Encodes a :class:`~tabletop_gym.envs.positano.rules.PositanoState` as one seat sees it.

    The layout (:attr:`layout`) is identical for every configuration; its slices are listed in
    the env's docs page (generated from :meth:`ObservationLayout.markdown_table`).
    """

    game: PositanoGame
    incremental = True

    def __init__(self, game: PositanoGame):
        """Lay out the slices and precompute each seat's permutation of the facts."""
        super().__init__(game)
        self.layout = ObservationLayout(F.PARTS)
        o = {name: sl.start for name, sl in self.layout.slices.items()}
        self._o = o
        nc = game.num_colours
        self._nc = nc
        # rel[player][colour] = relative colour.
        self._rel = [[(c - p) % nc for c in range(nc)] for p in range(nc)]
        self._perm = [self._permutation(p) for p in range(nc)]

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

    def _facts(self, s: PositanoState) -> tuple[Any, np.ndarray]:
        """The state's facts and a numpy view of them, built from scratch the first time."""
        f = s._facts
        if f is None:
            f = s._facts = F.build(s)
        return f, np.frombuffer(f, dtype=np.uint8)

    def _fill(self, state: State, player: int, out: np.ndarray) -> None:
        # From scratch, never from the facts kept on the state.
        assert isinstance(state, PositanoState)
        f = F.build(state)
        self._write(state, player, out, (f, np.frombuffer(f, dtype=np.uint8)))

    def _start(self, state: State, player: int, out: np.ndarray) -> Any:
        assert isinstance(state, PositanoState)
        memo = self._facts(state)
        self._write(state, player, out, memo)
        return memo

    def _catch_up(self, state: State, player: int, out: np.ndarray, memo: Any, mask: int) -> None:
        # The rules wrote every change into the facts already: the turn and the permutation
        # remain.
        assert isinstance(state, PositanoState)
        self._write(state, player, out, memo)

    def _write(
        self, s: PositanoState, player: int, out: np.ndarray, facts: tuple[Any, np.ndarray]
    ) -> None:
        """``player``'s vector: the turn's entries written into the facts, then one permutation."""
        F.turn(s, facts[0])
        out[: F.OBS_SIZE] = facts[1][self._perm[player]]
