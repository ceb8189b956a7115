"""Rapa Nui observation vectors: what one seat may know, ego-centric, padded to 4 seats.

Per-seat blocks list the observing seat first, then the other seats in seat order after it
(clockwise); seats beyond the player count are zeros, so one policy serves 2–4 players. Values
are raw counts; every slice's bounds are proven maxima (see the bounds in ``rules.py``).

How a vector is made: the observer keeps every fact of a position once, seat-absolute, in a
shared vector (:mod:`.facts`: the layout, the fact groups, the handler of each change event and
the writer of each group); an event marks the groups it changed and the next read rewrites them.
A seat's vector is one precomputed gather from it (its ego order, its own private facts).

Never encoded: other seats' hand cards, the kinds of their offering cards and of the face-down
stone cards they placed, the order of the draw pile.
"""

from __future__ import annotations

from array import array
from collections.abc import Mapping
from typing import Any

import numpy as np

from tabletop_gym.core.events import Handlers
from tabletop_gym.core.game import State
from tabletop_gym.core.observer import ONE, ZERO, ObservationLayout, SharedObserver
from tabletop_gym.envs.rapa_nui import events as ev, facts as F
from tabletop_gym.envs.rapa_nui.rules import (
    NUM_CARD_TYPES,
    NUM_KINDS,
    PHASES,
    RapaNuiConfig,
    RapaNuiGame,
)

__all__ = ["RapaNuiObserver", "observation_layout"]


def observation_layout(
    config: RapaNuiConfig | Mapping[str, Any] | None = None,
) -> ObservationLayout:
    """The observation layout of ``config`` (its slices: :func:`.facts.parts`).

    Raises:
        ConfigError: When ``config`` is not a valid Rapa Nui configuration.
    """
    return ObservationLayout(F.parts(config))


class RapaNuiObserver(SharedObserver):
    """Encodes a :class:`~tabletop_gym.envs.rapa_nui.rules.RapaNuiState` as one seat sees it.

    Every fact is kept once, seat-absolute, in the shared vector (see
    :class:`~tabletop_gym.core.observer.SharedObserver`); a seat's gather row picks its own
    private facts and the public ones, in its ego order, with zeros for the seats a smaller
    game lacks.
    """

    game: RapaNuiGame

    def __init__(self, game: RapaNuiGame):
        """Lay out the slices (:func:`observation_layout`) and each seat's gather row."""
        super().__init__(game)
        self.layout = observation_layout(game.config)
        self._shared = F.Shared(game.num_players)
        self.shared_size = self._shared.size
        self.gather = self._gathers()

    def _gathers(self) -> np.ndarray:
        """Each seat's gather row: where each entry of its vector lies in the shared vector."""
        n = self.game.num_players
        t, k = NUM_CARD_TYPES, NUM_KINDS
        place = self._shared.at
        gather = np.full((n, self.layout.size), ZERO, dtype=np.intp)
        sl = self.layout.slices
        for p in range(n):
            row = gather[p]
            ego = [(p + j) % n for j in range(n)]  # ego position j -> absolute seat

            def put(slice_name: str, sources: list[int], row: np.ndarray = row) -> None:
                start = sl[slice_name].start
                row[start : start + len(sources)] = sources

            put("num_players", [ONE if m == n - 2 else ZERO for m in range(3)])
            put("seat", [ONE if q == p else ZERO for q in range(F.MAX_SEATS)])
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
        return gather

    def _new_shared(self, state: State) -> np.ndarray:
        """A shared vector stored in an ``array.array`` (``vec.base.obj``), all groups written.

        Python writes into an ``array`` slot or slice cost about half of numpy's (no scalar or
        list conversion), and the numpy view over it gathers the observations as before.
        """
        code = F.TYPECODES[self.dtype.name]
        store = array(code, bytes(self.shared_size * self.dtype.itemsize))
        store[ONE] = 1
        vec = np.frombuffer(store, dtype=self.dtype)
        self._write_shared(state, vec, -1)
        return vec

    def _listener(self, state: State, entry: list[Any]) -> Handlers:
        return Handlers(ev.EVENTS, F.handlers(entry))

    def _write_shared(self, state: State, vec: np.ndarray, mask: int) -> None:
        """Rewrite the fact groups ``mask`` names from the position (:func:`.facts.write`).

        ``vec`` is a vector of :meth:`_new_shared` (written through its ``array``) or any other
        of the right size and dtype (every group copied from a fresh one).
        """
        view: Any = vec.base
        a: Any = view.obj if type(view) is memoryview else None
        if type(a) is not array:
            # Every group rewritten is as right as the named ones (all hold the state's facts).
            vec[:] = self._new_shared(state)
            return
        F.write(state, a, mask, self._shared)
