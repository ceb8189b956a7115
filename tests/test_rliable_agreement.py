"""``tabletop_gym.arena.stats`` against rliable, the field's library (issue #30 item 4).

The IQM and the stratified-bootstrap intervals of a score matrix equal rliable's
(``metrics.aggregate_iqm``, ``library.get_interval_estimates`` with its percentile method) to
the last bit, for the same seed. rliable is in the ``bench`` extra, installed by ``make test``.
"""

from __future__ import annotations

import numpy as np
import pytest
from rliable import library, metrics

from tabletop_gym.arena.stats import iqm, mean, stratified_bootstrap_ci


def _rliable_ci(mat: np.ndarray, func, reps: int, seed: int) -> tuple[float, float]:
    # rliable's StratifiedBootstrap draws its indices from the global numpy.random state.
    state = np.random.get_state()
    try:
        np.random.seed(seed)
        _, intervals = library.get_interval_estimates(
            {"agent": mat}, lambda m: np.array([func(m)]), reps=reps)
    finally:
        np.random.set_state(state)
    lo, hi = intervals["agent"][:, 0]
    return float(lo), float(hi)


@pytest.mark.parametrize("shape", [(5, 8), (3, 1), (10, 4), (1, 6), (7, 13)])
@pytest.mark.parametrize("seed", [0, 17])
def test_iqm_and_intervals_equal_rliables(shape, seed):
    rng = np.random.default_rng(seed + 100 * shape[0])
    mat = rng.normal(0.5, 0.4, size=shape)
    mat[0, 0] = mat[-1, -1]  # ties, as task scores have
    assert iqm(mat) == float(metrics.aggregate_iqm(mat))
    ours = stratified_bootstrap_ci(mat, iqm, reps=500, seed=seed)
    assert ours == _rliable_ci(mat, metrics.aggregate_iqm, reps=500, seed=seed)
    assert mean(mat) == float(metrics.aggregate_mean(mat))
    ours = stratified_bootstrap_ci(mat, mean, reps=300, seed=seed)
    assert ours == _rliable_ci(mat, metrics.aggregate_mean, reps=300, seed=seed)


def test_the_global_random_state_is_left_alone():
    np.random.seed(5)
    before = np.random.get_state()[1].copy()
    stratified_bootstrap_ci(np.arange(12.0).reshape(4, 3), iqm, reps=50, seed=3)
    assert np.array_equal(np.random.get_state()[1], before)
