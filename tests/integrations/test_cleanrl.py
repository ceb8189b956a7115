"""A CleanRL-style masked PPO loop on ``gymnasium.make_vec``, for both games.

The loop is what people write after CleanRL's ``ppo.py`` with invalid-action masking: logits of
illegal actions set to ``-inf`` before the categorical. At the autoreset step of a vector env the
mask is all zeros (docs/libraries.md, finding 9), so the mask goes through ``safe_mask`` first.
The test asserts that no illegal action was taken and that each episode's summed rewards equal
the env's own final result (``reward_type="score"``: the return is the learner's final score).
"""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
import torch
from torch import nn
from torch.distributions import Categorical

import tabletop_gym  # noqa: F401 - registers the ids
from tabletop_gym.integrations import safe_mask
from tabletop_gym.wrappers.single_agent import IllegalActionWarning

CASES = [("Positano-v0", {"num_players": 2, "opponents": "random"}),
         ("RapaNui-v0", {"num_players": 2, "opponents": "random"})]


class Agent(nn.Module):
    def __init__(self, obs_dim: int, n_actions: int):
        super().__init__()
        self.critic = nn.Sequential(nn.Linear(obs_dim, 64), nn.Tanh(), nn.Linear(64, 1))
        self.actor = nn.Sequential(nn.Linear(obs_dim, 64), nn.Tanh(), nn.Linear(64, n_actions))

    def get_value(self, x):
        return self.critic(x)

    def get_action_and_value(self, x, mask, action=None):
        logits = self.actor(x).masked_fill(~mask, float("-inf"))
        probs = Categorical(logits=logits)
        if action is None:
            action = probs.sample()
        return action, probs.log_prob(action), probs.entropy(), self.critic(x)


@pytest.mark.parametrize(("env_id", "cfg"), CASES, ids=[c[0] for c in CASES])
def test_masked_ppo_loop_on_make_vec(env_id, cfg):
    torch.manual_seed(0)
    torch.set_num_threads(1)
    num_envs, num_steps, updates = 2, 128, 2
    envs = gymnasium.make_vec(env_id, num_envs=num_envs, vectorization_mode="sync",
                              reward_type="score", **cfg)
    obs_dim = envs.single_observation_space.shape[0]
    n_actions = envs.single_action_space.n
    agent = Agent(obs_dim, n_actions)
    optimizer = torch.optim.Adam(agent.parameters(), lr=2.5e-4)

    obs_buf = torch.zeros((num_steps, num_envs, obs_dim))
    mask_buf = torch.zeros((num_steps, num_envs, n_actions), dtype=torch.bool)
    act_buf = torch.zeros((num_steps, num_envs), dtype=torch.long)
    logp_buf = torch.zeros((num_steps, num_envs))
    rew_buf = torch.zeros((num_steps, num_envs))
    done_buf = torch.zeros((num_steps, num_envs))
    val_buf = torch.zeros((num_steps, num_envs))

    next_obs, info = envs.reset(seed=0)
    next_obs = torch.as_tensor(next_obs)
    next_mask = info["action_mask"]
    next_done = torch.zeros(num_envs)
    running = np.zeros(num_envs)
    finished = []
    with warnings.catch_warnings():
        warnings.simplefilter("error", IllegalActionWarning)  # an illegal action fails the test
        for _ in range(updates):
            for step in range(num_steps):
                obs_buf[step], done_buf[step] = next_obs, next_done
                allowed = torch.as_tensor(safe_mask(next_mask))
                mask_buf[step] = allowed
                with torch.no_grad():
                    action, logp, _, value = agent.get_action_and_value(next_obs, allowed)
                val_buf[step], act_buf[step], logp_buf[step] = value.flatten(), action, logp
                # every action of a live episode is legal; at autoreset steps it is ignored
                live = next_mask.any(axis=1)
                chosen = action.numpy()
                assert next_mask[live, chosen[live]].all()
                next_obs, reward, term, trunc, info = envs.step(chosen)
                assert "illegal_action" not in info
                running[live] += reward[live]
                for i in np.flatnonzero(term | trunc):
                    seat = int(info["seat"][i])
                    final_score = info["scores"][f"player_{seat}"][i]  # vector infos: key, env
                    finished.append((running[i], final_score))
                    running[i] = 0.0
                rew_buf[step] = torch.as_tensor(reward, dtype=torch.float32)
                next_obs = torch.as_tensor(next_obs)
                next_done = torch.as_tensor(term | trunc, dtype=torch.float32)
                next_mask = info["action_mask"]
            # generalised advantage estimation and one clipped PPO epoch, as in CleanRL
            with torch.no_grad():
                next_value = agent.get_value(next_obs).flatten()
                adv = torch.zeros_like(rew_buf)
                last = torch.zeros(num_envs)
                for t in reversed(range(num_steps)):
                    nonterminal = 1.0 - (next_done if t == num_steps - 1 else done_buf[t + 1])
                    nxt = next_value if t == num_steps - 1 else val_buf[t + 1]
                    delta = rew_buf[t] + 0.99 * nxt * nonterminal - val_buf[t]
                    last = delta + 0.99 * 0.95 * nonterminal * last
                    adv[t] = last
                ret = adv + val_buf
            _, newlogp, entropy, newval = agent.get_action_and_value(
                obs_buf.reshape(-1, obs_dim), mask_buf.reshape(-1, n_actions), act_buf.flatten())
            ratio = (newlogp - logp_buf.flatten()).exp()
            a = adv.flatten()
            a = (a - a.mean()) / (a.std() + 1e-8)
            pg_loss = torch.max(-a * ratio, -a * ratio.clamp(0.8, 1.2)).mean()
            v_loss = 0.5 * ((newval.flatten() - ret.flatten()) ** 2).mean()
            loss = pg_loss + 0.5 * v_loss - 0.01 * entropy.mean()
            assert torch.isfinite(loss)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    envs.close()
    assert len(finished) >= 2
    for episode_return, final_score in finished:
        assert episode_return == pytest.approx(final_score)
