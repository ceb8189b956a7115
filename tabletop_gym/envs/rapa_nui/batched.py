"""Rapa Nui as a batched JAX engine, bit-exact with ``tabletop_gym.envs.rapa_nui.rules``.

The state is a :class:`State` of fixed-shape integer arrays (seat axis of length ``n``, the
player count, which fixes the shapes; every other config switch is a field of the state, so one
compiled ``step`` serves every combination of switches). The shuffle of the 50 cards is the only
chance event; it happens in :func:`init`. The deck keeps its dealt order for the whole game: a
column is a window ``deck[col_start + col_pos : col_start + 4]`` and a refill moves the window to
the next four pile cards, so no card is ever moved or reshuffled.

Action ids, the observation vector and the rewards are those of the reference engine and its
observer (``RapaNuiObserver``); the differential tests compare them at every step. An illegal
action ends the game with −1 for the seat that took it and 0 for the others (as the PettingZoo
env does with ``illegal_action="terminate"``); stepping a finished game returns it unchanged.
"""

from __future__ import annotations

import functools
import sys
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from tabletop_gym.core.batched import (
    BatchedGame,
    assemble,
    bind_module,
    deal_counts,
    decode,
    one_hot,
    returns,
    shuffled_pool,
)
from tabletop_gym.core.game import REWARD_TYPES, TERMINAL
from tabletop_gym.core.observer import ObservationLayout
from tabletop_gym.envs.rapa_nui.observer import observation_layout
from tabletop_gym.envs.rapa_nui.rules import (
    BUY_BASE_COST,
    COLUMN_SIZE,
    DECK_COUNTS,
    DRAW,
    HAND_SIZE,
    HG,
    MAX_MOAI_UNITS,
    MOAI,
    MOAI_COST,
    MOAI_END_VP,
    MOAI_VP,
    NO_BUY,
    NUM_ACTIONS,
    NUM_CARD_TYPES,
    NUM_COLUMNS,
    NUM_KINDS,
    OFFER,
    OFFERING_STACK_SIZE,
    PHASES,
    PLAY_HG,
    PLAY_HG_RANGE,
    PLAY_MOAI,
    PLAY_PRIEST,
    PLAY_WOODCUTTER,
    PRIEST,
    REMOVE_MOAI,
    START_WOOD,
    SUPPLY,
    SUPPLY_SKIP,
    WOOD_PER_VP,
    WOODCUTTER,
    RapaNuiConfig,
    RapaNuiGame,
    RapaNuiState,
)

_BUY, _PLAY, _DRAW, _OFFER, _SUPPLY, _SPLIT, _TERMINAL = range(len(PHASES))
DECK_SIZE = sum(DECK_COUNTS)
BASE_DECK = np.array([c for c, k in enumerate(DECK_COUNTS) for _ in range(k)], dtype=np.int8)
"""The 50 cards in id order; a deal is a permutation of it."""
MIN_DECISIONS = 60
"""No game ends sooner: 36 draws (8 refills of 4 plus one more emptied column of 4) and at least
12 turns of a purchase and a play decision each."""


class State(NamedTuple):
    """One Rapa Nui position (a pytree: ``jax.vmap`` stacks every field along a batch axis).

    Seat-indexed fields have ``n`` rows (the player count). Card counts are per card id, offering
    counts per kind, as in the reference engine.
    """

    phase: jax.Array  # int8: index into PHASES
    active: jax.Array  # int8: seat on turn
    cur: jax.Array  # int8: seat to decide; TERMINAL (-4) when the game is over
    draws_left: jax.Array  # int8
    hands: jax.Array  # int8 (n, 7)
    displays: jax.Array  # int8 (n, 7)
    wood: jax.Array  # int16 (n,)
    vp: jax.Array  # int16 (n,)
    holdings: jax.Array  # int16 (n, 4)
    face_down: jax.Array  # int8 (n, 4)
    stone_up: jax.Array  # int16 (4,)
    supply: jax.Array  # int8 (4,)
    deck: jax.Array  # int8 (50,): the dealt order; columns and pile are windows into it
    col_start: jax.Array  # int8 (4,): deck index of each column's block of four
    col_pos: jax.Array  # int8 (4,): cards already taken from that block (4 = empty)
    pile_pos: jax.Array  # int8: deck index of the top of the draw pile
    pile_end: jax.Array  # int8: one past the last pile card
    removed: jax.Array  # int8: Moai removed from the game
    units: jax.Array  # int8 (n,): Moai units still to split
    voluntary_discard: jax.Array  # bool: allow_voluntary_moai_discard
    supply_optional: jax.Array  # bool: active_supply_offering_optional
    all_same: jax.Array  # bool: moai_choice == "all_same"
    limited: jax.Array  # bool: offering_supply_limited
    ranked: jax.Array  # bool: zero_count_kind_value == "ranked"
    hg_bonus: jax.Array  # bool: hunter_gatherer_majority_bonus
    reward_type: jax.Array  # int8: index into REWARD_TYPES
    terminated: jax.Array  # bool
    rewards: jax.Array  # float32 (n,): the returns, set when the game ends


