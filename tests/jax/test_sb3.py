"""The SB3 VecEnv over the batched engines: MaskablePPO trains on it and never picks an illegal
action."""

from __future__ import annotations

import numpy as np
import pytest

sb3_contrib = pytest.importorskip("sb3_contrib", reason="the train extra provides sb3-contrib")

from sb3_contrib import MaskablePPO  # noqa: E402
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported  # noqa: E402

from tabletop_gym.jax.sb3 import BatchedVecEnv  # noqa: E402


class _Checked(BatchedVecEnv):
    """Counts actions that were not legal when the policy chose them."""

    illegal = 0
    steps = 0

    def step_async(self, actions):
        masks = self.action_masks()
        a = np.asarray(actions).reshape(-1)
        self.illegal += int((~masks[np.arange(self.num_envs), a]).sum())
        self.steps += 1
        super().step_async(actions)


def test_maskable_ppo_reads_the_masks_and_trains_on_positano():
    env = _Checked("positano", num_envs=8, seed=1, num_players=2, reward_type="win_loss")
    assert is_masking_supported(env)
    obs = env.reset()
    assert obs.shape == (8, 1392)
    masks = get_action_masks(env)
    # docs/rules/positano.md §3.1: every game opens with seat 0's bid, any of 7 cards with any of 6 boosters.
    assert masks.shape == (8, 192) and masks.sum(1).tolist() == [42] * 8
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=64, n_epochs=1, seed=0,
                        policy_kwargs={"net_arch": [32]}, device="cpu")
    model.learn(total_timesteps=8 * 32 * 2)
    assert env.steps == 64 and env.illegal == 0


def test_step_reports_the_movers_reward_when_a_game_ends():
    env = BatchedVecEnv("positano", num_envs=8, seed=2, num_players=2, reward_type="win_loss")
    env.reset()
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(140):  # a 2-player game takes 60-80 decisions (bids entered one per seat)
        masks = env.action_masks()
        movers = [int(i) for i in env.vector._player]
        env.step_async(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        obs, reward, done, infos = env.step_wait()
        for i in np.flatnonzero(done):
            ended += 1
            assert reward[i] == infos[i]["rewards"][movers[i]]
            assert sorted(infos[i]["rewards"].tolist()) in ([-1.0, 1.0], [0.0, 0.0])
        assert not reward[~done].any()
    assert ended >= 8
