"""docs/baselines.md cannot go stale: every row's first games are replayed and compared.

`make baselines` stores, beside the page, the first games of every row (seeds, seats, scores,
outcomes) in docs/baselines.json. Replaying those games with today's code must give the same
numbers; when a change moves one, this test fails until the page is regenerated.
"""

from __future__ import annotations

import json
import math
import pathlib

import pytest

from tabletop_gym.baselines import Job, bootstrap_ci, iqm, jobs

DOCS = pathlib.Path(__file__).resolve().parent.parent / "docs"
PAGE = json.loads((DOCS / "baselines.json").read_text())
ROWS = PAGE["rows"]


def test_every_row_of_the_page_is_a_job_with_its_numbers_committed():
    assert set(ROWS) <= {j.id for j in jobs()}
    text = (DOCS / "baselines.md").read_text()
    assert PAGE["metadata"]["package_version"] in text
    for entry in ROWS.values():
        assert entry["slice"], entry["job"]["id"]


@pytest.mark.parametrize("job_id", sorted(ROWS))
def test_row_slice_replays(job_id: str):
    entry = ROWS[job_id]
    job = Job(**{**entry["job"], "agents": tuple(entry["job"]["agents"])})
    assert job in jobs(), "the job behind this row changed: run `make baselines`"
    # The harness draws every game from one generator in order, so the first games replay alone.
    got = job.run(games=job.slice_games, bootstrap=0)["per_game"]
    want = entry["slice"]
    assert json.loads(json.dumps(got)) == want, (
        f"{job_id} no longer reproduces: run `make baselines` to regenerate docs/baselines.md")


def test_iqm_and_bootstrap_by_hand():
    # 8 values: drop the 2 lowest and 2 highest, mean of 3, 4, 5, 6 = 4.5
    assert iqm([1, 2, 3, 4, 5, 6, 7, 100]) == 4.5
    # fewer than 4 values trim nothing (as scipy.stats.trim_mean(x, 0.25))
    assert iqm([0.2, 0.4, 0.9]) == pytest.approx(0.5)
    lo, hi = bootstrap_ci([0.5, 0.5, 0.5])
    assert lo == hi == 0.5
    lo, hi = bootstrap_ci([0.0, 1.0, 0.5, 0.25])
    assert 0.0 <= lo < hi <= 1.0
    assert not math.isnan(lo)
