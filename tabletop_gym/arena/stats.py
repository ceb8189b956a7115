"""The statistics of every result: intervals of one evaluation, aggregates across tasks.

Of one evaluation (:func:`tabletop_gym.arena.evaluation.evaluate`):

* :func:`wilson_interval`: the Wilson score interval of a win rate;
* :func:`mean_interval`: a mean and its normal-approximation interval (:data:`Z95` standard
  errors).

Across tasks, computed as ``rliable`` computes them, in numpy:

* :func:`normalize`: ``(score - random) / (heuristic - random)``: 0 is the random agent, 1 the
  heuristic bot (as Atari scores are normalised by the random and human scores).
* :func:`iqm`: the interquartile mean of every (run, task) score: the mean of the middle 50 %
  after cutting ``floor(0.25 · N)`` values from each end (``scipy.stats.trim_mean(x, 0.25)``,
  which is ``rliable.metrics.aggregate_iqm``).
* :func:`mean`: the mean of the per-task means (``rliable.metrics.aggregate_mean``).
* :func:`stratified_bootstrap_ci`: ``rliable.library.get_interval_estimates`` with its defaults:
  every replicate resamples the runs of each task with replacement, independently per task
  (stratified by task), and the interval is the percentile interval of the replicates.

The replicates are drawn as ``rliable.library.StratifiedBootstrap`` draws them (one
``choice(runs, (runs, tasks))`` of a legacy ``numpy.random.RandomState`` per replicate), so with
the same seed the intervals equal rliable's to the last bit (rliable draws from the global
``numpy.random`` state: seed it with ``numpy.random.seed(seed)``);
``tests/test_rliable_agreement.py`` checks this against rliable itself. The package keeps its
own few lines rather than depending on rliable (arch, statsmodels, pandas, seaborn) at run time.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

Z95 = 1.959963984540054
"""The two-sided 95 % quantile of the standard normal distribution."""


def wilson_interval(p: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion ``p`` observed over ``n`` trials."""
    if n == 0:
        return (0.0, 1.0)
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def mean_interval(values: Sequence[float], z: float = Z95) -> tuple[float, float, float]:
    """Mean and its normal-approximation 95 % interval."""
    arr = np.asarray(values, dtype=float)
    if arr.size == 0:
        return (math.nan, math.nan, math.nan)
    mean = float(arr.mean())
    if arr.size == 1:
        return (mean, mean, mean)
    half = z * float(arr.std(ddof=1)) / math.sqrt(arr.size)
    return (mean, mean - half, mean + half)


def normalize(score: float, random_score: float, heuristic_score: float) -> float | None:
    """The normalised score, or ``None`` when the two references coincide (no scale)."""
    span = heuristic_score - random_score
    if abs(span) < 1e-12:
        return None
    return (score - random_score) / span


def iqm(scores: np.ndarray) -> float:
    """Interquartile mean of all entries of ``scores`` (any shape)."""
    flat = np.asarray(scores, dtype=float).reshape(-1)
    if flat.size == 0:
        raise ValueError("the interquartile mean of no scores is undefined")
    cut = int(0.25 * flat.size)
    # scipy.stats.trim_mean's own steps (a partition, then the mean of the middle), so the
    # result is rliable's to the last bit.
    kept = np.partition(flat, (cut, flat.size - cut - 1))[cut: flat.size - cut]
    return float(kept.mean())


def mean(scores: np.ndarray) -> float:
    """Mean over tasks of each task's mean over runs (``rliable.metrics.aggregate_mean``)."""
    mat = np.asarray(scores, dtype=float)
    if mat.size == 0:
        raise ValueError("the mean of no scores is undefined")
    return float(np.mean(np.mean(mat, axis=0)))


def stratified_bootstrap(
    scores: np.ndarray,
    statistic: Callable[[np.ndarray], float],
    reps: int = 2000,
    seed: int = 0,
) -> np.ndarray:
    """Bootstrap replicates of ``statistic`` on a ``(runs, tasks)`` score matrix.

    Each replicate draws, for every task independently, ``runs`` row indices with replacement
    and takes that task's scores at them, drawn as rliable draws them (see the module
    docstring).
    """
    mat = np.asarray(scores, dtype=float)
    if mat.ndim != 2 or mat.size == 0:
        raise ValueError(f"scores must be a non-empty (runs, tasks) matrix, got shape {mat.shape}")
    runs, tasks = mat.shape
    # rliable's StratifiedBootstrap.update_indices: np.random.choice(runs, (runs, tasks)),
    # which is the legacy RandomState's stream (a Generator would give other intervals).
    rng = np.random.RandomState(seed)
    cols = np.arange(tasks)[None, :]
    out = np.empty(reps)
    for r in range(reps):
        rows = rng.choice(runs, (runs, tasks), replace=True)
        out[r] = statistic(mat[rows, cols])
    return out


def stratified_bootstrap_ci(
    scores: np.ndarray,
    statistic: Callable[[np.ndarray], float] = iqm,
    reps: int = 2000,
    size: float = 0.95,
    seed: int = 0,
) -> tuple[float, float]:
    """Percentile interval of the stratified bootstrap replicates of ``statistic``.

    Args:
        scores: ``(runs, tasks)`` matrix (e.g. normalised scores, one row per seed).
        statistic: Aggregate of a matrix (default :func:`iqm`).
        reps: Bootstrap replicates (``rliable`` uses 50 000; 2 000 keeps a run quick).
        size: Interval coverage.
        seed: Seed of the resampling.
    """
    reps_values = stratified_bootstrap(scores, statistic, reps=reps, seed=seed)
    lo, hi = np.percentile(reps_values, [100 * (1 - size) / 2, 100 * (1 + size) / 2])
    return float(lo), float(hi)
