"""Independent rules audit of the Positano engine against ``docs/rules/positano.md``.

Every expected value here is transcribed from the tables of the rules reference or worked out by
hand from its text (the comments show the arithmetic); none is copied from the engine's output. The last part
re-implements sea view, gelato and all 13 goals from the rules text alone and compares them with
the engine on the final positions of random games.
"""

from __future__ import annotations

import copy
import random

import pytest

from tabletop_gym.core.game import StateFormatError
from tabletop_gym.envs.positano import PositanoGame, components as C, scoring
from tabletop_gym.envs.positano.render import render_text
from tests.configs import POSITANO, POSITANO_IDS

from .helpers import load, play_random, pos, position, random_step

G1 = PositanoGame(num_players=1)
G2 = PositanoGame(num_players=2)
G3 = PositanoGame(num_players=3)
G6 = PositanoGame(num_players=6)

ALL_CONFIGS = POSITANO
CONFIG_IDS = POSITANO_IDS

BOOSTER_VALUES = [5, 6, 13, 14, 21, 22]


def bid_id(card_number: int, booster_value: int) -> int:
    """Action id of base card #n with a booster of the given value (layout: 6·c + b)."""
    return 6 * (card_number - 1) + BOOSTER_VALUES.index(booster_value)


def doc(state: dict) -> dict:
    """A JSON document around a ``"state"`` object."""
    return {"schema": 1, "game": "positano", "state": state}


# ---------------------------------------------------------------------------------------------
# Component tables, digit by digit (rules §1.3–§1.8, §7)
# ---------------------------------------------------------------------------------------------

# rules §1.6, 4×4 set, ids 40..55: blocks ("3X"/"2X" = multiplier tile), gelato, start icon.
SPEC_BLOCKS_4 = {
    40: ("2", 1, 2), 41: ("3", 0, 2), 42: ("4", 0, 3), 43: ("2", 1, 4),
    44: ("3X", 0, 0), 45: ("4", 0, 0), 46: ("5", 0, 0), 47: ("5", 0, 0),
    48: ("3", 0, 0), 49: ("3", 0, 0), 50: ("2", 1, 0), 51: ("2", 1, 0),
    52: ("2", 1, 0), 53: ("2X", 0, 0), 54: ("1", 2, 0), 55: ("1", 2, 0),
}

# rules §1.6, BGA 5×5 set, ids 40..64 (the three table rows, read column by column).
_B5_BLOCKS = [
    "2", "3", "4", "2", "5", "3", "3X", "4", "5", "5", "3", "3", "2",
    "2", "2", "2X", "1", "1", "2X", "2X", "3", "3", "4", "4", "5",
]
_B5_GELATO = [1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0, 2, 2, 0, 0, 0, 0, 0, 0, 0]
_B5_ICON = [2, 2, 3, 4, 5, 6] + [0] * 19
SPEC_BLOCKS_5 = {
    40 + i: (_B5_BLOCKS[i], _B5_GELATO[i], _B5_ICON[i]) for i in range(25)
}

# rules §1.7, 4×4 set, ids 60..75: roof, height bonus, extra action, gelato, start icon.
SPEC_BUILDS_4 = {
    60: ("Bronze", 0, "", 2, 2),
    61: ("Silver", 0, "", 0, 2),
    62: ("Gold", 0, "", 0, 3),
    63: ("Bronze", 1, "", 0, 4),
    64: ("Bronze", 0, "", 2, 0),
    65: ("Silver", 1, "", 0, 0),
    66: ("Bronze", 1, "add_on", 0, 0),
    67: ("Bronze", 2, "add_on", 0, 0),
    68: ("Silver", 1, "add_on", 0, 0),
    69: ("Silver", 2, "add_on", 0, 0),
    70: ("Gold", 1, "add_on", 0, 0),
    71: ("Gold", 2, "add_on", 0, 0),
    72: ("Bronze", 2, "", 0, 0),
    73: ("Gold", 1, "", 0, 0),
    74: ("Gold", 0, "remodel", 0, 0),
    75: ("Silver", 0, "remodel", 0, 0),
}

# rules §1.7, BGA 5×5 set, ids 60..84, from the art (id 68 Bronze +1 Add-On, Decisions table).
_U5_ROOF = "BSGBSGBSBBSSGGBGGSSGBGSBB"  # one letter per id, 60..84
_U5_BONUS = [0, 0, 0, 1, 1, 1, 0, 1, 1, 2, 1, 2, 1, 2, 2, 1, 0, 0, 1, 0, 2, 0, 0, 0, 1]
_U5_ACTION = {68: "add_on", 69: "add_on", 70: "add_on", 71: "add_on", 72: "add_on",
              73: "add_on", 76: "remodel", 77: "remodel", 78: "add_on", 80: "add_on",
              81: "remodel", 82: "remodel", 84: "add_on"}
_U5_GELATO = {60: 2, 66: 2, 83: 2}
_U5_ICON = {60: 2, 61: 2, 62: 3, 63: 4, 64: 5, 65: 6}
_ROOF_WORD = {"B": "Bronze", "S": "Silver", "G": "Gold"}
SPEC_BUILDS_5 = {
    60 + i: (
        _ROOF_WORD[_U5_ROOF[i]],
        _U5_BONUS[i],
        _U5_ACTION.get(60 + i, ""),
        _U5_GELATO.get(60 + i, 0),
        _U5_ICON.get(60 + i, 0),
    )
    for i in range(25)
}


def _block_row(tile: C.BlockTile) -> tuple[str, int, int]:
    blocks = f"{tile.multiplier}X" if tile.multiplier else str(tile.blocks)
    return (blocks, tile.gelato, tile.start_icon)


