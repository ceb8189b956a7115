"""Declared shapes that engines, views, bots and the JAX twin share: grids and action ranges.

Standard library only: the pure rules engines import this module.

* :class:`Grid` says that a slice of an observation layout is naturally a table (per lot × per
  colour, per seat × per card id) and names its rows and columns; the golden playthroughs print
  such a slice as a labelled grid.
* :class:`ActionLayout` lays a game's action ids out as named ranges, each a row-major block of
  a declared shape (a Positano bid id is a ``(card, booster)`` pair), with ``encode`` and
  ``decode``; the rules, ``action_to_string``, the bots and the JAX twin read the ids from it.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Iterator, Sequence

__all__ = ["ActionLayout", "ActionRange", "Grid", "Part", "ego_labels"]


@dataclasses.dataclass(frozen=True)
class Grid:
    """A flat slice read as a table: ``len(rows)`` rows of ``len(columns)`` entries, row-major.

    Entry ``(r, c)`` of the table is entry ``r * len(columns) + c`` of the slice.

    Attributes:
        rows: One label per row (no whitespace, so a printed row parses back).
        columns: One label per column (no whitespace).
    """

    rows: tuple[str, ...]
    columns: tuple[str, ...]

    def __post_init__(self) -> None:
        for what, labels in (("row", self.rows), ("column", self.columns)):
            if not labels:
                raise ValueError(f"a grid needs at least one {what} label")
            bad = [label for label in labels if not label or label.split() != [label]]
            if bad:
                raise ValueError(
                    f"{what} labels must be non-empty and have no whitespace, got {bad!r}"
                )
            if len(set(labels)) != len(labels):
                raise ValueError(f"{what} labels must be distinct, got {labels!r}")

    @property
    def shape(self) -> tuple[int, int]:
        """``(rows, columns)``."""
        return len(self.rows), len(self.columns)

    @property
    def size(self) -> int:
        """Entries in the table (the slice's size)."""
        return len(self.rows) * len(self.columns)


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A Markdown table of ``rows`` under ``header`` (the docs' generated tables)."""
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out)


def ego_labels(n: int) -> tuple[str, ...]:
    """Labels of ``n`` seats or colours in ego order: ``you``, then ``+1``, ``+2``, ... after it."""
    return ("you", *(f"+{k}" for k in range(1, n)))


Part = tuple[str, int, float, float, str] | tuple[str, int, float, float, str, Grid]
"""A slice of an observation layout as declared: ``(name, size, low, high, doc)``, and its
:class:`Grid` when the slice is naturally a table."""


@dataclasses.dataclass(frozen=True)
class ActionRange:
    """One named range of action ids: a row-major block of ``shape`` ids from ``start``.

    Attributes:
        name: Identifier of the range (``"bid"``, ``"lot"``).
        start: Its first id.
        shape: Sizes of its index axes (``(7, 6)``: card, booster; ``(25,)``: a lot).
        decision: The decision its ids answer (a phase name; ranges of one decision share it,
            as the Add-On targets and "skip the Add-On" do).
        doc: What the ids mean.
    """

    name: str
    start: int
    shape: tuple[int, ...]
    decision: str
    doc: str

    @property
    def size(self) -> int:
        """Ids in the range."""
        return math.prod(self.shape)

    @property
    def stop(self) -> int:
        """One past its last id."""
        return self.start + self.size

    def __contains__(self, action: object) -> bool:
        return isinstance(action, int) and self.start <= action < self.stop

    def encode(self, *index: int) -> int:
        """The id of ``index`` (one entry per axis of :attr:`shape`).

        Raises:
            ValueError: When ``index`` has the wrong length or an entry is out of its axis.
        """
        if len(index) != len(self.shape):
            raise ValueError(
                f"{self.name} ids take {len(self.shape)} indices {self.shape}, got {index!r}"
            )
        offset = 0
        for i, n in zip(index, self.shape, strict=True):
            if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < n:
                raise ValueError(f"{self.name} index {index!r} is outside {self.shape}")
            offset = offset * n + i
        return self.start + offset

    def decode(self, action: int) -> tuple[int, ...]:
        """The index of id ``action`` in this range (the inverse of :meth:`encode`).

        Raises:
            ValueError: When ``action`` is not an id of this range.
        """
        if action not in self:
            raise ValueError(f"{action!r} is not a {self.name} id ({self.start}..{self.stop - 1})")
        offset = action - self.start
        out = []
        for n in reversed(self.shape):
            offset, i = divmod(offset, n)
            out.append(i)
        return tuple(reversed(out))


class ActionLayout:
    """A game's action ids as consecutive named ranges, from 0, declared once.

    Example:
        >>> layout = ActionLayout([("bid", (7, 6), "bid", "card, booster"),
        ...                        ("lot", 25, "draft_lot", "a lot")])
        >>> layout["bid"].encode(3, 0), layout.decode(42)
        (18, ('lot', (0,)))
    """

    def __init__(self, ranges: Iterable[tuple[str, int | tuple[int, ...], str, str]]):
        """Lay out ``ranges`` given as ``(name, shape, decision, doc)`` one after another.

        Raises:
            ValueError: On a duplicate name or an empty range.
        """
        self.ranges: dict[str, ActionRange] = {}
        start = 0
        for name, shape, decision, doc in ranges:
            dims = (shape,) if isinstance(shape, int) else tuple(shape)
            if name in self.ranges:
                raise ValueError(f"duplicate action range {name!r}")
            if not dims or min(dims) < 1:
                raise ValueError(f"action range {name!r} needs a non-empty shape, got {shape!r}")
            rng = ActionRange(name, start, dims, decision, doc)
            self.ranges[name] = rng
            start = rng.stop
        self.size = start
        # The range of every id, so that decoding is one look-up.
        self._of = tuple(r for r in self.ranges.values() for _ in range(r.size))

    def __getitem__(self, name: str) -> ActionRange:
        return self.ranges[name]

    def __iter__(self) -> Iterator[ActionRange]:
        return iter(self.ranges.values())

    def range_of(self, action: int) -> ActionRange:
        """The range that holds id ``action``.

        Raises:
            ValueError: When ``action`` is not an id of the layout.
        """
        if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < self.size:
            raise ValueError(f"{action!r} is not an action id (0..{self.size - 1})")
        return self._of[action]

    def decision_of(self, action: int) -> str:
        """The decision id ``action`` answers (its range's :attr:`ActionRange.decision`)."""
        return self.range_of(action).decision

    def encode(self, name: str, *index: int) -> int:
        """The id of ``index`` in range ``name``."""
        return self.ranges[name].encode(*index)

    def decode(self, action: int) -> tuple[str, tuple[int, ...]]:
        """The range name and the index of id ``action``."""
        rng = self.range_of(action)
        return rng.name, rng.decode(action)

    def markdown_table(self) -> str:
        """The layout as a Markdown table (ids, range, shape, decision, meaning) for the docs."""
        rows = ["| ids | range | shape | decision | meaning |", "|---|---|---|---|---|"]
        for r in self.ranges.values():
            ids = f"{r.start}" if r.size == 1 else f"{r.start}–{r.stop - 1}"
            shape = "×".join(str(n) for n in r.shape)
            rows.append(f"| {ids} | `{r.name}` | {shape} | {r.decision} | {r.doc} |")
        return "\n".join(rows)
