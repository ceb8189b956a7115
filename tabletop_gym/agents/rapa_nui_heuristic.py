"""A rule-based Rapa Nui player that decides from its own observation vector only.

The bot reads the ego-centric vector of :class:`~tabletop_gym.envs.rapa_nui.observer.
RapaNuiObserver` by the layout's slice names (never by offsets of its own) and values every
option in "VP-equivalents": victory points, wood (worth less than a VP, more while a Moai waits in
hand), offering cards (worth the estimated final value of their kind) and the expected yield of
display cards over the scorings that remain.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tabletop_gym.core.game import Game
from tabletop_gym.core.observer import Observer
from tabletop_gym.envs.rapa_nui.rules import (
    BUY,
    BUY_BASE_COST,
    COLUMN_SIZE,
    DECK_COUNTS,
    DRAW,
    HAND_SIZE,
    HG,
    MOAI,
    MOAI_COST,
    MOAI_END_VP,
    MOAI_VP,
    NO_BUY,
    NUM_CARD_TYPES,
    NUM_COLUMNS,
    NUM_KINDS,
    OFFER,
    PLAY_HG,
    PLAY_MOAI,
    PLAY_PRIEST,
    PLAY_WOODCUTTER,
    PRIEST,
    START_PILE,
    SUPPLY,
    SUPPLY_SKIP,
    WOOD_PER_VP,
    WOODCUTTER,
    card_totals,
)

# Share of turn scorings that reveal each card id: the deck frequencies (12, 9, 9, 5 × 4 of 50).
# Active players steer the reveal, but against unknown opponents the deck mix is the honest prior.
_REVEAL_SHARE = tuple(n / sum(DECK_COUNTS) for n in DECK_COUNTS)
# Cards a turn draws on average (mostly single plays, sometimes pairs of H&G).
_DRAWS_PER_TURN = 1.3
# Cards typically still lying in the other columns when the last refill fails.
_LEFTOVER_CARDS = 6
# Prior value of an offering card of a kind the stone does not rank yet (the mean of 3/2/1/0).
_PRIOR_KIND_VALUE = 1.5
# Stone cards at which the current ranking is trusted fully rather than the prior.
_STONE_TRUST = 10.0
# Wood value per unit: a late floor (5 wood = 1 VP plus cheap H&G plays) and an early premium
# (wood turns into Moai worth 4 VP plus Moai scorings). With 4 seats each one has about half the
# turns of a 2-player game to build Moai in, so early wood is worth less (tuned by play, 2/3/4).
_WOOD_LATE = 0.25
_WOOD_EARLY = (1.0, 1.0, 0.75)
# Extra value of a wood unit while a Moai in hand still waits for its 7 wood.
_WOOD_SAVING = 0.4
# What the offering round of one's own Moai is worth beyond the Moai (a free steer of the stone).
_OFFER_ROUND_VALUE = 0.7
# Value of each extra card drawn this turn (more hand turnover, more say over the reveal).
_EXTRA_DRAW_VALUE = 0.6
# Share of a card's play value credited when it is drawn into the hand (it is played later).
_HAND_SHARE = 0.6
# Penalty for a third Moai in hand without the wood to build: one of them is lost.
_STUCK_MOAI_PENALTY = 6.0
# Value of ending the game on one's own draw when leading (or of avoiding it when behind).
_END_VALUE = 40.0
# Weight of the opponents' estimated holdings when choosing an offering (their kinds are hidden,
# so their share of the stone's effect is only a guess).
_OFFER_OPP_WEIGHT = 0.5
# Tie-break weight that lifts the stone count of the kinds one holds most.
_LIFT_WEIGHT = 0.01
# A Moai split takes wood for at most this many Moai waiting in hand (7 wood each).
_MOAI_SAVE_MAX = 2
# Below this share of the game left, spare wood is hardly turned into Moai any more.
_LATE_STAGE = 0.1
# Never spend the wood of this turn's Moai build on a purchase.
_SPOIL_MOAI_PENALTY = 10.0
# Weight of the opponents' expected gain in relative valuations: zero-sum in 2 players; with more
# seats a gain shared by every opponent hurts less than one's own gain helps.
_OPP_WEIGHT = 1.0
_OPP_WEIGHT_MULTI = 0.5
_EPS = 1e-9
# Entries a bot keeps in each of its memo tables (pure functions of small count tuples; the
# bound only caps memory, the tables rarely come near it).
_MEMO_LIMIT = 1 << 16


def _dense_values(stone: list[float], zero_rule: bool) -> list[int]:
    """Offering value per kind at the end for the stone counts ``stone`` (rules §7.4)."""
    if not any(stone):
        return [0] * NUM_KINDS
    distinct = set(stone)
    out = []
    for c in stone:
        if c == 0 and zero_rule:
            out.append(0)
        else:
            out.append(max(0, 3 - sum(1 for d in distinct if d > c)))
    return out


def _gains(counts: list[float], is_hg: bool, hg_bonus: bool = True) -> list[float]:
    """Units each seat receives when a card of one type is revealed, given its display counts.

    ``hg_bonus`` is the ``hunter_gatherer_majority_bonus`` switch: without it an H&G scoring
    gives no bonus card.
    """
    gains = [1.0 if c >= 1 else 0.0 for c in counts] if is_hg else list(counts)
    top = max(counts)
    # The majority bonus goes only to a sole leader with at least 2 cards (rules §4).
    if top >= 2 and counts.count(top) == 1 and (hg_bonus or not is_hg):
        gains[counts.index(top)] += 1.0
    return gains


class _View:
    """One decoded observation plus the estimates every decision shares.

    Per-seat lists are in ego order: the own seat first, then the others clockwise.
    """

    __slots__ = (
        "base_rel",
        "base_surplus",
        "by_type",
        "columns",
        "displays",
        "draws_left",
        "hand",
        "hold",
        "hold_counts",
        "kind_value",
        "moai_units",
        "own_fd",
        "phase",
        "pile",
        "removed",
        "scorings_left",
        "stage",
        "stone",
        "stone_all",
        "supply",
        "vp",
        "wood",
        "wood_value",
    )

    base_rel: list[float | None]
    base_surplus: float | None
    by_type: list[tuple[float, ...]]
    columns: list[list[int]]
    displays: list[list[float]]
    draws_left: int
    hand: list[int]
    hold: list[float]
    hold_counts: list[float]
    kind_value: list[float]
    moai_units: int
    own_fd: list[float]
    phase: int
    pile: int
    removed: int
    scorings_left: float
    stage: float
    stone: list[float]
    stone_all: float
    supply: list[float]
    vp: list[float]
    wood: list[float]
    wood_value: float


class RapaNuiHeuristic:
    """Rapa Nui baseline bot: explainable rules that value each option in VP-equivalents.

    Strategy:

    * **Wood economy.** Wood is worth about a VP early (it becomes Moai) and a quarter late,
      a little more while a Moai in hand waits for its 7 wood; Woodcutters are valued by the
      wood their future scorings bring, so they come early.
    * **Display cards.** Each card played is valued by the expected units of the scorings still
      to come, own units minus the opponents' (majority bonuses won or broken count too);
      Priests bring VP this way, H&G offering cards plus cheaper purchases of their kind.
    * **Moai timing.** Build when affordable (4 VP at the end, Moai scorings, an offering round
      to steer); never spend the wood of this turn's Moai on a purchase; take Moai units as
      wood only while a Moai in hand lacks wood, otherwise (and late) as VP.
    * **Buying.** One offering card when its kind's estimated final value beats its wood cost
      (the kind's rank on the stone, blended with a prior while the stone is thin).
    * **Draw order.** Every order of the remaining draws is scored: the cards taken (a share of
      their play value; a third Moai that cannot be built is penalised) plus the turn scoring
      of the last exposed card, own gain minus the opponents' (a refilled column counts as the
      expected card of the unseen pool). With fewer than 4 cards in the pile it ends the game
      when it leads and avoids ending it when behind.
    * **Offerings.** Place the own card (and pick the supply kind) that maximises the own
      holdings' value on the stone minus the opponents' estimated holdings: raise the kinds one
      holds most, give up the ones held least.

    Decisions use only the observation dict; the generator only breaks exact ties, so the bot
    is deterministic given its seed.
    """

    name = "heuristic"
    needs_state = False
    """It decides from its observation alone (said here, so no caller has to look it up)."""

    def __init__(self, game: Game, observer: Observer, rng: np.random.Generator | None = None):
        """Bind the bot to a game config and its observation layout.

        Args:
            game: The Rapa Nui game; only its config switches are read, never a state.
            observer: The observer whose layout the observations follow.
            rng: Generator (or seed) that breaks ties between equally valued actions.
        """
        self.game = game
        self.observer = observer
        self.rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
        cfg: Any = game.config
        self._n = int(cfg.num_players)
        self._zero_rule = getattr(cfg, "zero_count_kind_value", "zero") == "zero"
        self._hg_bonus = bool(getattr(cfg, "hunter_gatherer_majority_bonus", True))
        self._totals = card_totals(self._n)
        self._opp_weight = _OPP_WEIGHT if self._n == 2 else _OPP_WEIGHT_MULTI
        self._wood_early = _WOOD_EARLY[min(self._n, 4) - 2]
        # The layout's named slices, resolved once: each decision reads the vector by name.
        self._slices = {
            name: slice(sl.start, sl.stop) for name, sl in observer.layout.slices.items()
        }
        self._at = {name: sl.start for name, sl in observer.layout.slices.items()}
        columns = observer.layout["columns"]
        self._columns_at = (columns.start, columns.stop)
        # Memo tables of pure valuations that recur across decisions: the same display counts
        # and stone counts come back again and again, and a lookup costs less than the sums.
        self._rel_memo: dict[tuple[float, ...], float] = {}
        self._dense_memo: dict[tuple[float, ...], tuple[int, ...]] = {}

    def seed(self, seed: int | None) -> None:
        """Reseed the tie-breaking generator."""
        self.rng = np.random.default_rng(seed)

    # --- decoding -------------------------------------------------------------------------------

    def _decode(self, vec: np.ndarray) -> _View:
        """Split the vector into plain Python lists (cheaper to read than numpy scalars)."""
        n = self._n
        sl = self._slices
        at = self._at
        v = vec.tolist()
        w = _View()
        w.phase = v[sl["phase"]].index(1.0)
        w.draws_left = int(v[at["draws_left"]])
        w.moai_units = int(v[at["moai_units"]])
        w.hand = list(map(int, v[sl["own_hand"]]))
        w.hold = v[sl["own_holdings"]]
        w.own_fd = v[sl["own_face_down"]]
        d = at["displays"]
        w.displays = [v[d + j * NUM_CARD_TYPES : d + (j + 1) * NUM_CARD_TYPES] for j in range(n)]
        # Per card id, every seat's display count (ego order): what a scoring of it compares.
        w.by_type = list(zip(*w.displays, strict=True))
        w.wood = v[at["wood"] : at["wood"] + n]
        w.vp = v[at["vp"] : at["vp"] + n]
        w.hold_counts = v[at["holding_counts"] : at["holding_counts"] + n]
        up = v[sl["stone_face_up"]]
        # What this seat knows of the stone: the face-up cards plus its own face-down ones.
        w.stone = [up[k] + w.own_fd[k] for k in range(NUM_KINDS)]
        w.stone_all = sum(up) + v[at["stone_face_down"]]
        w.supply = v[sl["supply"]]
        w.pile = int(v[at["draw_pile"]])
        w.removed = int(v[at["removed_moai"]])
        cols: list[list[int]] = [[] for _ in range(NUM_COLUMNS)]
        # One-hot entries: index = (column * 4 + position) * 7 + card id, front position first;
        # the set entries come in index order, so each column's cards come front first.
        start, stop = self._columns_at
        per_column = COLUMN_SIZE * NUM_CARD_TYPES
        for j in vec[start:stop].nonzero()[0].tolist():
            cols[j // per_column].append(j % NUM_CARD_TYPES)
        w.columns = cols
        # Per decision, the own-display valuations every option compares against.
        w.base_rel = [None] * NUM_CARD_TYPES
        w.base_surplus = None
        self._estimate(w)
        return w

    def _estimate(self, w: _View) -> None:
        """Fill in the shared estimates: scorings left, game stage, wood and kind values."""
        cards = w.pile + sum(map(len, w.columns)) - _LEFTOVER_CARDS
        w.scorings_left = max(0.0, cards / _DRAWS_PER_TURN)
        full = START_PILE + NUM_COLUMNS * COLUMN_SIZE - _LEFTOVER_CARDS
        w.stage = min(1.0, max(0.0, cards) / full)
        wv = _WOOD_LATE + (self._wood_early - _WOOD_LATE) * w.stage
        if w.hand[MOAI] and w.wood[0] < MOAI_COST and w.stage > _LATE_STAGE:
            wv += _WOOD_SAVING
        w.wood_value = wv
        now = self._dense(w.stone)
        # A thin stone ranks kinds by chance; late in the game few offering rounds remain, so
        # the present ranking is what will count.
        trust = max(min(1.0, w.stone_all / _STONE_TRUST), 1.0 - w.stage)
        w.kind_value = [trust * x + (1.0 - trust) * _PRIOR_KIND_VALUE for x in now]

    # --- shared valuations ----------------------------------------------------------------------

    def _opp_agg(self, xs: list[float]) -> float:
        """The opponents' values in one number: half mean, half leader (the one to beat)."""
        if len(xs) == 1:
            return xs[0]
        return 0.5 * (sum(xs) / len(xs)) + 0.5 * max(xs)

    def _base_rel_gain(self, w: _View, t: int) -> float:
        """:meth:`_rel_gain` of the displays as they are (computed once per decision)."""
        got = w.base_rel[t]
        if got is None:
            got = w.base_rel[t] = self._rel_from_counts(w.by_type[t], t)
        return got

    def _base_buy_surplus(self, w: _View) -> float:
        """:meth:`_buy_surplus` of the own H&G as they are (computed once per decision)."""
        got = w.base_surplus
        if got is None:
            got = w.base_surplus = self._buy_surplus(w, w.displays[0][HG : HG + NUM_KINDS])
        return got

    def _rel_from_counts(self, counts: Sequence[float], t: int) -> float:
        """Own units minus the opponents' weighted units of a scoring of card id ``t``.

        ``counts``: each seat's display count of ``t``, ego order. Memoised: the same counts
        come back decision after decision.
        """
        key = (t, *counts)
        got = self._rel_memo.get(key)
        if got is None:
            g = _gains(list(counts), t >= HG, self._hg_bonus)
            got = g[0] - self._opp_weight * self._opp_agg(g[1:])
            if len(self._rel_memo) < _MEMO_LIMIT:
                self._rel_memo[key] = got
        return got

    def _dense(self, stone: list[float]) -> tuple[int, ...]:
        """:func:`_dense_values` under this game's zero rule (memoised)."""
        key = tuple(stone)
        got = self._dense_memo.get(key)
        if got is None:
            got = tuple(_dense_values(stone, self._zero_rule))
            if len(self._dense_memo) < _MEMO_LIMIT:
                self._dense_memo[key] = got
        return got

    def _unit_value(self, w: _View, t: int) -> float:
        """VP-equivalent of one unit of a scoring of card id ``t``."""
        if t == WOODCUTTER:
            return w.wood_value
        if t == PRIEST:
            return 1.0
        if t == MOAI:  # each unit is wood or VP, whichever is worth more
            return max(1.0, w.wood_value)
        k = t - HG
        return w.kind_value[k] if w.supply[k] > 0 else 0.0

    def _buy_surplus(self, w: _View, hg: Sequence[float]) -> float:
        """Gain of the best purchase given own H&G counts ``hg`` per kind (0 if none pays)."""
        best = 0.0
        kind_value = w.kind_value
        wood_value = w.wood_value
        for k in range(NUM_KINDS):
            # max(0.0, cost) and max(best, gain) spelled out: the same comparisons, fewer calls.
            cost = BUY_BASE_COST - hg[k]
            gain = kind_value[k] - (cost if cost > 0.0 else 0.0) * wood_value
            if gain > best:
                best = gain
        return best

    def _opp_holding_values(self, w: _View, vals: Sequence[int]) -> list[float]:
        """Each opponent's estimated offering-card value for the kind values ``vals``."""
        d = w.displays
        out = []
        for j in range(1, self._n):
            # Their kinds are hidden; they gain mostly the kinds they have H&G of.
            weights = [1.0 + 2.0 * (d[j][HG + k] >= 1) for k in range(NUM_KINDS)]
            mean = sum(weights[k] * vals[k] for k in range(NUM_KINDS)) / sum(weights)
            out.append(w.hold_counts[j] * mean)
        return out

    def _margin(self, w: _View) -> float:
        """Own estimated final score minus the best opponent's, if the game ended now."""
        vals = self._dense(w.stone)
        d = w.displays
        held = self._opp_holding_values(w, vals)

        def base(j: int) -> float:
            return w.vp[j] + MOAI_END_VP * d[j][MOAI] + w.wood[j] // WOOD_PER_VP

        mine = base(0) + sum(w.hold[k] * vals[k] for k in range(NUM_KINDS))
        return mine - max(base(j) + held[j - 1] for j in range(1, self._n))

    def _display_gain(self, w: _View, t: int, count: int) -> float:
        """Value of adding ``count`` cards of id ``t`` to the own display now."""
        counts = w.by_type[t]
        after = [counts[0] + count, *counts[1:]]
        delta = self._rel_from_counts(after, t) - self._base_rel_gain(w, t)
        value = w.scorings_left * _REVEAL_SHARE[t] * self._unit_value(w, t) * delta
        if t >= HG:
            # H&G also make every later purchase of their kind cheaper, once per own turn.
            hg_after = w.displays[0][HG : HG + NUM_KINDS]
            hg_after[t - HG] += count
            gain = self._buy_surplus(w, hg_after) - self._base_buy_surplus(w)
            value += w.scorings_left / self._n * gain
        elif t == MOAI:
            value += MOAI_END_VP + _OFFER_ROUND_VALUE - MOAI_COST * w.wood_value
        return value

    # --- phase decisions ------------------------------------------------------------------------

    def _act_buy(self, w: _View, legal: list[int]) -> int:
        wood = w.wood[0]
        d0 = w.displays[0]
        scores = []
        for a in legal:
            if a == NO_BUY:
                scores.append(0.0)
                continue
            k = a - BUY
            cost = max(0.0, BUY_BASE_COST - d0[HG + k])
            val = w.kind_value[k] - cost * w.wood_value
            if w.hand[MOAI] and wood >= MOAI_COST > wood - cost:
                val -= _SPOIL_MOAI_PENALTY
            scores.append(val)
        return self._pick(legal, scores)

    def _act_play(self, w: _View, legal: list[int]) -> int:
        scores = []
        for a in legal:
            if a == PLAY_WOODCUTTER:
                val = self._display_gain(w, WOODCUTTER, 1)
            elif a == PLAY_PRIEST:
                val = self._display_gain(w, PRIEST, 1)
            elif a == PLAY_MOAI:
                val = self._display_gain(w, MOAI, 1)
            elif PLAY_HG <= a < PLAY_HG + 3 * NUM_KINDS:
                k, extra = divmod(a - PLAY_HG, 3)
                # Extra H&G cost a wood each but also draw an extra card each.
                val = self._display_gain(w, HG + k, extra + 1)
                val += extra * (_EXTRA_DRAW_VALUE - w.wood_value)
            else:  # REMOVE_MOAI (only legal choice unless the voluntary switch is on)
                val = -_STUCK_MOAI_PENALTY
            scores.append(val)
        return self._pick(legal, scores)

    def _act_draw(self, w: _View, legal: list[int]) -> int:
        # A card taken into the hand is worth a share of playing it later.
        hand_val = [
            _HAND_SHARE * max(0.0, self._display_gain(w, t, 1)) for t in range(NUM_CARD_TYPES)
        ]
        reveal = [
            self._unit_value(w, t) * self._base_rel_gain(w, t) for t in range(NUM_CARD_TYPES)
        ]
        # The unseen pool (other hands and the draw pile) gives a refill's expected card.
        # Every count is a whole number, so the order of the subtractions does not matter.
        in_columns = [0] * NUM_CARD_TYPES
        for col in w.columns:
            for t in col:
                in_columns[t] += 1
        in_columns[MOAI] += w.removed
        pool = [
            max(0.0, total - sum(displayed) - columns - held)
            for total, displayed, columns, held in zip(
                self._totals, w.by_type, in_columns, w.hand, strict=True)
        ]
        total = sum(pool) or 1.0
        exp_hand = sum(pool[t] * hand_val[t] for t in range(NUM_CARD_TYPES)) / total
        exp_reveal = sum(pool[t] * reveal[t] for t in range(NUM_CARD_TYPES)) / total
        end_val = 0.0
        if w.pile < 2 * COLUMN_SIZE:  # this turn's draws may end the game
            margin = self._margin(w)
            end_val = (_END_VALUE if margin > 0 else -_END_VALUE) + margin
        ctx = (
            hand_val,
            reveal,
            exp_hand,
            exp_reveal,
            end_val,
            w.wood[0] >= MOAI_COST,
        )
        scores = [
            self._seq_value(w.columns, w.pile, a - DRAW, w.draws_left, w.hand[MOAI], ctx)
            for a in legal
        ]
        return self._pick(legal, scores)

    def _seq_value(
        self,
        cols: list[list[int]],
        pile: int,
        c: int,
        draws: int,
        moai: int,
        ctx: tuple[list[float], list[float], float, float, float, bool],
    ) -> float:
        """Best value of the draw orders that start with column ``c`` (-1 marks unseen cards)."""
        hand_val, reveal, exp_hand, exp_reveal, end_val, can_build = ctx
        card = cols[c][0]
        gain = exp_hand if card < 0 else hand_val[card]
        if card == MOAI:
            moai += 1
            if moai >= HAND_SIZE and not can_build:
                gain -= _STUCK_MOAI_PENALTY
        rest = cols[c][1:]
        if not rest:
            if pile < COLUMN_SIZE:
                # Emptying a column with fewer than 4 cards left ends the game at once.
                return gain + end_val
            pile -= COLUMN_SIZE
            rest = [-1] * COLUMN_SIZE
        if draws == 1:
            front = rest[0]
            return gain + (exp_reveal if front < 0 else reveal[front])
        new_cols = [*cols[:c], rest, *cols[c + 1 :]]
        best = max(
            self._seq_value(new_cols, pile, c2, draws - 1, moai, ctx)
            for c2 in range(NUM_COLUMNS)
            if new_cols[c2]
        )
        return gain + best

    def _offer_objective(self, w: _View, hold: list[float], stone: list[float]) -> float:
        """Own holdings' value on ``stone`` minus the opponents' estimated holdings' value."""
        vals = self._dense(stone)
        mine = sum(hold[k] * vals[k] for k in range(NUM_KINDS))
        opp = self._opp_agg(self._opp_holding_values(w, vals))
        # Tie-break: lift the kinds one holds most, so later rounds keep them on top.
        lift = _LIFT_WEIGHT * sum(hold[k] * stone[k] for k in range(NUM_KINDS))
        return mine - _OFFER_OPP_WEIGHT * opp + lift

    def _act_offer(self, w: _View, legal: list[int]) -> int:
        scores = []
        for a in legal:
            k = a - OFFER
            hold = list(w.hold)
            hold[k] -= 1
            stone = list(w.stone)
            stone[k] += 1
            scores.append(self._offer_objective(w, hold, stone))
        return self._pick(legal, scores)

    def _act_supply(self, w: _View, legal: list[int]) -> int:
        scores = []
        for a in legal:
            stone = list(w.stone)
            if a != SUPPLY_SKIP:
                stone[a - SUPPLY] += 1
            scores.append(self._offer_objective(w, w.hold, stone))
        return self._pick(legal, scores)

    def _act_split(self, w: _View, legal: list[int]) -> int:
        units = w.moai_units
        want_wood = 0
        if w.hand[MOAI] and w.stage > _LATE_STAGE:
            # Wood only up to what the Moai waiting in hand need; every other unit is a VP.
            want_wood = max(0, MOAI_COST * min(w.hand[MOAI], _MOAI_SAVE_MAX) - int(w.wood[0]))
        target = MOAI_VP + max(0, units - want_wood)
        if target in legal:
            return target
        # moai_choice="all_same": all wood only if that completes a Moai, else all VP.
        if want_wood and w.wood[0] + units >= MOAI_COST and MOAI_VP in legal:
            return MOAI_VP
        all_vp = MOAI_VP + units
        return all_vp if all_vp in legal else legal[-1]

    # --- entry point ----------------------------------------------------------------------------

    def _pick(self, legal: list[int], scores: list[float]) -> int:
        """The best-scored action; the generator breaks exact ties."""
        top = max(scores)
        best = [a for a, s in zip(legal, scores, strict=True) if s >= top - _EPS]
        if len(best) == 1:
            return best[0]
        return best[int(self.rng.integers(len(best)))]

    def act(self, observation: dict[str, np.ndarray]) -> int:
        """Choose a legal action from the seat's own observation dict.

        Args:
            observation: ``{"observation": float32 vector, "action_mask": int8 vector}``, as
                the environment's ``observe`` returns it for this seat.

        Returns:
            A legal action id.

        Raises:
            ValueError: When the mask has no legal action (this seat is not to act).
        """
        legal = np.asarray(observation["action_mask"]).reshape(-1).nonzero()[0].tolist()
        if not legal:
            raise ValueError("no legal action in the mask; this agent is not to act")
        if len(legal) == 1:  # forced moves need no thought
            return legal[0]
        w = self._decode(observation["observation"])
        handler = self._handlers[w.phase]
        return handler(self, w, legal)

    _handlers = (_act_buy, _act_play, _act_draw, _act_offer, _act_supply, _act_split)
