"""``jax-ppo``: the shipped from-scratch policies load by name and play legal games (numpy only)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tabletop_gym.agents.base import jax_checkpoint_path
from tabletop_gym.agents.jax_policy import load_policy
from tabletop_gym.agents.kinds import make_agent
from tabletop_gym.envs.positano.env import raw_env as positano_env
from tabletop_gym.envs.rapa_nui.env import raw_env as rapa_nui_env
from tests.legal_play import play_legal_game

ENVS = {"positano": positano_env, "rapa_nui": rapa_nui_env}
ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("game", sorted(ENVS))
def test_jax_ppo_plays_a_legal_game_by_name(game):
    env = ENVS[game](num_players=2)
    agent = make_agent("jax-ppo", env.game, env.observer, np.random.default_rng(0))
    assert agent.name == "jax-ppo"
    assert play_legal_game(env, agent, seed=4) > 0 and env.game_state.is_terminal()


@pytest.mark.parametrize("game", sorted(ENVS))
def test_the_shipped_policy_was_trained_from_scratch_and_says_where(game):
    arrays, meta = load_policy(jax_checkpoint_path(game, 2))
    # Masked PPO against the distilled heuristic, no heuristic input (the network reads the
    # observation alone: its first layer takes exactly the game's observation) and no search
    # labels, on the GPU run of bench/jax_gpu.py that its metadata names.
    assert meta["algorithm"] == "masked PPO (tabletop_gym.jax.train)"
    assert meta["train"]["opponents"] == "heuristic-net"
    assert meta["learner_steps"] >= 50_000_000
    assert meta["game"] == game and meta["num_players"] == 2
    assert arrays["actor/hidden_0/kernel"].shape[0] == meta["observation_size"]
    on = meta["trained_on"]
    assert on["backend"] == "gpu" and on["script"].startswith("bench/jax_gpu.py --round ")
    run = ROOT / "benchmarks" / "gpu" / f"round-{on['script'].split()[-1]}" / on["trainer"]
    summary = json.loads((run / "run.json").read_text())
    # The checkpoint is the named seed of that run: its step count is that seed's.
    assert summary["learner_steps_per_seed"][on["seed_index"]] == meta["learner_steps"]
    assert summary["train"] == meta["train"]


@pytest.mark.parametrize("game", sorted(ENVS))
def test_the_confirming_evaluation_is_of_the_shipped_policy(game):
    # docs/jax-train.md quotes benchmarks/gpu/confirm-<game>.json: it must be this policy's.
    doc = json.loads((ROOT / "benchmarks" / "gpu" / f"confirm-{game}.json").read_text())[0]
    assert doc["candidate"] == "jax-ppo" and doc["opponent"] == "heuristic"
    assert doc["n_games"] == 1000 == len(doc["per_game"])
    # Seat-rotated: every deal played once from each seat.
    seats = {(g["seed"], g["seat"]) for g in doc["per_game"]}
    assert seats == {(s, k) for s in range(1000, 1500) for k in (0, 1)}
    assert doc["win_rate"] == pytest.approx(np.mean([g["outcome"] for g in doc["per_game"]]))


def test_no_policy_for_another_table_size_says_what_is_shipped():
    env = rapa_nui_env(num_players=4)
    with pytest.raises(ValueError, match=r"no jax-ppo policy for rapa_nui with 4 player\(s\); "
                       r"shipped: \['jax_ppo_positano_2p', 'jax_ppo_rapa_nui_2p'\]"):
        make_agent("jax-ppo", env.game, env.observer)
