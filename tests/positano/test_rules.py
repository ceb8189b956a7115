"""Rules tests of the Positano engine; each cites the section of ``docs/rules/positano.md`` it checks.

Positions are written by hand (``helpers.position``); expected values are worked out from the
rules in the comments, not taken from the engine.
"""

from __future__ import annotations

import json
import random

import pytest

from tabletop_gym.core.game import (
    SIMULTANEOUS,
    TERMINAL,
    ConfigError,
    IllegalActionError,
    StateFormatError,
)
from tabletop_gym.envs.positano import PositanoConfig, PositanoGame, PositanoState
from tabletop_gym.envs.positano.rules import PHASES
from tests.configs import POSITANO, POSITANO_IDS

from .helpers import load, play_random, pos, position, random_step

ALL_CONFIGS = POSITANO
CONFIG_IDS = POSITANO_IDS

# rules §1.3 printed star table, ``STARS[card][set - 1]`` = (lot, block, build).
STARS = [
    [(0, 4, 5), (6, 3, 0), (5, 2, 2), (4, 1, 4), (3, 0, 6), (2, 6, 1)],
    [(1, 5, 3), (0, 4, 5), (6, 3, 0), (5, 2, 2), (4, 1, 4), (3, 0, 6)],
    [(2, 6, 1), (1, 5, 3), (0, 4, 5), (6, 3, 0), (5, 2, 2), (4, 1, 4)],
    [(3, 0, 6), (2, 6, 1), (1, 5, 3), (0, 4, 5), (6, 3, 0), (5, 2, 2)],
    [(4, 1, 4), (3, 0, 6), (2, 6, 1), (1, 5, 3), (0, 4, 5), (6, 3, 0)],
    [(5, 2, 2), (4, 1, 4), (3, 0, 6), (2, 6, 1), (1, 5, 3), (0, 4, 5)],
    [(6, 3, 0), (5, 2, 2), (4, 1, 4), (3, 0, 6), (2, 6, 1), (1, 5, 3)],
]


def bid_id(card_number: int, booster_value: int) -> int:
    """Action id of base card #n with a booster of the given value."""
    return 6 * (card_number - 1) + [5, 6, 13, 14, 21, 22].index(booster_value)


G2 = PositanoGame(num_players=2)
G1 = PositanoGame(num_players=1)


# ---------------------------------------------------------------------------------------------
# Set-up (rules §2, §7, §8)
# ---------------------------------------------------------------------------------------------

# (config, lots removed, starting block tiles, starting build tiles, tiles per row)
SETUPS = [
    ({"num_players": 1}, 4, [0, 1], [0, 1], 2),
    ({"num_players": 2}, 4, [0, 1], [0, 1], 2),
    ({"num_players": 3}, 1, [0, 1, 2], [0, 1, 2], 3),
    ({"num_players": 4}, 0, [0, 1, 2, 3], [0, 1, 2, 3], 4),
    ({"num_players": 4, "board_size": 5}, 1, [0, 1, 2, 3], [0, 1, 2, 3], 4),
    ({"num_players": 5}, 0, [0, 1, 2, 3, 4], [0, 1, 2, 3, 4], 5),
    ({"num_players": 6}, 1, [0, 1, 2, 3, 4, 5], [0, 1, 2, 3, 4, 5], 6),
]


@pytest.mark.parametrize(("cfg", "removed", "blocks", "builds", "per_row"), SETUPS, ids=CONFIG_IDS)
def test_setup_per_player_count(cfg, removed, blocks, builds, per_row):
    # rules §2.2-7 (§7 solo = 2-player set-up, §8 5×5): lots removed face-up, one tile per player
    # per row (solo 2), starting tiles by icon, 1 + 15 blocks, 7 cards + 6 boosters, roofs.
    game = PositanoGame(**cfg)
    size = 5 if cfg["num_players"] >= 5 or cfg.get("board_size") == 5 else 4
    for seed in range(5):
        s = game.new_initial_state(random.Random(seed))
        assert s.round == 1 and s.phase() == "bid"
        assert len(s.removed_lots) == removed
        assert len(s.lot_row) == per_row
        assert sorted(s.block_row) == blocks and sorted(s.build_row) == builds
        assert len(s.lot_stack) == size * size - removed - per_row
        assert len(s.block_stack) == size * size - per_row
        assert sorted(s.block_stack + s.block_row) == list(range(size * size))
        assert set(s.removed_lots).isdisjoint(s.lot_row + s.lot_stack)
        assert s.personal == [1] * per_row and s.general == [15] * per_row
        assert s.roofs_left == ([6, 6, 6] if size == 4 else [9, 10, 10])
        assert len(set(s.star_sets)) == per_row
        assert all(1 <= x <= 6 for x in s.star_sets)
        assert s.owner == [-1] * 25 and s.height == [0] * 25
        seats = cfg["num_players"]
        for c in range(seats):
            assert s.hand_cards[c] == list(range(7)) and s.hand_boosters[c] == list(range(6))
        s.check_invariants()


@pytest.mark.parametrize("cfg", ALL_CONFIGS, ids=CONFIG_IDS)
def test_goals_three_different_cards(cfg):
    # rules §2.8, §1.8: 3 of the 6 cards with a random side; both faces never together; Centro
    # replaces Mezzo on 5×5.
    game = PositanoGame(**cfg)
    cards = [
        ("grande", "piccolo"), ("solitario", "gruppo"), ("eccesso", "equilibrato"),
        ("dietro", "colonna"), ("bordo", "mezzo"), ("perfetto", "altezza"),
    ]
    seen = set()
    for seed in range(60):
        goals = game.new_initial_state(random.Random(seed)).goals
        seen.update(goals)
        assert len(goals) == 3
        idx = [next(i for i, c in enumerate(cards) if g in c or (g == "centro" and i == 4))
               for g in goals]
        assert len(set(idx)) == 3
        assert ("mezzo" not in goals) if game.size == 5 else ("centro" not in goals)
    assert len(seen) >= 10  # both sides of the cards do come up


def test_solo_setup_reveals_otto_and_randomises_rows():
    # rules §7: Otto's top card and booster are revealed before the player bids; the two tiles
    # of each round-1 row are in random order.
    orders = set()
    for seed in range(40):
        s = G1.new_initial_state(random.Random(seed))
        assert s.current_player() == 0 and s.acting_colour() == 0
        assert s.bid(0) is None
        card, booster = s.bid(1)
        assert card not in s.hand_cards[1] and booster not in s.hand_boosters[1]
        assert len(s.hand_cards[1]) == 6 and len(s.hand_boosters[1]) == 5
        assert s.legal_actions() == list(range(42))
        orders.add((tuple(s.block_row), tuple(s.build_row)))
    assert {(b, u) for b in ((0, 1), (1, 0)) for u in ((0, 1), (1, 0))} == orders


