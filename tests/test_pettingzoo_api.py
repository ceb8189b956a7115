"""PettingZoo conformance of every env configuration (docs/design.md, "Tests")."""

from __future__ import annotations

import copy
import inspect
import pickle
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test

from tests.configs import ENGINE_CONFIGS, config_id, raw_env, wrapped_env


@pytest.mark.parametrize("item", ENGINE_CONFIGS, ids=config_id)
def test_api_test(item):
    game, cfg = item
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(wrapped_env(game, **cfg), num_cycles=400)


@pytest.mark.parametrize("item", ENGINE_CONFIGS, ids=config_id)
def test_seed_test(item):
    game, cfg = item
    seed_test(lambda: wrapped_env(game, **cfg), num_cycles=400)


@pytest.mark.parametrize("cfg", [c for g, c in ENGINE_CONFIGS if g == "positano"], ids=str)
def test_parallel_api_and_seed(cfg):
    from tabletop_gym.envs import positano_v0

    parallel_api_test(positano_v0.parallel_env(**cfg), num_cycles=400)
    # PettingZoo before 1.25 has no num_cycles here (make test also runs the oldest we claim)
    cycles = {"num_cycles": 400} if "num_cycles" in inspect.signature(parallel_seed_test).parameters else {}
    parallel_seed_test(lambda: positano_v0.parallel_env(**cfg), **cycles)


def _play_to_end(env, seed=0):
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(rng.choice(legal)))
    return env


@pytest.mark.parametrize("item", ENGINE_CONFIGS, ids=config_id)
def test_complete_games_end_with_every_agent_rewarded_through_last(item):
    game, cfg = item
    env = raw_env(game, **cfg)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    final = {}
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term:
            final[agent] = (reward, info)
            env.step(None)
            continue
        assert info["is_acting"] and np.array_equal(info["action_mask"], obs["action_mask"])
        for other in env.agents:
            if other != agent:
                assert not env.infos[other]["is_acting"]
                assert not env.infos[other]["action_mask"].any()
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    # every agent was terminated together, dead-stepped and removed
    assert env.agents == []
    assert set(final) == set(env.possible_agents)
    returns = env.game_state.returns()
    for i, agent in enumerate(env.possible_agents):
        assert final[agent][0] == returns[i]
        assert final[agent][1]["winners"] == [env.possible_agents[s] for s in env.game_state.winners()]


@pytest.mark.parametrize("item", [ENGINE_CONFIGS[0], ENGINE_CONFIGS[4]], ids=config_id)
def test_illegal_action_terminates_with_minus_one_and_says_why(item):
    game, cfg = item
    env = raw_env(game, **cfg)
    env.reset(seed=1)
    agent = env.agent_selection
    mask = env.observe(agent)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    before = env.game_state.to_json()
    with pytest.warns(UserWarning, match="illegal action"):
        env.step(illegal)
    assert env.game_state.to_json() == before  # nothing changed
    assert env.rewards[agent] == -1.0
    assert all(env.terminations.values())
    assert all(env.rewards[a] == 0.0 for a in env.agents if a != agent)
    detail = env.infos[agent]["illegal_action"]
    assert detail["action"] == illegal and detail["agent"] == agent
    assert illegal not in detail["legal_actions"]


