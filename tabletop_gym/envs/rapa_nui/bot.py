"""A rule-based Rapa Nui player that decides from its own observation vector only.

The bot reads the ego-centric vector of :class:`~tabletop_gym.envs.rapa_nui.observer.
RapaNuiObserver` at the starts of the layout's named slices (never at offsets of its own) and
values every option in "VP-equivalents": victory points, wood (worth less than a VP, more while a
Moai waits in hand), offering cards (worth the estimated final value of their kind) and the
expected yield of display cards over the scorings that remain.

It is the single-agent env's default opponent, so it is built for speed: a decision gathers the
slices it reads into one Python list (the phase comes from the legal actions' id range), works
out only what its options compare (a draw decision, for example, values only the card ids its
draw orders reach), and looks its recurring pure valuations up in memo tables shared by every
bot of the same game config. The floating-point operations are those of the straightforward
computation, in the same order, so its decisions are exactly those of the plain version
(``tests/agents/test_rapa_nui_heuristic.py`` pins a hash of them).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from operator import mul, sub
from typing import Any, ClassVar, TypeVar

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
    NUM_ACTIONS,
    NUM_CARD_TYPES,
    NUM_COLUMNS,
    NUM_KINDS,
    OFFER,
    PHASES,
    PLAY_HG_RANGE,
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


@dataclasses.dataclass(frozen=True)
class RapaNuiPriorities:
    """The weights a variant of the bot changes; the defaults are the bot's own.

    A variant is the same bot with other priorities: a population of players that value wood,
    offerings and rivals differently, none of which any training recipe plays against (the
    held-out population of the results page).

    Attributes:
        wood_scale: Factor on the value of a wood unit, early and late.
        offer_round_value: What the offering round of one's own Moai adds beyond the Moai.
        prior_kind_value: Value of an offering of a kind the stone does not rank yet.
        stone_trust: Stone cards at which the stone's ranking is trusted fully.
        offer_opp_weight: Weight of the opponents' estimated holdings in choosing an offering.
        extra_draw_value: Value of each extra card drawn this turn.
    """

    wood_scale: float = 1.0
    offer_round_value: float = _OFFER_ROUND_VALUE
    prior_kind_value: float = _PRIOR_KIND_VALUE
    stone_trust: float = _STONE_TRUST
    offer_opp_weight: float = _OFFER_OPP_WEIGHT
    extra_draw_value: float = _EXTRA_DRAW_VALUE


VARIANTS: dict[str, RapaNuiPriorities] = {
    # Wood first: woodcutters and Moai over offerings.
    "woodsman": RapaNuiPriorities(wood_scale=1.6),
    # Offerings first: Moai for their offering rounds, unranked kinds trusted early.
    "mystic": RapaNuiPriorities(offer_round_value=2.0, prior_kind_value=2.5, stone_trust=4.0),
    # Plays its own hand: ignores what the opponents may hold and draws more.
    "loner": RapaNuiPriorities(offer_opp_weight=0.0, extra_draw_value=1.2),
}
"""Named variants (``heuristic:NAME``) of the Rapa Nui bot."""
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
# Entries each memo table of a game config holds at most (a few MB for the largest).
_MEMO_LIMIT = 1 << 14


def _dense_values(stone: Sequence[float], zero_rule: bool) -> list[int]:
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

    Their keys are small count tuples that recur decision after decision and game after game
    (a table earns its place by a high hit rate in long play, not only within one game); a bot
    built afresh for each episode, as the single-agent env builds its opponents, finds them
    filled. Each is bounded: a full table is emptied and refills with the positions of the
    moment.
    """

    __slots__ = ("dense", "estimate", "opp", "step")

    def __init__(self) -> None:
        self.step: dict[tuple[float, ...], tuple[float, float]] = {}
        self.dense: dict[tuple[float, ...], tuple[int, ...]] = {}
        self.estimate: dict[_EstimateKey, _Estimate] = {}
        self.opp: dict[_Opponents, dict[tuple[int, ...], float]] = {}


# Per (player count, zero rule, H&G bonus switch, priorities): everything the memoised valuations
# depend on.
_TABLES: dict[tuple[int, bool, bool, RapaNuiPriorities], _Tables] = {}