def test_setup_is_deterministic_per_seed():
    # Engine contract (docs/design.md): same seed → same game; different seeds differ.
    a = G2.new_initial_state(random.Random(7))
    b = G2.new_initial_state(random.Random(7))
    c = G2.new_initial_state(random.Random(8))
    assert a == b and a.to_json() == b.to_json()
    assert a != c


def test_configured_goals_and_solo_goal_sets():
    # rules §7: solo_goal_set k = the k-th recommended set; an explicit goals list is used as is.
    s = PositanoGame(num_players=1, solo_goal_set=2).new_initial_state(random.Random(0))
    assert s.goals == ["altezza", "equilibrato", "bordo"]
    s = PositanoGame(num_players=1, solo_goal_set=6).new_initial_state(random.Random(0))
    assert s.goals == ["grande", "altezza", "eccesso"]
    game = PositanoGame(num_players=5, goals=["centro", "gruppo", "perfetto"])
    assert game.new_initial_state(random.Random(3)).goals == ["centro", "gruppo", "perfetto"]


# ---------------------------------------------------------------------------------------------
# Rounds and end (rules §2, §6)
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cfg", "rounds"),
    [
        ({"num_players": 1}, 6),
        ({"num_players": 2}, 6),
        ({"num_players": 3}, 5),
        ({"num_players": 4}, 4),
        ({"num_players": 4, "board_size": 5}, 6),
        ({"num_players": 5}, 5),
        ({"num_players": 6}, 4),
    ],
    ids=["1p", "2p", "3p", "4p", "4p5x5", "5p", "6p"],
)
def test_number_of_rounds(cfg, rounds):
    # rules §2 "Rounds per player count", §6: the game ends after the round that took the last
    # lot tiles.
    game = PositanoGame(**cfg)
    assert game.num_rounds == rounds
    s, _ = play_random(game, seed=3)
    assert s.round == rounds and s.is_terminal() and s.phase() == "terminal"
    assert not s.lot_stack and not s.lot_row and not s.block_row and not s.build_row
    for c in range(game.num_colours):
        assert len(s.lots_taken[c]) == len(s.blocks_taken[c]) == rounds
        assert len(s.played_cards[c]) == len(s.played_boosters[c]) == rounds
    # rules §6: with 2–3 players some block and build tiles stay undrawn (2p: 16 − 12 = 4).
    if cfg == {"num_players": 2}:
        assert len(s.block_stack) == len(s.build_stack) == 4


# ---------------------------------------------------------------------------------------------
# Bids and draft order (rules §3.1, §3.2)
# ---------------------------------------------------------------------------------------------


def test_bid_strings_and_values():
    # rules §3.1 example: 60/50/10 with +22 → Lot 82, Block 72, Build 32.
    s = G2.new_initial_state(random.Random(0))
    assert s.action_to_string(bid_id(1, 22)) == "bid #1 (60/50/10) +22"
    assert s.action_to_string(bid_id(7, 5)) == "bid #7 (20/30/70) +5"
    s.apply_joint_action([bid_id(1, 22), bid_id(4, 13)])
    assert s.bid(0) == (0, 5) and s.bid(1) == (3, 2)
    assert s.bid_values(0) == (82, 72, 32)
    assert s.bid_values(1) == (53, 53, 53)
    # rules §3.1: played cards are public and leave the hand.
    assert s.played_cards == [[0], [3]] and 0 not in s.hand_cards[0]
    assert s.draft_order("lot") == [0, 1] and s.draft_order("build") == [1, 0]


def _three_player_round_one():
    game = PositanoGame(num_players=3)
    return load(
        game,
        removed=["4D"],
        beach_lots=["1A", "2B", "3C"],
        beach_blocks=[0, 1, 2],
        beach_builds=[0, 1, 2],
        star_sets=[1, 2, 3],
    )


def test_draft_order_follows_descending_bids():
    # rules §3.2-3.4: c0 #5 +5 = 75/25/35, c1 #6 +22 = 52/92/42, c2 #7 +13 = 33/43/83.
    s = _three_player_round_one()
    assert s.current_player() == SIMULTANEOUS
    s.apply_joint_action([bid_id(5, 5), bid_id(6, 22), bid_id(7, 13)])
    assert s.draft_order("lot") == [0, 1, 2]
    assert s.draft_order("block") == [1, 2, 0]
    assert s.draft_order("build") == [2, 1, 0]
    seen = []
    while s.phase() in ("draft_lot", "draft_block"):
        seen.append((s.phase(), s.current_player()))
        s.apply_action(s.legal_actions()[0])
    assert seen == [
        ("draft_lot", 0), ("draft_lot", 1), ("draft_lot", 2),
        ("draft_block", 1), ("draft_block", 2), ("draft_block", 0),
    ]
    # rules §3.4: build tiles in build-bid order, each player building right after drafting.
    assert (s.phase(), s.current_player()) == ("draft_build", 2)
    s.apply_action(s.legal_actions()[0])
    assert (s.phase(), s.current_player()) == ("build", 2)
    s.apply_action(s.legal_actions()[0])
    assert (s.phase(), s.current_player()) == ("draft_build", 1)


@pytest.mark.parametrize("card", range(7))
def test_star_tie_break_every_pair_of_sets(card):
    # rules §3.2 "Bidding ties": equal bids (same card and booster) → more stars for that tile
    # type drafts first; checked for all 15 pairs of star sets with the printed table (§1.3).
    for s1 in range(1, 7):
        for s2 in range(s1 + 1, 7):
            s = load(
                G2,
                removed=["1A", "1B", "1C", "1D"],
                beach_lots=["2A", "2B"],
                beach_blocks=[0, 1],
                beach_builds=[0, 1],
                star_sets=[s1, s2],
            )
            s.apply_joint_action([6 * card + 3, 6 * card + 3])
            for k, kind in enumerate(("lot", "block", "build")):
                a, b = STARS[card][s1 - 1][k], STARS[card][s2 - 1][k]
                assert a != b
                want = [0, 1] if a > b else [1, 0]
                assert s.draft_order(kind) == want, (card, s1, s2, kind)
            assert s.current_player() == s.draft_order("lot")[0]


# ---------------------------------------------------------------------------------------------
# Block tiles, 2X/3X (rules §1.6, §3.3)
# ---------------------------------------------------------------------------------------------