_DTYPES = {
    "phase": jnp.int8,
    "active": jnp.int8,
    "cur": jnp.int8,
    "draws_left": jnp.int8,
    "hands": jnp.int8,
    "displays": jnp.int8,
    "wood": jnp.int16,
    "vp": jnp.int16,
    "holdings": jnp.int16,
    "face_down": jnp.int8,
    "stone_up": jnp.int16,
    "supply": jnp.int8,
    "deck": jnp.int8,
    "col_start": jnp.int8,
    "col_pos": jnp.int8,
    "pile_pos": jnp.int8,
    "pile_end": jnp.int8,
    "removed": jnp.int8,
    "units": jnp.int8,
    "voluntary_discard": jnp.bool_,
    "supply_optional": jnp.bool_,
    "all_same": jnp.bool_,
    "limited": jnp.bool_,
    "ranked": jnp.bool_,
    "hg_bonus": jnp.bool_,
    "reward_type": jnp.int8,
    "terminated": jnp.bool_,
    "rewards": jnp.float32,
}


def _cast(s: State) -> State:
    """Bring every field back to its storage dtype after int32 arithmetic."""
    return State(**{f: jnp.asarray(getattr(s, f)).astype(_DTYPES[f]) for f in State._fields})


def _widen(s: State) -> State:
    # Arithmetic runs in int32 (no overflow, no mixed-dtype scatters); _cast narrows again.
    return State(
        **{
            f: x.astype(jnp.int32) if jnp.issubdtype(x.dtype, jnp.integer) else x
            for f, x in zip(State._fields, s, strict=True)
        }
    )


def _switches(config: RapaNuiConfig) -> dict[str, Any]:
    return {
        "voluntary_discard": config.allow_voluntary_moai_discard,
        "supply_optional": config.active_supply_offering_optional,
        "all_same": config.moai_choice == "all_same",
        "limited": config.offering_supply_limited,
        "ranked": config.zero_count_kind_value == "ranked",
        "hg_bonus": config.hunter_gatherer_majority_bonus,
        "reward_type": REWARD_TYPES.index(config.reward_type),
    }


def _setup(n: int, deck: Any, config: RapaNuiConfig) -> dict[str, Any]:
    """Fields of the §2 setup around a dealt ``deck`` (numpy or JAX)."""
    hands = np.zeros((n, NUM_CARD_TYPES), np.int8)
    displays = np.zeros((n, NUM_CARD_TYPES), np.int8)
    for p in range(n):
        displays[p, WOODCUTTER] = 1
        for k in range(NUM_KINDS):
            if k != p:
                hands[p, HG + k] = 1
    return {
        "phase": _BUY,
        "active": 0,
        "cur": 0,
        "draws_left": 0,
        "hands": hands,
        "displays": displays,
        "wood": np.array(START_WOOD[:n]),
        "vp": np.zeros(n),
        "holdings": np.ones((n, NUM_KINDS)),
        "face_down": np.zeros((n, NUM_KINDS)),
        "stone_up": np.zeros(NUM_KINDS),
        "supply": np.full(NUM_KINDS, OFFERING_STACK_SIZE - n),
        "deck": deck,
        "col_start": np.arange(NUM_COLUMNS) * COLUMN_SIZE,
        "col_pos": np.zeros(NUM_COLUMNS),
        "pile_pos": NUM_COLUMNS * COLUMN_SIZE,
        "pile_end": DECK_SIZE,
        "removed": 0,
        "units": np.zeros(n),
        **_switches(config),
        "terminated": False,
        "rewards": np.zeros(n),
    }


def init(key: jax.Array, config: RapaNuiConfig | None = None) -> State:
    """Deal a game (§2) with the shuffle drawn from ``key``.

    Args:
        key: A JAX PRNG key.
        config: The reference engine's config (default: 2 players, default switches); the
            player count fixes the shapes, so it must be a Python value, not traced.
    """
    return init_from_deck(jax.random.permutation(key, jnp.asarray(BASE_DECK)), config)


def init_from_deck(deck: jax.Array, config: RapaNuiConfig | None = None) -> State:
    """The §2 setup around an already shuffled ``deck`` (a permutation of :data:`BASE_DECK`)."""
    config = config or RapaNuiConfig()
    return _cast(State(**_setup(config.num_players, deck, config)))


