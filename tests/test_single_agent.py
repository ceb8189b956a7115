"""The single-agent Gymnasium view: checkers, masks, opponents, and the learner's own reward."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings

import gymnasium
import numpy as np
import pytest

import tabletop_gym  # noqa: F401 - registers the ids
from tabletop_gym.wrappers.single_agent import SingleAgentEnv
from tests.configs import raw_env

IDS = [("Positano-v0", {}), ("RapaNui-v0", {}), ("Positano-v0", {"num_players": 3}),
       ("RapaNui-v0", {"num_players": 4, "opponents": "random"})]


@pytest.mark.parametrize(("env_id", "kwargs"), IDS, ids=str)
def test_gymnasium_and_sb3_env_checkers_pass(env_id, kwargs):
    from gymnasium.utils.env_checker import check_env
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(gymnasium.make(env_id, **kwargs).unwrapped, skip_render_check=True)
        sb3_check_env(gymnasium.make(env_id, **kwargs))


def test_make_without_import_in_a_fresh_interpreter():
    code = ("import gymnasium; e = gymnasium.make('tabletop_gym:RapaNui-v0'); e.reset(seed=0); "
            "e2 = gymnasium.make('tabletop_gym:Positano-v0'); e2.reset(seed=0); print('ok')")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "ok"


@pytest.mark.parametrize("env_id", ["Positano-v0", "RapaNui-v0"])
def test_action_masks_through_gymnasium_wrappers_match_info(env_id):
    env = gymnasium.make(env_id)
    obs, info = env.reset(seed=3)
    rng = np.random.default_rng(0)
    done = False
    while not done:
        mask = env.get_wrapper_attr("action_masks")()
        assert mask.dtype == bool and mask.any()
        np.testing.assert_array_equal(mask, info["action_mask"].astype(bool))
        assert env.observation_space.contains(obs)
        action = int(rng.choice(np.flatnonzero(mask)))
        obs, reward, terminated, truncated, info = env.step(action)
        done = terminated or truncated
    assert not env.get_wrapper_attr("action_masks")().any()


def _learner_episode(env: SingleAgentEnv, seed: int, rng):
    obs, info = env.reset(seed=seed)
    total, done = 0.0, False
    while not done:
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        obs, reward, terminated, truncated, info = env.step(action)
        total += reward
        done = terminated or truncated
    return total, info


def test_learner_receives_its_own_minus_one_when_an_opponent_ends_the_game():
    # PettingZoo's SB3 tutorial returns the reward of the agent that just moved, so a learner
    # whose game ends on an opponent's move never sees its loss. Here the learner's reward is its
    # own return whoever moved last.
    env = SingleAgentEnv(raw_env("rapa_nui", num_players=2), opponents="random", seat_mode="rotate")
    rng = np.random.default_rng(0)
    losses_on_opponent_move = 0
    for seed in range(60):
        total, info = _learner_episode(env, seed, rng)
        state = env.aec.game_state
        seat = env.learner_seat
        assert total == state.returns()[seat]
        rec = env.record()
        # replay up to the last action to find who made it
        replay = rec.replay(upto=len(rec.actions) - 1)
        if replay.current_player() != seat and seat not in state.winners():
            assert total == -1.0
            losses_on_opponent_move += 1
    assert losses_on_opponent_move >= 5


def test_seat_rotation_and_opponents_see_only_their_own_observation():
    seen = []
    aec = raw_env("rapa_nui", num_players=3)

    def spy(obs):
        seat = aec.seat_of(aec.agent_selection)
        expected = aec.observer.encode(aec.game_state, seat)
        np.testing.assert_array_equal(obs["observation"], expected)
        seen.append(seat)
        return int(np.flatnonzero(obs["action_mask"])[0])

    env = SingleAgentEnv(aec, opponents=spy, seat_mode="rotate")
    rng = np.random.default_rng(1)
    seats = []
    for seed in (0, None, None, 5, None):
        _learner_episode(env, seed, rng)
        seats.append(env.learner_seat)
    # a seeded reset puts the rotation at the seed (mod 3); unseeded resets move on
    assert seats == [0, 1, 2, 2, 0]
    assert seen and all(s in (0, 1, 2) for s in seen)


def test_illegal_learner_action_ends_with_minus_one_or_raises():
    env = SingleAgentEnv(raw_env("rapa_nui", num_players=2), opponents="random")
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    obs, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated) == (-1.0, True)
    assert info["illegal_action"]["action"] == illegal
    env = SingleAgentEnv(raw_env("rapa_nui", num_players=2), opponents="random",
                         illegal_action="raise")
    env.reset(seed=0)
    from tabletop_gym.core.game import IllegalActionError

    with pytest.raises(IllegalActionError):
        env.step(illegal)


def test_bad_arguments_are_clear_errors():
    with pytest.raises(ValueError, match="seat_mode='sideways'"):
        SingleAgentEnv(raw_env("rapa_nui"), seat_mode="sideways")
    with pytest.raises(ValueError, match="one opponent for every other seat"):
        SingleAgentEnv(raw_env("rapa_nui", num_players=3), opponents=["random"])
    with pytest.raises(ValueError, match="unknown opponent 'genius'"):
        env = SingleAgentEnv(raw_env("rapa_nui"), opponents="genius")
        env.reset(seed=0)


def test_dict_observation_type():
    env = gymnasium.make("RapaNui-v0", observation_type="dict")
    obs, _ = env.reset(seed=0)
    assert set(obs) == {"observation", "action_mask"}
    assert env.observation_space.contains(obs)


@pytest.mark.parametrize("env_id", ["Positano-v0", "RapaNui-v0"])
def test_seeded_reset_fixes_every_later_episode(env_id):
    def run(seed):
        env = gymnasium.make(env_id)
        rng = np.random.default_rng(0)
        out = []
        for episode in range(3):
            obs, info = env.reset(seed=seed if episode == 0 else None)
            done = False
            while not done:
                out.append(obs.tobytes())
                action = int(rng.choice(np.flatnonzero(env.get_wrapper_attr("action_masks")())))
                obs, reward, terminated, truncated, info = env.step(action)
                out.append(repr(reward))
                done = terminated or truncated
        return out

    assert run(7) == run(7)
    assert run(7) != run(8)
