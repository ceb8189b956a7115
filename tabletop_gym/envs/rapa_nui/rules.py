"""Rapa Nui (KOSMOS 2011, 2–4 players): the rules engine.

Pure standard library, deterministic: every chance event (the shuffle of the 50 Rapa Nui cards)
is drawn in :meth:`RapaNuiGame.new_initial_state` from the ``random.Random`` it is given; the rest
of the game is a pure function of the actions. The authority is the rules reference
``docs/rules/rapa_nui.md`` (sections cited as §n below).

Card ids (Rapa Nui cards, in hands, displays, the columns and the draw pile):

====  ===========================  =====================================
id    card                         count (50-card deck + start cards)
====  ===========================  =====================================
0     Woodcutter                   12 + 1 per seat (start card)
1     Priest                       9
2     Moai                         9
3     H&G Fish                     5 + 1 per seat other than seat 0
4     H&G Grain                    5 + 1 per seat other than seat 1
5     H&G Paper mulberry           5 + 1 per seat other than seat 2
6     H&G Sweet potato             5 + 1 per seat other than seat 3
====  ===========================  =====================================

Offering kinds (offering cards, the supply stacks, the offering stone): 0 Fish, 1 Grain,
2 Paper mulberry, 3 Sweet potato. H&G card id = 3 + kind.

Seat *i* starts with its Woodcutter in the display, one H&G of every kind except kind *i* in
hand, one offering card of each kind and ``2 + i`` wood; seat 0 starts (§2, Decisions table).

Action ids: :data:`~.actions.ACTIONS` (:mod:`.actions`), 45 ids as named ranges, one layout for
every player count and phase (playing *c* H&G of kind *k* is
``ACTIONS["play_hg"].encode(k, c - 1)``).

The JSON ``"state"`` object and its loader live in
:mod:`tabletop_gym.envs.rapa_nui.state_json`, which also holds the consistency checks behind
:meth:`RapaNuiState.check_invariants`.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence
from typing import Any, ClassVar

from tabletop_gym.core.game import TERMINAL, Game, GameConfig, State, as_int, shuffle
from tabletop_gym.envs.rapa_nui import events as ev
from tabletop_gym.envs.rapa_nui.actions import (
    ACTIONS as ACTIONS,
    BUY as BUY,
    DRAW as DRAW,
    HG_ID,
    HG_OF,
    MOAI_VP as MOAI_VP,
    NO_BUY as NO_BUY,
    NUM_ACTIONS as NUM_ACTIONS,
    OFFER as OFFER,
    PLAY_HG as PLAY_HG,
    PLAY_HG_RANGE as PLAY_HG_RANGE,
    PLAY_MOAI as PLAY_MOAI,
    PLAY_PRIEST as PLAY_PRIEST,
    PLAY_WOODCUTTER as PLAY_WOODCUTTER,
    REMOVE_MOAI as REMOVE_MOAI,
    SUPPLY as SUPPLY,
    SUPPLY_SKIP as SUPPLY_SKIP,
    play_hg_action as play_hg_action,
)
from tabletop_gym.envs.rapa_nui.components import (
    _BUY,
    _DRAW,
    _OFFER,
    _PLAY,
    _SPLIT,
    _SUPPLY,
    _TERMINAL,
    BUY_BASE_COST as BUY_BASE_COST,
    CARD_NAMES as CARD_NAMES,
    COLUMN_SIZE as COLUMN_SIZE,
    DECK_COUNTS as DECK_COUNTS,
    FISH as FISH,
    GRAIN as GRAIN,
    HAND_SIZE as HAND_SIZE,
    HG as HG,
    KIND_NAMES as KIND_NAMES,
    MAX_DRAWS as MAX_DRAWS,
    MAX_FACE_DOWN as MAX_FACE_DOWN,
    MAX_FACE_UP_UNLIMITED as MAX_FACE_UP_UNLIMITED,
    MAX_HELD_UNLIMITED as MAX_HELD_UNLIMITED,
    MAX_MOAI_UNITS as MAX_MOAI_UNITS,
    MAX_SCORINGS as MAX_SCORINGS,
    MAX_TURNS as MAX_TURNS,
    MAX_VP as MAX_VP,
    MAX_WOOD as MAX_WOOD,
    MOAI as MOAI,
    MOAI_COST as MOAI_COST,
    MOAI_END_VP as MOAI_END_VP,
    NUM_CARD_TYPES as NUM_CARD_TYPES,
    NUM_COLUMNS as NUM_COLUMNS,
    NUM_KINDS as NUM_KINDS,
    OFFERING_STACK_SIZE as OFFERING_STACK_SIZE,
    PAPER_MULBERRY as PAPER_MULBERRY,
    PHASES as PHASES,
    PRIEST as PRIEST,
    START_PILE as START_PILE,
    START_WOOD as START_WOOD,
    SWEET_POTATO as SWEET_POTATO,
    WOOD_PER_VP as WOOD_PER_VP,
    WOODCUTTER as WOODCUTTER,
    card_totals as card_totals,
)
from tabletop_gym.envs.rapa_nui.events import EVENTS
from tabletop_gym.envs.rapa_nui.state_json import check_state, load_state


def _action_event(action: int) -> tuple[int, tuple[int, ...]]:
    """The event an action makes, and its arguments after the seat.

    Draws and offers aside: those are told where the change is made
    (:meth:`RapaNuiState._draw`, before the scoring it may trigger; an offer says whether the
    card went face down).
    """
    if action < NO_BUY:
        return ev.BOUGHT, (action - BUY,)
    if action in (NO_BUY, SUPPLY_SKIP):
        return ev.PASSED, ()
    if action in (PLAY_WOODCUTTER, PLAY_PRIEST):
        return ev.PLAYED, (action - PLAY_WOODCUTTER, 1)
    if action == PLAY_MOAI:
        return ev.PLAYED, (MOAI, 1)
    if action == REMOVE_MOAI:
        return ev.MOAI_REMOVED, ()
    if action < REMOVE_MOAI:
        kind, extra = PLAY_HG_RANGE.decode(action)
        return ev.PLAYED, (HG + kind, extra + 1)
    if action < OFFER:
        return ev.DREW, (action - DRAW,)
    if action < SUPPLY:
        return ev.OFFERED, ()
    if action < SUPPLY_SKIP:
        return ev.SUPPLIED, (action - SUPPLY,)
    return ev.SPLIT, (action - MOAI_VP,)


_ACTION_EVENT = tuple(_action_event(a) for a in range(NUM_ACTIONS))


def buy_cost(hg_in_display: int) -> int:
    """Wood cost of an offering card given the matching H&G cards in the display (§3 phase 1)."""
    return max(0, BUY_BASE_COST - hg_in_display)


def offering_values(stone: list[int], zero_count_kind_value: str = "zero") -> list[int]:
    """VP per held offering card of each kind at the end (§7.4).

    Args:
        stone: Cards of each kind on the offering stone (face up plus face down).
        zero_count_kind_value: ``"zero"``: a kind absent from the stone is worth 0 and the
            others are ranked densely; ``"ranked"``: every kind is ranked densely.

    Returns:
        Four values: ``3 − (number of distinct counts strictly greater)``, not below 0; all 0
        when the stone is empty.
    """
    if not any(stone):
        return [0] * NUM_KINDS
    distinct = set(stone)
    values = []
    for c in stone:
        if c == 0 and zero_count_kind_value == "zero":
            values.append(0)
        else:
            values.append(max(0, 3 - sum(1 for d in distinct if d > c)))
    return values


@dataclasses.dataclass(frozen=True)
class RapaNuiConfig(GameConfig):
    """Configuration of Rapa Nui; the switches are the Decisions table of the rules reference.

    Attributes:
        num_players: 2, 3 or 4 seats.
        allow_voluntary_moai_discard: With three Moai in hand, also allow removing one when the
            player could build (wood ≥ 7); by default removal is only the forced option (§3).
        active_supply_offering_optional: Let the active player skip the supply card of an
            offering round (§3.1.4).
        moai_choice: ``"per_unit"``: each Moai unit is wood or VP separately; ``"all_same"``:
            all of a player's units go the same way (§4).
        offering_supply_limited: 25 offering cards per kind; gains from an empty stack are
            lost (§1.4). False: unlimited stacks.
        zero_count_kind_value: ``"zero"``: kinds absent from the stone are worth 0;
            ``"ranked"``: pure dense ranking (§7.4).
        hunter_gatherer_majority_bonus: At an H&G scoring the sole majority (≥ 2 of that kind)
            gets one more offering card (§4). Only secondary sources state this bonus (the
            rules summary S1 leaves it out), so False plays without it; the Woodcutter, Priest
            and Moai bonuses are not affected.
    """

    num_players: int = dataclasses.field(default=2, metadata={"range": (2, 4)})
    allow_voluntary_moai_discard: bool = False
    active_supply_offering_optional: bool = False
    moai_choice: str = dataclasses.field(
        default="per_unit", metadata={"choices": ("per_unit", "all_same")}
    )
    offering_supply_limited: bool = True
    zero_count_kind_value: str = dataclasses.field(
        default="zero", metadata={"choices": ("zero", "ranked")}
    )
    hunter_gatherer_majority_bonus: bool = True


class RapaNuiGame(Game):
    """Rapa Nui for 2–4 players: the state factory and the facts about the game."""

    name: ClassVar[str] = "rapa_nui"
    config_class: ClassVar[type[GameConfig]] = RapaNuiConfig
    phases: ClassVar[tuple[str, ...]] = PHASES
    config: RapaNuiConfig

    @property
    def num_distinct_actions(self) -> int:
        """45 action ids; see the module docstring."""
        return NUM_ACTIONS

    @property
    def max_game_length(self) -> int:
        """Upper bound on the number of decisions of one game.

        At most 48 turns and 48 draws (see :data:`MAX_DRAWS`). Each turn has one purchase and one
        play decision. Offering rounds happen once per Moai built, at most 9 times, each with at
        most N + 1 decisions (N − 1 face-up cards, one face-down card, one supply card). Each of
        the at most 47 turn scorings asks at most N Moai splits.
        """
        n = self.num_players
        return 2 * MAX_TURNS + MAX_DRAWS + DECK_COUNTS[MOAI] * (n + 1) + MAX_SCORINGS * n

    @property
    def max_held_per_kind(self) -> int:
        """Upper bound on the offering cards of one kind a seat can hold."""
        return OFFERING_STACK_SIZE if self.config.offering_supply_limited else MAX_HELD_UNLIMITED

    @property
    def max_held_total(self) -> int:
        """Upper bound on the offering cards a seat can hold in all."""
        if self.config.offering_supply_limited:
            return NUM_KINDS * OFFERING_STACK_SIZE
        return NUM_KINDS + MAX_TURNS + 2 * MAX_SCORINGS

    @property
    def max_face_up_per_kind(self) -> int:
        """Upper bound on the face-up cards of one kind on the offering stone."""
        if self.config.offering_supply_limited:
            return OFFERING_STACK_SIZE
        return MAX_FACE_UP_UNLIMITED

    @property
    def score_bounds(self) -> tuple[float, float]:
        """Every part of the score is ≥ 0; each part is capped by the proven maxima.

        Upper bound: 9 Moai × 4 + :data:`MAX_VP` VP tiles + :data:`MAX_WOOD` // 5 + 3 VP per
        offering card held (at most :attr:`max_held_total`).
        """
        hi = (
            DECK_COUNTS[MOAI] * MOAI_END_VP
            + MAX_VP
            + MAX_WOOD // WOOD_PER_VP
            + 3 * self.max_held_total
        )
        return (0.0, float(hi))

    def new_initial_state(self, rng: random.Random) -> RapaNuiState:
        """Deal a game (§2): shuffle the 50 cards, lay 4 columns of 4, the rest is the pile."""
        n = self.num_players
        deck = [card for card, count in enumerate(DECK_COUNTS) for _ in range(count)]
        shuffle(rng, deck)
        s = RapaNuiState(self)
        s._columns = [deck[c * COLUMN_SIZE : (c + 1) * COLUMN_SIZE] for c in range(NUM_COLUMNS)]
        s._pile = deck[NUM_COLUMNS * COLUMN_SIZE :]
        for p in range(n):
            s._displays[p * NUM_CARD_TYPES + WOODCUTTER] = 1
            for kind in range(NUM_KINDS):
                if kind != p:
                    s._hands[p * NUM_CARD_TYPES + HG + kind] = 1
                s._holdings[p * NUM_KINDS + kind] = 1
            s._wood[p] = START_WOOD[p]
        s._supply = [OFFERING_STACK_SIZE - n] * NUM_KINDS
        return s

    def _state_from_dict(self, data: dict[str, Any]) -> RapaNuiState:
        """Build and validate a state from the ``"state"`` object (schema: :mod:`.state_json`)."""
        return load_state(self, data, RapaNuiState)


class RapaNuiState(State):
    """One Rapa Nui position.

    Per-seat data lives in flat lists (seat-major) so that :meth:`clone` copies a handful of
    lists and nothing else.
    """

    EVENTS = EVENTS

    game: RapaNuiGame

    def __init__(self, game: RapaNuiGame) -> None:
        self.game = game
        cfg = game.config
        n = cfg.num_players
        self._n = n
        self._limited = cfg.offering_supply_limited
        self._phase = _BUY
        self._active = 0
        self._cur = 0
        self._draws_left = 0
        self._hands = [0] * (n * NUM_CARD_TYPES)
        self._displays = [0] * (n * NUM_CARD_TYPES)
        self._wood = [0] * n
        self._vp = [0] * n
        self._holdings = [0] * (n * NUM_KINDS)
        self._face_down = [0] * (n * NUM_KINDS)
        self._stone_up = [0] * NUM_KINDS
        self._supply = [OFFERING_STACK_SIZE] * NUM_KINDS
        self._columns: list[list[int]] = [[] for _ in range(NUM_COLUMNS)]
        self._pile: list[int] = []
        self._removed = 0
        self._units = [0] * n
        self._legal: tuple[int, ...] | None = None

    # --- whose turn ---------------------------------------------------------------------------

    def current_player(self) -> int:
        """The seat to decide, or :data:`TERMINAL`."""
        return self._cur

    def phase(self) -> str:
        """One of :data:`PHASES`."""
        return PHASES[self._phase]

    # --- accessors (copies; for the observer and the renderer) --------------------------------

    @property
    def num_players(self) -> int:
        """Number of seats."""
        return self._n

    def active_player(self) -> int:
        """The seat whose turn it is (also after the end: the seat whose turn ended the game)."""
        return self._active

    def decider(self) -> int | None:
        """The seat to decide now; None at the end."""
        return None if self._cur == TERMINAL else self._cur

    def hand(self, player: int) -> list[int]:
        """Hand cards of ``player``, count per card id (private to that seat)."""
        return self._hands[player * NUM_CARD_TYPES : (player + 1) * NUM_CARD_TYPES]

    def hand_size(self, player: int) -> int:
        """Number of hand cards of ``player`` (public)."""
        return sum(self._hands[player * NUM_CARD_TYPES : (player + 1) * NUM_CARD_TYPES])

    def display(self, player: int) -> list[int]:
        """Personal display of ``player``, count per card id (public)."""
        return self._displays[player * NUM_CARD_TYPES : (player + 1) * NUM_CARD_TYPES]

    def wood(self, player: int) -> int:
        """Wood of ``player`` (public)."""
        return self._wood[player]

    def vp(self, player: int) -> int:
        """VP tiles of ``player`` (public)."""
        return self._vp[player]

    def holdings(self, player: int) -> list[int]:
        """Offering cards held by ``player`` per kind (kinds private to that seat)."""
        return self._holdings[player * NUM_KINDS : (player + 1) * NUM_KINDS]

    def holding_count(self, player: int) -> int:
        """Number of offering cards held by ``player`` (public)."""
        return sum(self._holdings[player * NUM_KINDS : (player + 1) * NUM_KINDS])

    def face_down(self, player: int) -> list[int]:
        """Face-down stone cards placed by ``player`` per kind (kinds private to that seat)."""
        return self._face_down[player * NUM_KINDS : (player + 1) * NUM_KINDS]

    def face_down_count(self, player: int | None = None) -> int:
        """Face-down stone cards placed by ``player`` (all seats when None); public."""
        if player is None:
            return sum(self._face_down)
        return sum(self._face_down[player * NUM_KINDS : (player + 1) * NUM_KINDS])

    def stone_face_up(self) -> list[int]:
        """Face-up cards on the offering stone per kind (public)."""
        return list(self._stone_up)

    def stone_totals(self) -> list[int]:
        """All cards on the stone per kind, face-down ones included (hidden until the end)."""
        fd = self._face_down
        return [
            self._stone_up[k] + sum(fd[p * NUM_KINDS + k] for p in range(self._n))
            for k in range(NUM_KINDS)
        ]

    def supply(self) -> list[int]:
        """Cards left in each offering supply stack (public)."""
        return list(self._supply)

    def columns(self) -> list[list[int]]:
        """The four columns of the general display, front card first (public)."""
        return [list(c) for c in self._columns]

    def draw_pile_size(self) -> int:
        """Cards left in the draw pile (public; the order is hidden)."""
        return len(self._pile)

    def removed_moai(self) -> int:
        """Moai removed from the game by the stuck-hand rule (public)."""
        return self._removed

    def draws_left(self) -> int:
        """Cards the active player still has to draw this turn."""
        return self._draws_left

    def moai_units(self, player: int) -> int:
        """Moai units ``player`` still has to split into wood and VP (public)."""
        return self._units[player]

    # --- every seat at once, seat-major (the engine's own lists: read, never change them) ----
    # What the observer reads when an event marked a fact group changed (core/events.py: a
    # listener reads declared accessors); no copies, since it copies what it reads anyway.

    def turn_counters(self) -> tuple[int, int, int, int]:
        """``(phase, active, decider, draws_left)`` at once.

        The index of :meth:`phase` in :data:`PHASES`, :meth:`active_player`,
        :meth:`current_player` and :meth:`draws_left`.
        """
        return self._phase, self._active, self._cur, self._draws_left

    def all_hands(self) -> Sequence[int]:
        """Every seat's hand, count per card id, seat-major (each private to its seat)."""
        return self._hands

    def all_displays(self) -> Sequence[int]:
        """Every seat's display, count per card id, seat-major (public)."""
        return self._displays

    def all_holdings(self) -> Sequence[int]:
        """Every seat's offering cards per kind, seat-major (kinds private to each seat)."""
        return self._holdings

    def all_face_down(self) -> Sequence[int]:
        """Every seat's face-down stone cards per kind, seat-major (kinds private to each)."""
        return self._face_down

    def all_wood(self) -> Sequence[int]:
        """Every seat's wood (public)."""
        return self._wood

    def all_vp(self) -> Sequence[int]:
        """Every seat's VP tiles (public)."""
        return self._vp

    def all_moai_units(self) -> Sequence[int]:
        """Moai units every seat still has to split (public)."""
        return self._units

    def stone_face_up_counts(self) -> Sequence[int]:
        """:meth:`stone_face_up` without the copy."""
        return self._stone_up

    def supply_counts(self) -> Sequence[int]:
        """:meth:`supply` without the copy."""
        return self._supply

    def column(self, c: int) -> Sequence[int]:
        """Column ``c`` of the general display, front card first (public; no copy)."""
        return self._columns[c]

    # --- actions ------------------------------------------------------------------------------

    def _legal_actions(self) -> list[int]:
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        return list(legal)

    def _compute_legal(self) -> tuple[int, ...]:
        ph = self._phase
        p = self._cur
        if ph == _BUY:
            wood = self._wood[p]
            base = p * NUM_CARD_TYPES + HG
            disp = self._displays
            out = [
                BUY + k
                for k in range(NUM_KINDS)
                if (self._supply[k] > 0 or not self._limited)
                and wood >= max(0, BUY_BASE_COST - disp[base + k])
            ]
            out.append(NO_BUY)
            return tuple(out)
        if ph == _PLAY:
            h = self._hands
            b = p * NUM_CARD_TYPES
            wood = self._wood[p]
            if h[b + MOAI] == HAND_SIZE:
                # §3 stuck hand: only an all-Moai hand may (or, short of wood, must) lose one.
                if wood < MOAI_COST:
                    return (REMOVE_MOAI,)
                if self.game.config.allow_voluntary_moai_discard:
                    return (PLAY_MOAI, REMOVE_MOAI)
                return (PLAY_MOAI,)
            out = []
            if h[b + WOODCUTTER]:
                out.append(PLAY_WOODCUTTER)
            if h[b + PRIEST]:
                out.append(PLAY_PRIEST)
            if h[b + MOAI] and wood >= MOAI_COST:
                out.append(PLAY_MOAI)
            for k in range(NUM_KINDS):
                for c in range(1, h[b + HG + k] + 1):
                    if c - 1 <= wood:
                        out.append(HG_ID[k][c - 1])
            return tuple(out)
        if ph == _DRAW:
            return tuple(DRAW + c for c in range(NUM_COLUMNS) if self._columns[c])
        if ph == _OFFER:
            base = p * NUM_KINDS
            return tuple(OFFER + k for k in range(NUM_KINDS) if self._holdings[base + k])
        if ph == _SUPPLY:
            out = [SUPPLY + k for k in range(NUM_KINDS) if self._supply[k] > 0 or not self._limited]
            if self.game.config.active_supply_offering_optional:
                out.append(SUPPLY_SKIP)
            return tuple(out)
        if ph == _SPLIT:
            u = self._units[p]
            if self.game.config.moai_choice == "all_same":
                return (MOAI_VP, MOAI_VP + u)
            return tuple(range(MOAI_VP, MOAI_VP + u + 1))
        return ()

    def _apply_action(self, action: int) -> None:
        self._legal = None
        ph = self._phase
        p = self._cur
        if ph == _BUY:
            if action != NO_BUY:
                k = action - BUY
                self._wood[p] -= max(0, BUY_BASE_COST - self._displays[p * NUM_CARD_TYPES + HG + k])
                self._gain(p, k)
            self._phase = _PLAY
        elif ph == _PLAY:
            self._play(p, action)
        elif ph == _DRAW:
            # The draw tells its own event, before the turn scoring it may trigger tells its.
            self._draw(p, action - DRAW)
            return
        elif ph == _OFFER:
            k = action - OFFER
            self._holdings[p * NUM_KINDS + k] -= 1
            down = p == self._active
            if down:
                self._face_down[p * NUM_KINDS + k] += 1
            else:
                self._stone_up[k] += 1
            self._next_offerer(p)
            on = self._on
            if on is not None:
                on[ev.OFFERED](self, p, k, down)
            return
        elif ph == _SUPPLY:
            if action != SUPPLY_SKIP:
                k = action - SUPPLY
                if self._supply[k] > 0:
                    self._supply[k] -= 1
                self._stone_up[k] += 1
            self._phase = _DRAW
        elif ph == _SPLIT:
            v = action - MOAI_VP
            u = self._units[p]
            self._vp[p] += v
            self._wood[p] += u - v
            self._units[p] = 0
            self._next_splitter(p)
        # Told once the change is made (core/events.py), the turn moved on included.
        on = self._on
        if on is not None:
            code, args = _ACTION_EVENT[action]
            on[code](self, p, *args)

    # The envs hand over only ids they checked against this position's legal actions.
    apply_trusted_action = _apply_action

    def _gain(self, p: int, k: int) -> None:
        """Give ``p`` one offering card of kind ``k`` from the supply (lost if it is empty)."""
        if self._supply[k] > 0:
            self._supply[k] -= 1
            self._holdings[p * NUM_KINDS + k] += 1
        elif not self._limited:
            self._holdings[p * NUM_KINDS + k] += 1

    def _play(self, p: int, action: int) -> None:
        h = self._hands
        b = p * NUM_CARD_TYPES
        self._phase = _DRAW
        if action in (PLAY_WOODCUTTER, PLAY_PRIEST):
            card = action - PLAY_WOODCUTTER
            h[b + card] -= 1
            self._displays[b + card] += 1
            self._draws_left = 1
        elif action == PLAY_MOAI:
            h[b + MOAI] -= 1
            self._displays[b + MOAI] += 1
            self._wood[p] -= MOAI_COST
            self._draws_left = 1
            self._next_offerer(p, start=True)
        elif action == REMOVE_MOAI:
            h[b + MOAI] -= 1
            self._removed += 1
            self._draws_left = 1
        else:
            k, c = HG_OF[action - PLAY_HG]
            c += 1
            h[b + HG + k] -= c
            self._displays[b + HG + k] += c
            self._wood[p] -= c - 1
            self._draws_left = c

    def _next_offerer(self, current: int, start: bool = False) -> None:
        """Move the offering round (§3.1) to the next seat holding cards, else to the supply card.

        The order is every other seat clockwise from the active player's left, then the active
        player; seats without offering cards place nothing and are skipped.
        """
        n = self._n
        a = self._active
        pos = 0 if start else ((current - a) % n or n)
        hold = self._holdings
        for i in range(pos + 1, n + 1):
            q = (a + i) % n
            if any(hold[q * NUM_KINDS : (q + 1) * NUM_KINDS]):
                self._phase = _OFFER
                self._cur = q
                return
        self._cur = a
        if (
            self.game.config.active_supply_offering_optional
            or not self._limited
            or any(self._supply)
        ):
            self._phase = _SUPPLY
        else:
            # Every stack is empty: there is no supply card to place (§1.4), so the round ends.
            self._phase = _DRAW

    def _draw(self, p: int, c: int) -> None:
        col = self._columns[c]
        card = col.pop(0)
        self._hands[p * NUM_CARD_TYPES + card] += 1
        self._draws_left -= 1
        on = self._on
        if not col:
            pile = self._pile
            if len(pile) < COLUMN_SIZE:
                # §6: a column must be refilled and cannot be: the game ends at once.
                self._phase = _TERMINAL
                self._cur = TERMINAL
                self._draws_left = 0
                if on is not None:
                    on[ev.DREW](self, p, c)
                return
            col.extend(pile[:COLUMN_SIZE])
            del pile[:COLUMN_SIZE]
        if on is not None:
            on[ev.DREW](self, p, c)
        if self._draws_left == 0:
            self._score(col[0])

    def _sole_majority(self, card: int) -> int:
        """The seat with strictly the most ``card`` in the display, if it has ≥ 2; else -1."""
        disp = self._displays
        best, seat = 1, -1
        for q in range(self._n):
            c = disp[q * NUM_CARD_TYPES + card]
            if c > best:
                best, seat = c, q
            elif c == best:
                seat = -1
        return seat

    def _moai_units_due(self) -> list[int]:
        """Moai units of a Moai scoring per seat: one per Moai, +1 for the sole majority."""
        bonus = self._sole_majority(MOAI)
        disp = self._displays
        return [disp[q * NUM_CARD_TYPES + MOAI] + (q == bonus) for q in range(self._n)]

    def _score(self, card: int) -> None:
        """Turn scoring of the revealed ``card`` for every seat (§4), then the next turn."""
        n = self._n
        a = self._active
        disp = self._displays
        bonus = self._sole_majority(card)
        if card in (WOODCUTTER, PRIEST):
            gains = self._wood if card == WOODCUTTER else self._vp
            for q in range(n):
                gains[q] += disp[q * NUM_CARD_TYPES + card] + (q == bonus)
        elif card == MOAI:
            self._units = self._moai_units_due()
            if any(self._units):
                self._phase = _SPLIT
                self._next_splitter(a, start=True)
                self._scored(card)
                return
        else:
            k = card - HG
            if not self.game.config.hunter_gatherer_majority_bonus:
                bonus = -1
            # Clockwise from the active player: the order matters only for a short stack (§1.4).
            for i in range(n):
                q = (a + i) % n
                if disp[q * NUM_CARD_TYPES + card]:
                    self._gain(q, k)
                    if q == bonus:
                        self._gain(q, k)
        self._next_turn()
        self._scored(card)

    def _scored(self, card: int) -> None:
        # The turn scoring of ``card`` is done (and the turn moved on): told after the change.
        on = self._on
        if on is not None:
            on[ev.SCORED](self, card)

    def _next_splitter(self, current: int, start: bool = False) -> None:
        """Hand the Moai split to the next seat clockwise from the active one with units."""
        n = self._n
        a = self._active
        first = 0 if start else (current - a) % n + 1
        for i in range(first, n):
            q = (a + i) % n
            if self._units[q]:
                self._phase = _SPLIT
                self._cur = q
                return
        self._next_turn()

    def _next_turn(self) -> None:
        self._active = a = (self._active + 1) % self._n
        self._cur = a
        self._phase = _BUY

    def action_to_string(self, action: int, player: int | None = None) -> str:
        """Readable name of ``action``, with costs as they are for ``player``.

        Args:
            action: An action id in ``range(45)``.
            player: The seat whose costs to show (default: the seat to decide).

        Raises:
            ValueError: When ``action`` is not an action id.
        """
        value = as_int(action)
        if value is None:
            raise ValueError(f"action must be an int in 0..{NUM_ACTIONS - 1}, got {action!r}")
        action = value
        if not 0 <= action < NUM_ACTIONS:
            raise ValueError(
                f"action {action} is out of range; action ids are 0..{NUM_ACTIONS - 1}"
            )
        if player is None and self._cur != TERMINAL:
            player = self._cur
        if action < NO_BUY:
            name = f"buy {KIND_NAMES[action]}"
            if player is None:
                return name
            return (
                f"{name} ({buy_cost(self._displays[player * NUM_CARD_TYPES + HG + action])} wood)"
            )
        if action == NO_BUY:
            return "no purchase"
        if action == PLAY_WOODCUTTER:
            return "play Woodcutter"
        if action == PLAY_PRIEST:
            return "play Priest"
        if action == PLAY_MOAI:
            return f"play Moai ({MOAI_COST} wood)"
        if action < REMOVE_MOAI:
            k, c = PLAY_HG_RANGE.decode(action)
            return f"play {c + 1}× H&G {KIND_NAMES[k]} ({c} wood)"
        if action == REMOVE_MOAI:
            return "remove a Moai from the game"
        if action < OFFER:
            c = action - DRAW
            col = self._columns[c]
            front = CARD_NAMES[col[0]] if col else "empty"
            return f"draw column {c + 1} ({front})"
        if action < SUPPLY:
            kind = KIND_NAMES[action - OFFER]
            if player is None:
                return f"offer own {kind}"
            face = "face down" if player == self._active else "face up"
            return f"offer own {kind} {face}"
        if action < SUPPLY_SKIP:
            return f"offer {KIND_NAMES[action - SUPPLY]} from the supply"
        if action == SUPPLY_SKIP:
            return "no supply offering"
        v = action - MOAI_VP
        u = self._units[player] if player is not None else 0
        if u >= v:
            return f"Moai scoring: {v} VP + {u - v} wood"
        return f"Moai scoring: {v} VP, rest wood"

    def public_action_string(
        self, action: int, viewer: int | None, actor: int | None = None
    ) -> str:
        """What ``viewer`` may know of ``actor``'s action (costs as they are for ``actor``).

        The active player's own offering goes onto the stone face down (§3.1): every other seat
        and a spectator learn only that a card was placed face down. Everything else is public:
        purchases come from open supply stacks, draws from the open columns, the other seats'
        offerings go face up.
        """
        if actor is None and self._cur != TERMINAL:
            actor = self._cur
        if OFFER <= action < SUPPLY and actor == self._active and viewer != actor:
            return "places an offering card face down"
        return self.action_to_string(action, actor)

    # --- results ------------------------------------------------------------------------------

    def kind_values(self) -> list[int]:
        """VP per held offering card of each kind, by the current stone (§7.4)."""
        return offering_values(self.stone_totals(), self.game.config.zero_count_kind_value)

    def score_breakdown(self) -> list[dict[str, Any]]:
        """Per seat: VP tiles, Moai, wood and offering points and their total (§7).

        Each dict holds ``vp_tiles``, ``moai`` (4 per Moai), ``wood`` (1 per full 5 wood),
        ``offerings`` (held cards × kind values), ``total``, the ``kind_values`` used, and the
        tie-break facts ``moai_count`` and ``wood_count``.
        """
        values = self.kind_values()
        out = []
        for p in range(self._n):
            moai = self._displays[p * NUM_CARD_TYPES + MOAI]
            held = self._holdings[p * NUM_KINDS : (p + 1) * NUM_KINDS]
            offerings = sum(h * v for h, v in zip(held, values, strict=True))
            parts = {
                "vp_tiles": self._vp[p],
                "moai": MOAI_END_VP * moai,
                "wood": self._wood[p] // WOOD_PER_VP,
                "offerings": offerings,
            }
            total = sum(parts.values())
            out.append(
                {
                    **parts,
                    "total": total,
                    "kind_values": dict(zip(KIND_NAMES, values, strict=True)),
                    "moai_count": moai,
                    "wood_count": self._wood[p],
                }
            )
        return out

    def scores(self) -> list[float]:
        """Final points per seat (§7); while the game runs, the points by the same formula."""
        return [float(b["total"]) for b in self.score_breakdown()]

    def winners(self) -> list[int]:
        """Highest total, then most Moai, then most wood; seats still tied share the win (§7)."""
        keys = [(b["total"], b["moai_count"], b["wood_count"]) for b in self.score_breakdown()]
        best = max(keys)
        return [p for p, k in enumerate(keys) if k == best]

    # --- hidden information -------------------------------------------------------------------

    def resample_hidden(self, player: int, rng: random.Random) -> RapaNuiState:
        """A copy in which everything ``player`` cannot see is re-drawn consistently.

        The other seats' hand cards and the draw pile are shuffled together and dealt back
        (each hand keeps its size, the pile its size); the kinds of the other seats' offering
        cards and of the face-down stone cards they placed are shuffled together and dealt back
        (each place keeps its count). Everything public stays: the displays, the columns, the
        face-up stone, the supply stacks, every count. The hidden parts are shuffled from a
        canonical (sorted) order, so the copy is a function of ``player``'s view and ``rng``
        alone: two states that ``player`` cannot tell apart give the same copy. Once the game
        is over the final scoring has revealed every offering card, held or face down
        (docs/rules/rapa_nui.md §3.1.5, §7.4), so only the hands and the pile are re-drawn.

        Args:
            player: The seat whose view must stay the same.
            rng: Source of the shuffles.
        """
        s = self.clone()
        # The decider may be another seat whose hand or offering cards change here.
        s._legal = None
        n = self._n
        others = [q for q in range(n) if q != player]
        cards = list(s._pile)
        for q in others:
            b = q * NUM_CARD_TYPES
            for t in range(NUM_CARD_TYPES):
                cards.extend([t] * s._hands[b + t])
        # Shuffled from a canonical order, so the result depends on the seat's view and the
        # generator only, never on the hidden deal it replaces.
        cards.sort()
        shuffle(rng, cards)
        pos = 0
        for q in others:
            b = q * NUM_CARD_TYPES
            size = sum(s._hands[b : b + NUM_CARD_TYPES])
            s._hands[b : b + NUM_CARD_TYPES] = [0] * NUM_CARD_TYPES
            for t in cards[pos : pos + size]:
                s._hands[b + t] += 1
            pos += size
        s._pile = cards[pos:]
        if s.is_terminal():
            return s
        kinds: list[int] = []
        places = (s._holdings, s._face_down)
        for q in others:
            b = q * NUM_KINDS
            for place in places:
                for k in range(NUM_KINDS):
                    kinds.extend([k] * place[b + k])
        kinds.sort()
        shuffle(rng, kinds)
        pos = 0
        for q in others:
            b = q * NUM_KINDS
            for place in places:
                size = sum(place[b : b + NUM_KINDS])
                place[b : b + NUM_KINDS] = [0] * NUM_KINDS
                for k in kinds[pos : pos + size]:
                    place[b + k] += 1
                pos += size
        return s

    def check_invariants(self) -> None:
        """Check conservation, bounds, a consistent phase and a fresh legal-action cache.

        Raises:
            AssertionError: Naming the first broken invariant.
        """
        check_state(self, AssertionError)
        if self._legal is not None and self._legal != self._compute_legal():
            raise AssertionError(
                f"stale legal-action cache {list(self._legal)} != {list(self._compute_legal())}"
            )

    # --- copies and serialisation --------------------------------------------------------------

    def clone(self) -> RapaNuiState:
        """A copy sharing no mutable object with this state."""
        s = RapaNuiState.__new__(RapaNuiState)
        s.game = self.game
        s._n = self._n
        s._limited = self._limited
        s._phase = self._phase
        s._active = self._active
        s._cur = self._cur
        s._draws_left = self._draws_left
        s._hands = self._hands[:]
        s._displays = self._displays[:]
        s._wood = self._wood[:]
        s._vp = self._vp[:]
        s._holdings = self._holdings[:]
        s._face_down = self._face_down[:]
        s._stone_up = self._stone_up[:]
        s._supply = self._supply[:]
        s._columns = [c[:] for c in self._columns]
        s._pile = self._pile[:]
        s._removed = self._removed
        s._units = self._units[:]
        s._legal = self._legal
        return s

    def to_dict(self) -> dict[str, Any]:
        """The full state, hidden parts included (schema: :mod:`.state_json`)."""
        n = self._n
        t, k = NUM_CARD_TYPES, NUM_KINDS
        return {
            "phase": PHASES[self._phase],
            "active": self._active,
            "decider": None if self._cur == TERMINAL else self._cur,
            "draws_left": self._draws_left,
            "hands": [
                [c for c in range(t) for _ in range(self._hands[p * t + c])] for p in range(n)
            ],
            "displays": [self._displays[p * t : (p + 1) * t] for p in range(n)],
            "wood": self._wood[:],
            "vp": self._vp[:],
            "holdings": [self._holdings[p * k : (p + 1) * k] for p in range(n)],
            "stone_face_up": self._stone_up[:],
            "stone_face_down": [self._face_down[p * k : (p + 1) * k] for p in range(n)],
            "supply": self._supply[:],
            "columns": [c[:] for c in self._columns],
            "draw_pile": self._pile[:],
            "removed_moai": self._removed,
            "moai_units": self._units[:],
        }

    def __str__(self) -> str:
        """Full-information summary for debugging.

        Hidden parts are included: every hand, the kinds of every seat's offering cards and
        face-down stone cards, and the order of the draw pile.
        """

        def counts(values: list[int], names: tuple[str, ...]) -> str:
            return ", ".join(f"{names[i]}×{c}" for i, c in enumerate(values) if c) or "-"

        n = self._n
        lines = [
            f"phase {PHASES[self._phase]}, turn of seat {self._active}, "
            f"decider {self.decider()}, draws left {self._draws_left}",
            "columns (front first): "
            + " | ".join(",".join(CARD_NAMES[c] for c in col) or "empty" for col in self._columns),
            f"draw pile ({len(self._pile)}, top first): "
            + (",".join(CARD_NAMES[c] for c in self._pile) or "empty"),
            f"removed Moai {self._removed}; supply {counts(self._supply, KIND_NAMES)}; "
            f"stone face up {counts(self._stone_up, KIND_NAMES)}",
        ]
        for p in range(n):
            units = f"; Moai units to split {self._units[p]}" if self._units[p] else ""
            lines.append(
                f"seat {p}: wood {self._wood[p]}; VP tiles {self._vp[p]}; "
                f"hand {counts(self.hand(p), CARD_NAMES)}; "
                f"display {counts(self.display(p), CARD_NAMES)}; "
                f"offering cards {counts(self.holdings(p), KIND_NAMES)}; "
                f"face down {counts(self.face_down(p), KIND_NAMES)}{units}"
            )
        return "\n".join(lines)
