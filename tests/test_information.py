"""Information hygiene (docs/design.md): resampling what a seat cannot see changes nothing it sees
(observation, mask, text render, and the text view and move list a language model reads), and in
a flattened bid round nothing about earlier bids reaches later bidders.
"""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest

from tabletop_gym.core.game import SIMULTANEOUS
from tabletop_gym.core.records import make_game
from tabletop_gym.text.view import seat_view
from tests.configs import ENGINE_CONFIGS, config_id, raw_env

STATES_PER_CONFIG = 40


def _mid_game_states(env, n_states: int, seed: int):
    """Random mid-game positions of the env's (sequential) game."""
    rng = np.random.default_rng(seed)
    out = []
    episode = 0
    while len(out) < n_states:
        env.reset(seed=seed * 1000 + episode)
        episode += 1
        stop = int(rng.integers(1, 120))
        for _ in range(stop):
            if env.game_state.is_terminal():
                break
            obs = env.observe(env.agent_selection)
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        if not env.game_state.is_terminal():
            out.append(env.game_state.clone())
    return out


@pytest.mark.parametrize("item", ENGINE_CONFIGS, ids=config_id)
def test_resampling_hidden_information_leaves_observation_and_mask_identical(item):
    game, cfg = item
    env = raw_env(game, **cfg)
    rng = random.Random(0)
    changed = 0
    checked = 0
    for state in _mid_game_states(env, STATES_PER_CONFIG, seed=1):
        for p in range(env.game.num_players):
            obs = env.observer.encode(state, p)
            mask = env.observer.action_mask(state, p)
            text = type(env).renderer(state, p)
            # what a language model reads: the seat's text view and its move list
            view = seat_view(state, p, type(env).renderer)
            for _ in range(3):
                other = state.resample_hidden(p, rng)
                np.testing.assert_array_equal(env.observer.encode(other, p), obs)
                np.testing.assert_array_equal(env.observer.action_mask(other, p), mask)
                assert type(env).renderer(other, p) == text
                assert seat_view(other, p, type(env).renderer) == view
                changed += other.to_dict() != state.to_dict()
                checked += 1
    # the resampler really moves hidden things around (otherwise the test proves nothing)
    assert changed > checked // 4


def _bid_round_envs(cfg, n_states, seed):
    """AEC envs standing at the first bidder of a flattened bid round."""
    env = raw_env("positano", **cfg)
    rng = np.random.default_rng(seed)
    found = []
    episode = 0
    while len(found) < n_states:
        env.reset(seed=seed + episode)
        episode += 1
        target_round = int(rng.integers(1, 4))
        rounds_seen = 0
        while not env.game_state.is_terminal():
            st = env.game_state
            if st.is_bid_round() and all(p is None for p in st.pending):
                rounds_seen += 1
                if rounds_seen == target_round:
                    found.append(copy.deepcopy(env))
                    break
            obs = env.observe(env.agent_selection)
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return found


def _channels(env, agent):
    obs = env.observe(agent)
    return (
        obs["observation"].tobytes(),
        obs["action_mask"].tobytes(),
        repr(sorted((k, v.tobytes() if hasattr(v, "tobytes") else v)
                    for k, v in env.infos[agent].items())),
        env.render(),
        env.agent_selection,
        repr(env.rewards),
        repr(env.terminations),
    )


@pytest.mark.parametrize("n", [2, 3, 4, 6])
@pytest.mark.parametrize("split", [False, True])
def test_no_leak_of_pending_bids(n, split):
    cfg = {"num_players": n}
    checked = 0
    for base in _bid_round_envs(cfg, 12, seed=100 * n):
        base = copy.deepcopy(base)
        base.unwrapped.render_mode = "ansi"
        if split:
            st = base.game_state
            base = raw_env("positano", split_bids=True, render_mode="ansi", **cfg)
            base.reset(options={"state": base.game.wrap(st.inner)})
        rng = np.random.default_rng(checked)
        # k earlier bidders commit varying bids; every later seat must see the same thing
        for k in range(1, n):
            views = []
            for _trial in range(4):
                env = copy.deepcopy(base)
                for _ in range(k * (2 if split else 1)):
                    obs = env.observe(env.agent_selection)
                    env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
                later = [a for a in env.possible_agents if env.seat_of(a) >= k]
                views.append({a: _channels(env, a) for a in later})
                checked += 1
            for v in views[1:]:
                assert v == views[0], f"earlier bids leaked to later bidders ({n}p, k={k})"
    assert checked == 12 * (n - 1) * 4


@pytest.mark.parametrize("cfg", [{"num_players": n} for n in (2, 3, 4, 5, 6)], ids=str)
def test_lockstep_equivalence_of_flattened_and_simultaneous_bids(cfg):
    sim = make_game("positano", cfg)
    flat = make_game("positano", cfg, "turn_based")
    for seed in range(10):
        a = sim.new_initial_state(random.Random(seed))
        b = flat.new_initial_state(random.Random(seed))
        rng = random.Random(seed)
        while not a.is_terminal():
            if a.current_player() == SIMULTANEOUS:
                joint = [rng.choice(a.legal_actions(p)) for p in range(sim.num_players)]
                a.apply_joint_action(joint)
                for p, act in enumerate(joint):
                    assert b.current_player() == p
                    b.apply_action(act)
            else:
                act = rng.choice(a.legal_actions())
                a.apply_action(act)
                b.apply_action(act)
            assert b.inner == a
        assert b.is_terminal() and b.scores() == a.scores()


def test_split_bids_reach_the_same_states_as_pair_bids():
    pair = make_game("positano", {"num_players": 3}, "turn_based")
    split = make_game("positano", {"num_players": 3}, "turn_based_split")
    for seed in range(5):
        a = pair.new_initial_state(random.Random(seed))
        b = split.new_initial_state(random.Random(seed))
        rng = random.Random(seed)
        while not a.is_terminal():
            act = rng.choice(a.legal_actions())
            if act < 42:  # a (card, booster) pair: two sub-decisions
                b.apply_action(42 + act // 6)
                b.apply_action(49 + act % 6)
            else:
                b.apply_action(act)
            a.apply_action(act)
            assert b.inner == a.inner
