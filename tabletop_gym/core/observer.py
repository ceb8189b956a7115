"""Observer base: one flat vector per seat, with named slices, and the mask from legal actions.

An observer encodes only what one seat may know. Its layout is a list of named slices declared
once; the docs tables and the observation space are derived from that same list, so they cannot
drift apart. ``encode`` always returns a fresh array (Gymnasium's checker rejects reused buffers).

A :class:`SharedObserver` (both games' observers) is the incremental observer: it keeps one
seat-absolute vector of every observable fact per state and listens to the engine's change
events (:mod:`tabletop_gym.core.events`). The game's handler of each event either writes the
facts it changed at once, or marks fact groups to rewrite when the vector is next read (for
changes cheaper to re-read than to follow one by one); either way once for all seats. Nothing is
inferred from the position's values, so a rule that removes or lowers something is followed as
surely as one that adds. Each seat's observation is one gather through a precomputed index row
(ego order, own private facts only), so it costs about a copy; :meth:`Observer.encode_seats`
gives every seat's rows in one array (the parallel env's observations).
"""

from __future__ import annotations

import abc
import dataclasses
import weakref
from collections.abc import Iterable
from typing import Any

import numpy as np

from tabletop_gym.core.events import Handlers, Listener
from tabletop_gym.core.game import Game, State
from tabletop_gym.core.layout import Grid, Part


@dataclasses.dataclass(frozen=True)
class Slice:
    """One named part of the observation vector.

    Attributes:
        name: Identifier used in docs and in :meth:`ObservationLayout.view`.
        start: First index in the flat vector.
        size: Number of entries.
        low: Lower bound of every entry.
        high: Upper bound of every entry.
        doc: What the entries mean, for the env's docs page.
        grid: The slice's rows and columns when it is naturally a table (``None``: a list).
    """

    name: str
    start: int
    size: int
    low: float
    high: float
    doc: str
    grid: Grid | None = None

    @property
    def shape(self) -> tuple[int, ...]:
        """The grid's ``(rows, columns)`` for a table, else ``(size,)``."""
        return (self.size,) if self.grid is None else self.grid.shape

    @property
    def part(self) -> Part:
        """The declaration this slice was laid out from (to extend a layout with)."""
        head = (self.name, self.size, self.low, self.high, self.doc)
        return head if self.grid is None else (*head, self.grid)

    @property
    def stop(self) -> int:
        """One past the last index."""
        return self.start + self.size


class ObservationLayout:
    """An ordered list of named slices over one flat float32 vector."""

    def __init__(self, parts: Iterable[Part]):
        """Lay out ``parts`` one after another.

        Args:
            parts: ``(name, size, low, high, doc)`` per slice, with a sixth item, a
                :class:`Grid` of ``size`` entries, for a slice that is naturally a table.

        Raises:
            ValueError: On a duplicate name or a grid whose size is not the slice's.
        """
        self.slices: dict[str, Slice] = {}
        start = 0
        for name, size, low, high, doc, *rest in parts:
            if name in self.slices:
                raise ValueError(f"duplicate slice name {name!r}")
            grid = rest[0] if rest else None
            if grid is not None and grid.size != size:
                raise ValueError(
                    f"slice {name!r} has {size} entries but its grid {grid.shape} has "
                    f"{grid.size}"
                )
            self.slices[name] = Slice(name, start, size, float(low), float(high), doc, grid)
            start += size
        self.size = start
        self.low = np.zeros(self.size, dtype=np.float32)
        self.high = np.zeros(self.size, dtype=np.float32)
        for s in self.slices.values():
            self.low[s.start : s.stop] = s.low
            self.high[s.start : s.stop] = s.high

    def __getitem__(self, name: str) -> Slice:
        return self.slices[name]

    def view(self, vector: np.ndarray) -> dict[str, np.ndarray]:
        """Split a flat observation into its named slices (views, not copies)."""
        return {name: vector[s.start : s.stop] for name, s in self.slices.items()}

    def markdown_table(self) -> str:
        """The layout as a Markdown table (name, indices, bounds, meaning) for the docs."""
        rows = ["| slice | indices | size | range | meaning |", "|---|---|---|---|---|"]
        for s in self.slices.values():
            idx = f"{s.start}" if s.size == 1 else f"{s.start}–{s.stop - 1}"
            rows.append(
                f"| `{s.name}` | {idx} | {s.size} | {_fmt(s.low)}..{_fmt(s.high)} | {s.doc} |"
            )
        return "\n".join(rows)


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


OBS_DTYPES = ("float32", "uint8", "uint16")
"""Observation dtypes an env may offer: float32 (the default) and the unsigned integers."""



