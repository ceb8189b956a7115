"""``bench/search.py``'s table mode scores and rotates as its docstring says.

No timing is asserted (the bench measures; tests never do).
"""

from __future__ import annotations

import importlib.util
import os
import pathlib

import pytest

_before = os.environ.get("XLA_FLAGS")
# Loaded from its file under a name of its own, so no bench script shadows another module.
_SPEC = importlib.util.spec_from_file_location(
    "bench_search", pathlib.Path(__file__).resolve().parents[1] / "bench" / "search.py")
assert _SPEC is not None and _SPEC.loader is not None
bench = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(bench)
# The bench pins XLA to one thread for its own process; the tests' process keeps its setting.
if _before is None:
    os.environ.pop("XLA_FLAGS", None)
else:
    os.environ["XLA_FLAGS"] = _before


def test_finished_above_counts_each_kinds_seats_and_a_tie_as_half():
    # Seat 0 scores 10: below the ismcts seat (12), level with one heuristic (10: one half),
    # above the other (5: one): heuristic (0.5 + 1) / 2.
    above = bench.finished_above([10, 12, 10, 5], 0, {1: "ismcts", 2: "heuristic", 3: "heuristic"})
    assert above == {"ismcts": 0.0, "heuristic": 0.75}


def test_the_table_rotates_the_searchers_seat_and_reports_each_opponent_kind():
    clocks = {spec: bench.Clock() for spec in ("random", "heuristic")}
    rows = bench.table_match("rapa_nui", 4, "random", ["heuristic"] * 3, 4, clocks)
    (row,) = rows  # one opponent kind
    assert (row["opponent"], row["games"], row["table"]) == ("heuristic", 4,
                                                            ["random", *["heuristic"] * 3])
    assert 0.0 <= row["finished_above_ci"][0] <= row["finished_above"] <= 1.0
    # Four games, the searcher in each seat once: every agent made timed choices.
    assert row["search_seats"] == [0, 1, 2, 3]
    assert clocks["random"].decisions > 0 and clocks["heuristic"].decisions > 0
    with pytest.raises(ValueError, match="4 seats need 3 opponents"):
        bench.table_match("rapa_nui", 4, "random", ["heuristic"], 4, clocks)