def _block_position(personal, beach_blocks=(4, 13)):
    # Round 2 of a 2p game: c0 (#6 +22 = 52/92/42) drafts blocks before c1 (#1 +5 = 65/55/15).
    # c0 owns 2A (2 blocks), c1 owns 1B (1 block).
    return load(
        G2,
        round=2,
        phase="draft_block",
        removed=["1A", "1C", "3D", "4D"],
        lots=[["2A", "2B"], ["1B", "3A"]],
        blocks=[[0], [1]],
        builds=[[0], [1]],
        cards=[[0, 5], [1, 0]],
        boosters=[[1, 5], [2, 0]],
        beach_blocks=list(beach_blocks),
        beach_builds=[5, 6],
        buildings={"2A": (0, 2, 1), "1B": (1, 1, 2)},
        personal=personal,
    )


@pytest.mark.parametrize(
    ("tile", "personal", "choice", "after_personal", "after_general"),
    [
        # 3X with 3 blocks: multiply → 9 (gain 6); flat → +3 (rules §1.6). General 16−3−2 = 11.
        (4, 3, 105, 9, 5),
        (4, 3, 106, 6, 8),
        # 2X with 3 blocks: multiply → 6 (gain 3); flat → +2.
        (13, 3, 105, 6, 8),
        (13, 3, 106, 5, 9),
        # Short supply (rules §3.3): personal 10, general 16−10−2 = 4 → multiply gains only 4.
        (4, 10, 105, 14, 0),
        (4, 10, 106, 13, 1),
        # 2X with personal 13 and general 1: both options gain the last block.
        (13, 13, 105, 14, 0),
        (13, 13, 106, 14, 0),
        # Empty general supply: both options gain nothing.
        (4, 14, 105, 14, 0),
        (4, 14, 106, 14, 0),
    ],
)
def test_two_x_three_x_choice(tile, personal, choice, after_personal, after_general):
    s = _block_position([personal, 2])
    assert s.current_player() == 0 and s.legal_actions() == [84, 93]
    general = s.general[0]
    assert general == 16 - personal - 2
    s.apply_action(80 + tile)
    # rules §1.6: the player chooses, as the next decision of the same player.
    assert s.phase() == "block_choice" and s.current_player() == 0 and s.acting_colour() == 0
    assert s.legal_actions() == [105, 106]
    assert s.personal[0] == personal  # nothing gained before the choice
    s.apply_action(choice)
    assert (s.personal[0], s.general[0]) == (after_personal, after_general)
    assert s.phase() == "draft_block" and s.current_player() == 1
    s.check_invariants()


@pytest.mark.parametrize(("personal", "gain"), [(1, 5), (12, 2), (14, 0)])
def test_plain_block_tile_capped_by_general_supply(personal, gain):
    # rules §3.3: take as many blocks as the tile shows, only what is left in the general supply;
    # the tile is drafted either way. Tile 6 (id 46) shows 5 blocks.
    s = _block_position([personal, 2], beach_blocks=(6, 13))
    s.apply_action(80 + 6)
    assert s.personal[0] == personal + gain
    assert s.general[0] == 16 - 2 - personal - gain
    assert s.blocks_taken[0] == [0, 6]
    assert s.current_player() == 1


# ---------------------------------------------------------------------------------------------
# Building (rules §4)
# ---------------------------------------------------------------------------------------------


def _build_position(lot, beach_builds, personal):
    # Round 2 of a 2p game, build drafting: c0 (#7 +22: build 92) before c1 (#1 +5: build 15).
    # c0 builds this round on ``lot``; c0 owns 2A (Bronze, 2 blocks), c1 owns 1B (Silver, 1).
    return load(
        G2,
        round=2,
        phase="draft_build",
        removed=["1A", "1C", "3D", "4D"],
        lots=[["2A", lot], ["1B", "3A"]],
        blocks=[[0, 2], [1, 3]],
        builds=[[0], [1]],
        cards=[[0, 6], [1, 0]],
        boosters=[[1, 5], [2, 0]],
        beach_builds=beach_builds,
        buildings={"2A": (0, 2, 1), "1B": (1, 1, 2)},
        personal=personal,
    )


@pytest.mark.parametrize(
    ("lot", "tile", "personal", "heights"),
    [
        ("2B", 2, 5, [1, 2]),  # level 2, no bonus (tile 62)
        ("2B", 7, 5, [1, 2, 3, 4]),  # level 2, +2 (tile 67)
        ("2B", 7, 3, [1, 2, 3]),  # limited by the 3 blocks held
        ("1D", 5, 5, [1, 2]),  # level 1, +1 (tile 65)
        ("4A", 2, 10, [1, 2, 3, 4]),  # level 4, no bonus
        ("4A", 12, 10, [1, 2, 3, 4, 5, 6]),  # level 4, +2 (tile 72): never above level + 2
        ("4A", 12, 1, [1]),
    ],
)
def test_height_limits(lot, tile, personal, heights):
    # rules §4: 1 ≤ h ≤ min(level + bonus, blocks held); never above level + 2.
    s = _build_position(lot, [tile, 15 if tile != 15 else 14], [personal, 2])
    assert s.current_player() == 0
    s.apply_action(107 + tile)
    assert s.phase() == "build" and s.current_player() == 0
    assert s.legal_actions() == [131 + h for h in heights]
    assert s.action_to_string(131 + heights[-1]) == (
        f"build {heights[-1]} block{'s' if heights[-1] > 1 else ''} at {lot}"
    )
    s.apply_action(131 + heights[-1])
    p = pos(lot)
    assert (s.owner[p], s.height[p]) == (0, heights[-1])
    assert s.roof[p] == {2: 3, 7: 1, 5: 2, 12: 1}[tile]  # the tile's roof (rules §1.7)
    assert s.personal[0] == personal - heights[-1]


def test_height_limit_on_5x5_level_five():
    # rules §4 and §8: a level-5 lot with a +2 tile allows 7 blocks; row-5 lots give 1 gelato.
    game = PositanoGame(num_players=4, board_size=5)
    s = load(
        game,
        phase="draft_build",
        removed=["1E"],
        lots=[["5A"], ["1B"], ["1C"], ["1D"]],
        blocks=[[0], [1], [2], [3]],
        cards=[[6], [1], [2], [3]],
        boosters=[[5], [0], [0], [0]],
        beach_builds=[9, 0, 1, 2],
        personal=[10, 1, 1, 1],
    )
    # Build bids: c0 #7 +22 = 92, c2 #3 +5 = 65, c1 #2 +5 = 55, c3 #4 +5 = 45.
    assert s.draft_order("build") == [0, 2, 1, 3]
    s.apply_action(107 + 9)  # tile 69: Bronze +2, Add-On
    assert s.legal_actions() == [132, 133, 134, 135, 136, 137, 138]
    # rules §1.5 (5×5), §5.2: lot 5A 1 + block tile 40 1 + card #7 0 + booster +22 0.
    assert s.gelato_parts(0)["lots"] == 1 and s.gelato(0) == 2


