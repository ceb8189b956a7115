"""TorchRL: PettingZooWrapper over both games, AEC and parallel, and a masked rollout of an MLP
policy through a Collector. Regression test of finding 5 (TorchRL builds its info specs
from the first info; with keys appearing at the end the wrapper could not be built) in
docs/libraries.md.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from tensordict.nn import TensorDictModule
from torchrl.collectors import Collector
from torchrl.modules import MLP, MaskedCategorical, ProbabilisticActor

from tabletop_gym.integrations.torchrl import torchrl_env

CASES = [("rapa_nui", {"num_players": 3}), ("positano", {"num_players": 2})]


def _env(game, cfg, parallel):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # TorchRL notes which PettingZoo version it tests with
        return torchrl_env(game, parallel=parallel, **cfg)


@pytest.mark.parametrize("parallel", [False, True], ids=["aec", "parallel"])
@pytest.mark.parametrize(("game", "cfg"), CASES, ids=[g for g, _ in CASES])
def test_wrapper_builds_and_its_masks_match_the_env(game, cfg, parallel):
    env = _env(game, cfg, parallel)
    td = env.reset(seed=0)
    inner = env._env.unwrapped
    n = cfg["num_players"]
    mask = td["agents", "action_mask"]
    assert mask.shape == (n, env.full_action_spec["agents", "action"].space.n)
    if parallel:
        # The env's own masks: the seats with a choice their legal actions, the others the no-op.
        state = inner.game_state
        for i in range(n):
            legal = state.legal_actions(i)
            expected = legal if legal else [inner.noop]
            assert np.flatnonzero(mask[i].numpy()).tolist() == expected
    else:
        actor = inner.agent_selection
        i = inner.possible_agents.index(actor)
        assert td["agents", "mask"].numpy().tolist() == [a == actor for a in inner.possible_agents]
        assert np.flatnonzero(mask[i].numpy()).tolist() == inner.legal_actions(actor)
        # agents not to act get an all-true mask in TorchRL; their action is never used
        assert all(mask[j].all() for j in range(n) if j != i)
    assert td["state"].shape == inner.state_space.shape
    assert set(td["agents", "info"].keys()) == {"is_acting", "phase", "game_over", "scores",
                                                "winners", "illegal_action"}


def _masked_policy(env):
    obs_dim = env.observation_spec["agents", "observation", "observation"].shape[-1]
    n_actions = env.full_action_spec["agents", "action"].space.n
    net = TensorDictModule(MLP(in_features=obs_dim, out_features=n_actions, num_cells=[32]),
                           in_keys=[("agents", "observation", "observation")],
                           out_keys=[("agents", "logits")])
    return ProbabilisticActor(
        net,
        in_keys={"logits": ("agents", "logits"), "mask": ("agents", "action_mask")},
        out_keys=[("agents", "action")], distribution_class=MaskedCategorical,
        return_log_prob=True, spec=env.full_action_spec["agents", "action"],
    )


@pytest.mark.parametrize("parallel", [False, True], ids=["aec", "parallel"])
@pytest.mark.parametrize(("game", "cfg"), CASES, ids=[g for g, _ in CASES])
def test_masked_rollout_through_a_collector(game, cfg, parallel):
    torch.manual_seed(0)
    torch.set_num_threads(1)
    env = _env(game, cfg, parallel)
    env.set_seed(0)
    collector = Collector(env, _masked_policy(env), frames_per_batch=200,
                                  total_frames=400)
    frames = 0
    ends = 0
    for batch in collector:
        frames += batch.numel()
        nxt = batch["next"]
        info = nxt["agents", "info"]
        # the policy never chose an illegal action: no game ended on one
        assert (info["illegal_action"] == -1).all()
        # every action of an agent to act was in its mask
        acting = batch["agents", "mask"] if not parallel else batch["agents", "action_mask"].any(-1)
        chosen = batch["agents", "action"]
        legal = batch["agents", "action_mask"].gather(-1, chosen.unsqueeze(-1)).squeeze(-1)
        assert legal[acting].all()
        done = nxt["done"].squeeze(-1)
        ends += int(done.sum())
        for t in torch.nonzero(done).flatten():
            # terminal rewards are the game's win_loss returns: +1 each winner, -1 the others
            winners = info["winners"][t, 0]
            reward = nxt["agents", "reward"][t].squeeze(-1)
            expected = torch.where(winners == 1, 1.0, -1.0)
            if winners.sum() == len(winners):
                expected = torch.zeros(len(winners))
            assert torch.equal(reward, expected)
    collector.shutdown()
    assert frames == 400
    assert ends >= 2  # games last 58-132 steps (one step per decision)