def _build_row(tile: C.BuildTile) -> tuple[str, int, str, int, int]:
    return (C.ROOF_NAMES[tile.roof], tile.bonus, tile.action, tile.gelato, tile.start_icon)


@pytest.mark.parametrize(("size", "table"), [(4, SPEC_BLOCKS_4), (5, SPEC_BLOCKS_5)])
def test_block_tiles_every_id(size, table):
    # rules §1.6 tables, one tile at a time.
    tiles = C.BLOCK_TILES[size]
    assert {t.bga_id: _block_row(t) for t in tiles} == table
    for t in tiles:
        if t.multiplier:
            # rules §1.6: the flat option of 2X is +2, of 3X +3.
            assert t.blocks == t.multiplier


@pytest.mark.parametrize(("size", "table"), [(4, SPEC_BUILDS_4), (5, SPEC_BUILDS_5)])
def test_build_tiles_every_id(size, table):
    # rules §1.7 tables, one tile at a time.
    assert {t.bga_id: _build_row(t) for t in C.BUILD_TILES[size]} == table


def test_bid_cards_and_boosters_every_gelato():
    # rules §1.3 (gelato column 1 1 1 1 0 0 0) and §1.4 (+5 → 2, +6 → 1, the rest 0).
    assert [(c.number, c.gelato) for c in C.BID_CARDS] == [
        (1, 1), (2, 1), (3, 1), (4, 1), (5, 0), (6, 0), (7, 0),
    ]
    assert [(b.value, b.gelato) for b in C.BOOSTERS] == [
        (5, 2), (6, 1), (13, 0), (14, 0), (21, 0), (22, 0),
    ]


def test_goal_cards_goal_kinds_and_solo_sets_exactly():
    # rules §1.8: card pairs; goal types and points; §7: the six recommended solo sets in order.
    assert C.GOAL_CARDS[4] == (
        ("grande", "piccolo"), ("solitario", "gruppo"), ("eccesso", "equilibrato"),
        ("dietro", "colonna"), ("bordo", "mezzo"), ("perfetto", "altezza"),
    )
    assert C.GOAL_CARDS[5] == (
        ("grande", "piccolo"), ("solitario", "gruppo"), ("eccesso", "equilibrato"),
        ("dietro", "colonna"), ("bordo", "centro"), ("perfetto", "altezza"),
    )
    competition = {"grande", "gruppo", "eccesso", "dietro", "colonna", "bordo", "mezzo",
                   "centro"}
    for goal, info in C.GOALS.items():
        if goal in competition:
            assert info == ("competition", 6)
    assert C.GOALS["piccolo"] == ("per_item", 3)
    assert C.GOALS["solitario"] == ("per_item", 2)
    assert C.GOALS["perfetto"] == ("per_item", 2)
    assert C.GOALS["altezza"] == ("per_item", 2)
    assert C.GOALS["equilibrato"] == ("threshold", 5)
    assert C.COMPETITION_POINTS == (6, 3)
    assert competition == scoring.COMPETITION_GOALS
    assert [goals for _, goals in C.SOLO_GOAL_SETS] == [
        ("grande", "gruppo", "dietro"),
        ("altezza", "equilibrato", "bordo"),
        ("piccolo", "solitario", "eccesso"),
        ("mezzo", "perfetto", "colonna"),
        ("solitario", "mezzo", "dietro"),
        ("grande", "altezza", "eccesso"),
    ]


@pytest.mark.parametrize("k", range(1, 7))
def test_solo_goal_set_option_k_plays_the_kth_set(k):
    # rules §7: solo_goal_set = BGA option value − 1, so k = 1 is "Big in the Back" … 6 is "More
    # Blocks, More Problems"; the set is used whatever the seed.
    want = [
        ["grande", "gruppo", "dietro"], ["altezza", "equilibrato", "bordo"],
        ["piccolo", "solitario", "eccesso"], ["mezzo", "perfetto", "colonna"],
        ["solitario", "mezzo", "dietro"], ["grande", "altezza", "eccesso"],
    ][k - 1]
    game = PositanoGame(num_players=1, solo_goal_set=k)
    for seed in range(3):
        assert game.new_initial_state(random.Random(seed)).goals == want


def test_tiles_per_round_and_board_per_player_count():
    # rules §2.5: one tile per player per row (solo 2); Decisions: 4×4 for 1–4, 5×5 for 5–6.
    assert [C.tiles_per_round(n) for n in range(1, 7)] == [2, 2, 3, 4, 5, 6]
    assert [PositanoGame(num_players=n).size for n in range(1, 7)] == [4, 4, 4, 4, 5, 5]
    assert PositanoGame(num_players=4, board_size=5).num_colours == 4
    assert G1.num_colours == 2  # rules §7: solo is a two-colour game


# ---------------------------------------------------------------------------------------------
# Bids and ties (rules §3.1, §3.2, §1.3)
# ---------------------------------------------------------------------------------------------


def test_each_tile_type_breaks_its_own_tie():
    # rules §3.2: both bid #1 +5 (65/55/15): every type ties. Card #1 stars, set 1 = 0/4/5,
    # set 2 = 6/3/0 → lot: set 2 (c1) first; block 4 > 3 and build 5 > 0: set 1 (c0) first.
    s = load(G2, removed=["1A", "1B", "1C", "1D"], beach_lots=["2A", "2B"],
             beach_blocks=[0, 1], beach_builds=[0, 1], star_sets=[1, 2])
    s.apply_joint_action([bid_id(1, 5), bid_id(1, 5)])
    assert s.draft_order("lot") == [1, 0]
    assert s.draft_order("block") == [0, 1]
    assert s.draft_order("build") == [0, 1]


