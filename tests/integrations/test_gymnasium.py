"""Gymnasium: the env checker in every seat mode, make_vec (sync and async), masks at autoreset,
what reaches the env through ``gymnasium.make``'s wrappers, and the warn-once on illegal actions.

Regression tests of findings 2 (attributes through ``gymnasium.make``), 3 (``seat_mode="rotate"``
and the seeding contract), 8 (unmasked agents warned) and 9 (the all-zero mask at autoreset) in
docs/libraries.md. Core dependencies only: also run on the oldest gymnasium/pettingzoo we claim.
"""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import tabletop_gym  # noqa: F401 - registers the ids
from tabletop_gym.integrations import safe_mask
from tabletop_gym.wrappers.single_agent import IllegalActionWarning

GAMES = [("Positano-v0", {"num_players": 2}), ("RapaNui-v0", {"num_players": 3})]
IDS = [g for g, _ in GAMES]


@pytest.mark.parametrize("seat_mode", ["fixed", "rotate", "random"])
@pytest.mark.parametrize(("env_id", "cfg"), GAMES, ids=IDS)
def test_check_env_passes_in_every_seat_mode(env_id, cfg, seat_mode):
    # Finding 3: with seat_mode="rotate", reset(seed=0) twice gave different seats and
    # check_env failed its determinism check.
    env = gymnasium.make(env_id, seat_mode=seat_mode, opponents="random", **cfg)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(env.unwrapped, skip_render_check=True)


@pytest.mark.parametrize(("env_id", "cfg"), GAMES, ids=IDS)
def test_a_seed_fixes_the_seat_in_rotate_mode(env_id, cfg):
    env = gymnasium.make(env_id, seat_mode="rotate", opponents="random", **cfg)
    n = cfg["num_players"]
    seats = []
    for seed in (0, None, None, 0, None, 5, 5, None):
        _, info = env.reset(seed=seed)
        seats.append(info["seat"])
    # a seeded reset plays seat seed mod n, and each unseeded reset one seat further
    assert seats == [0, 1 % n, 2 % n, 0, 1 % n, 5 % n, 5 % n, 6 % n]
    obs_a, _ = env.reset(seed=3)
    obs_b, _ = env.reset(seed=3)
    np.testing.assert_array_equal(obs_a, obs_b)


@pytest.mark.parametrize("env_id", ["Positano-v0", "RapaNui-v0"])
def test_what_reaches_the_env_through_gymnasium_make(env_id):
    # Finding 2: Gymnasium 1.x wrappers do not forward attributes, so env.action_masks() and
    # env.set_opponents() raise AttributeError on what gymnasium.make returns. These three ways
    # work (docs/libraries.md).
    env = gymnasium.make(env_id)
    _, info = env.reset(seed=0)
    with pytest.raises(AttributeError):
        env.action_masks  # noqa: B018 - the attribute access is what is tested
    expected = info["action_mask"].astype(bool)
    np.testing.assert_array_equal(env.get_wrapper_attr("action_masks")(), expected)
    np.testing.assert_array_equal(env.unwrapped.action_masks(), expected)
    env.get_wrapper_attr("set_opponents")("random")
    assert env.unwrapped._opponent_specs == ["random"] * (env.unwrapped.num_players - 1)


def _run_vec(envs, steps, seed):
    """Random masked play on a vector env; counts autoreset steps with an all-zero mask."""
    rng = np.random.default_rng(seed)
    obs, info = envs.reset(seed=seed)
    zero_rows = 0
    episodes = 0
    for _ in range(steps):
        mask = info["action_mask"]
        zero_rows += int((~mask.any(axis=1)).sum())
        allowed = safe_mask(mask)
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in allowed])
        obs, rewards, term, trunc, info = envs.step(actions)
        assert envs.single_observation_space.contains(obs[0])
        episodes += int((term | trunc).sum())
    return zero_rows, episodes


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize(("env_id", "cfg"), GAMES, ids=IDS)
def test_make_vec_sync_and_async_with_masks_at_autoreset(env_id, cfg, mode):
    # Finding 9: after an episode ends, the next step of a NEXT_STEP-autoreset vector env hands
    # over the final observation's mask, all zeros; safe_mask turns that row into all-ones.
    envs = gymnasium.make_vec(env_id, num_envs=2, vectorization_mode=mode,
                              opponents="random", **cfg)
    try:
        zero_rows, episodes = _run_vec(envs, 400 if env_id == "RapaNui-v0" else 250, seed=1)
    finally:
        envs.close()
    assert episodes >= 1
    assert zero_rows == episodes  # exactly one all-zero mask per finished episode


