"""Positano as a batched JAX engine, bit-exact with ``tabletop_gym.envs.positano.rules``.

The state is a :class:`State` of fixed-shape integer arrays. Its shapes follow from the player
count and the cliff size (Python values: the colour axis has ``num_colours`` rows, the lot order
``size²`` entries); ``reward_type`` and the goals are fields, so one compiled ``step`` serves every
goal choice and reward type of a (players, size) pair.

Chance: every random draw of the reference set-up (lot order, block and build stacks, the solo
round-1 row orders, goal cards and sides, star sets, Otto Amalfi's decks) is a segment of one
*deck*: :data:`BatchedGame.deck` lists the segments in a fixed order and :func:`init` shuffles
each segment separately, so each is an independent uniform permutation. Tiles are never moved
after that: the Beach Board row of round ``r`` is the ``r``-th window of ``tiles_per_round``
entries of its tile order, and ``row_left`` marks which of its tiles are still on the board.

Simultaneous bids: at a bid node of a 2–6 player game every seat bids once; :func:`step_joint`
takes the joint action (one id per seat), and :func:`step` takes the seats' bids one at a time
in seat order (each kept hidden in ``pending`` until the last one reveals them all, as the
turn-based transform does), so one policy can play every seat. ``current_player`` is then the
next seat to bid. The observation never shows a pending bid.

Action ids, the observation vector (part by part, by the observer's layout) and the rewards are
those of the reference engine and ``PositanoObserver``; the differential tests compare them at
every step. An illegal action ends the game with −1 for the seat that took it and 0 for the
others; a finished game is returned unchanged.
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
    decode,
    exact_ratio,
    one_hot,
    returns,
    shuffle_tail,
)
from tabletop_gym.core.game import REWARD_TYPES, TERMINAL
from tabletop_gym.core.observer import ObservationLayout
from tabletop_gym.core.turn_based import TurnBasedState
from tabletop_gym.envs.positano import components as C, facts as F, scoring
from tabletop_gym.envs.positano.actions import (
    A_ADD_ON,
    A_BLOCK,
    A_BUILD_TILE,
    A_HEIGHT,
    A_LOT,
    A_MULTIPLY,
    A_REMODEL,
    A_SKIP_ADD_ON,
    A_SKIP_REMODEL,
    ACTIONS,
    BIDS,
    NUM_ACTIONS,
)
from tabletop_gym.envs.positano.facts import (
    ADD_ON,
    BID,
    BLOCK_CHOICE,
    BUILD,
    DRAFT_BLOCK,
    DRAFT_BUILD,
    DRAFT_LOT,
    OVER,
    PHASES,
    REMODEL,
)
from tabletop_gym.envs.positano.rules import (
    PositanoConfig,
    PositanoGame,
    PositanoState,
)

_LAYOUT = ObservationLayout(F.PARTS)
"""The reference observer's layout (``PositanoObserver.layout``): the observation's parts."""
OBSERVATION_SIZE = _LAYOUT.size
"""Length of one observation (the reference observer's layout)."""
MAX_COLOURS = F.MAX_COLOURS
NUM_CARDS, NUM_BOOSTERS = BIDS.shape
_ACTS = (C.NO_ACTION, C.ADD_ON, C.REMODEL)
_GOAL_INDEX = {g: i for i, g in enumerate(C.GOAL_NAMES)}

# --- component tables (rules §1), padded to 25 tiles --------------------------------------------

_CARD_GEL = np.array([c.gelato for c in C.BID_CARDS], np.int32)
_BOOST_GEL = np.array([b.gelato for b in C.BOOSTERS], np.int32)
# (star set 0..6, card, kind); row 0 unused (sets are 1-based).
_STARS = np.array(C.STARS, np.int32)
# bid value of card c with booster b for kind k: (7, 6, 3)
_BID_VALUE = np.array(C.BID_VALUES, np.int32)


class _Tables(NamedTuple):
    blocks: np.ndarray  # flat amount per block tile
    mult: np.ndarray  # 0, 2 or 3
    block_gel: np.ndarray
    block_feats: np.ndarray  # (25, 5) observer features of a face-up block tile
    block_kind: np.ndarray  # index into F.BLOCK_KINDS, -1 padding
    roof: np.ndarray
    bonus: np.ndarray
    act: np.ndarray  # 0 none, 1 Add-On, 2 Remodel
    build_gel: np.ndarray
    build_feats: np.ndarray  # (25, 8)
    build_kind: np.ndarray  # index into F.BUILD_KINDS, -1 padding
    lot_gel: np.ndarray  # (25,)


@functools.cache
def _tables(size: int) -> _Tables:
    def pad(values: list[Any], width: int = 25, fill: int = 0) -> np.ndarray:
        a = np.array(values, np.int32)
        out = np.full((width, *a.shape[1:]), fill, np.int32)
        out[: len(a)] = a
        return out

    blocks, builds = C.BLOCK_TILES[size], C.BUILD_TILES[size]
    lot_gel = np.zeros(25, np.int32)
    for p, lot in C.LOT_TILES[size].items():
        lot_gel[p] = lot.gelato
    return _Tables(
        blocks=pad([t.blocks for t in blocks]),
        mult=pad([t.multiplier for t in blocks]),
        block_gel=pad([t.gelato for t in blocks]),
        block_feats=pad(
            [[1, t.blocks, t.multiplier == 2, t.multiplier == 3, t.gelato] for t in blocks]
        ),
        block_kind=pad([F.block_kind(t) for t in blocks], fill=-1),
        roof=pad([t.roof for t in builds]),
        bonus=pad([t.bonus for t in builds]),
        act=pad([_ACTS.index(t.action) for t in builds]),
        build_gel=pad([t.gelato for t in builds]),
        build_feats=pad(
            [
                [1, t.roof == 1, t.roof == 2, t.roof == 3, t.bonus, t.action == C.ADD_ON,
                 t.action == C.REMODEL, t.gelato]
                for t in builds
            ]
        ),
        build_kind=pad([F.build_kind(t) for t in builds], fill=-1),
        lot_gel=lot_gel,
    )


# --- state -----------------------------------------------------------------------------------


class State(NamedTuple):
    """One Positano position (a pytree: ``jax.vmap`` stacks every field along a batch axis).

    ``nc`` = colours (solo: 2, Otto Amalfi is colour 1), ``R`` = rounds, ``t`` = tiles per round
    (= ``nc``). Tiles are indexed as in the reference engine (lots by position ``r·5 + c``).
    """

    round: jax.Array  # int8, 1-based
    phase: jax.Array  # int8, index into PHASES
    turn: jax.Array  # int8, index into this phase's draft order
    goals: jax.Array  # int8 (3,): goal ids (index into GOAL_NAMES), in the reference's order
    star: jax.Array  # int8 (nc,): star set 1..6
    hand_cards: jax.Array  # bool (nc, 7)
    hand_boosters: jax.Array  # bool (nc, 6)
    otto_cards: jax.Array  # int8 (7,): Otto's card deck, top first (solo; unused otherwise)
    otto_boosters: jax.Array  # int8 (6,)
    played_cards: jax.Array  # int8 (nc, R): card of each round, -1 before its reveal
    played_boosters: jax.Array  # int8 (nc, R)
    pending: jax.Array  # int8 (nc,): committed, unrevealed bid ids (-1 none)
    lot_order: jax.Array  # int8 (size²,): removed lots, then round windows
    block_order: jax.Array  # int8 (n_block,): round windows, then the rest of the stack
    build_order: jax.Array  # int8 (n_build,)
    row_left: jax.Array  # bool (3, t): tiles of this round's windows still on the Beach Board
    lots_taken: jax.Array  # int8 (nc, R): lot drafted each round, -1 none yet
    blocks_taken: jax.Array  # int8 (nc, R)
    builds_taken: jax.Array  # int8 (nc, R)
    owner: jax.Array  # int8 (25,), -1 none
    height: jax.Array  # int8 (25,)
    roof: jax.Array  # int8 (25,)
    personal: jax.Array  # int8 (nc,)
    general: jax.Array  # int8 (nc,)
    roofs_left: jax.Array  # int8 (3,)
    order: jax.Array  # int8 (3, nc): colours in lot, block, build draft order this round
    reward_type: jax.Array  # int8: index into REWARD_TYPES
    terminated: jax.Array  # bool
    illegal: jax.Array  # bool: the game was ended by an illegal action
    rewards: jax.Array  # float32 (num_players,): an illegal action's penalty, else zeros


_DTYPES = {f: jnp.int8 for f in State._fields}
_DTYPES.update(
    hand_cards=jnp.bool_,
    hand_boosters=jnp.bool_,
    row_left=jnp.bool_,
    terminated=jnp.bool_,
    illegal=jnp.bool_,
    rewards=jnp.float32,
)


def _cast(s: State) -> State:
    return State(**{f: jnp.asarray(getattr(s, f)).astype(_DTYPES[f]) for f in State._fields})


def _i32(x: Any) -> jax.Array:
    return jnp.asarray(x).astype(jnp.int32)


def _widen(s: State) -> State:
    return State(
        **{
            f: x.astype(jnp.int32) if jnp.issubdtype(x.dtype, jnp.integer) else x
            for f, x in zip(State._fields, s, strict=True)
        }
    )


class _Shape(NamedTuple):
    """The Python facts a state's shapes carry."""

    nc: int
    solo: bool
    size: int
    rounds: int
    removed: int  # lots removed at set-up

    @property
    def t(self) -> int:
        return self.nc

    @property
    def n(self) -> int:
        return 1 if self.solo else self.nc


def _shape(s: State) -> _Shape:
    nc, rounds = s.played_cards.shape[-2:]
    lots = s.lot_order.shape[-1]
    size = 4 if lots == 16 else 5
    return _Shape(nc, s.rewards.shape[-1] == 1, size, rounds, lots - rounds * nc)


# --- set-up and the deck of chance events (rules §2, §7) -------------------------------------


@functools.cache
def deck_layout(num_players: int, size: int, random_goals: bool) -> tuple[np.ndarray, np.ndarray]:
    """The chance deck of a configuration: (values, segment end of each position).

    Segments in order: lot order; block stack; build stack; solo: block row, build row; with
    random goals: the 6 goal cards, then three (front, back) pairs; the 6 star sets; solo: Otto's
    7 cards and 6 boosters. :func:`init` shuffles each segment on its own.
    """
    solo = num_players == 1
    icon_max = max(2, num_players)
    segs: list[list[int]] = [
        list(C.board_positions(size)),
        [b.index for b in C.BLOCK_TILES[size] if not 0 < b.start_icon <= icon_max],
        [b.index for b in C.BUILD_TILES[size] if not 0 < b.start_icon <= icon_max],
    ]
    if solo:
        segs += [
            [b.index for b in C.BLOCK_TILES[size] if 0 < b.start_icon <= icon_max],
            [b.index for b in C.BUILD_TILES[size] if 0 < b.start_icon <= icon_max],
        ]
    if random_goals:
        segs += [list(range(6)), [0, 1], [0, 1], [0, 1]]
    segs.append(list(range(1, C.NUM_STAR_SETS + 1)))
    if solo:
        segs += [list(range(NUM_CARDS)), list(range(NUM_BOOSTERS))]
    values = np.array([v for seg in segs for v in seg], np.int8)
    ends = np.array([sum(map(len, segs[: i + 1])) for i, seg in enumerate(segs) for _ in seg],
                    np.int32)
    return values, ends


def shuffle_segments(key: jax.Array, deck: jax.Array, ends: np.ndarray) -> jax.Array:
    """Shuffle every segment of ``deck`` (ends per position, as :func:`deck_layout`) apart."""
    noise = jax.random.uniform(key, deck.shape)
    return deck[jnp.lexsort((noise, jnp.asarray(ends)))]


def min_decisions(config: PositanoConfig) -> int:
    """No game (without an illegal action) ends in fewer decisions than this.

    Every round each seat bids and (with several players) every colour drafts a lot, a block and
    a build tile.
    """
    g = PositanoGame(config)
    if g.solo:
        return g.num_rounds
    return g.num_rounds * (g.num_players + 3 * g.num_colours)


def _goal_ids(goals: tuple[str, ...]) -> np.ndarray:
    return np.array([_GOAL_INDEX[g] for g in goals], np.int8)


def init(key: jax.Array, config: PositanoConfig | None = None) -> State:
    """Set up a game (rules §2; solo §7) with every chance event drawn from ``key``.

    Args:
        key: A JAX PRNG key.
        config: The reference engine's config (default: 2 players); a Python value.
    """
    config = config or PositanoConfig()
    game = PositanoGame(config)
    values, ends = deck_layout(config.num_players, game.size, not game.fixed_goals)
    return init_from_deck(shuffle_segments(key, jnp.asarray(values), ends), config)


def init_from_deck(deck: jax.Array, config: PositanoConfig | None = None) -> State:
    """The set-up around an already shuffled chance deck (see :func:`deck_layout`)."""
    config = config or PositanoConfig()
    g = PositanoGame(config)
    n, nc, size, t, R = config.num_players, g.num_colours, g.size, g.tiles_per_round, g.num_rounds
    solo = g.solo
    icon_max = max(2, n)
    deck = _i32(deck)
    pos = 0

    def take(k: int) -> jax.Array:
        nonlocal pos
        out = deck[pos : pos + k]
        pos += k
        return out

    lot_order = take(size * size)
    block_stack = take(sum(1 for b in g.block_tiles if not 0 < b.start_icon <= icon_max))
    build_stack = take(sum(1 for b in g.build_tiles if not 0 < b.start_icon <= icon_max))
    block_row = jnp.array([b.index for b in g.block_tiles if 0 < b.start_icon <= icon_max])
    build_row = jnp.array([b.index for b in g.build_tiles if 0 < b.start_icon <= icon_max])
    if solo:
        block_row, build_row = take(2), take(2)
    if g.fixed_goals:
        goals = jnp.asarray(_goal_ids(g.fixed_goals), jnp.int32)
    else:
        cards = take(6)[:3]
        sides = jnp.stack([take(2)[0] for _ in range(3)])
        table = jnp.array([[_GOAL_INDEX[f], _GOAL_INDEX[b]] for f, b in g.goal_cards])
        goals = table[cards, sides]
    star = take(C.NUM_STAR_SETS)[:nc]
    otto_cards = take(NUM_CARDS) if solo else jnp.arange(NUM_CARDS)
    otto_boosters = take(NUM_BOOSTERS) if solo else jnp.arange(NUM_BOOSTERS)
    played_cards = jnp.full((nc, R), -1)
    played_boosters = jnp.full((nc, R), -1)
    hand_cards = jnp.ones((nc, NUM_CARDS), bool)
    hand_boosters = jnp.ones((nc, NUM_BOOSTERS), bool)
    if solo:
        # rules §7: Otto's top card and booster are revealed before the player bids.
        played_cards = played_cards.at[1, 0].set(otto_cards[0])
        played_boosters = played_boosters.at[1, 0].set(otto_boosters[0])
        hand_cards = hand_cards.at[1, otto_cards[0]].set(False)
        hand_boosters = hand_boosters.at[1, otto_boosters[0]].set(False)
    s = State(
        round=jnp.asarray(1),
        phase=jnp.asarray(BID),
        turn=jnp.asarray(0),
        goals=goals,
        star=star,
        hand_cards=hand_cards,
        hand_boosters=hand_boosters,
        otto_cards=otto_cards,
        otto_boosters=otto_boosters,
        played_cards=played_cards,
        played_boosters=played_boosters,
        pending=jnp.full(nc, -1),
        lot_order=lot_order,
        block_order=jnp.concatenate([block_row, block_stack]),
        build_order=jnp.concatenate([build_row, build_stack]),
        row_left=jnp.ones((3, t), bool),
        lots_taken=jnp.full((nc, R), -1),
        blocks_taken=jnp.full((nc, R), -1),
        builds_taken=jnp.full((nc, R), -1),
        owner=jnp.full(25, -1),
        height=jnp.zeros(25),
        roof=jnp.zeros(25),
        personal=jnp.full(nc, C.START_PERSONAL),
        general=jnp.full(nc, C.START_GENERAL),
        roofs_left=jnp.array(g.roof_supply),
        order=jnp.zeros((3, nc)),
        reward_type=jnp.asarray(REWARD_TYPES.index(config.reward_type)),
        terminated=jnp.asarray(False),
        illegal=jnp.asarray(False),
        rewards=jnp.zeros(n),
    )
    return _cast(s)


# --- views of the position ---------------------------------------------------------------------


def _rows(s: State) -> jax.Array:
    """Int32 (3, t): the lot, block and build tiles of this round's Beach Board windows."""
    sh = _shape(s)
    t = sh.t
    start = (_i32(s.round) - 1) * t
    lots = jax.lax.dynamic_slice(_i32(s.lot_order), (sh.removed + start,), (t,))
    blocks = jax.lax.dynamic_slice(_i32(s.block_order), (start,), (t,))
    builds = jax.lax.dynamic_slice(_i32(s.build_order), (start,), (t,))
    return jnp.stack([lots, blocks, builds])


_PHASE_KIND = np.maximum(np.array(C.PHASE_KIND), 0)
"""Per phase, the tile type whose draft order it follows (the bid and the end read lots': their
deciders are not read from a draft order)."""


def _kind(phase: jax.Array) -> jax.Array:
    """The tile type whose draft order a phase follows (0 lot, 1 block, 2 build)."""
    return jnp.asarray(_PHASE_KIND)[phase]


def acting_colour(s: State) -> jax.Array:
    """The colour the current decision is for; -1 at a multiplayer bid and at the end.

    At a multiplayer bid, see :func:`current_player` for the next seat to commit.
    """
    sh = _shape(s)
    ph = _i32(s.phase)
    drafting = _i32(s.order)[_kind(ph), jnp.minimum(_i32(s.turn), sh.nc - 1)]
    bid = 0 if sh.solo else -1
    return jnp.where(ph == OVER, -1, jnp.where(ph == BID, bid, drafting))


def _bidder(s: State) -> jax.Array:
    return jnp.argmax(s.pending < 0).astype(jnp.int32)


def current_player(s: State) -> jax.Array:
    """The seat to decide (int32); ``TERMINAL`` (−4) at the end.

    At a multiplayer bid: the next seat to commit its bid. Solo: always 0.
    """
    sh = _shape(s)
    ph = _i32(s.phase)
    if sh.solo:
        return jnp.where(ph == OVER, TERMINAL, 0)
    return jnp.where(ph == OVER, TERMINAL, jnp.where(ph == BID, _bidder(s), acting_colour(s)))


def _lot_level(pos: jax.Array) -> jax.Array:
    # C.LOT_LEVELS for a traced position (a division is cheaper than a gather here).
    return pos // C.ROW_STRIDE + 1


# --- legality (one table lookup per slice of the action layout) --------------------------------


def _seat_mask(s: State, c: jax.Array, ph: jax.Array) -> jax.Array:
    """Bool (192,): the legal ids of colour ``c`` deciding at phase ``ph``."""
    sh = _shape(s)
    tab = _tables(sh.size)
    r = _i32(s.round) - 1
    rows = _rows(s)
    left = s.row_left
    board = jnp.arange(25)
    pairs = (s.hand_cards[c][:, None] & s.hand_boosters[c][None, :]).reshape(-1)

    def row_hot(k: int) -> jax.Array:
        return ((rows[k][:, None] == board[None, :]) & left[k][:, None]).any(0)

    pos = jnp.maximum(_i32(s.lots_taken[c, r]), 0)
    tile = jnp.maximum(_i32(s.builds_taken[c, r]), 0)
    bonus = jnp.asarray(tab.bonus)[tile]
    troof = jnp.asarray(tab.roof)[tile]
    personal = _i32(s.personal[c])
    top = jnp.minimum(_lot_level(pos) + bonus, personal)
    heights = jnp.arange(1, ACTIONS["height"].size + 1) <= top
    h = _i32(s.height)
    own = (_i32(s.owner) == c) & (h > 0)
    add_on = own & (h < _lot_level(board) + bonus)
    remodel = own & (_i32(s.roof) == troof - 1)
    parts = {
        "bid": pairs & (ph == BID),
        "lot": row_hot(0) & (ph == DRAFT_LOT),
        "block": row_hot(1) & (ph == DRAFT_BLOCK),
        "multiply": (ph == BLOCK_CHOICE)[None],
        "flat": (ph == BLOCK_CHOICE)[None],
        "build_tile": row_hot(2) & (ph == DRAFT_BUILD),
        "height": heights & (ph == BUILD),
        "add_on": add_on & (ph == ADD_ON),
        "skip_add_on": (ph == ADD_ON)[None],
        "remodel": remodel & (ph == REMODEL),
        "skip_remodel": (ph == REMODEL)[None],
    }
    # The action layout's ranges in order; the ones never legal in the engine stay zeros.
    return jnp.concatenate(
        [parts[r.name] if r.name in parts else jnp.zeros(r.size, bool) for r in ACTIONS]
    )


def legal_action_mask(s: State) -> jax.Array:
    """Bool ``(192,)``: the legal ids of the seat to decide (:func:`current_player`)."""
    c = jnp.maximum(acting_colour(s), 0)
    if not _shape(s).solo:
        c = jnp.where(_i32(s.phase) == BID, _bidder(s), c)
    ph = jnp.where(s.terminated, OVER, _i32(s.phase))
    return _seat_mask(s, c, ph)


def legal_action_masks(s: State) -> jax.Array:
    """Bool ``(num_players, 192)``: each seat's legal ids as the reference gives them.

    At a multiplayer bid every seat that has not committed yet has its (card, booster) pairs,
    as at the reference engine's simultaneous node; elsewhere only the seat to decide has any.
    """
    sh = _shape(s)
    ph = jnp.where(s.terminated, OVER, _i32(s.phase))
    if sh.solo:
        return legal_action_mask(s)[None]
    seats = jnp.arange(sh.nc)
    bids = jax.vmap(lambda c: _seat_mask(s, c, jnp.int32(BID)) & (s.pending[c] < 0))(seats)
    one = legal_action_mask(s)
    seq = jnp.where((seats == current_player(s))[:, None], one[None, :], False)
    return jnp.where(ph == BID, bids, seq)


# --- transitions -------------------------------------------------------------------------------


def _compute_order(s: State) -> jax.Array:
    # rules §3.2: descending bid; a tie goes to the card with more stars for that tile type.
    nc = _shape(s).nc
    r = _i32(s.round) - 1
    card = _i32(s.played_cards[:, r])
    boost = _i32(s.played_boosters[:, r])
    value = jnp.asarray(_BID_VALUE)[card, boost]  # (nc, 3)
    stars = jnp.asarray(_STARS)[_i32(s.star), card]  # (nc, 3)
    key = (value * 8 + stars).T  # (3, nc)
    c = jnp.arange(nc)
    ahead = (key[:, None, :] > key[:, :, None]) | (
        (key[:, None, :] == key[:, :, None]) & (c[None, None, :] < c[None, :, None])
    )
    rank = ahead.sum(2)  # (3, nc): place of colour c
    return (c[None, None, :] * (rank[:, None, :] == c[None, :, None])).sum(2)


def _reveal(s: State) -> State:
    """All bids are in: play them (rules §3.1) and start drafting."""
    r = _i32(s.round) - 1
    has = s.pending >= 0
    # A pending bid id as (card, booster): the action layout's decoding (-1, none, is masked).
    card, boost = decode(BIDS, s.pending)
    played_c = s.played_cards.at[:, r].set(jnp.where(has, card, s.played_cards[:, r]))
    played_b = s.played_boosters.at[:, r].set(jnp.where(has, boost, s.played_boosters[:, r]))
    hand_c = s.hand_cards & ~((jnp.arange(NUM_CARDS)[None, :] == card[:, None]) & has[:, None])
    hand_b = s.hand_boosters & ~(
        (jnp.arange(NUM_BOOSTERS)[None, :] == boost[:, None]) & has[:, None]
    )
    s = s._replace(
        played_cards=played_c,
        played_boosters=played_b,
        hand_cards=hand_c,
        hand_boosters=hand_b,
        pending=jnp.full_like(s.pending, -1),
        phase=jnp.asarray(DRAFT_LOT),
        turn=jnp.asarray(0),
    )
    return s._replace(order=_compute_order(s))


def _bid(s: State, c: jax.Array, action: jax.Array) -> State:
    sh = _shape(s)
    s = s._replace(pending=s.pending.at[c].set(action))
    if sh.solo:
        return _reveal(s)
    all_in = (s.pending >= 0).all()
    return jax.tree.map(lambda x, y: jnp.where(all_in, y, x), s, _reveal(s))


def _take(s: State, kind: int, tile: jax.Array) -> tuple[State, jax.Array]:
    """Remove ``tile`` from row ``kind`` and record it for the acting colour; returns colour."""
    c = _i32(s.order[kind, jnp.minimum(s.turn, _shape(s).nc - 1)])
    r = _i32(s.round) - 1
    rows = _rows(s)
    left = s.row_left.at[kind].set(s.row_left[kind] & (rows[kind] != tile))
    field = ("lots_taken", "blocks_taken", "builds_taken")[kind]
    taken = getattr(s, field).at[c, r].set(tile)
    return s._replace(row_left=left, **{field: taken}), c


def _gain(s: State, c: jax.Array, want: jax.Array) -> State:
    # rules §3.3: blocks come from the colour's general supply, capped by what is left.
    gain = jnp.minimum(want, s.general[c])
    return s._replace(personal=s.personal.at[c].add(gain), general=s.general.at[c].add(-gain))


def _draft_lot(s: State, action: jax.Array) -> State:
    s, _ = _take(s, 0, action - A_LOT)
    return s._replace(turn=s.turn + 1)


def _draft_block(s: State, action: jax.Array) -> State:
    tab = _tables(_shape(s).size)
    tile = action - A_BLOCK
    s, c = _take(s, 1, tile)
    mult = jnp.asarray(tab.mult)[tile] > 0
    plain = _gain(s, c, jnp.asarray(tab.blocks)[tile])._replace(turn=s.turn + 1)
    choice = s._replace(phase=jnp.asarray(BLOCK_CHOICE))
    return jax.tree.map(lambda x, y: jnp.where(mult, y, x), plain, choice)


def _block_choice(s: State, action: jax.Array) -> State:
    # rules §1.6: with n in the personal supply, multiply gains n·(N−1), flat gains N.
    tab = _tables(_shape(s).size)
    c = _i32(s.order[1, s.turn])
    tile = jnp.maximum(s.blocks_taken[c, _i32(s.round) - 1], 0)
    mult = jnp.asarray(tab.mult)[tile]
    flat = jnp.asarray(tab.blocks)[tile]
    want = jnp.where(action == A_MULTIPLY, s.personal[c] * (mult - 1), flat)
    return _gain(s, c, want)._replace(phase=jnp.asarray(DRAFT_BLOCK), turn=s.turn + 1)


def _draft_build(s: State, action: jax.Array) -> State:
    s, c = _take(s, 2, action - A_BUILD_TILE)
    # rules §4 + Decisions: no block → no building, the lot stays empty, no extra action.
    none = s.personal[c] == 0
    return s._replace(
        turn=jnp.where(none, s.turn + 1, s.turn), phase=jnp.where(none, DRAFT_BUILD, BUILD)
    )


def _build(s: State, action: jax.Array) -> State:
    tab = _tables(_shape(s).size)
    c = _i32(s.order[2, s.turn])
    r = _i32(s.round) - 1
    h = action - A_HEIGHT
    pos = jnp.maximum(s.lots_taken[c, r], 0)
    tile = jnp.maximum(s.builds_taken[c, r], 0)
    roof = jnp.asarray(tab.roof)[tile]
    bonus = jnp.asarray(tab.bonus)[tile]
    act = jnp.asarray(tab.act)[tile]
    s = s._replace(
        owner=s.owner.at[pos].set(c),
        height=s.height.at[pos].set(h),
        roof=s.roof.at[pos].set(roof),
        roofs_left=s.roofs_left.at[roof - 1].add(-1),
        personal=s.personal.at[c].add(-h),
    )
    # rules §4: the optional extra action is offered only when it has a target.
    board = jnp.arange(25)
    own = (s.owner == c) & (s.height > 0)
    can_add = (s.personal[c] > 0) & (own & (s.height < _lot_level(board) + bonus)).any()
    can_remodel = (s.roofs_left[roof - 1] > 0) & (own & (s.roof == roof - 1)).any()
    extra = jnp.where(
        (act == 1) & can_add, ADD_ON, jnp.where((act == 2) & can_remodel, REMODEL, DRAFT_BUILD)
    )
    return s._replace(phase=extra, turn=jnp.where(extra == DRAFT_BUILD, s.turn + 1, s.turn))


def _add_on(s: State, action: jax.Array) -> State:
    c = _i32(s.order[2, s.turn])
    doing = action != A_SKIP_ADD_ON
    pos = jnp.clip(action - A_ADD_ON, 0, 24)
    s = s._replace(
        height=s.height.at[pos].add(doing.astype(jnp.int32)),
        personal=s.personal.at[c].add(-doing.astype(jnp.int32)),
    )
    return s._replace(phase=jnp.asarray(DRAFT_BUILD), turn=s.turn + 1)


def _remodel(s: State, action: jax.Array) -> State:
    doing = action != A_SKIP_REMODEL
    pos = jnp.clip(action - A_REMODEL, 0, 24)
    old = s.roof[pos]
    d = doing.astype(jnp.int32)
    left = s.roofs_left.at[jnp.maximum(old - 1, 0)].add(d).at[jnp.minimum(old, 2)].add(-d)
    s = s._replace(roofs_left=left, roof=s.roof.at[pos].add(d))
    return s._replace(phase=jnp.asarray(DRAFT_BUILD), turn=s.turn + 1)


def _refresh(s: State) -> State:
    # rules §3.5 / §6: next round, or the end after the round that took the last lots.
    sh = _shape(s)
    last = s.round == sh.rounds
    r = jnp.minimum(s.round + 1, sh.rounds)
    nxt = s._replace(
        round=r,
        phase=jnp.asarray(BID),
        turn=jnp.asarray(0),
        row_left=jnp.ones_like(s.row_left),
        order=s.order * 0,
    )
    if sh.solo:
        card = s.otto_cards[r - 1]
        boost = s.otto_boosters[r - 1]
        nxt = nxt._replace(
            played_cards=nxt.played_cards.at[1, r - 1].set(card),
            played_boosters=nxt.played_boosters.at[1, r - 1].set(boost),
            hand_cards=nxt.hand_cards.at[1, card].set(False),
            hand_boosters=nxt.hand_boosters.at[1, boost].set(False),
        )
    over = s._replace(
        phase=jnp.asarray(OVER),
        turn=jnp.asarray(0),
        order=s.order * 0,
        terminated=jnp.asarray(True),
    )
    return jax.tree.map(lambda x, y: jnp.where(last, y, x), nxt, over)


def _select(cond: jax.Array, new: State, old: State) -> State:
    return jax.tree.map(lambda x, y: jnp.where(cond, y, x), old, new)


def _end_phase(s: State, phase: int, nxt: int) -> State:
    """Move on from a draft phase every colour has drafted in."""
    done = (s.phase == phase) & (s.turn == _shape(s).nc)
    return s._replace(phase=jnp.where(done, nxt, s.phase), turn=jnp.where(done, 0, s.turn))


def _solo_take(s: State, phase: int, kind: int, base: int, draft: Any) -> State:
    """Solo: the colour next in this draft order takes the row's leftmost tile (rules §7)."""
    leftmost = _rows(s)[kind][jnp.argmax(s.row_left[kind])]
    go = (s.phase == phase) & (s.turn < _shape(s).nc)
    return _select(go, _cast_wide(draft(s, base + leftmost)), s)


def _advance(s: State) -> State:
    """Run the automatic steps up to the next decision.

    Phase ends, the refresh and (solo) the tile allocation; within a round the phases only move
    forward, so one pass suffices.
    """
    sh = _shape(s)
    if sh.solo:
        for _ in range(sh.nc):
            s = _solo_take(s, DRAFT_LOT, 0, A_LOT, _draft_lot)
    s = _end_phase(s, DRAFT_LOT, DRAFT_BLOCK)
    if sh.solo:
        for _ in range(sh.nc):
            s = _solo_take(s, DRAFT_BLOCK, 1, A_BLOCK, _draft_block)
    s = _end_phase(s, DRAFT_BLOCK, DRAFT_BUILD)
    if sh.solo:
        for _ in range(sh.nc):
            s = _solo_take(s, DRAFT_BUILD, 2, A_BUILD_TILE, _draft_build)
    over = (s.phase == DRAFT_BUILD) & (s.turn == sh.nc)
    return _select(over, _cast_wide(_refresh(s)), s)


def _cast_wide(s: State) -> State:
    return _widen(_cast(s))


def _decide(s: State, action: jax.Array) -> State:
    c = jnp.where(s.phase == BID, _bidder(s) if not _shape(s).solo else 0, 0)
    branches = [
        lambda x, a: _bid(x, c, a),
        _draft_lot,
        _draft_block,
        _block_choice,
        _draft_build,
        _build,
        _add_on,
        _remodel,
        lambda x, a: x,
    ]
    out = jax.lax.switch(s.phase, [lambda x, a, f=f: _cast_wide(f(x, a)) for f in branches],
                         s, action)
    return _advance(out)


def step(s: State, action: jax.Array) -> State:
    """Apply the action id of the seat to decide (at a multiplayer bid: the next bidder's bid).

    An illegal id ends the game (−1 for that seat, 0 for the others); a finished game is
    returned unchanged.
    """
    action = jnp.asarray(action, jnp.int32)
    sh = _shape(s)
    p = jnp.maximum(current_player(s), 0)
    legal = legal_action_mask(s)[jnp.clip(action, 0, NUM_ACTIONS - 1)] & (
        (action >= 0) & (action < NUM_ACTIONS)
    )
    nxt = _cast(_decide(_widen(s), action))
    penalty = s._replace(
        phase=jnp.int8(OVER),
        terminated=jnp.bool_(True),
        illegal=jnp.bool_(True),
        rewards=jnp.where(jnp.arange(sh.n) == p, -1.0, 0.0).astype(jnp.float32),
    )
    bad = ~legal & ~s.terminated
    out = jax.tree.map(lambda x, y: jnp.where(bad, y, x), nxt, penalty)
    return jax.tree.map(lambda x, y: jnp.where(s.terminated, y, x), out, s)


def step_joint(s: State, actions: jax.Array) -> State:
    """Apply a joint action (one id per seat).

    At a multiplayer bid node: every seat's bid, in seat order (rules §3.1). Elsewhere: the
    entry of the seat to decide.
    """
    actions = jnp.asarray(actions, jnp.int32)
    sh = _shape(s)
    seq = step(s, actions[jnp.maximum(current_player(s), 0)])
    if sh.solo:
        return seq
    bids = s
    for c in range(sh.nc):
        bids = step(bids, actions[c])
    at_bid = (s.phase == BID) & ~s.terminated
    return jax.tree.map(lambda x, y: jnp.where(at_bid, y, x), seq, bids)


def terminated(s: State) -> jax.Array:
    """Whether the game is over."""
    return s.terminated


def rewards(s: State) -> jax.Array:
    """Float32 per seat: the returns by ``reward_type`` once the game is over, else zeros.

    Computed from the final position when asked (the batched env asks only for the games that
    just ended); a game ended by an illegal action gives its penalty.
    """
    final = s.terminated & ~s.illegal
    return jnp.where(final, _returns(_widen(s)), s.rewards)


# --- scoring (rules §5, §7) ----------------------------------------------------------------------


def visible_blocks(height: jax.Array) -> jax.Array:
    """Int32 (25,): blocks with a sea view per lot (rules §5.1)."""
    h = _i32(height).reshape(5, 5)
    r = jnp.arange(5)
    dist = r[:, None] - r[None, :]  # rows in front: dist > 0
    cover = jnp.where((dist > 0)[:, :, None], h[None, :, :] - dist[:, :, None], 0).max(1)
    return jnp.maximum(h - jnp.maximum(cover, 0), 0).reshape(25)


def _competition(keys: jax.Array, eligible: jax.Array) -> jax.Array:
    # rules §5.3: 6 / 3; tied firsts split 9 and nobody is 2nd; tied seconds split 3.
    k = jnp.where(eligible, keys, -1)
    best = k.max()
    first = eligible & (k == best)
    nf = first.sum()
    rest = jnp.where(first, -1, k)
    second_key = rest.max()
    second = eligible & ~first & (rest == second_key)
    ns = jnp.maximum(second.sum(), 1)
    share1 = jnp.where(nf > 1, 9 // jnp.maximum(nf, 1), 6)
    pts = jnp.where(first, share1, 0)
    return jnp.where((nf == 1) & second, 3 // ns, pts)


def _neighbour_pairs(size: int) -> np.ndarray:
    """(25, 4) orthogonal neighbours of each lot on the cliff (25 = none)."""
    out = np.full((25, 4), 25, np.int32)
    for p in range(25):
        r, c = C.LOT_ROWS[p], C.LOT_COLUMNS[p]
        for i, (dr, dc) in enumerate(C.ORTHOGONAL_STEPS):
            q = C.lot_at(r + dr, c + dc, size)
            if q is not None:
                out[p, i] = q
    return out


def _goal_table(s: State) -> jax.Array:
    """Int32 (13, nc): every goal's points per colour on this position (rules §1.8, §5.3)."""
    sh = _shape(s)
    nc, size = sh.nc, sh.size
    h = _i32(s.height)
    owner = _i32(s.owner)
    roof = _i32(s.roof)
    colours = jnp.arange(nc)
    built = h > 0
    mine = built[None, :] & (owner[None, :] == colours[:, None])  # (nc, 25)
    board = np.arange(25)
    col = np.asarray(C.LOT_COLUMNS)
    level = jnp.asarray(np.asarray(C.LOT_LEVELS))

    def region(lots: Any) -> jax.Array:
        sel = mine & lots[None, :]
        count = sel.sum(1)
        blocks = (sel * h[None, :]).sum(1)
        return _competition(count * 128 + blocks, count > 0)

    def static_region(goal: str) -> jax.Array:
        return region(jnp.asarray(np.isin(board, scoring.region_lots(goal, size))))

    grande = region(h > level)
    dietro = static_region("dietro")
    bordo = static_region("bordo")
    # Mezzo is played on 4×4 only, Centro on 5×5 only (rules §1.8).
    none = jnp.zeros(nc, jnp.int32)
    mezzo = static_region("mezzo") if size == 4 else none
    centro = static_region("centro") if size == 5 else none
    # Colonna: each colour's best column by (buildings, blocks).
    colsel = mine[:, None, :] & (jnp.asarray(col)[None, None, :] == jnp.arange(5)[None, :, None])
    ccount = colsel.sum(2)
    cblocks = (colsel * h[None, None, :]).sum(2)
    ckey = jnp.where(ccount > 0, ccount * 128 + cblocks, -1).max(1)
    colonna = _competition(ckey, ckey >= 0)
    # Gruppo: components of one colour's orthogonally adjacent buildings; a colour has at most
    # one building per round (≤ 6), so 6 rounds of min-label propagation settle every label.
    nb = jnp.asarray(_neighbour_pairs(size))
    label = jnp.where(built, jnp.arange(25), 99)
    ext_owner = jnp.concatenate([owner, jnp.array([-2])])
    ext_built = jnp.concatenate([built, jnp.array([False])])
    same = (ext_owner[nb] == owner[:, None]) & ext_built[nb] & built[:, None]
    for _ in range(6):
        ext_label = jnp.concatenate([label, jnp.array([99])])
        label = jnp.minimum(label, jnp.where(same, ext_label[nb], 99).min(1))
    member = (label[None, :] == jnp.arange(25)[:, None]) & built[None, :]  # (root, lot)
    gsize = member.sum(1)
    gblocks = (member * h[None, :]).sum(1)
    gkey = jnp.where(gsize > 0, gsize * 128 + gblocks, -1)
    root_owner = owner
    gbest = jnp.where(root_owner[None, :] == colours[:, None], gkey[None, :], -1).max(1)
    gruppo = _competition(gbest, gbest >= 0)
    personal = _i32(s.personal)
    eccesso = _competition(personal, personal > 0)
    # Per-item and threshold goals.
    piccolo = 3 * (mine & (h < level)[None, :]).sum(1)
    perfetto = 2 * (mine & (h == level)[None, :]).sum(1)
    lonely = ~((ext_owner[nb] == owner[:, None]) & ext_built[nb]).any(1)
    solitario = 2 * (mine & lonely[None, :]).sum(1)
    tall = jnp.arange(1, F.MAX_HEIGHT + 1)
    heights = (mine[:, None, :] & (h[None, None, :] == tall[None, :, None])).any(2)
    altezza = 2 * heights.sum(1)
    roofs = (mine[:, None, :] & (roof[None, None, :] == jnp.arange(1, 4)[None, :, None])).any(2)
    equilibrato = 5 * roofs.all(1)
    return jnp.stack(
        [grande, piccolo, solitario, gruppo, eccesso, equilibrato, dietro, colonna, bordo,
         mezzo, centro, perfetto, altezza]
    ).astype(jnp.int32)


def score_breakdown(s: State) -> dict[str, jax.Array]:
    """Per colour int32 arrays of the rules §5 parts (solo: colour 1 is Otto Amalfi).

    Keys: ``lot_points`` ((25,) sea-view points per lot), ``building_points``, ``gelato``,
    ``gelato_parts`` ((nc, 5): cards, boosters, lots, block tiles, build tiles), ``goals``
    ((nc, 3), the goals in play in order), ``total``; and ``result`` (per seat: the total, or in
    solo min(own, Otto's)).
    """
    sh = _shape(s)
    pts, bpts = _building_points(s, visible_blocks(s.height))
    parts = _gelato_parts(s)
    goals = _goal_table(s)[_i32(s.goals)].T  # (nc, 3)
    total = bpts + parts.sum(1) + goals.sum(1)
    result = jnp.minimum(total[0], total[1])[None] if sh.solo else total
    return {
        "lot_points": pts,
        "building_points": bpts,
        "gelato": parts.sum(1),
        "gelato_parts": parts,
        "goals": goals,
        "total": total,
        "result": result,
    }


def _building_points(s: State, vis: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Sea-view points per lot (25,) and per colour (nc,) for ``vis`` blocks seen (rules §5.1)."""
    h = _i32(s.height)
    pts = vis * _i32(s.roof)
    colours = jnp.arange(_shape(s).nc)
    mine = (h[None, :] > 0) & (_i32(s.owner)[None, :] == colours[:, None])
    return pts, (mine * pts[None, :]).sum(1)


def _gelato_parts(s: State) -> jax.Array:
    """Int32 (nc, 5): each colour's gelato icons so far by source (rules §5.2).

    Sources as ``PositanoState.gelato_parts``: played cards, boosters, drafted lots, block and
    build tiles.
    """
    tab = _tables(_shape(s).size)

    def gel(table: np.ndarray, taken: jax.Array) -> jax.Array:
        t = _i32(taken)
        if not table.any():  # no icon in this set (the 4×4 lots, rules §1.5): nothing to look up
            return jnp.zeros(t.shape[0], jnp.int32)
        return jnp.where(t >= 0, jnp.asarray(table)[jnp.maximum(t, 0)], 0).sum(1)

    return jnp.stack(
        [
            gel(_CARD_GEL, s.played_cards),
            gel(_BOOST_GEL, s.played_boosters),
            gel(tab.lot_gel, s.lots_taken),
            gel(tab.block_gel, s.blocks_taken),
            gel(tab.build_gel, s.builds_taken),
        ],
        axis=1,
    )


def winners(s: State) -> jax.Array:
    """Bool per seat: the top total; ties share the win (rules §5). Solo: ``[True]``."""
    res = score_breakdown(s)["result"]
    return res == res.max()


@functools.cache
def _score_bound(num_players: int, size: int) -> int:
    return int(PositanoGame(num_players=num_players, board_size=size).score_bounds[1])


def _returns(s: State) -> jax.Array:
    sh = _shape(s)
    res = score_breakdown(s)["result"]
    bound = _score_bound(sh.n, sh.size)
    if sh.solo:
        # rules §7: the solo result / 100, whatever reward_type says.
        return exact_ratio(res, 100, bound)
    return returns(s.reward_type, res, res == res.max(), bound)


# --- observation ---------------------------------------------------------------------------------


def observe(s: State, player: jax.Array) -> jax.Array:
    """Float32 ``(OBSERVATION_SIZE,)``: what ``player`` may know, as ``PositanoObserver`` sees it.

    Each part is computed under its name in the observer's layout (``facts.PARTS``), which alone
    gives the order and the sizes (:func:`~tabletop_gym.core.batched.assemble` checks them at
    trace time).
    """
    sh = _shape(s)
    tab = _tables(sh.size)
    nc, t = sh.nc, sh.t
    m = MAX_COLOURS
    player = jnp.asarray(player, jnp.int32)
    ph = _i32(s.phase)
    rnd = _i32(s.round)
    r = rnd - 1
    ego = (player + jnp.arange(nc)) % nc  # relative colour j -> colour

    def hot(name: str, i: Any) -> jax.Array:
        return one_hot(i, _LAYOUT[name].size)

    def rel(c: jax.Array) -> jax.Array:
        return (c - player) % nc

    def per_colour(x: jax.Array) -> jax.Array:
        """(nc, ...) by colour -> (6, ...) by relative colour, zero padded, flattened."""
        y = jnp.asarray(x)[ego].astype(jnp.float32)
        return jnp.pad(y, [(0, m - nc)] + [(0, 0)] * (y.ndim - 1)).reshape(-1)

    acting = acting_colour(s)
    cur = jnp.where(ph == OVER, -1, 0) if sh.solo else jnp.where(ph == BID, -2, acting)
    own_turn = (cur == -2) | (cur == player)
    h = _i32(s.height)
    owner = _i32(s.owner)
    roof = _i32(s.roof)
    built = h > 0
    vis = visible_blocks(h)
    board = jnp.arange(25)
    rows = _rows(s)
    left = s.row_left

    def hot_rows(k: int) -> jax.Array:
        return ((rows[k][:, None] == board[None, :]) & left[k][:, None]).any(0)

    # Stacks: order positions past this round's windows.
    lot_pos = jnp.arange(s.lot_order.shape[0])
    lot_o = _i32(s.lot_order)
    removed = (lot_o[:, None] == board[None, :]) & (lot_pos < sh.removed)[:, None]
    stack = (lot_o[:, None] == board[None, :]) & (lot_pos >= sh.removed + rnd * t)[:, None]
    removed, stack = removed.any(0), stack.any(0)

    def unseen(order: jax.Array) -> jax.Array:
        o = _i32(order)
        past = jnp.arange(o.shape[0]) >= rnd * t
        return ((o[:, None] == board[None, :]) & past[:, None]).any(0)

    unseen_blocks = unseen(s.block_order)
    unseen_builds = unseen(s.build_order)
    block_kinds = (
        (jnp.asarray(tab.block_kind)[:, None] == jnp.arange(len(F.BLOCK_KINDS))[None, :])
        & unseen_blocks[:, None]
    ).sum(0)
    build_kinds = (
        (jnp.asarray(tab.build_kind)[:, None] == jnp.arange(len(F.BUILD_KINDS))[None, :])
        & unseen_builds[:, None]
    ).sum(0)
    # Drafted lots that stay empty for good (rules §4).
    lt = _i32(s.lots_taken)
    n_builds = (s.builds_taken >= 0).sum(1)
    i = jnp.arange(sh.rounds)
    pending_build = (ph == BUILD) & (acting == jnp.arange(nc))[:, None] & (i == r)[None, :]
    empty_entry = (lt >= 0) & ~built[jnp.maximum(lt, 0)] & (i[None, :] < n_builds[:, None])
    empty_entry &= ~pending_build
    lot_empty = ((lt[:, :, None] == board[None, None, :]) & empty_entry[:, :, None]).any((0, 1))
    this_lot = lt[:, r]
    this_round = (this_lot[:, None] == board[None, :]) & (this_lot >= 0)[:, None]
    # Beach Board.
    in_block_row = hot_rows(1)
    in_build_row = hot_rows(2)
    beach_blocks = in_block_row[:, None] * jnp.asarray(tab.block_feats)
    beach_builds = in_build_row[:, None] * jnp.asarray(tab.build_feats)
    if sh.solo:
        def first(k: int) -> jax.Array:
            return jnp.where(left[k].any(), one_hot(rows[k][jnp.argmax(left[k])], F.MAX_TILES), 0.0)

        leftmost = jnp.concatenate([first(0), first(1), first(2)])
    else:
        leftmost = jnp.zeros(_LAYOUT["beach_leftmost"].size)
    # Cards and bids.
    pc = _i32(s.played_cards)
    pb = _i32(s.played_boosters)
    played_c = ((pc[:, :, None] == jnp.arange(NUM_CARDS)) & (pc >= 0)[:, :, None]).any(1)
    played_b = ((pb[:, :, None] == jnp.arange(NUM_BOOSTERS)) & (pb >= 0)[:, :, None]).any(1)
    bc = pc[:, r]
    bb = pb[:, r]
    has_bid = bc >= 0
    bid_card = (bc[:, None] == jnp.arange(NUM_CARDS)) & has_bid[:, None]
    bid_boost = (bb[:, None] == jnp.arange(NUM_BOOSTERS)) & has_bid[:, None]
    bid_vals = jnp.where(
        has_bid[:, None], jnp.asarray(_BID_VALUE)[jnp.maximum(bc, 0), jnp.maximum(bb, 0)], 0
    )
    order = _i32(s.order)
    # rank[k, c] = 1-based place of colour c in draft order k.
    place = (order[:, :, None] == jnp.arange(nc)[None, None, :]) * (
        jnp.arange(1, nc + 1)[None, :, None]
    )
    rank = place.sum(1).T  # (nc, 3)
    rank = jnp.where((ph != BID) & (ph != OVER), rank, 0)
    star = (_i32(s.star)[:, None] - 1) == jnp.arange(C.NUM_STAR_SETS)[None, :]
    gelato = _gelato_parts(s).sum(1)
    _, building_points = _building_points(s, vis)
    # Pending draft context of the acting colour.
    a = jnp.maximum(acting, 0)
    btile = jnp.maximum(_i32(s.blocks_taken[a, r]), 0)
    mult = jnp.asarray(tab.mult)[btile]
    gen = _i32(s.general[a])
    choosing = ph == BLOCK_CHOICE
    block_choice = jnp.where(choosing, hot("block_choice", mult - 2), 0.0)
    gains = jnp.stack(
        [jnp.minimum(_i32(s.personal[a]) * (mult - 1), gen),
         jnp.minimum(jnp.asarray(tab.blocks)[btile], gen)]
    )
    block_gain = jnp.where(choosing, gains, 0)
    building = (ph == BUILD) | (ph == ADD_ON) | (ph == REMODEL)
    utile = jnp.maximum(_i32(s.builds_taken[a, r]), 0)
    lot = jnp.maximum(lt[a, r], 0)
    build_tile = jnp.where(building, jnp.asarray(tab.build_feats)[utile, 1:], 0)
    build_limit = jnp.where(building, _lot_level(lot) + jnp.asarray(tab.bonus)[utile], 0)
    build_lot = jnp.where(building, hot("build_lot", lot), 0.0)
    otto = (
        jnp.stack([NUM_CARDS - (pc[1] >= 0).sum(), NUM_BOOSTERS - (pb[1] >= 0).sum()])
        if sh.solo
        else jnp.zeros(2)
    )
    rel_owner = jnp.where(built, rel(owner), -1)
    # Every part of the declared layout by name (envs/positano/facts.py: PARTS); assembled in
    # that order below, so the order and the sizes have one home.
    parts = {
        "num_players": hot("num_players", sh.n - 1),
        "board_size": hot("board_size", C.BOARD_SIZES.index(sh.size)),
        "round": rnd[None],
        "rounds_left": (sh.rounds - rnd)[None],
        "phase": hot("phase", ph),
        "own_turn": own_turn[None],
        "decider": jnp.where(cur >= 0, hot("decider", rel(cur)), 0.0),
        "acting_colour": jnp.where(acting >= 0, hot("acting_colour", rel(acting)), 0.0),
        "goals": (jnp.arange(len(C.GOAL_NAMES))[:, None] == _i32(s.goals)[None, :]).any(1),
        "cliff_owner": (rel_owner[:, None] == jnp.arange(m)[None, :]),
        "cliff_height": h,
        "cliff_roof": (roof[:, None] == jnp.arange(1, 4)[None, :]) & built[:, None],
        "cliff_visible": vis,
        "lot_removed": removed,
        "lot_open": hot_rows(0) | stack,
        "lot_empty": lot_empty,
        "lot_this_round": per_colour(this_round),
        "beach_lots": hot_rows(0),
        "beach_blocks": beach_blocks,
        "beach_builds": beach_builds,
        "beach_leftmost": leftmost,
        "unseen_lots": stack,
        "unseen_blocks": unseen_blocks,
        "unseen_builds": unseen_builds,
        "unseen_block_kinds": block_kinds,
        "unseen_build_kinds": build_kinds,
        "own_cards": s.hand_cards[player],
        "own_boosters": s.hand_boosters[player],
        "colour_present": jnp.arange(m) < nc,
        "played_cards": per_colour(played_c),
        "played_boosters": per_colour(played_b),
        "bid_card": per_colour(bid_card),
        "bid_booster": per_colour(bid_boost),
        "bid_values": per_colour(bid_vals),
        "draft_rank": per_colour(rank),
        "star_set": per_colour(star),
        "personal": per_colour(s.personal),
        "general": per_colour(s.general),
        "gelato": per_colour(gelato),
        "building_points": per_colour(building_points),
        "roofs_left": s.roofs_left,
        "otto_deck": otto,
        "block_choice": block_choice,
        "block_choice_gain": block_gain,
        "build_tile": build_tile,
        "build_limit": build_limit[None],
        "build_lot": build_lot,
    }
    return assemble(_LAYOUT, parts)


# --- hidden information -----------------------------------------------------------------------


def resample_hidden(s: State, player: jax.Array, key: jax.Array) -> State:
    """A world drawn from what ``player`` knows: the Python resamplers in JAX.

    As ``PositanoState.resample_hidden``: the orders of the three face-down stacks (the lots,
    block and build tiles of the rounds after this one) and, solo, of Otto Amalfi's undrawn
    cards and boosters are shuffled; their contents are public. As the turn-based transform's
    ``TurnBasedState.resample_hidden``: at a multiplayer bid, every other seat's committed bid
    is replaced by a uniformly random legal bid of that seat (its own stays). Each shuffled part
    is sorted first, so the world is a function of ``player``'s view and ``key`` only. Same
    distribution as the Python resamplers (the random streams differ).

    Args:
        s: One state (``jax.vmap`` it for a batch).
        player: The seat whose view must stay the same (may be traced).
        key: PRNG key of the shuffles.
    """
    sh = _shape(s)
    t = sh.t
    r = _i32(s.round)
    keys = jax.random.split(key, 6)
    out = s._replace(
        lot_order=shuffle_tail(keys[0], s.lot_order, sh.removed + r * t),
        block_order=shuffle_tail(keys[1], s.block_order, r * t),
        build_order=shuffle_tail(keys[2], s.build_order, r * t),
    )
    if sh.solo:
        # Otto's deck is top first: the cards he has played, then his hand.
        drawn_c = (_i32(s.played_cards[1]) >= 0).sum()
        drawn_b = (_i32(s.played_boosters[1]) >= 0).sum()
        return out._replace(
            otto_cards=shuffle_tail(keys[3], s.otto_cards, drawn_c),
            otto_boosters=shuffle_tail(keys[4], s.otto_boosters, drawn_b),
        )
    seats = jnp.arange(sh.nc)
    masks = jax.vmap(lambda c: _seat_mask(s, c, jnp.int32(BID)))(seats)
    drawn = jax.random.categorical(
        keys[5], jnp.where(masks, 0.0, -jnp.inf), axis=-1
    )
    redraw = (seats != jnp.asarray(player, jnp.int32)) & (_i32(s.pending) >= 0)
    return out._replace(pending=jnp.where(redraw, drawn, _i32(s.pending)).astype(s.pending.dtype))


# --- conversion to and from the reference engine -------------------------------------------------


def from_reference(ref: PositanoState | TurnBasedState) -> State:
    """The batched state of a reference position (any position, mid-game included).

    A turn-based state (the sequential bids of the envs) brings its committed bids along as
    ``pending``.

    Raises:
        ValueError: For a turn-based state of split bids with sub-decisions entered (the batched
            engine takes whole bids).
    """
    if isinstance(ref, TurnBasedState):
        if ref.prefix:
            raise ValueError("the batched engine takes whole bids: this split-bid state has "
                             "sub-decisions entered (use split_bids=False)")
        inner = ref.inner
        if not isinstance(inner, PositanoState):
            raise TypeError(f"a turn-based state of {type(inner).__name__}, not of Positano")
        if inner.game.solo:
            # The solo bid is one sequential decision: nothing is ever pending.
            return from_reference(inner)
        pending = np.array([-1 if a is None else a for a in ref.pending], np.int8)
        return from_reference(inner)._replace(pending=jnp.asarray(pending))
    g = ref.game
    cfg = g.config
    nc, R = g.num_colours, g.num_rounds
    r = ref.round
    k_done = [ref.lots_taken, ref.blocks_taken, ref.builds_taken]
    rows = [ref.lot_row, ref.block_row, ref.build_row]
    windows, lefts, earlier = [], [], []
    for taken, row in zip(k_done, rows, strict=True):
        this = [x[r - 1] for x in taken if len(x) >= r]
        windows.append(this + list(row))
        lefts.append([False] * len(this) + [True] * len(row))
        earlier.append([v for x in taken for v in x[: r - 1]])
    lot_order = list(ref.removed_lots) + earlier[0] + windows[0] + list(ref.lot_stack)
    block_order = earlier[1] + windows[1] + list(ref.block_stack)
    build_order = earlier[2] + windows[2] + list(ref.build_stack)

    def padded(lists: list[list[int]]) -> np.ndarray:
        out = np.full((nc, R), -1)
        for c, x in enumerate(lists):
            out[c, : len(x)] = x
        return out

    hand_c = np.zeros((nc, NUM_CARDS), bool)
    hand_b = np.zeros((nc, NUM_BOOSTERS), bool)
    for c in range(nc):
        hand_c[c, ref.hand_cards[c]] = True
        hand_b[c, ref.hand_boosters[c]] = True
    if g.solo:
        otto_c = list(ref.played_cards[1]) + list(ref.hand_cards[1])
        otto_b = list(ref.played_boosters[1]) + list(ref.hand_boosters[1])
    else:
        otto_c, otto_b = list(range(NUM_CARDS)), list(range(NUM_BOOSTERS))
    orders = [ref.draft_order(k) or [0] * nc for k in range(3)]
    terminal = ref.is_terminal()
    fields = {
        "round": r,
        "phase": ref.phase_index,
        "turn": ref.turn,
        "goals": _goal_ids(tuple(ref.goals)),
        "star": np.array(ref.star_sets),
        "hand_cards": hand_c,
        "hand_boosters": hand_b,
        "otto_cards": np.array(otto_c),
        "otto_boosters": np.array(otto_b),
        "played_cards": padded(ref.played_cards),
        "played_boosters": padded(ref.played_boosters),
        "pending": np.full(nc, -1),
        "lot_order": np.array(lot_order),
        "block_order": np.array(block_order),
        "build_order": np.array(build_order),
        "row_left": np.array(lefts),
        "lots_taken": padded(ref.lots_taken),
        "blocks_taken": padded(ref.blocks_taken),
        "builds_taken": padded(ref.builds_taken),
        "owner": np.array(ref.owner),
        "height": np.array(ref.height),
        "roof": np.array(ref.roof),
        "personal": np.array(ref.personal),
        "general": np.array(ref.general),
        "roofs_left": np.array(ref.roofs_left),
        "order": np.array(orders),
        "reward_type": REWARD_TYPES.index(cfg.reward_type),
        "terminated": terminal,
        "illegal": False,
        "rewards": np.zeros(cfg.num_players),
    }
    # numpy does the conversion (the reference's ints in the field's dtype), jax the transfer.
    return State(
        **{f: jnp.asarray(np.asarray(fields[f], dtype=_DTYPES[f])) for f in State._fields}
    )


def to_reference(s: State, game: PositanoGame) -> PositanoState:
    """The reference position of an unbatched state (loaded and checked by the JSON loader).

    Raises:
        StateFormatError: When ``s`` is not a position the reference engine can reach (a game
            ended by an illegal action is one).
        ValueError: When bids are pending (the reference has no such position).
    """
    s = jax.device_get(s)
    if (np.asarray(s.pending) >= 0).any():
        raise ValueError("bids are pending: finish the bid node (or use step_joint) first")
    nc, t = game.num_colours, game.tiles_per_round
    r = int(s.round)
    k = game.lots_removed
    lot_order = [int(x) for x in s.lot_order]
    block_order = [int(x) for x in s.block_order]
    build_order = [int(x) for x in s.build_order]
    left = np.asarray(s.row_left)
    win = (r - 1) * t
    rows = [
        [p for p, ok in zip(lot_order[k + win : k + win + t], left[0], strict=True) if ok],
        [p for p, ok in zip(block_order[win : win + t], left[1], strict=True) if ok],
        [p for p, ok in zip(build_order[win : win + t], left[2], strict=True) if ok],
    ]

    def row_list(a: Any, c: int) -> list[int]:
        return [int(x) for x in a[c] if x >= 0]

    solo = game.solo
    colours = []
    for c in range(nc):
        if solo and c == 1:
            n_rev = len(row_list(s.played_cards, 1))
            hc = [int(x) for x in s.otto_cards[n_rev:]]
            hb = [int(x) for x in s.otto_boosters[n_rev:]]
        else:
            hc = [i for i in range(NUM_CARDS) if s.hand_cards[c, i]]
            hb = [i for i in range(NUM_BOOSTERS) if s.hand_boosters[c, i]]
        colours.append(
            {
                "star_set": int(s.star[c]),
                "hand_cards": hc,
                "hand_boosters": hb,
                "played_cards": row_list(s.played_cards, c),
                "played_boosters": row_list(s.played_boosters, c),
                "lots": row_list(s.lots_taken, c),
                "block_tiles": row_list(s.blocks_taken, c),
                "build_tiles": row_list(s.builds_taken, c),
                "personal": int(s.personal[c]),
                "general": int(s.general[c]),
            }
        )
    state = {
        "round": r,
        "phase": PHASES[int(s.phase)],
        "turn": int(s.turn),
        "goals": [C.GOAL_NAMES[int(x)] for x in s.goals],
        "colours": colours,
        "stacks": {
            "lots": lot_order[k + r * t :],
            "blocks": block_order[r * t :],
            "builds": build_order[r * t :],
        },
        "beach": {"lots": rows[0], "blocks": rows[1], "builds": rows[2]},
        "removed_lots": sorted(lot_order[:k]),
        "owner": [int(x) for x in s.owner],
        "height": [int(x) for x in s.height],
        "roof": [int(x) for x in s.roof],
        "roofs_left": [int(x) for x in s.roofs_left],
    }
    ref = game.state_from_json({"schema": 1, "game": game.name, "state": state})
    if not isinstance(ref, PositanoState):  # pragma: no cover - the game's own loader
        raise TypeError(f"{game.name} loaded a {type(ref).__name__}, not a PositanoState")
    return ref


def config_of(s: State, **config: Any) -> PositanoConfig:
    """The reference config of an unbatched state (goals are per deal: pass ``goals`` to fix)."""
    sh = _shape(jax.device_get(s))
    return PositanoConfig(
        num_players=sh.n,
        board_size=sh.size,
        reward_type=REWARD_TYPES[int(s.reward_type)],
        **config,
    )


def batched_spec(config: PositanoConfig) -> BatchedGame:
    """This engine's functions bound to a validated config (what ``core.make`` returns)."""
    ref = PositanoGame(config)
    deck, ends = deck_layout(config.num_players, ref.size, not ref.fixed_goals)
    return bind_module(
        sys.modules[__name__], config, deck, min_decisions(config), ends, name=PositanoGame.name
    )


__all__ = [
    "OBSERVATION_SIZE",
    "State",
    "acting_colour",
    "batched_spec",
    "current_player",
    "deck_layout",
    "from_reference",
    "init",
    "init_from_deck",
    "legal_action_mask",
    "legal_action_masks",
    "observe",
    "rewards",
    "score_breakdown",
    "shuffle_segments",
    "step",
    "step_joint",
    "terminated",
    "to_reference",
    "visible_blocks",
    "winners",
]
