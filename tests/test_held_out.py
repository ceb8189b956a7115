"""The held-out opponent population: scored on other deals, normalised per opponent, resumable."""

from __future__ import annotations

import json

import pytest

from tabletop_gym.tasks import TASKS, held_out

TASK = TASKS["RapaNui-2p-vsHeuristic-v0"]


@pytest.fixture
def tiny_population(monkeypatch):
    """One seed, 2 games (one deal from both seats) against each of two cheap opponents."""
    monkeypatch.setattr(held_out, "SEEDS", 1)
    monkeypatch.setattr(held_out, "GAMES_PER_OPPONENT", 2)
    monkeypatch.setattr(held_out, "POPULATION",
                        {**held_out.POPULATION, "rapa_nui": ("heuristic:loner", "random")})


def test_the_population_is_never_a_training_opponent():
    from tabletop_gym.tasks.train import RECIPES  # noqa: F401  (the recipes' opponents below)

    for game, population in held_out.POPULATION.items():
        assert len(population) == 4
        # No recipe trains against these: sb3-ppo plays the heuristic bot, jax-ppo its own
        # snapshots (tabletop_gym.tasks.train).
        assert "heuristic" not in population and "random" not in population, game
        assert all(p.startswith(("heuristic:", "ismcts:")) for p in population)


def test_deals_give_the_games_asked_for():
    # ceil(100 / (5 seeds x n seats)): 10 deals of 2 seats, 5 deals of 4 seats per seed.
    assert held_out.deals_per_seed(TASKS["Positano-2p-vsHeuristic-v0"]) == 10
    assert held_out.deals_per_seed(TASKS["RapaNui-4p-SelfPlay-v0"]) == 5


def test_a_solo_task_has_nothing_to_hold_out():
    solo = TASKS["Positano-Solo-v0"]
    assert not held_out.applies(solo)
    with pytest.raises(ValueError, match="solo task: it has no opponents to hold out"):
        held_out.score(solo, "random")


def test_score_plays_every_opponent_on_the_held_out_deals(tiny_population):
    got = held_out.score(TASK, "heuristic")
    assert got["version"] == held_out.HELD_OUT_VERSION and got["deals_per_seed"] == 1
    assert list(got["by_opponent"]) == ["heuristic:loner", "random"]
    for cell in got["by_opponent"].values():
        assert cell["games"] == 2  # one deal, once from each seat
        assert -1.0 <= cell["mean_return"] <= 1.0
    # The same call plays the same games (the deals are seeded from FIRST_DEAL).
    assert held_out.score(TASK, "heuristic") == got


def test_normalised_per_opponent_by_the_references_against_it():
    refs = {"tasks": {TASK.id: {
        "random": {"by_opponent": {"a": {"mean_return": -0.5}, "b": {"mean_return": 0.2}}},
        "heuristic": {"by_opponent": {"a": {"mean_return": 0.5}, "b": {"mean_return": 0.2}}},
    }}}
    held = {"by_opponent": {"a": {"mean_return": 0.0}, "b": {"mean_return": 0.4}}}
    # a: (0 - -0.5) / (0.5 - -0.5) = 0.5; b: random and heuristic tie, so no scale.
    assert held_out.normalized(held, TASK.id, refs) == {"a": 0.5, "b": None}
    assert held_out.normalized(held, "Positano-2p-vsHeuristic-v0", refs) is None


def test_references_resume_without_replaying(tiny_population, tmp_path, monkeypatch):
    out = tmp_path / "refs.json"
    doc = held_out.compute_references([TASK, TASKS["Positano-Solo-v0"]], out=out)
    assert set(doc["tasks"]) == {TASK.id}  # solo has no population
    assert set(doc["tasks"][TASK.id]) == {"version", "random", "heuristic"}
    assert json.loads(out.read_text())["protocol"]["version"] == held_out.HELD_OUT_VERSION
    assert held_out.load_references(out)["tasks"] == doc["tasks"]
    played = []
    monkeypatch.setattr(held_out, "score", lambda task, agent: played.append(agent))
    held_out.compute_references([TASK], out=out)
    assert played == []
    # Another version of the protocol starts afresh.
    monkeypatch.setattr(held_out, "HELD_OUT_VERSION", held_out.HELD_OUT_VERSION + 1)
    assert held_out.load_references(out) == {}


def test_suite_run_held_out_scores_every_multi_player_task_and_only_those(tmp_path, monkeypatch):
    # The held-out games themselves are replayed elsewhere (tests/test_results_page.py); here
    # the flag's wiring: every multi-player task of the run gets the agent's held-out document,
    # solo none, and the CPU it took is recorded.
    from tabletop_gym.cli import main

    seen = []

    def fake_score(task, agent):
        seen.append((task.id, agent))
        return {"version": held_out.HELD_OUT_VERSION, "by_opponent": {}}

    monkeypatch.setattr(held_out, "score", fake_score)
    out = tmp_path / "run.json"
    assert main(["suite", "run", "--suite", "core", "--agent", "random", "--seeds", "1",
                 "--deals", "1", "--task", "Positano-Solo-v0", "--task",
                 "RapaNui-2p-vsHeuristic-v0", "--held-out", "--out", str(out)]) == 0
    doc = json.loads(out.read_text())
    by_id = {t["id"]: t for t in doc["tasks"]}
    assert seen == [("RapaNui-2p-vsHeuristic-v0", "random")]
    assert "held_out" not in by_id["Positano-Solo-v0"]
    assert by_id["RapaNui-2p-vsHeuristic-v0"]["held_out"]["version"] == held_out.HELD_OUT_VERSION
    assert doc["held_out_cpu_seconds"] >= 0