def test_partial_tie_only_among_equal_bids():
    # rules §3.2: c0 (set 2) and c1 (set 1) bid #1 +5 = 65/55/15, c2 bids #2 +22 = 32/82/72.
    # Lot: 65 = 65 > 32, stars set 2 6 > set 1 0 → c0, c1, c2. Block: 82 > 55 = 55, stars 4 > 3
    # → c2, c1, c0. Build: 72 > 15 = 15, stars 5 > 0 → c2, c1, c0.
    s = load(G3, removed=["4D"], beach_lots=["1A", "2B", "3C"], beach_blocks=[0, 1, 2],
             beach_builds=[0, 1, 2], star_sets=[2, 1, 3])
    s.apply_joint_action([bid_id(1, 5), bid_id(1, 5), bid_id(2, 22)])
    assert s.draft_order("lot") == [0, 1, 2]
    assert s.draft_order("block") == [2, 1, 0]
    assert s.draft_order("build") == [2, 1, 0]


def test_three_way_tie_ordered_by_stars():
    # rules §3.2 (the rulebook's rule, not BGA's adjacent swaps, §9 item 5): all bid #4 +13.
    # Card #4 stars: set 1 3/0/6, set 2 2/6/1, set 3 1/5/3.
    # Lot 3 > 2 > 1 → c0 c1 c2; block 6 > 5 > 0 → c1 c2 c0; build 6 > 3 > 1 → c0 c2 c1.
    s = load(G3, removed=["4D"], beach_lots=["1A", "2B", "3C"], beach_blocks=[0, 1, 2],
             beach_builds=[0, 1, 2], star_sets=[1, 2, 3])
    s.apply_joint_action([bid_id(4, 13)] * 3)
    assert s.draft_order("lot") == [0, 1, 2]
    assert s.draft_order("block") == [1, 2, 0]
    assert s.draft_order("build") == [0, 2, 1]


def test_six_way_tie_ordered_by_stars():
    # rules §3.2, §1.3, 6 players on 5×5: all bid #7 +22. Card #7 stars per set 1..6:
    # 6/3/0, 5/2/2, 4/1/4, 3/0/6, 2/6/1, 1/5/3.
    # Lot 6 5 4 3 2 1 → c0..c5; block 3 2 1 0 6 5 → c4 c5 c0 c1 c2 c3;
    # build 0 2 4 6 1 3 → c3 c2 c5 c1 c4 c0.
    s = load(G6, removed=["5E"], beach_lots=["1A", "2B", "3C", "4D", "5A", "1E"],
             beach_blocks=list(range(6)), beach_builds=list(range(6)),
             star_sets=[1, 2, 3, 4, 5, 6])
    s.apply_joint_action([bid_id(7, 22)] * 6)
    assert s.draft_order("lot") == [0, 1, 2, 3, 4, 5]
    assert s.draft_order("block") == [4, 5, 0, 1, 2, 3]
    assert s.draft_order("build") == [3, 2, 5, 1, 4, 0]


# ---------------------------------------------------------------------------------------------
# Block tiles (rules §1.6, §3.3)
# ---------------------------------------------------------------------------------------------


def _block_draft(personal, general_gap=0):
    # Round 2 of a 2p game, block drafting. Bids round 2: c0 #6 +22 = 52/92/42, c1 #1 +5 =
    # 65/55/15, so c0 drafts blocks first. c0 owns 2A (Bronze, 2 blocks).
    d = position(
        G2,
        round=2,
        phase="draft_block",
        removed=["1A", "1C", "3D", "4D"],
        lots=[["2A", "2B"], ["1B", "3A"]],
        blocks=[[0], [1]],
        builds=[[0], [1]],
        cards=[[0, 5], [1, 0]],
        boosters=[[1, 5], [2, 0]],
        beach_blocks=[4, 13],
        beach_builds=[5, 6],
        buildings={"2A": (0, 2, 1), "1B": (1, 1, 2)},
        personal=[personal, 2],
    )
    return G2.state_from_json(doc(d))


@pytest.mark.parametrize(
    ("tile", "choice", "gain"),
    [
        # rules §1.6 with n = 0 in the personal supply: multiply gains 0·(N − 1) = 0; flat +N.
        (13, 105, 0), (13, 106, 2), (4, 105, 0), (4, 106, 3),
    ],
)
def test_multiplier_tile_with_an_empty_personal_supply(tile, choice, gain):
    s = _block_draft(0)
    assert s.current_player() == 0 and s.general[0] == 14  # 16 − 0 − 2 on the cliff
    s.apply_action(80 + tile)
    assert s.phase() == "block_choice" and s.legal_actions() == [105, 106]
    s.apply_action(choice)
    assert s.personal[0] == gain and s.general[0] == 14 - gain
    s.check_invariants()


@pytest.mark.parametrize("choice", [105, 106])
def test_multiplier_tile_with_an_empty_general_supply(choice):
    # rules §3.3: with an empty general supply nothing comes, whichever option: c0 holds 14,
    # 2 on the cliff, general 16 − 14 − 2 = 0.
    s = _block_draft(14)
    assert s.general[0] == 0
    s.apply_action(80 + 4)  # 3X
    s.apply_action(choice)
    assert (s.personal[0], s.general[0]) == (14, 0)


# ---------------------------------------------------------------------------------------------
# Building (rules §4)
# ---------------------------------------------------------------------------------------------


def _build_draft(beach_builds, personal, buildings, lots0=("1A", "2B")):
    # Round 2 of a 2p game, build drafting; bids round 2: c0 #7 +22 = 42/52/92, c1 #1 +5 =
    # 65/55/15 → c0 drafts build tiles first and builds on its round-2 lot.
    return load(
        G2,
        round=2,
        phase="draft_build",
        removed=["1C", "3D", "4A", "4D"],
        lots=[list(lots0), ["1B", "3A"]],
        blocks=[[0, 2], [1, 3]],
        builds=[[3], [1]],
        cards=[[0, 6], [1, 0]],
        boosters=[[1, 5], [2, 0]],
        beach_builds=beach_builds,
        buildings=buildings,
        personal=personal,
    )