@pytest.mark.parametrize("item", [ENGINE_CONFIGS[0], ENGINE_CONFIGS[4]], ids=config_id)
def test_illegal_action_raise_mode_reraises_engine_error(item):
    from tabletop_gym.core.game import IllegalActionError

    game, cfg = item
    env = raw_env(game, illegal_action="raise", **cfg)
    env.reset(seed=1)
    mask = env.observe(env.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    before = env.game_state.to_json()
    with pytest.raises(IllegalActionError, match=f"illegal action {illegal}"):
        env.step(illegal)
    assert env.game_state.to_json() == before


@pytest.mark.parametrize("bad", [-1, 10_000, 1.5, "3", True, None])
def test_out_of_space_actions_are_clear_errors(bad):
    env = raw_env("rapa_nui", num_players=2)
    env.reset(seed=0)
    n = env.action_space(env.agent_selection).n
    with pytest.raises(ValueError, match=rf"outside the action space Discrete\({n}\)"):
        env.step(bad)


def test_bad_env_arguments_are_clear_errors():
    with pytest.raises(ValueError, match="illegal_action='ignore' is not allowed"):
        raw_env("rapa_nui", illegal_action="ignore")
    with pytest.raises(ValueError, match="render_mode='rgb' is not supported"):
        raw_env("rapa_nui", render_mode="rgb")
    from tabletop_gym.core.game import ConfigError

    with pytest.raises(ConfigError, match="num_players=7"):
        raw_env("rapa_nui", num_players=7)


@pytest.mark.parametrize("item", [ENGINE_CONFIGS[1], ENGINE_CONFIGS[5]], ids=config_id)
def test_pickle_and_deepcopy_keep_the_game(item):
    game, cfg = item
    env = raw_env(game, **cfg)
    env.reset(seed=11)
    rng = np.random.default_rng(0)
    for _ in range(15):
        obs = env.observe(env.agent_selection)
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    for clone in (pickle.loads(pickle.dumps(env)), copy.deepcopy(env)):
        assert clone.game_state == env.game_state
        assert clone.agent_selection == env.agent_selection
        a = env.agent_selection
        np.testing.assert_array_equal(clone.observe(a)["observation"], env.observe(a)["observation"])
        # and they play on independently, identically
        act = int(np.flatnonzero(env.observe(a)["action_mask"])[0])
        clone.step(act)
        assert clone.game_state != env.game_state
    wrapped = wrapped_env(game, **cfg)
    wrapped.reset(seed=2)
    assert pickle.loads(pickle.dumps(wrapped)).unwrapped.game_state == wrapped.unwrapped.game_state


@pytest.mark.parametrize("item", ENGINE_CONFIGS, ids=config_id)
def test_record_replays_exactly(item):
    from tabletop_gym.core.records import GameRecord

    game, cfg = item
    env = _play_to_end(raw_env(game, **cfg), seed=21)
    rec = GameRecord.from_json(env.record().to_json())
    assert rec.replay() == env.game_state


@pytest.mark.parametrize("item", [ENGINE_CONFIGS[0], ENGINE_CONFIGS[5]], ids=config_id)
def test_render_modes(item):
    game, cfg = item
    env = raw_env(game, render_mode="ansi", **cfg)
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str) and len(text.splitlines()) > 3
    env = raw_env(game, render_mode="rgb_array", **cfg)
    env.reset(seed=0)
    img = env.render()
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3 and img.shape[0] > 50


def test_seat_permutation_option():
    env = raw_env("rapa_nui", num_players=3)
    env.reset(seed=4, options={"seat_permutation": [2, 0, 1]})
    # engine seat 0 starts, and it is played by player_1
    assert env.agent_selection == "player_1"
    assert [env.seat_of(a) for a in env.possible_agents] == [2, 0, 1]
    with pytest.raises(ValueError, match="seat_permutation must be a permutation"):
        env.reset(seed=4, options={"seat_permutation": [0, 0, 1]})
    env.reset(seed=4, options={"seat_permutation": "random"})
    assert sorted(env.seat_of(a) for a in env.possible_agents) == [0, 1, 2]


def test_state_option_starts_from_a_given_position():
    env = raw_env("rapa_nui", num_players=2)
    env.reset(seed=9)
    first = env.game_state.clone()
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    env.reset(options={"state": first})
    assert env.game_state == first


@pytest.mark.parametrize("item", ENGINE_CONFIGS, ids=[config_id(c) for c in ENGINE_CONFIGS])
def test_acting_parts_are_those_of_observe(item):
    # acting_observation() and acting_legal() are observe(agent_selection)'s vector and the
    # ids its mask sets, at every step; empty legal ids once the game is over (also after an
    # illegal action ended it).
    game, cfg = item
    env = raw_env(game, **cfg)
    with pytest.raises(RuntimeError, match="reset"):
        env.acting_observation()
    with pytest.raises(RuntimeError, match="reset"):
        env.acting_legal()
    rng = np.random.default_rng(2)
    env.reset(seed=2)
    while not env.terminations[env.agent_selection]:
        full = env.observe(env.agent_selection)
        np.testing.assert_array_equal(env.acting_observation(), full["observation"])
        legal = env.acting_legal()
        assert legal == tuple(np.flatnonzero(full["action_mask"]).tolist())
        assert list(legal) == env.legal_actions()
        env.step(int(rng.choice(legal)))
    assert env.acting_legal() == ()
    env.reset(seed=3)
    with pytest.warns(UserWarning, match="illegal"):
        env.step(next(a for a in range(env._num_actions) if a not in env.acting_legal()))
    assert env.acting_legal() == ()
