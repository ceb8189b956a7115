"""PettingZoo's own test suite on both games, AEC and parallel, in every info mode and mask layout.

Also the regression tests of the parallel Rapa Nui env and ``state_space`` (docs/libraries.md,
finding 7) and of the stable info layout (finding 5). These tests need only the core
dependencies: ``make test`` also runs them on the oldest gymnasium/pettingzoo we claim.
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import (
    api_test,
    parallel_api_test,
    parallel_seed_test,
    render_test,
    seed_test,
    state_test,
)

from tabletop_gym.integrations import make_env

CASES = [("positano", {"num_players": 3}), ("rapa_nui", {"num_players": 3})]
IDS = [g for g, _ in CASES]
# PettingZoo before 1.25 hard-codes the key "observation" of a Dict observation in api_test, and
# its parallel_seed_test has no num_cycles.
OLD_API_TEST = tuple(int(x) for x in pettingzoo.__version__.split(".")[:2]) < (1, 25)
SEED_CYCLES = ({"num_cycles": 300}
               if "num_cycles" in inspect.signature(parallel_seed_test).parameters else {})


def _quiet(fn, *args, **kwargs):
    # The suites sample unmasked actions (illegal ones end the game with a warning) and warn
    # about Dict observation spaces; neither is a failure.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


@pytest.mark.parametrize("info_mode", ["full", "stable"])
@pytest.mark.parametrize(("game", "cfg"), CASES, ids=IDS)
def test_api_and_seed_tests(game, cfg, info_mode):
    _quiet(api_test, make_env(game, info_mode=info_mode, **cfg), num_cycles=300)
    _quiet(seed_test, lambda: make_env(game, info_mode=info_mode, **cfg), num_cycles=300)


@pytest.mark.parametrize("info_mode", ["full", "stable"])
@pytest.mark.parametrize(("game", "cfg"), CASES, ids=IDS)
def test_parallel_api_and_parallel_seed_tests(game, cfg, info_mode):
    # Rapa Nui had no parallel env before (finding 7).
    _quiet(parallel_api_test, make_env(game, parallel=True, info_mode=info_mode, **cfg),
           num_cycles=300)
    _quiet(parallel_seed_test, lambda: make_env(game, parallel=True, info_mode=info_mode, **cfg),
           **SEED_CYCLES)


@pytest.mark.parametrize(("game", "cfg"), CASES, ids=IDS)
def test_state_test(game, cfg):
    # Positano had state() but no state_space (finding 7).
    env, par = make_env(game, **cfg), make_env(game, parallel=True, **cfg)
    _quiet(state_test, env, par, num_cycles=100)
    env.reset(seed=0)
    obs_size = env.observation_space("player_0")["observation"].shape[0]
    assert env.state_space.shape == (cfg["num_players"] * obs_size,)
    # the state is every seat's own observation, in seat order
    state = env.state()
    for i, agent in enumerate(env.possible_agents):
        np.testing.assert_array_equal(state[i * obs_size:(i + 1) * obs_size],
                                      env.observe(agent)["observation"])


@pytest.mark.parametrize("layout", ["rllib", "info"])
@pytest.mark.parametrize(("game", "cfg"), CASES, ids=IDS)
def test_mask_layouts_pass_the_api_tests(game, cfg, layout):
    if layout == "rllib" and OLD_API_TEST:
        # what that api_test cannot read; the parallel test and the test below still run
        with pytest.raises(KeyError, match="observation"):
            _quiet(api_test, make_env(game, layout=layout, **cfg), num_cycles=200)
    else:
        _quiet(api_test, make_env(game, layout=layout, **cfg), num_cycles=200)
    _quiet(parallel_api_test, make_env(game, parallel=True, layout=layout, **cfg), num_cycles=200)


def test_mask_layouts_carry_the_mask_where_each_library_reads_it():
    rl = make_env("rapa_nui", layout="rllib", num_players=2)
    plain = make_env("rapa_nui", num_players=2)
    info = make_env("rapa_nui", layout="info", num_players=2)
    for env in (rl, plain, info):
        env.reset(seed=5)
    agent = plain.agent_selection
    ref = plain.observe(agent)
    obs_rl = rl.observe(agent)
    assert set(obs_rl) == {"observations", "action_mask"}
    np.testing.assert_array_equal(obs_rl["observations"], ref["observation"])
    np.testing.assert_array_equal(obs_rl["action_mask"], ref["action_mask"])
    obs_info, _, _, _, inf = info.last()
    np.testing.assert_array_equal(obs_info, ref["observation"])
    np.testing.assert_array_equal(inf["action_mask"], ref["action_mask"])
    assert info.observation_space(agent) == plain.observation_space(agent)["observation"]
    with pytest.raises(ValueError, match="layout='flat' is not allowed"):
        make_env("rapa_nui", layout="flat")
    with pytest.raises(ValueError, match="needs info_mode='full'"):
        make_env("rapa_nui", layout="info", info_mode="stable")
    with pytest.raises(ValueError, match="game='chess' is not known"):
        make_env("chess")


def _play_random(env, seed):
    """Yield each info dict of every agent after reset and after every step of a random game."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    yield dict(env.infos)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        yield dict(env.infos)


