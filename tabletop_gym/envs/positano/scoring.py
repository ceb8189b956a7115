"""Positano end-of-game scoring: sea view (rules §5.1) and the 13 goals (rules §1.8, §5.3).

Pure standard library, no state: every function reads the per-lot arrays of the shared Positano
conventions and returns fresh lists, so the engine can call it on a live state or on a position
written by hand.

Board conventions (rules §1.2):

* A lot is indexed ``pos = r * 5 + c`` with ``r = 0..4`` (``r = 0`` is row 1, the lowest row,
  nearest the sea) and ``c = 0..4`` (``c = 0`` is column A). On the 4×4 cliff only ``r, c < 4``
  exist and every other position must be empty.
* Level (= regulation height) of a lot is ``r + 1``.
* Per-lot arrays have 25 entries: ``owner`` (colour, or -1), ``height`` (blocks, 0 = no building),
  ``roof`` (0 none, 1 Bronze, 2 Silver, 3 Gold). A building is a lot with ``height > 0``; it must
  have an owner and a roof. An empty lot may keep an owner (a lot drafted by a player who had no
  block to build with stays empty, rules §4) and is ignored by every goal.

Competition goals (rules §5.3) rank each colour by a comparison key, a tuple compared
lexicographically: ``(counted buildings, blocks in those buildings)`` for most goals, the size and
blocks of the largest group for Gruppo, the best column for Colonna, and ``(leftover blocks,)``
for Eccesso. A colour with no counted item has no key (``None``) and scores nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

from tabletop_gym.envs.positano.components import (
    BOARD_SIZES,
    COMPETITION_POINTS,
    GOAL_NAMES,
    GOALS,
    LOT_LEVELS,
    LOTS_IN_FRONT,
    MAX_LEVEL_BONUS,
    NUM_POSITIONS,
    board_positions,
    column_lots,
    lot_name,
    lot_position,
    neighbours,
    on_cliff,
)

__all__ = [
    "COMPETITION_GOALS",
    "GOAL_NAMES",
    "GOAL_POINTS",
    "REGION_GOALS",
    "ROOF_VALUES",
    "building_points",
    "colour_building_points",
    "competition_keys",
    "competition_points",
    "goal_points",
    "goal_valid_for_size",
    "hidden_blocks",
    "in_region",
    "region_lots",
    "visible_blocks",
]

BOARD_POSITIONS = NUM_POSITIONS
"""Length of every per-lot array (the 5×5 layout is used for both board sizes)."""

COMPETITION_GOALS: frozenset[str] = frozenset(
    goal for goal, info in GOALS.items() if info.kind == "competition"
)
"""Goals scored 6 / 3 for 1st / 2nd place (rules §5.3); the others score per item or once."""

GOAL_POINTS: dict[str, int] = {
    goal: info.points for goal, info in GOALS.items() if info.kind != "competition"
}
"""Points per item (once for Equilibrato) of the non-competition goals (rules §1.8)."""

FIRST_PLACE_POINTS, SECOND_PLACE_POINTS = COMPETITION_POINTS

ROOF_VALUES: tuple[int, int, int, int] = (0, 1, 2, 3)
"""Points per viewing block by roof code: none, Bronze, Silver, Gold (rules §5.1)."""

_MAX_ABOVE_REGULATION = MAX_LEVEL_BONUS  # rules §4: never above Regulation Height + 2


def goal_valid_for_size(goal: str, size: int) -> bool:
    """Say whether a goal can be in play on a cliff of the given size.

    Args:
        goal: A name from :data:`GOAL_NAMES`.
        size: The board size, 4 or 5.

    Returns:
        False for Mezzo on 5×5 and Centro on 4×4 (rules §1.8: Centro replaces Mezzo on 5×5),
        True for every other goal name.

    Raises:
        ValueError: If ``goal`` is not a goal name or ``size`` is not 4 or 5.
    """
    _check_goal_name(goal)
    _check_size(size)
    if goal == "mezzo":
        return size == 4
    if goal == "centro":
        return size == 5
    return True


# --------------------------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------------------------


def _check_goal_name(goal: str) -> None:
    if goal not in GOAL_NAMES:
        raise ValueError(f"unknown Positano goal {goal!r}; allowed goals: {', '.join(GOAL_NAMES)}")


def _check_size(size: int) -> None:
    if type(size) is not int or size not in (4, 5):
        raise ValueError(f"board size must be 4 or 5, got {size!r}")


def _check_length(name: str, values: Sequence[int], expected: int) -> None:
    if len(values) != expected:
        raise ValueError(f"{name} must have {expected} entries, got {len(values)}")


def _check_heights(height: Sequence[int], size: int) -> None:
    _check_size(size)
    _check_length("height", height, BOARD_POSITIONS)
    for pos in range(BOARD_POSITIONS):
        h = height[pos]
        if not on_cliff(pos, size):
            if h != 0:
                raise ValueError(
                    f"height[{pos}] = {h!r}, but position {pos} is off the {size}x{size} cliff "
                    "and must stay empty (0)"
                )
            continue
        limit = LOT_LEVELS[pos] + _MAX_ABOVE_REGULATION
        if type(h) is not int or h < 0 or h > limit:
            raise ValueError(
                f"height[{pos}] (lot {_lot_name(pos)}) = {h!r}; allowed 0..{limit} "
                "(regulation height + 2, rules §4)"
            )


def _check_roofs(height: Sequence[int], roof: Sequence[int]) -> None:
    _check_length("roof", roof, BOARD_POSITIONS)
    for pos in range(BOARD_POSITIONS):
        q = roof[pos]
        if height[pos] > 0:
            if type(q) is not int or q not in (1, 2, 3):
                raise ValueError(
                    f"roof[{pos}] (lot {_lot_name(pos)}) = {q!r}; a building needs a roof "
                    "1 (Bronze), 2 (Silver) or 3 (Gold)"
                )
        elif q != 0:
            raise ValueError(
                f"roof[{pos}] (lot {_lot_name(pos)}) = {q!r} on an empty lot; allowed: 0"
            )


def _check_owners(owner: Sequence[int], height: Sequence[int], num_colours: int) -> None:
    _check_length("owner", owner, BOARD_POSITIONS)
    for pos in range(BOARD_POSITIONS):
        o = owner[pos]
        if type(o) is not int or o < -1 or o >= num_colours:
            raise ValueError(
                f"owner[{pos}] (lot {_lot_name(pos)}) = {o!r}; allowed -1..{num_colours - 1}"
            )
        if o == -1 and height[pos] > 0:
            raise ValueError(
                f"owner[{pos}] (lot {_lot_name(pos)}) is -1 but a building stands there"
            )


def _check_num_colours(num_colours: int) -> None:
    if type(num_colours) is not int or not 1 <= num_colours <= 6:
        raise ValueError(f"num_colours must be an int in 1..6, got {num_colours!r}")


def _check_supply(personal_supply: Sequence[int], num_colours: int) -> None:
    _check_length("personal_supply", personal_supply, num_colours)
    for s, n in enumerate(personal_supply):
        if type(n) is not int or not 0 <= n <= 16:
            raise ValueError(f"personal_supply[{s}] = {n!r}; allowed 0..16 (16 blocks per colour)")


_lot_name = lot_name


# --------------------------------------------------------------------------------------------
# Sea view (rules §5.1)
# --------------------------------------------------------------------------------------------


def hidden_blocks(height: Sequence[int], pos: int) -> int:
    """Bottom blocks of a building at ``pos`` hidden by the buildings now in front (rules §5.1).

    Each row back stands one block higher, so a building k rows in front with h' blocks reaches
    h' - k blocks up this building; the hidden part is the maximum over the column in front
    (0 on the front row), and roofs never block. The one home of the sea-view rule: scoring,
    the observer and the heuristic bot all call it.

    Args:
        height: 25 block counts, ``pos = r * 5 + c`` (not checked).
        pos: A lot position 0..24.
    """
    hidden = 0
    for k, p in enumerate(LOTS_IN_FRONT[pos], 1):
        cover = height[p] - k
        if cover > hidden:
            hidden = cover
    return hidden


def _visible(height: Sequence[int], size: int) -> list[int]:
    visible = [0] * BOARD_POSITIONS
    for c in range(size):
        for pos in column_lots(c, size):
            h = height[pos]
            if h == 0:
                continue
            hidden = hidden_blocks(height, pos)
            if h > hidden:
                visible[pos] = h - hidden
    return visible


def visible_blocks(height: Sequence[int], size: int) -> list[int]:
    """Count the blocks of each building that have a sea view (rules §5.1).

    A building on row r (0-based) is covered by a building k rows in front of it in the same
    column with h' blocks up to its bottom ``h' - k`` blocks; the hidden part is the maximum over
    every building in front, and roofs never block.

    Args:
        height: 25 block counts, ``pos = r * 5 + c``.
        size: The board size, 4 or 5.

    Returns:
        25 entries: the number of viewing blocks of the building at each position (0 where no
        building stands).

    Raises:
        ValueError: If ``size`` is not 4 or 5, ``height`` does not have 25 entries, a height is
            out of range, or a position off the cliff holds blocks.
    """
    _check_heights(height, size)
    return _visible(height, size)


def building_points(
    height: Sequence[int], roof: Sequence[int], size: int, *, check: bool = True
) -> list[int]:
    """Score every building's sea view: viewing blocks times the roof value (rules §5.1).

    Args:
        height: 25 block counts, ``pos = r * 5 + c``.
        roof: 25 roof codes: 0 none, 1 Bronze (1 point per viewing block), 2 Silver (2),
            3 Gold (3).
        size: The board size, 4 or 5.
        check: Validate the inputs (the engine, whose positions are valid by
            construction, skips it).

    Returns:
        25 entries: the points of the building at each position (0 where none stands).

    Raises:
        ValueError: On a bad size, wrong array lengths, an out-of-range height, a building without
            a roof or a roof on an empty lot.
    """
    if check:
        _check_heights(height, size)
        _check_roofs(height, roof)
    visible = _visible(height, size)
    return [visible[pos] * roof[pos] for pos in range(BOARD_POSITIONS)]


def colour_building_points(
    owner: Sequence[int],
    height: Sequence[int],
    roof: Sequence[int],
    num_colours: int,
    size: int,
) -> list[int]:
    """Sum the sea-view points of each colour's buildings (rules §5.1).

    Args:
        owner: 25 owners (colour, or -1).
        height: 25 block counts.
        roof: 25 roof codes (0 none, 1 Bronze, 2 Silver, 3 Gold).
        num_colours: Number of colours in the game (solo: 2, Otto Amalfi is colour 1).
        size: The board size, 4 or 5.

    Returns:
        ``num_colours`` totals, indexed by colour.

    Raises:
        ValueError: On any malformed array (see :func:`building_points`) or a bad owner.
    """
    _check_num_colours(num_colours)
    points = building_points(height, roof, size)
    _check_owners(owner, height, num_colours)
    totals = [0] * num_colours
    for pos in range(BOARD_POSITIONS):
        if height[pos] > 0:
            totals[owner[pos]] += points[pos]
    return totals


# --------------------------------------------------------------------------------------------
# Competition ranking (rules §5.3)
# --------------------------------------------------------------------------------------------


def competition_points(keys: Sequence[tuple[int, ...] | None]) -> list[int]:
    """Award 1st / 2nd place points of a competition goal (rules §5.3).

    The highest key scores 6 and the next highest 3. Colours tied for 1st split 6 + 3 = 9,
    rounded down, and nobody is 2nd. Colours tied for 2nd split 3, rounded down. A colour whose
    key is ``None`` (no counted item) is not ranked at all: it scores 0 and never takes 2nd.

    Args:
        keys: One entry per colour: its comparison key (a tuple of ints compared
            lexicographically, all of one length), or None when the colour is not eligible.

    Returns:
        Points per colour.

    Raises:
        ValueError: If a key is neither None nor a tuple of ints, or keys differ in length.
    """
    width = -1
    for s, key in enumerate(keys):
        if key is None:
            continue
        if type(key) is not tuple or not key or any(type(v) is not int for v in key):
            raise ValueError(
                f"keys[{s}] = {key!r}; a key must be None or a non-empty tuple of ints"
            )
        if width == -1:
            width = len(key)
        elif len(key) != width:
            raise ValueError(f"keys[{s}] = {key!r} has {len(key)} parts, others have {width}")
    return _competition_points(keys)


def _competition_points(keys: Sequence[tuple[int, ...] | None]) -> list[int]:
    # competition_points on keys known to be well formed (goal_points makes them itself).
    points = [0] * len(keys)
    ranked = [key for key in keys if key is not None]
    if not ranked:
        return points
    best = max(ranked)
    firsts = [s for s, key in enumerate(keys) if key == best]
    if len(firsts) > 1:
        share = (FIRST_PLACE_POINTS + SECOND_PLACE_POINTS) // len(firsts)
        for s in firsts:
            points[s] = share
        return points
    points[firsts[0]] = FIRST_PLACE_POINTS
    rest = [key for key in ranked if key != best]
    if not rest:
        return points
    second = max(rest)
    seconds = [s for s, key in enumerate(keys) if key == second]
    share = SECOND_PLACE_POINTS // len(seconds)
    for s in seconds:
        points[s] = share
    return points


def _region_keys(
    owner: Sequence[int],
    height: Sequence[int],
    num_colours: int,
    lots: Sequence[int],
) -> list[tuple[int, ...] | None]:
    counts = [0] * num_colours
    blocks = [0] * num_colours
    for pos in lots:
        h = height[pos]
        if h > 0:
            counts[owner[pos]] += 1
            blocks[owner[pos]] += h
    return [(counts[s], blocks[s]) if counts[s] else None for s in range(num_colours)]


def _group_keys(
    owner: Sequence[int], height: Sequence[int], num_colours: int, size: int
) -> list[tuple[int, ...] | None]:
    # Each building is visited once, so a group's size counts distinct buildings (the BGA code
    # re-adds the start building and inflates groups, rules §9 item 7a; not copied).
    keys: list[tuple[int, ...] | None] = [None] * num_colours
    seen = [False] * BOARD_POSITIONS
    for start in range(BOARD_POSITIONS):
        if height[start] == 0 or seen[start]:
            continue
        colour = owner[start]
        seen[start] = True
        stack = [start]
        count = 0
        blocks = 0
        while stack:
            pos = stack.pop()
            count += 1
            blocks += height[pos]
            for nxt in neighbours(pos, size):
                if not seen[nxt] and height[nxt] > 0 and owner[nxt] == colour:
                    seen[nxt] = True
                    stack.append(nxt)
        key = (count, blocks)
        old = keys[colour]
        if old is None or key > old:
            keys[colour] = key
    return keys


def _column_keys(
    owner: Sequence[int], height: Sequence[int], num_colours: int, size: int
) -> list[tuple[int, ...] | None]:
    keys: list[tuple[int, ...] | None] = [None] * num_colours
    for c in range(size):
        column = column_lots(c, size)
        for colour, key in enumerate(_region_keys(owner, height, num_colours, column)):
            if key is not None:
                old = keys[colour]
                if old is None or key > old:
                    keys[colour] = key
    return keys


def _lots(size: int, rows: Sequence[int], cols: Sequence[int]) -> list[int]:
    return [lot_position(r, c) for r in rows for c in cols if r < size and c < size]


def _region(goal: str, size: int) -> tuple[int, ...]:
    every_row = range(size)
    if goal == "dietro":  # the two back rows
        return tuple(_lots(size, (size - 2, size - 1), every_row))
    if goal == "bordo":  # the outer columns
        return tuple(_lots(size, every_row, (0, size - 1)))
    if goal == "mezzo":  # columns B and C
        return tuple(_lots(size, every_row, (1, 2)))
    return tuple(_lots(size, (1, 2, 3), (1, 2, 3)))  # centro: rows 2-4 x columns B-D


REGION_GOALS: tuple[str, ...] = ("dietro", "bordo", "mezzo", "centro")
"""Competition goals that count the buildings standing in a fixed region (rules §5.3)."""

_REGIONS: dict[tuple[str, int], tuple[int, ...]] = {
    (goal, size): _region(goal, size) for goal in REGION_GOALS for size in (4, 5)
}


_CLIFF: dict[int, tuple[int, ...]] = {size: board_positions(size) for size in BOARD_SIZES}
"""Every lot of a ``size`` cliff, ascending (Grande's candidates)."""


def region_lots(goal: str, size: int) -> tuple[int, ...]:
    """Positions (ascending) of the region a region goal counts on a ``size`` cliff (§5.3).

    Raises:
        KeyError: If ``goal`` is not in :data:`REGION_GOALS` or ``size`` is not 4 or 5.
    """
    return _REGIONS[(goal, size)]


def in_region(goal: str, pos: int, size: int) -> bool:
    """Whether the lot at ``pos`` lies in the region of region goal ``goal`` (rules §5.3)."""
    return pos in _REGIONS[(goal, size)]


def _competition_keys(
    goal: str,
    owner: Sequence[int],
    height: Sequence[int],
    personal_supply: Sequence[int],
    num_colours: int,
    size: int,
) -> list[tuple[int, ...] | None]:
    if goal == "grande":
        above = [p for p in _CLIFF[size] if height[p] > LOT_LEVELS[p]]
        return _region_keys(owner, height, num_colours, above)
    if goal == "gruppo":
        return _group_keys(owner, height, num_colours, size)
    if goal == "eccesso":
        # The key is the block count itself: there is no further tiebreak (rules §5.3).
        return [(n,) if n > 0 else None for n in personal_supply]
    if goal == "colonna":
        return _column_keys(owner, height, num_colours, size)
    return _region_keys(owner, height, num_colours, _REGIONS[(goal, size)])


def _check_goal_inputs(
    goal: str,
    owner: Sequence[int],
    height: Sequence[int],
    roof: Sequence[int],
    personal_supply: Sequence[int],
    num_colours: int,
    size: int,
) -> None:
    if not goal_valid_for_size(goal, size):
        other = "centro" if goal == "mezzo" else "mezzo"
        raise ValueError(
            f"goal {goal!r} is not played on the {size}x{size} cliff (use {other!r}; "
            "Mezzo is 4x4 only, Centro 5x5 only, rules §1.8)"
        )
    _check_num_colours(num_colours)
    _check_heights(height, size)
    _check_roofs(height, roof)
    _check_owners(owner, height, num_colours)
    _check_supply(personal_supply, num_colours)


def competition_keys(
    goal: str,
    owner: Sequence[int],
    height: Sequence[int],
    roof: Sequence[int],
    personal_supply: Sequence[int],
    num_colours: int,
    size: int,
) -> list[tuple[int, ...] | None]:
    """Compute each colour's comparison key for a competition goal (rules §5.3).

    Keys: Grande, Dietro, Bordo, Mezzo, Centro ``(buildings counted, blocks in them)``; Gruppo
    ``(distinct buildings in the largest orthogonal group, its blocks)`` taking the group with the
    most blocks among the largest; Colonna the best single column by ``(buildings, blocks)``;
    Eccesso ``(leftover personal-supply blocks,)``. ``None`` when the colour counts nothing.

    Args:
        goal: A name in :data:`COMPETITION_GOALS`.
        owner: 25 owners (colour, or -1).
        height: 25 block counts.
        roof: 25 roof codes (checked for consistency only).
        personal_supply: Blocks left in each colour's personal supply.
        num_colours: Number of colours in the game.
        size: The board size, 4 or 5.

    Returns:
        One key (or None) per colour, ready for :func:`competition_points`.

    Raises:
        ValueError: On a bad or non-competition goal name, a goal not played on this board size,
            or malformed arrays.
    """
    _check_goal_name(goal)
    if goal not in COMPETITION_GOALS:
        raise ValueError(
            f"goal {goal!r} is not a competition goal; competition goals: "
            f"{', '.join(g for g in GOAL_NAMES if g in COMPETITION_GOALS)}"
        )
    _check_goal_inputs(goal, owner, height, roof, personal_supply, num_colours, size)
    return _competition_keys(goal, owner, height, personal_supply, num_colours, size)


# --------------------------------------------------------------------------------------------
# Goal points (rules §1.8, §5.3)
# --------------------------------------------------------------------------------------------


def _item_points(
    goal: str,
    owner: Sequence[int],
    height: Sequence[int],
    roof: Sequence[int],
    num_colours: int,
    size: int,
) -> list[int]:
    points = [0] * num_colours
    if goal == "altezza":
        heights: list[set[int]] = [set() for _ in range(num_colours)]
        for pos in range(BOARD_POSITIONS):
            if height[pos] > 0:
                heights[owner[pos]].add(height[pos])
        return [GOAL_POINTS[goal] * len(hs) for hs in heights]
    if goal == "equilibrato":
        roofs: list[set[int]] = [set() for _ in range(num_colours)]
        for pos in range(BOARD_POSITIONS):
            if height[pos] > 0:
                roofs[owner[pos]].add(roof[pos])
        return [GOAL_POINTS[goal] if len(rs) == 3 else 0 for rs in roofs]
    each = GOAL_POINTS[goal]
    for pos in range(BOARD_POSITIONS):
        h = height[pos]
        if h == 0:
            continue
        colour = owner[pos]
        level = LOT_LEVELS[pos]
        if goal == "piccolo":
            counted = h < level
        elif goal == "perfetto":
            counted = h == level
        else:  # solitario: diagonal neighbours and other colours do not matter
            counted = not any(height[n] > 0 and owner[n] == colour for n in neighbours(pos, size))
        if counted:
            points[colour] += each
    return points


def goal_points(
    goal: str,
    owner: Sequence[int],
    height: Sequence[int],
    roof: Sequence[int],
    personal_supply: Sequence[int],
    num_colours: int,
    size: int,
    *,
    check: bool = True,
) -> list[int]:
    """Score one goal card face for every colour (rules §1.8, §5.3).

    Per-item goals: Piccolo 3 per building below regulation height (height < level), Solitario 2
    per building with no orthogonally adjacent building of its colour, Perfetto 2 per building at
    exactly regulation height, Altezza 2 per distinct height among the colour's buildings.
    Threshold goal: Equilibrato 5 once for at least one Bronze, one Silver and one Gold roof.
    Competition goals (Grande, Gruppo, Eccesso, Dietro, Colonna, Bordo, Mezzo, Centro): 6 / 3
    with the tie rules of :func:`competition_points` on the keys of :func:`competition_keys`.

    Args:
        goal: A name from :data:`GOAL_NAMES`.
        owner: 25 owners (colour, or -1).
        height: 25 block counts.
        roof: 25 roof codes (0 none, 1 Bronze, 2 Silver, 3 Gold).
        personal_supply: Blocks left in each colour's personal supply (used by Eccesso).
        num_colours: Number of colours in the game (solo: 2, Otto Amalfi is colour 1).
        size: The board size, 4 or 5.
        check: Validate the inputs (the engine, whose positions are valid by
            construction, skips it).

    Returns:
        Points per colour.

    Raises:
        ValueError: On an unknown goal, a goal not played on this board size (Mezzo is 4×4 only,
            Centro 5×5 only), or arrays of the wrong length or with out-of-range values.
    """
    if check:
        _check_goal_name(goal)
        _check_goal_inputs(goal, owner, height, roof, personal_supply, num_colours, size)
    if goal in COMPETITION_GOALS:
        return _competition_points(
            _competition_keys(goal, owner, height, personal_supply, num_colours, size)
        )
    return _item_points(goal, owner, height, roof, num_colours, size)
