"""Observer base: one flat vector per seat, with named slices, and the mask from legal actions.

An observer encodes only what one seat may know. Its layout is a list of named slices declared
once; the docs tables and the observation space are derived from that same list, so they cannot
drift apart. ``encode`` always returns a fresh array (Gymnasium's checker rejects reused buffers).
"""

from __future__ import annotations

import abc
import dataclasses
from collections.abc import Iterable

import numpy as np

from tabletop_gym.core.game import Game, State


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
    """

    name: str
    start: int
    size: int
    low: float
    high: float
    doc: str

    @property
    def stop(self) -> int:
        """One past the last index."""
        return self.start + self.size


class ObservationLayout:
    """An ordered list of named slices over one flat float32 vector."""

    def __init__(self, parts: Iterable[tuple[str, int, float, float, str]]):
        """Lay out ``parts`` given as ``(name, size, low, high, doc)`` one after another."""
        self.slices: dict[str, Slice] = {}
        start = 0
        for name, size, low, high, doc in parts:
            if name in self.slices:
                raise ValueError(f"duplicate slice name {name!r}")
            self.slices[name] = Slice(name, start, size, float(low), float(high), doc)
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


class Observer(abc.ABC):
    """Encodes a state as one seat sees it.

    Subclasses build :attr:`layout` in ``__init__`` and implement :meth:`_fill`, writing only
    what ``player`` may know into a zeroed vector.
    """

    layout: ObservationLayout

    def __init__(self, game: Game):
        """Bind the observer to a game (its player count and switches fix the layout)."""
        self.game = game

    @property
    def size(self) -> int:
        """Length of the observation vector."""
        return self.layout.size

    def encode(self, state: State, player: int) -> np.ndarray:
        """A fresh float32 vector of what ``player`` may know of ``state``."""
        out = np.zeros(self.layout.size, dtype=np.float32)
        self._fill(state, player, out)
        return out

    def encode_all(self, state: State) -> np.ndarray:
        """Every seat's observation, concatenated in seat order (a global view for critics)."""
        return np.concatenate([self.encode(state, p) for p in range(self.game.num_players)])

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
