"""The toy game becomes a full citizen by one folder and one registration (issue 40, item 5).

``tests/toy/`` is Nim's package: its engine, envs and bot (``nim.py``, ``nim_v0.py``), its
batched twin (``nim_jax.py``) and its spec with the benchmark block (``spec.py``). Registering
that spec, the one line a shipped game has in ``tabletop_gym.registry.GAMES``, is all it takes:
every test below reaches Nim through the package's own tables, none of which names it.
"""

from __future__ import annotations

import pytest

from tabletop_gym.registry import game_names, register_game, unregister_game


@pytest.fixture
def nim():
    """Nim registered for one test, and forgotten after it."""
    register_game("tests.toy.spec:SPEC")
    try:
        yield
    finally:
        unregister_game("nim")


def test_its_tasks_and_suites_appear_and_are_made(nim):
    from tabletop_gym import tasks

    nim_tasks = [i for i, t in tasks.TASKS.items() if t.game == "nim"]
    assert nim_tasks == ["Nim-2p-vsHeuristic-v0", "Nim-2p-SelfPlay-v0"]
    assert tasks.SUITES["nim"].task_ids == tuple(nim_tasks)
    assert "Nim-2p-vsHeuristic-v0" in tasks.SUITES["core"].task_ids
    assert "Nim-2p-SelfPlay-v0" in tasks.SUITES["selfplay"].task_ids
    info = tasks.describe("Nim-2p-vsHeuristic-v0")
    # The spec's standard switch is pinned; Nim has no board and no solo reward text.
    assert info["config"] == {"pile": 7, "num_players": 2, "reward_type": "win_loss",
                              "observation": "count"}
    assert info["board_size"] is None
    assert info["reward"].startswith("at the end: +1 each winner")

    tasks.register_tasks()
    env = tasks.make("Nim-2p-vsHeuristic-v0")
    obs, info = env.reset(seed=0)
    # The observation is (stones, own turn): 7 stones and the learner (seat 0 at seed 0) to move.
    assert obs.tolist() == [7.0, 1.0] and info["seat"] == 0
    with pytest.raises(tasks.PinnedSettingError, match="pins pile=7"):
        tasks.make("Nim-2p-vsHeuristic-v0", pile=5)
    aec = tasks.make("Nim-2p-SelfPlay-v0")
    aec.reset(seed=0)
    assert aec.agents == ["player_0", "player_1"]


def test_its_tables_leave_with_it(nim):
    from tabletop_gym import tasks
    from tabletop_gym.tasks import held_out, leagues

    assert "nim" in tasks.SUITES and "nim-2p" in leagues.LEAGUES
    unregister_game("nim")
    try:
        assert "nim" not in game_names()
        assert "nim" not in tasks.SUITES and "nim" not in held_out.POPULATION
        assert not any(t.game == "nim" for t in tasks.TASKS.values())
        assert "nim-2p" not in leagues.LEAGUES
    finally:
        register_game("tests.toy.spec:SPEC")


def test_its_text_view_rules_summary_and_grammar(nim):
    from tabletop_gym.text.env import TextEnv
    from tabletop_gym.text.rules import GRAMMAR, grammar_patterns, system_prompt

    prompt = system_prompt("nim", GRAMMAR)
    assert "Whoever takes the last\nstone wins." in prompt and "- take N  (N = 1 or 2)" in prompt
    env = TextEnv("nim", pile=4)
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)
    assert "4 stones" in obs["text"]
    # Every legal move's name is one the grammar covers.
    patterns = grammar_patterns("nim")
    assert obs["legal_moves"] == ["take 1", "take 2"]
    assert all(any(p.fullmatch(m) for p in patterns) for m in obs["legal_moves"])
    env.step("take 1")
    assert "3 stones" in env.observe(env.agent_selection)["text"]


def test_its_league_and_held_out_population(nim, tmp_path):
    from tabletop_gym import tasks
    from tabletop_gym.tasks import held_out, leagues

    spec = leagues.LEAGUES["nim-2p"]
    assert (spec.game, spec.agents, spec.games) == ("nim", ("heuristic", "random"), 4)
    doc = leagues.play("nim-2p", out=tmp_path)
    assert (tmp_path / "nim-2p.json").is_file() and doc["kind"] == "round robin"
    # From 7 stones the player to move first wins by leaving a multiple of 3 (6, 3, 0), so the
    # heuristic wins the 2 of the 4 games it opens whatever random does.
    opened = [g for g in doc["result"]["games"] if g["seat"] == 0]
    assert len(opened) == 2 and all(g["outcome"] == 1.0 for g in opened)
    assert "nim-2p" in leagues.load(tmp_path)

    assert held_out.POPULATION["nim"] == ("random",)
    assert held_out.protocol()["population"]["nim"] == ["random"]
    got = held_out.score(tasks.TASKS["Nim-2p-vsHeuristic-v0"], "heuristic")
    assert list(got["by_opponent"]) == ["random"]
    # 100 seat-rotated games (10 deals per seed, 5 seeds, both seats): the heuristic wins the
    # 50 it opens, so at least half.
    assert got["by_opponent"]["random"]["games"] == 100
    assert got["by_opponent"]["random"]["win_rate"] >= 0.5


