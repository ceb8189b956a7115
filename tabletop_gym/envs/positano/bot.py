"""A rule-based Positano player that decides from its own observation vector only.

The bot reads the ego-centric vector of :class:`~tabletop_gym.envs.positano.observer.
PositanoObserver` (or the turn-based observer that extends it) by slice names and values every
option in points: sea-view points of a building (its visible blocks times its roof), the goals in
play, gelato, the blocks it costs (a block kept is worth what it can add to a later building) and,
against opponents, the view it takes from their buildings behind it.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import ClassVar

import numpy as np

from tabletop_gym.core.game import Game
from tabletop_gym.core.observer import Observer
from tabletop_gym.envs.positano import components as C
from tabletop_gym.envs.positano.actions import (
    A_ADD_ON as _A_ADD_ON,
    A_BID_BOOSTER as _A_BID_BOOSTER,
    A_BID_CARD as _A_BID_CARD,
    A_BLOCK as _A_BLOCK,
    A_BUILD_TILE as _A_BUILD_TILE,
    A_HEIGHT as _A_HEIGHT,
    A_LOT as _A_LOT,
    A_MULTIPLY as _A_MULTIPLY,
    A_REMODEL as _A_REMODEL,
    A_SKIP_ADD_ON as _A_SKIP_ADD_ON,
    A_SKIP_REMODEL as _A_SKIP_REMODEL,
    ACTIONS,
    BID_ID,
    BID_PAIR,
    BIDS,
)
from tabletop_gym.envs.positano.observer import (
    BLOCK_FEATURES,
    BUILD_FEATURES,
    MAX_BID as _MAX_BID,
    NUM_BOOSTERS,
    NUM_CARDS,
    NUM_LOTS,
)
from tabletop_gym.envs.positano.rules import TILE_TYPES, PositanoGame
from tabletop_gym.envs.positano.scoring import REGION_GOALS, goal_points, hidden_blocks, in_region

# --- component values the observation refers to by index (rules §1.3, §1.4) -------------
_CARD_VALUES = tuple(card.values for card in C.BID_CARDS)
_CARD_GELATO = tuple(card.gelato for card in C.BID_CARDS)
_BID_VALUES = C.BID_VALUES
_BOOSTER_GELATO = tuple(b.gelato for b in C.BOOSTERS)
_LEVEL = C.LOT_LEVELS
_ROOFS = (C.BRONZE, C.SILVER, C.GOLD)
"""Roof ranks in the order of the ``cliff_roof`` one-hot."""
_TILE_TYPES = TILE_TYPES
_SIM_LO = PositanoGame.simultaneous_action_range[0]
# Decisions (ACTIONS.decision_of) whose valuation reads the Beach Board, the bid hands, or the
# pending build.
_BID_DECISIONS = frozenset(("bid", "bid_card", "bid_booster"))
_MARKET_DECISIONS = _BID_DECISIONS | {"draft_lot", "draft_block", "draft_build"}
_BUILD_DECISIONS = frozenset(("build", "add_on", "remodel"))
# Columns of the per-tile features of the Beach Board slices and of build_tile, by name.
_BT_BRONZE, _BT_SILVER = (BUILD_FEATURES[1:].index(f) for f in ("Bronze", "Silver"))
_BK_UP, _BK_BLOCKS, _BK_2X, _BK_3X, _BK_GELATO = (
    BLOCK_FEATURES.index(f)
    for f in ("face up", "blocks (flat amount for 2X/3X)", "2X", "3X", "gelato")
)
(_BU_UP, _BU_BRONZE, _BU_SILVER, _BU_GOLD, _BU_BONUS, _BU_ADD_ON, _BU_REMODEL,
 _BU_GELATO) = (
    BUILD_FEATURES.index(f)
    for f in ("face up", "Bronze", "Silver", "Gold", "bonus", "Add-On", "Remodel", "gelato")
)
# Blocks gained by a face-down block tile of each kind ("1".."5", "2X", "3X"); a 2X/3X tile is
# counted a little above its flat option because doubling a supply is sometimes better.
_KIND_GAIN = (1.0, 2.0, 3.0, 4.0, 5.0, 2.5, 3.5)
_GOAL_NAMES = C.GOAL_NAMES
_NUM_GOALS = len(_GOAL_NAMES)

# --- tuning constants (points) -----------------------------------------------------------------
# A block kept for later is worth up to _MU_HI while the colour's future buildings are short of
# blocks and _MU_LO once it has plenty; _MU_WIDTH blocks of slack blend the two.
_MU_HI = 2.0
_MU_LO = 0.15
_MU_WIDTH = 3.0
# The first block for a building still to come decides whether its lot is built at all.
_FIRST_BLOCK = 4.0
# Blocks left over at the end count only for Eccesso.
_ECCESSO_BLOCK = 0.35
# Share of the expected view loss to lots in front that are still open (they may stay short).
_FUTURE_HIDE = 0.9
# Solo values of _MU_HI and _FUTURE_HIDE, tuned on solo deals (the player also decides how tall
# Otto's buildings in front of its own get, so open lots in front threaten less).
_MU_HI_SOLO = 1.4
_FUTURE_HIDE_SOLO = 0.6
# Expected height above regulation of a building still to come on an open lot.
_FUTURE_EXTRA = 0.3
# Expected height above regulation a build tile allows (mean bonus of the tiles).
_MEAN_BONUS = 0.7
# Per-building value of a competition goal (6 / 3 points) while the race is open or settled.
_COMP_OPEN = 2.0
_COMP_SETTLED = 0.6
# Largest-group growth for Gruppo, per building the group gains.
_GROUP_STEP = 1.5
# Equilibrato (5 once all three roofs): partial credit for a second or first roof kind.
_EQUI_SECOND = 1.5
_EQUI_FIRST = 0.4
# Expected visible blocks of a building whose lot is not known yet (build tiles at the bid).
_GENERIC_VIEW = 2.0
# Future worth of the bid hand: average stake per tile type (points between first and last
# pick) and the extra worth of a card with one 70 or 60 value (it can win one type outright).
_STAKE = (6.0, 4.0, 4.0)
_SPECIALIST = 1.0
# Weight of an opponent's lost view (2 players: zero-sum; more players: one of several rivals).
_OPP_HIDE_2P = 0.8
# Solo: how strongly the bid favours the colour that is behind (the result is the minimum).
_SOLO_AMP = 0.4
_SOLO_SCALE = 8.0
_EPS = 1e-9


@dataclasses.dataclass(frozen=True)
class PositanoPriorities:
    """The weights a variant of the bot changes (points); the defaults are the bot's own.

    A variant is the same bot with other priorities: a population of players that value blocks,
    goals and rivals differently, none of which any training recipe plays against (the held-out
    population of the results page).

    Attributes:
        mu_hi: Worth of a block kept for later while the colour's future buildings are short.
        mu_hi_solo: The same in the solo game.
        future_hide: Share of the expected view loss to lots in front that are still open.
        future_hide_solo: The same in the solo game.
        first_block: Worth of the first block of a building still to come.
        competition: Per-building value of a competition goal while its race is open.
        rival_view: Worth of a point of view taken from the one opponent (2 players).
    """

    mu_hi: float = _MU_HI
    mu_hi_solo: float = _MU_HI_SOLO
    future_hide: float = _FUTURE_HIDE
    future_hide_solo: float = _FUTURE_HIDE_SOLO
    first_block: float = _FIRST_BLOCK
    competition: float = _COMP_OPEN
    rival_view: float = _OPP_HIDE_2P


VARIANTS: dict[str, PositanoPriorities] = {
    # Keeps blocks for the buildings to come and bids for them: tall late buildings.
    "hoarder": PositanoPriorities(mu_hi=3.5, mu_hi_solo=2.5, first_block=6.0),
    # Spends what it has now: builds tall early and rarely keeps blocks back.
    "spender": PositanoPriorities(mu_hi=1.0, mu_hi_solo=0.7),
    # Plays its own board: ignores the view it takes from the rival and the goal races.
    "loner": PositanoPriorities(competition=0.5, rival_view=0.0),
}
"""Named variants (``heuristic:NAME``) of the Positano bot."""


def _clip(x: float, lo: float, hi: float) -> float:
    return lo if x < lo else hi if x > hi else x


def _one_hot(values: list[float]) -> int:
    """Index of the 1 of a one-hot list, -1 when it is all zeros."""
    return values.index(1.0) if 1.0 in values else -1


def _static_win_prob() -> list[float]:
    """P(a bid of value x beats one uniformly random card + booster pair), ties counted half."""
    vals = [bid[0] for row in _BID_VALUES for bid in row]
    n = len(vals)
    return [(sum(v < x for v in vals) + 0.5 * sum(v == x for v in vals)) / n
            for x in range(_MAX_BID + 1)]


_WIN = _static_win_prob()


def _hand_worths() -> tuple[list[float], list[float]]:
    """Future worth of each card and each booster in an average later round (gelato included)."""
    cards = []
    for c, vals in enumerate(_CARD_VALUES):
        w = sum(
            _STAKE[k] * sum(_WIN[bid[k]] for bid in _BID_VALUES[c]) / NUM_BOOSTERS
            for k in range(3)
        )
        # A card with a 60 or 70 can take first pick of one type in the round that needs it.
        cards.append(w + _SPECIALIST * max(0.0, (max(vals) - 40) / 30) + _CARD_GELATO[c])
    boosters = []
    for b in range(NUM_BOOSTERS):
        w = sum(
            _STAKE[k] * sum(_WIN[row[b][k]] for row in _BID_VALUES) / NUM_CARDS
            for k in range(3)
        )
        boosters.append(w + _BOOSTER_GELATO[b])
    return cards, boosters


_CARD_WORTH, _BOOSTER_WORTH = _hand_worths()

# Bid values of every (card, booster) pair by index in the bid range, for array look-ups.
_PAIR_VALUES = np.array([C.BID_VALUES[c][b] for c, b in BID_PAIR], dtype=np.int64)
_HIST = _MAX_BID + 1
_TYPE_OFFSET = np.arange(3) * _HIST
_TYPE_INDEX = np.arange(3)[:, None]
_HELD_PAIRS = np.arange(BIDS.size)


def _hand_mask(played_cards: list[int], played_boosters: list[int]) -> np.ndarray:
    """Pairs whose card and booster are both still in a colour's hand.

    By index in the bid range: row-major (card, booster), as the action layout lays it out.
    """
    card_ok = np.ones(NUM_CARDS, dtype=bool)
    card_ok[played_cards] = False
    boost_ok = np.ones(NUM_BOOSTERS, dtype=bool)
    boost_ok[played_boosters] = False
    return (card_ok[:, None] & boost_ok[None, :]).ravel()


# Each field is declared once: the dataclass makes its annotations the slots (a decision fills
# them one by one, so no __init__, and views are never compared or printed).
@dataclasses.dataclass(slots=True, init=False, eq=False, repr=False)
class _View:
    """The decoded parts of one observation (colours relative: 0 is the observing seat)."""

    b_blocks: list[tuple[int, int, int, float]]
    b_builds: list[tuple[int, int, int, float, float, float]]
    b_lots: list[int]
    bid_card: list[int]
    bid_values: list[list[float]]
    booster_in: list[int]
    build_lot: int
    build_tile: list[float]
    built: list[list[int]]
    cards_in: list[int]
    choice_gain: tuple[float, float]
    empty: list[int]
    fut_hide: float
    gelato: list[float]
    general: list[int]
    goals: set[str]
    height: list[int]
    leftmost: list[int]
    level_open: float
    me: int
    mu_hi: float
    n: int
    nc: int
    open: list[int]
    owner: list[int]
    personal: list[int]
    played_boosters: list[list[int]]
    played_cards: list[list[int]]
    points: list[float]
    prefix: int
    rank: list[list[float]]
    rleft: int
    roof: list[int]
    roofs_left: list[int]
    size: int
    solo: bool
    stars: list[int]
    this_lot: list[int]
    unseen_gain: float


class PositanoHeuristic:
    """Positano baseline bot: explainable rules that value each option in points.

    Strategy:

    * **Lots** are valued by the sea view a building there can get: back rows stand higher, so a
      building on row r shows every block above the buildings in front of it in its column (a
      building k rows in front with h blocks hides h − k), with the lots in front still to be
      built counted as a likely loss; times the expected roof (Gold 3 / Silver 2 / Bronze 1 per
      viewing block); plus the goals in play (regions, groups, heights, roofs) and the view it
      takes from opponents' buildings behind it.
    * **Blocks** are worth what they add to the colour's buildings: a lot of value while its
      future buildings are short of blocks, little once it has plenty, nothing at the end (bar
      Eccesso). Block tiles are ranked by that value plus gelato.
    * **Bids** by need: each (card, booster) pair is scored by the expected value of the draft
      places it wins this round (the tiles ranked by the values above, each opponent's bid
      uniform over the cards it still holds) plus gelato plus what the hand left keeps for the
      rounds to come, so high lot bids go out when a great lot is on offer, high block bids when
      short of blocks, high build bids for Gold / +2 tiles, and good cards wait otherwise.
    * **2X/3X**: the larger gain.
    * **Build tile and height**: the height with the best view × roof plus goals minus the
      worth of the blocks spent (as tall as allowed unless the blocks are needed later; with
      fewer rounds left blocks are worth less, so it spends more).
    * **Add-On** on the building with the best marginal visible block × roof, if worth a block;
      **Remodel** on the building with the most visible blocks (unless it costs Equilibrato).
    * **Solo**: the same values for Otto Amalfi's colour when deciding for him; Otto counts as a
      partner (hiding his view is a loss), and the bid decides which colour gets the leftmost
      tile of each row, weighting the colour that is behind more, since the result is
      min(own, Otto's).

    The bot reads only its observation dict; the random generator only breaks ties.
    """

    name = "heuristic"
    variants: ClassVar[dict[str, PositanoPriorities]] = VARIANTS
    """Named variants (``heuristic:NAME``)."""

    def __init__(self, game: Game, observer: Observer, rng: np.random.Generator | None = None,
                 priorities: PositanoPriorities | None = None):
        """Bind the bot to an observation layout.

        Args:
            game: The Positano game (or the turn-based game around it); nothing of it is read
                while playing.
            observer: The observer whose layout the observations follow (the Positano observer
                or the turn-based observer extending it); slices are found by name.
            rng: Generator used to break ties between equally valued actions.
            priorities: Weights of a variant (default: the bot's own).
        """
        self.priorities = PositanoPriorities() if priorities is None else priorities
        self.game = game
        self.observer = observer
        self.rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
        self.layout = observer.layout
        self._has_prefix = "own_prefix" in self.layout.slices
        # The tables the layout declares (per colour × card, per tile × feature, ...).
        self._shape = {name: sl.shape for name, sl in self.layout.slices.items()}

    def seed(self, seed: int | None) -> None:
        """Reseed the tie-breaking generator."""
        self.rng = np.random.default_rng(seed)

    # --- entry point ----------------------------------------------------------------------------

    def act(self, observation: dict[str, np.ndarray]) -> int:
        """Return the best legal action for the decision this observation shows."""
        legal = np.flatnonzero(observation["action_mask"]).tolist()
        if not legal:
            raise ValueError("no legal action in the mask; this agent is not to act")
        if len(legal) == 1:
            return int(legal[0])
        # Every legal id of a decision answers that decision: the layout names it.
        decision = ACTIONS.decision_of(legal[0])
        w = self._decode(observation["observation"], decision)
        scores = self._SCORES[decision](self, w, legal)
        return self._argmax(legal, scores)

    def _argmax(self, legal: list[int], scores: list[float]) -> int:
        best = max(scores)
        ties = [a for a, s in zip(legal, scores, strict=True) if s >= best - _EPS]
        if len(ties) == 1:
            return int(ties[0])
        return int(ties[int(self.rng.integers(len(ties)))])

    # --- decoding -------------------------------------------------------------------------------

    def _decode(self, vec: np.ndarray, decision: str) -> _View:
        """Read the slices ``decision`` needs, by name, into plain Python lists."""
        s = self.layout.view(vec)
        w = _View()
        w.n = s["num_players"].tolist().index(1.0) + 1
        w.solo = w.n == 1
        w.nc = 2 if w.solo else w.n
        nc = w.nc
        # Solo: the player also keeps Otto's buildings in front short, so open lots hide less.
        pri = self.priorities
        w.fut_hide = pri.future_hide_solo if w.solo else pri.future_hide
        w.mu_hi = pri.mu_hi_solo if w.solo else pri.mu_hi
        w.size = C.BOARD_SIZES[s["board_size"].tolist().index(1.0)]
        w.rleft = int(s["rounds_left"][0])
        ac = s["acting_colour"].tolist()
        w.me = ac.index(1.0) if 1.0 in ac else 0
        w.goals = {_GOAL_NAMES[i] for i, x in enumerate(s["goals"].tolist()) if x}
        # Cliff.
        size = w.size
        height = [int(x) for x in s["cliff_height"].tolist()]
        owner_rows = s["cliff_owner"].reshape(self._shape["cliff_owner"]).tolist()
        roof_rows = s["cliff_roof"].reshape(self._shape["cliff_roof"]).tolist()
        owner = [-1] * NUM_LOTS
        roof = [0] * NUM_LOTS
        built: list[list[int]] = [[] for _ in range(nc)]
        for p in range(NUM_LOTS):
            if height[p]:
                c = owner_rows[p].index(1.0)
                owner[p] = c
                roof[p] = _ROOFS[roof_rows[p].index(1.0)]
                built[c].append(p)
        w.height, w.owner, w.roof, w.built = height, owner, roof, built
        lot_open, lot_empty = s["lot_open"].tolist(), s["lot_empty"].tolist()
        w.open = [p for p in range(NUM_LOTS) if lot_open[p]]
        w.empty = [p for p in range(NUM_LOTS) if lot_empty[p]]
        rows = s["lot_this_round"].reshape(self._shape["lot_this_round"]).tolist()
        w.this_lot = [_one_hot(rows[c]) for c in range(nc)]
        w.level_open = (
            sum(_LEVEL[p] for p in w.open) / len(w.open) if w.open else (size + 1) / 2
        )
        # Supplies and scores.
        w.personal = [int(x) for x in s["personal"].tolist()[:nc]]
        w.general = [int(x) for x in s["general"].tolist()[:nc]]
        w.gelato = s["gelato"].tolist()[:nc]
        w.points = s["building_points"].tolist()[:nc]
        w.roofs_left = [int(x) for x in s["roofs_left"].tolist()]
        # Mean gain of the block tiles still face down (later rounds draw from them).
        uk = s["unseen_block_kinds"].tolist()
        tot = sum(uk)
        w.unseen_gain = (
            sum(k * g for k, g in zip(uk, _KIND_GAIN, strict=True)) / tot if tot else 2.8
        )
        if decision in _MARKET_DECISIONS:
            self._decode_market(s, w)
        if decision in _BID_DECISIONS:
            self._decode_bids(s, w)
        elif decision == "block_choice":
            gain = s["block_choice_gain"].tolist()
            w.choice_gain = (gain[0], gain[1])
        elif decision in _BUILD_DECISIONS:
            w.build_tile = s["build_tile"].tolist()
            w.build_lot = _one_hot(s["build_lot"].tolist())
        return w

    def _decode_market(self, s: dict[str, np.ndarray], w: _View) -> None:
        """Face-up tiles: lots, block tiles (gain, multiplier, gelato), build tiles."""
        beach_lots = s["beach_lots"].tolist()
        w.b_lots = [p for p in range(NUM_LOTS) if beach_lots[p]]
        rows = s["beach_blocks"].reshape(self._shape["beach_blocks"]).tolist()
        blocks = []
        for t, f in enumerate(rows):
            if f[_BK_UP]:
                mult = 2 if f[_BK_2X] else 3 if f[_BK_3X] else 0
                blocks.append((t, int(f[_BK_BLOCKS]), mult, f[_BK_GELATO]))
        w.b_blocks = blocks
        rows = s["beach_builds"].reshape(self._shape["beach_builds"]).tolist()
        builds = []
        for t, f in enumerate(rows):
            if f[_BU_UP]:
                q = C.BRONZE if f[_BU_BRONZE] else C.SILVER if f[_BU_SILVER] else C.GOLD
                builds.append((t, q, int(f[_BU_BONUS]), f[_BU_ADD_ON], f[_BU_REMODEL],
                               f[_BU_GELATO]))
        w.b_builds = builds
        w.rank = s["draft_rank"].reshape(self._shape["draft_rank"]).tolist()[: w.nc]
        if w.solo:
            rows = s["beach_leftmost"].reshape(self._shape["beach_leftmost"]).tolist()
            w.leftmost = [_one_hot(row) for row in rows]

    def _decode_bids(self, s: dict[str, np.ndarray], w: _View) -> None:
        """Own hand, the cards every colour has played, revealed bids and star sets."""
        nc = w.nc
        own_cards, own_boosters = s["own_cards"].tolist(), s["own_boosters"].tolist()
        w.cards_in = [c for c in range(NUM_CARDS) if own_cards[c]]
        w.booster_in = [b for b in range(NUM_BOOSTERS) if own_boosters[b]]
        cards = s["played_cards"].reshape(self._shape["played_cards"]).tolist()
        boosters = s["played_boosters"].reshape(self._shape["played_boosters"]).tolist()
        w.played_cards = [[c for c in range(NUM_CARDS) if cards[j][c]] for j in range(nc)]
        w.played_boosters = [
            [b for b in range(NUM_BOOSTERS) if boosters[j][b]] for j in range(nc)
        ]
        rows = s["bid_card"].reshape(self._shape["bid_card"]).tolist()
        w.bid_card = [_one_hot(rows[j]) for j in range(nc)]
        w.bid_values = s["bid_values"].reshape(self._shape["bid_values"]).tolist()[:nc]
        rows = s["star_set"].reshape(self._shape["star_set"]).tolist()
        # Star sets are numbered from 1 (rules §1.3).
        w.stars = [_one_hot(rows[j]) + 1 if 1.0 in rows[j] else 1 for j in range(nc)]
        w.prefix = -1
        if self._has_prefix:
            # own_prefix is a one-hot over the simultaneous action ids; the card part first.
            seg = s["own_prefix"].tolist()[_A_BID_CARD - _SIM_LO : _A_BID_BOOSTER - _SIM_LO]
            w.prefix = _one_hot(seg)

    # --- sea view -------------------------------------------------------------------------------

    def _hidden_expected(self, w: _View, pos: int, colour: int) -> float:
        """Hidden bottom blocks at ``pos`` now plus a share of what open lots in front may hide."""
        hid = hidden_blocks(w.height, pos)
        fut = 0.0
        open_lots = w.open
        h = w.height
        for k, p in enumerate(C.LOTS_IN_FRONT[pos], 1):
            pending = (p in open_lots) or (
                h[p] == 0 and p in w.this_lot and w.this_lot.index(p) != colour
                and p not in w.empty
            )
            if pending:
                x = _LEVEL[p] + _FUTURE_EXTRA - k
                if x > fut:
                    fut = x
        if fut > hid:
            return hid + w.fut_hide * (fut - hid)
        return float(hid)

    def _other_weight(self, w: _View) -> float:
        """Value of one point of view taken from another colour (solo: Otto is a partner)."""
        if w.solo:
            return -1.0
        if w.n == 2:
            return self.priorities.rival_view
        return 1.0 / (w.n - 1)

    def _behind(self, w: _View, colour: int, pos: int, h: int, ow: float) -> float:
        """Value to ``colour`` of the view a building of height h at ``pos`` takes from behind."""
        height = w.height
        total = 0.0
        for k, p in enumerate(C.lots_behind(pos, w.size), 1):
            hb = height[p]
            if hb and h - k > 0:
                cur = hidden_blocks(w.height, p)
                new = h - k if h - k > cur else cur
                lost = (max(0, hb - cur) - max(0, hb - new)) * w.roof[p]
                if lost:
                    total += -lost if w.owner[p] == colour else ow * lost
        return total

    # --- goals ----------------------------------------------------------------------------------

    def _comp_weight(self, mine: int, others: list[int]) -> float:
        """Per-building worth of a competition goal while it is contested or settled."""
        best = max(others) if others else 0
        return self.priorities.competition if mine <= best + 1 else _COMP_SETTLED

    def _pos_goals(self, w: _View, colour: int, pos: int) -> float:
        """Goal worth of a new building of ``colour`` at ``pos`` that does not depend on height."""
        goals = w.goals
        if not goals:
            return 0.0
        val = 0.0
        size = w.size
        mine = w.built[colour]
        for goal in REGION_GOALS:
            if goal in goals and in_region(goal, pos, size):
                counts = [sum(1 for p in w.built[c] if in_region(goal, p, size))
                          for c in range(w.nc)]
                others = counts[:colour] + counts[colour + 1 :]
                val += self._comp_weight(counts[colour], others)
        own_n = [p for p in C.neighbours(pos, size) if w.height[p] and w.owner[p] == colour]
        if "solitario" in goals:
            if not own_n:
                val += 2.0
            for p in own_n:
                if not self._has_own_neighbour(w, p, colour):
                    val -= 2.0
        if "colonna" in goals:
            col_counts = [0] * size
            for p in mine:
                col_counts[C.LOT_COLUMNS[p]] += 1
            best = max(col_counts)
            open_race = col_counts[C.LOT_COLUMNS[pos]] + 1 > best
            val += self.priorities.competition * (1.0 if open_race else 0.3)
        if "gruppo" in goals:
            val += _GROUP_STEP * self._group_growth(w, colour, own_n)
        return val

    def _has_own_neighbour(self, w: _View, pos: int, colour: int) -> bool:
        h, ow = w.height, w.owner
        return any(h[q] > 0 and ow[q] == colour for q in C.neighbours(pos, w.size))

    def _group_growth(self, w: _View, colour: int, own_n: list[int]) -> float:
        """How much a new building joining ``own_n`` grows the colour's largest group."""
        mine = set(w.built[colour])
        label: dict[int, int] = {}
        sizes: list[int] = []
        for start in mine:
            if start in label:
                continue
            gid = len(sizes)
            label[start] = gid
            stack = [start]
            count = 0
            while stack:
                p = stack.pop()
                count += 1
                for q in C.neighbours(p, w.size):
                    if q in mine and q not in label:
                        label[q] = gid
                        stack.append(q)
            sizes.append(count)
        largest = max(sizes) if sizes else 0
        joined = 1 + sum(sizes[g] for g in {label[p] for p in own_n})
        return max(0, joined - largest) if largest else 0.5

    def _height_goals(self, w: _View, colour: int, pos: int, h: int) -> float:
        """Goal worth of a new building of height ``h`` at ``pos`` (Piccolo, Perfetto, …)."""
        goals = w.goals
        if not goals:
            return 0.0
        level = _LEVEL[pos]
        val = 0.0
        if "piccolo" in goals and h < level:
            val += 3.0
        if "perfetto" in goals and h == level:
            val += 2.0
        if "altezza" in goals and all(w.height[p] != h for p in w.built[colour]):
            val += 2.0
        if "grande" in goals and h > level:
            counts = [sum(1 for p in w.built[c] if w.height[p] > _LEVEL[p]) for c in range(w.nc)]
            val += self._comp_weight(counts[colour], counts[:colour] + counts[colour + 1 :])
        return val

    def _roof_goal(self, w: _View, colour: int, q: int, rounds_after: int) -> float:
        """Equilibrato worth of adding a roof of rank ``q`` to the colour's buildings."""
        if "equilibrato" not in w.goals:
            return 0.0
        have = {w.roof[p] for p in w.built[colour]}
        if q in have or len(have) >= 3:
            return 0.0
        k = len(have) + 1
        if k == 3:
            return 5.0
        if k == 2:
            return _EQUI_SECOND if rounds_after > 0 else 0.0
        return _EQUI_FIRST if rounds_after > 1 else 0.0

    # --- blocks ---------------------------------------------------------------------------------

    def _need(self, w: _View, colour: int, builds_after: int, draws_after: int,
              pending_level: float) -> tuple[float, float, float]:
        """Blocks the colour's coming buildings want beyond what its coming block tiles bring.

        Returns:
            The expected shortfall, the stock below which a coming building may get no block at
            all (every block tile brings at least one while the general supply lasts), and the
            most a kept block is worth.
        """
        builds = builds_after + (1 if pending_level > 0 else 0)
        want = builds_after * (w.level_open + _MEAN_BONUS)
        if pending_level > 0:
            want += pending_level + _MEAN_BONUS
        general = w.general[colour]
        gain = min(float(general), draws_after * w.unseen_gain)
        return want - gain, float(builds - min(general, draws_after)), w.mu_hi

    def _mu(self, need: tuple[float, float, float], stock: int, builds: bool,
            end: float) -> float:
        """Worth of the block that brings the stock from ``stock`` to ``stock + 1``."""
        if not builds:
            return end
        shortfall, critical, hi = need
        if stock < critical:
            # Without it a coming lot stays empty: a whole building and its goals are lost.
            return self.priorities.first_block
        x = _clip((shortfall - stock) / _MU_WIDTH + 0.5, 0.0, 1.0)
        return _MU_LO + (hi - _MU_LO) * x

    def _spend_cost(self, w: _View, colour: int, stock: int, h: int) -> list[float]:
        """Cost of spending 0..h blocks from ``stock`` now on this round's building."""
        r = w.rleft
        need = self._need(w, colour, r, r, 0.0)
        end = _ECCESSO_BLOCK if "eccesso" in w.goals else 0.0
        out = [0.0]
        acc = 0.0
        for i in range(1, h + 1):
            acc += self._mu(need, stock - i, r > 0, end)
            out.append(acc)
        return out

    def _block_gain_value(self, w: _View, colour: int, gain: int, pending_level: float,
                          draws_after: int) -> float:
        """Worth of ``gain`` more blocks in the colour's personal supply now."""
        r = w.rleft
        stock = w.personal[colour]
        builds = pending_level > 0 or r > 0
        need = self._need(w, colour, r, draws_after, pending_level)
        end = _ECCESSO_BLOCK if "eccesso" in w.goals else 0.0
        return sum(self._mu(need, stock + i, builds, end) for i in range(gain))

    def _tile_gain(self, w: _View, colour: int, blocks: int, mult: int) -> int:
        """Blocks a block tile brings the colour now (2X/3X: the better option, both capped)."""
        gen = w.general[colour]
        if mult:
            return min(max(w.personal[colour] * (mult - 1), blocks), gen)
        return min(blocks, gen)

    # --- building values ------------------------------------------------------------------------

    def _build_values(self, w: _View, colour: int, pos: int, q: float, hmax: int, stock: int,
                      bonus_p: float = 1.0) -> list[float]:
        """Worth of building 1..hmax blocks (index h) at ``pos`` with roof ``q`` for ``colour``.

        Includes the view points, the view taken from buildings behind, the height goals and
        the blocks spent. ``bonus_p`` discounts heights above regulation when the build tile is
        not known yet.
        """
        level = _LEVEL[pos]
        hid = self._hidden_expected(w, pos, colour)
        ow = self._other_weight(w)
        cost = self._spend_cost(w, colour, stock, hmax)
        out = [-math.inf]
        for h in range(1, hmax + 1):
            vis = h - hid
            val = q * vis if vis > 0 else 0.0
            val += self._behind(w, colour, pos, h, ow)
            val += self._height_goals(w, colour, pos, h)
            val -= cost[h]
            if h > level and bonus_p < 1.0:
                val = out[level] + bonus_p * (val - out[level])
            out.append(val)
        return out

    def _lot_value(self, w: _View, colour: int, pos: int, stock: int, q: float,
                   bonus: float) -> float:
        """Expected worth of drafting the lot at ``pos`` (the best height, goals by place)."""
        if stock <= 0:
            return 0.0
        level = _LEVEL[pos]
        hmax = min(level + (1 if bonus > 0 else 0), stock, level + 2)
        vals = self._build_values(w, colour, pos, q, hmax, stock, _clip(bonus, 0.0, 1.0))
        return max(vals) + self._pos_goals(w, colour, pos)

    def _market_means(self, w: _View) -> tuple[float, float, float]:
        """Mean roof, mean share of build tiles with a height bonus and mean block gain on offer."""
        builds = w.b_builds
        if builds:
            q = sum(b[1] for b in builds) / len(builds)
            bonus = sum(1 for b in builds if b[2] > 0) / len(builds)
        else:
            q, bonus = 2.0, 0.5
        blocks = w.b_blocks
        gain = sum(max(b[1], 2) for b in blocks) / len(blocks) if blocks else w.unseen_gain
        return q, bonus, gain

    def _lot_values(self, w: _View, colour: int, gain: float) -> dict[int, float]:
        q, bonus, _ = self._market_means(w)
        stock = w.personal[colour] + round(gain)
        return {p: self._lot_value(w, colour, p, stock, q, bonus) for p in w.b_lots}

    def _block_values(self, w: _View, colour: int, pending_level: float,
                      draws_after: int) -> dict[int, float]:
        out = {}
        for t, blocks, mult, gel in w.b_blocks:
            gain = self._tile_gain(w, colour, blocks, mult)
            out[t] = self._block_gain_value(w, colour, gain, pending_level, draws_after) + gel
        return out

    def _generic_build_values(self, w: _View, colour: int) -> dict[int, float]:
        """Worth of each face-up build tile before the colour's lot is known (bids)."""
        out = {}
        r = w.rleft
        for t, q, bonus, add, rem, gel in w.b_builds:
            val = q * _GENERIC_VIEW + 0.5 * q * min(bonus, 1) + gel
            val += self._roof_goal(w, colour, q, r)
            if add:
                val += 0.8 * q
            if rem:
                val += self._best_remodel(w, colour, q)
            out[t] = val
        return out

    def _best_remodel(self, w: _View, colour: int, q: int) -> float:
        best = 0.0
        for p in w.built[colour]:
            if w.roof[p] == q - 1:
                vis = w.height[p] - self._hidden_expected(w, p, colour)
                if vis > best:
                    best = vis
        return best

    # --- bids -----------------------------------------------------------------------------------

    def _stakes(self, w: _View, colour: int) -> list[list[float]]:
        """Values of this round's face-up tiles per type for ``colour``, best first."""
        _, _, gain = self._market_means(w)
        lots = sorted(self._lot_values(w, colour, gain).values(), reverse=True)
        level = (
            sum(_LEVEL[p] for p in w.b_lots) / len(w.b_lots) if w.b_lots else w.level_open
        )
        blocks = sorted(self._block_values(w, colour, level, w.rleft).values(), reverse=True)
        builds = sorted(self._generic_build_values(w, colour).values(), reverse=True)
        return [lots, blocks, builds]

    def _future_worth(self, w: _View, cards: list[int], boosters: list[int]) -> tuple[
        dict[int, float], dict[int, float]
    ]:
        """Worth of the hand left after playing each card / each booster now."""
        r = w.rleft
        cw = {}
        for c in cards:
            rest = sorted((_CARD_WORTH[x] for x in cards if x != c), reverse=True)
            cw[c] = sum(rest[:r])
        bw = {}
        for b in boosters:
            rest = sorted((_BOOSTER_WORTH[x] for x in boosters if x != b), reverse=True)
            bw[b] = sum(rest[:r])
        return cw, bw

    def _pair_values(self, w: _View) -> dict[int, float]:
        """Worth of every (card, booster) pair in hand, by bid action id."""
        cards, boosters = w.cards_in, w.booster_in
        cw, bw = self._future_worth(w, cards, boosters)
        if w.solo:
            now = self._solo_bid_values(w, cards, boosters)
        else:
            now = self._multi_bid_values(w, cards, boosters)
        out = {}
        for c in cards:
            for b in boosters:
                a = BID_ID[c][b]
                out[a] = now[a] + _CARD_GELATO[c] + _BOOSTER_GELATO[b] + cw[c] + bw[b]
        return out

    def _multi_bid_values(self, w: _View, cards: list[int], boosters: list[int]) -> dict[
        int, float
    ]:
        """Expected worth of the draft places each pair wins against the opponents' hands.

        Each opponent's bid is taken as uniform over the pairs it still holds (its played cards
        are public); the chance of each draft place follows from the independent comparisons.
        """
        stakes = self._stakes(w, 0)
        mine = np.array([BID_ID[c][b] for c in cards for b in boosters])
        x = _PAIR_VALUES[mine - BIDS.start]  # (pairs, 3)
        types = _TYPE_INDEX
        # dist[r, k, i]: chance that exactly r opponents outbid pair i in type k.
        dist = np.zeros((w.nc, 3, len(mine)))
        dist[0] = 1.0
        r = 0
        for j in range(1, w.nc):
            held = _HELD_PAIRS[_hand_mask(w.played_cards[j], w.played_boosters[j])]
            if held.size == 0:
                continue
            vals = _PAIR_VALUES[held] + _TYPE_OFFSET  # (held, 3), one histogram per type
            hist = np.bincount(vals.ravel(), minlength=3 * _HIST).reshape(3, _HIST)
            above = hist[:, ::-1].cumsum(axis=1)[:, ::-1] - hist  # bids strictly higher
            beat = (above + 0.5 * hist) / held.size
            p = beat[types, x.T]  # (3, pairs)
            new = dist * (1.0 - p)
            new[1:] += dist[:-1] * p
            dist = new
            r += 1
        table = np.zeros((3, w.nc))
        for k in range(3):
            st = stakes[k]
            if st:
                table[k] = [st[min(i, len(st) - 1)] for i in range(w.nc)]
        value = np.einsum("rki,kr->i", dist, table)
        return dict(zip(mine.tolist(), value.tolist(), strict=True))

    def _solo_weights(self, w: _View) -> tuple[float, float]:
        """Weights of the player's and Otto's points: the colour behind matters more (min).

        Each colour's standing is its sea-view points, gelato and the goals as they would
        score now (the public scoring rule applied to the observed cliff).
        """
        s = [w.points[c] + w.gelato[c] for c in (0, 1)]
        roof = [w.roof[p] if w.height[p] else 0 for p in range(NUM_LOTS)]
        for goal in w.goals:
            pts = goal_points(goal, w.owner, w.height, roof, w.personal, 2, w.size)
            s[0] += pts[0]
            s[1] += pts[1]
        w0 = 0.5 + _SOLO_AMP * math.tanh((s[1] - s[0]) / _SOLO_SCALE)
        return w0, 1.0 - w0

    def _solo_bid_values(self, w: _View, cards: list[int], boosters: list[int]) -> dict[
        int, float
    ]:
        """Worth of each pair by which colour takes the leftmost tile of each row (§7)."""
        w0, w1 = self._solo_weights(w)
        _, _, gain = self._market_means(w)
        # Δ_k: the gain of the player taking the leftmost tile of type k rather than Otto.
        deltas = [0.0, 0.0, 0.0]
        left = w.leftmost
        lots = [self._lot_values(w, c, gain) for c in (0, 1)]
        level = (
            sum(_LEVEL[p] for p in w.b_lots) / len(w.b_lots) if w.b_lots else w.level_open
        )
        blocks = [self._block_values(w, c, level, w.rleft) for c in (0, 1)]
        builds = [self._generic_build_values(w, c) for c in (0, 1)]
        for k, vals in enumerate((lots, blocks, builds)):
            keys = list(vals[0])
            if len(keys) < 2 or left[k] not in vals[0]:
                continue
            lt = left[k]
            rt = next(t for t in keys if t != lt)
            mine_left = w0 * vals[0][lt] + w1 * vals[1][rt]
            otto_left = w0 * vals[0][rt] + w1 * vals[1][lt]
            deltas[k] = 2.0 * (mine_left - otto_left)
        otto = w.bid_values[1]
        ocard = w.bid_card[1]
        out = {}
        for c in cards:
            bids = _BID_VALUES[c]
            for b in boosters:
                total = 0.0
                for k in range(3):
                    x = bids[b][k]
                    win = x > otto[k]
                    if x == otto[k] and ocard >= 0:
                        mine = C.STARS[w.stars[0]][c][k]
                        his = C.STARS[w.stars[1]][ocard][k]
                        win = mine > his
                    if win:
                        total += deltas[k]
                out[BID_ID[c][b]] = total
        return out

    def _bid_scores(self, w: _View, legal: list[int]) -> list[float]:
        vals = self._pair_values(w)
        return [vals.get(a, -math.inf) for a in legal]

    def _split_card_scores(self, w: _View, legal: list[int]) -> list[float]:
        vals = self._pair_values(w)
        card_of = ACTIONS["bid_card"].decode
        return [
            max((s for a, s in vals.items() if BID_PAIR[a - BIDS.start][0] == card_of(x)[0]),
                default=-math.inf)
            for x in legal
        ]

    def _split_booster_scores(self, w: _View, legal: list[int]) -> list[float]:
        vals = self._pair_values(w)
        card = w.prefix
        out = []
        booster_of = ACTIONS["bid_booster"].decode
        for x in legal:
            (b,) = booster_of(x)
            if card >= 0:
                out.append(vals.get(BID_ID[card][b], -math.inf))
            else:
                out.append(max((s for a, s in vals.items() if BID_PAIR[a - BIDS.start][1] == b),
                               default=-math.inf))
        return out

    # --- drafts ---------------------------------------------------------------------------------

    def _lot_scores(self, w: _View, legal: list[int]) -> list[float]:
        me = w.me
        # The block tile this colour will likely get: its rank in the block draft, tiles ranked
        # by blocks gained (the others want blocks too).
        gains = sorted((self._tile_gain(w, me, b[1], b[2]) for b in w.b_blocks), reverse=True)
        rank = int(w.rank[me][1]) - 1 if w.rank[me][1] else 0
        gain = gains[min(rank, len(gains) - 1)] if gains else w.unseen_gain
        vals = self._lot_values(w, me, gain)
        return [vals.get(a - _A_LOT, 0.0) for a in legal]

    def _block_scores(self, w: _View, legal: list[int]) -> list[float]:
        me = w.me
        lot = w.this_lot[me]
        level = _LEVEL[lot] if lot >= 0 else 0
        vals = self._block_values(w, me, level, w.rleft)
        return [vals.get(a - _A_BLOCK, 0.0) for a in legal]

    def _choice_scores(self, w: _View, legal: list[int]) -> list[float]:
        mult, flat = w.choice_gain
        # Equal gains: either is fine; the flat option is preferred for determinism.
        return [mult if a == _A_MULTIPLY else flat + 1e-6 for a in legal]

    def _build_tile_scores(self, w: _View, legal: list[int]) -> list[float]:
        me = w.me
        lot = w.this_lot[me]
        stock = w.personal[me]
        tiles = {b[0]: b for b in w.b_builds}
        out = []
        for a in legal:
            _, q, bonus, add, rem, gel = tiles[a - _A_BUILD_TILE]
            if stock <= 0 or lot < 0:
                # No block: no building and no extra action (§4); only the gelato counts.
                out.append(gel)
                continue
            level = _LEVEL[lot]
            hmax = min(level + bonus, stock)
            vals = self._build_values(w, me, lot, q, hmax, stock)
            best_h = max(range(1, hmax + 1), key=vals.__getitem__)
            val = vals[best_h] + gel + self._roof_goal(w, me, q, w.rleft)
            if add and stock - best_h > 0:
                val += max(0.0, self._best_add_on(w, me, bonus, lot) - _MU_LO)
            if rem and w.roofs_left[q - 1] > 1:
                val += self._best_remodel(w, me, q)
            out.append(val)
        return out

    def _best_add_on(self, w: _View, colour: int, bonus: int, exclude: int) -> float:
        best = 0.0
        for p in w.built[colour]:
            if p != exclude and w.height[p] < _LEVEL[p] + bonus:
                best = max(best, self._add_on_gain(w, colour, p))
        return best

    # --- build and extra actions ----------------------------------------------------------------

    def _height_scores(self, w: _View, legal: list[int]) -> list[float]:
        me = w.me
        lot = w.build_lot
        q = self._tile_roof(w)
        hmax = legal[-1] - _A_HEIGHT
        vals = self._build_values(w, me, lot, q, hmax, w.personal[me])
        return [vals[a - _A_HEIGHT] for a in legal]

    def _tile_roof(self, w: _View) -> int:
        t = w.build_tile
        return C.BRONZE if t[_BT_BRONZE] else C.SILVER if t[_BT_SILVER] else C.GOLD

    def _add_on_gain(self, w: _View, colour: int, pos: int) -> float:
        """Worth of one more block on the colour's building at ``pos`` (cost not included)."""
        h = w.height[pos]
        level = _LEVEL[pos]
        hid = self._hidden_expected(w, pos, colour)
        q = w.roof[pos]
        gain = q * (max(0.0, h + 1 - hid) - max(0.0, h - hid))
        ow = self._other_weight(w)
        gain += self._behind(w, colour, pos, h + 1, ow) - self._behind(w, colour, pos, h, ow)
        goals = w.goals
        if goals:
            if "piccolo" in goals and h == level - 1:
                gain -= 3.0
            if "perfetto" in goals:
                gain += 2.0 if h + 1 == level else -2.0 if h == level else 0.0
            if "altezza" in goals:
                hs = [w.height[p] for p in w.built[colour]]
                gain += (2.0 if h + 1 not in hs else 0.0) - (2.0 if hs.count(h) == 1 else 0.0)
            if "grande" in goals and h == level:
                counts = [sum(1 for p in w.built[c] if w.height[p] > _LEVEL[p])
                          for c in range(w.nc)]
                gain += self._comp_weight(counts[colour], counts[:colour] + counts[colour + 1 :])
        return gain

    def _add_on_scores(self, w: _View, legal: list[int]) -> list[float]:
        me = w.me
        stock = w.personal[me]
        cost = self._spend_cost(w, me, stock, 1)[1]
        return [
            0.0 if a == _A_SKIP_ADD_ON else self._add_on_gain(w, me, a - _A_ADD_ON) - cost
            for a in legal
        ]

    def _remodel_scores(self, w: _View, legal: list[int]) -> list[float]:
        me = w.me
        out = []
        for a in legal:
            if a == _A_SKIP_REMODEL:
                out.append(0.0)
                continue
            p = a - _A_REMODEL
            vis = max(0.0, w.height[p] - self._hidden_expected(w, p, me))
            val = vis
            if "equilibrato" in w.goals:
                roofs = [w.roof[x] for x in w.built[me]]
                before = len(set(roofs)) == 3
                roofs[w.built[me].index(p)] += 1
                after = len(set(roofs)) == 3
                val += 5.0 * (after - before)
            out.append(val)
        return out

    _SCORES: ClassVar[dict[str, Callable[[PositanoHeuristic, _View, list[int]], list[float]]]] = {
        "bid": _bid_scores,
        "bid_card": _split_card_scores,
        "bid_booster": _split_booster_scores,
        "draft_lot": _lot_scores,
        "draft_block": _block_scores,
        "block_choice": _choice_scores,
        "draft_build": _build_tile_scores,
        "build": _height_scores,
        "add_on": _add_on_scores,
        "remodel": _remodel_scores,
    }
    """The scoring of each decision of the action layout (``ACTIONS.decision_of``)."""