# --- legality ---------------------------------------------------------------------------------


def _i32(x: jax.Array) -> jax.Array:
    return x.astype(jnp.int32)


def legal_action_mask(s: State) -> jax.Array:
    """Bool ``(45,)``: the legal action ids of the seat to decide (all False at the end)."""
    p = jnp.maximum(_i32(s.cur), 0)
    wood = _i32(s.wood[p])
    hand = _i32(s.hands[p])
    disp = _i32(s.displays[p])
    stack_ok = (s.supply > 0) | ~s.limited
    f = jnp.zeros(NUM_ACTIONS, bool)

    buy = stack_ok & (wood >= jnp.maximum(0, BUY_BASE_COST - disp[HG:]))
    m_buy = f.at[:NO_BUY].set(buy).at[NO_BUY].set(True)

    stuck = hand[MOAI] == HAND_SIZE
    counts = jnp.arange(1, PLAY_HG_RANGE.shape[1] + 1)
    hg = (hand[HG:, None] >= counts[None, :]) & (counts[None, :] - 1 <= wood)
    can_build = wood >= MOAI_COST
    m_play = (
        f.at[PLAY_WOODCUTTER]
        .set(~stuck & (hand[WOODCUTTER] > 0))
        .at[PLAY_PRIEST]
        .set(~stuck & (hand[PRIEST] > 0))
        .at[PLAY_MOAI]
        .set((hand[MOAI] > 0) & can_build)
        .at[PLAY_HG_RANGE.start : PLAY_HG_RANGE.stop]
        .set(~stuck & hg.reshape(-1))
        .at[REMOVE_MOAI]
        .set(stuck & (~can_build | s.voluntary_discard))
    )

    m_draw = f.at[DRAW : DRAW + NUM_COLUMNS].set(s.col_pos < COLUMN_SIZE)
    m_offer = f.at[OFFER : OFFER + NUM_KINDS].set(s.holdings[p] > 0)
    m_supply = f.at[SUPPLY : SUPPLY + NUM_KINDS].set(stack_ok)
    m_supply = m_supply.at[SUPPLY_SKIP].set(s.supply_optional)
    u = _i32(s.units[p])
    v = jnp.arange(MAX_MOAI_UNITS + 1)
    split = jnp.where(s.all_same, (v == 0) | (v == u), v <= u)
    m_split = f.at[MOAI_VP:].set(split)
    return jnp.stack([m_buy, m_play, m_draw, m_offer, m_supply, m_split, f])[_i32(s.phase)]


# --- transitions ------------------------------------------------------------------------------


