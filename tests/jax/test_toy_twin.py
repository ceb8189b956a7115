"""The toy Nim's batched twin (``tests/toy/nim_jax.py``) against its Python engine, per observation.

The exploit calibration trains on the twin and scores through the Python envs, so a learned best
response is only scored on what it learned if both give the very same observation vector.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from tabletop_gym.core.game import TERMINAL, ConfigError
from tests.toy import nim_jax
from tests.toy.nim import (
    MAX_PILE,
    OBSERVATIONS,
    NimConfig,
    NimGame,
    NimHeuristic,
    NimObserver,
    NimState,
)


def test_the_one_hot_observation_by_hand():
    game = NimGame(NimConfig(pile=5, observation="one_hot"))
    observer = NimObserver(game)
    state = game.new_initial_state(None)  # type: ignore[arg-type]  # Nim deals nothing
    # 31 entries for 0..30 stones, then the own-turn flag: 32 in all.
    assert observer.size == MAX_PILE + 2 == 32
    want = np.zeros(32, np.float32)
    want[5] = 1.0  # 5 stones
    want[31] = 1.0  # seat 0 opens
    assert observer.encode(state, 0).tolist() == want.tolist()
    want[31] = 0.0
    assert observer.encode(state, 1).tolist() == want.tolist()
    state.apply_action(1)  # seat 0 takes 2: 3 stones, seat 1 to move
    assert np.flatnonzero(observer.encode(state, 1)).tolist() == [3, 31]
    assert np.flatnonzero(observer.encode(state, 0)).tolist() == [3]
    # The heuristic reads the pile in either form: from 5 it takes 2 and leaves 3.
    for observation in OBSERVATIONS:
        g = NimGame(NimConfig(pile=5, observation=observation))
        obs = NimObserver(g)
        bot = NimHeuristic(g, obs)
        fresh = g.new_initial_state(None)  # type: ignore[arg-type]
        assert bot.act({"observation": obs.encode(fresh, 0),
                        "action_mask": np.array([1, 1], np.int8)}) == 1
    # The default is unchanged: the pile as one number.
    count = NimGame(NimConfig(pile=5))
    assert NimObserver(count).encode(count.new_initial_state(None), 0).tolist() == [5.0, 1.0]  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match=r"observation='binary' is not allowed; choose one of "
                       r"\('count', 'one_hot'\)"):
        NimConfig.from_kwargs(observation="binary")


@pytest.mark.parametrize("observation", OBSERVATIONS)
def test_the_twin_sees_moves_and_steps_as_the_python_engine(observation):
    config = NimConfig(pile=MAX_PILE, observation=observation)
    game = NimGame(config)
    observer = NimObserver(game)
    bg = nim_jax.batched_spec(config)
    assert bg.observation_size == observer.size
    # Every position: 0..30 stones, either seat to move, seen by either seat.
    piles, turns = np.meshgrid(np.arange(MAX_PILE + 1), np.arange(2), indexing="ij")
    piles, turns = piles.ravel(), turns.ravel()
    states = nim_jax.State(jnp.asarray(piles, jnp.int32), jnp.asarray(turns, jnp.int32),
                           jnp.zeros(piles.size, jnp.int32))
    seen = [np.asarray(jax.vmap(bg.observe, (0, None))(states, jnp.int32(p))) for p in range(2)]
    masks = np.asarray(jax.vmap(bg.legal_action_mask)(states))
    players = np.asarray(jax.vmap(bg.current_player)(states))
    after = [jax.vmap(bg.step, (0, None))(states, jnp.int32(a)) for a in range(2)]
    for i, (pile, turn) in enumerate(zip(piles.tolist(), turns.tolist(), strict=True)):
        ref = NimState(game, pile, turn)
        for p in range(2):
            assert seen[p][i].tolist() == observer.encode(ref, p).tolist(), (pile, turn, p)
        assert players[i] == ref.current_player()
        if ref.current_player() == TERMINAL:
            continue
        assert np.flatnonzero(masks[i]).tolist() == ref.legal_actions()
        for a in ref.legal_actions():
            nxt = ref.clone()
            nxt.apply_action(a)
            assert (int(after[a].pile[i]), int(after[a].turn[i])) == (nxt.pile, nxt.turn)