# Per opponent: offering cards held, the weight of each kind (their kinds are hidden; they gain
# mostly the kinds they have H&G of) and the weights' sum.
_Opponents = tuple[tuple[float, float, float, float, float, float], ...]

# What the estimates read: cards left, Moai waiting for wood, stone per kind, stone size, and
# which supply stacks still hold cards.
_EstimateKey = tuple[int, bool, tuple[float, ...], float, tuple[bool, ...]]


# Each field is declared once: the dataclass makes its annotations the slots (filled one by one
# when worked out, so no __init__).
@dataclasses.dataclass(slots=True, init=False, eq=False, repr=False)
class _Estimate:
    """The shared estimates of a decision: pure functions of an ``_EstimateKey``."""

    scorings_left: float
    stage: float
    wood_value: float
    kind_value: tuple[float, ...]
    stone: tuple[float, ...]
    units: tuple[float, ...]
    """VP-equivalent of one unit of a scoring, per card id."""
    coef: tuple[float, ...]
    """Per card id: scorings left x its reveal share x its unit value."""
    moai_value: float
    """A Moai's own value beyond its scorings: end VP and offering round, less its wood."""
    per_turn: float
    """Scorings left per seat (the own turns that can still buy cheaper)."""


# Column one-hot entry j = (column * 4 + position) * 7 + card id, front position first: its
# (column, card id).
_COLUMN_ENTRY = tuple(
    (j // (COLUMN_SIZE * NUM_CARD_TYPES), j % NUM_CARD_TYPES)
    for j in range(NUM_COLUMNS * COLUMN_SIZE * NUM_CARD_TYPES)
)
_FULL_CARDS = START_PILE + NUM_COLUMNS * COLUMN_SIZE - _LEFTOVER_CARDS
# The phase (index into PHASES) whose decisions an action id belongs to.
_PHASE_OF_ACTION = tuple(
    PHASES.index(
        "buy" if a < PLAY_WOODCUTTER else "play" if a < DRAW else "draw" if a < OFFER
        else "offer" if a < SUPPLY else "supply_offer" if a < MOAI_VP else "moai_split"
    )
    for a in range(NUM_ACTIONS)
)



_K = TypeVar("_K")
_V = TypeVar("_V")


def _remember(memo: dict[_K, _V], key: _K, value: _V) -> None:
    """Store ``value`` under ``key``, emptying a full table first."""
    if len(memo) >= _MEMO_LIMIT:
        # Bounds memory; in a long run the positions of the moment soon fill it again.
        memo.clear()
    memo[key] = value


def clear_memo_tables() -> None:
    """Empty the memo tables all bots share, as at a fresh start (benchmarks time with them).

    Decisions never depend on what the tables hold, only the time they take.
    """
    for tables in _TABLES.values():
        for name in _Tables.__slots__:
            getattr(tables, name).clear()


def _stage(cards: int) -> float:
    """Share of the game's cards still to come (1 at the start, 0 at the end)."""
    return min(1.0, max(0.0, cards) / _FULL_CARDS)


def _purchase_gain(est: _Estimate, hunters: float, k: int) -> float:
    """Value minus wood cost of buying a card of kind ``k`` with ``hunters`` H&G of it shown."""
    cost = BUY_BASE_COST - hunters
    # max(0.0, cost) spelled out: the same comparison, one call fewer.
    return est.kind_value[k] - (cost if cost > 0.0 else 0.0) * est.wood_value


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
    variants: ClassVar[dict[str, RapaNuiPriorities]] = VARIANTS
    """Named variants (``heuristic:NAME``)."""

    def __init__(self, game: Game, observer: Observer, rng: np.random.Generator | None = None,
                 priorities: RapaNuiPriorities | None = None):
        """Bind the bot to a game config and its observation layout.

        Args:
            game: The Rapa Nui game; only its config switches are read, never a state.
            observer: The observer whose layout the observations follow.
            rng: Generator (or seed) that breaks ties between equally valued actions.
            priorities: Weights of a variant (default: the bot's own).
        """
        self.priorities = p = RapaNuiPriorities() if priorities is None else priorities
        self.game = game
        self.observer = observer
        self.rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
        cfg: Any = game.config
        self._n = int(cfg.num_players)
        self._zero_rule = getattr(cfg, "zero_count_kind_value", "zero") == "zero"
        self._hg_bonus = bool(getattr(cfg, "hunter_gatherer_majority_bonus", True))
        self._totals = card_totals(self._n)
        self._opp_weight = _OPP_WEIGHT if self._n == 2 else _OPP_WEIGHT_MULTI
        self._wood_early = p.wood_scale * _WOOD_EARLY[min(self._n, 4) - 2]
        self._wood_late = p.wood_scale * _WOOD_LATE
        # A decision reads the vector as one Python list (far cheaper to read than numpy
        # scalars) holding only the slices it uses, each per-seat slice cut to the seats there
        # are; the column one-hot block, over half the vector, is read through its set entries.
        columns = observer.layout["columns"]
        self._columns_at = (columns.start, columns.stop)
        keep: list[int] = []
        place: dict[str, int] = {}
        for name, size in (
            ("draws_left", 1),
            ("moai_units", self._n),
            ("own_hand", NUM_CARD_TYPES),
            ("own_holdings", NUM_KINDS),
            ("own_face_down", NUM_KINDS),
            ("displays", self._n * NUM_CARD_TYPES),
            ("wood", self._n),
            ("vp", self._n),
            ("holding_counts", self._n),
            ("stone_face_up", NUM_KINDS),
            ("stone_face_down", 1),
            ("supply", NUM_KINDS),
            ("draw_pile", 1),
            ("removed_moai", 1),
        ):
            place[name] = len(keep)
            start = observer.layout[name].start
            keep.extend(range(start, start + size))
        self._keep = np.array(keep, dtype=np.intp)
        self._draws_at = place["draws_left"]
        self._units_at = place["moai_units"]
        self._hand_at = place["own_hand"]
        self._hold_at = place["own_holdings"]
        self._fd_at = place["own_face_down"]
        self._disp_at = place["displays"]
        self._wood_at = place["wood"]
        self._vp_at = place["vp"]
        self._counts_at = place["holding_counts"]
        self._up_at = place["stone_face_up"]
        self._stone_fd_at = place["stone_face_down"]
        self._supply_at = place["supply"]
        self._pile_at = place["draw_pile"]
        self._removed_at = place["removed_moai"]
        self._attach_memo_tables()

    def _attach_memo_tables(self) -> None:
        tables = _TABLES.setdefault((self._n, self._zero_rule, self._hg_bonus, self.priorities),
                                    _Tables())
        self._step_memo = tables.step
        self._dense_memo = tables.dense
        self._estimate_memo = tables.estimate
        self._opp_memo = tables.opp

    _MEMOS = ("_step_memo", "_dense_memo", "_estimate_memo", "_opp_memo")

    def __getstate__(self) -> dict[str, Any]:
        # The memo tables are this process's, shared by every bot of the config and never
        # read by a decision's outcome: a pickle leaves them out, and a copy attaches to the
        # tables of the process it is loaded in.
        state = self.__dict__.copy()
        for name in self._MEMOS:
            del state[name]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._attach_memo_tables()

    def seed(self, seed: int | None) -> None:
        """Reseed the tie-breaking generator."""
        self.rng = np.random.default_rng(seed)

    # --- shared estimates -----------------------------------------------------------------------

    def _in_columns(self, vec: np.ndarray) -> int:
        """How many cards lie in the columns: each sets one entry of the one-hot block."""
        start, stop = self._columns_at
        return int(np.count_nonzero(vec[start:stop]))

    def _columns(self, vec: np.ndarray) -> tuple[list[list[int]], list[int]]:
        """Each column's card ids, front first, and the cards lying there per card id."""
        start, stop = self._columns_at
        cols: list[list[int]] = [[] for _ in range(NUM_COLUMNS)]
        by_id = [0] * NUM_CARD_TYPES
        # One set entry per card; they come in index order, so each column front first.
        for j in vec[start:stop].nonzero()[0].tolist():
            c, t = _COLUMN_ENTRY[j]
            cols[c].append(t)
            by_id[t] += 1
        return cols, by_id

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
        s = self._supply_at
        return (
            int(v[self._pile_at]) + in_columns - _LEFTOVER_CARDS,
            bool(v[self._hand_at + MOAI]) and v[self._wood_at] < MOAI_COST,
            self._stone(v),
            v[up] + v[up + 1] + v[up + 2] + v[up + 3] + v[self._stone_fd_at],
            (v[s] > 0, v[s + 1] > 0, v[s + 2] > 0, v[s + 3] > 0),
        )

    def _estimate(self, key: _EstimateKey) -> _Estimate:
        """Scorings left, game stage, wood and kind values, and what follows from them."""
        got = self._estimate_memo.get(key)
        if got is None:
            got = _Estimate()
            cards, saving, stone, stone_all, stocked = key
            got.scorings_left = max(0.0, cards / _DRAWS_PER_TURN)
            got.stage = stage = _stage(cards)
            wv = self._wood_late + (self._wood_early - self._wood_late) * stage
            if saving and stage > _LATE_STAGE:
                wv += _WOOD_SAVING
            got.wood_value = wv
            now = self._dense(stone)
            # A thin stone ranks kinds by chance; late in the game few offering rounds remain,
            # so the present ranking is what will count.
            p = self.priorities
            trust = max(min(1.0, stone_all / p.stone_trust), 1.0 - stage)
            got.kind_value = tuple(trust * x + (1.0 - trust) * p.prior_kind_value for x in now)
            got.stone = stone
            units = [0.0] * NUM_CARD_TYPES
            units[WOODCUTTER] = wv
            units[PRIEST] = 1.0
            units[MOAI] = max(1.0, wv)  # each unit is wood or VP, whichever is worth more
            for k in range(NUM_KINDS):
                units[HG + k] = got.kind_value[k] if stocked[k] else 0.0
            got.units = tuple(units)
            got.coef = tuple(
                got.scorings_left * _REVEAL_SHARE[t] * units[t] for t in range(NUM_CARD_TYPES)
            )
            got.moai_value = MOAI_END_VP + p.offer_round_value - MOAI_COST * wv
            got.per_turn = got.scorings_left / self._n
            _remember(self._estimate_memo, key, got)
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
            _remember(self._step_memo, key, got)
        return got

    def _dense(self, stone: Sequence[float]) -> tuple[int, ...]:
        """:func:`_dense_values` under this game's zero rule (memoised)."""
        key = tuple(stone)
        got = self._dense_memo.get(key)
        if got is None:
            got = tuple(_dense_values(stone, self._zero_rule))
            _remember(self._dense_memo, key, got)
        return got

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

    def _opp_values(self, opp: _Opponents) -> dict[tuple[int, ...], float]:
        """The memo table of the opponents' holdings' value per kind values, for ``opp``.

        One table per opponents' state, so each option of a decision looks up only its kind
        values.
        """
        table = self._opp_memo.get(opp)
        if table is None:
            table = {}
            _remember(self._opp_memo, opp, table)
        return table

    # --- phase decisions ------------------------------------------------------------------------

    def _act_buy(self, v: list[float], legal: Sequence[int], vec: np.ndarray) -> int:
        est = self._estimate(self._estimate_key(v, self._in_columns(vec)))
        kind_value = est.kind_value
        wood_value = est.wood_value
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

    def _gains(self, v: list[float], in_columns: int) -> _Gains:
        """The display gains of a decision in ``v`` (``in_columns``: cards in the columns)."""
        d = self._disp_at
        return _Gains(
            self,
            self._estimate(self._estimate_key(v, in_columns)),
            v[d : d + self._n * NUM_CARD_TYPES],
        )

    def _act_play(self, v: list[float], legal: Sequence[int], vec: np.ndarray) -> int:
        gains = self._gains(v, self._in_columns(vec))
        gain = gains.value
        wv = gains.est.wood_value
        scores = []
        for a in legal:
            if a == PLAY_WOODCUTTER:
                score = gain(WOODCUTTER, 1)[0]
            elif a == PLAY_PRIEST:
                score = gain(PRIEST, 1)[0]
            elif a == PLAY_MOAI:
                score = gain(MOAI, 1)[0]
            elif a in PLAY_HG_RANGE:
                k, extra = PLAY_HG_RANGE.decode(a)
                # Extra H&G cost a wood each but also draw an extra card each.
                score = gain(HG + k, extra + 1)[0]
                score += extra * (self.priorities.extra_draw_value - wv)
            else:  # REMOVE_MOAI (only legal choice unless the voluntary switch is on)
                score = -_STUCK_MOAI_PENALTY
            scores.append(score)
        return self._pick(legal, scores)

    def _act_draw(self, v: list[float], legal: Sequence[int], vec: np.ndarray) -> int:
        cols, by_id = self._columns(vec)
        in_columns = sum(by_id)
        values = _DrawValues(self, v, self._gains(v, in_columns), by_id)
        draws = int(v[self._draws_at])
        moai = int(v[self._hand_at + MOAI])
        pile = values.pile
        seq_value = self._seq_value
        scores = [seq_value(cols, pile, a - DRAW, draws, moai, values) for a in legal]
        return self._pick(legal, scores)

    def _margin(self, v: list[float], est: _Estimate) -> float:
        """Own estimated final score minus the best opponent's, if the game ended now."""
        vals = self._dense(est.stone)
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
        values: _DrawValues,
    ) -> float:
        """Best value of the draw orders that start with column ``c`` (-1 marks unseen cards)."""
        col = cols[c]
        card = col[0]
        gain = values.expected_hand() if card < 0 else values.hand(card)
        if card == MOAI:
            moai += 1
            if moai >= HAND_SIZE and not values.can_build:
                gain -= _STUCK_MOAI_PENALTY
        if len(col) == 1:
            if pile < COLUMN_SIZE:
                # Emptying a column with fewer than 4 cards left ends the game at once.
                return gain + values.end()
            pile -= COLUMN_SIZE
            rest = [-1] * COLUMN_SIZE
        else:
            rest = col[1:]
        if draws == 1:
            front = rest[0]
            return gain + (values.expected_reveal() if front < 0 else values.reveal(front))
        new_cols = [*cols[:c], rest, *cols[c + 1 :]]
        best = max(
            self._seq_value(new_cols, pile, c2, draws - 1, moai, values)
            for c2 in range(NUM_COLUMNS)
            if new_cols[c2]
        )
        return gain + best

    def _offer_objective(
        self,
        opp: _Opponents,
        opp_values: dict[tuple[int, ...], float],
        hold: list[float],
        stone: list[float],
    ) -> float:
        """Own holdings' value on ``stone`` minus the opponents' estimated holdings' value.

        ``opp_values``: :meth:`_opp_values` of ``opp``.
        """
        vals = self._dense(stone)
        # Whole numbers throughout, so the sums are exact in any order.
        mine = hold[0] * vals[0] + hold[1] * vals[1] + hold[2] * vals[2] + hold[3] * vals[3]
        opp_value = opp_values.get(vals)
        if opp_value is None:
            opp_value = opp_values[vals] = self._opp_agg(self._opp_holding_values(opp, vals))
        # Tie-break: lift the kinds one holds most, so later rounds keep them on top.
        lift = _LIFT_WEIGHT * (
            hold[0] * stone[0] + hold[1] * stone[1] + hold[2] * stone[2] + hold[3] * stone[3]
        )
        return mine - self.priorities.offer_opp_weight * opp_value + lift

    def _act_offer(self, v: list[float], legal: Sequence[int], vec: np.ndarray) -> int:
        own = self._stone(v)
        opp = self._opponents(v)
        table = self._opp_values(opp)
        h = self._hold_at
        scores = []
        for a in legal:
            k = a - OFFER
            hold = v[h : h + NUM_KINDS]
            hold[k] -= 1
            stone = list(own)
            stone[k] += 1
            scores.append(self._offer_objective(opp, table, hold, stone))
        return self._pick(legal, scores)

    def _act_supply(self, v: list[float], legal: Sequence[int], vec: np.ndarray) -> int:
        own = self._stone(v)
        opp = self._opponents(v)
        table = self._opp_values(opp)
        h = self._hold_at
        hold = v[h : h + NUM_KINDS]
        scores = []
        for a in legal:
            stone = list(own)
            if a != SUPPLY_SKIP:
                stone[a - SUPPLY] += 1
            scores.append(self._offer_objective(opp, table, hold, stone))
        return self._pick(legal, scores)

    def _act_split(self, v: list[float], legal: Sequence[int], vec: np.ndarray) -> int:
        units = int(v[self._units_at])
        moai = int(v[self._hand_at + MOAI])
        wood = v[self._wood_at]
        cards = int(v[self._pile_at]) + self._in_columns(vec) - _LEFTOVER_CARDS
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

    def _pick(self, legal: Sequence[int], scores: list[float]) -> int:
        """The best-scored action; the generator breaks exact ties."""
        low = max(scores) - _EPS
        best = [a for a, s in zip(legal, scores, strict=True) if s >= low]
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
        vec = observation["observation"]
        if type(vec) is not np.ndarray or vec.ndim != 1:
            vec = np.asarray(vec).reshape(-1)
        return self.act_on(vec, mask.nonzero()[0].tolist())

    forced_moves_blind = True
    """With one legal action it plays it without reading its observation or its generator."""

    seed_resets = True
    """After ``seed(s)`` it decides exactly as a bot built afresh and seeded with ``s``: its
    generator is its only state (the memo tables hold pure valuations), so an env may keep one
    bot from episode to episode and reseed it."""

    def act_on(self, vector: np.ndarray, legal: Sequence[int]) -> int:
        """:meth:`act` from the parts of the observation dict, for envs that have them apart.

        Args:
            vector: The seat's ``observation`` vector (one-dimensional, as ``observe`` gives).
            legal: The ids set in its ``action_mask``, ascending (the engine's legal actions).

        Returns:
            The action :meth:`act` returns for ``{"observation": vector, "action_mask": m}``
            with ``m`` the mask of ``legal``; the generator is used exactly as there.

        Raises:
            ValueError: When ``legal`` is empty (this seat is not to act).
        """
        if not legal:
            raise ValueError("no legal action in the mask; this agent is not to act")
        if len(legal) == 1:  # forced moves need no thought
            return legal[0]
        # The legal actions name the phase: each phase has its own range of action ids.
        return self._handlers[_PHASE_OF_ACTION[legal[0]]](self, vector.take(self._keep).tolist(),
                                                          legal, vector)

    _handlers = (_act_buy, _act_play, _act_draw, _act_offer, _act_supply, _act_split)


