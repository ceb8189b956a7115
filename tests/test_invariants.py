"""Invariants over many seeded random games for every configuration (docs/design.md, "Tests").

Engine level, ≥ 1,000 games per configuration (split into chunks so two workers share them):
legal actions sorted, unique and in range; component conservation and bounds after every step
(``check_invariants``); the game length bound; score and return bounds; JSON and clone
round-trips at random points. Env level, fewer games: observation in its space and the mask equal
to the legal set for the agent to act, zeros for everyone else.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from tabletop_gym.core.game import SIMULTANEOUS
from tabletop_gym.core.records import make_game
from tests.configs import ENGINE_CONFIGS, config_id, raw_env

GAMES_PER_CONFIG = 1000
CHUNKS = 4


def _random_game(game, seed: int, check_every: int = 1):
    rng = random.Random(seed)
    state = game.new_initial_state(rng)
    n_actions = game.num_distinct_actions
    steps = 0
    state.check_invariants()
    while not state.is_terminal():
        if state.current_player() == SIMULTANEOUS:
            joint = []
            for p in range(game.num_players):
                legal = state.legal_actions(p)
                joint.append(rng.choice(legal) if legal else None)
            state.apply_joint_action(joint)
        else:
            legal = state.legal_actions()
            assert legal, f"no legal action in phase {state.phase()}"
            assert legal == sorted(set(legal)) and legal[0] >= 0 and legal[-1] < n_actions
            state.apply_action(rng.choice(legal))
        steps += 1
        if steps % check_every == 0:
            state.check_invariants()
        if rng.random() < 0.01:
            assert game.state_from_json(state.to_json()) == state
            assert state.clone() == state
    state.check_invariants()
    return state, steps


@pytest.mark.parametrize("chunk", range(CHUNKS))
@pytest.mark.parametrize("item", ENGINE_CONFIGS, ids=config_id)
def test_random_games_keep_invariants(item, chunk):
    name, cfg = item
    game = make_game(name, cfg)
    lo, hi = game.score_bounds
    rlo, rhi = game.return_bounds()
    per_chunk = GAMES_PER_CONFIG // CHUNKS
    lengths = []
    for g in range(chunk * per_chunk, (chunk + 1) * per_chunk):
        state, steps = _random_game(game, seed=g)
        lengths.append(steps)
        assert steps <= game.max_game_length
        for s in state.scores():
            assert lo <= s <= hi
        rets = state.returns()
        for r in rets:
            assert rlo <= r <= rhi
        if game.num_players == 2 and cfg.get("reward_type", "win_loss") == "win_loss":
            assert sum(rets) == 0
        winners = state.winners()
        best = max(state.scores())
        assert winners and all(state.scores()[w] == best for w in winners)
    assert len(lengths) == per_chunk


@pytest.mark.parametrize("item", ENGINE_CONFIGS, ids=config_id)
def test_env_observations_in_space_and_mask_equals_legal_set(item):
    name, cfg = item
    env = raw_env(name, **cfg)
    space = env.observation_space(env.possible_agents[0])
    rng = np.random.default_rng(0)
    for episode in range(20):
        env.reset(seed=episode)
        while not env.game_state.is_terminal():
            acting = env.agent_selection
            for agent in env.possible_agents:
                obs = env.observe(agent)
                assert obs["observation"].dtype == np.float32
                assert obs["action_mask"].dtype == np.int8
                assert np.isfinite(obs["observation"]).all()
                assert space.contains(obs), (agent, env.game_state.phase())
                legal = env.game_state.legal_actions(env.seat_of(agent))
                expected = np.zeros(space["action_mask"].shape, dtype=np.int8)
                expected[legal] = 1
                np.testing.assert_array_equal(obs["action_mask"], expected)
                if agent != acting:
                    assert not obs["action_mask"].any()
            obs = env.observe(acting)
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