def _signature(info):
    return {k: (type(v), np.shape(v), getattr(v, "dtype", None)) for k, v in info.items()}


@pytest.mark.parametrize(("game", "cfg"), CASES, ids=IDS)
def test_stable_infos_have_the_same_keys_types_and_shapes_at_every_step(game, cfg):
    # Finding 5: with info_mode="full" the keys change at the end and phase is a string, which
    # TorchRL's spec inference and Tianshou's buffers cannot take.
    env = make_env(game, info_mode="stable", **cfg).unwrapped
    n = cfg["num_players"]
    first = None
    saw_end = False
    for infos in _play_random(env, seed=2):
        for info in infos.values():
            sig = _signature(info)
            first = first or sig
            assert sig == first
            assert isinstance(info["phase"], int)
            assert info["scores"].shape == (n,) and info["winners"].shape == (n,)
            saw_end |= info["game_over"]
        if env.agents and not any(env.terminations.values()):
            acting = [a for a, i in infos.items() if i["is_acting"]]
            assert acting == [env.agent_selection]
            assert env.game.phases[infos[acting[0]]["phase"]] == env.game_state.phase()
    assert saw_end
    assert set(first) == {"is_acting", "phase", "game_over", "scores", "winners",
                          "illegal_action"}
    # at the end: the engine's scores and winners, indexed like possible_agents
    state = env.game_state
    final = _final_infos(game, cfg, seed=2)
    for info in final.values():
        np.testing.assert_array_equal(info["scores"], np.asarray(state.scores(), np.float32))
        assert np.flatnonzero(info["winners"]).tolist() == sorted(state.winners())
        assert info["phase"] == env.game.phases.index("terminal")


def _final_infos(game, cfg, seed):
    env = make_env(game, info_mode="stable", **cfg).unwrapped
    last = None
    for infos in _play_random(env, seed):
        if infos and all(i["game_over"] for i in infos.values()):
            last = infos
            break
    return last


def test_stable_infos_of_the_parallel_env_and_an_illegal_action():
    env = make_env("rapa_nui", parallel=True, info_mode="stable", num_players=2)
    obs, infos = env.reset(seed=0)
    assert _signature(infos["player_0"]) == _signature(infos["player_1"])
    # player_1 is not to act at the start (seat 0 is the start player, rules table "start player") and must send the no-op
    assert infos["player_0"]["is_acting"] and not infos["player_1"]["is_acting"]
    legal = int(np.flatnonzero(obs["player_0"]["action_mask"])[0])
    with pytest.warns(UserWarning, match="illegal action"):
        _, rewards, terms, _, infos2 = env.step({"player_0": legal, "player_1": legal})
    assert rewards == {"player_0": 0.0, "player_1": -1.0}
    assert all(terms.values())
    assert infos2["player_1"]["illegal_action"] == legal
    assert infos2["player_0"]["illegal_action"] == -1
    assert _signature(infos2["player_1"]) == _signature(infos["player_1"])


def test_rapa_nui_parallel_env_plays_the_aec_game_with_a_noop_for_the_others():
    # Finding 7. The parallel view appends one id (45) as the no-op of the seats not to act;
    # with the same seed it deals the same game as the AEC env, and the same actions reach the
    # same states.
    aec = make_env("rapa_nui", num_players=3).unwrapped
    par = make_env("rapa_nui", parallel=True, num_players=3)
    n = aec.action_space("player_0").n
    assert par.action_space("player_0").n == n + 1 and par.unwrapped.noop == n
    aec.reset(seed=7)
    obs, _ = par.reset(seed=7)
    assert par.unwrapped.game_state == aec.game_state
    rng = np.random.default_rng(7)
    steps = 0
    while par.agents:
        actor = aec.agent_selection
        mask = aec.observe(actor)["action_mask"]
        for agent in par.agents:
            if agent == actor:
                np.testing.assert_array_equal(obs[agent]["action_mask"][:n], mask)
                assert obs[agent]["action_mask"][n] == 0
            else:
                assert np.flatnonzero(obs[agent]["action_mask"]).tolist() == [n]
        action = int(rng.choice(np.flatnonzero(mask)))
        aec.step(action)
        actions = {a: (action if a == actor else n) for a in par.agents}
        obs, rewards, terms, _, _ = par.step(actions)
        steps += 1
        assert par.unwrapped.game_state == aec.game_state
    returns = aec.game_state.returns()
    assert rewards == {a: returns[i] for i, a in enumerate(aec.possible_agents)}
    assert all(terms.values()) and steps == len(aec.record().actions)


@pytest.mark.parametrize(("game", "cfg"), CASES, ids=IDS)
def test_render_test(game, cfg):
    # render_test builds the env in every render mode of its metadata, "human" first
    _quiet(render_test, lambda render_mode=None: make_env(game, render_mode=render_mode, **cfg))
