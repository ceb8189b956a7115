"""Benchmark tasks: ids that pin every setting, their registration, describe, suites."""

from __future__ import annotations

import gymnasium
import pettingzoo
import pytest

from tabletop_gym import tasks
from tabletop_gym.tasks import TASKS, PinnedSettingError, describe


def test_ids_name_their_version_and_every_task_is_described():
    assert len(TASKS) == 21
    for task_id, task in TASKS.items():
        assert task_id == f"{task.name}-v{task.version}"
        d = describe(task_id)
        assert d["pinned"] is True and d["id"] == task_id
        assert d["description"] and "\n" not in d["description"]
        # every field of the game config is reported, the explicit ones with their pinned value
        for key, value in task.config.items():
            assert d["config"][key] == (list(value) if isinstance(value, tuple) else value)


@pytest.mark.parametrize("task_id", list(TASKS))
def test_each_task_builds_the_env_it_describes(task_id):
    d = describe(task_id)
    task = TASKS[task_id]
    if task.mode == "selfplay":
        env = pettingzoo.make("aec", f"tabletop_gym/{task_id}")
        raw = env.unwrapped
        env.reset(seed=0)
        assert len(env.possible_agents) == d["num_players"]
    else:
        env = gymnasium.make(task_id)
        raw = env.unwrapped.aec
        env.reset(seed=0)
        wrapper = env.unwrapped
        assert wrapper.seat_mode == d["seat_mode"]
        if task.mode == "vs":
            assert wrapper._opponent_specs == [d["opponents"]] * (d["num_players"] - 1)
        assert gymnasium.spec(task_id).max_episode_steps == d["max_episode_steps"]
    config = raw.game.inner.config if hasattr(raw.game, "inner") else raw.game.config
    assert config.to_dict() == d["config"]
    if task.game == "positano":
        assert raw.split_bids is False
        assert config.size == d["board_size"]


def test_the_issue_examples_pin_what_their_names_say():
    d = describe("Positano-4p-5x5-SelfPlay-v0")
    assert (d["num_players"], d["board_size"], d["mode"], d["opponents"]) == (4, 5, "selfplay",
                                                                              None)
    d = describe("Positano-2p-vsHeuristic-v0")
    assert (d["num_players"], d["board_size"], d["opponents"], d["reward_type"]) == (
        2, 4, "heuristic", "win_loss")
    solo = describe("Positano-Solo-v0")
    assert solo["num_players"] == 1 and "Otto" in solo["reward"]
    assert describe("RapaNui-4p-SelfPlay-v0")["reference_opponents"] == ["random", "heuristic"]


def test_learner_seat_rotates_over_episodes():
    env = gymnasium.make("RapaNui-3p-vsHeuristic-v0")
    seats = [env.reset(seed=7)[1]["seat"]]
    for _ in range(3):
        seats.append(env.reset()[1]["seat"])
    # a seeded reset plays seat seed mod 3; each unseeded reset moves one seat on
    assert seats == [1, 2, 0, 1]
    assert [env.reset(seed=e)[1]["seat"] for e in range(4)] == [0, 1, 2, 0]


def test_a_pinned_setting_cannot_be_changed():
    with pytest.raises(PinnedSettingError) as err:
        gymnasium.make("Positano-2p-vsHeuristic-v0", num_players=3)
    msg = str(err.value)
    assert "num_players=2" in msg and "'Positano-v0'" in msg
    for key, value in (("opponents", "random"), ("board_size", 5), ("reward_type", "score"),
                       ("seat_mode", "fixed"), ("learner_seat", 1), ("split_bids", True)):
        with pytest.raises(PinnedSettingError, match=key):
            gymnasium.make("Positano-4p-vsHeuristic-v0", **{key: value})
    with pytest.raises(PinnedSettingError, match="tabletop_gym/RapaNui-v0"):
        pettingzoo.make("aec", "tabletop_gym/RapaNui-4p-SelfPlay-v0", num_players=3)
    with pytest.raises(PinnedSettingError, match="opponents"):
        tasks.make("RapaNui-2p-SelfPlay-v0", opponents="heuristic")
    with pytest.raises(PinnedSettingError, match="seat_mode='fixed'"):
        gymnasium.make("Positano-Solo-v0", seat_mode="rotate")
    # a config switch the task does not name is pinned at its default, not left open
    with pytest.raises(PinnedSettingError, match="reward_type"):
        gymnasium.make("Positano-Solo-v0", reward_type="score")


def test_restating_a_pinned_value_and_presentation_keywords_are_accepted():
    env = gymnasium.make("RapaNui-2p-vsHeuristic-v0", num_players=2, opponents="heuristic",
                         render_mode="ansi", observation_type="dict")
    obs, _ = env.reset(seed=0)
    assert set(obs) == {"observation", "action_mask"}
    assert "Rapa" in env.render() or env.render()
    aec = tasks.make("Positano-3p-SelfPlay-v0", render_mode="ansi")
    aec.reset(seed=0)
    assert aec.render()


def test_an_unknown_keyword_is_a_type_error_with_a_suggestion():
    with pytest.raises(TypeError, match="did you mean 'opponents'"):
        gymnasium.make("RapaNui-2p-vsHeuristic-v0", opponent="random")


def test_unknown_ids_suggest_close_ones():
    with pytest.raises(KeyError, match="RapaNui-2p-vsHeuristic-v0"):
        describe("RapaNui-2p-vsHeuristc-v0")


def test_existing_ids_keep_working_and_describe_their_defaults():
    d = describe("Positano-v0")
    assert d["pinned"] is False
    assert (d["num_players"], d["opponents"], d["seat_mode"]) == (1, "random", "fixed")
    env = gymnasium.make("Positano-v0")
    assert env.unwrapped.aec.game.inner.config.to_dict() == d["config"]
    r = describe("RapaNui-v0")
    assert (r["num_players"], r["opponents"]) == (2, "heuristic")
    assert gymnasium.make("RapaNui-v0").unwrapped._opponent_specs == ["heuristic"]
    p = describe("positano_v0")
    assert p["num_players"] == 2 and p["board_size"] == 4 and p["pinned"] is False
    assert describe("tabletop_gym/RapaNui-v0")["id"] == "rapa_nui_v0"
    # a configurable id still takes every keyword
    env = gymnasium.make("Positano-v0", num_players=3, opponents="heuristic")
    assert env.unwrapped.aec.game.num_players == 3


def test_made_by_id_alone():
    par = tasks.make("Positano-4p-5x5-SelfPlay-v0", parallel=True)
    obs, _ = par.reset(seed=0)
    assert len(obs) == 4
    par = pettingzoo.make("parallel", "tabletop_gym/RapaNui-3p-SelfPlay-v0")
    obs, _ = par.reset(seed=0)
    assert len(obs) == 3 and par.unwrapped.game.config.to_dict() == describe(
        "RapaNui-3p-SelfPlay-v0")["config"]
    single = tasks.make("Positano-Solo-v0")
    _, info = single.reset(seed=0)
    assert info["seat"] == 0
    with pytest.raises(KeyError, match="configurable"):
        tasks.make("RapaNui-v0")


def test_suites():
    core = tasks.suite_tasks("core")
    # one task per game and mode
    assert sorted((t.game, t.mode) for t in core) == sorted(
        {(t.game, t.mode) for t in TASKS.values()})
    assert len(core) == 5
    assert list(tasks.SUITES["full"].task_ids) == list(TASKS)
    assert all(TASKS[t].game == "rapa_nui" for t in tasks.SUITES["rapa_nui"].task_ids)
    with pytest.raises(ValueError, match="core"):
        tasks.suite_tasks("nope")
