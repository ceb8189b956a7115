"""A ``jax:`` checkpoint's actor as JAX arrays, and its forward pass.

The trainer's frozen opponents (``opponents="heuristic-net"``) and the search's continuations
both play a checkpoint's actor inside compiled code; this is the one place that turns the file
into layers and runs them, so the two cannot drift apart.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

import jax
import jax.numpy as jnp

ACTIVATIONS: dict[str, Callable[[jax.Array], jax.Array]] = {"tanh": jnp.tanh,
                                                            "relu": jax.nn.relu}
"""The hidden layers' activations a checkpoint may name."""

Layers = Sequence[tuple[jax.Array, jax.Array]]
"""``(kernel, bias)`` of each dense layer, the output layer last."""


@dataclasses.dataclass(frozen=True)
class Actor:
    """A checkpoint's actor: its dense layers and the activation between them.

    Attributes:
        layers: ``(kernel, bias)`` per layer, the logits' layer last.
        activation: A key of :data:`ACTIVATIONS`.
    """

    layers: list[tuple[jax.Array, jax.Array]]
    activation: str


def load_actor(path: str, game_name: str, num_players: int, observation_size: int) -> Actor:
    """Read a ``jax:`` checkpoint's actor for a game, table and observation.

    Raises:
        ValueError: When the file is missing, was made for another game, table or observation,
            or names an activation other than those of :data:`ACTIVATIONS`.
    """
    from tabletop_gym.agents.jax_policy import JaxPolicyAgent

    agent = JaxPolicyAgent(path, game_name=game_name, num_players=num_players,
                           observation_size=observation_size)
    activation = str(agent.metadata["activation"])
    if activation not in ACTIVATIONS:
        raise ValueError(f"{path} names activation {activation!r}; known: {sorted(ACTIVATIONS)}")
    return Actor([(jnp.asarray(k), jnp.asarray(b)) for k, b in [*agent.layers, agent.out]],
                 activation)


def actor_logits(layers: Layers, activation: str, obs: jax.Array) -> jax.Array:
    """The actor's logits (unmasked) on rows of observations."""
    act = ACTIVATIONS[activation]
    x = obs
    for kernel, bias in layers[:-1]:
        x = act(x @ kernel + bias)
    kernel, bias = layers[-1]
    return x @ kernel + bias
