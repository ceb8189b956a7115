"""Batched env with auto-reset, its Gymnasium vector env, and a JAX-free core install."""

from __future__ import annotations

import subprocess
import sys

import gymnasium
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from tabletop_gym.core.game import ConfigError
from tabletop_gym.envs.rapa_nui import batched as R
from tabletop_gym.jax.core import make
from tabletop_gym.jax.env import BatchedEnv, VectorEnv


def test_core_install_never_imports_jax():
    code = (
        "import sys, tabletop_gym, tabletop_gym.envs.rapa_nui_v0, tabletop_gym.envs.positano_v0;"
        "import gymnasium; gymnasium.make('RapaNui-v0');"
        "assert 'jax' not in sys.modules, sorted(m for m in sys.modules if 'jax' in m)"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_auto_reset_replaces_finished_games_in_the_same_step():
    env = BatchedEnv(make("rapa_nui", num_players=2, reward_type="score"), 8)
    state, ts = env.reset(jax.random.PRNGKey(0))
    step = env.step
    ref_step = jax.jit(R.step)
    key = jax.random.PRNGKey(1)
    ends = 0
    for _ in range(300):
        key, sub = jax.random.split(key)
        mask = ts.action_mask
        assert bool(mask.any(1).all())  # every slot always has a decision to make
        actions = jax.random.categorical(sub, jnp.where(mask, 0.0, -jnp.inf))
        before = state.games
        state, ts = step(state, actions)
        done = np.asarray(ts.done)
        ends += done.sum()
        for b in np.flatnonzero(done):
            # The returns are the finished game's final scores (reward_type "score").
            finished = jax.tree.map(lambda x, b=b: x[b], before)
            last = ref_step(finished, actions[b])
            assert np.asarray(ts.rewards[b]).tolist() == np.asarray(last.rewards).tolist()
            assert float(ts.rewards[b].sum()) > 0
            fresh = jax.tree.map(lambda x, b=b: x[b], state.games)
            assert int(fresh.phase) == 0 and int(fresh.pile_pos) == 16
        assert not np.asarray(ts.rewards)[~done].any()
    assert ends >= 8  # a 2-player game lasts 60..265 decisions


def test_vector_env_plays_with_numpy_and_reports_the_movers_reward():
    env = VectorEnv("rapa_nui", num_envs=4, num_players=2)
    assert isinstance(env, gymnasium.vector.VectorEnv)
    obs, info = env.reset(seed=3)
    assert obs.shape == (4, 213) and obs.dtype == np.float32
    rng = np.random.default_rng(0)
    total_done = 0
    for _ in range(250):
        mask = env.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        mover = info["current_player"]
        obs, reward, term, trunc, info = env.step(actions)
        for b in np.flatnonzero(term):
            assert reward[b] == info["rewards"][b, mover[b]]
            # win_loss: one seat +1 and one −1, or a shared win with 0 each.
            assert sorted(info["rewards"][b].tolist()) in ([-1.0, 1.0], [0.0, 0.0])
        total_done += term.sum()
        assert not trunc.any()
    assert total_done >= 4
    obs2, _ = VectorEnv("rapa_nui", num_envs=4, num_players=2).reset(seed=3)
    assert (VectorEnv("rapa_nui", num_envs=4).reset(seed=3)[0] == obs2).all()


def test_vector_env_rejects_bad_actions_and_configs():
    env = VectorEnv("rapa_nui", num_envs=2)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(np.zeros(2, int))
    env.reset(seed=0)
    with pytest.raises(ValueError, match="2 integer action ids"):
        env.step(np.zeros(3, int))
    with pytest.raises(ValueError, match="integer"):
        env.step(np.zeros(2, float))
    with pytest.raises(ConfigError, match="num_players"):
        make("rapa_nui", num_players=7)
    with pytest.raises(ConfigError, match="rapa_nui"):
        make("chess")


def test_every_deal_is_a_full_deck_and_an_early_end_still_gets_a_full_shuffle():
    g = make("rapa_nui", num_players=2)
    env = BatchedEnv(g, 4)
    state, ts = env.reset(jax.random.PRNGKey(5))
    base = sorted(g.deck.tolist())
    # An illegal action ends every game at once, 1 swap into the pending shuffles: the slots get
    # decks from the full-shuffle fallback, all different and each a permutation of the 50 cards.
    illegal = jnp.full(4, 44, jnp.int32)  # a Moai split outside the split phase (docs/rules/rapa_nui.md §4)
    old = np.asarray(state.games.deck)
    state, ts = env.step(state, illegal)
    assert np.asarray(ts.done).all()
    assert np.asarray(ts.rewards).tolist() == [[-1.0, 0.0]] * 4
    state, ts = env.step(state, illegal)
    decks = np.asarray(state.games.deck)
    assert all(sorted(d.tolist()) == base for d in decks)
    assert len({tuple(d) for d in decks} | {tuple(d) for d in old}) == 8
    assert np.asarray(state.shuffled).tolist() == [1] * 4  # one swap of the next shuffle done


def test_positano_deals_shuffle_each_chance_segment_apart():
    from tabletop_gym.envs.positano import batched as P
    from tabletop_gym.envs.positano.rules import PositanoGame

    g = make("positano", num_players=2, reward_type="win_loss")
    env = BatchedEnv(g, 8)
    state, ts = env.reset(jax.random.PRNGKey(4))
    ref_game = PositanoGame(g.config)
    base = g.deck.tolist()
    segments = sorted(set(g.deck_ends.tolist()))

    def check(decks):
        for d in np.asarray(decks):
            start = 0
            for end in segments:
                # Each segment holds exactly its own values (lots, stacks, goals, star sets).
                assert sorted(d[start:end].tolist()) == sorted(base[start:end])
                start = end

    check(state.next_decks)
    # An illegal action ends every game after one swap of the pending shuffles: the new deals
    # come from the full segment-wise shuffle and are valid set-ups (the JSON loader checks).
    state, ts = env.step(state, jnp.full(8, 191, jnp.int32))  # the no-op id is never legal
    assert np.asarray(ts.done).all()
    assert np.asarray(ts.rewards).tolist() == [[-1.0, 0.0]] * 8
    check(state.next_decks)
    for b in range(8):
        P.to_reference(jax.tree.map(lambda x, b=b: x[b], state.games), ref_game)
    key = jax.random.PRNGKey(9)
    for _ in range(30):
        key, sub = jax.random.split(key)
        state, ts = env.step(state, jax.random.categorical(
            sub, jnp.where(ts.action_mask, 0.0, -jnp.inf)))
        check(state.next_decks)
    # 61 swaps complete the 62-entry deck; a 2-player game lasts at least 48 decisions, so two
    # swaps a step: 2 after the deal, complete 30 steps later.
    assert np.asarray(state.shuffled).tolist() == [61] * 8