@pytest.mark.parametrize("tile", [6, 15])
def test_no_blocks_no_building_no_extra_action(tile):
    # rules §4 + Decisions: a player without blocks does not build, the lot stays empty for the
    # rest of the game and there is no extra action (tile 66 Add-On +1; tile 75 Remodel
    # Bronze→Silver — c0's Bronze 2A would be a target of both).
    s = _build_position("2B", [6, 15], [0, 2])
    s.apply_action(107 + tile)
    assert s.phase() == "draft_build" and s.current_player() == 1
    assert s.height[pos("2B")] == 0 and s.owner[pos("2B")] == -1
    assert (s.height[pos("2A")], s.roof[pos("2A")]) == (2, 1)
    assert s.empty_lots() == [pos("2B")]
    assert s.builds_taken[0] == [0, tile]
    rng = random.Random(0)
    while not s.is_terminal():
        random_step(s, rng)
        s.check_invariants()
    assert s.height[pos("2B")] == 0 and pos("2B") in s.empty_lots()


def _late_position(beach_builds, personal):
    # Round 4 of a 2p game, build drafting: c0 (#7 +22, build 92) before c1 (#1 +14, build 24).
    # c0: 2A Bronze 2, 1D Bronze 1, 3C Bronze 4 (tile 63: +1); builds this round on 2B.
    # c1: 1B Silver 1, 3A Gold 3, 4B Silver 5 (tile 65: +1); builds this round on 4A.
    return load(
        G2,
        round=4,
        phase="draft_build",
        removed=["1A", "1C", "3D", "4D"],
        lots=[["2A", "1D", "3C", "2B"], ["1B", "3A", "4B", "4A"]],
        blocks=[[0, 2, 5, 7], [1, 3, 6, 8]],
        builds=[[0, 4, 3], [1, 2, 5]],
        cards=[[0, 1, 2, 6], [3, 4, 5, 0]],
        boosters=[[0, 1, 2, 5], [0, 1, 2, 3]],
        beach_builds=beach_builds,
        buildings={
            "2A": (0, 2, 1), "1D": (0, 1, 1), "3C": (0, 4, 1),
            "1B": (1, 1, 2), "3A": (1, 3, 3), "4B": (1, 5, 2),
        },
        personal=personal,
    )


def test_add_on_targets_own_buildings_within_limit():
    # rules §4: Add-On on one's own buildings (the one just built included) whose height stays
    # ≤ regulation height + the tile's bonus; tile 66 is Bronze +1 Add-On.
    s = _late_position([6, 9], [5, 3])
    s.apply_action(107 + 6)
    assert s.legal_actions() == [132, 133, 134]  # 2B: level 2 + 1
    s.apply_action(132)
    assert s.phase() == "add_on" and s.current_player() == 0
    # 1D (1 < 2), 2A (2 < 3), 2B (1 < 3, just built); not 3C (4 = 3 + 1) nor c1's 1B (1 < 2).
    assert s.legal_actions() == [139 + pos("1D"), 139 + pos("2A"), 139 + pos("2B"), 164]
    assert s.action_to_string(139 + pos("2A")) == "Add-On at 2A"
    s.apply_action(139 + pos("2A"))
    assert s.height[pos("2A")] == 3 and s.personal[0] == 3
    assert s.phase() == "draft_build" and s.current_player() == 1
    s.check_invariants()


def test_add_on_plus_two_and_just_built_at_limit():
    # rules §4: tile 67 (Bronze +2 Add-On): 2B built to 4 = level + 2 is not a target; 3C (4 < 5)
    # now is.
    s = _late_position([7, 9], [6, 3])
    s.apply_action(107 + 7)
    s.apply_action(131 + 4)
    assert s.legal_actions() == [139 + pos("1D"), 139 + pos("2A"), 139 + pos("3C"), 164]
    s.apply_action(164)  # skipping changes nothing
    assert s.personal[0] == 2 and s.height[pos("3C")] == 4
    assert s.current_player() == 1


def test_add_on_needs_a_block():
    # rules §4: the Add-On block comes from the personal supply; with none left, no Add-On step.
    s = _late_position([6, 9], [3, 3])
    s.apply_action(107 + 6)
    s.apply_action(131 + 3)
    assert s.personal[0] == 0
    assert s.phase() == "draft_build" and s.current_player() == 1


def test_remodel_own_buildings_one_rank_below():
    # rules §4, §1.7: tile 75 (Silver, Remodel Bronze→Silver) upgrades one of c0's own Bronze
    # buildings; then c1's tile 74 (Gold, Remodel Silver→Gold) offers only c1's Silver ones.
    s = _late_position([15, 14], [5, 3])
    assert s.roofs_left == [3, 4, 5]  # Bronze 2A 1D 3C; Silver 1B 4B; Gold 3A
    s.apply_action(107 + 15)
    s.apply_action(131 + 1)
    assert s.phase() == "remodel" and s.current_player() == 0
    assert s.legal_actions() == [165 + pos("1D"), 165 + pos("2A"), 165 + pos("3C"), 190]
    s.apply_action(165 + pos("2A"))
    assert s.roof[pos("2A")] == 2 and s.height[pos("2A")] == 2
    assert s.roofs_left == [4, 2, 5]
    assert s.current_player() == 1
    s.apply_action(107 + 14)
    s.apply_action(131 + 1)  # c1 builds a Gold 1-block building on 4A
    assert s.phase() == "remodel" and s.current_player() == 1
    # c1's Silver 1B and 4B; not c0's (now Silver) 2A, not the Gold just built.
    assert s.legal_actions() == [165 + pos("1B"), 165 + pos("4B"), 190]
    s.apply_action(190)
    assert s.roof[pos("1B")] == 2
    s.check_invariants()


def test_remodel_without_target_is_not_offered():
    # rules §4: c0 owns no Silver building, so tile 74 (Silver→Gold) has no target: no step.
    s = _late_position([14, 15], [5, 3])
    s.apply_action(107 + 14)
    s.apply_action(131 + 1)
    assert s.phase() == "draft_build" and s.current_player() == 1


