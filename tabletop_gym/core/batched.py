"""What every batched (JAX) twin of a game shares: the bound game interface and its helpers.

Exact returns, the shuffles of hidden information, and the observation assembled by part name.

A game's twin (``tabletop_gym.envs.<game>.batched``, optional) defines pure functions over its
own state pytree; its ``batched_spec(config)`` binds them to one config as a
:class:`BatchedGame` (with :func:`bind_module`), the object the batched envs and the benchmarks
take (``tabletop_gym.jax.core.make`` looks it up through the registry). Needs the ``jax`` extra:
nothing a core install imports may import this module.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import TYPE_CHECKING, Any

import jax
import jax.numpy as jnp
import numpy as np

from tabletop_gym.core.game import REWARD_TYPES

if TYPE_CHECKING:
    from tabletop_gym.core.layout import ActionRange
    from tabletop_gym.core.observer import ObservationLayout


@functools.cache
def _ratio_table(divisor: int, bound: int) -> np.ndarray:
    # Entry i is float32((i - bound) / divisor) rounded once from the exact quotient, which is
    # what float32 of the reference's float64 arithmetic gives (a quotient by 2..5 is never
    # within float64 error of a float32 rounding midpoint unless it is exact).
    return (np.arange(-bound, bound + 1, dtype=np.float64) / divisor).astype(np.float32)


def exact_ratio(numerator: jax.Array, divisor: int, bound: int) -> jax.Array:
    """Float32 ``numerator / divisor`` correctly rounded, for ``|numerator| <= bound``.

    XLA's vectorised float32 division on CPU is not correctly rounded (it may be one unit in
    the last place off), so rewards that must equal the reference's bit for bit come from a
    table of the exact quotients instead.
    """
    table = jnp.asarray(_ratio_table(divisor, bound))
    return table[jnp.clip(numerator, -bound, bound) + bound]


def returns(
    reward_type: jax.Array, totals: jax.Array, won: jax.Array, score_bound: int
) -> jax.Array:
    """``compute_returns`` of the reference engine in JAX, float32 per seat.

    Args:
        reward_type: Index into :data:`~tabletop_gym.core.game.REWARD_TYPES` (may be traced).
        totals: Int32 final score per seat.
        won: Bool per seat, the winners after the game's tie-breaks.
        score_bound: Upper bound of any seat's score (scores are ≥ 0).
    """
    n = totals.shape[0]
    win_loss = jnp.where(won.all(), 0.0, jnp.where(won, 1.0, -1.0))
    if n == 1:
        diff = totals.astype(jnp.float32)
    else:
        num = (n - 1) * totals - (totals.sum() - totals)
        diff = exact_ratio(num, n - 1, (n - 1) * score_bound)
    score = totals.astype(jnp.float32)
    return jnp.stack([win_loss, diff, score])[reward_type.astype(jnp.int32)]


# --- re-dealing hidden information (what a seat's ``resample_hidden`` shares) -----------------


def shuffled_pool(key: jax.Array, counts: jax.Array, size: int) -> jax.Array:
    """The multiset of ``counts`` in a uniformly random order, padded to ``size`` slots.

    The pool is laid out sorted (type 0's copies first) before it is shuffled, so the result is a
    function of the counts and ``key`` alone, never of the order the hidden items had: this is
    what makes a resampled world depend on a seat's view only (as the Python resamplers, which
    sort before they shuffle).

    Args:
        key: PRNG key of the shuffle.
        counts: Int ``(T,)``: copies of each type (their sum at most ``size``).
        size: Static length of the result.

    Returns:
        Int32 ``(size,)``: the ``counts.sum()`` items in random order, then ``T`` (padding).
    """
    counts = counts.astype(jnp.int32)
    num_types = counts.shape[0]
    pool = jnp.searchsorted(jnp.cumsum(counts), jnp.arange(size), side="right")
    # A uniform permutation of the padded pool; the stable sort then moves the padding to the end
    # and keeps the items' (uniformly random) relative order.
    mixed = jax.random.permutation(key, pool.astype(jnp.int32))
    return mixed[jnp.argsort(mixed == num_types, stable=True)]


def deal_counts(seq: jax.Array, sizes: jax.Array, num_types: int) -> jax.Array:
    """Per-type counts ``(P, T)`` of consecutive chunks of ``seq``, chunk ``p`` of ``sizes[p]``.

    Items past the last chunk (and padding, type ``T``) are not counted.
    """
    ends = jnp.cumsum(sizes.astype(jnp.int32))
    places = sizes.shape[0]
    owner = jnp.searchsorted(ends, jnp.arange(seq.shape[0]), side="right")
    out = jnp.zeros((places + 1, num_types + 1), jnp.int32).at[owner, seq].add(1)
    return out[:places, :num_types]


def shuffle_tail(key: jax.Array, order: jax.Array, start: jax.Array) -> jax.Array:
    """``order`` with the entries from index ``start`` on in a uniformly random order.

    The tail is sorted before it is shuffled (see :func:`shuffled_pool`), so the result does not
    depend on the tail's previous order. Entries are non-negative and below 127.
    """
    i = jnp.arange(order.shape[0])
    hidden = i >= start
    pad = 127
    tail = jnp.sort(jnp.where(hidden, order.astype(jnp.int32), pad))
    mixed = jax.random.permutation(key, tail)
    seq = mixed[jnp.argsort(mixed == pad, stable=True)]
    src = jnp.clip(i - start, 0, order.shape[0] - 1)
    return jnp.where(hidden, seq[src], order.astype(jnp.int32)).astype(order.dtype)


# --- the action layout, traced ----------------------------------------------------------------


@functools.cache
def _decode_table(rng: ActionRange) -> np.ndarray:
    # Row i is rng.decode(rng.start + i): the layout's own decoding, looked up.
    return np.array([rng.decode(a) for a in range(rng.start, rng.stop)], np.int32)


def decode(rng: ActionRange, action: jax.Array) -> tuple[jax.Array, ...]:
    """:meth:`ActionRange.decode` of traced ids: the index of ``action`` in ``rng``, per axis.

    Int32 arrays of ``action``'s shape, one per axis of ``rng.shape``. An id outside the range
    gives the index of the range's nearest end (callers mask it out).
    """
    table = jnp.asarray(_decode_table(rng))
    rows = table[jnp.clip(jnp.asarray(action, jnp.int32) - rng.start, 0, rng.size - 1)]
    return tuple(rows[..., axis] for axis in range(len(rng.shape)))


# --- the observation, part by part ------------------------------------------------------------


def one_hot(index: jax.Array | int, size: int) -> jax.Array:
    """Float32 ``(size,)``: 1 at ``index``, zeros elsewhere (all zeros for an index outside)."""
    return (jnp.arange(size) == index).astype(jnp.float32)


def assemble(layout: ObservationLayout, parts: Mapping[str, Any]) -> jax.Array:
    """The observation vector: each named part flattened into its slice of ``layout``.

    A twin's ``observe`` computes its parts by the names the game's
    :class:`~tabletop_gym.core.observer.ObservationLayout` declares; the layout alone says
    their order and sizes, and this checks them when ``observe`` is traced.

    Args:
        layout: The game's observation layout (the reference observer's).
        parts: Every slice's values by name, in any order and shape (``size`` entries each).

    Raises:
        ValueError: At trace time, when a declared part is missing, an undeclared one is given,
            or a part's size differs from the layout's.
    """
    names = list(layout.slices)
    if set(parts) != set(names):
        raise ValueError(f"observe: parts missing {sorted(set(names) - set(parts))}, "
                         f"undeclared {sorted(set(parts) - set(names))}")
    flat = []
    for name, sl in layout.slices.items():
        x = jnp.asarray(parts[name]).astype(jnp.float32).reshape(-1)
        if x.shape[0] != sl.size:
            raise ValueError(f"observe: part {name!r} has {x.shape[0]} entries, the layout "
                             f"declares {sl.size}")
        flat.append(x)
    return jnp.concatenate(flat)


@dataclasses.dataclass(frozen=True, eq=False)
class BatchedGame:
    """One game and config with its pure functions bound (hashable: usable as a static arg).

    Attributes:
        name: The game's registry name (``"rapa_nui"``).
        config: The reference engine's config.
        num_players: Seats.
        num_actions: Action ids (the same as the reference engine's).
        observation_size: Length of one observation vector.
        init: ``key -> state``.
        step: ``(state, action) -> state``.
        observe: ``(state, player) -> float32 (observation_size,)``.
        legal_action_mask: ``state -> bool (num_actions,)``.
        rewards: ``state -> float32 (num_players,)``.
        terminated: ``state -> bool``.
        current_player: ``state -> int32`` (negative at the end).
        resample_hidden: ``(state, seat, key) -> state``: a world drawn from what ``seat`` knows
            (the Python ``resample_hidden`` of the reference state, in JAX).
        deck: The chance deck in a fixed order: the cards (or tiles, cards, sets) whose order
            is every chance event of a deal.
        init_from_deck: ``permuted deck -> state``; ``init`` is this after a shuffle.
        min_decisions: No game (without an illegal action) ends in fewer decisions.
        deck_ends: Per deck position, the end of its shuffle segment: each segment is shuffled
            on its own (None: the whole deck is one segment).
    """

    name: str
    config: Any
    num_players: int
    num_actions: int
    observation_size: int
    init: Callable[[jax.Array], Any]
    step: Callable[[Any, jax.Array], Any]
    observe: Callable[[Any, jax.Array], jax.Array]
    legal_action_mask: Callable[[Any], jax.Array]
    rewards: Callable[[Any], jax.Array]
    terminated: Callable[[Any], jax.Array]
    current_player: Callable[[Any], jax.Array]
    resample_hidden: Callable[[Any, jax.Array, jax.Array], Any]
    deck: np.ndarray
    init_from_deck: Callable[[jax.Array], Any]
    min_decisions: int
    deck_ends: np.ndarray | None = None


def bind_module(
    module: ModuleType,
    config: Any,
    deck: np.ndarray,
    min_decisions: int,
    deck_ends: np.ndarray | None = None,
    *,
    name: str,
) -> BatchedGame:
    """A :class:`BatchedGame` of an engine module's functions bound to ``config``.

    The module (``tabletop_gym.envs.<game>.batched``) defines ``init``, ``init_from_deck``,
    ``step``, ``observe``, ``legal_action_mask``, ``rewards``, ``terminated``,
    ``current_player``, ``resample_hidden``, ``NUM_ACTIONS`` and ``OBSERVATION_SIZE``; its
    ``batched_spec(config)`` calls this with its chance deck and the game's registry ``name``.
    """
    return BatchedGame(
        name=name,
        config=config,
        num_players=config.num_players,
        num_actions=module.NUM_ACTIONS,
        observation_size=module.OBSERVATION_SIZE,
        init=functools.partial(module.init, config=config),
        step=module.step,
        observe=module.observe,
        legal_action_mask=module.legal_action_mask,
        rewards=module.rewards,
        terminated=module.terminated,
        current_player=module.current_player,
        resample_hidden=module.resample_hidden,
        deck=deck,
        init_from_deck=functools.partial(module.init_from_deck, config=config),
        min_decisions=min_decisions,
        deck_ends=deck_ends,
    )


__all__ = [
    "REWARD_TYPES",
    "BatchedGame",
    "assemble",
    "bind_module",
    "deal_counts",
    "decode",
    "exact_ratio",
    "one_hot",
    "returns",
    "shuffle_tail",
    "shuffled_pool",
]
