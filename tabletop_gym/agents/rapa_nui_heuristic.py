"""A rule-based Rapa Nui player that decides from its own observation vector only.

The bot reads the ego-centric vector of :class:`~tabletop_gym.envs.rapa_nui.observer.
RapaNuiObserver` at the starts of the layout's named slices (never at offsets of its own) and
values every option in "VP-equivalents": victory points, wood (worth less than a VP, more while a
Moai waits in hand), offering cards (worth the estimated final value of their kind) and the
expected yield of display cards over the scorings that remain.

It is the single-agent env's default opponent, so it is built for speed: a decision turns the
vector into one Python list, reads only what its phase needs, and looks its recurring pure
valuations up in memo tables shared by every bot of the same game config.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import mul
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
    PHASES,
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


class _Tables:
    """Memo tables of pure valuations for one game config, shared by every bot of that config.

    Their keys are small count tuples that recur decision after decision and game after game; a
    bot built afresh for each episode (as the single-agent env builds its opponents) starts with
    them filled. The bound only caps memory: the tables rarely come near it.
    """

    __slots__ = ("dense", "estimate", "opp", "step", "steps", "valuation")

    def __init__(self) -> None:
        self.step: dict[tuple[float, ...], tuple[float, float]] = {}
        self.steps: dict[tuple[float, ...], list[tuple[float, float]]] = {}
        self.dense: dict[tuple[float, ...], tuple[int, ...]] = {}
        self.estimate: dict[Any, _Estimate] = {}
        self.opp: dict[tuple[_Opponents, tuple[int, ...]], float] = {}
        self.valuation: dict[
            tuple[_EstimateKey, tuple[float, ...], tuple[bool, ...]], _Valuation
        ] = {}


# Per (player count, zero rule, H&G bonus switch): everything the memoised valuations depend on.
_TABLES: dict[tuple[int, bool, bool], _Tables] = {}

# Per opponent: offering cards held, the weight of each kind (their kinds are hidden; they gain
# mostly the kinds they have H&G of) and the weights' sum.
_Opponents = tuple[tuple[float, float, float, float, float, float], ...]

# (scorings left, game stage, wood value, kind values, stone counts this seat knows per kind)
_Estimate = tuple[float, float, float, list[float], list[float]]

# Column one-hot entry j = (column * 4 + position) * 7 + card id, front position first.
_COLUMN_OF = tuple(j // (COLUMN_SIZE * NUM_CARD_TYPES)
                   for j in range(NUM_COLUMNS * COLUMN_SIZE * NUM_CARD_TYPES))
_CARD_OF = tuple(j % NUM_CARD_TYPES for j in range(NUM_COLUMNS * COLUMN_SIZE * NUM_CARD_TYPES))
_FULL_CARDS = START_PILE + NUM_COLUMNS * COLUMN_SIZE - _LEFTOVER_CARDS
# The cards lying in the columns: how many, each column's card ids front first, and per card id.
_Columns = tuple[int, list[list[int]], list[int]]
# Shared by all bots: the same columns are seen by every seat, decision after decision.
_COLUMNS_MEMO: dict[bytes, _Columns] = {}
_COLUMNS_MEMO_LIMIT = 1 << 12

# What the estimates read: cards left, Moai waiting for wood, stone per kind, stone size.
_EstimateKey = tuple[int, bool, tuple[float, ...], float]
# What the display gains of one decision read: the estimates; the VP-equivalent of one unit of a
# scoring per card id; per card id, scorings left x its reveal share x that unit value; per kind
# and H&G count played (1-3), the gain of the cheaper purchases; the Moai's own value.
_Valuation = tuple[_Estimate, list[float], list[float], list[list[float]], float]
# Display states kept per game config (about 8 MB at most): cleared when full.
_STEPS_MEMO_LIMIT = 1 << 13
# H&G of one kind played in one turn: one plus up to two extra.
_MAX_PLAYED = 3


def _stage(cards: int) -> float:
    """Share of the game's cards still to come (1 at the start, 0 at the end)."""
    return min(1.0, max(0.0, cards) / _FULL_CARDS)


