"""Pickles and deep copies carry the game, not the caches (issue #26 item 3).

A pickled env mid-game must play on exactly as the original: the same observations, masks,
rewards and infos at every later step, through the end of the episode and the next ones (the
seeded stream continues). The caches (the observers' kept vectors, the bots' memo tables, the
mask cache, tables derived from the config) are rebuilt where the copy is loaded, so a pickle
does not grow with the episodes played.
"""

from __future__ import annotations

import copy
import pickle
import warnings

import gymnasium
import numpy as np
import pytest

import tabletop_gym  # noqa: F401 - registers the ids
from tabletop_gym.envs import positano_v0, rapa_nui_v0

SINGLE = [("RapaNui-v0", {}), ("RapaNui-v0", {"num_players": 3, "obs_dtype": "uint16"}),
          ("Positano-v0", {}), ("Positano-v0", {"num_players": 2, "opponents": "heuristic"})]


def _same(a, b):
    if isinstance(a, dict):
        assert a.keys() == b.keys()
        for k in a:
            _same(a[k], b[k])
    elif isinstance(a, np.ndarray):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)
    else:
        assert a == b


def _play_single(env, rng, steps):
    """``steps`` learner steps with actions from ``rng`` (resets as episodes end)."""
    out = []
    for _ in range(steps):
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        obs, reward, terminated, truncated, info = env.step(action)
        out.append((action, obs, reward, terminated, truncated, info, env.action_masks()))
        if terminated or truncated:
            out.append(("reset", *env.reset()))
    return out


@pytest.mark.parametrize(("env_id", "cfg"), SINGLE, ids=lambda x: x if isinstance(x, str) else "")
def test_single_agent_round_trip_plays_on_identically(env_id, cfg):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env = gymnasium.make(env_id, **cfg).unwrapped
        env.reset(seed=5)
        _play_single(env, np.random.default_rng(1), 25)
        copies = [pickle.loads(pickle.dumps(env)), copy.deepcopy(env)]
        steps = 250 if env_id == "RapaNui-v0" else 120  # past the end of an episode
        expected = _play_single(env, np.random.default_rng(2), steps)
        assert any(row[0] == "reset" for row in expected)
        for clone in copies:
            got = _play_single(clone, np.random.default_rng(2), steps)
            assert len(got) == len(expected)
            for row, other in zip(expected, got, strict=True):
                for a, b in zip(row, other, strict=True):
                    _same(a, b)


@pytest.mark.parametrize("env_id", ["RapaNui-v0", "Positano-v0"])
def test_a_pickle_does_not_grow_with_the_episodes_played(env_id):
    # Before: RapaNui-v0 grew from 34 to 78 KB over six episodes, the opponents' memo tables
    # travelling with it.
    env = gymnasium.make(env_id).unwrapped
    rng = np.random.default_rng(0)
    sizes = []
    for episode in range(4):
        env.reset(seed=episode)
        done = False
        while not done:
            _, _, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            done = terminated or truncated
        env.reset(seed=100)  # the same position each time: only caches could differ
        sizes.append(len(pickle.dumps(env)))
    assert max(sizes) - min(sizes) < 1024, sizes


@pytest.mark.parametrize(("make", "cfg"), [(rapa_nui_v0.env, {"num_players": 4}),
                                           (positano_v0.env, {"num_players": 3}),
                                           (positano_v0.env, {"num_players": 3, "split_bids": True})],
                         ids=["rapa_nui_4p", "positano_3p", "positano_3p_split"])
def test_aec_round_trip_plays_on_identically(make, cfg):
    env = make(**cfg)
    env.reset(seed=8)

    def play(e, rng, steps):
        out = []
        for agent in e.agent_iter(steps):
            obs, reward, terminated, truncated, info = e.last()
            action = None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"])))
            out.append((agent, obs, reward, terminated, truncated, info, action))
            e.step(action)
        return out

    play(env, np.random.default_rng(0), 30)
    copies = [pickle.loads(pickle.dumps(env)), copy.deepcopy(env)]
    expected = play(env, np.random.default_rng(3), 10_000)  # to the end of the game
    assert expected[-1][3]  # the game ended
    for clone in copies:
        got = play(clone, np.random.default_rng(3), 10_000)
        assert len(got) == len(expected)
        for row, other in zip(expected, got, strict=True):
            for a, b in zip(row, other, strict=True):
                _same(a, b)


def test_parallel_round_trip_plays_on_identically():
    env = positano_v0.parallel_env(num_players=3)
    obs, _ = env.reset(seed=4)

    def play(e, obs, rng):
        out = []
        while e.agents:
            actions = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in e.agents}
            obs, rewards, terms, truncs, infos = e.step(actions)
            out.append((actions, obs, rewards, terms, truncs, infos))
        return out

    for _ in range(10):
        obs, *_ = env.step({a: int(np.flatnonzero(obs[a]["action_mask"])[0]) for a in env.agents})
    copies = [pickle.loads(pickle.dumps(env)), copy.deepcopy(env)]
    expected = play(env, obs, np.random.default_rng(6))
    for clone in copies:
        got = play(clone, obs, np.random.default_rng(6))
        assert len(got) == len(expected)
        for row, other in zip(expected, got, strict=True):
            for a, b in zip(row, other, strict=True):
                _same(a, b)
