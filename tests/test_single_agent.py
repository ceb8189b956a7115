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


# --- opponents handed the parts of their observation ------------------------------------------


_CHOOSE = object()


class _PartsSpy:
    """An opponent deciding from ``act_on(vector, legal)``; records what it was handed."""

    def __init__(self, answer=_CHOOSE, blind=False):
        self.answer = answer
        self.forced_moves_blind = blind
        self.seen = []
        self.rng = np.random.default_rng(0)

    def act(self, observation):  # the dict path: never taken for an act_on agent
        raise AssertionError("an opponent with act_on must be handed the parts")

    def act_on(self, vector, legal):
        self.seen.append((vector.copy(), tuple(legal)))
        if self.answer is not _CHOOSE:
            return self.answer
        return int(legal[self.rng.integers(len(legal))])


def _run(env, seed, steps, rng_seed=0):
    """Everything the env hands out over ``steps`` learner steps with a seeded random learner."""
    rng = np.random.default_rng(rng_seed)
    out = []
    obs, info = env.reset(seed=seed)
    out.append((obs.tolist(), sorted((k, repr(v)) for k, v in info.items())))
    for _ in range(steps):
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, reward, terminated, truncated, info = env.step(action)
        out.append((obs.tolist(), reward, terminated, truncated,
                    sorted((k, repr(v)) for k, v in info.items()), env.record().actions))
        if terminated:
            obs, info = env.reset()
    return out


CONFIGS = [{}, {"num_players": 3}, {"num_players": 4}, {"info_mode": "stable"},
           {"obs_dtype": "uint16"}, {"num_players": 3, "opponents": ["heuristic", "random"]}]


@pytest.mark.parametrize("kwargs", CONFIGS, ids=str)
def test_heuristic_opponents_handed_parts_play_as_through_their_observation_dict(kwargs):
    # The heuristic bot has act_on: the wrapper hands it its observation vector and legal ids
    # and plays a forced move without observing it. Against the same envs whose opponents get
    # the observation dict (choose_action), every observation, reward, info and recorded
    # action is the same, episode after episode.
    def make():
        return gymnasium.make("RapaNui-v0", seat_mode="rotate", **kwargs).unwrapped

    fast, slow = make(), make()
    original = SingleAgentEnv._build_opponents

    def dict_path(self):
        original(self)
        self._on_parts = {}
        self._blind = set()

    slow._build_opponents = dict_path.__get__(slow)
    assert _run(fast, 3, 400) == _run(slow, 3, 400)
    assert fast._on_parts and "heuristic" in type(next(iter(fast._opponents.values()))).name


def test_an_act_on_opponent_sees_exactly_its_observation_and_mask():
    aec = raw_env("rapa_nui", num_players=3)
    spies = [_PartsSpy(), _PartsSpy()]
    env = SingleAgentEnv(aec, opponents=spies)
    checked = 0
    original = spies[0].act_on

    def check(vector, legal):
        nonlocal checked
        # Handed while it is to act: the parts of observe() for its agent, nothing else.
        full = aec.observe(aec.agent_selection)
        np.testing.assert_array_equal(vector, full["observation"])
        assert tuple(np.flatnonzero(full["action_mask"])) == tuple(legal)
        assert aec.seat_of(aec.agent_selection) != env.learner_seat
        checked += 1
        return original(vector, legal)

    spies[0].act_on = check
    _run(env, 0, 60)
    assert checked > 20


def test_forced_moves_of_a_blind_opponent_are_played_without_asking_it():
    # A forced move (one legal action) of an opponent that says it plays those blind is
    # played at once; one that does not say so is asked every time.
    blind, asked = _PartsSpy(blind=True), _PartsSpy(blind=False)
    for spy in (blind, asked):
        env = SingleAgentEnv(raw_env("rapa_nui", num_players=2), opponents=spy)
        _run(env, 1, 300)
    assert all(len(legal) > 1 for _, legal in blind.seen)
    assert any(len(legal) == 1 for _, legal in asked.seen)
    # A blind flag that is not exactly True does not count.
    odd = _PartsSpy(blind="yes")
    env = SingleAgentEnv(raw_env("rapa_nui", num_players=2), opponents=odd)
    _run(env, 1, 300)
    assert any(len(legal) == 1 for _, legal in odd.seen)


def test_an_opponent_that_needs_the_state_is_not_handed_parts():
    class Searcher(_PartsSpy):
        def act_in(self, state, seat):
            return state.legal_actions(seat)[0]

    spy = Searcher()
    env = SingleAgentEnv(raw_env("rapa_nui", num_players=2), opponents=spy)
    _run(env, 0, 30)
    assert spy.seen == []


def test_reseeded_heuristic_opponents_play_as_new_ones():
    # A named bot that says seed() makes it as good as new (the Rapa Nui heuristic) is kept
    # from episode to episode and reseeded; against an env that builds its opponents afresh
    # at every reset, every step of several episodes is the same. A spec given as an object
    # is never kept (it is the caller's), and set_opponents() forgets the kept bots.
    def make():
        return gymnasium.make("RapaNui-v0", seat_mode="rotate", num_players=3).unwrapped

    kept, fresh = make(), make()
    fresh._build_opponents = lambda: (fresh._kept_bots.clear(),
                                      SingleAgentEnv._build_opponents(fresh))[1]
    assert _run(kept, 5, 500) == _run(fresh, 5, 500)
    bots = dict(kept._kept_bots)
    assert len(bots) == 2
    kept.reset()
    assert all(kept._kept_bots[j] is bots[j] for j in bots)
    kept.set_opponents("heuristic")
    assert kept._kept_bots == {}
    spy = _PartsSpy()
    spy.seed_resets = True
    kept.set_opponents([spy, "random"])
    kept.reset()
    assert kept._kept_bots == {}
