"""RLlib: PPO with ``ActionMaskingTorchRLModule`` on both games, AEC (``PettingZooEnv``) and
parallel (``ParallelPettingZooEnv``), two training iterations each, one policy shared by all seats.

RLlib pins gymnasium, so ``make test`` runs this file in ``.venv-rllib`` (docs/libraries.md).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
    ActionMaskingTorchRLModule,
)
from ray.tune.registry import register_env

from tabletop_gym.integrations.rllib import rllib_env

CASES = [("rapa_nui", {"num_players": 2}), ("positano", {"num_players": 2})]


@pytest.mark.parametrize("parallel", [False, True], ids=["aec", "parallel"])
@pytest.mark.parametrize(("game", "cfg"), CASES, ids=[g for g, _ in CASES])
def test_env_observes_the_mask_under_rllibs_keys(game, cfg, parallel):
    env = rllib_env(game, parallel=parallel, **cfg)
    obs, _ = env.reset(seed=0)
    inner = env.get_sub_environments
    for agent, o in obs.items():
        assert set(o) == {"observations", "action_mask"}
        assert env.observation_space[agent].contains(o)
    if not parallel:
        (agent,) = obs  # only the agent to act observes
        assert np.flatnonzero(obs[agent]["action_mask"]).tolist() == inner.legal_actions(agent)


def _ppo(game, cfg, parallel):
    name = f"{game}-{'par' if parallel else 'aec'}"
    register_env(name, lambda env_cfg: rllib_env(game, parallel=parallel, **env_cfg))
    spec = RLModuleSpec(module_class=ActionMaskingTorchRLModule,
                        model_config={"head_fcnet_hiddens": [32], "fcnet_hiddens": [32]})
    return (
        PPOConfig()
        # RLlib's env checker steps one random action that ignores the mask; that game ends with
        # -1 and a warning (harmless, docs/libraries.md). Off here so that any illegal action
        # during training fails the test.
        .environment(name, env_config=cfg, disable_env_checking=True)
        .multi_agent(policies={"shared"}, policy_mapping_fn=lambda agent_id, *a, **k: "shared")
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={"shared": spec}))
        .env_runners(num_env_runners=0)
        .training(train_batch_size_per_learner=256, minibatch_size=64, num_epochs=1)
        .debugging(seed=0)
        .build_algo()
    )


@pytest.mark.parametrize("parallel", [False, True], ids=["aec", "parallel"])
@pytest.mark.parametrize(("game", "cfg"), CASES, ids=[g for g, _ in CASES])
def test_ppo_with_the_action_masking_module_trains_two_iterations(game, cfg, parallel):
    algo = _ppo(game, cfg, parallel)
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("error", message=".*illegal action")
            for i in range(2):
                result = algo.train()
                assert result["training_iteration"] == i + 1
        runners = result["env_runners"]
        assert runners["num_env_steps_sampled_lifetime"] >= 512
        # The trained module plays a whole game greedily without an illegal action: one would
        # end it with -1 for the offender and 0 for the other, while the game's own win_loss
        # returns are +1 and -1, or 0 for both when tied.
        module = algo.get_module("shared")
        assert isinstance(module, ActionMaskingTorchRLModule)
        env = rllib_env(game, parallel=parallel, **cfg)
        obs, _ = env.reset(seed=1)
        import torch

        done = False
        totals = dict.fromkeys(env.possible_agents, 0.0)
        while not done:
            batch = {"obs": {k: torch.as_tensor(np.stack([o[k] for o in obs.values()]))
                             for k in ("observations", "action_mask")}}
            out = module.forward_inference(batch)
            logits = out["action_dist_inputs"]
            actions = dict(zip(obs, logits.argmax(-1).tolist(), strict=True))
            for agent, act in actions.items():
                assert obs[agent]["action_mask"][act] == 1
            obs, rewards, terms, truncs, _ = env.step(actions)
            for agent, r in rewards.items():
                totals[agent] += r
            done = terms["__all__"] or truncs["__all__"]
        assert sorted(totals.values()) in ([-1.0, 1.0], [0.0, 0.0])
    finally:
        algo.stop()
