"""The evaluation harness: intervals worked by hand, seat rotation, the mirror match, files."""

from __future__ import annotations

import csv
import json
import math

import pytest

from tabletop_gym.arena.evaluation import evaluate, format_table, save_results
from tabletop_gym.arena.stats import mean_interval, wilson_interval


def test_wilson_interval_by_hand():
    # p = 0.5, n = 100, z = 1.96: centre (0.5 + 1.96²/200) / (1 + 1.96²/100) = 0.5;
    # half = 1.96·sqrt(0.25/100 + 1.96²/40000) / 1.0384 = 1.96·0.050951 / 1.038415 = 0.096170
    lo, hi = wilson_interval(0.5, 100)
    assert lo == pytest.approx(0.40383, abs=1e-4) and hi == pytest.approx(0.59617, abs=1e-4)
    # all 10 won: lower end 10 / (10 + 1.96²) = 0.7225, upper end 1
    lo, hi = wilson_interval(1.0, 10)
    assert lo == pytest.approx(0.72246, abs=1e-4) and hi == pytest.approx(1.0)
    assert wilson_interval(0.3, 0) == (0.0, 1.0)


def test_mean_interval_by_hand():
    # values 1, 2, 3: mean 2, sample sd 1, half width 1.96 / sqrt(3) = 1.13161
    mean, lo, hi = mean_interval([1, 2, 3])
    assert (mean, lo, hi) == pytest.approx((2.0, 0.86839, 3.13161), abs=1e-4)


def test_seats_rotate_over_paired_deals():
    res = evaluate("rapa_nui", "random", "random", n_games=6, seed=40, num_players=3)
    assert [g["seat"] for g in res.per_game] == [0, 1, 2, 0, 1, 2]
    assert [g["seed"] for g in res.per_game] == [40, 40, 40, 41, 41, 41]
    assert res.n_games == 6 and res.config["num_players"] == 3


def test_mirror_match_is_even_within_its_interval():
    # random against random: the candidate's share of wins is 1/2 within the 95 % interval
    res = evaluate("positano", "random", "random", n_games=120, seed=0, num_players=2)
    assert res.win_ci[0] <= 0.5 <= res.win_ci[1]
    assert res.diff_ci[0] <= 0.0 <= res.diff_ci[1]


def test_solo_uses_duplicate_deals():
    res = evaluate("positano", "random", "random", n_games=8, seed=3, num_players=1)
    assert [g["seed"] for g in res.per_game] == list(range(3, 11))
    for g in res.per_game:
        expected = 1.0 if g["score"] > g["opponent_score"] else 0.5 if g["score"] == g["opponent_score"] else 0.0
        assert g["outcome"] == expected
    assert math.isclose(res.mean_score_diff, res.mean_score - res.opponent_mean_score)


def test_results_are_saved_as_csv_and_json(tmp_path):
    res = evaluate("rapa_nui", "heuristic", "random", n_games=4, seed=0)
    paths = save_results([res], tmp_path / "eval")
    assert {p.suffix for p in paths} == {".csv", ".json"}
    rows = list(csv.DictReader((tmp_path / "eval.csv").read_text().splitlines()))
    assert rows[0]["candidate"] == "heuristic" and rows[0]["games"] == "4"
    doc = json.loads((tmp_path / "eval.json").read_text())
    assert len(doc[0]["per_game"]) == 4
    table = format_table([res])
    assert "heuristic" in table and "win rate" in table


def test_unknown_game_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        evaluate("chess", "random")
