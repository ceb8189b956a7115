"""``bench/suite_gpu.py``: which rows it runs, in what order, and with what command.

The script runs the missing rows of ``suite train`` side by side on a big machine; here the
list, the order and the command lines are checked without training anything.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.scripts import load_script

ROOT = Path(__file__).resolve().parent.parent
suite_gpu = load_script("bench/suite_gpu.py", "suite_gpu")

CORE = ("Positano-2p-vsHeuristic-v0", "Positano-4p-SelfPlay-v0", "Positano-Solo-v0",
        "RapaNui-2p-vsHeuristic-v0", "RapaNui-4p-SelfPlay-v0")


def test_missing_rows_seed_by_seed_jax_first(tmp_path):
    from tabletop_gym.tasks import SUITES

    assert set(SUITES["core"].task_ids) == set(CORE)
    done = [("jax-ppo", CORE[0], 0), ("sb3-ppo", CORE[1], 0), ("sb3-ppo", CORE[0], 1)]
    for algo, task, seed in done:
        d = tmp_path / algo / task / f"seed-{seed}"
        d.mkdir(parents=True)
        (d / "result.json").write_text("{}")
    # A folder without its result.json is a row cut short: run again.
    (tmp_path / "jax-ppo" / CORE[1] / "seed-0").mkdir(parents=True)
    rows = suite_gpu.missing_rows(tmp_path, suite_gpu.ALGOS, seeds=2)
    assert len(rows) == 2 * 2 * len(CORE) - len(done)
    assert set(rows).isdisjoint(done)
    # Seed 0 before seed 1 (only seeds finished on every task count), JAX rows first in each.
    assert [r[2] for r in rows] == sorted(r[2] for r in rows)
    seed0 = [r[0] for r in rows if r[2] == 0]
    assert seed0 == sorted(seed0)  # "jax-ppo" < "sb3-ppo"
    first = next(t for t in SUITES["core"].task_ids if t != CORE[0])  # in the suite's order
    assert rows[0] == ("jax-ppo", first, 0)


def test_command_trains_one_row_and_cpu_rows_hide_the_gpu(tmp_path):
    cmd = suite_gpu.command("sb3-ppo", CORE[3], 3, 5, tmp_path, smoke=False)
    assert cmd[0] == sys.executable
    tail = cmd[cmd.index("suite"):]
    assert tail == ["suite", "train", "--algo", "sb3-ppo", "--task", CORE[3], "--seeds", "5",
                    "--seed", "3", "--out", str(tmp_path)]
    assert "--timesteps" in suite_gpu.command("jax-ppo", CORE[3], 3, 5, tmp_path, smoke=True)
    assert suite_gpu.row_env("sb3-ppo")["CUDA_VISIBLE_DEVICES"] == ""
    assert "CUDA_VISIBLE_DEVICES" not in suite_gpu.row_env("jax-ppo") or \
        suite_gpu.row_env("jax-ppo")["CUDA_VISIBLE_DEVICES"] != ""
    assert suite_gpu.row_env("jax-ppo")["OMP_NUM_THREADS"] == "1"


def test_bad_flags_are_refused(tmp_path):
    out = subprocess.run([sys.executable, str(ROOT / "bench" / "suite_gpu.py"), "--out",
                          str(tmp_path / "o"), "--workers", "0"], capture_output=True, text=True)
    assert out.returncode == 2 and "--workers" in out.stderr
    assert not (tmp_path / "o").exists()