def test_its_rows_in_the_results_page(nim):
    """The core suite takes the toy's core task, so the page's tables get its rows."""
    from tabletop_gym.tasks import held_out, results, runner

    refs = runner.load_references()
    refs["tasks"].update(runner.compute_references(
        ["Nim-2p-vsHeuristic-v0"], seeds=1, min_games=4, deals_per_seed=2)["tasks"])
    ref = refs["tasks"]["Nim-2p-vsHeuristic-v0"]
    # The heuristic against itself wins exactly the games it opens (+1 and -1 per deal: 0);
    # random loses every game the heuristic opens, so it scores at most 0.
    assert ref["heuristic"]["score"] == 0.0 and -1.0 <= ref["random"]["score"] <= 0.0
    lines = [line for line in results.page([], refs, held_out.load_references()).splitlines()
             if "`Nim-2p-vsHeuristic-v0`" in line]
    assert len(lines) == 3  # the task table, the power table and the held-out table
    cells = [c.strip() for c in lines[1].split("|")]
    assert cells[1] == "`Nim-2p-vsHeuristic-v0`" and cells[3].startswith("+0.000")
    assert lines[2] == "| `Nim-2p-vsHeuristic-v0` | `random` | – | – |"


def test_a_league_played_again_keeps_the_games_it_would_play_and_plays_only_the_new_pairs(
        nim, tmp_path, monkeypatch):
    import dataclasses
    import json

    import numpy as np

    from tabletop_gym.tasks import leagues

    class TakeOne:
        """Always takes one stone (the first legal action): a third agent for Nim."""

        name = "take-one"

        def act(self, observation):
            return int(np.flatnonzero(observation["action_mask"])[0])

    first = leagues.play("nim-2p", out=tmp_path)
    assert first["reused"] is None  # no earlier file
    old = first["result"]["games"]
    wider = dataclasses.replace(leagues.LEAGUES["nim-2p"],
                                agents=("heuristic", "random", "take-one"))
    monkeypatch.setattr(leagues, "LEAGUES", {"nim-2p": wider})
    monkeypatch.setattr(leagues, "_agents", lambda spec, root: ["heuristic", "random", TakeOne()])
    doc = leagues.play("nim-2p", out=tmp_path)
    # The one earlier pair is kept as it was; the agent added plays its two pairs of 4 games.
    assert doc["reused"]["pairs"] == [["heuristic", "random"]]
    assert doc["reused"]["failed_check"] == [] and doc["reused"]["checked_deals"] == 1
    games = doc["result"]["games"]
    assert [g for g in games if g["opponent"] == "random" and g["agent"] == "heuristic"] == old
    assert sorted({(g["agent"], g["opponent"]) for g in games}) == [
        ("heuristic", "random"), ("heuristic", "take-one"), ("random", "take-one")]
    assert len(games) == 3 * 4
    assert doc["cpu_seconds"] == round(doc["cpu_seconds_this_run"] + first["cpu_seconds"], 1)

    # A kept game that no longer replays (as if the rules had changed) fails the pair's check:
    # that pair is played again and its games are the true ones.
    path = tmp_path / "nim-2p.json"
    tampered = json.loads(path.read_text())
    tampered["result"]["games"][0]["scores"] = [5.0, 5.0]
    path.write_text(json.dumps(tampered))
    again = leagues.play("nim-2p", out=tmp_path)
    assert again["reused"]["failed_check"] == [["heuristic", "random"]]
    assert again["reused"]["pairs"] == [["heuristic", "take-one"], ["random", "take-one"]]
    assert again["result"]["games"] == games

    # When every pair fails its check nothing is kept, and the earlier run's time is not counted.
    for g in tampered["result"]["games"]:
        g["scores"] = [5.0, 5.0]
    path.write_text(json.dumps({**tampered, "cpu_seconds": 1e6}))
    none_kept = leagues.play("nim-2p", out=tmp_path)
    assert none_kept["reused"]["pairs"] == [] and len(none_kept["reused"]["failed_check"]) == 3
    assert none_kept["cpu_seconds"] == none_kept["cpu_seconds_this_run"] < 1e6
    assert none_kept["result"]["games"] == games

    # A file there that is not a league is refused by name, and left as it was.
    for bad in ("{not json", '{"result": {"games": 3}}', "[]"):
        path.write_text(bad)
        with pytest.raises(ValueError, match=r"nim-2p\.json is not a league file"):
            leagues.play("nim-2p", out=tmp_path)
        assert path.read_text() == bad
    path.write_text(json.dumps(again))

    # An earlier file of other deals keeps nothing: every pair is played.
    monkeypatch.setattr(leagues, "LEAGUES", {"nim-2p": dataclasses.replace(wider, games=2)})
    fewer = leagues.play("nim-2p", out=tmp_path)
    assert fewer["reused"] is None and len(fewer["result"]["games"]) == 3 * 2