def test_height_limit_level_four_plus_two():
    # rules §4: allowed height = regulation height 4 + bonus 2 (tile 72, Bronze +2) = 6, never
    # above level + 2; 10 blocks held, so 1..6 (ids 132..137).
    s = _build_draft([12, 5], [10, 1], {"1A": (0, 1, 1), "1B": (1, 1, 2)}, ("1A", "4B"))
    assert s.current_player() == 0
    s.apply_action(107 + 12)
    assert s.legal_actions() == [132, 133, 134, 135, 136, 137]
    s.apply_action(137)
    assert (s.owner[pos("4B")], s.height[pos("4B")], s.roof[pos("4B")]) == (0, 6, 1)
    assert s.personal[0] == 4


def test_add_on_limit_is_this_tiles_bonus_not_the_buildings_own():
    # rules §4: an Add-On may raise any own building while height + 1 ≤ its regulation height +
    # the bonus printed on the Add-On tile. c0's 1A (level 1) has 2 blocks (built with tile 63,
    # Bronze +1). With tile 66 (+1) 1A is not a target (2 < 1 + 1 fails); with tile 67 (+2) it
    # is (2 < 3) and reaches 3 = level + 2, above its first tile's +1.
    buildings = {"1A": (0, 2, 1), "1B": (1, 1, 2)}
    s = _build_draft([6, 7], [5, 1], buildings)
    s.apply_action(107 + 6)
    s.apply_action(131 + 3)  # 2B: 3 = level 2 + 1
    assert s.phase() == "draft_build"  # no target: 1A at 2 = 1 + 1, 2B at 3 = 2 + 1
    s = _build_draft([6, 7], [5, 1], buildings)
    s.apply_action(107 + 7)
    s.apply_action(131 + 1)  # 2B: 1 block
    assert s.phase() == "add_on"
    assert s.legal_actions() == [139 + pos("1A"), 139 + pos("2B"), 164]
    s.apply_action(139 + pos("1A"))
    assert s.height[pos("1A")] == 3 and s.personal[0] == 3
    s.check_invariants()


def test_remodel_gold_tile_upgrades_silver_only():
    # rules §1.7, §4: tile 74 (Gold, Remodel Silver→Gold) upgrades only a building exactly one
    # rank below (Silver), never a Bronze one. c0 owns 1A Bronze; round-2 lot 2B.
    buildings = {"1A": (0, 1, 1), "1B": (1, 1, 2)}
    s = _build_draft([14, 5], [3, 1], buildings)
    s.apply_action(107 + 14)
    s.apply_action(132)
    assert s.phase() == "draft_build" and s.current_player() == 1  # no Silver building
    # The same with c0's 1A Silver (built in round 1 with tile 61, Silver): now a target.
    s = load(
        G2, round=2, phase="draft_build", removed=["1C", "3D", "4A", "4D"],
        lots=[["1A", "2B"], ["1B", "3A"]], blocks=[[0, 2], [1, 3]], builds=[[1], [0]],
        cards=[[0, 6], [1, 0]], boosters=[[1, 5], [2, 0]], beach_builds=[14, 5],
        buildings={"1A": (0, 1, 2), "1B": (1, 1, 1)}, personal=[3, 1],
    )
    s.apply_action(107 + 14)
    s.apply_action(132)
    assert s.phase() == "remodel" and s.legal_actions() == [165 + pos("1A"), 190]
    s.apply_action(165 + pos("1A"))
    assert s.roof[pos("1A")] == 3 and s.roof[pos("2B")] == 3


# ---------------------------------------------------------------------------------------------
# Solo (rules §7)
# ---------------------------------------------------------------------------------------------


def test_solo_later_rounds_leftmost_is_the_first_tile_drawn():
    # rules §7 + Decisions "solo: which tile is leftmost": later rounds, the first of the two
    # tiles drawn from each stack is the leftmost; Otto's next card and booster are the tops of
    # his decks. Round 1: the player #1 +5 = 65/55/15, Otto #4 +13 = 53/53/53 → build order Otto,
    # player. Otto built 3A (Silver, 2); the player builds on 2B last.
    lot_stack = ["4C", "1B", "2A", "2C", "2D", "3B", "3C", "4A", "4B", "1D"]
    s = load(
        G1,
        phase="build",
        turn=1,
        removed=["1A", "1C", "3D", "4D"],
        lots=[["2B"], ["3A"]],
        blocks=[[1], [0]],
        builds=[[0], [1]],
        cards=[[0], [3]],
        boosters=[[0], [2]],
        otto_cards=[6, 5, 4, 2, 1, 0],
        otto_boosters=[5, 4, 3, 1, 0],
        buildings={"3A": (1, 2, 2)},
        personal=[4, 1],
        star_sets=[1, 2],
        lot_stack=lot_stack,
        block_stack=[9, 4, *[t for t in range(16) if t not in (0, 1, 4, 9)]],
        build_stack=[13, 2, *[t for t in range(16) if t not in (0, 1, 2, 13)]],
    )
    assert s.acting_colour() == 0 and s.legal_actions() == [132, 133]  # 2B: level 2, tile 60
    s.apply_action(133)
    # Refresh (rules §3.5): rows in stack order; Otto reveals #7 (+22) = 42/52/92.
    assert s.round == 2 and s.phase() == "bid"
    assert s.lot_row == [pos("4C"), pos("1B")]
    assert s.block_row == [9, 4] and s.build_row == [13, 2]
    assert s.bid(1) == (6, 5) and s.bid_values(1) == (42, 52, 92)
    # The player bids #6 +13 = 43/83/33: lot and block to the player (leftmost 4C, tile 49),
    # Otto the next (1B, 3X tile 44); build to Otto (92 > 33: leftmost tile 73, Gold +1).
    s.apply_action(bid_id(6, 13))
    assert s.lots_taken == [[pos("2B"), pos("4C")], [pos("3A"), pos("1B")]]
    assert s.blocks_taken == [[1, 9], [0, 4]]
    assert s.personal[0] == 2 + 3  # 4 − 2 built + tile 49 (3)
    # Otto's 3X choice is the player's decision: Otto holds 1 → multiply 1·2 = +2, flat +3.
    assert s.phase() == "block_choice" and s.current_player() == 0 and s.acting_colour() == 1
    s.apply_action(105)
    assert s.personal[1] == 3
    assert s.phase() == "build" and s.acting_colour() == 1 and s.builds_taken[1] == [1, 13]
    assert s.legal_actions() == [132, 133]  # 1B: level 1 + 1
    s.check_invariants()


