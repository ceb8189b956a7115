"""Positano's JSON ``"state"`` object: its schema, its loader and the consistency checks.

Pure standard library. :func:`parse_state` turns the ``"state"`` object of a document into a
:class:`~tabletop_gym.envs.positano.rules.PositanoState` (types and ranges per field first, then
the state as a whole); :func:`check_state` is the whole-state check shared by loading and
:meth:`~tabletop_gym.envs.positano.rules.PositanoState.check_invariants`.

JSON ``"state"`` object (schema 1; every list of ints unless said otherwise). Positions are
``pos = r * 5 + c`` (``r = 0`` is row 1 nearest the sea, ``c = 0`` is column A); block tile ``t``
is BGA id ``40 + t`` and build tile ``t`` BGA id ``60 + t`` of the board size's set
(:mod:`tabletop_gym.envs.positano.components`)::

    {
      "round": 1,                  # 1..number of rounds
      "phase": "bid",              # one of PHASES
      "turn": 0,                   # index of the acting colour in the draft order of the
                                   # phase's tile type (lot / block / build); 0 in bid, terminal
      "goals": ["grande", "gruppo", "bordo"],   # the 3 goal faces in play
      "colours": [                 # one object per colour (solo: [player, Otto])
        {"star_set": 3,            # tie-break star set 1..6, distinct per colour
         "hand_cards": [0, 1],     # base bid cards 0..6 in hand; sorted, except Otto's, which
         "hand_boosters": [2, 5],  #   is his face-down deck, top first (boosters likewise)
         "played_cards": [3],      # played (face-up discard), in round order; this round's
         "played_boosters": [0],   #   bid is the last entry once revealed
         "lots": [7],              # lot tiles drafted, in round order
         "block_tiles": [1],       # block tiles drafted, in round order
         "build_tiles": [0],       # build tiles drafted, in round order
         "personal": 3,            # blocks in the personal supply
         "general": 12}            # blocks left in this colour's general supply
      ],
      "stacks": {"lots": [...], "blocks": [...], "builds": [...]},  # face-down, top first
      "beach": {"lots": [...], "blocks": [...], "builds": [...]},   # face-up rows, left first
      "removed_lots": [...],       # lots removed face-up at set-up
      "owner": [-1, ...],          # 25 entries: colour of the building, or -1
      "height": [0, ...],          # 25 entries: blocks (0 = no building)
      "roof": [0, ...],            # 25 entries: 0 none, 1 Bronze, 2 Silver, 3 Gold
      "roofs_left": [6, 6, 6]      # roof pieces left per rank (Bronze, Silver, Gold)
    }

A lot drafted by a colour that had no block when building stays empty for the rest of the game
(owner -1). Loading validates types, ranges, conservation (7 cards and 6 boosters per colour,
16 blocks per colour, every tile exactly once, roofs) and the consistency of the phase, turn and
per-colour progress; anything wrong raises :class:`StateFormatError` naming the field.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from tabletop_gym.core.game import StateFormatError, shown
from tabletop_gym.envs.positano import components as C
from tabletop_gym.envs.positano.actions import BIDS
from tabletop_gym.envs.positano.components import (
    PHASE_ADD_ON as ADD_ON,
    PHASE_BID as BID,
    PHASE_BLOCK_CHOICE as BLOCK_CHOICE,
    PHASE_BUILD as BUILD,
    PHASE_DRAFT_BLOCK as DRAFT_BLOCK,
    PHASE_DRAFT_BUILD as DRAFT_BUILD,
    PHASE_DRAFT_LOT as DRAFT_LOT,
    PHASE_INDEX,
    PHASE_KIND,
    PHASE_OVER as OVER,
    PHASE_REMODEL as REMODEL,
    PHASES,
    TILE_TYPES,
)

if TYPE_CHECKING:  # the rules import this module; it needs their classes for annotations only
    from tabletop_gym.envs.positano.rules import PositanoGame, PositanoState

_NUM_CARDS, _NUM_BOOSTERS = BIDS.shape
_ALL_CARDS = list(range(_NUM_CARDS))
_ALL_BOOSTERS = list(range(_NUM_BOOSTERS))

# --------------------------------------------------------------------------------------------
# Consistency checks (shared by check_invariants and JSON loading)
# --------------------------------------------------------------------------------------------


def check_state(s: PositanoState) -> None:
    """Raise AssertionError naming the first broken invariant of ``s``."""
    g = s.game
    nc = g.num_colours
    t = g.tiles_per_round
    ph = s.phase_index

    def fail(msg: str) -> None:
        raise AssertionError(msg)

    if not 1 <= s.round <= g.num_rounds:
        fail(f"round {s.round} is out of range 1..{g.num_rounds}")
    if ph == OVER and s.round != g.num_rounds:
        fail(f"the game ends after round {g.num_rounds}, but the state is over in round {s.round}")
    if g.solo and ph in (DRAFT_LOT, DRAFT_BLOCK, DRAFT_BUILD):
        fail(f"phase {PHASES[ph]!r} has no decision in solo (tiles are allocated, rules §7)")
    if ph in (BID, OVER) and s.turn != 0:
        fail(f"turn must be 0 in phase {PHASES[ph]!r}, got {s.turn}")
    if not 0 <= s.turn < nc:
        fail(f"turn {s.turn} is out of range 0..{nc - 1}")
    # Goals (rules §1.8).
    problem = C.goal_problem(s.goals, g.size)
    if problem:
        fail(f"goals: {problem}")
    if g.fixed_goals and list(s.goals) != list(g.fixed_goals):
        fail(f"goals {s.goals} differ from the configured goals {list(g.fixed_goals)}")
    # Star sets (rules §1.3): distinct per colour.
    if len(set(s.star_sets)) != nc or not all(1 <= x <= 6 for x in s.star_sets):
        fail(f"star_sets {s.star_sets} must be {nc} distinct sets in 1..6")
    # Cards: hand + played = the 7 cards and the 6 boosters, each once (rules §1.3, §1.4, §3.1).
    for c in range(nc):
        otto = g.solo and c == 1
        if sorted(s.hand_cards[c] + s.played_cards[c]) != _ALL_CARDS:
            fail(
                f"colour {c}: hand cards {s.hand_cards[c]} and played cards "
                f"{s.played_cards[c]} must hold the 7 base bid cards 0..6 once each"
            )
        if sorted(s.hand_boosters[c] + s.played_boosters[c]) != _ALL_BOOSTERS:
            fail(
                f"colour {c}: hand boosters {s.hand_boosters[c]} and played boosters "
                f"{s.played_boosters[c]} must hold the 6 boosters 0..5 once each"
            )
        want = s.round - 1 if ph == BID and not otto else s.round
        if len(s.played_cards[c]) != want or len(s.played_boosters[c]) != want:
            fail(
                f"colour {c}: {want} cards and boosters must have been played by round "
                f"{s.round}, phase {PHASES[ph]!r}; got {len(s.played_cards[c])} and "
                f"{len(s.played_boosters[c])}"
            )
        if not otto and (
            s.hand_cards[c] != sorted(s.hand_cards[c])
            or s.hand_boosters[c] != sorted(s.hand_boosters[c])
        ):
            fail(f"colour {c}: hand lists must be sorted")
    # Draft orders follow from the revealed bids.
    if ph in (BID, OVER):
        if s._orders is not None:
            fail("draft orders must be empty outside the drafting phases")
        done = (set(), set(), set()) if ph == BID else (set(range(nc)),) * 3
    else:
        orders = s._compute_orders()
        if s._orders != orders:
            fail(f"cached draft orders {s._orders} differ from the bids' orders {orders}")
        kind = PHASE_KIND[ph]
        upto = s.turn + (1 if ph in (BLOCK_CHOICE, BUILD, ADD_ON, REMODEL) else 0)
        done_l = []
        for k in range(3):
            if k < kind:
                done_l.append(set(range(nc)))
            elif k == kind:
                done_l.append(set(orders[k][:upto]))
            else:
                done_l.append(set())
        done = (done_l[0], done_l[1], done_l[2])
    for k, taken, row in (
        (0, s.lots_taken, s.lot_row),
        (1, s.blocks_taken, s.block_row),
        (2, s.builds_taken, s.build_row),
    ):
        for c in range(nc):
            want = s.round if c in done[k] else s.round - 1
            if len(taken[c]) != want:
                fail(
                    f"colour {c} must have drafted {want} {TILE_TYPES[k]} tiles by round "
                    f"{s.round}, phase {PHASES[ph]!r}, turn {s.turn}; got {len(taken[c])}"
                )
        if len(row) != t - len(done[k]):
            fail(
                f"the Beach Board {TILE_TYPES[k]} row must hold {t - len(done[k])} tiles in "
                f"phase {PHASES[ph]!r}, turn {s.turn}; got {row}"
            )
    # Tiles: each exactly once (rules §2).
    lots = s.removed_lots + s.lot_stack + s.lot_row + [p for x in s.lots_taken for p in x]
    if sorted(lots) != sorted(g.positions):
        fail(
            "lot tiles (removed + stack + beach + drafted) must be the "
            f"{len(g.positions)} lots of the {g.size}×{g.size} cliff once each, got {sorted(lots)}"
        )
    if len(s.removed_lots) != g.lots_removed:
        fail(f"{g.lots_removed} lots are removed at set-up here, got {s.removed_lots}")
    if len(s.lot_stack) != t * (g.num_rounds - s.round):
        fail(
            f"the lot stack must hold {t * (g.num_rounds - s.round)} tiles in round {s.round}, "
            f"got {len(s.lot_stack)}"
        )
    for name, stack, row, taken, total in (
        ("block", s.block_stack, s.block_row, s.blocks_taken, len(g.block_tiles)),
        ("build", s.build_stack, s.build_row, s.builds_taken, len(g.build_tiles)),
    ):
        tiles = stack + row + [x for y in taken for x in y]
        if sorted(tiles) != list(range(total)):
            fail(
                f"{name} tiles (stack + beach + drafted) must be 0..{total - 1} once each, got "
                f"{sorted(tiles)}"
            )
    # Board (rules §4).
    on_board = set(g.positions)
    for p in range(25):
        o, h, q = s.owner[p], s.height[p], s.roof[p]
        if not (o >= 0) == (h > 0) == (q > 0):
            fail(
                f"lot {C.lot_name(p)}: owner {o}, height {h}, roof {q} must be all set (a "
                "building) or all empty (-1, 0, 0)"
            )
        if h and p not in on_board:
            fail(f"position {p} is off the {g.size}×{g.size} cliff but holds a building")
        if h > C.LOT_LEVELS[p] + C.MAX_LEVEL_BONUS:
            fail(f"lot {C.lot_name(p)}: height {h} exceeds regulation height + 2")
        if h and p not in s.lots_taken[o]:
            fail(f"lot {C.lot_name(p)}: colour {o} owns a building on a lot it did not draft")
    for c in range(nc):
        steps = [0, 0, 0, 0]
        on_cliff = 0
        for i, p in enumerate(s.lots_taken[c]):
            if s.height[p] == 0:
                continue
            if s._build_pending(c, i):
                fail(f"lot {C.lot_name(p)}: colour {c} has built before drafting its build tile")
            on_cliff += s.height[p]
            base = g.build_tiles[s.builds_taken[c][i]].roof
            if s.roof[p] < base:
                fail(
                    f"lot {C.lot_name(p)}: roof {s.roof[p]} is below the roof {base} of the "
                    "build tile drafted with it"
                )
            for k in range(base + 1, s.roof[p] + 1):
                steps[k] += 1
        for k in (C.SILVER, C.GOLD):
            if not steps[k]:
                continue
            avail = sum(
                1
                for x in s.builds_taken[c]
                if g.build_tiles[x].action == C.REMODEL and g.build_tiles[x].roof == k
            )
            if steps[k] > avail:
                fail(
                    f"colour {c}: {steps[k]} roofs upgraded to {C.ROOF_NAMES[k]} but only "
                    f"{avail} Remodel tile(s) to {C.ROOF_NAMES[k]} drafted"
                )
        if s.personal[c] < 0 or s.general[c] < 0:
            fail(f"colour {c}: negative supply (personal {s.personal[c]}, general {s.general[c]})")
        if s.personal[c] + s.general[c] + on_cliff != C.BLOCKS_PER_COLOUR:
            fail(
                f"colour {c}: personal {s.personal[c]} + general {s.general[c]} + on the cliff "
                f"{on_cliff} must be {C.BLOCKS_PER_COLOUR} blocks"
            )
    for k in (C.BRONZE, C.SILVER, C.GOLD):
        placed = s.roof.count(k)
        left = s.roofs_left[k - 1]
        if left < 0 or placed + left != g.roof_supply[k - 1]:
            fail(
                f"{C.ROOF_NAMES[k]} roofs: {placed} placed + {left} left must be "
                f"{g.roof_supply[k - 1]}"
            )
    # The pending decision must exist (rules §1.6, §4).
    if ph in (BLOCK_CHOICE, BUILD, ADD_ON, REMODEL):
        a = s.acting_colour()
        if ph == BLOCK_CHOICE:
            if not g.block_tiles[s.blocks_taken[a][-1]].multiplier:
                fail(f"phase 'block_choice' but colour {a}'s block tile is not a 2X/3X tile")
        else:
            tile = g.build_tiles[s.builds_taken[a][-1]]
            if ph == BUILD and s.personal[a] == 0:
                fail(f"phase 'build' but colour {a} has no block (it would not build, rules §4)")
            if ph == ADD_ON and (
                tile.action != C.ADD_ON
                or s.personal[a] == 0
                or not s.add_on_targets(a, tile.bonus)
            ):
                fail(f"phase 'add_on' but colour {a} has no Add-On tile, no block or no target")
            if ph == REMODEL and (
                tile.action != C.REMODEL or not s.remodel_targets(a, tile.roof)
            ):
                fail(f"phase 'remodel' but colour {a} has no Remodel tile or no target")
            if ph in (ADD_ON, REMODEL) and s.height[s.current_lot()] == 0:
                fail(f"phase {PHASES[ph]!r} but colour {a} has not built this round")


# --------------------------------------------------------------------------------------------
# JSON parsing
# --------------------------------------------------------------------------------------------

_STATE_KEYS = (
    "round",
    "phase",
    "turn",
    "goals",
    "colours",
    "stacks",
    "beach",
    "removed_lots",
    "owner",
    "height",
    "roof",
    "roofs_left",
)
_COLOUR_KEYS = (
    "star_set",
    "hand_cards",
    "hand_boosters",
    "played_cards",
    "played_boosters",
    "lots",
    "block_tiles",
    "build_tiles",
    "personal",
    "general",
)
_ROW_KEYS = ("lots", "blocks", "builds")


def _keys(obj: Any, keys: Sequence[str], where: str) -> dict[str, Any]:
    if not isinstance(obj, dict):
        raise StateFormatError(f"{where} must be a JSON object, got {type(obj).__name__}")
    missing = [k for k in keys if k not in obj]
    extra = sorted(k for k in obj if k not in keys)
    if missing:
        raise StateFormatError(f"{where} lacks key(s) {missing}; required: {list(keys)}")
    if extra:
        raise StateFormatError(f"{where} has unknown key(s) {extra}; allowed: {list(keys)}")
    return obj


def _int(v: Any, where: str, lo: int, hi: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise StateFormatError(f"{where} must be an integer, got {shown(v)}")
    if not lo <= v <= hi:
        raise StateFormatError(f"{where} = {v} is out of range {lo}..{hi}")
    return v


def _ints(v: Any, where: str, lo: int, hi: int, length: int | None = None) -> list[int]:
    if not isinstance(v, list):
        raise StateFormatError(f"{where} must be a list of integers, got {shown(v)}")
    if length is not None and len(v) != length:
        raise StateFormatError(f"{where} must have {length} entries, got {len(v)}")
    return [_int(x, f"{where}[{i}]", lo, hi) for i, x in enumerate(v)]


def parse_state(
    g: PositanoGame, data: dict[str, Any], state_type: type[PositanoState]
) -> PositanoState:
    """Parse the ``"state"`` object (types and ranges per field), then check it as a whole.

    Args:
        g: The game the state belongs to.
        data: The ``"state"`` object.
        state_type: The state class to fill (the rules pass theirs; this module does not
            import them).

    Raises:
        StateFormatError: Naming the first field that is wrong and what is allowed.
    """
    _keys(data, _STATE_KEYS, "state")
    nc = g.num_colours
    s = state_type.__new__(state_type)
    s.game = g
    s.round = _int(data["round"], "round", 1, g.num_rounds)
    phase = data["phase"]
    # Checked as a string first: a list or object is unhashable and must not reach the lookup.
    if not isinstance(phase, str) or phase not in PHASE_INDEX:
        raise StateFormatError(f"phase {shown(phase)} is unknown; phases are {list(PHASES)}")
    s.phase_index = PHASE_INDEX[phase]
    s.turn = _int(data["turn"], "turn", 0, nc - 1)
    goals = data["goals"]
    if not isinstance(goals, list) or not all(isinstance(x, str) for x in goals):
        raise StateFormatError(f"goals must be a list of goal names, got {shown(goals)}")
    problem = C.goal_problem(goals, g.size)
    if problem:
        raise StateFormatError(f"goals: {problem}")
    s.goals = list(goals)
    cols = data["colours"]
    if not isinstance(cols, list) or len(cols) != nc:
        raise StateFormatError(f"colours must be a list of {nc} objects (one per colour)")
    n_block, n_build = len(g.block_tiles), len(g.build_tiles)
    s.star_sets, s.hand_cards, s.hand_boosters = [], [], []
    s.played_cards, s.played_boosters = [], []
    s.lots_taken, s.blocks_taken, s.builds_taken = [], [], []
    s.personal, s.general = [], []
    for c, col in enumerate(cols):
        w = f"colours[{c}]"
        _keys(col, _COLOUR_KEYS, w)
        otto = g.solo and c == 1
        s.star_sets.append(_int(col["star_set"], f"{w}.star_set", 1, C.NUM_STAR_SETS))
        hc = _ints(col["hand_cards"], f"{w}.hand_cards", 0, _NUM_CARDS - 1)
        hb = _ints(col["hand_boosters"], f"{w}.hand_boosters", 0, _NUM_BOOSTERS - 1)
        # Hands are sets except Otto's face-down decks, whose order is the draw order.
        s.hand_cards.append(hc if otto else sorted(hc))
        s.hand_boosters.append(hb if otto else sorted(hb))
        s.played_cards.append(_ints(col["played_cards"], f"{w}.played_cards", 0, _NUM_CARDS - 1))
        s.played_boosters.append(
            _ints(col["played_boosters"], f"{w}.played_boosters", 0, _NUM_BOOSTERS - 1)
        )
        s.lots_taken.append(_ints(col["lots"], f"{w}.lots", 0, 24))
        s.blocks_taken.append(_ints(col["block_tiles"], f"{w}.block_tiles", 0, n_block - 1))
        s.builds_taken.append(_ints(col["build_tiles"], f"{w}.build_tiles", 0, n_build - 1))
        s.personal.append(_int(col["personal"], f"{w}.personal", 0, C.BLOCKS_PER_COLOUR))
        s.general.append(_int(col["general"], f"{w}.general", 0, C.START_GENERAL))
    stacks = _keys(data["stacks"], _ROW_KEYS, "stacks")
    beach = _keys(data["beach"], _ROW_KEYS, "beach")
    s.lot_stack = _ints(stacks["lots"], "stacks.lots", 0, 24)
    s.block_stack = _ints(stacks["blocks"], "stacks.blocks", 0, n_block - 1)
    s.build_stack = _ints(stacks["builds"], "stacks.builds", 0, n_build - 1)
    s.lot_row = _ints(beach["lots"], "beach.lots", 0, 24)
    s.block_row = _ints(beach["blocks"], "beach.blocks", 0, n_block - 1)
    s.build_row = _ints(beach["builds"], "beach.builds", 0, n_build - 1)
    s.removed_lots = _ints(data["removed_lots"], "removed_lots", 0, 24)
    s.owner = _ints(data["owner"], "owner", -1, nc - 1, 25)
    s.height = _ints(data["height"], "height", 0, 5 + C.MAX_LEVEL_BONUS, 25)
    s.roof = _ints(data["roof"], "roof", 0, 3, 25)
    s.roofs_left = _ints(data["roofs_left"], "roofs_left", 0, 99, 3)
    s._legal = None
    s._legal_sim = None
    s._orders = None
    # Orders need this round's bids; check the card counts first so the lookup cannot fail.
    for c in range(nc):
        want = s.round - 1 if s.phase_index == BID and not (g.solo and c == 1) else s.round
        if s.phase_index == OVER:
            want = s.round
        if len(s.played_cards[c]) != want or len(s.played_boosters[c]) != want:
            raise StateFormatError(
                f"colours[{c}]: {want} cards and boosters must have been played by round "
                f"{s.round}, phase {shown(phase)}; got {len(s.played_cards[c])} and "
                f"{len(s.played_boosters[c])}"
            )
    if s.phase_index not in (BID, OVER):
        s._orders = s._compute_orders()
    try:
        check_state(s)
    except AssertionError as exc:
        raise StateFormatError(f"inconsistent state: {exc}") from None
    return s
