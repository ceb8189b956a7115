"""``bench/icount.py`` counts the same games in every checkout, and refuses what it cannot count.

Its figure compares instruction counts of two checkouts, so it means something only if both
play the same games: the workload is a fixed loop (seeded deals, actions drawn from a seeded
generator over the mask) that plays exactly the steps it is asked for. Valgrind itself is not
run here (the machine that runs the tests need not have it); no count or timing is asserted.
"""

from __future__ import annotations

import pathlib
import subprocess
import sys

import pytest

from tests.scripts import load_script

_PATH = pathlib.Path(__file__).resolve().parents[1] / "bench" / "icount.py"
icount = load_script("bench/icount.py", "bench_icount")


@pytest.mark.parametrize("workload", ["aec:positano:1", "aec:rapa_nui:2", "par:positano:2",
                                      "gym:RapaNui-v0"])
def test_a_workload_plays_the_same_games_every_time(workload):
    first = icount.play(workload, 60)
    assert first == icount.play(workload, 60)
    # Longer runs play on from the same start: as many games or more, other actions.
    longer = icount.play(workload, 300)
    assert longer[0] >= first[0] >= 1
    assert longer[1] != first[1]


def test_the_count_of_steps_is_exact():
    # The checksum folds in one action per agent step: a run one step longer folds in one
    # more, so no two lengths agree (they would if a loop ran past or short of its steps).
    sums = {icount.play("aec:positano:1", n)[1] for n in (23, 24, 25, 48)}
    assert len(sums) == 4


def test_unknown_workload_is_refused():
    with pytest.raises(ValueError, match="unknown workload 'foo:positano:2'"):
        icount.play("foo:positano:2", 5)


@pytest.mark.parametrize(("argv", "message"), [
    (["foo:x"], "unknown workload 'foo:x'"),
    (["aec:positano"], "unknown workload 'aec:positano'"),
    (["gym:RapaNui-v0", "--steps", "10", "--warm-up", "10"], "--warm-up must be at least 1"),
    (["aec:positano:2", "--trees", "/"], "is not a checkout of this project"),
])
def test_bad_arguments_are_refused_before_anything_runs(argv, message):
    out = subprocess.run([sys.executable, str(_PATH), *argv], capture_output=True, text=True)
    assert out.returncode == 2
    assert message in out.stderr