def test_solo_returns_ignore_reward_type():
    # rules §7: the player's result is min(own, Otto's); the solo return is that / 100.
    for reward_type in ("win_loss", "score_diff", "score"):
        game = PositanoGame(num_players=1, reward_type=reward_type)
        s, _ = play_random(game, seed=4)
        (b,) = s.score_breakdown()
        assert b["total"] == min(b["own"], b["otto"])
        assert s.scores() == [float(b["total"])]
        assert s.returns() == [b["total"] / 100.0]
        assert s.winners() == [0]


# ---------------------------------------------------------------------------------------------
# Scoring: an independent implementation of §5 compared with the engine
# ---------------------------------------------------------------------------------------------

_CARD_GELATO = [1, 1, 1, 1, 0, 0, 0]  # rules §1.3
_BOOSTER_GELATO = [2, 1, 0, 0, 0, 0]  # rules §1.4


def _ref_visible(height, size):
    # rules §5.1 / §1.2: the j-th block (1-based) of a building on row r (1-based) sits at
    # elevation r + j − 1; it has a view unless a building on a lower row r' of the same column
    # has a block at that elevation (its blocks span r' .. r' + h' − 1).
    out = [0] * 25
    for p in range(25):
        h = height[p]
        if not h:
            continue
        r, c = p // 5 + 1, p % 5
        for j in range(1, h + 1):
            e = r + j - 1
            hidden = any(
                height[(rr - 1) * 5 + c] and rr + height[(rr - 1) * 5 + c] - 1 >= e
                for rr in range(1, r)
            )
            out[p] += not hidden
    return out


def _ref_rank(keys):
    # rules §5.3: 1st 6, 2nd 3; tie for 1st: 9 split rounded down, nobody 2nd; tie for 2nd: 3
    # split; no counted item: nothing.
    pts = [0] * len(keys)
    ranked = sorted({k for k in keys if k is not None}, reverse=True)
    if not ranked:
        return pts
    first = [i for i, k in enumerate(keys) if k == ranked[0]]
    if len(first) > 1:
        for i in first:
            pts[i] = 9 // len(first)
        return pts
    pts[first[0]] = 6
    if len(ranked) > 1:
        second = [i for i, k in enumerate(keys) if k == ranked[1]]
        for i in second:
            pts[i] = 3 // len(second)
    return pts