def _purchase_gain(est: _Estimate, hunters: float, k: int) -> float:
    """Value minus wood cost of buying a card of kind ``k`` with ``hunters`` H&G of it shown."""
    cost = BUY_BASE_COST - hunters
    # max(0.0, cost) spelled out: the same comparison, one call fewer.
    return est[3][k] - (cost if cost > 0.0 else 0.0) * est[2]


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
        # Where each named slice starts, resolved once. A decision turns the vector into one
        # Python list (far cheaper to read than numpy scalars) without the column one-hot block,
        # over half of it and read through its set entries instead; the slices behind that block
        # move up by its size.
        columns = observer.layout["columns"]
        self._columns_at = (columns.start, columns.stop)

        def at(name: str) -> int:
            start = observer.layout[name].start
            return start - columns.size if start >= columns.stop else start

        self._phase_at = at("phase")
        self._draws_at = at("draws_left")
        self._units_at = at("moai_units")
        self._hand_at = at("own_hand")
        self._hold_at = at("own_holdings")
        self._fd_at = at("own_face_down")
        self._disp_at = at("displays")
        self._wood_at = at("wood")
        self._vp_at = at("vp")
        self._counts_at = at("holding_counts")
        self._up_at = at("stone_face_up")
        self._stone_fd_at = at("stone_face_down")
        self._supply_at = at("supply")
        self._pile_at = at("draw_pile")
        self._removed_at = at("removed_moai")
        tables = _TABLES.setdefault((self._n, self._zero_rule, self._hg_bonus), _Tables())
        self._step_memo = tables.step
        self._steps_memo = tables.steps
        self._dense_memo = tables.dense
        self._estimate_memo = tables.estimate
        self._opp_memo = tables.opp
        self._valuation_memo = tables.valuation

    def seed(self, seed: int | None) -> None:
        """Reseed the tie-breaking generator."""
        self.rng = np.random.default_rng(seed)

    # --- shared estimates -----------------------------------------------------------------------

    def _columns(self, vec: np.ndarray) -> _Columns:
        """The cards lying in the columns (see ``_Columns``), memoised on the block's bytes."""
        start, stop = self._columns_at
        block = vec[start:stop]
        key = block.tobytes()
        got = _COLUMNS_MEMO.get(key)
        if got is None:
            cols: list[list[int]] = [[] for _ in range(NUM_COLUMNS)]
            in_columns = [0] * NUM_CARD_TYPES
            # One set entry per card; they come in index order, so each column front first.
            entries = block.nonzero()[0].tolist()
            for j in entries:
                t = _CARD_OF[j]
                cols[_COLUMN_OF[j]].append(t)
                in_columns[t] += 1
            got = (len(entries), cols, in_columns)
            if len(_COLUMNS_MEMO) >= _COLUMNS_MEMO_LIMIT:
                _COLUMNS_MEMO.clear()  # the columns of past games seldom come back
            _COLUMNS_MEMO[key] = got
        return got

    def _stone(self, v: list[float]) -> tuple[float, ...]:
        """What this seat knows of the stone: the face-up cards plus its own face-down ones."""
        up = self._up_at
        fd = self._fd_at
        return (v[up] + v[fd], v[up + 1] + v[fd + 1], v[up + 2] + v[fd + 2], v[up + 3] + v[fd + 3])

    def _estimate_key(self, v: list[float], in_columns: int) -> _EstimateKey:
        """Everything the estimates read (see ``_EstimateKey``).

        ``in_columns``: the cards lying in the columns.
        """
        up = self._up_at
        stone_all = v[up] + v[up + 1] + v[up + 2] + v[up + 3] + v[self._stone_fd_at]
        cards = int(v[self._pile_at]) + in_columns - _LEFTOVER_CARDS
        saving = bool(v[self._hand_at + MOAI]) and v[self._wood_at] < MOAI_COST
        return (cards, saving, self._stone(v), stone_all)

    def _estimate(self, key: _EstimateKey) -> _Estimate:
        """Scorings left, game stage, wood value, kind values and the stone this seat knows."""
        got = self._estimate_memo.get(key)
        if got is None:
            cards, saving, stone, stone_all = key
            scorings_left = max(0.0, cards / _DRAWS_PER_TURN)
            stage = _stage(cards)
            wv = _WOOD_LATE + (self._wood_early - _WOOD_LATE) * stage
            if saving and stage > _LATE_STAGE:
                wv += _WOOD_SAVING
            now = self._dense(list(stone))
            # A thin stone ranks kinds by chance; late in the game few offering rounds remain,
            # so the present ranking is what will count.
            trust = max(min(1.0, stone_all / _STONE_TRUST), 1.0 - stage)
            kind_value = [trust * x + (1.0 - trust) * _PRIOR_KIND_VALUE for x in now]
            got = (scorings_left, stage, wv, kind_value, list(stone))
            if len(self._estimate_memo) < _MEMO_LIMIT:
                self._estimate_memo[key] = got
        return got

    # --- shared valuations ----------------------------------------------------------------------

    def _opp_agg(self, xs: list[float]) -> float:
        """The opponents' values in one number: half mean, half leader (the one to beat)."""
        if len(xs) == 1:
            return xs[0]
        return 0.5 * (sum(xs) / len(xs)) + 0.5 * max(xs)

    def _rel(self, t: int, counts: list[float]) -> float:
        """Own units minus the opponents' weighted units of a scoring of card id ``t``.

        ``counts``: each seat's display count of ``t``, ego order.
        """
        g = _gains(counts, t >= HG, self._hg_bonus)
        return g[0] - self._opp_weight * self._opp_agg(g[1:])

    def _step(self, key: tuple[float, ...]) -> tuple[float, float]:
        """How much :meth:`_rel` grows when the own count rises, and its value now.

        ``key``: the card id, the own cards added, then each seat's display count of the card
        id in ego order. Memoised: the same counts come back decision after decision.
        """
        got = self._step_memo.get(key)
        if got is None:
            t = int(key[0])
            counts = list(key[2:])
            now = self._rel(t, counts)
            counts[0] += key[1]
            got = (self._rel(t, counts) - now, now)
            if len(self._step_memo) < _MEMO_LIMIT:
                self._step_memo[key] = got
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

    def _valuation(self, v: list[float], in_columns: int) -> _Valuation:
        """The tables every display gain of a decision reads (see ``_Valuation``).

        Memoised on everything they read: the estimates' inputs, the own H&G counts and which
        supply stacks still hold cards.
        """
        hg_at = self._disp_at + HG
        s = self._supply_at
        hg = (v[hg_at], v[hg_at + 1], v[hg_at + 2], v[hg_at + 3])
        stocked = (v[s] > 0, v[s + 1] > 0, v[s + 2] > 0, v[s + 3] > 0)
        est_key = self._estimate_key(v, in_columns)
        key = (est_key, hg, stocked)
        got = self._valuation_memo.get(key)
        if got is None:
            est = self._estimate(est_key)
            scorings_left, _, wv, kind_value, _ = est
            units = [0.0] * NUM_CARD_TYPES
            units[WOODCUTTER] = wv
            units[PRIEST] = 1.0
            units[MOAI] = max(1.0, wv)  # each unit is wood or VP, whichever is worth more
            for k in range(NUM_KINDS):
                units[HG + k] = kind_value[k] if stocked[k] else 0.0
            coef = [scorings_left * _REVEAL_SHARE[t] * units[t] for t in range(NUM_CARD_TYPES)]
            buy = [_purchase_gain(est, hg[k], k) for k in range(NUM_KINDS)]
            # The best purchase (0 if none pays): max(0.0, ...) has the loop's value.
            best = max(0.0, *buy)
            per_turn = scorings_left / self._n
            hunters = []
            for k in range(NUM_KINDS):
                # H&G also make every later purchase of their kind cheaper, once per own turn:
                # only that kind's purchase changes, so the best is the others' best or it.
                others = max(0.0, *buy[:k], *buy[k + 1 :])
                hunters.append([
                    per_turn * (max(others, _purchase_gain(est, hg[k] + count, k)) - best)
                    for count in range(1, _MAX_PLAYED + 1)
                ])
            moai = MOAI_END_VP + _OFFER_ROUND_VALUE - MOAI_COST * wv
            got = (est, units, coef, hunters, moai)
            if len(self._valuation_memo) < _MEMO_LIMIT:
                self._valuation_memo[key] = got
        return got

    def _steps(self, count: int, disp: list[float]) -> list[tuple[float, float]]:
        """:meth:`_step` of adding ``count`` cards, per card id, for the displays ``disp``.

        Memoised on all displays: they change once a turn, so most decisions of a game find
        theirs.
        """
        key = (count, *disp)
        got = self._steps_memo.get(key)
        if got is None:
            got = [
                self._step((t, count, *disp[t::NUM_CARD_TYPES])) for t in range(NUM_CARD_TYPES)
            ]
            if len(self._steps_memo) >= _STEPS_MEMO_LIMIT:
                self._steps_memo.clear()  # past games' displays seldom come back
            self._steps_memo[key] = got
        return got

    def _display_gains(
        self, count: int, disp: list[float], val: _Valuation
    ) -> tuple[list[float], list[tuple[float, float]]]:
        """Per card id, the value of adding ``count`` cards of it to the own display now.

        ``disp``: every seat's display counts, ego order, 7 per seat. Also returns the steps
        (see :meth:`_step`) the values come from.
        """
        steps = self._steps(count, disp)
        values = [c * delta for c, (delta, _) in zip(val[2], steps, strict=True)]
        hunters = val[3]
        for k in range(NUM_KINDS):
            values[HG + k] += hunters[k][count - 1]
        values[MOAI] += val[4]
        return values, steps

    def _opponents(self, v: list[float]) -> _Opponents:
        """Per opponent: offering cards held, kind weights and their sum (see ``_Opponents``)."""
        d = self._disp_at + HG
        c = self._counts_at
        out = []
        for j in range(1, self._n):
            at = d + j * NUM_CARD_TYPES
            w0, w1, w2, w3 = (1.0 + 2.0 * (v[at + k] >= 1) for k in range(NUM_KINDS))
            out.append((v[c + j], w0, w1, w2, w3, w0 + w1 + w2 + w3))
        return tuple(out)

    @staticmethod
    def _opp_holding_values(opp: _Opponents, vals: Sequence[int]) -> list[float]:
        """Each opponent's estimated offering-card value for the kind values ``vals``."""
        # Whole numbers throughout, so the sums are exact in any order.
        return [
            held * ((w0 * vals[0] + w1 * vals[1] + w2 * vals[2] + w3 * vals[3]) / total)
            for held, w0, w1, w2, w3, total in opp
        ]

    def _opp_value(self, opp: _Opponents, vals: tuple[int, ...]) -> float:
        """The opponents' estimated holdings' value in one number (memoised)."""
        key = (opp, vals)
        got = self._opp_memo.get(key)
        if got is None:
            got = self._opp_agg(self._opp_holding_values(opp, vals))
            if len(self._opp_memo) < _MEMO_LIMIT:
                self._opp_memo[key] = got
        return got

    # --- phase decisions ------------------------------------------------------------------------

    def _act_buy(self, v: list[float], legal: list[int], vec: np.ndarray) -> int:
        est = self._estimate(self._estimate_key(v, self._columns(vec)[0]))
        kind_value = est[3]
        wood_value = est[2]
        wood = v[self._wood_at]
        hg_at = self._disp_at + HG
        moai_in_hand = v[self._hand_at + MOAI]
        scores = []
        for a in legal:
            if a == NO_BUY:
                scores.append(0.0)
                continue
            k = a - BUY
            cost = max(0.0, BUY_BASE_COST - v[hg_at + k])
            val = kind_value[k] - cost * wood_value
            if moai_in_hand and wood >= MOAI_COST > wood - cost:
                val -= _SPOIL_MOAI_PENALTY
            scores.append(val)
        return self._pick(legal, scores)

    def _act_play(self, v: list[float], legal: list[int], vec: np.ndarray) -> int:
        val = self._valuation(v, self._columns(vec)[0])
        d = self._disp_at
        disp = v[d : d + self._n * NUM_CARD_TYPES]
        wv = val[0][2]
        one = self._display_gains(1, disp, val)[0]
        scores = []
        for a in legal:
            if a == PLAY_WOODCUTTER:
                score = one[WOODCUTTER]
            elif a == PLAY_PRIEST:
                score = one[PRIEST]
            elif a == PLAY_MOAI:
                score = one[MOAI]
            elif PLAY_HG <= a < PLAY_HG + 3 * NUM_KINDS:
                k, extra = divmod(a - PLAY_HG, 3)
                # Extra H&G cost a wood each but also draw an extra card each.
                score = one[HG + k] if not extra else self._display_gains(
                    extra + 1, disp, val)[0][HG + k]
                score += extra * (_EXTRA_DRAW_VALUE - wv)
            else:  # REMOVE_MOAI (only legal choice unless the voluntary switch is on)
                score = -_STUCK_MOAI_PENALTY
            scores.append(score)
        return self._pick(legal, scores)

    def _act_draw(self, v: list[float], legal: list[int], vec: np.ndarray) -> int:
        in_columns, cols, by_id = self._columns(vec)
        val = self._valuation(v, in_columns)
        est = val[0]
        units = val[1]
        d = self._disp_at
        disp = v[d : d + self._n * NUM_CARD_TYPES]
        values, steps = self._display_gains(1, disp, val)
        # A card taken into the hand is worth a share of playing it later.
        hand_val = [_HAND_SHARE * max(0.0, value) for value in values]
        reveal = [unit * now for unit, (_, now) in zip(units, steps, strict=True)]
        # The unseen pool (other hands and the draw pile) gives a refill's expected card.
        # Every count is a whole number, so the order of the subtractions does not matter.
        hand = self._hand_at
        held = v[hand : hand + NUM_CARD_TYPES]
        held[MOAI] += v[self._removed_at]
        rows = [disp[j : j + NUM_CARD_TYPES] for j in range(0, len(disp), NUM_CARD_TYPES)]
        pool = [
            max(0.0, total - sum(seen))
            for total, seen in zip(self._totals, zip(by_id, held, *rows, strict=True), strict=True)
        ]
        total = sum(pool) or 1.0
        exp_hand = sum(map(mul, pool, hand_val)) / total
        exp_reveal = sum(map(mul, pool, reveal)) / total
        pile = int(v[self._pile_at])
        end_val = 0.0
        if pile < 2 * COLUMN_SIZE:  # this turn's draws may end the game
            margin = self._margin(v, est)
            end_val = (_END_VALUE if margin > 0 else -_END_VALUE) + margin
        ctx = (
            hand_val,
            reveal,
            exp_hand,
            exp_reveal,
            end_val,
            v[self._wood_at] >= MOAI_COST,
        )
        draws = int(v[self._draws_at])
        moai = int(v[hand + MOAI])
        seq_value = self._seq_value
        scores = [seq_value(cols, pile, a - DRAW, draws, moai, ctx) for a in legal]
        return self._pick(legal, scores)

    def _margin(self, v: list[float], est: _Estimate) -> float:
        """Own estimated final score minus the best opponent's, if the game ended now."""
        vals = self._dense(est[4])
        held = self._opp_holding_values(self._opponents(v), vals)
        d = self._disp_at + MOAI
        vp = self._vp_at
        wood = self._wood_at

        def base(j: int) -> float:
            return v[vp + j] + MOAI_END_VP * v[d + j * NUM_CARD_TYPES] + v[wood + j] // WOOD_PER_VP

        h = self._hold_at
        mine = base(0) + sum(v[h + k] * vals[k] for k in range(NUM_KINDS))
        return mine - max(base(j) + held[j - 1] for j in range(1, self._n))

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

    def _offer_objective(
        self,
        opp: _Opponents,
        hold: list[float],
        stone: list[float],
    ) -> float:
        """Own holdings' value on ``stone`` minus the opponents' estimated holdings' value."""
        vals = self._dense(stone)
        # Whole numbers throughout, so the sums are exact in any order.
        mine = hold[0] * vals[0] + hold[1] * vals[1] + hold[2] * vals[2] + hold[3] * vals[3]
        opp_value = self._opp_value(opp, vals)
        # Tie-break: lift the kinds one holds most, so later rounds keep them on top.
        lift = _LIFT_WEIGHT * (
            hold[0] * stone[0] + hold[1] * stone[1] + hold[2] * stone[2] + hold[3] * stone[3]
        )
        return mine - _OFFER_OPP_WEIGHT * opp_value + lift

    def _act_offer(self, v: list[float], legal: list[int], vec: np.ndarray) -> int:
        own = self._stone(v)
        opp = self._opponents(v)
        h = self._hold_at
        scores = []
        for a in legal:
            k = a - OFFER
            hold = v[h : h + NUM_KINDS]
            hold[k] -= 1
            stone = list(own)
            stone[k] += 1
            scores.append(self._offer_objective(opp, hold, stone))
        return self._pick(legal, scores)

    def _act_supply(self, v: list[float], legal: list[int], vec: np.ndarray) -> int:
        own = self._stone(v)
        opp = self._opponents(v)
        h = self._hold_at
        hold = v[h : h + NUM_KINDS]
        scores = []
        for a in legal:
            stone = list(own)
            if a != SUPPLY_SKIP:
                stone[a - SUPPLY] += 1
            scores.append(self._offer_objective(opp, hold, stone))
        return self._pick(legal, scores)

    def _act_split(self, v: list[float], legal: list[int], vec: np.ndarray) -> int:
        units = int(v[self._units_at])
        moai = int(v[self._hand_at + MOAI])
        wood = v[self._wood_at]
        cards = int(v[self._pile_at]) + self._columns(vec)[0] - _LEFTOVER_CARDS
        stage = _stage(cards)
        want_wood = 0
        if moai and stage > _LATE_STAGE:
            # Wood only up to what the Moai waiting in hand need; every other unit is a VP.
            want_wood = max(0, MOAI_COST * min(moai, _MOAI_SAVE_MAX) - int(wood))
        target = MOAI_VP + max(0, units - want_wood)
        if target in legal:
            return target
        # moai_choice="all_same": all wood only if that completes a Moai, else all VP.
        if want_wood and wood + units >= MOAI_COST and MOAI_VP in legal:
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
        mask = observation["action_mask"]
        if type(mask) is not np.ndarray or mask.ndim != 1:
            mask = np.asarray(mask).reshape(-1)
        legal = mask.nonzero()[0].tolist()
        if not legal:
            raise ValueError("no legal action in the mask; this agent is not to act")
        if len(legal) == 1:  # forced moves need no thought
            return legal[0]
        vec = observation["observation"]
        if type(vec) is not np.ndarray or vec.ndim != 1:
            vec = np.asarray(vec).reshape(-1)
        start, stop = self._columns_at
        v = vec[:start].tolist() + vec[stop:].tolist()
        p = self._phase_at
        phase = v[p : p + len(PHASES)].index(1.0)
        return self._handlers[phase](self, v, legal, vec)

    _handlers = (_act_buy, _act_play, _act_draw, _act_offer, _act_supply, _act_split)