def test_refresh_draws_from_the_stack_tops():
    # rules §3.5: after the last build of the round, each row gets the next tiles of its stack.
    s = load(
        G2,
        phase="draft_build",
        turn=1,
        removed=["1A", "1B", "1C", "1D"],
        lots=[["2A"], ["2B"]],
        blocks=[[0], [1]],
        builds=[[0], []],
        cards=[[6], [0]],
        boosters=[[5], [0]],
        beach_builds=[1],
        buildings={"2A": (0, 1, 1)},
        personal=[2, 4],
        lot_stack=["4D", "3A", "2C", "2D", "3B", "3C", "3D", "4A", "4B", "4C"],
        block_stack=[9, 4, *[t for t in range(16) if t not in (0, 1, 9, 4)]],
        build_stack=[13, 2, *[t for t in range(16) if t not in (0, 1, 13, 2)]],
    )
    assert s.current_player() == 1
    s.apply_action(107 + 1)
    s.apply_action(131 + 2)
    assert s.round == 2 and s.phase() == "bid" and s.current_player() == SIMULTANEOUS
    assert s.lot_row == [pos("4D"), pos("3A")]
    assert s.block_row == [9, 4] and s.build_row == [13, 2]
    assert len(s.lot_stack) == 8
    assert s.legal_actions(0) == [bid_id(c, b) for c in range(1, 7)
                                  for b in (5, 6, 13, 14, 21)]
    assert s.bid(0) is None and s.draft_order("lot") == []


# ---------------------------------------------------------------------------------------------
# Solo (rules §7)
# ---------------------------------------------------------------------------------------------


def _solo_round_one():
    return load(
        G1,
        removed=["1A", "1C", "3D", "4D"],
        beach_lots=["2B", "3A"],
        beach_blocks=[1, 0],
        beach_builds=[0, 1],
        cards=[[], [0]],
        boosters=[[], [0]],
        otto_cards=[3, 1, 2, 4, 5, 6],
        otto_boosters=[4, 1, 2, 3, 5],
        star_sets=[1, 2],
    )


def test_solo_higher_bid_takes_the_leftmost_tile():
    # rules §7: Otto's #1 +5 (65/55/15) is shown; the player bids #7 +22 (42/52/92). Otto wins
    # lot and block → leftmost 2B and block tile 41 (3); the player wins build → tile 60.
    s = _solo_round_one()
    assert s.bid(1) == (0, 0) and s.bid(0) is None and s.bid_values(1) == (65, 55, 15)
    assert s.current_player() == 0 and s.phase() == "bid"
    s.apply_action(bid_id(7, 22))
    assert s.lots_taken == [[pos("3A")], [pos("2B")]]
    assert s.blocks_taken == [[0], [1]] and s.personal == [3, 4]
    assert s.builds_taken == [[0], []]
    # The player builds first (build bid 92 > 15) on 3A with Bronze (no bonus): 1..3.
    assert s.phase() == "build" and s.acting_colour() == 0 and s.current_player() == 0
    assert s.legal_actions() == [132, 133, 134]
    s.apply_action(133)
    # Then the player decides Otto's height: Otto on 2B (level 2), Silver tile 61, 4 blocks.
    assert s.builds_taken == [[0], [1]]
    assert s.phase() == "build" and s.acting_colour() == 1 and s.current_player() == 0
    assert s.legal_actions() == [132, 133]
    s.apply_action(133)
    assert (s.owner[pos("2B")], s.height[pos("2B")], s.roof[pos("2B")]) == (1, 2, 2)
    # Round 2: Otto's next card (#4) and booster (+21) are revealed before the player bids.
    assert s.round == 2 and s.phase() == "bid" and s.bid(1) == (3, 4)
    assert s.hand_cards[1] == [1, 2, 4, 5, 6] and s.hand_boosters[1] == [1, 2, 3, 5]
    s.check_invariants()


def test_solo_ties_use_each_colours_stars():
    # rules §7 + §3.2: the player (set 1) and Otto (set 2) both bid #1 +5. Card #1 stars: set 1
    # 0/4/5, set 2 6/3/0 → Otto wins the lot, the player wins block and build.
    s = _solo_round_one()
    s.apply_action(bid_id(1, 5))
    assert s.draft_order("lot") == [1, 0]
    assert s.draft_order("block") == [0, 1] and s.draft_order("build") == [0, 1]
    assert s.lots_taken == [[pos("3A")], [pos("2B")]]
    assert s.blocks_taken == [[1], [0]]
    assert s.builds_taken == [[0], []]


def _solo_round_two():
    # After round 1: the player built 3A (Bronze, 2 blocks), Otto 2B (Silver, 2 blocks).
    return load(
        G1,
        round=2,
        removed=["1A", "1C", "3D", "4D"],
        lots=[["3A"], ["2B"]],
        blocks=[[0], [1]],
        builds=[[0], [1]],
        cards=[[6], [0, 3]],
        boosters=[[5], [0, 4]],
        otto_cards=[1, 2, 4, 5, 6],
        otto_boosters=[1, 2, 3, 5],
        beach_lots=["2C", "4A"],
        beach_blocks=[4, 13],
        beach_builds=[6, 15],
        buildings={"3A": (0, 2, 1), "2B": (1, 2, 2)},
        personal=[1, 2],
        star_sets=[1, 2],
    )


def test_solo_player_decides_for_otto_without_crossing_colours():
    # rules §7: Otto #4 +21 = 61/61/61; the player #1 +5 = 65/55/15. The player takes lot 2C;
    # Otto takes 4A, the 3X tile and the Add-On tile 66; the player 2X and Remodel tile 75.
    s = _solo_round_two()
    s.apply_action(bid_id(1, 5))
    # Otto's 3X choice is the player's decision (rulebook, unlike BGA's automatic choice).
    assert s.phase() == "block_choice" and s.acting_colour() == 1 and s.current_player() == 0
    assert s.action_to_string(105) == "3X: triple the personal supply"
    s.apply_action(105)  # Otto: 2 → 6
    assert s.personal == [1, 6]
    assert s.phase() == "block_choice" and s.acting_colour() == 0
    assert s.action_to_string(106) == "2X: take +2 blocks"
    s.apply_action(106)  # player: 1 → 3
    assert s.personal == [3, 6]
    # Otto builds first (61 > 15) on 4A (level 4, +1): up to 5 blocks.
    assert s.phase() == "build" and s.acting_colour() == 1 and s.current_player() == 0
    assert s.legal_actions() == [132, 133, 134, 135, 136]
    s.apply_action(132)
    # Add-On for Otto: his 2B (2 < 3) and 4A (1 < 5); never the player's 3A (2 < 4).
    assert s.phase() == "add_on" and s.acting_colour() == 1
    assert s.legal_actions() == [139 + pos("2B"), 139 + pos("4A"), 164]
    s.apply_action(139 + pos("2B"))
    assert s.height[pos("2B")] == 3 and s.personal[1] == 4
    # The player builds on 2C with Silver (tile 75); Remodel Bronze→Silver: only the player's
    # Bronze 3A, not Otto's Bronze 4A.
    assert s.phase() == "build" and s.acting_colour() == 0
    s.apply_action(132)
    assert s.phase() == "remodel" and s.acting_colour() == 0
    assert s.legal_actions() == [165 + pos("3A"), 190]
    s.apply_action(165 + pos("3A"))
    assert s.roof[pos("3A")] == 2 and s.roof[pos("4A")] == 1
    assert s.round == 3 and s.phase() == "bid"
    s.check_invariants()


