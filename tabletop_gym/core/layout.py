"""Declared shapes that engines, views, bots and the JAX twin share: grids and action ranges.

Standard library only: the pure rules engines import this module.

* :class:`Grid` says that a slice of an observation layout is naturally a table (per lot × per
  colour, per seat × per card id) and names its rows and columns; the golden playthroughs print
  such a slice as a labelled grid.
"""

from __future__ import annotations

import dataclasses

__all__ = ["Grid", "Part", "ego_labels"]


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


def ego_labels(n: int) -> tuple[str, ...]:
    """Labels of ``n`` seats or colours in ego order: ``you``, then ``+1``, ``+2``, ... after it."""
    return ("you", *(f"+{k}" for k in range(1, n)))


Part = tuple[str, int, float, float, str] | tuple[str, int, float, float, str, Grid]
"""A slice of an observation layout as declared: ``(name, size, low, high, doc)``, and its
:class:`Grid` when the slice is naturally a table."""