def allowed_dtypes(layout: ObservationLayout) -> tuple[str, ...]:
    """``float32`` and every integer dtype of :data:`OBS_DTYPES` that holds all of ``layout``.

    An integer dtype is allowed when every bound is a whole number, none is negative and the
    largest upper bound fits (Positano: ``uint8``; Rapa Nui: ``uint16``, its wood reaches 663).
    """
    out = ["float32"]
    whole = bool(np.all(layout.low == np.floor(layout.low))) and bool(
        np.all(layout.high == np.floor(layout.high))
    )
    if whole and float(layout.low.min(initial=0.0)) >= 0:
        top = float(layout.high.max(initial=0.0))
        out += [d for d in OBS_DTYPES[1:] if top <= np.iinfo(d).max]
    return tuple(out)


def check_obs_dtype(layout: ObservationLayout, obs_dtype: Any, what: str) -> np.dtype:
    """``obs_dtype`` as a numpy dtype, if ``layout``'s values fit it.

    Raises:
        ValueError: Naming the value and the dtypes allowed for ``what``.
    """
    allowed = allowed_dtypes(layout)
    name = obs_dtype if isinstance(obs_dtype, str) else getattr(obs_dtype, "__name__", None)
    if isinstance(obs_dtype, np.dtype):
        name = obs_dtype.name
    if name not in allowed:
        top = float(layout.high.max(initial=0.0))
        raise ValueError(
            f"obs_dtype={obs_dtype!r} is not allowed for {what}; choose one of {list(allowed)} "
            f"(its observation values are whole numbers in 0..{top:g}; an integer dtype must "
            "hold them all)"
        )
    return np.dtype(name)


class Observer(abc.ABC):
    """Encodes a state as one seat sees it.

    Subclasses build :attr:`layout` in ``__init__`` and implement :meth:`_fill`, writing only
    what ``player`` may know into a zeroed vector; :class:`SharedObserver` keeps a vector per
    state in its own store and follows the engine's change events instead (see the module
    docstring).
    """

    layout: ObservationLayout
    dtype: np.dtype = np.dtype(np.float32)

    def __init__(self, game: Game):
        """Bind the observer to a game (its player count and switches fix the layout)."""
        self.game = game

    def _init_args(self) -> tuple[Any, ...]:
        """The arguments ``__init__`` builds this observer from (for pickling)."""
        return (self.game,)

    def __reduce__(self) -> tuple[Any, ...]:
        # The layout and index tables are derived from the game: a pickle or deep copy carries
        # the game (and the dtype) and rebuilds them.
        return (_rebuilt_observer, (type(self), self._init_args(), np.dtype(self.dtype).str))

    @property
    def size(self) -> int:
        """Length of the observation vector."""
        return self.layout.size

    def set_dtype(self, obs_dtype: Any) -> None:
        """Encode into ``obs_dtype`` from now on (``"float32"``, or an integer dtype that fits).

        Raises:
            ValueError: When the layout's values do not fit ``obs_dtype``; nothing changes.
        """
        self.dtype = check_obs_dtype(self.layout, obs_dtype, type(self).__name__)

    def encode(self, state: State, player: int) -> np.ndarray:
        """A fresh vector of what ``player`` may know of ``state``, in :attr:`dtype`."""
        out = np.zeros(self.layout.size, dtype=self.dtype)
        self._fill(state, player, out)
        return out

    def encode_seats(self, state: State) -> np.ndarray:
        """Every seat's observation as the rows of one fresh ``(num_players, size)`` array.

        Each row equals :meth:`encode` of that seat (the parallel env hands out the rows).
        """
        return np.stack([self.encode(state, p) for p in range(self.game.num_players)])

    def encode_all(self, state: State) -> np.ndarray:
        """Every seat's observation, concatenated in seat order (a global view for critics)."""
        return self.encode_seats(state).reshape(-1)

    @abc.abstractmethod
    def _fill(self, state: State, player: int, out: np.ndarray) -> None:
        """Write ``player``'s view of ``state`` into the zeroed ``out``."""

    def action_mask(self, state: State, player: int) -> np.ndarray:
        """Int8 indicator of ``player``'s legal actions (all zeros when not to act)."""
        mask = np.zeros(self.game.num_distinct_actions, dtype=np.int8)
        legal = state.legal_actions(player) if not state.is_terminal() else []
        if legal:
            mask[legal] = 1
        return mask

    def describe(self, vector: np.ndarray) -> dict[str, list[float]]:
        """A JSON-ready dict of the named slices of ``vector``."""
        return {k: v.tolist() for k, v in self.layout.view(vector).items()}


def _rebuilt_observer(cls: type[Observer], args: tuple[Any, ...], dtype: str) -> Observer:
    observer = cls(*args)
    if np.dtype(dtype) != observer.dtype:
        observer.set_dtype(np.dtype(dtype).name)
    return observer


_SHARED_STORES: dict[Any, dict[int, list[Any]]] = {}
"""The stores of kept vectors shared by observers, by :attr:`SharedObserver._shared_key`."""


class _Forget:
    """Drops a state's entry from an observer's store when the state goes (a weakref callback)."""

    __slots__ = ("kept", "key")

    def __init__(self, kept: dict[int, list[Any]], key: int):
        self.kept = kept
        self.key = key

    def __call__(self, ref: weakref.ref[Any]) -> None:
        entry = self.kept.get(self.key)
        if entry is not None and entry[2] is ref:
            del self.kept[self.key]


