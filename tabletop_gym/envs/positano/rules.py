"""The Positano rules engine (rules reference ``docs/rules/positano.md``, all sections).

Pure standard library. Every chance event (lot removal, stack shuffles, goal cards and sides,
star sets, Otto Amalfi's decks, the solo round-1 tile order) is drawn in
:meth:`PositanoGame.new_initial_state` from the ``random.Random`` passed in; the state carries
every deck order, so the rest of the game is a pure function of the actions.

Round (rules §3): a simultaneous bid (solo: the player bids after Otto's card and booster are
revealed), lots drafted in descending lot-bid order, block tiles in descending block-bid order
(blocks gained at once, 2X/3X choice as the same player's next decision), build tiles in
descending build-bid order with each player building at once after drafting, then the optional
Add-On/Remodel; refresh; the game ends after the round in which the last lot tiles were taken.

Colours and seats: colour ``c`` is seat ``c``. In solo (``num_players=1``) Otto Amalfi is colour
1 of a two-colour game, but there is one seat: ``current_player()`` is 0 for every decision and
:meth:`PositanoState.acting_colour` says for which colour the player is deciding.

Action ids: :data:`~tabletop_gym.envs.positano.actions.ACTIONS`, 192 ids as named ranges, one
layout for every configuration (a bid is ``ACTIONS["bid"].encode(card, booster)``).

The JSON ``"state"`` object and its loader live in
:mod:`tabletop_gym.envs.positano.state_json`, which also holds the consistency checks behind
:meth:`PositanoState.check_invariants`.

Rewards: ``returns()`` follows ``reward_type`` for 2–6 players. In solo the player's result is
min(own score, Otto's score) (rules §7) and ``returns()`` is ``[result / 100]`` whatever
``reward_type`` says; ``winners()`` is ``[0]``.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence
from typing import Any, ClassVar

from tabletop_gym.core.game import (
    SIMULTANEOUS,
    TERMINAL,
    ConfigError,
    Game,
    GameConfig,
    State,
    as_int,
    shuffle,
)
from tabletop_gym.envs.positano import components as C, scoring
from tabletop_gym.envs.positano.actions import (
    A_ADD_ON,
    A_BID,
    A_BID_BOOSTER,
    A_BID_CARD,
    A_BLOCK,
    A_BUILD_TILE,
    A_FLAT,
    A_HEIGHT,
    A_LOT,
    A_MULTIPLY,
    A_NOOP,
    A_REMODEL,
    A_SKIP_ADD_ON,
    A_SKIP_REMODEL,
    ACTIONS,
    BID_ID,
    BID_PAIR,
    BIDS,
    BOOSTERS_PER_CARD,
    NUM_ACTIONS,
)
from tabletop_gym.envs.positano.components import (
    PHASE_ADD_ON as ADD_ON,
    PHASE_BID as BID,
    PHASE_BLOCK_CHOICE as BLOCK_CHOICE,
    PHASE_BUILD as BUILD,
    PHASE_DRAFT_BLOCK as DRAFT_BLOCK,
    PHASE_DRAFT_BUILD as DRAFT_BUILD,
    PHASE_DRAFT_LOT as DRAFT_LOT,
    PHASE_KIND as _PHASE_KIND,
    PHASE_OVER as OVER,
    PHASE_REMODEL as REMODEL,
    PHASES as PHASES,
    TILE_TYPES as TILE_TYPES,
)
from tabletop_gym.envs.positano.events import (
    BID_PLAYED,
    BUILDING,
    EVENTS,
    LOT_TAKEN,
    ORDERS_SET,
    ROOFS,
    ROUND_ENDED,
    SUPPLY,
    TILE_TAKEN,
    TURN,
)
from tabletop_gym.envs.positano.state_json import check_state, parse_state

__all__ = [
    "ACTIONS",
    "BOOSTERS_PER_CARD",
    "NUM_ACTIONS",
    "PHASES",
    "PositanoConfig",
    "PositanoGame",
    "PositanoState",
]


_LOT_NAMES = tuple(C.lot_name(p) for p in range(C.NUM_POSITIONS))
_NUM_CARDS = len(C.BID_CARDS)
_NUM_BOOSTERS = len(C.BOOSTERS)
_ALL_CARDS = list(range(_NUM_CARDS))
_ALL_BOOSTERS = list(range(_NUM_BOOSTERS))


# --------------------------------------------------------------------------------------------
# Config
# --------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class PositanoConfig(GameConfig):
    """Positano switches ("Decisions" table of docs/rules/positano.md).

    Attributes:
        num_players: 1 (solo against Otto Amalfi) to 6.
        board_size: 4 or 5 (the cliff is ``board_size``×``board_size``), or 0 for the usual
            board: 4×4 for 1–4 players, 5×5 for 5–6. 5×5 needs 4–6 players; 4×4 allows 1–4.
        goals: The 3 goal faces in play, on 3 different cards (Mezzo only on 4×4, Centro only
            on 5×5); empty: 3 random cards with random sides (or the solo goal set).
        solo_goal_set: Solo only: 0 draws goals at random as usual; 1..6 picks the rulebook's
            recommended set (1 Big in the Back, 2 The Spice of Life, 3 Tiny Homes, 4 Balanced and
            Centered, 5 Location, Location, Location, 6 More Blocks, More Problems).
        reward_type: See :class:`GameConfig`; ignored in solo, where ``returns()`` is the solo
            result / 100.
    """

    num_players: int = dataclasses.field(default=2, metadata={"range": (1, 6)})
    board_size: int = dataclasses.field(default=0, metadata={"choices": (0, 4, 5)})
    goals: tuple[str, ...] = ()
    solo_goal_set: int = dataclasses.field(default=0, metadata={"range": (0, 6)})

    def __post_init__(self) -> None:
        if isinstance(self.goals, list):
            object.__setattr__(self, "goals", tuple(self.goals))

    @property
    def size(self) -> int:
        """The cliff size in use (``board_size`` with 0 resolved)."""
        if self.board_size:
            return self.board_size
        return 4 if self.num_players <= 4 else 5

    def validate(self) -> None:
        """Check field types first (direct construction skips ``from_kwargs``), then values."""
        for name in ("num_players", "board_size", "solo_goal_set"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise ConfigError(f"{name} must be an integer, got {value!r}")
        if not isinstance(self.reward_type, str):
            raise ConfigError(f"reward_type must be a string, got {self.reward_type!r}")
        super().validate()

    def check(self) -> None:
        """Cross-field checks: board size vs players, goals, solo goal set."""
        n = self.num_players
        if self.board_size == 5 and n < 4:
            raise ConfigError(
                f"board_size=5 needs 4–6 players (no 5×5 set-up exists for 1–3 players), got "
                f"num_players={n}; use board_size=4 or 0 (auto)"
            )
        if self.board_size == 4 and n > 4:
            raise ConfigError(
                f"board_size=4 allows 1–4 players; {n} players play on the 5×5 cliff: use "
                "board_size=5 or 0 (auto)"
            )
        if self.solo_goal_set and n != 1:
            raise ConfigError(
                f"solo_goal_set={self.solo_goal_set} is only for solo (num_players=1), got "
                f"num_players={n}; leave it 0"
            )
        if not isinstance(self.goals, tuple):
            raise ConfigError(f"goals must be a list of 3 goal names, got {self.goals!r}")
        if self.goals:
            if self.solo_goal_set:
                raise ConfigError(
                    f"give either goals={list(self.goals)} or solo_goal_set="
                    f"{self.solo_goal_set}, not both"
                )
            problem = C.goal_problem(list(self.goals), self.size)
            if problem:
                raise ConfigError(f"goals: {problem}")


# --------------------------------------------------------------------------------------------
# Game
# --------------------------------------------------------------------------------------------


class PositanoGame(Game):
    """Positano for 1–6 players (solo against Otto Amalfi).

    Attributes:
        size: Cliff size (4 or 5).
        solo: Whether this is the solo game against Otto Amalfi.
        num_colours: Colours in play (solo: 2).
        tiles_per_round: Tiles revealed per Beach Board row each round (= colours).
        num_rounds: Rounds of the game.
        lot_tiles: The lot tiles of this size, by position.
        block_tiles: The block tiles of this size, by index.
        build_tiles: The build tiles of this size, by index.
        roof_supply: Roof pieces per rank (Bronze, Silver, Gold).
    """

    name: ClassVar[str] = "positano"
    config_class: ClassVar[type[GameConfig]] = PositanoConfig
    phases: ClassVar[tuple[str, ...]] = PHASES
    config: PositanoConfig

    def __init__(self, config: Any = None, **kwargs: Any):
        """Validate the config and derive the board size, rounds and component sets.

        Raises:
            ConfigError: On an unknown key or a value that is not allowed.
        """
        super().__init__(config, **kwargs)
        cfg = self.config
        if not isinstance(cfg, PositanoConfig):
            raise ConfigError(f"PositanoGame needs a PositanoConfig, got {type(cfg).__name__}")
        self.size = cfg.size
        self.solo = cfg.num_players == 1
        self.num_colours = max(2, cfg.num_players)
        self.tiles_per_round = C.tiles_per_round(cfg.num_players)
        self.num_rounds = C.ROUNDS[(self.size, cfg.num_players)]
        self.lots_removed = C.LOTS_REMOVED[(self.size, cfg.num_players)]
        self.positions = C.board_positions(self.size)
        self.lot_tiles = C.LOT_TILES[self.size]
        self.block_tiles = C.BLOCK_TILES[self.size]
        self.build_tiles = C.BUILD_TILES[self.size]
        self.goal_cards = C.GOAL_CARDS[self.size]
        self.roof_supply = C.ROOF_SUPPLY[self.size]
        # rules §2.6-7: starting tiles whose icon ≤ players (solo: a 2-player game) start face
        # up; every other tile, unused starting tiles included, goes into the stack.
        icon_max = max(2, cfg.num_players)

        def split(tiles: Sequence[Any]) -> tuple[list[int], list[int]]:
            up = [t.index for t in tiles if 0 < t.start_icon <= icon_max]
            return up, [t.index for t in tiles if t.index not in up]

        self._start_blocks = split(self.block_tiles)
        self._start_builds = split(self.build_tiles)
        # Gelato per bid card, booster, lot position, block and build tile index (rules §5.2).
        lot_gelato = [0] * 25
        for pos, lot in self.lot_tiles.items():
            lot_gelato[pos] = lot.gelato
        self._gelato: tuple[list[int], ...] = (
            [c.gelato for c in C.BID_CARDS], [b.gelato for b in C.BOOSTERS], lot_gelato,
            [t.gelato for t in self.block_tiles], [t.gelato for t in self.build_tiles])
        if cfg.goals:
            self.fixed_goals: tuple[str, ...] = tuple(cfg.goals)
        elif cfg.solo_goal_set:
            self.fixed_goals = C.SOLO_GOAL_SETS[cfg.solo_goal_set - 1][1]
        else:
            self.fixed_goals = ()

    @property
    def num_distinct_actions(self) -> int:
        """192 ids in one fixed layout (module docstring)."""
        return NUM_ACTIONS

    @property
    def max_game_length(self) -> int:
        """Upper bound on decisions (a joint bid counts as one).

        Per round: one bid; per colour a lot, a block and a build draft and at most one build
        (solo: no draft decisions, the tiles are allocated); over the game at most one 2X/3X
        choice per multiplier tile and one extra-action decision per Add-On/Remodel tile.
        """
        r, t = self.num_rounds, self.tiles_per_round
        per_round = 1 + (2 if self.solo else 4 * t)
        multipliers = sum(1 for b in self.block_tiles if b.multiplier)
        extras = sum(1 for b in self.build_tiles if b.action)
        return r * per_round + min(multipliers, r * t) + min(extras, r * t)

    @property
    def score_bounds(self) -> tuple[float, float]:
        """Sound bounds of a seat's final score (solo: of min(own, Otto's)).

        Every part is non-negative, so 0 is the floor. Above: a colour owns at most 16 blocks,
        each visible block scores at most 3 (Gold), so buildings ≤ 48; gelato ≤ the best
        ``num_rounds`` icons among each of cards, boosters, lot, block and build tiles (one of
        each per round); goals ≤ the sum of the 3 largest per-card maxima (or of the fixed goals),
        where a competition goal gives at most 6, Equilibrato 5, Piccolo 3 per building,
        Solitario and Perfetto 2 per building, Altezza 2 per distinct height (≤ size + 2 heights),
        with at most one building per round.
        """
        r = self.num_rounds

        def best(values: Sequence[int]) -> int:
            return sum(sorted(values, reverse=True)[:r])

        gelato = (
            best([c.gelato for c in C.BID_CARDS])
            + best([b.gelato for b in C.BOOSTERS])
            + best([t.gelato for t in self.lot_tiles.values()])
            + best([t.gelato for t in self.block_tiles])
            + best([t.gelato for t in self.build_tiles])
        )

        def goal_max(goal: str) -> int:
            info = C.GOALS[goal]
            if info.kind != "per_item":
                return info.points
            items = min(r, self.size + C.MAX_LEVEL_BONUS) if goal == "altezza" else r
            return info.points * items

        if self.fixed_goals:
            goals = sum(goal_max(g) for g in self.fixed_goals)
        else:
            per_card = sorted((max(goal_max(a), goal_max(b)) for a, b in self.goal_cards))
            goals = sum(per_card[-3:])
        buildings = 3 * C.BLOCKS_PER_COLOUR
        return (0.0, float(buildings + gelato + goals))

    def return_bounds(self) -> tuple[float, float]:
        """Return bounds; in solo the return is the solo result / 100."""
        if self.solo:
            lo, hi = self.score_bounds
            return (lo / 100.0, hi / 100.0)
        return super().return_bounds()

    simultaneous_action_range = (0, A_LOT)
    """Ids a simultaneous bid can use (pairs 0–41 and the split parts 42–54)."""

    noop_action = A_NOOP
    """The no-op id the parallel view gives to agents not to act (never legal in the engine)."""

    def split_simultaneous_action(self, action: int) -> tuple[int, int]:
        """The split-bid sub-decisions of bid ``action``: (42 + card, 49 + booster).

        Used by the turn-based transform's split-bid option (ids 42–54 of the layout).

        Raises:
            ValueError: If ``action`` is not a bid id (0..41).
        """
        if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < A_BID_CARD:
            raise ValueError(f"{action!r} is not a bid action; bid ids are 0..41")
        card, booster = BIDS.decode(action)
        return (ACTIONS["bid_card"].encode(card), ACTIONS["bid_booster"].encode(booster))

    # --- set-up (rules §2, §7) ------------------------------------------------------------------

    def new_initial_state(self, rng: random.Random) -> PositanoState:
        """Set up a game (rules §2; solo §7); every chance event is drawn from ``rng``.

        Draw order: lot shuffle (first lots removed face-up, then the round-1 row, then the
        stack), block stack shuffle, build stack shuffle, solo row orders, goals (cards, then
        sides), star sets, Otto's card deck, Otto's booster deck.
        """
        if not isinstance(rng, random.Random):
            raise TypeError(f"new_initial_state needs a random.Random, got {type(rng).__name__}")
        nc, t = self.num_colours, self.tiles_per_round
        s = PositanoState.__new__(PositanoState)
        s.game = self
        lots = list(self.positions)
        shuffle(rng, lots)
        k = self.lots_removed
        s.removed_lots = sorted(lots[:k])
        s.lot_row = lots[k : k + t]
        s.lot_stack = lots[k + t :]
        # rules §2.6-7: the starting tiles face up, the stacks shuffled (split in __init__).
        s.block_row = self._start_blocks[0][:]
        s.block_stack = self._start_blocks[1][:]
        shuffle(rng, s.block_stack)
        s.build_row = self._start_builds[0][:]
        s.build_stack = self._start_builds[1][:]
        shuffle(rng, s.build_stack)
        if self.solo:
            # rules §7: randomise the order of the 2 tiles within each Beach Board row (the lot
            # row already comes off a shuffled stack).
            shuffle(rng, s.block_row)
            shuffle(rng, s.build_row)
        if self.fixed_goals:
            s.goals = list(self.fixed_goals)
        else:
            cards = rng.sample(range(len(self.goal_cards)), 3)
            s.goals = [self.goal_cards[c][0 if rng.random() < 0.5 else 1] for c in cards]
        s.star_sets = rng.sample(range(1, C.NUM_STAR_SETS + 1), nc)
        s.hand_cards = [list(_ALL_CARDS) for _ in range(nc)]
        s.hand_boosters = [list(_ALL_BOOSTERS) for _ in range(nc)]
        if self.solo:
            shuffle(rng, s.hand_cards[1])
            shuffle(rng, s.hand_boosters[1])
        s.played_cards = [[] for _ in range(nc)]
        s.played_boosters = [[] for _ in range(nc)]
        s.lots_taken = [[] for _ in range(nc)]
        s.blocks_taken = [[] for _ in range(nc)]
        s.builds_taken = [[] for _ in range(nc)]
        s.owner = [-1] * 25
        s.height = [0] * 25
        s.roof = [0] * 25
        s.personal = [C.START_PERSONAL] * nc
        s.general = [C.START_GENERAL] * nc
        s.roofs_left = list(self.roof_supply)
        s.round = 1
        s.phase_index = BID
        s.turn = 0
        s._orders = None
        s._legal = None
        s._legal_sim = None
        if self.solo:
            s._reveal_otto()
        return s

    # --- JSON ----------------------------------------------------------------------------------

    def _state_from_dict(self, data: dict[str, Any]) -> PositanoState:
        """Build a state from the ``"state"`` object (schema: :mod:`.state_json`).

        Raises:
            StateFormatError: On a missing/unknown key, a wrong type or range, broken
                conservation or an inconsistent phase; the message names the field.
        """
        return parse_state(self, data, PositanoState)


# --------------------------------------------------------------------------------------------
# State
# --------------------------------------------------------------------------------------------


class PositanoState(State):
    """One Positano position. Public attributes are read-only views for observers and renders.

    Attributes:
        game: The game.
        round: Current round, 1-based.
        phase_index: Index into :data:`PHASES`.
        turn: Index of the acting colour in the current draft order (0 in bid and terminal).
        goals: The 3 goal faces in play.
        star_sets: Tie-break star set (1..6) per colour.
        hand_cards: Per colour, base bid cards (0..6) in hand; sorted, except Otto's (solo
            colour 1), which is his face-down deck, top first (its order is hidden).
        hand_boosters: Per colour, boosters (0..5) in hand (Otto: deck order, top first).
        played_cards: Per colour, base bid cards played, in round order (public discard; this
            round's bid is the last entry once revealed).
        played_boosters: Per colour, boosters played, in round order.
        lot_stack: Face-down lot tiles, top first (hidden order).
        block_stack: Face-down block tiles, top first (hidden order).
        build_stack: Face-down build tiles, top first (hidden order).
        lot_row: Face-up lot tiles on the Beach Board, left to right.
        block_row: Face-up block tiles, left to right.
        build_row: Face-up build tiles, left to right.
        removed_lots: Lots removed face-up at set-up.
        lots_taken: Per colour, lot tiles drafted, in round order.
        blocks_taken: Per colour, block tiles drafted, in round order.
        builds_taken: Per colour, build tiles drafted, in round order.
        owner: 25 entries, colour of the building at each position, or -1.
        height: 25 entries, blocks of the building (0 = none).
        roof: 25 entries, roof rank (0 none, 1 Bronze, 2 Silver, 3 Gold).
        personal: Blocks in each colour's personal supply.
        general: Blocks left in each colour's general supply.
        roofs_left: Roof pieces left per rank (Bronze, Silver, Gold).
    """

    game: PositanoGame
    round: int
    phase_index: int
    turn: int
    goals: list[str]
    star_sets: list[int]
    hand_cards: list[list[int]]
    hand_boosters: list[list[int]]
    played_cards: list[list[int]]
    played_boosters: list[list[int]]
    lot_stack: list[int]
    block_stack: list[int]
    build_stack: list[int]
    lot_row: list[int]
    block_row: list[int]
    build_row: list[int]
    removed_lots: list[int]
    lots_taken: list[list[int]]
    blocks_taken: list[list[int]]
    builds_taken: list[list[int]]
    owner: list[int]
    height: list[int]
    roof: list[int]
    personal: list[int]
    general: list[int]
    roofs_left: list[int]
    _orders: tuple[list[int], list[int], list[int]] | None
    _legal: list[int] | None
    _legal_sim: list[list[int] | None] | None
    EVENTS = EVENTS

    # --- whose turn ----------------------------------------------------------------------------

    def current_player(self) -> int:
        """The seat to act, ``SIMULTANEOUS`` (multiplayer bid) or ``TERMINAL``."""
        ph = self.phase_index
        if ph == OVER:
            return TERMINAL
        if self.game.solo:
            return 0
        if ph == BID:
            return SIMULTANEOUS
        return self._orders[_PHASE_KIND[ph]][self.turn]  # type: ignore[index]

    def acting_colour(self) -> int:
        """The colour the current decision is for (-1 at a simultaneous bid and at the end).

        Equals ``current_player()`` except in solo, where the single player also decides for
        Otto Amalfi (colour 1).
        """
        ph = self.phase_index
        if ph == OVER:
            return -1
        if ph == BID:
            return 0 if self.game.solo else -1
        return self._orders[_PHASE_KIND[ph]][self.turn]  # type: ignore[index]

    def phase(self) -> str:
        """Name of the current phase (one of :data:`PHASES`)."""
        return PHASES[self.phase_index]

    # --- read-only helpers for observers -------------------------------------------------------

    def bid(self, colour: int) -> tuple[int, int] | None:
        """This round's revealed bid of ``colour`` as (card 0..6, booster 0..5), or None."""
        pc = self.played_cards[colour]
        if len(pc) < self.round:
            return None
        return (pc[self.round - 1], self.played_boosters[colour][self.round - 1])

    def bid_values(self, colour: int) -> tuple[int, int, int] | None:
        """This round's (lot, block, build) bid values of ``colour`` (rules §3.1), or None."""
        b = self.bid(colour)
        if b is None:
            return None
        return C.BID_VALUES[b[0]][b[1]]

    def draft_order(self, kind: str | int) -> list[int]:
        """Colours in drafting order for tile type ``kind`` this round ([] before the reveal).

        Args:
            kind: ``"lot"``, ``"block"``, ``"build"`` or 0, 1, 2.
        """
        k = TILE_TYPES.index(kind) if isinstance(kind, str) else int(kind)
        if self._orders is None:
            return []
        return list(self._orders[k])

    def gelato(self, colour: int) -> int:
        """Gelato icons of ``colour`` so far: played cards and drafted tiles (rules §5.2)."""
        return sum(self.gelato_parts(colour).values())

    def gelato_parts(self, colour: int) -> dict[str, int]:
        """Gelato of ``colour`` by source: cards, boosters, lots, block and build tiles."""
        cards, boosters, lots, blocks, builds = self.game._gelato
        return {
            "cards": sum(map(cards.__getitem__, self.played_cards[colour])),
            "boosters": sum(map(boosters.__getitem__, self.played_boosters[colour])),
            "lots": sum(map(lots.__getitem__, self.lots_taken[colour])),
            "block_tiles": sum(map(blocks.__getitem__, self.blocks_taken[colour])),
            "build_tiles": sum(map(builds.__getitem__, self.builds_taken[colour])),
        }

    def empty_lots(self) -> list[int]:
        """Drafted lots that stay empty for good (their owner had no block to build, rules §4)."""
        return sorted(p for taken in self.lots_taken for p in taken if self.lot_stays_empty(p))

    def lot_stays_empty(self, pos: int) -> bool:
        """Whether the lot at ``pos`` was drafted and stays empty for good (rules §4)."""
        if self.height[pos]:
            return False
        for c, taken in enumerate(self.lots_taken):
            if pos in taken:
                return not self._build_pending(c, taken.index(pos))
        return False

    def _build_pending(self, colour: int, i: int) -> bool:
        """Whether the build on ``colour``'s i-th drafted lot has not happened yet."""
        if i >= len(self.builds_taken[colour]):
            return True
        return (
            self.phase_index == BUILD
            and i == self.round - 1
            and self.acting_colour() == colour
        )

    def current_lot(self) -> int:
        """The lot the acting colour builds on in the build / extra-action phases, else -1."""
        if self.phase_index in (BUILD, ADD_ON, REMODEL):
            return self.lots_taken[self.acting_colour()][self.round - 1]
        return -1

    def add_on_targets(self, colour: int, bonus: int) -> list[int]:
        """``colour``'s buildings an Add-On with ``bonus`` may raise (rules §4), sorted."""
        h = self.height
        out = [
            p
            for p in self.lots_taken[colour]
            if 0 < h[p] < C.LOT_LEVELS[p] + bonus and self.owner[p] == colour
        ]
        out.sort()
        return out

    def remodel_targets(self, colour: int, roof: int) -> list[int]:
        """``colour``'s buildings a Remodel tile with roof ``roof`` may upgrade (rules §4)."""
        out = [
            p
            for p in self.lots_taken[colour]
            if self.height[p] > 0 and self.roof[p] == roof - 1 and self.owner[p] == colour
        ]
        out.sort()
        return out

    # --- legal actions -------------------------------------------------------------------------

    def _bid_pairs(self, colour: int) -> list[int]:
        boosters = self.hand_boosters[colour]
        ids = BID_ID
        return [ids[c][b] for c in self.hand_cards[colour] for b in boosters]

    def _legal_simultaneous(self, player: int) -> list[int]:
        """The (card, booster) pairs still in ``player``'s hand at the simultaneous bid."""
        if self.phase_index != BID or self.game.solo:
            return []
        if not isinstance(player, int) or not 0 <= player < self.game.num_colours:
            return []
        cache = self._legal_sim
        if cache is None:
            cache = self._legal_sim = [None] * self.game.num_colours
        got = cache[player]
        if got is None:
            got = cache[player] = self._bid_pairs(player)
        return list(got)

    def _legal_actions(self) -> list[int]:
        """Legal actions of the acting colour at a sequential node (cached)."""
        # Copies out of the cache: a caller editing its list must not corrupt the position.
        if self._legal is not None:
            return list(self._legal)
        ph = self.phase_index
        g = self.game
        if ph == BID:
            legal = self._bid_pairs(0) if g.solo else []
        elif ph == DRAFT_LOT:
            legal = sorted(A_LOT + p for p in self.lot_row)
        elif ph == DRAFT_BLOCK:
            legal = sorted(A_BLOCK + t for t in self.block_row)
        elif ph == BLOCK_CHOICE:
            legal = [A_MULTIPLY, A_FLAT]
        elif ph == DRAFT_BUILD:
            legal = sorted(A_BUILD_TILE + t for t in self.build_row)
        elif ph == BUILD:
            c = self.acting_colour()
            pos = self.lots_taken[c][self.round - 1]
            bonus = g.build_tiles[self.builds_taken[c][-1]].bonus
            top = min(C.LOT_LEVELS[pos] + bonus, self.personal[c])
            legal = list(range(A_HEIGHT + 1, A_HEIGHT + top + 1))
        elif ph == ADD_ON:
            c = self.acting_colour()
            bonus = g.build_tiles[self.builds_taken[c][-1]].bonus
            legal = [A_ADD_ON + p for p in self.add_on_targets(c, bonus)]
            legal.append(A_SKIP_ADD_ON)
        elif ph == REMODEL:
            c = self.acting_colour()
            roof = g.build_tiles[self.builds_taken[c][-1]].roof
            legal = [A_REMODEL + p for p in self.remodel_targets(c, roof)]
            legal.append(A_SKIP_REMODEL)
        else:
            legal = []
        self._legal = legal
        return list(legal)

    # --- applying actions ----------------------------------------------------------------------

    def _changed(self) -> None:
        # After every action, its automatic steps included: the caches go, and whose turn it is
        # changed (TURN is the last event an action tells, core/events.py).
        self._legal = None
        self._legal_sim = None
        on = self._on
        if on is not None:
            on[TURN](self)

    def _apply_joint_action(self, actions: list[int | None]) -> None:
        """Reveal every bid at once (rules §3.1) and start drafting."""
        for c, a in enumerate(actions):
            assert a is not None  # every seat bids; apply_joint_action checked legality
            card, booster = BID_PAIR[a - A_BID]
            self._play_bid(c, card, booster)
        self._after_bids()

    def _apply_action(self, action: int) -> None:
        ph = self.phase_index
        if ph == BID:
            # Solo: Otto's bid is already revealed; the player's bid completes the round's bids.
            card, booster = BID_PAIR[action - A_BID]
            self._play_bid(0, card, booster)
            self._after_bids()
            return
        if ph == DRAFT_LOT:
            self._take_lot(action - A_LOT)
        elif ph == DRAFT_BLOCK:
            self._take_block(action - A_BLOCK)
        elif ph == BLOCK_CHOICE:
            self._choose_blocks(action == A_MULTIPLY)
        elif ph == DRAFT_BUILD:
            self._take_build(action - A_BUILD_TILE)
        elif ph == BUILD:
            self._build(action - A_HEIGHT)
        elif ph == ADD_ON:
            if action != A_SKIP_ADD_ON:
                pos = action - A_ADD_ON
                c = self.acting_colour()
                self._set_building(pos, c, self.height[pos] + 1, self.roof[pos])
                self.personal[c] -= 1
                on = self._on
                if on is not None:
                    on[SUPPLY](self, c)
            self._end_build_turn()
        elif ph == REMODEL:
            if action != A_SKIP_REMODEL:
                pos = action - A_REMODEL
                old = self.roof[pos]
                self.roofs_left[old - 1] += 1
                self.roofs_left[old] -= 1
                self._set_building(pos, self.owner[pos], self.height[pos], old + 1)
                on = self._on
                if on is not None:
                    on[ROOFS](self)
            self._end_build_turn()
        self._advance()
        self._changed()

    def apply_trusted_action(self, action: int) -> None:
        """Apply an action the caller checked against this position (see :class:`State`)."""
        self._apply_action(action)

    def apply_trusted_joint_action(self, actions: Sequence[int | None]) -> None:
        """Apply a joint bid whose every entry the caller checked (see :class:`State`)."""
        self._apply_joint_action(list(actions))

    def _play_bid(self, colour: int, card: int, booster: int) -> None:
        self.hand_cards[colour].remove(card)
        self.hand_boosters[colour].remove(booster)
        self.played_cards[colour].append(card)
        self.played_boosters[colour].append(booster)
        on = self._on
        if on is not None:
            on[BID_PLAYED](self, colour, card, booster)

    def _reveal_otto(self) -> None:
        # rules §7: Otto's top base bid card and top booster are revealed before the player bids.
        card = self.hand_cards[1].pop(0)
        booster = self.hand_boosters[1].pop(0)
        self.played_cards[1].append(card)
        self.played_boosters[1].append(booster)
        on = self._on
        if on is not None:
            on[BID_PLAYED](self, 1, card, booster)

    def _compute_orders(self) -> tuple[list[int], list[int], list[int]]:
        # rules §3.2: descending bid; a tie goes to the card with more stars for that tile type.
        # Each colour's card and booster are read once and its three sort keys made together:
        # this runs every round of every game.
        r = self.round - 1
        value, stars = C.BID_VALUES, C.STARS
        cards, boosters, star_sets = self.played_cards, self.played_boosters, self.star_sets
        keys: tuple[list[tuple[int, int, int]], ...] = ([], [], [])
        for c in range(self.game.num_colours):
            card = cards[c][r]
            v = value[card][boosters[c][r]]
            st = stars[star_sets[c]][card]
            keys[0].append((-v[0], -st[0], c))
            keys[1].append((-v[1], -st[1], c))
            keys[2].append((-v[2], -st[2], c))
        out = []
        for ranked in keys:
            ranked.sort()
            out.append([c for _, _, c in ranked])
        return (out[0], out[1], out[2])

    def _after_bids(self) -> None:
        self._orders = self._compute_orders()
        self.phase_index = DRAFT_LOT
        self.turn = 0
        on = self._on
        if on is not None:
            on[ORDERS_SET](self)
        self._advance()
        self._changed()

    def _advance(self) -> None:
        """Run the automatic steps (solo allocation, phase ends, refresh) up to a decision."""
        nc = self.game.num_colours
        solo = self.game.solo
        while True:
            ph = self.phase_index
            if ph == DRAFT_LOT:
                if self.turn == nc:
                    self.phase_index = DRAFT_BLOCK
                    self.turn = 0
                    continue
                if solo:
                    # rules §7: the higher bid takes the leftmost tile, no choice.
                    self._take_lot(self.lot_row[0])
                    continue
            elif ph == DRAFT_BLOCK:
                if self.turn == nc:
                    self.phase_index = DRAFT_BUILD
                    self.turn = 0
                    continue
                if solo:
                    self._take_block(self.block_row[0])
                    continue
            elif ph == DRAFT_BUILD:
                if self.turn == nc:
                    self._refresh()
                    return
                if solo:
                    self._take_build(self.build_row[0])
                    continue
            return

    def _take_lot(self, pos: int) -> None:
        c = self._orders[0][self.turn]  # type: ignore[index]
        self.lot_row.remove(pos)
        self.lots_taken[c].append(pos)
        self.turn += 1
        on = self._on
        if on is not None:
            on[LOT_TAKEN](self, c, pos)

    def _take_block(self, t: int) -> None:
        # rules §3.3: blocks come at once from the colour's general supply, capped by what is left.
        c = self._orders[1][self.turn]  # type: ignore[index]
        self.block_row.remove(t)
        self.blocks_taken[c].append(t)
        on = self._on
        if on is not None:
            on[TILE_TAKEN](self, c, 1, t)
        tile = self.game.block_tiles[t]
        if tile.multiplier:
            self.phase_index = BLOCK_CHOICE
            return
        gain = min(tile.blocks, self.general[c])
        self.personal[c] += gain
        self.general[c] -= gain
        self.turn += 1
        if on is not None:
            on[SUPPLY](self, c)

    def _choose_blocks(self, multiply: bool) -> None:
        # rules §1.6: with n in the personal supply, multiply gains n·(N−1), flat gains N; both
        # capped by the general supply.
        c = self._orders[1][self.turn]  # type: ignore[index]
        tile = self.game.block_tiles[self.blocks_taken[c][-1]]
        n = self.personal[c]
        want = n * (tile.multiplier - 1) if multiply else tile.blocks
        gain = min(want, self.general[c])
        self.personal[c] += gain
        self.general[c] -= gain
        self.phase_index = DRAFT_BLOCK
        self.turn += 1
        on = self._on
        if on is not None:
            on[SUPPLY](self, c)

    def _take_build(self, t: int) -> None:
        c = self._orders[2][self.turn]  # type: ignore[index]
        self.build_row.remove(t)
        self.builds_taken[c].append(t)
        on = self._on
        if on is not None:
            on[TILE_TAKEN](self, c, 2, t)
        if self.personal[c] == 0:
            # rules §4 + Decisions: no block → no building, the lot stays empty, no extra action.
            self.turn += 1
            return
        self.phase_index = BUILD

    def _build(self, h: int) -> None:
        g = self.game
        c = self._orders[2][self.turn]  # type: ignore[index]
        pos = self.lots_taken[c][self.round - 1]
        tile = g.build_tiles[self.builds_taken[c][-1]]
        self._set_building(pos, c, h, tile.roof)
        self.roofs_left[tile.roof - 1] -= 1
        self.personal[c] -= h
        on = self._on
        if on is not None:
            on[ROOFS](self)
            on[SUPPLY](self, c)
        # rules §4: the optional extra action is offered only when it has a target.
        if tile.action == C.ADD_ON:
            if self.personal[c] > 0 and self.add_on_targets(c, tile.bonus):
                self.phase_index = ADD_ON
                return
        elif (
            tile.action == C.REMODEL
            and self.roofs_left[tile.roof - 1] > 0
            and self.remodel_targets(c, tile.roof)
        ):
            self.phase_index = REMODEL
            return
        self._end_build_turn()

    def _set_building(self, pos: int, owner: int, height: int, roof: int) -> None:
        """Put the building (``owner``, ``height``, ``roof``; height 0 clears the lot) at ``pos``.

        The one way the engine changes the cliff: it tells the old building with the change,
        so a listener follows any change, a lower or removed building included.
        """
        old = self.owner[pos], self.height[pos], self.roof[pos]
        if height:
            self.owner[pos], self.height[pos], self.roof[pos] = owner, height, roof
        else:
            self.owner[pos], self.height[pos], self.roof[pos] = -1, 0, 0
        on = self._on
        if on is not None:
            on[BUILDING](self, pos, *old)

    def _end_build_turn(self) -> None:
        self.phase_index = DRAFT_BUILD
        self.turn += 1

    def _refresh(self) -> None:
        # rules §3.5 / §6: refill the Beach Board, or end after the round that took the last lots.
        self._orders = None
        self.turn = 0
        on = self._on
        old_round = self.round
        if not self.lot_stack:
            self.phase_index = OVER
            if on is not None:
                on[ROUND_ENDED](self, old_round, (), (), ())
            return
        t = self.game.tiles_per_round
        self.round += 1
        moved = []
        for row, stack in (
            (self.lot_row, self.lot_stack),
            (self.block_row, self.block_stack),
            (self.build_row, self.build_stack),
        ):
            moved.append(stack[:t])
            row.extend(stack[:t])
            del stack[:t]
        self.phase_index = BID
        if on is not None:
            on[ROUND_ENDED](self, old_round, *moved)
        if self.game.solo:
            self._reveal_otto()

    # --- results (rules §5, §7) -----------------------------------------------------------------

    def _colour_results(self) -> list[dict[str, Any]]:
        # A finished position never changes: score it once (scores, breakdown, winners and
        # returns all read it at the end of every game).
        if self.phase_index == OVER:
            final = getattr(self, "_final", None)
            if final is None:
                final = self._final = self._compute_results()
            return final
        return self._compute_results()

    def _compute_results(self) -> list[dict[str, Any]]:
        g = self.game
        nc = g.num_colours
        # The engine's own positions satisfy every input check of the scoring functions.
        pts = scoring.building_points(self.height, self.roof, g.size, check=False)
        goal_pts = {
            goal: scoring.goal_points(
                goal, self.owner, self.height, self.roof, self.personal, nc, g.size, check=False
            )
            for goal in self.goals
        }
        out = []
        for c in range(nc):
            buildings = {
                _LOT_NAMES[p]: pts[p] for p in range(25) if self.height[p] and self.owner[p] == c
            }
            parts = self.gelato_parts(c)
            goals = {goal: goal_pts[goal][c] for goal in self.goals}
            b_total = sum(buildings.values())
            gel = sum(parts.values())
            out.append(
                {
                    "buildings": buildings,
                    "building_points": b_total,
                    "gelato": gel,
                    "gelato_parts": parts,
                    "goals": goals,
                    "total": b_total + gel + sum(goals.values()),
                }
            )
        return out

    def scores(self) -> list[float]:
        """Building points + gelato + goals per seat (rules §5); solo: min(own, Otto's) (§7).

        While the game runs, the same formula on the current position.
        """
        res = self._colour_results()
        if self.game.solo:
            return [float(min(res[0]["total"], res[1]["total"]))]
        return [float(r["total"]) for r in res]

    def score_breakdown(self) -> list[dict[str, Any]]:
        """Per seat: per-building points, gelato (by source), each goal and the total.

        Solo: one entry with ``"colours"`` (player, Otto) and the solo ``"total"`` = min.
        """
        res: list[dict[str, Any]] = [
            {k: dict(v) if isinstance(v, dict) else v for k, v in r.items()}
            for r in self._colour_results()
        ]
        if self.game.solo:
            return [
                {
                    "colours": res,
                    "own": res[0]["total"],
                    "otto": res[1]["total"],
                    "total": min(res[0]["total"], res[1]["total"]),
                }
            ]
        return res

    def winners(self) -> list[int]:
        """Seats with the top total; ties share the win (rules §5). Solo: ``[0]``."""
        if self.game.solo:
            return [0]
        sc = self.scores()
        top = max(sc)
        return [p for p, s in enumerate(sc) if s == top]

    def returns(self) -> list[float]:
        """Returns by ``reward_type``; solo: ``[min(own, Otto's) / 100]`` at the end."""
        if self.game.solo:
            return [self.scores()[0] / 100.0] if self.is_terminal() else [0.0]
        return super().returns()

    # --- copies, hidden information, invariants ------------------------------------------------

    def clone(self) -> PositanoState:
        """A copy sharing no mutable object with this state."""
        s = PositanoState.__new__(PositanoState)
        s.game = self.game
        s.round = self.round
        s.phase_index = self.phase_index
        s.turn = self.turn
        s.goals = self.goals[:]
        s.star_sets = self.star_sets[:]
        s.hand_cards = [x[:] for x in self.hand_cards]
        s.hand_boosters = [x[:] for x in self.hand_boosters]
        s.played_cards = [x[:] for x in self.played_cards]
        s.played_boosters = [x[:] for x in self.played_boosters]
        s.lot_stack = self.lot_stack[:]
        s.block_stack = self.block_stack[:]
        s.build_stack = self.build_stack[:]
        s.lot_row = self.lot_row[:]
        s.block_row = self.block_row[:]
        s.build_row = self.build_row[:]
        s.removed_lots = self.removed_lots[:]
        s.lots_taken = [x[:] for x in self.lots_taken]
        s.blocks_taken = [x[:] for x in self.blocks_taken]
        s.builds_taken = [x[:] for x in self.builds_taken]
        s.owner = self.owner[:]
        s.height = self.height[:]
        s.roof = self.roof[:]
        s.personal = self.personal[:]
        s.general = self.general[:]
        s.roofs_left = self.roofs_left[:]
        o = self._orders
        s._orders = None if o is None else (o[0][:], o[1][:], o[2][:])
        s._legal = None if self._legal is None else self._legal[:]
        s._legal_sim = None
        return s

    def resample_hidden(self, player: int, rng: random.Random) -> PositanoState:
        """A copy with everything ``player`` cannot see re-drawn from ``rng``.

        Hidden from every seat: the order of the three face-down stacks and, in solo, the order
        of Otto's undrawn cards and boosters. Their contents are public (everything else is face
        up), so only the orders change; nothing public does.

        Raises:
            ValueError: If ``player`` is not a seat.
        """
        if isinstance(player, bool) or not isinstance(player, int):
            raise ValueError(f"player must be a seat number, got {player!r}")
        if not 0 <= player < self.game.num_players:
            raise ValueError(
                f"player {player} is not a seat; seats are 0..{self.game.num_players - 1}"
            )
        s = self.clone()
        # Shuffled from a canonical (sorted) order, so the copy depends on the seat's view and
        # the generator only, never on the hidden order it replaces.
        hidden = [s.lot_stack, s.block_stack, s.build_stack]
        if self.game.solo:
            hidden += [s.hand_cards[1], s.hand_boosters[1]]
        for part in hidden:
            part.sort()
            shuffle(rng, part)
        s._legal = None
        return s

    def check_invariants(self) -> None:
        """Check conservation and consistency (cards, blocks, roofs, tiles, phase, caches).

        Raises:
            AssertionError: Naming the first broken invariant.
        """
        check_state(self)
        if self._legal is not None:
            cached, self._legal = self._legal, None
            fresh = self._legal_actions()
            self._legal = cached
            if fresh != cached:
                raise AssertionError(f"stale legal-action cache {cached} != {fresh}")

    # --- serialisation -------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The full state as the JSON ``"state"`` object (schema: :mod:`.state_json`)."""
        return {
            "round": self.round,
            "phase": PHASES[self.phase_index],
            "turn": self.turn,
            "goals": list(self.goals),
            "colours": [
                {
                    "star_set": self.star_sets[c],
                    "hand_cards": list(self.hand_cards[c]),
                    "hand_boosters": list(self.hand_boosters[c]),
                    "played_cards": list(self.played_cards[c]),
                    "played_boosters": list(self.played_boosters[c]),
                    "lots": list(self.lots_taken[c]),
                    "block_tiles": list(self.blocks_taken[c]),
                    "build_tiles": list(self.builds_taken[c]),
                    "personal": self.personal[c],
                    "general": self.general[c],
                }
                for c in range(self.game.num_colours)
            ],
            "stacks": {
                "lots": list(self.lot_stack),
                "blocks": list(self.block_stack),
                "builds": list(self.build_stack),
            },
            "beach": {
                "lots": list(self.lot_row),
                "blocks": list(self.block_row),
                "builds": list(self.build_row),
            },
            "removed_lots": list(self.removed_lots),
            "owner": list(self.owner),
            "height": list(self.height),
            "roof": list(self.roof),
            "roofs_left": list(self.roofs_left),
        }

    # --- text ----------------------------------------------------------------------------------

    def action_to_string(self, action: int, player: int | None = None) -> str:
        """Readable name of an action id, e.g. ``bid #1 (60/50/10) +22`` or ``lot 2C``.

        Raises:
            ValueError: If ``action`` is not an id in 0..191.
        """
        value = as_int(action)  # Python or numpy integers; never a bool or a float
        if value is None:
            raise ValueError(f"action {action!r} is not an action id (0..191)")
        action = value
        if not 0 <= action < NUM_ACTIONS:
            raise ValueError(f"action {action} is out of range; action ids are 0..191")
        g = self.game
        rng = ACTIONS.range_of(action)
        name, index = rng.name, rng.decode(action)
        if name == "bid":
            card, b = C.BID_CARDS[index[0]], C.BOOSTERS[index[1]]
            return f"bid #{card.number} ({card.lot}/{card.block}/{card.build}) +{b.value}"
        i = index[0]
        if name == "bid_card":
            card = C.BID_CARDS[i]
            return f"bid card #{card.number} ({card.lot}/{card.block}/{card.build})"
        if name == "bid_booster":
            return f"booster +{C.BOOSTERS[i].value}"
        if name == "lot":
            return f"lot {C.lot_name(i)}"
        if name == "block":
            if i >= len(g.block_tiles):
                return f"block tile {40 + i} (not in the {g.size}×{g.size} set)"
            block = g.block_tiles[i]
            gel = f", {block.gelato} gelato" if block.gelato else ""
            return f"block tile {block.bga_id} ({block.label()}{gel})"
        if name in ("multiply", "flat"):
            mult = 0
            if self.phase_index == BLOCK_CHOICE:
                c = self.acting_colour()
                mult = g.block_tiles[self.blocks_taken[c][-1]].multiplier
            choice = f"{mult}X" if mult else "2X/3X"
            if name == "multiply":
                verb = {2: "double", 3: "triple"}.get(mult, "multiply")
                return f"{choice}: {verb} the personal supply"
            return f"{choice}: take +{mult} blocks" if mult else f"{choice}: take +2/+3 blocks"
        if name == "build_tile":
            if i >= len(g.build_tiles):
                return f"build tile {60 + i} (not in the {g.size}×{g.size} set)"
            tile = g.build_tiles[i]
            gel = f", {tile.gelato} gelato" if tile.gelato else ""
            return f"build tile {tile.bga_id} ({tile.label()}{gel})"
        if name == "height":
            h = i + 1
            where = ""
            if self.phase_index == BUILD:
                where = f" at {C.lot_name(self.current_lot())}"
            return f"build {h} block{'s' if h != 1 else ''}{where}"
        if name == "add_on":
            return f"Add-On at {C.lot_name(i)}"
        if name == "skip_add_on":
            return "skip the Add-On"
        if name == "remodel":
            return f"Remodel at {C.lot_name(i)}"
        if name == "skip_remodel":
            return "skip the Remodel"
        return "no-op"

    def public_action_string(
        self, action: int, viewer: int | None, actor: int | None = None
    ) -> str:
        """What ``viewer`` may know of ``actor``'s action: a sealed bid stays sealed (§3.1).

        At the simultaneous bid every other seat (and a spectator) learns only that a bid, a
        bid card or a booster was committed; the bid itself is public once all are revealed.
        Every other action (drafts, builds, the solo bid against revealed Otto cards) is public.
        """
        if action < A_LOT and self.phase_index == BID and not self.game.solo and viewer != actor:
            if action < A_BID_CARD:
                return "commits a sealed bid"
            if action < A_BID_BOOSTER:
                return "commits a sealed bid card"
            return "commits a sealed booster"
        return self.action_to_string(action, actor)

    def __str__(self) -> str:
        g = self.game
        nc = g.num_colours
        head = (
            f"Positano {g.config.num_players}p {g.size}x{g.size}, round {self.round}/"
            f"{g.num_rounds}, phase {self.phase()}"
        )
        if self.acting_colour() >= 0:
            head += f", acting colour {self.acting_colour()}"
        lines = [head]
        blocks = " ".join(f"{40 + t}:{g.block_tiles[t].label()}" for t in self.block_row)
        builds = " ".join(f"{60 + t}:{g.build_tiles[t].label()}" for t in self.build_row)
        lots = " ".join(C.lot_name(p) for p in self.lot_row)
        lines.append(f"beach: lots [{lots}] blocks [{blocks}] builds [{builds}]")
        lines.append(
            f"stacks: lots {len(self.lot_stack)}, blocks {len(self.block_stack)}, builds "
            f"{len(self.build_stack)}; removed lots "
            + (" ".join(C.lot_name(p) for p in self.removed_lots) or "-")
        )
        lines.append(
            f"goals: {', '.join(self.goals)}; roofs left B{self.roofs_left[0]} "
            f"S{self.roofs_left[1]} G{self.roofs_left[2]}"
        )
        for c in range(nc):
            who = "Otto" if g.solo and c == 1 else f"colour {c}"
            b = self.bid(c)
            bid = "no bid" if b is None else self.action_to_string(6 * b[0] + b[1])
            hand = " ".join(f"#{x + 1}" for x in sorted(self.hand_cards[c]))
            boost = " ".join(f"+{C.BOOSTERS[x].value}" for x in sorted(self.hand_boosters[c]))
            lines.append(
                f"{who} (stars {self.star_sets[c]}): hand [{hand} | {boost}]; {bid}; "
                f"blocks {self.personal[c]} (+{self.general[c]} general); gelato {self.gelato(c)}"
            )
        removed = set(self.removed_lots)
        empty = set(self.empty_lots())
        for r in range(g.size - 1, -1, -1):
            cells = []
            for col in range(g.size):
                p = C.lot_position(r, col)
                if self.height[p]:
                    cells.append(f"{self.owner[p]}:{self.height[p]}{'-BSG'[self.roof[p]]}")
                elif p in removed:
                    cells.append(" xx ")
                elif p in empty:
                    cells.append(" -- ")
                else:
                    cells.append("  . ")
            lines.append(f"row {r + 1} | " + " ".join(f"{x:>4}" for x in cells))
        lines.append("        " + " ".join(f"{x:>4}" for x in "ABCDE"[: g.size]))
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (
            f"PositanoState(round={self.round}, phase={self.phase()!r}, "
            f"acting_colour={self.acting_colour()})"
        )
