"""A rule-based Rapa Nui player that decides from its own observation vector only.

The bot reads the ego-centric vector of :class:`~tabletop_gym.envs.rapa_nui.observer.
RapaNuiObserver` by slice offsets and values every option in "VP-equivalents": victory points,
wood (worth less than a VP, more while a Moai waits in hand), offering cards (worth the estimated
final value of their kind) and the expected yield of display cards over the scorings that remain.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tabletop_gym.core.game import Game
from tabletop_gym.core.observer import Observer
from tabletop_gym.envs.rapa_nui.rules import (
    BUY,
    BUY_BASE_COST,
    COLUMN_SIZE,
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
_REVEAL_SHARE = (0.24, 0.18, 0.18, 0.10, 0.10, 0.10, 0.10)
# Cards a turn draws on average (mostly single plays, sometimes pairs of H&G).
_DRAWS_PER_TURN = 1.3
# Cards typically still lying in the other columns when the last refill fails.
_LEFTOVER_CARDS = 6
# Prior value of an offering card of a kind the stone does not rank yet (the mean of 3/2/1/0).
_PRIOR_KIND_VALUE = 1.5
# Stone cards at which the current ranking is trusted fully rather than the prior.
_STONE_TRUST = 10.0
# Wood value per unit: a late floor (5 wood = 1 VP plus cheap H&G plays) and an early premium
# (wood turns into Moai worth 4 VP plus Moai scorings).
_WOOD_LATE = 0.25
_WOOD_EARLY = 1.0
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
# Weight of the opponents' expected gain in relative valuations (zero-sum in 2 players).
_OPP_WEIGHT = 1.0
_EPS = 1e-9


def _dense_values(stone: list[float], zero_rule: bool) -> list[int]:
    """Offering value per kind at the end for the stone counts ``stone`` (spec §7.4)."""
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


def _gains(counts: list[float], is_hg: bool) -> list[float]:
    """Units each seat receives when a card of a type is revealed, given its display counts."""
    gains = [1.0 if c >= 1 else 0.0 for c in counts] if is_hg else list(counts)
    top = max(counts)
    # The majority bonus goes only to a sole leader with at least 2 cards (spec §4).
    if top >= 2 and counts.count(top) == 1:
        gains[counts.index(top)] += 1.0
    return gains


class _View:
    """The decoded parts of one observation vector (ego order: index 0 is the observing seat)."""

    __slots__ = (
        "active",
        "columns",
        "displays",
        "draws_left",
        "fd_counts",
        "hand",
        "hold",
        "hold_counts",
        "moai_units",
        "own_fd",
        "phase",
        "pile",
        "removed",
        "stone",
        "stone_fd",
        "supply",
        "vp",
        "wood",
    )


class RapaNuiHeuristic:
    """Rapa Nui baseline bot: explainable rules that value each option in VP-equivalents.

    Strategy:

    * **Wood economy.** Wood is worth more early (it becomes Moai) and while a Moai in hand
      waits for 7 wood; Woodcutters are valued by the wood their future scorings bring.
    * **Display cards.** Each card played is valued by the expected units of the scorings still
      to come, relative to the opponents (majority bonuses won or broken count too); H&G also
      earn their cheaper offering purchases.
    * **Moai timing.** Build when affordable (4 VP at the end, Moai scorings, an offering round
      to steer); never spend the wood of a pending Moai on a purchase; take Moai units as wood
      only while a Moai in hand lacks wood, otherwise as VP.
    * **Priests** for VP, valued like the other display cards.
    * **Buying** an offering card when its estimated final value beats its wood cost (the kind's
      rank on the stone, blended with a prior while the stone is thin).
    * **Draw order.** Every order of the remaining draws is scored: the cards taken (by their
      later play value, a third unbuildable Moai penalised) plus the turn scoring of the last
      exposed card for oneself minus the opponents (a refilled column counts as the expected
      card of the unseen pool). When the pile is nearly out, it ends the game if leading and
      avoids it if behind.
    * **Offerings.** Place the card (and choose the supply kind) that maximises the value of the
      own holdings on the final stone minus the opponents' estimated holdings, i.e. raise the
      kinds one holds most and give up the ones held least.

    The bot reads only its observation dict; the random generator only breaks ties.
    """

    name = "heuristic"

    def __init__(self, game: Game, observer: Observer, rng: np.random.Generator | None = None):
        """Bind the bot to a game config and its observation layout.

        Args:
            game: The Rapa Nui game (only its config switches are read).
            observer: The observer whose layout the observations follow.
            rng: Generator used to break ties between equally valued actions.
        """
        self.game = game
        self.observer = observer
        self.rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
        cfg: Any = game.config
        self._n = int(cfg.num_players)
        self._zero_rule = getattr(cfg, "zero_count_kind_value", "zero") == "zero"
        self._per_unit = getattr(cfg, "moai_choice", "per_unit") == "per_unit"
        self._totals = card_totals(self._n)
        sl = observer.layout.slices
        # Slice offsets are fixed by the layout; caching them keeps each decision cheap.
        self._o = {name: s.start for name, s in sl.items()}
        o = self._o
        self._col_lo = o["columns"]
        self._col_hi = o["columns"] + NUM_COLUMNS * COLUMN_SIZE * NUM_CARD_TYPES

    def seed(self, seed: int | None) -> None:
        """Reseed the tie-breaking generator."""
        self.rng = np.random.default_rng(seed)

    # --- decoding -------------------------------------------------------------------------------

    def _decode(self, vec: np.ndarray) -> _View:
        """Split the vector into plain Python lists (faster to read than numpy scalars)."""
        o = self._o
        n = self._n
        v = vec.tolist()
        w = _View()
        ph = o["phase"]
        w.phase = v[ph : ph + 7].index(1.0)
        a = o["active_player"]
        w.active = v[a : a + 4].index(1.0) if 1.0 in v[a : a + 4] else 0
        w.draws_left = int(v[o["draws_left"]])
        w.moai_units = int(v[o["moai_units"]])
        h = o["own_hand"]
        w.hand = [int(x) for x in v[h : h + NUM_CARD_TYPES]]
        h = o["own_holdings"]
        w.hold = v[h : h + NUM_KINDS]
        h = o["own_face_down"]
        w.own_fd = v[h : h + NUM_KINDS]
        d = o["displays"]
        w.displays = [v[d + j * NUM_CARD_TYPES : d + (j + 1) * NUM_CARD_TYPES] for j in range(n)]
        w.wood = v[o["wood"] : o["wood"] + n]
        w.vp = v[o["vp"] : o["vp"] + n]
        w.hold_counts = v[o["holding_counts"] : o["holding_counts"] + n]
        w.fd_counts = v[o["face_down_counts"] : o["face_down_counts"] + n]
        s = o["stone_face_up"]
        w.stone = v[s : s + NUM_KINDS]
        w.stone_fd = v[o["stone_face_down"]]
        s = o["supply"]
        w.supply = v[s : s + NUM_KINDS]
        w.pile = int(v[o["draw_pile"]])
        w.removed = int(v[o["removed_moai"]])
        cols: list[list[int]] = [[], [], [], []]
        # One-hot entries: index = (column * 4 + position) * 7 + card id, front position first.
        for i in np.flatnonzero(vec[self._col_lo : self._col_hi]).tolist():
            slot, card = divmod(i, NUM_CARD_TYPES)
            cols[slot // COLUMN_SIZE].append(card)
        w.columns = cols
        return w

    # --- shared estimates -----------------------------------------------------------------------

    def _remaining_scorings(self, w: _View) -> float:
        """Turn scorings still expected in the game (all seats together)."""
        cards = w.pile + sum(len(c) for c in w.columns) - _LEFTOVER_CARDS
        return max(0.0, cards / _DRAWS_PER_TURN)

    def _stage(self, w: _View) -> float:
        """Share of the game still ahead: 1 at the start, 0 at the end."""
        total = START_PILE + NUM_COLUMNS * COLUMN_SIZE - _LEFTOVER_CARDS
        return min(1.0, self._remaining_scorings(w) * _DRAWS_PER_TURN / total)

    def _wood_value(self, w: _View, stage: float) -> float:
        """VP-equivalent of one wood now."""
        value = _WOOD_LATE + (_WOOD_EARLY - _WOOD_LATE) * stage
        if w.hand[MOAI] and w.wood[0] < MOAI_COST and stage > 0.1:
            value += _WOOD_SAVING
        return value

    def _stone_counts(self, w: _View) -> list[float]:
        """Stone cards per kind as far as this seat knows: face up plus own face down."""
        return [w.stone[k] + w.own_fd[k] for k in range(NUM_KINDS)]

    def _kind_estimates(self, w: _View) -> list[float]:
        """Expected final VP per offering card of each kind."""
        stone = self._stone_counts(w)
        now = _dense_values(stone, self._zero_rule)
        total = sum(stone) + w.stone_fd - sum(w.own_fd)
        trust = min(1.0, total / _STONE_TRUST)
        # Late in the game few offering rounds remain, so the present ranking is what counts.
        trust = max(trust, 1.0 - self._stage(w))
        return [trust * now[k] + (1.0 - trust) * _PRIOR_KIND_VALUE for k in range(NUM_KINDS)]

    def _opp_agg(self, xs: list[float]) -> float:
        """Aggregate of the opponents' values (mean, leaning to the leader in 3-4 players)."""
        if not xs:
            return 0.0
        if len(xs) == 1:
            return xs[0]
        return 0.5 * (sum(xs) / len(xs)) + 0.5 * max(xs)

    def _rel_gain(self, displays: list[list[float]], t: int) -> float:
        """Own units minus the opponents' (aggregated) units of a scoring of card id ``t``."""
        g = _gains([d[t] for d in displays], t >= HG)
        return g[0] - _OPP_WEIGHT * self._opp_agg(g[1:])

    def _units_value(self, t: int, wv: float, kv: list[float], w: _View) -> float:
        """VP-equivalent of one unit of a scoring of card id ``t``."""
        if t == WOODCUTTER:
            return wv
        if t == PRIEST:
            return 1.0
        if t == MOAI:
            return max(1.0, wv)
        k = t - HG
        return kv[k] if w.supply[k] > 0 else 0.0

    def _buy_surplus(self, hg: list[float], w: _View, wv: float, kv: list[float]) -> float:
        """Best gain of one purchase given own H&G counts ``hg`` per kind (0 if none pays)."""
        best = 0.0
        for k in range(NUM_KINDS):
            cost = max(0.0, BUY_BASE_COST - hg[k])
            best = max(best, kv[k] - cost * wv)
        return best

    def _scores(self, w: _View) -> tuple[float, float]:
        """Estimated final scores if the game ended now: own and the best opponent's."""
        stone = self._stone_counts(w)
        vals = _dense_values(stone, self._zero_rule)
        d = w.displays
        mine = (
            w.vp[0]
            + MOAI_END_VP * d[0][MOAI]
            + w.wood[0] // WOOD_PER_VP
            + sum(w.hold[k] * vals[k] for k in range(NUM_KINDS))
        )
        best = -1e9
        for j in range(1, self._n):
            # Opponents' kinds are hidden; they gain mostly kinds they have H&G of.
            weights = [1.0 + 2.0 * (d[j][HG + k] >= 1) for k in range(NUM_KINDS)]
            avg = sum(weights[k] * vals[k] for k in range(NUM_KINDS)) / sum(weights)
            sc = w.vp[j] + MOAI_END_VP * d[j][MOAI] + w.wood[j] // WOOD_PER_VP
            best = max(best, sc + w.hold_counts[j] * avg)
        return mine, best

    # --- play values ----------------------------------------------------------------------------

    def _play_values(self, w: _View, stage: float, wv: float, kv: list[float]) -> list[float]:
        """Value of adding one card of each id to the own display now (Moai: building it)."""
        r = self._remaining_scorings(w)
        my_turns = r / self._n
        d = w.displays
        hg_now = [d[0][HG + k] for k in range(NUM_KINDS)]
        surplus_now = self._buy_surplus(hg_now, w, wv, kv)
        out = []
        for t in range(NUM_CARD_TYPES):
            before = self._rel_gain(d, t)
            after_disp = [[*d[0][:t], d[0][t] + 1, *d[0][t + 1 :]], *d[1:]]
            after = self._rel_gain(after_disp, t)
            value = r * _REVEAL_SHARE[t] * self._units_value(t, wv, kv, w) * (after - before)
            if t >= HG:
                # A cheaper purchase every own turn from here on.
                hg_after = list(hg_now)
                hg_after[t - HG] += 1
                value += my_turns * (self._buy_surplus(hg_after, w, wv, kv) - surplus_now)
            elif t == MOAI:
                value += MOAI_END_VP + _OFFER_ROUND_VALUE - MOAI_COST * wv
            out.append(value)
        return out

    def _act_play(self, w: _View, legal: list[int]) -> int:
        stage = self._stage(w)
        wv = self._wood_value(w, stage)
        kv = self._kind_estimates(w)
        pv = self._play_values(w, stage, wv, kv)
        scores = []
        for a in legal:
            if a == PLAY_WOODCUTTER:
                val = pv[WOODCUTTER]
            elif a == PLAY_PRIEST:
                val = pv[PRIEST]
            elif a == PLAY_MOAI:
                val = pv[MOAI]
            elif PLAY_HG <= a < PLAY_HG + 3 * NUM_KINDS:
                k, c1 = divmod(a - PLAY_HG, 3)
                val = self._hg_group_value(w, k, c1 + 1, stage, wv, kv)
            else:  # REMOVE_MOAI: forced or voluntary; never better than building
                val = -_STUCK_MOAI_PENALTY
            scores.append(val)
        return self._pick(legal, scores)

    def _hg_group_value(
        self, w: _View, k: int, count: int, stage: float, wv: float, kv: list[float]
    ) -> float:
        """Value of playing ``count`` H&G of kind ``k`` at once (cost ``count - 1`` wood)."""
        r = self._remaining_scorings(w)
        t = HG + k
        d = w.displays
        before = self._rel_gain(d, t)
        after_disp = [[*d[0][:t], d[0][t] + count, *d[0][t + 1 :]], *d[1:]]
        after = self._rel_gain(after_disp, t)
        value = r * _REVEAL_SHARE[t] * self._units_value(t, wv, kv, w) * (after - before)
        hg_now = [d[0][HG + j] for j in range(NUM_KINDS)]
        hg_after = list(hg_now)
        hg_after[k] += count
        value += (r / self._n) * (
            self._buy_surplus(hg_after, w, wv, kv) - self._buy_surplus(hg_now, w, wv, kv)
        )
        return value - (count - 1) * wv + (count - 1) * _EXTRA_DRAW_VALUE

    # --- buying ---------------------------------------------------------------------------------

    def _act_buy(self, w: _View, legal: list[int]) -> int:
        stage = self._stage(w)
        wv = self._wood_value(w, stage)
        kv = self._kind_estimates(w)
        wood = w.wood[0]
        d0 = w.displays[0]
        scores = []
        for a in legal:
            if a == NO_BUY:
                scores.append(0.0)
                continue
            k = a - BUY
            cost = max(0.0, BUY_BASE_COST - d0[HG + k])
            val = kv[k] - cost * wv
            if w.hand[MOAI] and wood >= MOAI_COST > wood - cost:
                # Never give up this turn's Moai for a card.
                val -= 10.0
            scores.append(val)
        return self._pick(legal, scores)

    # --- drawing --------------------------------------------------------------------------------

    def _act_draw(self, w: _View, legal: list[int]) -> int:
        stage = self._stage(w)
        wv = self._wood_value(w, stage)
        kv = self._kind_estimates(w)
        pv = self._play_values(w, stage, wv, kv)
        # What a card in hand is worth: a share of playing it later.
        hand_val = [_HAND_SHARE * max(0.0, x) for x in pv]
        reveal = [
            self._units_value(t, wv, kv, w) * self._rel_gain(w.displays, t)
            for t in range(NUM_CARD_TYPES)
        ]
        # The unseen pool (other hands and the draw pile) gives the refill's expected card.
        pool = list(self._totals)
        for disp in w.displays:
            for t in range(NUM_CARD_TYPES):
                pool[t] -= disp[t]
        for col in w.columns:
            for t in col:
                pool[t] -= 1
        for t in range(NUM_CARD_TYPES):
            pool[t] -= w.hand[t]
        pool[MOAI] -= w.removed
        pool = [max(0.0, x) for x in pool]
        ptot = sum(pool) or 1.0
        exp_hand = sum(pool[t] * hand_val[t] for t in range(NUM_CARD_TYPES)) / ptot
        exp_reveal = sum(pool[t] * reveal[t] for t in range(NUM_CARD_TYPES)) / ptot
        end_val: float | None = None
        if w.pile < COLUMN_SIZE:
            mine, best = self._scores(w)
            margin = mine - best
            end_val = (_END_VALUE if margin > 0 else -_END_VALUE) + margin
        moai_in_hand = w.hand[MOAI]
        can_build = w.wood[0] >= MOAI_COST
        best_first: dict[int, float] = {}
        for a in legal:
            c0 = a - DRAW
            val = self._seq_value(
                [list(col) for col in w.columns],
                w.pile,
                c0,
                w.draws_left,
                moai_in_hand,
                can_build,
                hand_val,
                reveal,
                exp_hand,
                exp_reveal,
                end_val,
            )
            best_first[a] = val
        return self._pick(legal, [best_first[a] for a in legal])

    def _seq_value(
        self,
        cols: list[list[int]],
        pile: int,
        c: int,
        draws: int,
        moai: int,
        can_build: bool,
        hand_val: list[float],
        reveal: list[float],
        exp_hand: float,
        exp_reveal: float,
        end_val: float | None,
    ) -> float:
        """Best value of the draw sequences that start with column ``c`` (-1 marks unseen cards)."""
        col = cols[c]
        card = col[0]
        gain = exp_hand if card < 0 else hand_val[card]
        if card == MOAI:
            moai += 1
            if moai >= HAND_SIZE and not can_build:
                gain -= _STUCK_MOAI_PENALTY
        rest = col[1:]
        if not rest:
            if pile < COLUMN_SIZE:
                # Emptying a column with fewer than 4 cards left ends the game at once.
                return gain + (end_val if end_val is not None else 0.0)
            pile -= COLUMN_SIZE
            rest = [-1] * COLUMN_SIZE
        new_cols = [*cols[:c], rest, *cols[c + 1 :]]
        if draws == 1:
            front = rest[0]
            return gain + (exp_reveal if front < 0 else reveal[front])
        best = -1e18
        for c2 in range(NUM_COLUMNS):
            if new_cols[c2]:
                v = self._seq_value(
                    new_cols,
                    pile,
                    c2,
                    draws - 1,
                    moai,
                    can_build,
                    hand_val,
                    reveal,
                    exp_hand,
                    exp_reveal,
                    end_val,
                )
                best = max(best, v)
        return gain + best

    # --- offering round -------------------------------------------------------------------------

    def _offer_objective(self, w: _View, hold: list[float], stone: list[float]) -> float:
        """Own holdings' final value minus the opponents' estimated holdings, on ``stone``."""
        vals = _dense_values(stone, self._zero_rule)
        mine = sum(hold[k] * vals[k] for k in range(NUM_KINDS))
        d = w.displays
        opp = []
        for j in range(1, self._n):
            weights = [1.0 + 2.0 * (d[j][HG + k] >= 1) for k in range(NUM_KINDS)]
            tot = sum(weights)
            opp.append(w.hold_counts[j] * sum(weights[k] * vals[k] for k in range(NUM_KINDS)) / tot)
        # Secondary: lift the kinds one holds most, so later rounds keep them on top.
        lift = sum(hold[k] * stone[k] for k in range(NUM_KINDS)) * 0.01
        return mine - 0.5 * self._opp_agg(opp) + lift

    def _act_offer(self, w: _View, legal: list[int]) -> int:
        stone = self._stone_counts(w)
        scores = []
        for a in legal:
            k = a - OFFER
            hold = list(w.hold)
            hold[k] -= 1
            st = list(stone)
            st[k] += 1
            scores.append(self._offer_objective(w, hold, st))
        return self._pick(legal, scores)

    def _act_supply(self, w: _View, legal: list[int]) -> int:
        stone = self._stone_counts(w)
        base = self._offer_objective(w, list(w.hold), stone)
        scores = []
        for a in legal:
            if a == SUPPLY_SKIP:
                scores.append(base)
                continue
            st = list(stone)
            st[a - SUPPLY] += 1
            scores.append(self._offer_objective(w, list(w.hold), st))
        return self._pick(legal, scores)

    # --- Moai scoring ---------------------------------------------------------------------------

    def _act_split(self, w: _View, legal: list[int]) -> int:
        units = w.moai_units
        stage = self._stage(w)
        want_wood = 0
        if w.hand[MOAI] and stage > 0.1:
            # Wood only up to what the Moai waiting in hand need; every other unit is a VP.
            want_wood = max(0, MOAI_COST * min(w.hand[MOAI], 2) - int(w.wood[0]))
        target = MOAI_VP + max(0, units - want_wood)
        if target in legal:
            return target
        # "all_same": either all VP or all wood.
        all_vp = MOAI_VP + units
        if want_wood and w.wood[0] + units >= MOAI_COST and MOAI_VP in legal:
            return MOAI_VP
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
            observation: ``{"observation": float32 vector, "action_mask": int8 vector}``.

        Returns:
            A legal action id.

        Raises:
            ValueError: When the mask has no legal action (this seat is not to act).
        """
        legal = np.flatnonzero(observation["action_mask"]).tolist()
        if not legal:
            raise ValueError("no legal action in the mask; this agent is not to act")
        if len(legal) == 1:
            return legal[0]
        vec = observation["observation"]
        w = self._decode(vec)
        phase = w.phase
        if phase == 0:
            return self._act_buy(w, legal)
        if phase == 1:
            return self._act_play(w, legal)
        if phase == 2:
            return self._act_draw(w, legal)
        if phase == 3:
            return self._act_offer(w, legal)
        if phase == 4:
            return self._act_supply(w, legal)
        if phase == 5:
            return self._act_split(w, legal)
        return legal[0]