def test_safe_mask_rows():
    mask = np.array([[0, 1, 1], [0, 0, 0]], dtype=np.int8)
    out = safe_mask(mask)
    assert out.dtype == bool
    assert out.tolist() == [[False, True, True], [True, True, True]]
    assert mask.tolist() == [[0, 1, 1], [0, 0, 0]]  # the input is not changed
    assert safe_mask(np.zeros(4, np.int8)).tolist() == [True] * 4
    # a masked softmax over a safe mask has no NaN
    logits = np.where(out, 0.0, -np.inf)
    probs = np.exp(logits - logits.max(axis=1, keepdims=True))
    assert not np.isnan(probs / probs.sum(axis=1, keepdims=True)).any()


@pytest.mark.parametrize("env_id", ["Positano-v0", "RapaNui-v0"])
def test_the_first_illegal_action_of_an_env_warns_once(env_id):
    # Finding 8: unmasked agents used to get one-step episodes ending at -1 with no word.
    env = gymnasium.make(env_id)
    _, info = env.reset(seed=0)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    legal = np.flatnonzero(info["action_mask"]).tolist()
    with pytest.warns(IllegalActionWarning) as record:
        _, reward, terminated, _, _ = env.step(illegal)
    assert reward == -1.0 and terminated
    message = str(record[0].message)
    assert f"illegal action {illegal}" in message
    assert str(legal[:5])[1:-1] in message  # the legal set is named
    assert "action_masks" in message and "info['action_mask']" in message
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a second warning would raise here
        for seed in (1, 2):
            _, info = env.reset(seed=seed)
            env.step(int(np.flatnonzero(info["action_mask"] == 0)[0]))
    # a fresh env warns again
    fresh = gymnasium.make(env_id)
    _, info = fresh.reset(seed=0)
    with pytest.warns(IllegalActionWarning):
        fresh.step(illegal)


@pytest.mark.parametrize("env_id", ["Positano-v0", "RapaNui-v0"])
def test_stable_infos_through_gymnasium_make(env_id):
    env = gymnasium.make(env_id, info_mode="stable")
    _, info = env.reset(seed=4)
    keys = set(info)
    assert keys == {"action_mask", "seat", "is_acting", "phase", "game_over", "scores",
                    "winners", "illegal_action"}
    rng = np.random.default_rng(4)
    done = False
    while not done:
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        _, reward, terminated, truncated, info = env.step(action)
        assert set(info) == keys and isinstance(info["phase"], int)
        done = terminated or truncated
    assert info["game_over"]
    state = env.unwrapped.aec.game_state
    np.testing.assert_array_equal(info["scores"], np.asarray(state.scores(), np.float32))


@pytest.mark.parametrize("env_id", ["Positano-v0", "RapaNui-v0"])
def test_stable_infos_share_nothing_gymnasium_warns_about(env_id):
    # Issue 39 item 11: the read-only all-zero scores and winners were one pair of arrays for
    # the whole episode, so Gymnasium's passive checker warned after reset and one step.
    env = gymnasium.make(env_id, info_mode="stable")
    rng = np.random.default_rng(5)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _, info = env.reset(seed=5)
        held = [info]
        for _ in range(6):
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            _, _, terminated, truncated, info = env.step(action)
            held.append(info)
            assert not (terminated or truncated)
    assert [str(w.message) for w in caught] == []
    for i, a in enumerate(held):
        assert not a["scores"].flags.writeable and not a["winners"].flags.writeable
        assert not a["scores"].any() and not a["winners"].any()
        for b in held[i + 1:]:
            assert not np.shares_memory(a["scores"], b["scores"])
            assert not np.shares_memory(a["winners"], b["winners"])