# ---------------------------------------------------------------------------------------------
# Scoring (rules §5, §7)
# ---------------------------------------------------------------------------------------------


def _final_position(game, personal):
    # A finished 4×4 game (6 rounds, lots 4A–4D removed). Buildings: c0 1A (1, Bronze), 2B
    # (1, Silver); c1 1B (2, Gold), 3D (3, Bronze, tile 63 +1); all other drafted lots stayed
    # empty. Goals Piccolo, Solitario, Eccesso.
    otto = game.solo
    return load(
        game,
        round=6,
        phase="terminal",
        removed=["4A", "4B", "4C", "4D"],
        lots=[["1A", "2B", "1C", "1D", "2A", "2C"], ["1B", "3D", "2D", "3A", "3B", "3C"]],
        blocks=[[0, 2, 4, 6, 8, 10], [1, 3, 5, 7, 9, 11]],
        builds=[[0, 1, 4, 5, 6, 7], [2, 3, 8, 9, 10, 11]],
        cards=[[0, 1, 2, 3, 4, 5], [6, 5, 4, 3, 2, 1]],
        boosters=[[0, 1, 2, 3, 4, 5], [5, 4, 3, 2, 1, 0]],
        otto_cards=[0] if otto else None,
        otto_boosters=[] if otto else None,
        buildings={"1A": (0, 1, 1), "2B": (0, 1, 2), "1B": (1, 2, 3), "3D": (1, 3, 1)},
        personal=personal,
    )


# Hand computation (rules §5):
#   buildings: c0 1A 1×1 = 1, 2B hidden by 1B (2 − 1 = 1 block) → 0; c1 1B 2×3 = 6, 3D 3×1 = 3.
#   gelato: c0 cards #1–#4 4 + boosters 3 + block tiles 40, 50 2 + build tiles 60, 64 4 = 13;
#           c1 cards #2–#4 3 + boosters 3 + block tiles 43, 51 2 = 8.
#   Piccolo: c0 2B (1 < 2) 3; c1 0. Solitario: every building alone in its colour: 4 and 4.
#   Eccesso: c0 3 leftover blocks vs c1 0 (c1 not eligible): 6 and 0.
C0_TOTAL, C1_TOTAL = 1 + 13 + 3 + 4 + 6, 9 + 8 + 0 + 4 + 0


def test_final_scores_and_breakdown():
    # rules §5: score = buildings + gelato + goals; highest total wins.
    s = _final_position(G2, [3, 0])
    assert s.is_terminal() and s.current_player() == TERMINAL
    assert s.scores() == [C0_TOTAL, C1_TOTAL] == [27, 21]
    b0, b1 = s.score_breakdown()
    assert b0["buildings"] == {"1A": 1, "2B": 0} and b1["buildings"] == {"1B": 6, "3D": 3}
    assert b0["gelato"] == 13 and b1["gelato"] == 8
    assert b0["gelato_parts"] == {
        "cards": 4, "boosters": 3, "lots": 0, "block_tiles": 2, "build_tiles": 4,
    }
    assert b0["goals"] == {"piccolo": 3, "solitario": 4, "eccesso": 6}
    assert b1["goals"] == {"piccolo": 0, "solitario": 4, "eccesso": 0}
    assert s.winners() == [0] and s.returns() == [1.0, -1.0]
    json.dumps(s.score_breakdown())


def test_tied_scores_share_the_win():
    # rules §5: without leftover blocks c0 loses Eccesso: 21 vs 21, a shared win.
    s = _final_position(G2, [0, 0])
    assert s.scores() == [21, 21]
    assert s.winners() == [0, 1] and s.returns() == [0.0, 0.0]
    diff = PositanoGame(num_players=2, reward_type="score_diff")
    assert _final_position(diff, [3, 0]).returns() == [6.0, -6.0]


def test_solo_score_is_the_lower_of_the_two():
    # rules §7: the player's result = min(own 27, Otto 21) = 21; returns = 21 / 100.
    s = _final_position(G1, [3, 0])
    assert s.scores() == [21.0]
    (b,) = s.score_breakdown()
    assert (b["own"], b["otto"], b["total"]) == (27, 21, 21)
    assert s.winners() == [0] and s.returns() == [0.21]
    score = PositanoGame(num_players=1, reward_type="score")
    assert _final_position(score, [3, 0]).returns() == [0.21]
    assert G1.return_bounds() == (0.0, G1.score_bounds[1] / 100)


def test_scores_during_play_use_the_same_formula():
    # rules §5 on the set-up position: no building, no gelato; Eccesso: both keep 1 block, tied
    # for 1st → split 9 → 4 each (§5.3).
    s = load(
        G2,
        removed=["1A", "1B", "1C", "1D"],
        beach_lots=["2A", "2B"],
        beach_blocks=[0, 1],
        beach_builds=[0, 1],
    )
    assert s.scores() == [4.0, 4.0]
    assert s.returns() == [0.0, 0.0]  # not over yet


