"""Worlds in JAX: the batched ``resample_hidden`` of both games against the Python resamplers.

For every case: the seat's batched observation is bit-identical in every world; what it may not
see does change from world to world; two positions it cannot tell apart give the same world for
the same key; and the marginals of the worlds match those of the Python resampler.

The statistical test: per feature (a one-hot cell of a hidden part, e.g. "the other seat holds a
Priest", "the top lot of the stack is lot 7"), the mean over ``DRAWS`` JAX worlds and over
``DRAWS`` Python worlds may differ by at most ``Z`` standard errors of their difference (two
independent samples). With a few hundred cells and ``Z = 5`` a false alarm under equal
distributions has probability below 1e-3 (normal approximation), and the seeds are fixed, so the
test is deterministic; a resampler that forgets a part of the pool (the pile, a face-down card)
moves some cell by tens of standard errors.
"""

from __future__ import annotations

import random
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from tabletop_gym.core.turn_based import TurnBasedGame
from tabletop_gym.envs.positano import batched as P
from tabletop_gym.envs.positano.rules import PositanoGame
from tabletop_gym.envs.rapa_nui import batched as R
from tabletop_gym.envs.rapa_nui.rules import NUM_CARD_TYPES, RapaNuiGame
from tabletop_gym.jax.core import make

DRAWS = 1500
Z = 5.0

_rn_worlds = jax.jit(jax.vmap(R.resample_hidden, in_axes=(None, None, 0)))
_rn_views = jax.jit(jax.vmap(R.observe, in_axes=(0, None)))
_pos_worlds = jax.jit(jax.vmap(P.resample_hidden, in_axes=(None, None, 0)))
_pos_views = jax.jit(jax.vmap(P.observe, in_axes=(0, None)))


def _keys(seed: int, count: int = DRAWS) -> jax.Array:
    return jax.random.split(jax.random.PRNGKey(seed), count)


def assert_same_marginals(jax_rows: np.ndarray, py_rows: np.ndarray) -> None:
    """Every column's mean agrees within ``Z`` standard errors (see the module docstring)."""
    a, b = np.asarray(jax_rows, float), np.asarray(py_rows, float)
    diff = a.mean(0) - b.mean(0)
    se = np.sqrt(a.var(0) / len(a) + b.var(0) / len(b))
    bad = np.flatnonzero(np.abs(diff) > Z * se + 1e-12)
    assert bad.size == 0, f"cells {bad.tolist()}: jax {a.mean(0)[bad]} vs python {b.mean(0)[bad]}"


def _onehot(values: Any, size: int) -> np.ndarray:
    return np.eye(size)[np.asarray(values)]


# --- Rapa Nui ----------------------------------------------------------------------------------


def _rapa_nui_position(n: int, seed: int, moves: int, seat: int | None = None) -> Any:
    """After ``moves`` random moves and, if ``seat`` is given, once another seat has a
    face-down stone card (so its offering cards have two places to trade kinds between)."""
    game = RapaNuiGame(num_players=n)
    rng = random.Random(seed)
    ref = game.new_initial_state(rng)
    done = 0

    def down() -> int:
        fd = ref.to_dict()["stone_face_down"]
        return sum(sum(fd[q]) for q in range(n) if q != seat)

    while not ref.is_terminal() and (done < moves or (seat is not None and down() < 1)):
        ref.apply_action(rng.choice(ref.legal_actions()))
        done += 1
    return ref


def _rn_features(hands: np.ndarray, top: np.ndarray, hold: np.ndarray, down: np.ndarray,
                 seat: int) -> np.ndarray:
    """Rows of: the other seats' hand counts, the pile's top card (one-hot), their offerings."""
    others = [q for q in range(hands.shape[1]) if q != seat]
    return np.concatenate(
        [hands[:, others].reshape(len(hands), -1), _onehot(top, NUM_CARD_TYPES),
         hold[:, others].reshape(len(hands), -1), down[:, others].reshape(len(hands), -1)],
        axis=1,
    )


@pytest.mark.parametrize(("n", "seat", "seed"), [(2, 1, 0), (4, 2, 3)])
def test_rapa_nui_worlds_keep_the_view_and_redeal_the_rest_as_python_does(n, seat, seed):
    ref = _rapa_nui_position(n, seed=seed, moves=30, seat=seat)
    assert not ref.is_terminal()
    s = R.from_reference(ref)
    worlds = _rn_worlds(s, seat, _keys(n))
    views = np.asarray(_rn_views(worlds, seat))
    assert (views == np.asarray(R.observe(s, seat))[None]).all()
    w = jax.device_get(worlds)
    others = [q for q in range(n) if q != seat]
    # What the seat may not see changes: the others' hands, the pile order, their offerings.
    assert len({w.hands[i, others].tobytes() for i in range(50)}) > 10
    pile = slice(int(s.pile_pos), int(s.pile_end))
    assert len({w.deck[i, pile].tobytes() for i in range(50)}) > 10
    assert len({w.holdings[i, others].tobytes() for i in range(50)}) > 1
    # A world is a reference position: the loader checks every conservation law.
    for i in range(3):
        R.to_reference(jax.tree.map(lambda x, i=i: x[i], w)).check_invariants()
    py_rows = []
    rng = random.Random(100 + n)
    for _ in range(DRAWS):
        d = ref.resample_hidden(seat, rng).to_dict()
        hands = np.zeros((n, NUM_CARD_TYPES))
        for q, hand in enumerate(d["hands"]):
            np.add.at(hands[q], hand, 1)
        py_rows.append(_rn_features(hands[None], [d["draw_pile"][0]],
                                    np.array(d["holdings"])[None],
                                    np.array(d["stone_face_down"])[None], seat)[0])
    top = w.deck[:, int(s.pile_pos)]
    jax_rows = _rn_features(w.hands, top, w.holdings, w.face_down, seat)
    assert_same_marginals(jax_rows, np.array(py_rows))


