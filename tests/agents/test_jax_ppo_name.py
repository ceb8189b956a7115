"""``jax-ppo``: the shipped from-scratch policies load by name and play legal games (numpy only)."""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_gym.agents.base import jax_checkpoint_path, make_agent
from tabletop_gym.agents.jax_policy import load_policy
from tabletop_gym.envs.positano.env import raw_env as positano_env
from tabletop_gym.envs.rapa_nui.env import raw_env as rapa_nui_env
from tests.legal_play import play_legal_game

ENVS = {"positano": positano_env, "rapa_nui": rapa_nui_env}


@pytest.mark.parametrize("game", sorted(ENVS))
def test_jax_ppo_plays_a_legal_game_by_name(game):
    env = ENVS[game](num_players=2)
    agent = make_agent("jax-ppo", env.game, env.observer, np.random.default_rng(0))
    assert agent.name == "jax-ppo"
    assert play_legal_game(env, agent, seed=4) > 0 and env.game_state.is_terminal()


@pytest.mark.parametrize("game", sorted(ENVS))
def test_the_shipped_policy_was_trained_from_scratch_by_the_recipe(game):
    _arrays, meta = load_policy(jax_checkpoint_path(game, 2))
    # The jax-ppo recipe: masked PPO against the distilled heuristic, no heuristic input (the
    # network reads the observation alone) and no search labels, 2,000,000 learner steps.
    assert meta["algorithm"] == "masked PPO (tabletop_gym.jax.train)"
    assert meta["train"]["opponents"] == "heuristic-net"
    assert meta["learner_steps"] >= 2_000_000
    assert meta["game"] == game and meta["num_players"] == 2


def test_no_policy_for_another_table_size_says_what_is_shipped():
    env = rapa_nui_env(num_players=4)
    with pytest.raises(ValueError, match=r"no jax-ppo policy for rapa_nui with 4 player\(s\); "
                       r"shipped: \['jax_ppo_positano_2p', 'jax_ppo_rapa_nui_2p'\]"):
        make_agent("jax-ppo", env.game, env.observer)
