"""Tianshou: PettingZooEnv over both games and a short masked DQN training run against random.

Regression test of finding 5 (Tianshou's buffers need infos with stable keys) in
docs/libraries.md.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from tianshou.algorithm import (
    DQN,
    MARLRandomDiscreteMaskedOffPolicyAlgorithm,
    MultiAgentOffPolicyAlgorithm,
)
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, CollectStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

from tabletop_gym.integrations.tianshou import tianshou_env

CASES = [("rapa_nui", {"num_players": 2}), ("positano", {"num_players": 2})]


@pytest.mark.parametrize(("game", "cfg"), CASES, ids=[g for g, _ in CASES])
def test_pettingzoo_env_hands_policies_the_mask_of_the_agent_to_act(game, cfg):
    env = tianshou_env(game, **cfg)
    obs, info = env.reset(seed=3)
    inner = env.env.unwrapped
    agent = inner.agent_selection
    assert obs["agent_id"] == agent
    assert np.flatnonzero(obs["mask"]).tolist() == inner.legal_actions(agent)
    np.testing.assert_array_equal(obs["obs"], inner.observe(agent)["observation"])
    assert set(info) == {"is_acting", "phase", "game_over", "scores", "winners",
                         "illegal_action"}


@pytest.mark.parametrize(("game", "cfg"), CASES, ids=[g for g, _ in CASES])
def test_short_masked_dqn_training_against_random(game, cfg):
    torch.manual_seed(0)
    torch.set_num_threads(1)
    env = tianshou_env(game, **cfg)
    space = env.observation_space["observation"]
    net = Net(state_shape=space.shape, action_shape=env.action_space.n, hidden_sizes=[64])
    policy = DiscreteQLearningPolicy(model=net, action_space=env.action_space,
                                     eps_training=0.2, eps_inference=0.0)
    learner = DQN(policy=policy, optim=AdamOptimizerFactory(lr=1e-3), gamma=0.99,
                  n_step_return_horizon=1, target_update_freq=50)
    others = [MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
              for _ in range(cfg["num_players"] - 1)]
    algorithm = MultiAgentOffPolicyAlgorithm(algorithms=[learner, *others], env=env)
    train_envs = DummyVectorEnv([lambda: tianshou_env(game, **cfg)])
    test_envs = DummyVectorEnv([lambda: tianshou_env(game, **cfg)])
    train_envs.seed(0)
    test_envs.seed(1)
    buffer = VectorReplayBuffer(1_000, 1)
    train = Collector[CollectStats](algorithm, train_envs, buffer, exploration_noise=True)
    test = Collector[CollectStats](algorithm, test_envs, exploration_noise=True)
    train.reset()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Tianshou's stats notes about 2-d reward arrays
        result = algorithm.run_training(OffPolicyTrainerParams(
            training_collector=train, test_collector=test, max_epochs=1, epoch_num_steps=300,
            collection_step_num_env_steps=30, test_step_num_episodes=1, batch_size=32,
            update_step_num_gradient_steps_per_sample=0.1, show_progress=False, verbose=False,
            multi_agent_return_reduction=lambda rew: rew[:, 0],
        ))
    assert result.train_step == 300 and result.update_step >= 1
    stored = buffer.sample_indices(0)
    assert len(stored) == 300
    info = buffer.info[stored]
    # no illegal action in 300 masked steps, and finished games paid the env's own returns
    assert (info.illegal_action == -1).all()
    ends = np.flatnonzero(buffer.terminated[stored])
    assert len(ends) >= 1
    for i in ends:
        winners = info.winners[i]
        # win_loss returns (design §engine contract): +1 each winner, -1 everyone else
        expected = np.where(winners == 1, 1.0, -1.0) if 0 < winners.sum() < len(winners) \
            else np.zeros(len(winners))
        np.testing.assert_array_equal(buffer.rew[stored][i], expected)