def test_a_rapa_nui_world_depends_on_the_view_only():
    ref = _rapa_nui_position(2, seed=5, moves=70)
    # Another deal the seat cannot tell apart (the Python resampler keeps its view).
    twin = ref.resample_hidden(0, random.Random(9))
    a, b = R.from_reference(ref), R.from_reference(twin)
    assert not (np.asarray(a.hands) == np.asarray(b.hands)).all()
    keys = _keys(3, 8)
    wa, wb = jax.device_get(_rn_worlds(a, 0, keys)), jax.device_get(_rn_worlds(b, 0, keys))
    for x, y in zip(wa, wb, strict=True):
        assert (x == y).all()


def test_after_the_end_rapa_nui_offerings_stay_and_hands_are_redealt():
    ref = _rapa_nui_position(2, seed=2, moves=10_000)
    assert ref.is_terminal()
    s = R.from_reference(ref)
    w = jax.device_get(_rn_worlds(s, 0, _keys(4, 50)))
    # docs/rules/rapa_nui.md §3.1.5, §7.4: the final scoring turned every offering card over, so they are public.
    assert (w.holdings == np.asarray(s.holdings)[None]).all()
    assert (w.face_down == np.asarray(s.face_down)[None]).all()
    assert (w.hands[:, 0] == np.asarray(s.hands)[0][None]).all()
    if int(s.hands[1].sum()) + int(s.pile_end) - int(s.pile_pos) > 1:
        assert len({w.hands[i, 1].tobytes() for i in range(50)}) > 1


# --- Positano ----------------------------------------------------------------------------------


def _positano_bid(n: int, seed: int, round_: int) -> Any:
    """A turn-based position of round ``round_`` in which seat 0 has bid and seat 1 is to bid."""
    game = TurnBasedGame(PositanoGame(num_players=n))
    rng = random.Random(seed)
    ref: Any = game.new_initial_state(rng)
    while not (ref.inner.round == round_ and ref.pending[0] is not None):
        ref.apply_action(rng.choice(ref.legal_actions()))
    return ref


def _stack_tops(lot: Any, block: Any, build: Any) -> np.ndarray:
    return np.concatenate([_onehot(lot, 25), _onehot(block, 25), _onehot(build, 25)], axis=-1)


def test_positano_worlds_keep_the_view_and_redeal_the_rest_as_python_does():
    ref = _positano_bid(2, seed=1, round_=2)
    seat = 1
    s = P.from_reference(ref)
    assert int(s.pending[0]) == ref.pending[0]
    worlds = _pos_worlds(s, seat, _keys(11))
    views = np.asarray(_pos_views(worlds, seat))
    assert (views == np.asarray(P.observe(s, seat))[None]).all()
    w = jax.device_get(worlds)
    # Hidden: the stacks' orders and seat 0's bid; seat 1 has not bid, so nothing of its own.
    removed, t = len(ref.inner.removed_lots), 2
    lot0, tile0 = removed + 2 * t, 2 * t
    assert len({w.lot_order[i, lot0:].tobytes() for i in range(50)}) > 10
    assert len({w.build_order[i, tile0:].tobytes() for i in range(50)}) > 10
    assert len(set(w.pending[:, 0].tolist())) > 10
    assert (w.pending[:, 1] == -1).all()
    # The stacks keep their contents; everything before them stays in place.
    assert (np.sort(w.lot_order[:, lot0:], 1) == np.sort(np.asarray(s.lot_order)[lot0:])).all()
    assert (w.block_order[:, :tile0] == np.asarray(s.block_order)[:tile0]).all()
    py_rows = []
    rng = random.Random(7)
    for _ in range(DRAWS):
        d = ref.resample_hidden(seat, rng)
        py_rows.append(np.concatenate([
            _stack_tops(d.inner.lot_stack[0], d.inner.block_stack[0], d.inner.build_stack[0]),
            _onehot(d.pending[0], 192)]))
    jax_rows = np.concatenate([
        _stack_tops(w.lot_order[:, lot0], w.block_order[:, tile0], w.build_order[:, tile0]),
        _onehot(w.pending[:, 0], 192)], axis=1)
    assert_same_marginals(jax_rows, np.array(py_rows))