# ---------------------------------------------------------------------------------------------
# Config errors
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"num_players": 0}, "out of range"),
        ({"num_players": 7}, "out of range"),
        ({"num_players": "2"}, "must be an integer"),
        ({"board_size": 3}, "choose one of"),
        ({"num_players": 2, "board_size": 5}, "board_size=5 needs 4–6 players"),
        ({"num_players": 5, "board_size": 4}, "board_size=4 allows 1–4 players"),
        ({"goals": ["grande", "piccolo", "eccesso"]}, "same card"),
        ({"goals": ["grande"]}, "exactly 3 goals"),
        ({"goals": ["grande", "solitario", "nope"]}, "unknown goal 'nope'"),
        ({"num_players": 5, "goals": ["mezzo", "grande", "gruppo"]}, "only on the 4×4"),
        ({"goals": ["centro", "grande", "gruppo"]}, "only on the 5×5"),
        ({"goals": "grande"}, "goals must be a list"),
        ({"solo_goal_set": 2}, "only for solo"),
        ({"num_players": 1, "solo_goal_set": 7}, "out of range"),
        (
            {"num_players": 1, "solo_goal_set": 1, "goals": ["grande", "gruppo", "dietro"]},
            "not both",
        ),
        ({"reward_type": "points"}, "choose one of"),
        ({"players": 2}, "unexpected config key"),
    ],
)
def test_config_errors(kwargs, words):
    with pytest.raises(ConfigError, match=words):
        PositanoGame(**kwargs)


def test_config_defaults_and_auto_board():
    # Decisions table: 4×4 for 1–4 players, 5×5 for 5–6; 5×5 is an option for 4.
    assert PositanoGame().config == PositanoConfig()
    assert PositanoGame().num_players == 2 and PositanoGame().size == 4
    assert PositanoGame(num_players=4).size == 4
    assert PositanoGame(num_players=4, board_size=5).size == 5
    assert PositanoGame(num_players=6).size == 5
    assert PositanoGame(num_players=1).num_colours == 2
    assert PositanoGame().num_distinct_actions == 192


# ---------------------------------------------------------------------------------------------
# Illegal actions
# ---------------------------------------------------------------------------------------------


def _unchanged_after(state, call):
    before = state.to_dict()
    with pytest.raises(IllegalActionError) as info:
        call()
    assert state.to_dict() == before
    return info.value


def test_illegal_bids_change_nothing():
    # rules §3.1: only (card, booster) pairs in hand; split-bid ids and the no-op never.
    s = G2.new_initial_state(random.Random(1))
    err = _unchanged_after(s, lambda: s.apply_action(0))
    assert "apply_joint_action" in str(err)
    for bad in (42, 48, 49, 54, 55, 191, -1, 192):
        _unchanged_after(s, lambda bad=bad: s.apply_joint_action([bad, 0]))
    _unchanged_after(s, lambda: s.apply_joint_action([0]))
    _unchanged_after(s, lambda: s.apply_joint_action([0, None]))
    _unchanged_after(s, lambda: s.apply_joint_action(["0", 0]))
    _unchanged_after(s, lambda: s.apply_joint_action([True, 0]))
    # A card played in round 1 cannot be bid again in round 2.
    r2 = _build_position("2B", [2, 4], [2, 2])
    r2.apply_action(107 + 2)
    r2.apply_action(132)
    r2.apply_action(107 + 4)
    r2.apply_action(132)
    assert r2.round == 3 and r2.phase() == "bid"
    err = _unchanged_after(r2, lambda: r2.apply_joint_action([bid_id(7, 13), bid_id(2, 5)]))
    assert err.phase == "bid"


def test_illegal_sequential_actions_change_nothing():
    s = _three_player_round_one()
    s.apply_joint_action([bid_id(5, 5), bid_id(6, 22), bid_id(7, 13)])
    assert s.phase() == "draft_lot"
    for bad in (55 + pos("4A"), 80, 105, 132, 164, 191, 3.0, "56", None):
        err = _unchanged_after(s, lambda bad=bad: s.apply_action(bad))
        assert err.phase == "draft_lot" and err.legal == s.legal_actions()
    _unchanged_after(s, lambda: s.apply_joint_action([55, None, None]))
    end = _final_position(G2, [3, 0])
    err = _unchanged_after(end, lambda: end.apply_action(0))
    assert "over" in str(err)
    assert end.legal_actions() == [] and end.legal_actions(0) == []


def test_action_strings():
    s = _late_position([6, 9], [5, 3])
    assert s.action_to_string(55 + pos("2C")) == "lot 2C"
    assert s.action_to_string(84) == "block tile 44 (3X)"
    assert s.action_to_string(80) == "block tile 40 (2 blocks, 1 gelato)"
    assert s.action_to_string(113) == "build tile 66 (Bronze +1, Add-On)"
    assert s.action_to_string(121) == "build tile 74 (Gold, Remodel Silver→Gold)"
    assert s.action_to_string(164) == "skip the Add-On"
    assert s.action_to_string(165 + pos("1A")) == "Remodel at 1A"
    assert s.action_to_string(190) == "skip the Remodel"
    assert s.action_to_string(191) == "no-op"
    assert s.action_to_string(42) == "bid card #1 (60/50/10)"
    assert s.action_to_string(54) == "booster +22"
    five = PositanoGame(num_players=5).new_initial_state(random.Random(0))
    assert five.action_to_string(84) == "block tile 44 (5 blocks)"
    with pytest.raises(ValueError, match=r"0\.\.191"):
        s.action_to_string(192)
    text = str(s)
    assert "round 4/6" in text and "draft_build" in text and "row 4" in text


# ---------------------------------------------------------------------------------------------
# JSON, clone, hidden information
# ---------------------------------------------------------------------------------------------


def _doc(state_dict, **extra):
    return {"schema": 1, "game": "positano", "state": state_dict, **extra}


def _good():
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


def _plain_tile_choice(d):
    # c0 has drafted the plain tile 45 (4 blocks) but the phase asks for a 2X/3X choice.
    d["stacks"]["blocks"].remove(5)
    d["colours"][0]["block_tiles"].append(5)
    d["stacks"]["blocks"].append(d["beach"]["blocks"].pop(1))
    d["phase"] = "block_choice"


def _breaks(fn):
    d = _good()
    fn(d)
    return d


