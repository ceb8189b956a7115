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
from tensordict.nn import TensorDictModule, TensorDictSequential
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


# --- TorchRL's GymEnv over the single-agent ids (issue #26 item 2) ------------------------------
# GymEnv passes ``frameskip`` to ``gymnasium.make`` and retries without it only when the
# TypeError reads as Python's own "unexpected keyword argument 'frameskip'".

GYM_IDS = ["tabletop_gym:RapaNui-v0", "tabletop_gym:Positano-v0"]


@pytest.mark.parametrize("env_id", GYM_IDS)
def test_gym_env_builds_and_rolls_out(env_id):
    from torchrl.envs import GymEnv

    env = GymEnv(env_id, observation_type="dict", categorical_action_encoding=True)
    env.set_seed(0)
    td = env.rollout(8, break_when_any_done=False)
    assert td.batch_size == torch.Size([8])
    mask = td["action_mask"].bool()
    assert mask.any(-1).all()  # every step had a legal action to choose from
    plain = GymEnv(env_id)  # the default observation: the vector alone
    assert plain.observation_spec["observation"].shape[-1] == td["observation"].shape[-1]


@pytest.mark.parametrize("env_id", GYM_IDS)
def test_gym_env_masked_policy_through_a_collector(env_id):
    from torchrl.envs import GymEnv

    torch.manual_seed(0)
    torch.set_num_threads(1)
    env = GymEnv(env_id, observation_type="dict", categorical_action_encoding=True)
    env.set_seed(0)
    obs_dim = env.observation_spec["observation"].shape[-1]
    n_actions = env.action_spec.space.n
    net = TensorDictModule(MLP(in_features=obs_dim, out_features=n_actions, num_cells=[32]),
                           in_keys=["observation"], out_keys=["logits"])
    # The env's masks are int8 (the PettingZoo classic convention); MaskedCategorical wants bool.
    as_bool = TensorDictModule(lambda m: m.bool(), in_keys=["action_mask"], out_keys=["legal"])
    actor = ProbabilisticActor(net, in_keys={"logits": "logits", "mask": "legal"},
                               out_keys=["action"], distribution_class=MaskedCategorical,
                               spec=env.action_spec)
    policy = TensorDictSequential(as_bool, actor)
    collector = Collector(env, policy, frames_per_batch=100, total_frames=300)
    frames = ends = 0
    for batch in collector:
        frames += batch.numel()
        chosen = batch["action"]
        legal = batch["action_mask"].bool().gather(-1, chosen.unsqueeze(-1)).squeeze(-1)
        assert legal.all()  # the masked policy only ever chose legal actions
        done = batch["next", "done"].squeeze(-1)
        reward = batch["next", "reward"].squeeze(-1)
        ends += int(done.sum())
        # the single-agent reward is terminal: 0 before the end, the learner's return at it
        assert (reward[~done] == 0).all()
        if "RapaNui" in env_id:  # win_loss against the heuristic: +1 or -1 (or 0 if all win)
            assert set(reward[done].tolist()) <= {-1.0, 0.0, 1.0}
    collector.shutdown()
    assert frames == 300
    assert ends >= 1
