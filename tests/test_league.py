"""The league: pairings, the win-rate matrix, Bradley–Terry ratings worked by hand, files."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from tabletop_gym.arena.league import ELO, fit_ratings, run_league
from tabletop_gym.cli import main


def test_ratings_by_hand_for_two_agents():
    # Bradley–Terry with two agents: the MLE odds are wins / losses. With 3 wins, 1 loss and the
    # one virtual draw (0.5 each): odds (3 + 0.5) / (1 + 0.5) = 7/3, rating 400·log10(7/3) = 147.2
    i = np.array([1, 1, 1, 1])
    j = np.array([0, 0, 0, 0])
    y = np.array([1.0, 1.0, 1.0, 0.0])
    r = fit_ratings(2, i, j, y)
    assert r[0] == 0.0
    assert r[1] == pytest.approx(400 * math.log10(7 / 3), abs=0.01)
    assert ELO * math.log(10) == pytest.approx(400)


def test_ratings_are_finite_when_one_agent_wins_everything():
    # 4-0 with the virtual draw: odds 4.5 / 0.5 = 9, rating 400·log10(9) = 381.7
    r = fit_ratings(2, np.array([0] * 4), np.array([1] * 4), np.ones(4))
    assert r[1] == pytest.approx(-400 * math.log10(9), abs=0.01)


def test_three_agents_in_a_cycle_rate_equally():
    # a beats b, b beats c, c beats a, each 2-0: by symmetry all three ratings are equal
    i = np.array([0, 0, 1, 1, 2, 2])
    j = np.array([1, 1, 2, 2, 0, 0])
    r = fit_ratings(3, i, j, np.ones(6))
    assert r == pytest.approx([0.0, 0.0, 0.0], abs=1e-6)


def test_league_matrix_is_complementary_and_games_rotate_seats():
    res = run_league("rapa_nui", ["random", "heuristic", "ismcts:4"], games_per_pair=4, seed=3,
                     bootstrap=30, num_players=2)
    assert res.agents == ["random", "heuristic", "ismcts:4"]
    assert len(res.pairs) == 3 and len(res.games) == 12
    for a in range(3):
        assert math.isnan(res.matrix[a][a])
        for b in range(3):
            if a != b:
                assert res.matrix[a][b] + res.matrix[b][a] == pytest.approx(1.0)
                lo, hi = res.ci[a][b]
                assert lo <= res.matrix[a][b] <= hi
    first = [g for g in res.games if g["agent"] == "random" and g["opponent"] == "heuristic"]
    assert [g["seat"] for g in first] == [0, 1, 0, 1]
    assert [g["seed"] for g in first] == [3, 3, 4, 4]
    assert res.ratings[0] == 0.0
    for r, (lo, hi) in zip(res.ratings, res.rating_ci, strict=True):
        assert lo - 1e-9 <= r <= hi + 1e-9 or lo == hi
    # the heuristic wins all four against random (rules-based play vs random: 0.995 in 200 games)
    assert res.matrix[1][0] == 1.0 and res.ratings[1] > 0


def test_league_refuses_bad_input():
    with pytest.raises(ValueError, match="at least two agents"):
        run_league("rapa_nui", ["random"], num_players=2)
    with pytest.raises(ValueError, match="at least 2 players"):
        run_league("positano", ["random", "heuristic"], num_players=1)
    with pytest.raises(ValueError, match="distinct"):
        run_league("rapa_nui", ["random", "random"], num_players=2)


def test_league_command_writes_table_json_and_heatmap(tmp_path, capsys):
    out = tmp_path / "lg"
    assert main(["league", "--game", "positano", "--players", "2", "--agents", "random",
                 "heuristic", "--games", "2", "--bootstrap", "10", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "| row beats column |" in printed
    data = json.loads((out / "league.json").read_text())
    assert data["metadata"]["package"] == "tabletop-gym"
    assert data["metadata"]["games_per_pair"] == 2 and data["agents"] == ["random", "heuristic"]
    assert (out / "league.md").read_text().startswith("| rank | agent |")
    assert (out / "league.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
