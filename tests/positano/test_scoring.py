"""Hand-worked tests of Positano final scoring (rules §5: sea view, goals and their tie rules).

Every expected value below is worked out by hand from the rules reference
(``docs/rules/positano.md``); the working is in the comments. Positions are written as lot
names ("2C" = row 2, column C); the helper turns them into the shared 25-entry arrays
(pos = r * 5 + c, r = row - 1).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from tabletop_gym.envs.positano import scoring
from tabletop_gym.envs.positano.scoring import (
    COMPETITION_GOALS,
    GOAL_NAMES,
    building_points,
    colour_building_points,
    competition_keys,
    competition_points,
    goal_points,
    goal_valid_for_size,
    visible_blocks,
)

B, S, G = 1, 2, 3  # roof codes: Bronze, Silver, Gold


def lot(name: str) -> int:
    """Position of a lot name such as "2C"."""
    return (int(name[0]) - 1) * 5 + "ABCDE".index(name[1])


def heights(spec: dict[str, int]) -> list[int]:
    height = [0] * 25
    for name, h in spec.items():
        height[lot(name)] = h
    return height


def cliff(spec: dict[str, tuple[int, int, int]]) -> tuple[list[int], list[int], list[int]]:
    """Arrays (owner, height, roof) from {"2C": (colour, blocks, roof)}."""
    owner, height, roof = [-1] * 25, [0] * 25, [0] * 25
    for name, (colour, h, q) in spec.items():
        pos = lot(name)
        owner[pos], height[pos], roof[pos] = colour, h, q
    return owner, height, roof


def at(values: list[int], *names: str) -> list[int]:
    return [values[lot(n)] for n in names]


def score(goal: str, spec, num_colours: int, size: int = 4, supply=None) -> list[int]:
    owner, height, roof = cliff(spec)
    supply = [0] * num_colours if supply is None else supply
    return goal_points(goal, owner, height, roof, supply, num_colours, size)


def keys(goal: str, spec, num_colours: int, size: int = 4, supply=None):
    owner, height, roof = cliff(spec)
    supply = [0] * num_colours if supply is None else supply
    return competition_keys(goal, owner, height, roof, supply, num_colours, size)


# ------------------------------------------------------------------------------------------------
# API and purity
# ------------------------------------------------------------------------------------------------


def test_goal_names_and_competition_set():
    # rules §1.8: 12 goals on 6 double-sided cards, Centro replacing Mezzo on 5×5.
    assert GOAL_NAMES == (
        "grande", "piccolo", "solitario", "gruppo", "eccesso", "equilibrato", "dietro",
        "colonna", "bordo", "mezzo", "centro", "perfetto", "altezza",
    )  # fmt: skip
    # rules §5.3: the 6 / 3 goals.
    assert (
        frozenset(("grande", "gruppo", "eccesso", "dietro", "colonna", "bordo", "mezzo", "centro"))
        == COMPETITION_GOALS
    )


def test_scoring_imports_only_the_standard_library_and_the_component_tables():
    # House rule: rules code is pure standard library (plus the pure component tables).
    tree = ast.parse(Path(scoring.__file__).read_text(encoding="utf-8"))
    modules = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, "relative import in scoring.py"
            modules.append(node.module or "")
    assert modules, "expected at least the __future__ import"
    for name in modules:
        top = name.split(".")[0]
        pure = name == "tabletop_gym.envs.positano.components"
        assert pure or top == "__future__" or top in sys.stdlib_module_names, name


# ------------------------------------------------------------------------------------------------
# Sea view (rules §1.2 elevation model, §5.1 algorithm)
#
# Pictures show one column from the side, the sea on the left. A block on row r that is the j-th
# block of its building sits at elevation r + j - 1. "v" = block with a view, "x" = hidden
# block, "^" = a roof (never blocks), "=" = the bare cliff step. A building k rows in front with
# h' blocks hides the bottom h' - k blocks; the maximum over all buildings in front counts.
# ------------------------------------------------------------------------------------------------


def test_sea_view_spec_example_two_blocks_behind_two_blocks():
    # rules §5.1 example: 1C has 2 blocks (elevations 1-2), 2C has 2 blocks (elevations 2-3).
    #
    #  elev 4 |         ^
    #  elev 3 |   ^     v      2C's top block (elev 3) is above 1C's top (elev 2): view
    #  elev 2 |   v     x      2C's bottom block is level with 1C's 2nd block: hidden
    #  elev 1 |   v     =
    #         +--1C----2C--
    # 1C: nothing in front -> 2. 2C: hidden = 2 - 1 = 1 -> 2 - 1 = 1.
    vis = visible_blocks(heights({"1C": 2, "2C": 2}), 4)
    assert at(vis, "1C", "2C") == [2, 1]
    assert sum(vis) == 3


def test_sea_view_spec_example_three_blocks_hide_two():
    # rules §5.1 example: were 1C 3 blocks tall, its 3rd block hides 2C's 2nd block too.
    #
    #  elev 3 |   v     x
    #  elev 2 |   v     x
    #  elev 1 |   v     =
    #         +--1C----2C--
    # 2C: hidden = 3 - 1 = 2 >= its 2 blocks -> 0.
    vis = visible_blocks(heights({"1C": 3, "2C": 2}), 4)
    assert at(vis, "1C", "2C") == [3, 0]


def test_roofs_never_block():
    # rules §5.1: a block partly obscured by the tip of a roof in front still counts.
    # Column A: 1A = 1 block under a Gold roof, 2A = 1 block under Bronze.
    #
    #  elev 2 |   ^     v      1A's roof tip is level with 2A's block, but roofs never block
    #  elev 1 |   v     =
    #         +--1A----2A--
    # 2A: hidden = 1 - 1 = 0 -> 1 block, Bronze -> 1 point; 1A: 1 block, Gold -> 3 points.
    # Column B: 1B = 2 (Silver), 2B = 2 (Silver).
    #
    #  elev 3 |   ^     v      2B's top block sits behind 1B's roof only: view
    #  elev 2 |   v     x
    #  elev 1 |   v     =
    #         +--1B----2B--
    # 2B: hidden = 2 - 1 = 1 -> 1 block x 2 = 2 points; 1B: 2 x 2 = 4 points.
    height = heights({"1A": 1, "2A": 1, "1B": 2, "2B": 2})
    roof = heights({"1A": G, "2A": B, "1B": S, "2B": S})
    assert at(visible_blocks(height, 4), "1A", "2A", "1B", "2B") == [1, 1, 2, 1]
    assert at(building_points(height, roof, 4), "1A", "2A", "1B", "2B") == [3, 1, 4, 2]


def test_tall_front_building_hides_several_rows():
    # rules §5.1: column B with 1B = 3 blocks (elev 1-3) and 1-block buildings on 2B, 3B, 4B.
    #
    #  elev 4 |   ^     ^     ^     v
    #  elev 3 |   v     .     x     =      3B (elev 3) is level with 1B's 3rd block
    #  elev 2 |   v     x     =     =      2B (elev 2) is level with 1B's 2nd block
    #  elev 1 |   v     =     =     =
    #         +--1B----2B----3B----4B--
    # 2B: hidden = max(3-1) = 2 -> 0.  3B: hidden = max(1-1, 3-2) = 1 -> 0.
    # 4B: hidden = max(1-1, 1-2, 3-3) = 0 -> 1.
    vis = visible_blocks(heights({"1B": 3, "2B": 1, "3B": 1, "4B": 1}), 4)
    assert at(vis, "1B", "2B", "3B", "4B") == [3, 0, 0, 1]


def test_hidden_part_is_the_max_over_all_buildings_in_front():
    # rules §5.1: column D with 1D = 3 (elev 1-3), 2D empty, 3D = 4 (elev 3-6), 4D = 5 (elev 4-8).
    #
    #  elev 8 |                     v
    #  elev 7 |                     v
    #  elev 6 |               v     x
    #  elev 5 |               v     x
    #  elev 4 |               v     x
    #  elev 3 |   v           x     =
    #  elev 2 |   v     =     =     =
    #  elev 1 |   v     =     =     =
    #         +--1D----2D----3D----4D--
    # 3D: hidden = max(0-1, 3-2) = 1 -> 4 - 1 = 3 (the far 1D hides, the empty 2D does not).
    # 4D: hidden = max(4-1, 0-2, 3-3) = 3 -> 5 - 3 = 2.
    # Roofs Bronze / Silver / Gold: 1D 3x1 = 3, 3D 3x2 = 6, 4D 2x3 = 6.
    height = heights({"1D": 3, "3D": 4, "4D": 5})
    roof = heights({"1D": B, "3D": S, "4D": G})
    assert at(visible_blocks(height, 4), "1D", "2D", "3D", "4D") == [3, 0, 3, 2]
    assert at(building_points(height, roof, 4), "1D", "3D", "4D") == [3, 6, 6]


def test_columns_do_not_hide_each_other():
    # rules §5.1: only buildings in the same column count. 1A = 3 blocks stands in front-left of
    # 2B = 1 block; a different column, so 2B keeps its view.
    #
    #  column A: elev 1-3 v v v at 1A          column B: elev 2  v at 2B
    vis = visible_blocks(heights({"1A": 3, "2B": 1}), 4)
    assert at(vis, "1A", "2B") == [3, 1]


def test_sea_view_on_5x5_column_e():
    # rules §1.2, §8: the 5×5 cliff has rows 1-5; same elevation model.
    # Column E: 1E = 1 (elev 1), 2E = 3 (elev 2-4), 3E = 2 (elev 3-4), 4E = 6 (elev 4-9),
    # 5E = 7 (elev 5-11).
    #
    #  elev 11 |                           v
    #  elev 10 |                           v
    #  elev  9 |                     v     x
    #  elev  8 |                     v     x
    #  elev  7 |                     v     x
    #  elev  6 |                     v     x
    #  elev  5 |                     v     x
    #  elev  4 |         v     x     x     =
    #  elev  3 |         v     x     =     =
    #  elev  2 |         v     =     =     =
    #  elev  1 |   v     =     =     =     =
    #          +--1E----2E----3E----4E----5E--
    # 2E: hidden = 1-1 = 0 -> 3.   3E: hidden = max(3-1, 1-2) = 2 -> 0.
    # 4E: hidden = max(2-1, 3-2, 1-3) = 1 -> 5.   5E: hidden = max(6-1, 2-2, 3-3, 1-4) = 5 -> 2.
    # Roofs: 1E Silver 1x2 = 2, 2E Bronze 3x1 = 3, 3E Gold 0, 4E Silver 5x2 = 10, 5E Gold 2x3 = 6.
    # Column C: 1C = 3 (elev 1-3) and 5C = 1 (elev 5): hidden = 3-4 < 0 -> 1.
    height = heights({"1E": 1, "2E": 3, "3E": 2, "4E": 6, "5E": 7, "1C": 3, "5C": 1})
    roof = heights({"1E": S, "2E": B, "3E": G, "4E": S, "5E": G, "1C": B, "5C": B})
    vis = visible_blocks(height, 5)
    assert at(vis, "1E", "2E", "3E", "4E", "5E") == [1, 3, 0, 5, 2]
    assert at(vis, "1C", "5C") == [3, 1]
    assert at(building_points(height, roof, 5), "1E", "2E", "3E", "4E", "5E") == [2, 3, 0, 10, 6]


def test_colour_building_points_sums_per_colour():
    # rules §5.1: the §5.1 example pair with owners. 1C colour 1 (2 blocks, Silver) -> 2x2 = 4;
    # 2C colour 0 (1 viewing block, Gold) -> 3; 4A colour 0 (4 blocks, Bronze) -> 4.
    owner, height, roof = cliff({"1C": (1, 2, S), "2C": (0, 2, G), "4A": (0, 4, B)})
    assert colour_building_points(owner, height, roof, 2, 4) == [7, 4]


def test_sea_view_rejects_bad_boards():
    # Shared conventions: 25 entries; 4×4 positions with r or c = 4 stay empty; rules §4 height
    # limit = level + 2.
    with pytest.raises(ValueError, match="25 entries"):
        visible_blocks([0] * 16, 4)
    with pytest.raises(ValueError, match="off the 4x4 cliff"):
        visible_blocks(heights({"1E": 1}), 4)
    with pytest.raises(ValueError, match="off the 4x4 cliff"):
        visible_blocks(heights({"5A": 1}), 4)
    with pytest.raises(ValueError, match=r"allowed 0\.\.3"):
        visible_blocks(heights({"1A": 4}), 4)
    with pytest.raises(ValueError, match="board size must be 4 or 5"):
        visible_blocks([0] * 25, 3)
    with pytest.raises(ValueError, match="needs a roof"):
        building_points(heights({"1A": 1}), [0] * 25, 4)
    with pytest.raises(ValueError, match="empty lot"):
        building_points([0] * 25, heights({"1A": G}), 4)


# ------------------------------------------------------------------------------------------------
# Competition ranking (rules §5.3)
# ------------------------------------------------------------------------------------------------


def test_competition_clear_first_and_second():
    # rules §5.3: 1st = 6, 2nd = 3, the rest 0.
    assert competition_points([(3, 7), (2, 5), (1, 1)]) == [6, 3, 0]


def test_competition_tie_on_count_broken_by_blocks():
    # rules §5.3: equal building counts -> more blocks is ahead.
    assert competition_points([(2, 5), (2, 6)]) == [3, 6]


def test_competition_two_way_tie_for_first_splits_nine_and_nobody_is_second():
    # rules §5.3: 9 // 2 = 4 each; the third colour does not move up to 2nd.
    assert competition_points([(2, 5), (2, 5), (1, 1)]) == [4, 4, 0]


def test_competition_three_way_tie_for_first():
    # rules §5.3: 9 // 3 = 3 each, the fourth colour gets nothing.
    assert competition_points([(1, 3), (1, 3), (0, 0), (1, 3)]) == [3, 3, 0, 3]


def test_competition_many_way_ties_for_first_round_down():
    # rules §5.3: 9 // 4 = 2, 9 // 5 = 1, 9 // 6 = 1.
    assert competition_points([(1, 1)] * 4) == [2, 2, 2, 2]
    assert competition_points([(1, 1)] * 5 + [None]) == [1, 1, 1, 1, 1, 0]
    assert competition_points([(1, 1)] * 6) == [1] * 6


def test_competition_ties_for_second_split_three():
    # rules §5.3: 3 // 2 = 1 each, 3 // 3 = 1 each, 3 // 4 = 0 each.
    assert competition_points([(3, 1), (2, 5), (2, 5)]) == [6, 1, 1]
    assert competition_points([(2, 2), (3, 0), (2, 2), (1, 9), (2, 2)]) == [1, 6, 1, 0, 1]
    assert competition_points([(9, 9), (1, 1), (1, 1), (1, 1), (1, 1)]) == [6, 0, 0, 0, 0]


def test_competition_no_item_scores_nothing_and_never_takes_second():
    # rules §5.3 eligibility: a colour with no counted item (None) is not ranked.
    assert competition_points([None, (1, 1), None]) == [0, 6, 0]
    assert competition_points([(2, 2), None, None]) == [6, 0, 0]
    assert competition_points([None, None]) == [0, 0]
    assert competition_points([(4,), None, (2,)]) == [6, 0, 3]


def test_competition_points_rejects_bad_keys():
    with pytest.raises(ValueError, match="tuple of ints"):
        competition_points([[1, 2], None])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="parts"):
        competition_points([(1, 2), (1,)])


# ------------------------------------------------------------------------------------------------
# Per-item and threshold goals (rules §1.8, §5.3)
# ------------------------------------------------------------------------------------------------


def test_piccolo_three_per_building_below_regulation_height():
    # rules §1.8 Piccolo: 3 per building with height < level.
    # colour 0: 2A=1 (<2 yes), 4A=3 (<4 yes), 4B=4 (no), 1C=1 (= level, no) -> 2 x 3 = 6
    # colour 1: 3D=2 (yes), 3C=1 (yes), 4C=1 (yes) -> 9;  colour 2: 1D=3 (no) -> 0
    spec = {
        "2A": (0, 1, B), "4A": (0, 3, B), "4B": (0, 4, S), "1C": (0, 1, G),
        "3D": (1, 2, B), "3C": (1, 1, S), "4C": (1, 1, G),
        "1D": (2, 3, B),
    }  # fmt: skip
    assert score("piccolo", spec, 3) == [6, 9, 0]


def test_piccolo_and_perfetto_on_level_5():
    # rules §8: 5×5 row 5 has regulation height 5. 5A=5 is Perfetto (2), 5B=4 is Piccolo (3),
    # 5C=7 is neither.
    spec = {"5A": (0, 5, B), "5B": (0, 4, B), "5C": (0, 7, B)}
    assert score("perfetto", spec, 4, size=5) == [2, 0, 0, 0]
    assert score("piccolo", spec, 4, size=5) == [3, 0, 0, 0]


def test_perfetto_two_per_building_at_regulation_height():
    # rules §1.8 Perfetto: 2 per building with height == level.
    # colour 0: 1A=1 yes, 2B=2 yes, 3C=4 no, 4D=4 yes -> 6;  colour 1: 1B=2 no, 2C=1 no -> 0
    spec = {
        "1A": (0, 1, B), "2B": (0, 2, B), "3C": (0, 4, B), "4D": (0, 4, B),
        "1B": (1, 2, B), "2C": (1, 1, B),
    }  # fmt: skip
    assert score("perfetto", spec, 2) == [6, 0]


def test_solitario_orthogonal_own_colour_only():
    # rules §1.8 Solitario: 2 per building with no orthogonally adjacent building of its colour;
    # diagonals and other colours do not matter [R p.9].
    #
    #   row 4 |  .  .  1  .
    #   row 3 |  0  1  .  0
    #   row 2 |  .  0  .  .
    #   row 1 |  0  0  1  .
    #            A  B  C  D
    # colour 0: 1A-1B-2B touch each other (0 points); 3A touches only 3B (colour 1) and is
    # diagonal to 2B -> alone; 3D -> alone. 2 x 2 = 4.
    # colour 1: 3B (neighbours 2B, 3A are colour 0), 1C (neighbour 1B colour 0), 4C (diagonal to
    # 3B only) -> all alone, 3 x 2 = 6.
    spec = {
        "1A": (0, 1, B), "1B": (0, 1, B), "2B": (0, 1, B), "3A": (0, 1, B), "3D": (0, 1, B),
        "3B": (1, 1, B), "1C": (1, 1, B), "4C": (1, 1, B),
    }  # fmt: skip
    assert score("solitario", spec, 3) == [4, 6, 0]


def test_solitario_does_not_wrap_around_rows_on_5x5():
    # rules §1.8: 1E (pos 4) and 2A (pos 5) are consecutive indices but not neighbours; 1E and
    # 2E are. colour 0: 1E, 2A alone -> 4. colour 1: 5E alone, 4A-5A together -> 2.
    spec = {"1E": (0, 1, B), "2A": (0, 1, B), "5E": (1, 1, B), "4A": (1, 1, B), "5A": (1, 1, B)}
    assert score("solitario", spec, 4, size=5) == [4, 2, 0, 0]


def test_altezza_two_per_distinct_height():
    # rules §1.8 Altezza: height = blocks, not elevation [R p.9].
    # colour 0: 1A=1, 2A=1, 3C=2, 4C=3 -> {1, 2, 3} -> 6.
    # colour 1: 1B=2 and 3B=2 (elevations differ, heights equal) -> {2} -> 2.  colour 2: none.
    spec = {
        "1A": (0, 1, B), "2A": (0, 1, B), "3C": (0, 2, B), "4C": (0, 3, B),
        "1B": (1, 2, B), "3B": (1, 2, B),
    }  # fmt: skip
    assert score("altezza", spec, 3) == [6, 2, 0]


def test_equilibrato_once_for_all_three_roofs():
    # rules §1.8 Equilibrato: 5 once for >= 1 Bronze, Silver and Gold roof.
    # colour 0: B, S, G -> 5.  colour 1: B, B, S -> 0.  colour 2: B, S, G, G -> 5 (once).
    # colour 3: nothing -> 0.
    spec = {
        "1A": (0, 1, B), "2A": (0, 1, S), "3A": (0, 1, G),
        "1B": (1, 1, B), "2B": (1, 1, B), "3B": (1, 1, S),
        "1C": (2, 1, B), "2C": (2, 1, S), "3C": (2, 1, G), "4C": (2, 1, G),
    }  # fmt: skip
    assert score("equilibrato", spec, 4) == [5, 0, 5, 0]


def test_empty_lot_with_an_owner_counts_for_nothing():
    # rules §4: a lot drafted by a player with no blocks stays empty; it is no building.
    owner, height, roof = cliff({"1A": (0, 1, B)})
    owner[lot("2A")] = 0
    assert goal_points("solitario", owner, height, roof, [0, 0], 2, 4) == [2, 0]
    assert goal_points("piccolo", owner, height, roof, [0, 0], 2, 4) == [0, 0]


# ------------------------------------------------------------------------------------------------
# Competition goals (rules §1.8, §5.3)
# ------------------------------------------------------------------------------------------------


def test_grande_tie_on_count_broken_by_blocks_of_counted_buildings():
    # rules §1.8 Grande: buildings with height > level; tie -> blocks in those buildings.
    # colour 0: 1A=2 (>1), 2B=3 (>2), 3C=3 (= level, not counted) -> (2, 5)
    # colour 1: 1B=3 (>1), 2C=4 (>2) -> (2, 7)
    # colour 2: 4D=5 (>4), 1D=1 (no) -> (1, 5)
    # colour 1 1st (6), colour 0 2nd (3). (Counting 3C's blocks would wrongly give colour 0 8.)
    spec = {
        "1A": (0, 2, B), "2B": (0, 3, B), "3C": (0, 3, B),
        "1B": (1, 3, S), "2C": (1, 4, S),
        "4D": (2, 5, G), "1D": (2, 1, G),
    }  # fmt: skip
    assert keys("grande", spec, 3) == [(2, 5), (2, 7), (1, 5)]
    assert score("grande", spec, 3) == [3, 6, 0]


def test_grande_three_way_tie_for_first_and_ineligible_fourth():
    # rules §5.3: (1, 3) three times -> 9 // 3 = 3 each; colour 3's only building 1D=1 is not
    # above level -> no item -> 0.
    spec = {"1A": (0, 3, B), "1B": (1, 3, B), "2C": (2, 3, B), "1D": (3, 1, B)}
    assert keys("grande", spec, 4) == [(1, 3), (1, 3), (1, 3), None]
    assert score("grande", spec, 4) == [3, 3, 3, 0]


def test_grande_solo_two_colours():
    # rules §7: solo is a 2-colour game (Otto Amalfi = colour 1). Only colour 0 has a building
    # above level (1A=2) -> 6; Otto has 1B=1 only -> no item -> 0.
    spec = {"1A": (0, 2, B), "1B": (1, 1, B)}
    assert score("grande", spec, 2) == [6, 0]


def test_gruppo_l_shape_against_square_tie_broken_by_blocks():
    # rules §1.8 Gruppo: size of the largest orthogonal group, then its blocks.
    #
    #   row 4 |  1  1  .  .
    #   row 3 |  1  1  .  0
    #   row 2 |  .  .  .  0
    #   row 1 |  .  2  0  0
    #            A  B  C  D
    # colour 0: L 1C(1)-1D(1)-2D(2)-3D(3) -> 4 buildings, 7 blocks.
    # colour 1: 2×2 square 3A,3B,4A,4B of 1 block each -> 4 buildings, 4 blocks.
    # (Distinct buildings, rules §9 item 7a: BGA would inflate the square to 6.)
    # colour 2: 1B alone -> (1, 1). Ranking: colour 0 6, colour 1 3, colour 2 0.
    spec = {
        "1C": (0, 1, B), "1D": (0, 1, B), "2D": (0, 2, B), "3D": (0, 3, B),
        "3A": (1, 1, B), "3B": (1, 1, B), "4A": (1, 1, B), "4B": (1, 1, B),
        "1B": (2, 1, B),
    }  # fmt: skip
    assert keys("gruppo", spec, 3) == [(4, 7), (4, 4), (1, 1)]
    assert score("gruppo", spec, 3) == [6, 3, 0]


def test_gruppo_counts_distinct_buildings():
    # rules §9 item 7a: two adjacent buildings are a group of 2 (not 3), a row of 4 is 4 (not 6).
    spec = {
        "1A": (0, 1, B), "1B": (0, 1, B),
        "4A": (1, 1, B), "4B": (1, 1, B), "4C": (1, 1, B), "4D": (1, 2, B),
    }  # fmt: skip
    assert keys("gruppo", spec, 2) == [(2, 2), (4, 5)]


def test_gruppo_equal_sized_groups_use_the_one_with_most_blocks():
    # rules §5.3 Gruppo: a colour with several largest groups uses the one with the most blocks.
    # colour 0: {1A=1, 2A=1} (2 blocks) and {1C=3, 1D=3} (6 blocks) -> (2, 6)
    #   (not the sum 8 of both groups, not the first group found).
    # colour 1: {3C=3, 3D=4} -> (2, 7).   colour 2: 4A=6 alone -> (1, 6).
    # colour 1 1st (6), colour 0 2nd (3), colour 2 has the smaller group -> 0.
    spec = {
        "1A": (0, 1, B), "2A": (0, 1, B), "1C": (0, 3, B), "1D": (0, 3, B),
        "3C": (1, 3, B), "3D": (1, 4, B),
        "4A": (2, 6, B),
    }  # fmt: skip
    assert keys("gruppo", spec, 3) == [(2, 6), (2, 7), (1, 6)]
    assert score("gruppo", spec, 3) == [3, 6, 0]


def test_gruppo_full_tie_splits_nine():
    # rules §5.3: both colours have one pair of 1-block buildings -> (2, 2) each -> 4 each.
    spec = {"1A": (0, 1, B), "2A": (0, 1, B), "1C": (1, 1, B), "1D": (1, 1, B)}
    assert score("gruppo", spec, 2) == [4, 4]


def test_eccesso_leftover_blocks_no_tiebreak():
    # rules §5.3 Eccesso: the key is the leftover personal supply itself; 0 never scores.
    # [3, 3, 0, 1]: colours 0 and 1 tie for 1st -> 4 each, nobody 2nd, colour 3 gets 0.
    # Buildings on the cliff play no part.
    spec = {"4A": (0, 6, B), "1B": (1, 1, B)}
    assert score("eccesso", spec, 4, supply=[3, 3, 0, 1]) == [4, 4, 0, 0]
    # [5, 2, 2, 0]: 6 for colour 0, colours 1 and 2 share 2nd -> 1 each.
    assert score("eccesso", spec, 4, supply=[5, 2, 2, 0]) == [6, 1, 1, 0]
    # solo: nobody has blocks left -> nobody scores; Otto alone with 1 block -> 6.
    assert score("eccesso", {}, 2, supply=[0, 0]) == [0, 0]
    assert score("eccesso", {}, 2, supply=[0, 1]) == [0, 6]


def test_dietro_back_rows_on_4x4():
    # rules §1.8 Dietro (4×4): rows 3-4.
    # colour 0: 3A=2, 4B=3 -> (2, 5); 2C=4 is row 2, not counted.
    # colour 1: 4A=4, 3D=1 -> (2, 5).   colour 2: 4C=6 -> (1, 6).
    # colours 0 and 1 tie on count and blocks -> 4 each; nobody 2nd, so colour 2 gets 0.
    spec = {
        "3A": (0, 2, B), "4B": (0, 3, B), "2C": (0, 4, B),
        "4A": (1, 4, B), "3D": (1, 1, B),
        "4C": (2, 6, B),
    }  # fmt: skip
    assert keys("dietro", spec, 3) == [(2, 5), (2, 5), (1, 6)]
    assert score("dietro", spec, 3) == [4, 4, 0]


def test_dietro_back_rows_on_5x5_with_five_colours():
    # rules §1.8, §8 Dietro (5×5): rows 4-5; row 3 does not count.
    # colour 0: 4A=1, 5A=1 -> (2, 2).   colour 1: 3B=5 (row 3, no), 5C=7 -> (1, 7).
    # colour 2: 3C=1 only -> none.   colour 3: 4E=4 -> (1, 4).   colour 4: 1A=1 -> none.
    # -> 6, 3, 0, 0, 0.
    spec = {
        "4A": (0, 1, B), "5A": (0, 1, B),
        "3B": (1, 5, B), "5C": (1, 7, B),
        "3C": (2, 1, B),
        "4E": (3, 4, B),
        "1A": (4, 1, B),
    }  # fmt: skip
    assert keys("dietro", spec, 5, size=5) == [(2, 2), (1, 7), None, (1, 4), None]
    assert score("dietro", spec, 5, size=5) == [6, 3, 0, 0, 0]


def test_colonna_best_column_then_blocks():
    # rules §1.8 Colonna: each colour's best single column by count, then blocks.
    # colour 0: column A 1A, 2A, 3A (1 block each) -> (3, 3); column C 4C=6 -> (1, 6);
    #   best = (3, 3) (count first, not the column with most blocks).
    # colour 1: column D 1D, 2D, 3D (2 blocks each) -> (3, 6).
    # colour 2: column B 2B=4, 3B=5 -> (2, 9).
    # Tie on count 3 broken by blocks: colour 1 6, colour 0 3, colour 2 0.
    spec = {
        "1A": (0, 1, B), "2A": (0, 1, B), "3A": (0, 1, B), "4C": (0, 6, B),
        "1D": (1, 2, B), "2D": (1, 2, B), "3D": (1, 2, B),
        "2B": (2, 4, B), "3B": (2, 5, B),
    }  # fmt: skip
    assert keys("colonna", spec, 3) == [(3, 3), (3, 6), (2, 9)]
    assert score("colonna", spec, 3) == [3, 6, 0]


def test_colonna_solo_tie():
    # rules §5.3: solo, each colour has one 1-block building -> (1, 1) each -> 9 // 2 = 4 each.
    spec = {"1A": (0, 1, B), "1B": (1, 1, B)}
    assert score("colonna", spec, 2) == [4, 4]


def test_bordo_outer_columns_on_4x4():
    # rules §1.8 Bordo (4×4): columns A and D.
    # colour 0: 1A=1, 4D=6 -> (2, 7); 2B=4 not counted.
    # colour 1: 2A=2, 3D=3 -> (2, 5); 3C=5 not counted.   colour 2: 4A=4 -> (1, 4).
    spec = {
        "1A": (0, 1, B), "4D": (0, 6, B), "2B": (0, 4, B),
        "2A": (1, 2, B), "3D": (1, 3, B), "3C": (1, 5, B),
        "4A": (2, 4, B),
    }  # fmt: skip
    assert keys("bordo", spec, 3) == [(2, 7), (2, 5), (1, 4)]
    assert score("bordo", spec, 3) == [6, 3, 0]


def test_bordo_outer_columns_on_5x5_with_six_colours():
    # rules §1.8, §8 Bordo (5×5): columns A and E; column D does not count.
    # colour 0: 1E=1, 5A=5 -> (2, 6).   colour 1: 1D=3, 2D=4 (column D, no), 3E=1 -> (1, 1).
    # colour 2: 2A=1 -> (1, 1).   colour 3: nothing -> none.   colour 4: 4E=1 -> (1, 1).
    # colour 5: 4D=6 only -> none.
    # colour 0 6; three-way tie for 2nd -> 3 // 3 = 1 each.
    spec = {
        "1E": (0, 1, B), "5A": (0, 5, B),
        "1D": (1, 3, B), "2D": (1, 4, B), "3E": (1, 1, B),
        "2A": (2, 1, B),
        "4E": (4, 1, B),
        "4D": (5, 6, B),
    }  # fmt: skip
    assert keys("bordo", spec, 6, size=5) == [(2, 6), (1, 1), (1, 1), None, (1, 1), None]
    assert score("bordo", spec, 6, size=5) == [6, 1, 1, 0, 1, 0]


def test_mezzo_inner_columns_on_4x4():
    # rules §1.8 Mezzo (4×4): columns B and C.
    # colour 0: 1B=1, 2C=2 -> (2, 3).   colour 1: 3B=3, 4C=4 -> (2, 7).
    # colour 2: 1A=1, 1D=1 (outer only) -> none.   colour 3: 2B=1 -> (1, 1).
    spec = {
        "1B": (0, 1, B), "2C": (0, 2, B),
        "3B": (1, 3, B), "4C": (1, 4, B),
        "1A": (2, 1, B), "1D": (2, 1, B),
        "2B": (3, 1, B),
    }  # fmt: skip
    assert keys("mezzo", spec, 4) == [(2, 3), (2, 7), None, (1, 1)]
    assert score("mezzo", spec, 4) == [3, 6, 0, 0]


def test_centro_centre_block_on_5x5():
    # rules §1.8 Centro (5×5): rows 2-4 × columns B-D.
    #
    #   row 5 |  .  .  2  2  .
    #   row 4 |  .  1  .  0  .
    #   row 3 |  2  .  0  4  2
    #   row 2 |  .  0  3  1  .
    #   row 1 |  .  .  2  .  .
    #            A  B  C  D  E
    # colour 0: 2B, 3C, 4D (1 block each) -> (3, 3).   colour 1: 2D=4, 4B=6 -> (2, 10).
    # colour 2: 1C, 5C, 5D, 3A, 3E all outside the centre -> none.
    # colour 3: 2C=3 -> (1, 3).   colour 4: 3D=2 -> (1, 2).
    spec = {
        "2B": (0, 1, B), "3C": (0, 1, B), "4D": (0, 1, B),
        "2D": (1, 4, B), "4B": (1, 6, B),
        "1C": (2, 1, B), "5C": (2, 1, B), "5D": (2, 1, B), "3A": (2, 1, B), "3E": (2, 1, B),
        "2C": (3, 3, B),
        "3D": (4, 2, B),
    }  # fmt: skip
    assert keys("centro", spec, 5, size=5) == [(3, 3), (2, 10), None, (1, 3), (1, 2)]
    assert score("centro", spec, 5, size=5) == [6, 3, 0, 0, 0]


def test_mezzo_and_centro_validity_per_board_size():
    # rules §1.8, §8: Centro replaces Mezzo on 5×5.
    assert goal_valid_for_size("mezzo", 4) and not goal_valid_for_size("mezzo", 5)
    assert goal_valid_for_size("centro", 5) and not goal_valid_for_size("centro", 4)
    assert all(goal_valid_for_size(g, s) for g in GOAL_NAMES if g not in ("mezzo", "centro")
               for s in (4, 5))  # fmt: skip
    with pytest.raises(ValueError, match="mezzo"):
        score("mezzo", {}, 4, size=5)
    with pytest.raises(ValueError, match="centro"):
        score("centro", {}, 4, size=4)


def test_every_goal_on_an_empty_cliff_scores_nothing():
    # rules §5.3 eligibility: no building and no leftover block -> nobody scores anything.
    for size in (4, 5):
        for goal in GOAL_NAMES:
            if goal_valid_for_size(goal, size):
                assert score(goal, {}, 4, size=size) == [0, 0, 0, 0], (goal, size)


def test_goal_points_rejects_bad_input():
    owner, height, roof = cliff({"1A": (0, 1, B)})
    with pytest.raises(ValueError, match="unknown Positano goal 'grand'"):
        goal_points("grand", owner, height, roof, [0, 0], 2, 4)
    with pytest.raises(ValueError, match="owner must have 25 entries"):
        goal_points("grande", owner[:16], height, roof, [0, 0], 2, 4)
    with pytest.raises(ValueError, match="height must have 25 entries"):
        goal_points("grande", owner, [*height, 0], roof, [0, 0], 2, 4)
    with pytest.raises(ValueError, match="roof must have 25 entries"):
        goal_points("grande", owner, height, roof[:24], [0, 0], 2, 4)
    with pytest.raises(ValueError, match="personal_supply must have 2 entries"):
        goal_points("eccesso", owner, height, roof, [0, 0, 0], 2, 4)
    with pytest.raises(ValueError, match=r"allowed -1\.\.1"):
        goal_points("grande", heights({"1A": 2}), height, roof, [0, 0], 2, 4)
    with pytest.raises(ValueError, match="is -1 but a building"):
        goal_points("grande", [-1] * 25, height, roof, [0, 0], 2, 4)
    with pytest.raises(ValueError, match="not a competition goal"):
        competition_keys("piccolo", owner, height, roof, [0, 0], 2, 4)
