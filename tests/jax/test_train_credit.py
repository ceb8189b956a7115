"""Credit assignment of the JAX trainer (``seat_gae``): every seat's own trajectory.

The expected values are worked by hand with γ = 0.9 and λ = 0.5 (so γλ = 0.45). A game's returns
arrive in the step that ends it, for every seat, whoever moved last; a game that ends on an illegal
action gives the offender −1 and the others 0 (the game ends as docs/rules/rapa_nui.md §6 says, or
on an illegal id, as the engines document).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from tabletop_gym.jax.core import make
from tabletop_gym.jax.env import BatchedEnv
from tabletop_gym.jax.train import pfsp_probabilities, seat_gae, win_shares

G, L = 0.9, 0.5


def gae(players, dones, rewards, values, last_values):
    """One game slot (B = 1) through ``seat_gae``; numpy out."""
    adv, targets = seat_gae(
        jnp.asarray(players, jnp.int32)[:, None],
        jnp.asarray(dones, bool)[:, None],
        jnp.asarray(rewards, jnp.float32)[:, None],
        jnp.asarray(values, jnp.float32)[:, None],
        jnp.asarray(last_values, jnp.float32)[None],
        G, L,
    )
    return np.asarray(adv)[:, 0], np.asarray(targets)[:, 0]


def test_two_players_game_ended_by_the_other_seat_then_a_cut_new_game():
    # t0 seat 0, t1 seat 1, t2 seat 0, t3 seat 1 ends the game (seat 0 wins: +1/−1), t4 seat 0 in
    # a fresh deal, where the rollout stops; last_values are each seat's view at the stop.
    adv, targets = gae(
        players=[0, 1, 0, 1, 0],
        dones=[0, 0, 0, 1, 0],
        rewards=[[0, 0], [0, 0], [0, 0], [1, -1], [0, 0]],
        values=[0.1, 0.2, 0.3, 0.4, 0.5],
        last_values=[0.6, 0.7],
    )
    # t4: 0.9·0.6 − 0.5 = 0.04 (bootstrapped from seat 0's own view at the stop).
    # t3: −1 − 0.4 = −1.4.  t2: +1 − 0.3 = 0.7 (its reward came with seat 1's move).
    # t1: 0.9·0.4 − 0.2 + 0.45·(−1.4) = −0.47 (chained to seat 1's t3, not seat 0's t2).
    # t0: 0.9·0.3 − 0.1 + 0.45·0.7 = 0.485.
    np.testing.assert_allclose(adv, [0.485, -0.47, 0.7, -1.4, 0.04], atol=1e-6)
    np.testing.assert_allclose(targets, [0.585, -0.27, 1.0, -1.0, 0.54], atol=1e-6)


def test_four_players_cut_mid_game_bootstrap_from_each_seats_own_value():
    # Seats 0,1,2,3,0,1 decide; the rollout stops mid-game. Seats 2 and 3 have no later decision,
    # so they bootstrap from their own views at the stop (3.0, 4.0), not from the next seat's.
    adv, _ = gae(
        players=[0, 1, 2, 3, 0, 1],
        dones=[0] * 6,
        rewards=[[0] * 4] * 6,
        values=[0.1, 0.2, 0.3, 0.4, 0.5, 0.6],
        last_values=[1.0, 2.0, 3.0, 4.0],
    )
    # t5: 0.9·2 − 0.6 = 1.2; t4: 0.9·1 − 0.5 = 0.4; t3: 0.9·4 − 0.4 = 3.2; t2: 0.9·3 − 0.3 = 2.4;
    # t1: 0.9·0.6 − 0.2 + 0.45·1.2 = 0.88; t0: 0.9·0.5 − 0.1 + 0.45·0.4 = 0.53.
    np.testing.assert_allclose(adv, [0.53, 0.88, 2.4, 3.2, 0.4, 1.2], atol=1e-6)


def test_four_players_game_ended_by_another_seat_pays_every_seat():
    # Seat 1 makes the last move at t5; seat 2 wins (win_loss: +1, the others −1). The rollout's
    # last values belong to the next deal and must not be used.
    adv, _ = gae(
        players=[0, 1, 2, 3, 0, 1],
        dones=[0, 0, 0, 0, 0, 1],
        rewards=[[0] * 4] * 5 + [[-1, -1, 1, -1]],
        values=[0.1, 0.2, 0.3, 0.4, 0.5, 0.6],
        last_values=[99.0, 99.0, 99.0, 99.0],
    )
    # t5: −1 − 0.6; t4: −1 − 0.5; t3: −1 − 0.4; t2: +1 − 0.3 (seat 2's last decision, two moves
    # before the end); t1: 0.9·0.6 − 0.2 + 0.45·(−1.6) = −0.38; t0: 0.9·0.5 − 0.1 + 0.45·(−1.5).
    np.testing.assert_allclose(adv, [-0.325, -0.38, 0.7, -1.4, -1.5, -1.6], atol=1e-6)


def test_game_ended_by_an_illegal_action_and_no_chaining_into_the_next_deal():
    # Seat 1's illegal action at t1 ends the game: −1 for it, 0 for seat 0. Seat 0's t0 decision
    # gets 0 and no bootstrap: its next decision (t2) is in a new deal.
    adv, targets = gae(
        players=[0, 1, 0],
        dones=[0, 1, 0],
        rewards=[[0, 0], [0, -1], [0, 0]],
        values=[0.1, 0.2, 0.3],
        last_values=[0.5, 0.6],
    )
    np.testing.assert_allclose(adv, [-0.1, -1.2, 0.15], atol=1e-6)
    np.testing.assert_allclose(targets, [0.0, -1.0, 0.45], atol=1e-6)


def test_real_illegal_action_rewards_feed_the_credit():
    # The batched engine's own rewards for an illegal move (id 44 is a Moai split, legal only in
    # the split phase, docs/rules/rapa_nui.md §4): the offender (seat 0, the first to act) −1.
    env = BatchedEnv(make("rapa_nui", num_players=2), 1)
    state, ts = env.reset(jax.random.PRNGKey(0))
    first = int(ts.current_player[0])
    state, ts = env.step(state, jnp.array([44], jnp.int32))
    assert bool(ts.done[0])
    rewards = np.asarray(ts.rewards[0]).tolist()
    assert rewards[first] == -1.0 and rewards[1 - first] == 0.0
    adv, _ = gae([first], [1], [rewards], [0.25], [7.0, 7.0])
    np.testing.assert_allclose(adv, [-1.25], atol=1e-6)


def test_steps_without_a_decision_are_skipped_and_zero():
    # A negative player id (a finished game without auto-reset) is no decision: seat 0's t0 chains
    # to its t2 through it.
    adv, targets = gae(
        players=[0, -4, 0],
        dones=[0, 0, 0],
        rewards=[[0, 0]] * 3,
        values=[0.1, 0.9, 0.3],
        last_values=[0.5, 0.6],
    )
    # t2: 0.9·0.5 − 0.3 = 0.15; t0: 0.9·0.3 − 0.1 + 0.45·0.15 = 0.2375.
    np.testing.assert_allclose(adv, [0.2375, 0.0, 0.15], atol=1e-6)
    assert targets[1] == 0.0


def reference_gae(players, dones, rewards, values, last_values, gamma, lam):
    """A plain loop, seat by seat, game by game: the definition ``seat_gae`` implements."""
    t_len, batch = players.shape
    adv = np.zeros((t_len, batch))
    for b in range(batch):
        for p in range(rewards.shape[2]):
            steps = [t for t in range(t_len) if players[t, b] == p]
            a_next = 0.0  # the advantage of the seat's next decision (the loop runs backwards)
            for i in range(len(steps) - 1, -1, -1):
                t = steps[i]
                nxt = steps[i + 1] if i + 1 < len(steps) else t_len
                ended = next((s for s in range(t, nxt) if dones[s, b]), None)
                if ended is not None:
                    r = sum(rewards[s, b, p] for s in range(t, ended + 1))
                    v_next, a_next = 0.0, 0.0
                else:
                    r = sum(rewards[s, b, p] for s in range(t, nxt))
                    v_next = values[nxt, b] if nxt < t_len else last_values[b, p]
                    a_next = a_next if nxt < t_len else 0.0
                adv[t, b] = r + gamma * v_next - values[t, b] + gamma * lam * a_next
                a_next = adv[t, b]
    return adv


@pytest.mark.parametrize("players", [2, 4])
def test_matches_the_per_seat_loop_on_real_random_games(players):
    env = BatchedEnv(make("rapa_nui", num_players=players), 3)
    state, ts = env.reset(jax.random.PRNGKey(players))
    key = jax.random.PRNGKey(10)
    rows = {"players": [], "dones": [], "rewards": []}
    for _ in range(150):  # long enough for 2-player games to end (60 decisions at least)
        key, sub = jax.random.split(key)
        rows["players"].append(np.asarray(ts.current_player))
        act = jax.random.categorical(sub, jnp.where(ts.action_mask, 0.0, -jnp.inf))
        state, ts = env.step(state, act)
        rows["dones"].append(np.asarray(ts.done))
        rows["rewards"].append(np.asarray(ts.rewards))
    p, d, r = (np.stack(rows[k]) for k in ("players", "dones", "rewards"))
    if players == 2:
        assert d.any()
    rng = np.random.default_rng(0)
    v = rng.normal(size=p.shape).astype(np.float32)
    last = rng.normal(size=(3, players)).astype(np.float32)
    adv, _ = seat_gae(jnp.asarray(p), jnp.asarray(d), jnp.asarray(r), jnp.asarray(v),
                      jnp.asarray(last), 0.97, 0.9)
    np.testing.assert_allclose(np.asarray(adv), reference_gae(p, d, r, v, last, 0.97, 0.9),
                               atol=1e-4)


def test_pfsp_draws_the_snapshots_beaten_least_most():
    # Win rates (0 + 1)/(4 + 2) = 1/6 and (3 + 1)/(4 + 2) = 2/3: weights (5/6)² and (1/3)².
    probs = np.asarray(pfsp_probabilities(jnp.array([0.0, 3.0]), jnp.array([4.0, 4.0]), 2.0))
    np.testing.assert_allclose(probs, [25 / 29, 4 / 29], rtol=1e-6)
    uniform = pfsp_probabilities(jnp.array([0.0, 3.0, 1.0]), jnp.array([4.0, 4.0, 9.0]), 0.0)
    np.testing.assert_allclose(np.asarray(uniform), [1 / 3] * 3, rtol=1e-6)


def test_win_shares_split_a_shared_win():
    shares = np.asarray(win_shares(jnp.array([[1.0, -1.0], [0.0, 0.0]])))
    np.testing.assert_allclose(shares, [[1.0, 0.0], [0.5, 0.5]])
    three = np.asarray(win_shares(jnp.array([[-1.0, 1.0, 1.0]])))
    np.testing.assert_allclose(three, [[0.0, 0.5, 0.5]])
