"""``bench/jax_cores.py``: how it compares two trainings' checkpoints, and what it refuses.

The trainings themselves are the bench's to run (minutes, and what they show depends on the
machine's cores); these tests check the comparison the docs' figure comes from.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.scripts import load_script

jax_cores = load_script("bench/jax_cores.py", "bench_jax_cores")


def _save(path, **arrays):
    np.savez(path, **arrays)
    return str(path)


def test_identical_checkpoints_differ_nowhere(tmp_path):
    w = {"layer/kernel": np.arange(6, dtype=np.float32).reshape(2, 3),
         "layer/bias": np.zeros(3, np.float32)}
    a = [_save(tmp_path / "a0.npz", **w), _save(tmp_path / "a1.npz", **w)]
    b = [_save(tmp_path / "b0.npz", **w), _save(tmp_path / "b1.npz", **w)]
    assert jax_cores.compare(a, b) == {"max_abs_difference": 0.0, "arrays_differing": 0,
                                       "arrays": 4}


def test_the_largest_difference_and_the_arrays_that_differ(tmp_path):
    kernel = np.ones((2, 3), np.float32)
    bias = np.zeros(3, np.float32)
    nudged = kernel.copy()
    nudged[1, 2] += np.float32(2.0 ** -10)  # exact in float32: the difference is 2^-10
    a = [_save(tmp_path / "a.npz", kernel=kernel, bias=bias)]
    b = [_save(tmp_path / "b.npz", kernel=nudged, bias=bias - np.float32(2.0 ** -12))]
    assert jax_cores.compare(a, b) == {"max_abs_difference": 2.0 ** -10,
                                       "arrays_differing": 2, "arrays": 2}


def test_metadata_arrays_are_not_weights(tmp_path):
    path = _save(tmp_path / "c.npz", kernel=np.ones(2, np.float32),
                 metadata=np.array('{"seed": 0}'), steps=np.array(3, np.int64))
    assert list(jax_cores.weights(path)) == ["kernel"]


def test_checkpoints_of_other_networks_are_refused(tmp_path):
    a = [_save(tmp_path / "a.npz", kernel=np.ones(2, np.float32))]
    b = [_save(tmp_path / "b.npz", other=np.ones(2, np.float32))]
    with pytest.raises(ValueError, match="hold other arrays"):
        jax_cores.compare(a, b)
    with pytest.raises(ValueError):  # one run's seeds against another's: not the same count
        jax_cores.compare(a + a, b)


def test_one_usable_core_is_refused_before_any_training(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(jax_cores.os, "sched_getaffinity", lambda _pid: {0})
    ran = []
    monkeypatch.setattr(jax_cores.subprocess, "run", lambda *a, **k: ran.append(a))
    with pytest.raises(SystemExit) as exc:
        jax_cores.main(["--out", str(tmp_path / "r")])
    assert exc.value.code == 2 and not ran
    assert "may use 1 core; the comparison needs at least 2" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())
