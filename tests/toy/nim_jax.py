"""A batched JAX twin of the toy Nim (tests/toy/nim.py), small enough for exact best responses.

It binds the same functions a real game's batched engine defines (``tabletop_gym.core.batched``), so
the trainer, the batched env and ``exploit`` run on it unchanged.
"""

from __future__ import annotations

import dataclasses
import sys
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from tabletop_gym.core.batched import BatchedGame, bind_module, returns
from tabletop_gym.core.game import REWARD_TYPES, TERMINAL
from tests.toy.nim import MAX_PILE

NUM_ACTIONS = 2
OBSERVATION_SIZE = 2
"""With the pile as a count (the default); :func:`batched_spec` gives the one-hot's size."""


class State(NamedTuple):
    """Stones left, the seat to move, and the reward type's index."""

    pile: jax.Array
    turn: jax.Array
    reward_type: jax.Array


def init_from_deck(deck: jax.Array, config: Any) -> State:
    """The starting pile (Nim deals nothing: the one-card deck is ignored)."""
    del deck
    return State(jnp.int32(config.pile), jnp.int32(0),
                 jnp.int32(REWARD_TYPES.index(config.reward_type)))


def init(key: jax.Array, config: Any) -> State:
    """The starting pile."""
    del key
    return init_from_deck(jnp.zeros(1, jnp.int32), config)


def terminated(s: State) -> jax.Array:
    """The pile is empty."""
    return s.pile == 0


def step(s: State, action: jax.Array) -> State:
    """Take ``action + 1`` stones (nothing changes once the game is over)."""
    over = terminated(s)
    pile = jnp.maximum(s.pile - action.astype(jnp.int32) - 1, 0)
    return s._replace(pile=jnp.where(over, s.pile, pile),
                      turn=jnp.where(over, s.turn, 1 - s.turn))


def current_player(s: State) -> jax.Array:
    """The seat to move, ``TERMINAL`` at the end."""
    return jnp.where(terminated(s), jnp.int32(TERMINAL), s.turn)


def observe(s: State, player: jax.Array) -> jax.Array:
    """``[pile, own turn]`` as NimObserver encodes it with the pile as a count."""
    return jnp.stack([s.pile, current_player(s) == player]).astype(jnp.float32)


def observe_one_hot(s: State, player: jax.Array) -> jax.Array:
    """``[1 at the pile among 0..MAX_PILE, own turn]`` as NimObserver encodes it with one-hot."""
    pile = jnp.arange(MAX_PILE + 1) == s.pile
    return jnp.concatenate([pile, (current_player(s) == player)[None]]).astype(jnp.float32)


def legal_action_mask(s: State) -> jax.Array:
    """Take 1 with a stone left, take 2 with two."""
    return jnp.stack([s.pile >= 1, s.pile >= 2])


def resample_hidden(s: State, seat: jax.Array, key: jax.Array) -> State:
    """Nim hides nothing: every world a seat can imagine is the state itself."""
    del seat, key
    return s


def rewards(s: State) -> jax.Array:
    """The returns once over (the seat not to move took the last stone), else zeros."""
    totals = (jnp.arange(2) != s.turn).astype(jnp.int32)
    out = returns(s.reward_type, totals, totals == 1, 1)
    return jnp.where(terminated(s), out, 0.0)


def batched_spec(config: Any) -> BatchedGame:
    """Nim's batched engine bound to ``config`` (its ``observation`` picks the observer)."""
    bg = bind_module(sys.modules[__name__], config, np.zeros(1, np.int32),
                     min_decisions=(config.pile + 1) // 2, name="nim")
    if config.observation == "one_hot":
        return dataclasses.replace(bg, observation_size=MAX_PILE + 2,
                                   observe=observe_one_hot)
    return bg