class _Gains:
    """The values of adding cards to the own display, for one decision."""

    __slots__ = ("_best", "_buy", "bot", "disp", "est")

    def __init__(self, bot: RapaNuiHeuristic, est: _Estimate, disp: list[float]) -> None:
        self.bot = bot
        self.est = est
        self.disp = disp  # every seat's display counts, ego order, 7 per seat
        self._buy: list[float] | None = None
        self._best = 0.0

    def value(self, t: int, count: int) -> tuple[float, float]:
        """Value of adding ``count`` cards of id ``t`` to the own display now.

        Also returns what a scoring of ``t`` gives now, own units minus the opponents'.
        """
        key = (t, count, *self.disp[t::NUM_CARD_TYPES])
        delta, now = self.bot._step_memo.get(key) or self.bot._step(key)
        est = self.est
        value = est.coef[t] * delta
        if t >= HG:
            buy = self._buy
            if buy is None:
                # The gain of buying each kind, and the best purchase (0 if none pays):
                # max(0.0, ...) has the loop's value.
                buy = self._buy = [
                    _purchase_gain(est, self.disp[HG + k], k) for k in range(NUM_KINDS)
                ]
                self._best = max(0.0, *buy)
            # H&G also make every later purchase of their kind cheaper, once per own turn:
            # only that kind's purchase changes, so the best is the others' best or it.
            k = t - HG
            best = max(0.0, *buy[:k], *buy[k + 1 :], _purchase_gain(est, self.disp[t] + count, k))
            value += est.per_turn * (best - self._best)
        elif t == MOAI:
            value += est.moai_value
        return value, now


