"""Leagues of multi-player tables: every game reduced to the pairs at its table, then rated."""

from __future__ import annotations

import json

import pytest

from tabletop_gym.arena.league import pairwise_results, run_table_league


def test_pairwise_results_by_hand():
    # Seats hold agents 2, 0, 1, 3; seat 1 (agent 0) wins on a tie-breaker with seat 2 (agent 1)
    # level on 40; seats 0 and 3 are level on 30.
    got = pairwise_results([2, 0, 1, 3], [30.0, 40.0, 40.0, 30.0], [1])
    assert got == [
        (2, 0, 0.0),  # seat 0 vs the winner
        (2, 1, 0.0),  # 30 below 40
        (2, 3, 0.5),  # 30 and 30: a draw
        (0, 1, 1.0),  # the winner above a non-winner on the same score
        (0, 3, 1.0),
        (1, 3, 1.0),  # 40 above 30
    ]
    # Two shared winners draw with each other and finish above the rest.
    assert pairwise_results([0, 1, 2], [50.0, 50.0, 10.0], [0, 1]) == [
        (0, 1, 0.5), (0, 2, 1.0), (1, 2, 1.0)]


def test_every_table_plays_every_rotation_of_the_same_deals():
    agents = ["random", "heuristic", "heuristic:loner", "heuristic:mystic"]
    res = run_table_league("rapa_nui", agents, deals_per_table=1, seed=5, bootstrap=20,
                           num_players=3)
    # C(4, 3) = 4 tables x 1 deal x 3 rotations.
    assert res.tables == [[0, 1, 2], [0, 1, 3], [0, 2, 3], [1, 2, 3]]
    assert len(res.games) == 12
    for t in range(4):
        rows = [g for g in res.games if g["table"] == t]
        assert {g["seed"] for g in rows} == {5}
        # Each agent of the table sits in each seat once.
        for s in range(3):
            assert sorted(g["agents"][s] for g in rows) == res.tables[t]
    # Two agents share 2 of the 4 tables: 2 tables x 3 games.
    assert res.met[0][1] == 6 and res.met[1][1] == 0
    assert res.ratings[0] == 0.0  # the first agent anchors the scale
    assert res.above[1][0] + res.above[0][1] == pytest.approx(1.0)
    assert sum(res.win_rate[i] * 9 for i in range(4)) == pytest.approx(12)  # one win a game
    # The pairs agree with the games: above[1][0] is the heuristic's pairwise result against
    # random, recomputed from the recorded scores and winners.
    mine = [y for g in res.games for i, j, y in pairwise_results(g["agents"], g["scores"],
                                                                  g["winners"])
            if (i, j) == (0, 1)] + [1.0 - y for g in res.games for i, j, y in
                                    pairwise_results(g["agents"], g["scores"], g["winners"])
                                    if (i, j) == (1, 0)]
    assert len(mine) == 6 and res.above[0][1] == pytest.approx(sum(mine) / 6)
    data = json.loads(json.dumps(res.to_dict()))  # valid JSON: no NaN
    assert data["above"][0][0] is None
    assert "| rank | agent | rating (Elo) [95 % CI] | ± | wins |" in res.markdown()
    # Same seed, same league.
    again = run_table_league("rapa_nui", agents, deals_per_table=1, seed=5, bootstrap=20,
                             num_players=3)
    assert again.ratings == res.ratings and again.rating_ci == res.rating_ci


def test_bad_leagues_are_refused_before_any_game():
    with pytest.raises(ValueError, match="at least 3 players"):
        run_table_league("rapa_nui", ["random", "heuristic"], num_players=2)
    with pytest.raises(ValueError, match="4 seats need at least 4 distinct agents, got 3"):
        run_table_league("rapa_nui", ["random", "heuristic", "heuristic:loner"], num_players=4)
    with pytest.raises(ValueError, match="distinct"):
        run_table_league("rapa_nui", ["random", "random", "heuristic"], num_players=3)
    with pytest.raises(ValueError, match="deals_per_table must be positive"):
        run_table_league("rapa_nui", ["random", "heuristic", "heuristic:loner"],
                         deals_per_table=0, num_players=3)
