"""``bench/openspiel.py`` counts what it times and scores what it plays as stated.

No timing is asserted (the bench measures; tests never do): the step rows count the decisions
both APIs made over the same games, the ISMCTS row rotates ISMCTS through the seats and
scores a shared win as half, and the MCCFR row does the same for the learner's average policy
and counts its iterations, its tables and its decisions at states the tables never saw.
"""

from __future__ import annotations

from tabletop_gym.arena.stats import wilson_interval
from tests.scripts import load_script

bench = load_script("bench/openspiel.py", "bench_openspiel")


def test_both_apis_play_whole_games_and_count_their_decisions():
    # A Rapa Nui game takes well over 50 decisions (docs/envs/rapa_nui.md), through either API.
    seconds, decisions = bench.time_aec("rapa_nui", {"num_players": 2}, 1, 0)
    assert seconds > 0 and decisions > 50
    row = bench.time_pyspiel("rapa_nui", {"num_players": 2}, 1, 0)
    assert row["nodes"] > 50 and row["deal_s"] > 0 and row["play_s"] > 0


def test_ismcts_rotates_through_the_seats_and_scores_with_a_wilson_interval():
    # Two simulations: OpenSpiel's ISMCTS spends its first one expanding the root.
    row = bench.run_ismcts("positano", {"num_players": 2, "transform": "turn_based"}, 2, 2)
    assert [g["ismcts_seat"] for g in row["per_game"]] == [0, 1]
    wins = 0.0
    for g in row["per_game"]:
        r = g["returns"]
        mine, theirs = r[g["ismcts_seat"]], r[1 - g["ismcts_seat"]]
        wins += 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
    assert row["ismcts_wins"] == wins
    assert row["wilson95"] == list(wilson_interval(wins / 2, 2))


def test_the_markdown_names_each_figure():
    step = [{"openspiel": "python_rapa_nui(num_players=2)", "aec": "rapa_nui_v0(num_players=2)",
             "aec_us_per_step": 40.0, "pyspiel_us_per_node": 60.0, "ratio_step": 1.5,
             "pyspiel_deal_ms_per_game": 2.0, "ratio_with_deal": 1.9}]
    step.append({"openspiel": "python_positano(num_players=4)", "pyspiel_us_per_node": 150.0,
                 "pyspiel_deal_ms_per_game": 2.5})
    ranks = [{"league": "rapa_nui-2p", "alpha": 5.0, "mass": {"a": 0.25, "b": 0.75}}]
    text = bench._markdown(step, [], ranks)
    assert "| `python_positano(num_players=4)` | — | — | 150.0 | — | 2.5 | — |" in text
    assert "| `python_rapa_nui(num_players=2)` | `rapa_nui_v0(num_players=2)` | 40.0 | 60.0 | " \
           "1.50 | 2.0 | 1.90 |" in text
    assert "| `rapa_nui-2p` | `b` 0.750, `a` 0.250 |" in text


def test_learning_counts_its_iterations_tables_and_the_learners_seats():
    # Outcome-sampling MCCFR creates a table entry at every decision of the sampled episode: an
    # iteration is an episode per seat, each with the deal's decisions, so a few iterations
    # leave at least one entry per decision of a whole game (over 50 in Rapa Nui).
    row = bench.run_learning("rapa_nui", {"num_players": 2}, 2, 2)
    assert row["iterations"] == 2 and row["infostates"] > 50
    assert row["cpu_s"] > 0 and row["iterations_per_s"] == 2 / row["cpu_s"]
    assert [g["learner_seat"] for g in row["per_game"]] == [0, 1]
    wins = 0.0
    for g in row["per_game"]:
        r = g["returns"]
        mine, theirs = r[g["learner_seat"]], r[1 - g["learner_seat"]]
        wins += 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
    assert row["learner_wins"] == wins
    assert row["wilson95"] == list(wilson_interval(wins / 2, 2))
    assert row["learner_decisions"] > 50 and row["unseen_decisions"] <= row["learner_decisions"]


def test_without_iterations_every_decision_of_the_average_policy_is_at_an_unseen_state():
    # No iteration, no table: OpenSpiel's average policy is uniform everywhere, and the row
    # says that every one of the learner's decisions was made so.
    row = bench.run_learning("positano", {"num_players": 2, "transform": "turn_based"}, 0, 2)
    assert row["infostates"] == 0
    assert row["learner_decisions"] > 0
    assert row["unseen_decisions"] == row["learner_decisions"]


def test_the_learning_table_names_its_figures():
    learning = [{"openspiel": "python_rapa_nui(num_players=2)", "iterations": 1500, "cpu_s": 120.4,
                 "iterations_per_s": 12.46, "infostates": 371000, "games": 40,
                 "learner_wins": 21.5, "win_rate": 0.5375, "wilson95": [0.38, 0.69],
                 "unseen_decisions": 700, "learner_decisions": 720}]
    text = bench._markdown([], [], [], learning)
    assert "| `python_rapa_nui(num_players=2)` | 1500 | 120 | 12.5 | 371000 | 40 | 21.5 | 0.54 | " \
           "[0.38, 0.69] | 700/720 |" in text