ZERO = 0
"""Index of the entry of a shared vector that always holds 0 (see :class:`SharedObserver`)."""
ONE = 1
"""Index of the entry of a shared vector that always holds 1."""


class SharedObserver(Observer):
    """The incremental observer: every seat's vector is a fixed selection from one kept vector.

    The state's observable facts are kept in one flat *shared* vector, laid out once per game
    in seat-absolute order (every seat's private facts included). The first time a state is
    observed the vector is written from scratch and the observer subscribes to the state's
    change events (:meth:`State.listen`); from then on the game's handler of each event
    (:meth:`_listener`) writes what changed in place or marks fact groups *pending*, and a read
    rewrites the pending groups (:meth:`_write_shared`) before handing the vector out. Seat
    ``p``'s observation is ``shared[gather[p]]``, one precomputed index array per seat that
    lists only what ``p`` may know, in ``p``'s ego-centric order; entry :data:`ZERO` of the
    shared vector is always 0 and entry :data:`ONE` always 1, for padding and constant one-hots.
    An observation then costs one gather (which is also the copy handed out), and all seats'
    observations one gather into a ``(num_players, size)`` array.

    Subclasses set :attr:`layout`, :attr:`shared_size` and :attr:`gather` in ``__init__`` and
    implement :meth:`_write_shared` and :meth:`_listener`.
    """

    shared_size: int
    """Length of the shared vector (entries :data:`ZERO` and :data:`ONE` included)."""
    gather: np.ndarray
    """``(num_players, layout.size)`` indices into the shared vector, one row per seat."""
    zero_index: int = ZERO
    """An entry of the shared vector that always holds 0 (a wrapper pads its gather with it)."""

    def __init__(self, game: Game):
        """Bind the observer to a game, with an empty store of kept vectors."""
        super().__init__(game)
        key = self._shared_key
        self._kept: dict[int, list[Any]] = (
            {} if key is None else _SHARED_STORES.setdefault(key, {})
        )

    @abc.abstractmethod
    def _write_shared(self, state: State, vec: np.ndarray, pending: int) -> None:
        """Rewrite in ``vec`` every fact group whose bit is in ``pending`` (-1: all of them)."""

    @abc.abstractmethod
    def _listener(self, state: State, entry: list[Any]) -> Listener | Handlers:
        """The listener (best as handlers) that follows ``state``'s events into its ``entry``.

        ``entry`` is ``[vector, pending, ref]`` (``ref`` a weak reference to ``state``): the
        listener writes changed facts into the vector, or ORs fact-group bits into ``entry[1]``
        for the next read to rewrite.
        """

    _shared_key: Any = None
    """The key of a store of kept vectors shared by every observer with that key (one vector
    per state whichever of them reads it); ``None``: the observer keeps its own."""

    def kept_entry(self, state: State) -> list[Any] | None:
        """``[vector, pending, ref]`` this observer keeps for ``state``, or ``None``.

        The first call on a state that reports events writes the vector from scratch and
        subscribes to the state's events; ``None`` for a game that reports none. The entry is
        kept in the observer's store under the state's identity, and dropped when the state is
        (the engine holds only the listener, :mod:`tabletop_gym.core.events`).
        """
        if state.EVENTS is None:
            return None
        kept = self._kept
        key = id(state)
        entry = kept.get(key)
        if entry is None:
            entry = [self._new_shared(state), 0, None]
            # The weak reference's callback drops the entry as the state goes, before its id
            # can name another state.
            entry[2] = weakref.ref(state, _Forget(kept, key))
            kept[key] = entry
            state.listen(self._listener(state, entry))
        return entry

    def shared_vector(self, state: State) -> np.ndarray:
        """The shared vector kept for ``state``, brought up to date (do not modify it).

        Privileged: it holds every seat's private facts. For a game that reports no events it
        is built afresh on every call.
        """
        # The usual case, a state already followed: one lookup, no call.
        entry = self._kept.get(id(state))
        if entry is None:
            entry = self.kept_entry(state)
            if entry is None:
                return self._new_shared(state)
        pending = entry[1]
        if pending:
            entry[1] = 0
            self._write_shared(state, entry[0], pending)
        vec: np.ndarray = entry[0]
        return vec

    def _new_shared(self, state: State) -> np.ndarray:
        vec = np.zeros(self.shared_size, dtype=self.dtype)
        vec[ONE] = 1
        self._write_shared(state, vec, -1)
        return vec

    def encode(self, state: State, player: int) -> np.ndarray:
        """A fresh vector of what ``player`` may know of ``state`` (one gather)."""
        out: np.ndarray = self.shared_vector(state).take(self.gather[player])
        return out

    def encode_seats(self, state: State) -> np.ndarray:
        """Every seat's observation: one gather into a fresh ``(num_players, size)`` array."""
        return self.shared_vector(state).take(self.gather)

    def _fill(self, state: State, player: int, out: np.ndarray) -> None:
        out[:] = self._new_shared(state).take(self.gather[player])
