"""bench/jax_train.py's make-bench table: the targets beside every row, and its flags."""

from __future__ import annotations

import pytest

from tests.scripts import load_script

bench = load_script("bench/jax_train.py", "jax_train_bench")


def _row(game: str, hidden: list[int], jax_rate: int, sb3_rate: int) -> dict:
    return {"game": game, "players": 2, "hidden": hidden, "learner_steps_per_s": jax_rate,
            "compile_and_first_s": 40.0, "sb3_maskable_ppo": {"learner_steps_per_s": sb3_rate},
            "ratio_vs_sb3": round(jax_rate / sb3_rate, 1), "load_avg": [1.0, 1.0, 1.0],
            "cpus": 2, "backend": "cpu", "commit": "abc"}


def test_the_table_marks_each_row_against_its_games_target():
    text = bench.table([_row("rapa_nui", [64, 64], 60_000, 2_000),
                        _row("positano", [256, 256], 9_000, 1_000)])
    # 60,000 / 2,000 = 30.0x meets Rapa Nui's 30x; 9,000 / 1,000 = 9.0x misses Positano's 10x.
    assert "| rapa_nui 2p | 64x64 | 60,000 | 40.0 | 2,000 | 30.0x | 30x | yes | – | – |" in text
    assert "| positano 2p | 256x256 | 9,000 | 40.0 | 1,000 | 9.0x | 10x | no | – | – |" in text
    assert bench.ALL_ROWS == [("rapa_nui", (64, 64)), ("rapa_nui", (256, 256)),
                              ("positano", (64, 64)), ("positano", (256, 256))]


def test_a_row_with_its_bounds_prints_them_beside_the_ratio():
    row = {**_row("rapa_nui", [64, 64], 60_000, 2_000), "rollout_only_steps_per_s": 180_000,
           "rollout_only_ratio": 90.0, "arithmetic_steps_per_s": 240_000,
           "arithmetic_ratio": 120.0}
    assert ("| 30.0x | 30x | yes | 180,000 (90.0x) | 240,000 (120.0x) |"
            in bench.table([row]))


def test_the_flops_per_learner_step_are_the_networks_multiply_adds_by_hand():
    # Rapa Nui 2p, 2x64 (observation 213, 45 actions). Multiply-adds of one forward pass:
    # actor 213*64 + 64*64 + 64*45 = 13,632 + 4,096 + 2,880; critic 13,632 + 4,096 + 64.
    # First layers 27,264, the rest 11,136, forward 38,400.
    # Per iteration of 512 training games x 64 steps (+64 games against random, 2 seats):
    # rollout 38,400 * 576 * 64 + bootstrap 38,400 * 576 * 2;
    # 4 epochs of (2 * 27,264 + 3 * 11,136) = 87,936 per learner step.
    rollout = 38_400 * 576 * 64 + 38_400 * 576 * 2
    update = 4 * 87_936 * 512 * 64
    expected = round(2 * (rollout + update) / (512 * 64))
    assert expected == 792_588
    assert bench.flops_per_learner_step(213, 45, (64, 64), 512, 64, 64, 2, 4) == expected
    # One layer of 10 inputs to 3 actions and a value, 1 game, 1 step, 1 seat, 1 epoch:
    # forward 30 + 10 = 40 (all first layer): rollout 40 + bootstrap 40, update 2 * 40.
    assert bench.flops_per_learner_step(10, 3, (), 1, 0, 1, 1, 1) == 2 * (80 + 80)


def test_out_without_all_is_refused():
    with pytest.raises(SystemExit):
        bench.main(["--out", "x"])
