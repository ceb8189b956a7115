"""One forward pass of a checkpoint's actor for the trainer and the search (jax/actor.py)."""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_gym.agents import jax_policy
from tabletop_gym.agents.base import jax_checkpoint_path
from tabletop_gym.jax.actor import ACTIVATIONS, actor_logits, load_actor
from tabletop_gym.jax.core import make
from tabletop_gym.jax.distill import shipped
from tabletop_gym.jax.train import TrainConfig, Trainer


def test_the_jax_and_numpy_forms_know_the_same_activations():
    # A checkpoint the numpy agent can play is one the compiled code can play, and back.
    assert set(ACTIVATIONS) == set(jax_policy.ACTIVATIONS)


@pytest.mark.parametrize(("game", "players", "path"), [
    ("rapa_nui", 2, lambda: jax_checkpoint_path("rapa_nui", 2)),
    ("positano", 4, lambda: shipped("positano", 4)),
])
def test_the_actors_logits_are_the_numpy_agents(game, players, path):
    bg = make(game, num_players=players)
    actor = load_actor(str(path()), game, players, bg.observation_size)
    agent = jax_policy.JaxPolicyAgent(path(), game_name=game, num_players=players)
    assert actor.activation == agent.metadata["activation"]
    obs = np.random.default_rng(0).random((5, bg.observation_size), dtype=np.float32)
    got = np.asarray(actor_logits(actor.layers, actor.activation, obs))
    want = np.stack([agent.logits(o) for o in obs])
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_the_trainers_frozen_opponent_plays_the_actors_masked_argmax():
    bg = make("rapa_nui", num_players=2)
    path = str(shipped("rapa_nui", 2))
    trainer = Trainer(bg, TrainConfig(opponents="heuristic-net", opponent_net=path))
    actor = load_actor(path, "rapa_nui", 2, bg.observation_size)
    rng = np.random.default_rng(1)
    obs = rng.random((6, bg.observation_size), dtype=np.float32)
    mask = rng.random((6, bg.num_actions)) < 0.3
    mask[:, 0] = True  # every row has a legal move
    got = np.asarray(trainer._net_logits(obs, mask))
    raw = np.asarray(actor_logits(actor.layers, actor.activation, obs))
    best = np.where(mask, raw, -np.inf).argmax(axis=1)
    assert (got.argmax(axis=1) == best).all() and (got.max(axis=1) == 0.0).all()
    assert mask[np.arange(6), got.argmax(axis=1)].all()  # only a legal move is chosen