def test_a_positano_world_depends_on_the_view_only():
    ref = _positano_bid(2, seed=4, round_=3)
    twin = ref.resample_hidden(1, random.Random(2))
    a, b = P.from_reference(ref), P.from_reference(twin)
    assert (np.asarray(a.lot_order) != np.asarray(b.lot_order)).any()
    keys = _keys(5, 8)
    wa, wb = jax.device_get(_pos_worlds(a, 1, keys)), jax.device_get(_pos_worlds(b, 1, keys))
    for x, y in zip(wa, wb, strict=True):
        assert (x == y).all()
    # The seat's own committed bid is never redrawn.
    own = P.from_reference(ref)
    w = jax.device_get(_pos_worlds(own, 0, keys))
    assert (w.pending[:, 0] == ref.pending[0]).all()


def test_solo_positano_worlds_shuffle_ottos_undrawn_deck_as_python_does():
    game = PositanoGame(num_players=1)
    rng = random.Random(3)
    ref = game.new_initial_state(rng)
    while ref.round < 3:
        ref.apply_action(rng.choice(ref.legal_actions()))
    s = P.from_reference(ref)
    w = jax.device_get(_pos_worlds(s, 0, _keys(21)))
    assert (np.asarray(_pos_views(w, 0)) == np.asarray(P.observe(s, 0))[None]).all()
    k = len(ref.played_cards[1])
    # docs/rules/positano.md §7: Otto's played cards are face up; his undrawn ones keep their contents.
    assert (w.otto_cards[:, :k] == np.asarray(s.otto_cards)[:k]).all()
    assert len({w.otto_cards[i, k:].tobytes() for i in range(50)}) > 10
    py_rows = []
    for _ in range(DRAWS):
        d = ref.resample_hidden(0, rng)
        py_rows.append(np.concatenate([_onehot(d.hand_cards[1][0], 7),
                                       _onehot(d.hand_boosters[1][0], 6),
                                       _stack_tops(d.lot_stack[0], d.block_stack[0],
                                                   d.build_stack[0])]))
    kb = len(ref.played_boosters[1])
    removed = len(ref.removed_lots)
    r, t = ref.round, 2
    jax_rows = np.concatenate([_onehot(w.otto_cards[:, k], 7), _onehot(w.otto_boosters[:, kb], 6),
                               _stack_tops(w.lot_order[:, removed + r * t], w.block_order[:, r * t],
                                           w.build_order[:, r * t])], axis=1)
    assert_same_marginals(jax_rows, np.array(py_rows))


def test_turn_based_states_convert_with_their_committed_bids() -> None:
    # 2 players: seat 0's committed bid travels as pending; solo (Otto is colour 1, the bid is
    # one sequential decision) nothing is pending and the state is the inner one's.
    ref = _positano_bid(2, seed=1, round_=1)
    s = P.from_reference(ref)
    assert np.asarray(s.pending).tolist() == [ref.pending[0], -1]
    solo: Any = TurnBasedGame(PositanoGame(num_players=1)).new_initial_state(random.Random(0))
    a, b = P.from_reference(solo), P.from_reference(solo.inner)
    for x, y in zip(a, b, strict=True):
        assert np.array_equal(np.asarray(x), np.asarray(y))
    assert np.asarray(a.pending).tolist() == [-1, -1]


def test_the_bound_games_offer_their_resampler() -> None:
    assert make("rapa_nui", num_players=3).resample_hidden is R.resample_hidden
    assert make("positano", num_players=2).resample_hidden is P.resample_hidden


def test_a_larger_positano_table_keeps_the_view_and_redraws_every_other_bid() -> None:
    # 4 players on the 5x5 cliff (another lot count, rows of 4): seats 0-2 have bid, seat 3's
    # view stays; every committed bid of the others is redrawn, legal for its seat (docs/rules/positano.md §3.1).
    game = TurnBasedGame(PositanoGame(num_players=4, board_size=5))
    rng = random.Random(6)
    ref: Any = game.new_initial_state(rng)
    while not (ref.inner.round == 2 and ref.pending[2] is not None):
        ref.apply_action(rng.choice(ref.legal_actions()))
    s = P.from_reference(ref)
    w = jax.device_get(_pos_worlds(s, 3, _keys(8, 40)))
    assert (np.asarray(_pos_views(w, 3)) == np.asarray(P.observe(s, jnp.asarray(3)))[None]).all()
    for c in range(3):
        assert len(set(w.pending[:, c].tolist())) > 5
        assert all(a in ref.inner.legal_actions(c) for a in w.pending[:, c].tolist())
    assert (w.pending[:, 3] == -1).all()
    lot0 = len(ref.inner.removed_lots) + 2 * 4
    assert (np.sort(w.lot_order[:, lot0:], 1) == np.sort(np.asarray(s.lot_order)[lot0:])).all()
    assert len({w.lot_order[i, lot0:].tobytes() for i in range(40)}) > 10
