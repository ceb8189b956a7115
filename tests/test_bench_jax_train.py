"""bench/jax_train.py's make-bench table: the targets beside every row, and its flags."""

from __future__ import annotations

import importlib.util
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("jax_train_bench", ROOT / "bench" / "jax_train.py")
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)


def _row(game: str, hidden: list[int], jax_rate: int, sb3_rate: int) -> dict:
    return {"game": game, "players": 2, "hidden": hidden, "learner_steps_per_s": jax_rate,
            "compile_and_first_s": 40.0, "sb3_maskable_ppo": {"learner_steps_per_s": sb3_rate},
            "ratio_vs_sb3": round(jax_rate / sb3_rate, 1), "load_avg": [1.0, 1.0, 1.0],
            "cpus": 2, "backend": "cpu", "commit": "abc"}


def test_the_table_marks_each_row_against_its_games_target():
    text = bench.table([_row("rapa_nui", [64, 64], 60_000, 2_000),
                        _row("positano", [256, 256], 9_000, 1_000)])
    # 60,000 / 2,000 = 30.0x meets Rapa Nui's 30x; 9,000 / 1,000 = 9.0x misses Positano's 10x.
    assert "| rapa_nui 2p | 64x64 | 60,000 | 40.0 | 2,000 | 30.0x | 30x | yes |" in text
    assert "| positano 2p | 256x256 | 9,000 | 40.0 | 1,000 | 9.0x | 10x | no |" in text
    assert bench.ALL_ROWS == [("rapa_nui", (64, 64)), ("rapa_nui", (256, 256)),
                              ("positano", (64, 64)), ("positano", (256, 256))]


def test_out_without_all_is_refused():
    with pytest.raises(SystemExit):
        bench.main(["--out", "x"])