def _ref_goal(goal, owner, height, roof, personal, nc, size):
    own = [[p for p in range(25) if height[p] and owner[p] == c] for c in range(nc)]

    def level(p):
        return p // 5 + 1

    def adj(p):
        r, c = divmod(p, 5)
        cells = [(r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)]
        return [a * 5 + b for a, b in cells if 0 <= a < size and 0 <= b < size]

    def count_key(lots):
        keys = []
        for c in range(nc):
            mine = [p for p in own[c] if p in lots]
            keys.append((len(mine), sum(height[p] for p in mine)) if mine else None)
        return keys

    every = [r * 5 + c for r in range(size) for c in range(size)]
    if goal == "piccolo":
        return [3 * sum(height[p] < level(p) for p in own[c]) for c in range(nc)]
    if goal == "perfetto":
        return [2 * sum(height[p] == level(p) for p in own[c]) for c in range(nc)]
    if goal == "altezza":
        return [2 * len({height[p] for p in own[c]}) for c in range(nc)]
    if goal == "equilibrato":
        return [5 if {roof[p] for p in own[c]} == {1, 2, 3} else 0 for c in range(nc)]
    if goal == "solitario":
        return [2 * sum(not any(q in own[c] for q in adj(p)) for p in own[c])
                for c in range(nc)]
    if goal == "eccesso":
        return _ref_rank([(n,) if n else None for n in personal])
    if goal == "grande":
        return _ref_rank(count_key([p for p in every if height[p] > level(p)]))
    if goal == "dietro":
        return _ref_rank(count_key([p for p in every if p // 5 >= size - 2]))
    if goal == "bordo":
        return _ref_rank(count_key([p for p in every if p % 5 in (0, size - 1)]))
    if goal == "mezzo":
        return _ref_rank(count_key([p for p in every if p % 5 in (1, 2)]))
    if goal == "centro":
        return _ref_rank(count_key([p for p in every if 1 <= p // 5 <= 3 and 1 <= p % 5 <= 3]))
    if goal == "colonna":
        keys = []
        for c in range(nc):
            cols = [count_key([r * 5 + col for r in range(size)])[c] for col in range(size)]
            cols = [k for k in cols if k is not None]
            keys.append(max(cols) if cols else None)
        return _ref_rank(keys)
    assert goal == "gruppo"
    keys = []
    for c in range(nc):
        best = None
        seen = set()
        for start in own[c]:
            if start in seen:
                continue
            group, todo = set(), [start]
            while todo:
                p = todo.pop()
                if p in group:
                    continue
                group.add(p)
                todo.extend(q for q in adj(p) if q in own[c])
            seen |= group
            key = (len(group), sum(height[p] for p in group))
            best = key if best is None or key > best else best
        keys.append(best)
    return _ref_rank(keys)


def _ref_total(s, c, goals):
    g = s.game
    vis = _ref_visible(s.height, g.size)
    build = sum(vis[p] * s.roof[p] for p in range(25) if s.height[p] and s.owner[p] == c)
    blocks = SPEC_BLOCKS_4 if g.size == 4 else SPEC_BLOCKS_5
    builds = SPEC_BUILDS_4 if g.size == 4 else SPEC_BUILDS_5
    gelato = (
        sum(_CARD_GELATO[x] for x in s.played_cards[c])
        + sum(_BOOSTER_GELATO[x] for x in s.played_boosters[c])
        + sum(1 for p in s.lots_taken[c] if g.size == 5 and p // 5 == 4)  # rules §1.5
        + sum(blocks[40 + t][1] for t in s.blocks_taken[c])
        + sum(builds[60 + t][3] for t in s.builds_taken[c])
    )
    nc = g.num_colours
    goal = sum(
        _ref_goal(x, s.owner, s.height, s.roof, s.personal, nc, g.size)[c] for x in goals
    )
    return build + gelato + goal


@pytest.mark.parametrize("cfg", ALL_CONFIGS, ids=CONFIG_IDS)
def test_engine_scores_match_an_independent_implementation(cfg):
    # rules §5 (and §7 for solo) from the rules text alone, on the final positions of random
    # games; each goal face valid for the board is compared on its own too.
    game = PositanoGame(**cfg)
    nc = game.num_colours
    faces = [x for x in C.GOAL_NAMES if scoring.goal_valid_for_size(x, game.size)]
    for seed in range(8):
        s, _ = play_random(game, seed)
        vis = _ref_visible(s.height, game.size)
        assert scoring.visible_blocks(s.height, game.size) == vis
        for goal in faces:
            want = _ref_goal(goal, s.owner, s.height, s.roof, s.personal, nc, game.size)
            got = scoring.goal_points(goal, s.owner, s.height, s.roof, s.personal, nc,
                                      game.size)
            assert got == want, (goal, seed)
        totals = [_ref_total(s, c, s.goals) for c in range(nc)]
        if game.solo:
            assert s.scores() == [float(min(totals))]
        else:
            assert s.scores() == [float(t) for t in totals]
            top = max(totals)
            assert s.winners() == [c for c in range(nc) if totals[c] == top]


def test_competition_second_place_tie_among_three_and_ineligible_player():
    # rules §5.3, Bordo on 4×4 (columns A and D), 4 colours: c0 3 buildings (1st, 6); c1 and c2
    # 2 buildings with 4 blocks each (tied 2nd: 3 // 2 = 1 each); c3 none there (0).
    owner, height, roof = [-1] * 25, [0] * 25, [0] * 25
    for name, c, h in [("1A", 0, 1), ("2A", 0, 1), ("3A", 0, 1), ("1D", 1, 1), ("2D", 1, 3),
                       ("4A", 2, 2), ("3D", 2, 2), ("2B", 3, 2)]:
        owner[pos(name)], height[pos(name)], roof[pos(name)] = c, h, 1
    assert scoring.goal_points("bordo", owner, height, roof, [0] * 4, 4, 4) == [6, 1, 1, 0]
    # Mezzo (columns B, C): only c3 counts → 6 alone, nobody else is 2nd.
    assert scoring.goal_points("mezzo", owner, height, roof, [0] * 4, 4, 4) == [0, 0, 0, 6]


def test_dietro_tie_broken_by_blocks_then_split():
    # rules §5.3, Dietro 4×4 = rows 3 and 4: c0 3C (2) + 4A (1) = (2, 3); c1 3A (4) + 4B (1) =
    # (2, 5) → c1 6, c0 3. With c1's 3A at 2 blocks both are (2, 3): split 9 → 4 each.
    owner, height, roof = [-1] * 25, [0] * 25, [0] * 25
    for name, c, h in [("3C", 0, 2), ("4A", 0, 1), ("3A", 1, 4), ("4B", 1, 1), ("1A", 0, 3)]:
        owner[pos(name)], height[pos(name)], roof[pos(name)] = c, h, 2
    assert scoring.goal_points("dietro", owner, height, roof, [0, 0], 2, 4) == [3, 6]
    height[pos("3A")] = 2
    assert scoring.goal_points("dietro", owner, height, roof, [0, 0], 2, 4) == [4, 4]


# ---------------------------------------------------------------------------------------------
# JSON loader: kinds of breakage (engine contract, rules §2–§4)
# ---------------------------------------------------------------------------------------------


def _base():
    # Round 2 of a 2p game, block drafting (the same position as _block_draft with 3 blocks).
    return position(
        G2,
        round=2,
        phase="draft_block",
        removed=["1A", "1C", "3D", "4D"],
        lots=[["2A", "2B"], ["1B", "3A"]],
        blocks=[[0], [1]],
        builds=[[0], [1]],
        cards=[[0, 5], [1, 0]],
        boosters=[[1, 5], [2, 0]],
        beach_blocks=[4, 13],
        beach_builds=[5, 6],
        buildings={"2A": (0, 2, 1), "1B": (1, 1, 2)},
        personal=[3, 2],
    )


def _set(d, name, owner, height, roof):
    p = pos(name)
    d["owner"][p], d["height"][p], d["roof"][p] = owner, height, roof


def _over_early(d):
    d.update(phase="terminal", turn=0)


def _upgraded_without_remodel(d):
    _set(d, "2A", 0, 2, 2)
    d["roofs_left"][0] += 1
    d["roofs_left"][1] -= 1


def _too_tall(d):
    _set(d, "2A", 0, 5, 1)  # level 2 + 3
    d["colours"][0]["general"] -= 3


def _built_before_build_tile(d):
    _set(d, "2B", 0, 1, 1)  # c0's round-2 lot; its round-2 build tile is not drafted yet
    d["colours"][0]["general"] -= 1
    d["roofs_left"][0] -= 1


def _removed_count(d):
    d["removed_lots"].append(d["stacks"]["lots"].pop())


def _beach_count(d):
    d["beach"]["blocks"].append(d["stacks"]["blocks"].pop())


def _lot_twice(d):
    d["colours"][1]["lots"][1] = pos("2A")


def _other_colours_lot(d):
    _set(d, "2A", 1, 2, 1)
    d["colours"][0]["general"] += 2
    d["colours"][1]["general"] -= 2


def _roof_on_empty_lot(d):
    d["roof"][pos("3B")] = 1


LOADER_BREAKS = [
    (lambda d: d.update(phase=["bid"]), r"phase \['bid'\] is unknown"),
    (lambda d: d.update(phase=None), "phase None is unknown"),
    (lambda d: d.update(turn="0"), "turn must be an integer"),
    (lambda d: d.update(goals="piccolo"), "goals must be a list"),
    (lambda d: d.update(goals=["piccolo", "solitario"]), "exactly 3 goals"),
    (lambda d: d.update(goals=["piccolo", "solitario", "nope"]), "unknown goal 'nope'"),
    (lambda d: d.update(goals=["piccolo", "solitario", "centro"]), "only on the 5×5"),
    (_over_early, "ends after round 6"),
    (_upgraded_without_remodel, "0 Remodel tile"),
    (_too_tall, "exceeds regulation height"),
    (_built_before_build_tile, "before drafting its build tile"),
    (_removed_count, "4 lots are removed"),
    (_beach_count, "block row must hold 2"),
    (_lot_twice, "lot tiles"),
    (_other_colours_lot, "did not draft"),
    (_roof_on_empty_lot, "must be all set"),
    (lambda d: d["colours"][0].update(general=-1), "out of range"),
    (lambda d: d["colours"][0].update(extra=0), "unknown key"),
    (lambda d: d["colours"][1]["played_cards"].__setitem__(1, 1), "7 base bid cards"),
    (lambda d: d.update(removed_lots="1A"), "must be a list of integers"),
]


@pytest.mark.parametrize(("breaker", "words"), LOADER_BREAKS)
def test_loader_rejects_broken_states_with_a_clear_message(breaker, words):
    good = _base()
    assert G2.state_from_json(doc(good)).phase() == "draft_block"
    broken = copy.deepcopy(good)
    breaker(broken)
    with pytest.raises(StateFormatError, match=words):
        G2.state_from_json(doc(broken))


def test_loader_rejects_turn_in_bid_and_goals_other_than_configured():
    d = G2.new_initial_state(random.Random(0)).to_dict()
    d["turn"] = 1
    with pytest.raises(StateFormatError, match="turn must be 0 in phase 'bid'"):
        G2.state_from_json(doc(d))
    fixed = PositanoGame(num_players=2, goals=["grande", "gruppo", "bordo"])
    d = fixed.new_initial_state(random.Random(0)).to_dict()
    assert fixed.state_from_json(doc(d)).goals == ["grande", "gruppo", "bordo"]
    d["goals"] = ["piccolo", "gruppo", "bordo"]
    with pytest.raises(StateFormatError, match="differ from the configured goals"):
        fixed.state_from_json(doc(d))


def _pending_build():
    s = _build_draft([6, 15], [3, 1], {"1A": (0, 1, 1), "1B": (1, 1, 2)})
    s.apply_action(107 + 15)  # tile 75, Silver, Remodel Bronze→Silver
    return s


def test_loader_rejects_phases_whose_decision_does_not_exist():
    # rules §4: no block → no build decision; Remodel only with a target; Add-On only after a
    # build this round.
    s = _pending_build()
    assert s.phase() == "build"
    d = s.to_dict()
    d["colours"][0]["general"] += d["colours"][0]["personal"]
    d["colours"][0]["personal"] = 0
    with pytest.raises(StateFormatError, match="has no block"):
        G2.state_from_json(doc(d))
    s.apply_action(132)
    assert s.phase() == "remodel" and s.legal_actions() == [165 + pos("1A"), 190]
    d = s.to_dict()
    assert G2.state_from_json(doc(d)) == s
    # 1A already Silver (tile 75 covers one upgrade): no Bronze target left.
    d["roof"][pos("1A")] = 2
    d["roofs_left"][0] += 1
    d["roofs_left"][1] -= 1
    with pytest.raises(StateFormatError, match="no Remodel tile or no target"):
        G2.state_from_json(doc(d))
    # Add-On phase on a lot that was not built this round.
    s = _build_draft([6, 7], [3, 1], {"1A": (0, 1, 1), "1B": (1, 1, 2)})
    s.apply_action(107 + 6)
    s.apply_action(132)
    assert s.phase() == "add_on"
    d = s.to_dict()
    _set(d, "2B", -1, 0, 0)
    d["colours"][0]["general"] += 1
    d["roofs_left"][0] += 1
    with pytest.raises(StateFormatError, match="has not built this round"):
        G2.state_from_json(doc(d))


def test_loader_checks_ottos_deck_and_reveal():
    # rules §7: Otto's deck holds the cards he has not played, once each; his card is revealed
    # before the player bids.
    d = G1.new_initial_state(random.Random(2)).to_dict()
    assert G1.state_from_json(doc(d)).bid(1) is not None
    broken = copy.deepcopy(d)
    broken["colours"][1]["hand_cards"][0] = broken["colours"][1]["hand_cards"][1]
    with pytest.raises(StateFormatError, match="7 base bid cards"):
        G1.state_from_json(doc(broken))
    broken = copy.deepcopy(d)
    otto = broken["colours"][1]
    otto["hand_cards"].append(otto["played_cards"].pop())
    otto["hand_boosters"].append(otto["played_boosters"].pop())
    with pytest.raises(StateFormatError, match="must have been played"):
        G1.state_from_json(doc(broken))


# ---------------------------------------------------------------------------------------------
# action_to_string and __str__
# ---------------------------------------------------------------------------------------------


def test_action_strings_by_phase():
    s = _block_draft(3)
    assert s.action_to_string(80 + 13) == "block tile 53 (2X)"
    assert s.action_to_string(80 + 14) == "block tile 54 (1 block, 2 gelato)"
    assert s.action_to_string(80 + 20) == "block tile 60 (not in the 4×4 set)"
    assert s.action_to_string(107 + 20) == "build tile 80 (not in the 4×4 set)"
    assert s.action_to_string(107 + 0) == "build tile 60 (Bronze, 2 gelato)"
    assert s.action_to_string(107 + 9) == "build tile 69 (Silver +2, Add-On)"
    assert s.action_to_string(107 + 15) == "build tile 75 (Silver, Remodel Bronze→Silver)"
    # Outside the 2X/3X choice the tile is unknown.
    assert s.action_to_string(105) == "2X/3X: multiply the personal supply"
    assert s.action_to_string(106) == "2X/3X: take +2/+3 blocks"
    assert s.action_to_string(133) == "build 2 blocks"
    assert s.action_to_string(132) == "build 1 block"
    assert s.action_to_string(55 + 24) == "lot 5E"
    assert s.action_to_string(bid_id(6, 14)) == "bid #6 (30/70/20) +14"
    s.apply_action(80 + 4)  # 3X
    assert s.action_to_string(105) == "3X: triple the personal supply"
    assert s.action_to_string(106) == "3X: take +3 blocks"
    s = _block_draft(3)
    s.apply_action(80 + 13)
    assert s.action_to_string(105) == "2X: double the personal supply"
    assert s.action_to_string(106) == "2X: take +2 blocks"
    b = _pending_build()
    assert b.action_to_string(134) == "build 3 blocks at 2B"
    five = PositanoGame(num_players=5).new_initial_state(random.Random(0))
    assert five.action_to_string(107 + 8) == "build tile 68 (Bronze +1, Add-On)"
    assert five.action_to_string(107 + 24) == "build tile 84 (Bronze +1, Add-On)"
    assert five.action_to_string(80 + 6) == "block tile 46 (3X)"


def test_str_of_a_hand_built_position():
    # The debug text: header, Beach Board, stacks, goals and roofs, one line per colour, the
    # cliff from row 4 down with owner:height+roof cells, xx for removed lots.
    s = _block_draft(3)
    lines = str(s).splitlines()
    assert lines[0] == "Positano 2p 4x4, round 2/6, phase draft_block, acting colour 0"
    assert lines[1] == (
        "beach: lots [] blocks [44:3X 53:2X] builds [65:Silver +1 66:Bronze +1, Add-On]"
    )
    # Lots: 16 − 4 removed − 4 drafted = 8 in the stack; blocks and builds 16 − 2 − 2 = 12.
    assert lines[2] == "stacks: lots 8, blocks 12, builds 12; removed lots 1A 1C 3D 4D"
    # Roofs: one Bronze (2A) and one Silver (1B) placed.
    assert lines[3] == "goals: piccolo, solitario, eccesso; roofs left B5 S5 G6"
    # c0: played #1 +6 then #6 +22 (this round); gelato #1 1 + +6 1 + tile 40 1 + tile 60 2.
    assert lines[4] == (
        "colour 0 (stars 1): hand [#2 #3 #4 #5 #7 | +5 +13 +14 +21]; bid #6 (30/70/20) +22; "
        "blocks 3 (+11 general); gelato 5"
    )
    # c1: played #2 +13 then #1 +5; gelato #2 1 + #1 1 + +5 2 (tiles 41 and 61 have none).
    assert lines[5] == (
        "colour 1 (stars 2): hand [#3 #4 #5 #6 #7 | +6 +14 +21 +22]; bid #1 (60/50/10) +5; "
        "blocks 2 (+13 general); gelato 4"
    )
    dot, xx = "  . ", " xx "
    assert lines[6] == "row 4 | " + " ".join((dot, dot, dot, xx))
    assert lines[7] == "row 3 | " + " ".join((dot, dot, dot, xx))
    assert lines[8] == "row 2 | " + " ".join(("0:2B", dot, dot, dot))
    assert lines[9] == "row 1 | " + " ".join((xx, "1:1S", xx, dot))
    assert lines[10] == "           A    B    C    D"


# ---------------------------------------------------------------------------------------------
# Information hygiene of the text render (rules reference Decisions, engine contract)
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("cfg", ALL_CONFIGS, ids=CONFIG_IDS)
def test_render_never_shows_stack_or_otto_deck_order(cfg):
    # The face-down stacks' order and Otto's undrawn order are hidden: re-drawing them must not
    # change what any viewer sees.
    game = PositanoGame(**cfg)
    rng = random.Random(9)
    s = game.new_initial_state(random.Random(9))
    step = 0
    while not s.is_terminal():
        if step % 4 == 0:
            other = s.resample_hidden(0, random.Random(step))
            for viewer in [None, *range(game.num_players)]:
                assert render_text(other, viewer) == render_text(s, viewer)
        random_step(s, rng)
        step += 1
