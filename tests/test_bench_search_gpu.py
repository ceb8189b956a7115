"""``bench/search_gpu.py``: the commands it starts, what it packs, the flags it refuses.

The script runs the batched search and expert iteration on a GPU machine; here its command
lines are run through the real parsers (the recipe's with the work replaced, the evaluation's
for two games) and its archive is checked, without a GPU.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from tests.scripts import load_script

ROOT = Path(__file__).resolve().parent.parent
search_gpu = load_script("bench/search_gpu.py", "search_gpu")

pytest.importorskip("jax")


def test_the_recipe_command_runs_batched_warm_expert_iteration(tmp_path, monkeypatch):
    import tabletop_gym.jax.search as search

    seen: list[tuple] = []
    monkeypatch.setattr(search, "expert_iteration", lambda *a: seen.append(a) or [])
    cmd = search_gpu.recipe_command(search_gpu.RECIPE, tmp_path)
    assert cmd[:3] == [sys.executable, "-m", "tabletop_gym.jax.search"]
    assert search.main(cmd[3:]) == 0
    (args,) = seen
    # (game, players, out, iterations, games, worlds, width, start, hidden, epochs, seed, warm,
    #  workers, z, beta, batched, part_games)
    assert args[:3] == ("positano", 2, str(tmp_path))
    assert args[4:6] == (4096, 64) and args[7] == "jax-ppo"
    assert args[11] is True and args[13:] == (2.0, 10.0, True, 1024)
    # Each part is one batch on the device: the iteration's games split into whole parts.
    assert search_gpu.RECIPE["games"] % search_gpu.RECIPE["part_games"] == 0


def test_the_evaluation_command_scores_a_checkpoint_against_the_heuristic(tmp_path):
    from tabletop_gym.agents.base import jax_checkpoint_path
    from tabletop_gym.cli import main

    ckpt = Path(jax_checkpoint_path("rapa_nui", 2))
    recipe = {**search_gpu.RECIPE, "game": "rapa_nui"}
    cmd = search_gpu.eval_command(recipe, ckpt, 2, tmp_path / "eval")
    assert cmd[:3] == [sys.executable, "-m", "tabletop_gym.cli"]
    assert main(cmd[3:]) == 0
    (row,) = json.loads((tmp_path / "eval.json").read_text())
    assert (row["n_games"], row["opponent"], row["candidate"]) == (2, "heuristic", f"jax:{ckpt}")
    # The page's deal, from both seats: the games the CPU runs were scored on.
    assert [(g["seed"], g["seat"]) for g in row["per_game"]] == [(61000, 0), (61000, 1)]


def test_the_archive_leaves_out_the_parts_decisions(tmp_path):
    (tmp_path / "expert-iteration").mkdir()
    for name in ["speed.json", "expert-iteration/iteration_1.json",
                 "expert-iteration/iteration_1.npz", "expert-iteration/iteration_1_deals_0.npz"]:
        (tmp_path / name).write_text("x")
    with tarfile.open(search_gpu.pack(tmp_path)) as tar:
        assert sorted(tar.getnames()) == ["expert-iteration/iteration_1.json",
                                          "expert-iteration/iteration_1.npz", "speed.json"]


@pytest.mark.parametrize(("flags", "says"), [
    (["--seconds", "10"], "--seconds must exceed 20 and --speed-seconds be >= 0"),
    (["--speed-seconds", "-1"], "--seconds must exceed 20 and --speed-seconds be >= 0"),
    (["--batches", "64", "0"], "--batches must be positive game counts, got [64, 0]")])
def test_bad_flags_are_refused(tmp_path, flags, says):
    out = subprocess.run([sys.executable, str(ROOT / "bench" / "search_gpu.py"), "--out",
                          str(tmp_path), *flags], capture_output=True, text=True, check=False)
    assert out.returncode == 2
    assert says in out.stderr
    assert not any(tmp_path.iterdir())  # refused before anything was written