MALFORMED = [
    (lambda d: d.pop("round"), "lacks key"),
    (lambda d: d.update(extra=1), "unknown key"),
    (lambda d: d.update(round="2"), "round must be an integer"),
    (lambda d: d.update(round=7), "out of range"),
    (lambda d: d.update(phase="auction"), "phase 'auction' is unknown"),
    (lambda d: d.update(turn=2), "turn = 2 is out of range"),
    (lambda d: d["colours"].pop(), "list of 2 objects"),
    (lambda d: d["colours"][0]["hand_cards"].append(0), "7 base bid cards"),
    (lambda d: d["colours"][0]["played_boosters"].pop(), "must have been played"),
    (lambda d: d["colours"][0].update(personal=4), "must be 16 blocks"),
    (lambda d: d["stacks"]["blocks"].append(0), "block tiles"),
    (lambda d: d["stacks"]["lots"].pop(), "lot tiles"),
    (lambda d: d.update(phase="draft_lot"), "must have drafted"),
    (lambda d: d.update(goals=["grande", "piccolo", "eccesso"]), "same card"),
    (lambda d: d.update(goals=["mezzo", "bordo", "eccesso"]), "same card"),
    (lambda d: d["height"].__setitem__(4, 1), "owner"),
    (lambda d: [d[k].__setitem__(4, v) for k, v in (("owner", 0), ("height", 1), ("roof", 1))],
     "off the 4×4 cliff"),
    (lambda d: d["roofs_left"].__setitem__(0, 6), "Bronze roofs"),
    (lambda d: d["owner"].__setitem__(5, 2), "out of range"),
    (lambda d: d["height"].pop(), "25 entries"),
    (lambda d: d["colours"][1].update(star_set=d["colours"][0]["star_set"]), "distinct"),
    (lambda d: d["roof"].__setitem__(pos("1B"), 1), "below the roof"),
    (lambda d: _plain_tile_choice(d), "not a 2X/3X tile"),
    (lambda d: d.update(colours="x"), "list of 2 objects"),
    (lambda d: d.update(stacks=[]), "stacks must be a JSON object"),
]


@pytest.mark.parametrize(("breaker", "words"), MALFORMED)
def test_malformed_state_documents(breaker, words):
    assert G2.state_from_json(_doc(_good())).phase() == "draft_block"
    with pytest.raises(StateFormatError, match=words):
        G2.state_from_json(_doc(_breaks(breaker)))


def test_malformed_documents_outside_the_state():
    with pytest.raises(StateFormatError, match="not valid JSON"):
        G2.state_from_json("{nope")
    with pytest.raises(StateFormatError, match="schema"):
        G2.state_from_json({"schema": 2, "game": "positano", "state": _good()})
    with pytest.raises(StateFormatError, match="not 'positano'"):
        G2.state_from_json({"schema": 1, "game": "rapa_nui", "state": _good()})
    with pytest.raises(StateFormatError, match="differs"):
        G2.state_from_json(_doc(_good(), config={"num_players": 3}))
    # Solo has no draft decisions (rules §7).
    d = position(G1, removed=["1A", "1C", "3D", "4D"], beach_lots=["2B", "3A"],
                 beach_blocks=[1, 0], beach_builds=[0, 1], cards=[[3], [0]],
                 boosters=[[5], [0]], otto_cards=[6, 5, 4, 3, 2, 1],
                 otto_boosters=[5, 4, 3, 2, 1])
    d["phase"] = "draft_lot"
    with pytest.raises(StateFormatError, match="no decision in solo"):
        G1.state_from_json(_doc(d))


def test_add_on_phase_needs_a_target_in_json():
    # rules §4: the Add-On decision exists only with an Add-On tile, a block and a target.
    s = _late_position([6, 9], [5, 3])
    s.apply_action(107 + 6)
    s.apply_action(132)
    assert s.phase() == "add_on"
    d = s.to_dict()
    assert G2.state_from_json(_doc(d)) == s
    d["colours"][0]["personal"] = 0
    d["colours"][0]["general"] += 4
    with pytest.raises(StateFormatError, match="add_on"):
        G2.state_from_json(_doc(d))


@pytest.mark.parametrize("cfg", ALL_CONFIGS, ids=CONFIG_IDS)
def test_json_and_clone_round_trips(cfg):
    game = PositanoGame(**cfg)
    rng = random.Random(5)
    s = game.new_initial_state(random.Random(5))
    while True:
        text = s.to_json()
        back = game.state_from_json(text)
        assert back == s and back.to_json() == text
        assert back.legal_actions(0) == s.legal_actions(0)
        c = s.clone()
        assert c == s
        if s.is_terminal():
            break
        random_step(c, rng)  # the clone moves on; the original must not
        assert c != s and s.to_json() == text
        s = c
    assert back.scores() == s.scores()


def test_resample_hidden_changes_only_hidden_orders():
    # docs/design.md, "Information hygiene": the stack orders (and Otto's deck order) are hidden; nothing public changes.
    for game in (G2, G1):
        s = game.new_initial_state(random.Random(11))
        differs = False
        for seed in range(5):
            r = s.resample_hidden(0, random.Random(seed))
            a, b = s.to_dict(), r.to_dict()
            for key in ("lots", "blocks", "builds"):
                assert sorted(a["stacks"][key]) == sorted(b["stacks"][key])
            differs |= a["stacks"] != b["stacks"]
            if game.solo:
                otto_a, otto_b = a["colours"][1], b["colours"][1]
                assert sorted(otto_a["hand_cards"]) == sorted(otto_b["hand_cards"])
                for d in (otto_a, otto_b):
                    d.pop("hand_cards")
                    d.pop("hand_boosters")
            a.pop("stacks")
            b.pop("stacks")
            assert a == b
            r.check_invariants()
            assert r.legal_actions(0) == s.legal_actions(0)
        assert differs
    with pytest.raises(ValueError, match="not a seat"):
        G2.new_initial_state(random.Random(0)).resample_hidden(2, random.Random(0))


# ---------------------------------------------------------------------------------------------
# Random play: every config, invariants after every step
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("cfg", ALL_CONFIGS, ids=CONFIG_IDS)
def test_random_games_keep_invariants(cfg):
    game = PositanoGame(**cfg)
    lo, hi = game.score_bounds
    for seed in range(4):
        s, steps = play_random(game, seed, check=True)
        assert isinstance(s, PositanoState) and s.is_terminal()
        assert steps <= game.max_game_length
        assert all(lo <= x <= hi for x in s.scores())
        rlo, rhi = game.return_bounds()
        assert all(rlo <= x <= rhi for x in s.returns())
        assert len(s.returns()) == game.num_players
        assert PHASES[s.phase_index] == "terminal"


def test_pickle_and_deepcopy_round_trip():
    import copy
    import pickle

    s, _ = play_random(G1, seed=2)
    assert pickle.loads(pickle.dumps(s)) == s
    mid = _late_position([6, 9], [5, 3])
    twin = copy.deepcopy(mid)
    assert twin == mid and twin.height is not mid.height


def test_split_bid_sub_decisions():
    # Action layout: bid id 6·c + b splits into card id 42 + c and booster id 49 + b.
    assert G2.split_simultaneous_action(bid_id(1, 5)) == (42, 49)
    assert G2.split_simultaneous_action(bid_id(7, 22)) == (48, 54)
    assert len({G2.split_simultaneous_action(a) for a in range(42)}) == 42
    with pytest.raises(ValueError, match="bid ids are 0"):
        G2.split_simultaneous_action(42)