def _rel(n: int, a: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Seats clockwise from ``a`` (``a`` first) and each seat's distance from ``a``."""
    order = (a + jnp.arange(n)) % n
    dist = (jnp.arange(n) - a) % n
    return order, dist


def _next_offerer(
    s: State, current: jax.Array, start: jax.Array
) -> tuple[jax.Array, jax.Array]:
    """(phase, decider) after ``current`` placed its card, or at the round's start (§3.1)."""
    n = s.hands.shape[0]
    a = _i32(s.active)
    pos = (current - a) % n
    pos = jnp.where(start, 0, jnp.where(pos == 0, n, pos))
    i = jnp.arange(1, n + 1)
    q = (a + i) % n
    cand = (i > pos) & (s.holdings.sum(1) > 0)[q]
    found = cand.any()
    nxt = q[jnp.argmax(cand)]
    supply_ok = s.supply_optional | ~s.limited | (s.supply > 0).any()
    phase = jnp.where(found, _OFFER, jnp.where(supply_ok, _SUPPLY, _DRAW))
    return phase, jnp.where(found, nxt, a)


def _next_turn(s: State) -> State:
    a = (_i32(s.active) + 1) % s.hands.shape[0]
    return s._replace(active=a, cur=a, phase=jnp.asarray(_BUY))


def _next_splitter(s: State, current: jax.Array, start: jax.Array) -> State:
    """Hand the Moai split to the next seat clockwise from the active one with units (§4)."""
    n = s.hands.shape[0]
    a = _i32(s.active)
    first = jnp.where(start, 0, (current - a) % n + 1)
    order, _ = _rel(n, a)
    cand = (jnp.arange(n) >= first) & (s.units[order] > 0)
    found = cand.any()
    turn = _next_turn(s)
    return s._replace(
        phase=jnp.where(found, _SPLIT, turn.phase),
        cur=jnp.where(found, order[jnp.argmax(cand)], turn.cur),
        active=jnp.where(found, s.active, turn.active),
    )


def _gains(s: State, k: jax.Array, want: jax.Array, a: jax.Array) -> State:
    """Hand out ``want[q]`` offering cards of kind ``k`` clockwise from seat ``a`` (§1.4).

    With a limited supply a short stack serves the seats in that order and the rest is lost.
    """
    n = s.hands.shape[0]
    _, dist = _rel(n, a)
    before = (want[None, :] * (dist[None, :] < dist[:, None])).sum(1)
    avail = _i32(s.supply[k])
    got = jnp.where(s.limited, jnp.clip(avail - before, 0, want), want)
    return s._replace(
        holdings=s.holdings.at[:, k].add(got.astype(s.holdings.dtype)),
        supply=s.supply.at[k].set(jnp.maximum(0, avail - want.sum()).astype(s.supply.dtype)),
    )


def _sole_majority(counts: jax.Array) -> jax.Array:
    """Bool per seat: strictly the most, with at least 2 (§4)."""
    best = counts.max()
    return (counts == best) & (best >= 2) & ((counts == best).sum() == 1)


def _score(s: State, card: jax.Array) -> State:
    """Turn scoring of the revealed ``card`` for every seat (§4), then the next turn or split."""
    a = _i32(s.active)
    counts = _i32(s.displays[:, card])
    bonus = _sole_majority(counts).astype(jnp.int32)
    gain = counts + bonus
    s2 = s._replace(
        wood=s.wood + jnp.where(card == WOODCUTTER, gain, 0).astype(s.wood.dtype),
        vp=s.vp + jnp.where(card == PRIEST, gain, 0).astype(s.vp.dtype),
    )
    hg_want = (counts > 0) + jnp.where(s.hg_bonus, bonus, 0)
    hg = _gains(s2, jnp.clip(card - HG, 0, NUM_KINDS - 1), hg_want, a)
    s2 = jax.tree.map(lambda x, y: jnp.where(card >= HG, y, x), s2, hg)
    turn = _next_turn(s2)
    is_moai = (card == MOAI) & (gain.sum() > 0)
    moai = _next_splitter(s2._replace(units=gain.astype(s.units.dtype)), a, jnp.bool_(True))
    return jax.tree.map(lambda x, y: jnp.where(is_moai, y, x), turn, moai)


def _buy(s: State, p: jax.Array, action: jax.Array) -> State:
    k = jnp.clip(action, 0, NUM_KINDS - 1)
    buying = action != NO_BUY
    cost = jnp.maximum(0, BUY_BASE_COST - _i32(s.displays[p, HG + k]))
    want = jnp.zeros(s.hands.shape[0], jnp.int32).at[p].set(buying.astype(jnp.int32))
    s2 = _gains(s, k, want, p)
    wood = s.wood.at[p].add(-jnp.where(buying, cost, 0))
    return s2._replace(wood=wood, phase=jnp.asarray(_PLAY))


def _play(s: State, p: jax.Array, action: jax.Array) -> State:
    is_moai = action == PLAY_MOAI
    remove = action == REMOVE_MOAI
    is_hg = (action >= PLAY_HG) & (action < REMOVE_MOAI)
    # (kind, count - 1): the action layout's decoding of the H&G range (other ids are masked).
    k, c = decode(PLAY_HG_RANGE, action)
    card = jnp.where(
        is_hg, HG + k, jnp.where(is_moai | remove, MOAI, action - PLAY_WOODCUTTER)
    )
    card = jnp.clip(card, 0, NUM_CARD_TYPES - 1)
    count = jnp.where(is_hg, c + 1, 1)
    cost = jnp.where(is_moai, MOAI_COST, jnp.where(is_hg, c, 0))
    s2 = s._replace(
        hands=s.hands.at[p, card].add(-count),
        displays=s.displays.at[p, card].add(jnp.where(remove, 0, count)),
        wood=s.wood.at[p].add(-cost),
        removed=s.removed + remove,
        draws_left=count,
    )
    phase, cur = _next_offerer(s2, p, jnp.bool_(True))
    return s2._replace(phase=jnp.where(is_moai, phase, _DRAW), cur=jnp.where(is_moai, cur, p))


def _draw(s: State, p: jax.Array, action: jax.Array) -> State:
    c = jnp.clip(action - DRAW, 0, NUM_COLUMNS - 1)
    start = _i32(s.col_start[c])
    pos = _i32(s.col_pos[c]) + 1
    card = _i32(s.deck[jnp.minimum(start + pos - 1, DECK_SIZE - 1)])
    draws = _i32(s.draws_left) - 1
    emptied = pos == COLUMN_SIZE
    pile = _i32(s.pile_pos)
    end = emptied & (_i32(s.pile_end) - pile < COLUMN_SIZE)
    refill = emptied & ~end
    start = jnp.where(refill, pile, start)
    pos = jnp.where(refill, 0, pos)
    s2 = s._replace(
        hands=s.hands.at[p, card].add(1),
        draws_left=draws,
        col_start=s.col_start.at[c].set(start),
        col_pos=s.col_pos.at[c].set(pos),
        pile_pos=pile + jnp.where(refill, COLUMN_SIZE, 0),
    )
    front = _i32(s2.deck[jnp.minimum(start + pos, DECK_SIZE - 1)])
    scored = _score(s2, front)
    s3 = jax.tree.map(lambda x, y: jnp.where(~end & (draws == 0), y, x), s2, scored)
    ended = _finish(s2._replace(draws_left=jnp.asarray(0)))
    return jax.tree.map(lambda x, y: jnp.where(end, y, x), s3, ended)


def _offer(s: State, p: jax.Array, action: jax.Array) -> State:
    k = jnp.clip(action - OFFER, 0, NUM_KINDS - 1)
    own = p == _i32(s.active)
    s2 = s._replace(
        holdings=s.holdings.at[p, k].add(-1),
        face_down=s.face_down.at[p, k].add(own.astype(jnp.int8)),
        stone_up=s.stone_up.at[k].add((~own).astype(jnp.int16)),
    )
    phase, cur = _next_offerer(s2, p, jnp.bool_(False))
    return s2._replace(phase=phase, cur=cur)


def _supply(s: State, p: jax.Array, action: jax.Array) -> State:
    k = jnp.clip(action - SUPPLY, 0, NUM_KINDS - 1)
    placing = action != SUPPLY_SKIP
    return s._replace(
        supply=s.supply.at[k].set(
            jnp.where(placing, jnp.maximum(0, _i32(s.supply[k]) - 1), s.supply[k])
        ),
        stone_up=s.stone_up.at[k].add(placing.astype(jnp.int16)),
        phase=jnp.asarray(_DRAW),
    )


def _split(s: State, p: jax.Array, action: jax.Array) -> State:
    v = action - MOAI_VP
    u = _i32(s.units[p])
    s2 = s._replace(
        vp=s.vp.at[p].add(v), wood=s.wood.at[p].add(u - v), units=s.units.at[p].set(0)
    )
    return _next_splitter(s2, p, jnp.bool_(False))


def _identity(s: State, p: jax.Array, action: jax.Array) -> State:
    return s


# --- results ----------------------------------------------------------------------------------


def kind_values(s: State) -> jax.Array:
    """VP per held offering card of each kind by the current stone (§7.4), int32 ``(4,)``."""
    stone = _i32(s.stone_up) + _i32(s.face_down).sum(0)
    # A count is counted once among the "distinct counts above": skip a repeat of an earlier one.
    first = ~jnp.tril(stone[:, None] == stone[None, :], -1).any(1)
    above = ((stone[None, :] > stone[:, None]) & first[None, :]).sum(1)
    values = jnp.maximum(0, 3 - above)
    values = jnp.where((stone == 0) & ~s.ranked, 0, values)
    return jnp.where(stone.any(), values, 0)


def score_breakdown(s: State) -> dict[str, jax.Array]:
    """Per seat int32 arrays of the §7 parts, as ``RapaNuiState.score_breakdown`` names them.

    Keys: ``vp_tiles``, ``moai``, ``wood``, ``offerings``, ``total``, ``moai_count``,
    ``wood_count`` (each ``(n,)``) and ``kind_values`` (``(4,)``).
    """
    values = kind_values(s)
    moai = _i32(s.displays[:, MOAI])
    parts = {
        "vp_tiles": _i32(s.vp),
        "moai": MOAI_END_VP * moai,
        "wood": _i32(s.wood) // WOOD_PER_VP,
        "offerings": (_i32(s.holdings) * values[None, :]).sum(1),
    }
    total = sum(parts.values(), jnp.asarray(0))
    return {**parts, "total": total, "kind_values": values, "moai_count": moai,
            "wood_count": _i32(s.wood)}


def winners(s: State) -> jax.Array:
    """Bool per seat: highest total, then most Moai, then most wood; ties share (§7)."""
    b = score_breakdown(s)
    key = (b["total"] * 16 + b["moai_count"]) * 1024 + b["wood_count"]
    return key == key.max()


def _returns(s: State) -> jax.Array:
    """``compute_returns`` of the reference for this position's scores, float32 per seat."""
    n = s.hands.shape[0]
    return returns(s.reward_type, score_breakdown(s)["total"], winners(s), _score_bound(n))


@functools.cache
def _score_bound(n: int) -> int:
    # The unlimited supply has the larger bound; it serves both settings.
    cfg = RapaNuiConfig(num_players=n, offering_supply_limited=False)
    return int(RapaNuiGame(cfg).score_bounds[1])


def _finish(s: State) -> State:
    return s._replace(
        phase=jnp.asarray(_TERMINAL),
        cur=jnp.asarray(TERMINAL),
        terminated=jnp.asarray(True),
        rewards=_returns(s),
    )


def step(s: State, action: jax.Array) -> State:
    """Apply the action id of the seat to decide.

    An illegal id ends the game (−1 for that seat, 0 for the others); a finished game is
    returned unchanged.
    """
    action = jnp.asarray(action, jnp.int32)
    p = jnp.maximum(_i32(s.cur), 0)
    legal = legal_action_mask(s)[jnp.clip(action, 0, NUM_ACTIONS - 1)] & (
        (action >= 0) & (action < NUM_ACTIONS)
    )
    nxt = jax.lax.switch(_i32(s.phase), _BRANCHES, _widen(s), p, action)
    n = s.hands.shape[0]
    penalty = s._replace(
        phase=jnp.asarray(_TERMINAL),
        cur=jnp.asarray(TERMINAL),
        terminated=jnp.asarray(True),
        rewards=jnp.where(jnp.arange(n) == p, -1.0, 0.0),
    )
    bad = ~legal & ~s.terminated
    out = jax.tree.map(lambda x, y: jnp.where(bad, y, x), nxt, _cast(penalty))
    return jax.tree.map(lambda x, y: jnp.where(s.terminated, y, x), out, s)


def _typed(f: Any) -> Any:
    # lax.switch needs every branch to return the same dtypes.
    return lambda s, p, action: _cast(f(s, p, action))


_BRANCHES = [_typed(f) for f in (_buy, _play, _draw, _offer, _supply, _split, _identity)]


def terminated(s: State) -> jax.Array:
    """Whether the game is over."""
    return s.terminated


def rewards(s: State) -> jax.Array:
    """Float32 per seat: the returns by ``reward_type`` once the game is over, else zeros."""
    return s.rewards


def current_player(s: State) -> jax.Array:
    """The seat to decide (int32), ``TERMINAL`` (−4) at the end."""
    return _i32(s.cur)


# --- observation ------------------------------------------------------------------------------


@functools.cache
def _observation_layout(config: RapaNuiConfig) -> ObservationLayout:
    """The game's declared layout for ``config`` (``observer.observation_layout``).

    Its names, order and sizes are the same for every config (the bounds alone depend on the
    supply switch), so :func:`observe` reads them for the player count only.
    """
    return observation_layout(config)


OBSERVATION_SIZE = _observation_layout(RapaNuiConfig()).size
"""Length of one observation (the reference observer's layout)."""
_FEWEST_PLAYERS = RapaNuiConfig.__dataclass_fields__["num_players"].metadata["range"][0]
"""The player count the ``num_players`` one-hot starts at (the config's lower bound)."""


def observe(s: State, player: jax.Array) -> jax.Array:
    """Float32 ``(OBSERVATION_SIZE,)``: what ``player`` may know, as ``RapaNuiObserver`` encodes it.

    Each part is computed under its name in the observer's layout, which alone gives the order
    and the sizes (:func:`~tabletop_gym.core.batched.assemble` checks them at trace time).
    """
    n = s.hands.shape[0]
    layout = _observation_layout(RapaNuiConfig(num_players=n))
    player = jnp.asarray(player, jnp.int32)
    seats = (player + jnp.arange(n)) % n
    # Per-seat parts list the seats in ego order, padded to the layout's seats with zeros.
    pad = layout["seat"].size - n

    def hot(name: str, i: jax.Array | int) -> jax.Array:
        return one_hot(i, layout[name].size)

    def per_seat(x: jax.Array) -> jax.Array:
        return jnp.pad(x[seats].astype(jnp.float32), (0, pad))

    cur = _i32(s.cur)
    decider = jnp.where(cur >= 0, (cur - player) % n, -1)
    pos = jnp.arange(COLUMN_SIZE)
    idx = s.col_start[:, None].astype(jnp.int32) + s.col_pos[:, None] + pos[None, :]
    live = _i32(s.col_pos)[:, None] + pos[None, :] < COLUMN_SIZE
    cards = s.deck[jnp.minimum(idx, DECK_SIZE - 1)]
    columns = (cards[..., None] == jnp.arange(NUM_CARD_TYPES)) & live[..., None]
    parts = {
        "num_players": hot("num_players", n - _FEWEST_PLAYERS),
        "seat": hot("seat", player),
        "phase": hot("phase", _i32(s.phase)),
        "active_player": hot("active_player", (_i32(s.active) - player) % n),
        "decider": hot("decider", decider),
        "draws_left": s.draws_left,
        "moai_units": per_seat(s.units),
        "own_hand": s.hands[player],
        "own_holdings": s.holdings[player],
        "own_face_down": s.face_down[player],
        "displays": jnp.pad(s.displays[seats], ((0, pad), (0, 0))),
        "wood": per_seat(s.wood),
        "vp": per_seat(s.vp),
        "hand_sizes": per_seat(_i32(s.hands).sum(1)),
        "holding_counts": per_seat(_i32(s.holdings).sum(1)),
        "face_down_counts": per_seat(_i32(s.face_down).sum(1)),
        "columns": columns,
        "stone_face_up": s.stone_up,
        "stone_face_down": _i32(s.face_down).sum(),
        "supply": s.supply,
        "draw_pile": _i32(s.pile_end) - s.pile_pos,
        "removed_moai": s.removed,
    }
    return assemble(layout, parts)


# --- hidden information -------------------------------------------------------------------------


def _offering_cap(n: int) -> int:
    """At most this many offering cards are held and face down in all (even unlimited supply).

    Each seat starts with one of each kind (§2); every turn draws at least one card, so a game
    has at most :data:`DECK_SIZE` turns, and a turn hands out at most one bought card and, when
    a Hunter-Gatherer is scored, two per seat (one plus the majority bonus, §4).
    """
    return n * NUM_KINDS + DECK_SIZE * (1 + 2 * n)


def resample_hidden(s: State, player: jax.Array, key: jax.Array) -> State:
    """A world drawn from what ``player`` knows: ``RapaNuiState.resample_hidden`` in JAX.

    The other seats' hand cards and the draw pile are pooled, shuffled and dealt back (each hand
    keeps its size, the pile its size, the other seats in seat order, then the pile); the kinds
    of the other seats' offering cards, held and face down, are pooled, shuffled and dealt back
    the same way (each place keeps its count) unless the game is over, when the final scoring
    has shown them (§3.1.5, §7.4). Everything public stays. The pools are laid out sorted before
    the shuffle, so the world is a function of ``player``'s view and ``key`` only. Same
    distribution as the Python resampler (the random streams differ).

    Args:
        s: One state (``jax.vmap`` it for a batch).
        player: The seat whose view must stay the same (may be traced).
        key: PRNG key of the shuffles.
    """
    n = s.hands.shape[0]
    player = jnp.asarray(player, jnp.int32)
    others = jnp.arange(n) != player
    k_cards, k_kinds = jax.random.split(key)
    d = jnp.arange(DECK_SIZE)
    pile_pos, pile_end = _i32(s.pile_pos), _i32(s.pile_end)
    in_pile = (d >= pile_pos) & (d < pile_end)
    types = jnp.arange(NUM_CARD_TYPES)
    pile_counts = ((_i32(s.deck)[:, None] == types[None, :]) & in_pile[:, None]).sum(0)
    hands = _i32(s.hands) * others[:, None]
    seq = shuffled_pool(k_cards, hands.sum(0) + pile_counts, DECK_SIZE)
    sizes = hands.sum(1)  # the seat's own hand takes no card from the pool
    dealt = deal_counts(seq, sizes, NUM_CARD_TYPES)
    new_hands = jnp.where(others[:, None], dealt, _i32(s.hands))
    src = jnp.clip(sizes.sum() + d - pile_pos, 0, DECK_SIZE - 1)
    deck = jnp.where(in_pile, seq[src], _i32(s.deck))

    hold = _i32(s.holdings) * others[:, None]
    down = _i32(s.face_down) * others[:, None]
    # Places in the Python resampler's order: each other seat's held cards, then its face-down.
    places = jnp.stack([hold, down], 1).reshape(2 * n, NUM_KINDS)
    kinds = shuffled_pool(k_kinds, places.sum(0), _offering_cap(n))
    dealt_k = deal_counts(kinds, places.sum(1), NUM_KINDS).reshape(n, 2, NUM_KINDS)
    keep = ~others[:, None] | s.terminated
    return _cast(
        s._replace(
            hands=new_hands,
            deck=deck,
            holdings=jnp.where(keep, _i32(s.holdings), dealt_k[:, 0]),
            face_down=jnp.where(keep, _i32(s.face_down), dealt_k[:, 1]),
        )
    )


# --- conversion to and from the reference engine ---------------------------------------------


def from_reference(ref: RapaNuiState) -> State:
    """The batched state of a reference position (any position, mid-game included)."""
    d = ref.to_dict()
    cfg = ref.game.config
    n = cfg.num_players
    deck = np.zeros(DECK_SIZE, np.int8)
    col_pos = np.zeros(NUM_COLUMNS)
    for c, col in enumerate(d["columns"]):
        # Each column's live cards sit at the end of its block of four.
        col_pos[c] = COLUMN_SIZE - len(col)
        deck[c * COLUMN_SIZE + COLUMN_SIZE - len(col) : (c + 1) * COLUMN_SIZE] = col
    pile = d["draw_pile"]
    start = NUM_COLUMNS * COLUMN_SIZE
    deck[start : start + len(pile)] = pile
    hands = np.zeros((n, NUM_CARD_TYPES))
    for p, hand in enumerate(d["hands"]):
        for card in hand:
            hands[p, card] += 1
    fields = _setup(n, deck, cfg)
    terminal = d["phase"] == "terminal"
    fields.update(
        phase=PHASES.index(d["phase"]),
        active=d["active"],
        cur=TERMINAL if terminal else d["decider"],
        draws_left=d["draws_left"],
        hands=hands,
        displays=np.array(d["displays"]),
        wood=np.array(d["wood"]),
        vp=np.array(d["vp"]),
        holdings=np.array(d["holdings"]),
        face_down=np.array(d["stone_face_down"]),
        stone_up=np.array(d["stone_face_up"]),
        supply=np.array(d["supply"]),
        col_pos=col_pos,
        pile_end=start + len(pile),
        removed=d["removed_moai"],
        units=np.array(d["moai_units"]),
        terminated=terminal,
        rewards=np.array(ref.returns()),
    )
    # numpy does the conversion (the reference's ints in the field's dtype), jax the transfer.
    return State(
        **{f: jnp.asarray(np.asarray(fields[f], dtype=_DTYPES[f])) for f in State._fields}
    )


def to_reference(s: State, game: RapaNuiGame | None = None) -> RapaNuiState:
    """The reference position of an unbatched state (loaded and checked by the JSON loader).

    Args:
        s: One state (no batch axis), on any device.
        game: The reference game; by default one built from the switches stored in ``s``.

    Raises:
        StateFormatError: When ``s`` is not a position the reference engine can reach (a game
            ended by an illegal action is one).
    """
    s = jax.device_get(s)
    n = int(s.hands.shape[0])
    if game is None:
        game = RapaNuiGame(config_of(s))
    cols = [
        [int(x) for x in s.deck[int(st) + int(ps) : int(st) + COLUMN_SIZE]]
        for st, ps in zip(s.col_start, s.col_pos, strict=True)
    ]
    terminal = bool(s.terminated)
    state = {
        "phase": PHASES[int(s.phase)],
        "active": int(s.active),
        "decider": None if terminal else int(s.cur),
        "draws_left": int(s.draws_left),
        "hands": [
            [c for c in range(NUM_CARD_TYPES) for _ in range(int(s.hands[p, c]))] for p in range(n)
        ],
        "displays": np.asarray(s.displays, int).tolist(),
        "wood": np.asarray(s.wood, int).tolist(),
        "vp": np.asarray(s.vp, int).tolist(),
        "holdings": np.asarray(s.holdings, int).tolist(),
        "stone_face_up": np.asarray(s.stone_up, int).tolist(),
        "stone_face_down": np.asarray(s.face_down, int).tolist(),
        "supply": np.asarray(s.supply, int).tolist(),
        "columns": cols,
        "draw_pile": [int(x) for x in s.deck[int(s.pile_pos) : int(s.pile_end)]],
        "removed_moai": int(s.removed),
        "moai_units": np.asarray(s.units, int).tolist(),
    }
    ref = game.state_from_json({"schema": 1, "game": game.name, "state": state})
    if not isinstance(ref, RapaNuiState):  # pragma: no cover - the game's own loader
        raise TypeError(f"{game.name} loaded a {type(ref).__name__}, not a RapaNuiState")
    return ref


def config_of(s: State) -> RapaNuiConfig:
    """The reference config whose switches an unbatched state carries."""
    return RapaNuiConfig(
        num_players=int(s.hands.shape[0]),
        reward_type=REWARD_TYPES[int(s.reward_type)],
        allow_voluntary_moai_discard=bool(s.voluntary_discard),
        active_supply_offering_optional=bool(s.supply_optional),
        moai_choice="all_same" if bool(s.all_same) else "per_unit",
        offering_supply_limited=bool(s.limited),
        zero_count_kind_value="ranked" if bool(s.ranked) else "zero",
        hunter_gatherer_majority_bonus=bool(s.hg_bonus),
    )


def batched_spec(config: RapaNuiConfig) -> BatchedGame:
    """This engine's functions bound to a validated config (what ``core.make`` returns)."""
    return bind_module(
        sys.modules[__name__], config, BASE_DECK, MIN_DECISIONS, name=RapaNuiGame.name
    )