class _DrawValues:
    """What the draw orders of one decision are scored with, each part worked out when read.

    Most decisions read the values of a few card ids and never the unseen pool's.
    """

    __slots__ = (
        "_by_id",
        "_disp",
        "_end",
        "_expected_hand",
        "_expected_reveal",
        "_gains",
        "_hand",
        "_pool",
        "_reveal",
        "bot",
        "can_build",
        "pile",
        "v",
    )

    def __init__(
        self, bot: RapaNuiHeuristic, v: list[float], gains: _Gains, by_id: list[int]
    ) -> None:
        self.bot = bot
        self.v = v
        self._gains = gains
        self._by_id = by_id
        self._disp = gains.disp
        self.pile = int(v[bot._pile_at])
        self.can_build = v[bot._wood_at] >= MOAI_COST
        self._hand: list[float | None] = [None] * NUM_CARD_TYPES
        self._reveal: list[float | None] = [None] * NUM_CARD_TYPES
        self._pool: tuple[list[float], float] | None = None
        self._expected_hand: float | None = None
        self._expected_reveal: float | None = None
        self._end: float | None = None

    def hand(self, t: int) -> float:
        """A card of id ``t`` taken into the hand: a share of playing it later."""
        got = self._hand[t]
        if got is None:
            value, now = self._gains.value(t, 1)
            got = self._hand[t] = _HAND_SHARE * max(0.0, value)
            if self._reveal[t] is None:  # the same scoring value a reveal of t reads
                self._reveal[t] = self._gains.est.units[t] * now
        return got

    def reveal(self, t: int) -> float:
        """The turn scoring of a revealed card of id ``t``, own gain minus the opponents'."""
        got = self._reveal[t]
        if got is None:
            key = (t, 1, *self._disp[t::NUM_CARD_TYPES])
            now = (self.bot._step_memo.get(key) or self.bot._step(key))[1]
            got = self._reveal[t] = self._gains.est.units[t] * now
        return got

    def pool(self) -> tuple[list[float], float]:
        """The unseen pool (other hands and the draw pile) per card id, and its size (1 if 0).

        Every count is a whole number, so the order of the subtractions does not matter.
        """
        if self._pool is None:
            bot = self.bot
            v = self.v
            disp = self._disp
            hand = bot._hand_at
            held = v[hand : hand + NUM_CARD_TYPES]
            held[MOAI] += v[bot._removed_at]
            left = list(map(sub, map(sub, bot._totals, self._by_id), held))
            for j in range(0, len(disp), NUM_CARD_TYPES):
                left = list(map(sub, left, disp[j : j + NUM_CARD_TYPES]))
            # x if x > 0.0 else 0.0 is max(0.0, x), ties included.
            pool = [x if x > 0.0 else 0.0 for x in left]
            self._pool = (pool, sum(pool) or 1.0)
        return self._pool

    def _pool_mean(self, value: Callable[[int], float]) -> float:
        """``value`` of a refill's card: its mean over the unseen pool."""
        pool, total = self.pool()
        return sum(map(mul, pool, [value(t) for t in range(NUM_CARD_TYPES)])) / total

    def expected_hand(self) -> float:
        """:meth:`hand` of a refill's card."""
        if self._expected_hand is None:
            self._expected_hand = self._pool_mean(self.hand)
        return self._expected_hand

    def expected_reveal(self) -> float:
        """:meth:`reveal` of a refill's front card."""
        if self._expected_reveal is None:
            self._expected_reveal = self._pool_mean(self.reveal)
        return self._expected_reveal

    def end(self) -> float:
        """Value of ending the game now: a bonus when leading, a penalty when behind.

        Counted only when this turn's draws may end the game (fewer than 8 cards in the pile).
        """
        if self._end is None:
            self._end = 0.0
            if self.pile < 2 * COLUMN_SIZE:
                margin = self.bot._margin(self.v, self._gains.est)
                self._end = (_END_VALUE if margin > 0 else -_END_VALUE) + margin
        return self._end
