"""``BatchedEnv(final_observation=True)`` and ``BatchedEnv(auto_reset=False)``.

A Rapa Nui game ends as docs/rules/rapa_nui.md §6 says; its returns (win_loss here) are every
seat's, whoever moved last.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from tabletop_gym.envs.rapa_nui import batched as R
from tabletop_gym.jax.core import make
from tabletop_gym.jax.env import BatchedEnv

GAME = make("rapa_nui", num_players=2)


def random_actions(key, ts):
    return jax.random.categorical(key, jnp.where(ts.action_mask, 0.0, -jnp.inf))


def test_final_observation_is_every_seats_view_before_the_reset_and_changes_nothing_else():
    plain = BatchedEnv(GAME, 4)
    rich = BatchedEnv(GAME, 4, final_observation=True)
    s1, t1 = plain.reset(jax.random.PRNGKey(2))
    s2, t2 = rich.reset(jax.random.PRNGKey(2))
    assert t1.final_observation is None
    assert t2.final_observation.shape == (4, 2, R.OBSERVATION_SIZE)
    ref_step = jax.jit(jax.vmap(R.step))
    views_of = jax.jit(plain.observe_all)  # checked seat by seat below
    key = jax.random.PRNGKey(3)
    ended = 0
    for _ in range(140):  # 2-player games last at least 60 decisions
        key, sub = jax.random.split(key)
        actions = random_actions(sub, t1)
        before = s2.games
        s1, t1 = plain.step(s1, actions)
        s2, t2 = rich.step(s2, actions)
        for name in ("observation", "action_mask", "current_player", "rewards", "done"):
            assert np.array_equal(np.asarray(getattr(t1, name)), np.asarray(getattr(t2, name)))
        games = ref_step(before, actions)  # the games as the step left them, not reset
        final = np.asarray(t2.final_observation)
        assert np.array_equal(final, np.asarray(views_of(games)))
        done = np.asarray(t2.done)
        going = np.flatnonzero(~done)
        # The same game goes on: the deciding seat's view is the observation returned.
        seats = np.asarray(t2.current_player)[going]
        assert np.array_equal(final[going, seats], np.asarray(t2.observation)[going])
        ended += done.sum()
        assert np.asarray(games.terminated)[done].all()
        assert np.array_equal(np.asarray(games.rewards)[done], np.asarray(t2.rewards)[done])
    assert ended >= 1


def test_without_auto_reset_a_finished_game_stays_finished():
    env = BatchedEnv(GAME, 3, auto_reset=False)
    auto = BatchedEnv(GAME, 3)
    state, ts = env.reset(jax.random.PRNGKey(7))
    s_auto, t_auto = auto.reset(jax.random.PRNGKey(7))
    key = jax.random.PRNGKey(8)
    finished = np.zeros(3, bool)
    results = {}
    for _ in range(400):
        key, sub = jax.random.split(key)
        actions = random_actions(sub, ts)
        actions = jnp.where(jnp.asarray(finished), 0, actions)  # ignored for finished games
        if not finished.any():
            s_auto, t_auto = auto.step(s_auto, actions)
        prev = state.games
        state, ts = env.step(state, actions)
        done = np.asarray(ts.done)
        assert not (done & finished).any()  # done only in the step a game ends
        if not finished.any() and not done.any():
            # Until a game ends both envs play the very same games.
            assert np.array_equal(np.asarray(ts.observation), np.asarray(t_auto.observation))
        for b in np.flatnonzero(done):
            results[b] = np.asarray(ts.rewards[b]).tolist()
            assert sorted(results[b]) in ([-1.0, 1.0], [0.0, 0.0])  # win_loss
        if finished.any():
            # A finished game: unchanged, no decision, zero view, zero rewards.
            for x, y in zip(jax.tree.leaves(prev), jax.tree.leaves(state.games), strict=True):
                assert np.array_equal(np.asarray(x)[finished], np.asarray(y)[finished])
            assert (np.asarray(ts.current_player)[finished] < 0).all()
            assert not np.asarray(ts.action_mask)[finished].any()
            assert not np.asarray(ts.observation)[finished].any()
            assert not np.asarray(ts.rewards)[finished].any()
        finished |= done
        if finished.all():
            break
    assert finished.all() and len(results) == 3
    # reset() deals anew.
    state, ts = env.reset(jax.random.PRNGKey(9))
    assert (np.asarray(ts.current_player) >= 0).all() and np.asarray(ts.action_mask).any(1).all()


def test_observe_all_matches_each_seats_observe():
    # What the first test compares final observations with, checked against observe itself.
    env = BatchedEnv(make("rapa_nui", num_players=3), 2)
    state, _ = env.reset(jax.random.PRNGKey(1))
    views = np.asarray(env.observe_all(state.games))
    assert views.shape == (2, 3, R.OBSERVATION_SIZE)
    for b in range(2):
        game = jax.tree.map(lambda x, b=b: x[b], state.games)
        for p in range(3):
            assert np.array_equal(views[b, p], np.asarray(R.observe(game, p)))
        assert not np.array_equal(views[b, 0], views[b, 1])  # hands differ
