"""Positano component tables against the totals ``docs/rules/positano.md`` derives (§1, §2, §7)."""

from __future__ import annotations

import itertools

import pytest

from tabletop_gym.envs.positano import components as C

# rules §1.3: the printed star table, "Lot/Block/Build" per card (rows) and set (columns).
PRINTED_STARS = """
0/4/5 6/3/0 5/2/2 4/1/4 3/0/6 2/6/1
1/5/3 0/4/5 6/3/0 5/2/2 4/1/4 3/0/6
2/6/1 1/5/3 0/4/5 6/3/0 5/2/2 4/1/4
3/0/6 2/6/1 1/5/3 0/4/5 6/3/0 5/2/2
4/1/4 3/0/6 2/6/1 1/5/3 0/4/5 6/3/0
5/2/2 4/1/4 3/0/6 2/6/1 1/5/3 0/4/5
6/3/0 5/2/2 4/1/4 3/0/6 2/6/1 1/5/3
"""


def printed_stars() -> dict[tuple[int, int], tuple[int, ...]]:
    table = {}
    for card, line in enumerate(PRINTED_STARS.split()[i : i + 6] for i in range(0, 42, 6)):
        for s, cell in enumerate(line, start=1):
            table[(card, s)] = tuple(int(x) for x in cell.split("/"))
    return table


def test_star_closed_form_matches_printed_table():
    # rules §1.3: stars(card c, set s) = T[(c − s) mod 7] reproduces the printed table.
    table = printed_stars()
    assert len(table) == 42
    for (card, s), want in table.items():
        assert C.stars(card, s) == want, (card, s)
        assert C.STARS[s][card] == want


def test_stars_distinct_per_card_and_type():
    # rules §1.3: for a given card and tile type all 6 sets have different star counts.
    for card in range(7):
        for k in range(3):
            counts = [C.stars(card, s)[k] for s in range(1, 7)]
            assert len(set(counts)) == 6, (card, k, counts)


def test_bid_cards_values_and_gelato():
    # rules §1.3 table; each card sums to 120; gelato 4 per player (§1.9).
    values = [(b.lot, b.block, b.build) for b in C.BID_CARDS]
    assert values == [
        (60, 50, 10), (10, 60, 50), (50, 10, 60), (40, 40, 40),
        (70, 20, 30), (30, 70, 20), (20, 30, 70),
    ]
    assert all(sum(v) == 120 for v in values)
    assert sum(b.gelato for b in C.BID_CARDS) == 4
    # Each tile type's seven values are distinct (needed for the tie argument of §1.4).
    for k in range(3):
        assert len({v[k] for v in values}) == 7


def test_boosters_values_and_gelato():
    # rules §1.4: +5, +6, +13, +14, +21, +22; gelato 2, 1, 0...; 3 per player (§1.9).
    assert [b.value for b in C.BOOSTERS] == [5, 6, 13, 14, 21, 22]
    assert sum(b.gelato for b in C.BOOSTERS) == 3
    # rules §1.4 consequence: no two boosters differ by a multiple of 10.
    for a, b in itertools.combinations(C.BOOSTERS, 2):
        assert (a.value - b.value) % 10 != 0


def test_block_tiles_4x4_totals():
    # rules §1.9: 9 gelato on block tiles (40, 43, 50, 51, 52 ×1; 54, 55 ×2); 39 blocks on the
    # non-special tiles, plus the 2X (53) and 3X (44) tiles.
    tiles = C.BLOCK_TILES_4
    assert len(tiles) == 16
    assert sum(t.gelato for t in tiles) == 9
    assert {t.bga_id: t.gelato for t in tiles if t.gelato} == {
        40: 1, 43: 1, 50: 1, 51: 1, 52: 1, 54: 2, 55: 2,
    }
    assert sum(t.blocks for t in tiles if not t.multiplier) == 39
    assert {t.bga_id: t.multiplier for t in tiles if t.multiplier} == {44: 3, 53: 2}
    assert tiles[4].blocks == 3 and tiles[13].blocks == 2  # flat options +3 / +2


def test_block_tiles_5x5_contain_the_base_set():
    # rules §1.6: 5×5 ids 40–43 and 46–57 are the 16 base tiles in the 4×4 order.
    big = C.BLOCK_TILES_5
    assert len(big) == 25
    base = [big[i] for i in [0, 1, 2, 3, *range(6, 18)]]
    for a, b in zip(base, C.BLOCK_TILES_4, strict=True):
        assert (a.blocks, a.multiplier, a.gelato) == (b.blocks, b.multiplier, b.gelato)
    assert {t.bga_id for t in big if t.multiplier == 2} == {55, 58, 59}
    assert {t.bga_id for t in big if t.multiplier == 3} == {46}
    assert {t.bga_id: t.blocks for t in big if t.bga_id in (44, 45)} == {44: 5, 45: 3}


def test_starting_tiles_per_icon():
    # rules §2.6-7: starting tiles and their player-count icons.
    assert {t.bga_id: t.start_icon for t in C.BLOCK_TILES_4 if t.start_icon} == {
        40: 2, 41: 2, 42: 3, 43: 4,
    }
    assert {t.bga_id: t.start_icon for t in C.BUILD_TILES_4 if t.start_icon} == {
        60: 2, 61: 2, 62: 3, 63: 4,
    }
    assert {t.bga_id: t.start_icon for t in C.BLOCK_TILES_5 if t.start_icon} == {
        40: 2, 41: 2, 42: 3, 43: 4, 44: 5, 45: 6,
    }
    assert {t.bga_id: t.start_icon for t in C.BUILD_TILES_5 if t.start_icon} == {
        60: 2, 61: 2, 62: 3, 63: 4, 64: 5, 65: 6,
    }


def test_build_tiles_4x4_roofs_and_gelato():
    # rules §1.7 and §1.9: 4 gelato (60, 64 ×2); Bronze 6 tiles, Silver 5 + 1 remodel, Gold 5 + 1
    # remodel = the 6 roofs of each type, exactly sufficient.
    tiles = C.BUILD_TILES_4
    assert sum(t.gelato for t in tiles) == 4
    assert {t.bga_id for t in tiles if t.gelato} == {60, 64}
    bronze = {t.bga_id for t in tiles if t.roof == C.BRONZE}
    assert bronze == {60, 63, 64, 66, 67, 72}
    assert sum(t.roof == C.SILVER for t in tiles) == 5
    assert sum(t.roof == C.GOLD for t in tiles) == 5
    remodels = {t.bga_id: t.roof for t in tiles if t.action == C.REMODEL}
    assert remodels == {74: C.GOLD, 75: C.SILVER}
    assert C.ROOF_SUPPLY[4] == (len(bronze), 5 + 1, 5 + 1) == (6, 6, 6)


def test_build_tiles_add_on_have_bonus_remodel_none():
    # rules §1.7 note: every Add-On tile has +1 or +2; the two Remodel tiles have none.
    for tiles in (C.BUILD_TILES_4, C.BUILD_TILES_5):
        for t in tiles:
            if t.action == C.ADD_ON:
                assert t.bonus in (1, 2), t
            if t.action == C.REMODEL:
                assert t.bonus == 0, t


def test_build_tiles_5x5_contain_the_base_set():
    # rules §1.7: 5×5 ids 60–63 and 66–77 are the 4×4 ids 60–75; id 68 is Bronze +1 Add-On.
    big = C.BUILD_TILES_5
    assert len(big) == 25
    base = [big[i] for i in [0, 1, 2, 3, *range(6, 18)]]
    for a, b in zip(base, C.BUILD_TILES_4, strict=True):
        assert (a.roof, a.bonus, a.action, a.gelato) == (b.roof, b.bonus, b.action, b.gelato)
    assert (big[8].roof, big[8].bonus, big[8].action) == (C.BRONZE, 1, C.ADD_ON)
    assert "".join("-BSG"[t.roof] for t in big) == "BSGBSGBSBBSSGGBGGSSGBGSBB"
    assert sum(t.gelato for t in big) == 6
    # 5×5 roof supply: the most roofs of each rank the set can ever need (see components).
    assert C.ROOF_SUPPLY[5] == (9, 10, 10)


def test_lot_tiles():
    # rules §1.5: 16 lots on 4×4 without gelato; 25 on 5×5, row-5 lots 1 gelato each.
    assert len(C.LOT_TILES[4]) == 16 and sum(t.gelato for t in C.LOT_TILES[4].values()) == 0
    assert len(C.LOT_TILES[5]) == 25
    assert {C.lot_name(p) for p, t in C.LOT_TILES[5].items() if t.gelato} == {
        "5A", "5B", "5C", "5D", "5E",
    }
    assert C.lot_name(0) == "1A" and C.lot_name(18) == "4D" and C.lot_level(18) == 4


def test_goal_cards():
    # rules §1.8: 6 double-sided cards = 12 goals; Centro replaces Mezzo on 5×5.
    faces = [g for card in C.GOAL_CARDS_4 for g in card]
    assert len(faces) == 12 and len(set(faces)) == 12
    assert set(faces) | {"centro"} == set(C.GOAL_NAMES)
    assert C.GOAL_CARDS_5[4] == ("bordo", "centro")
    assert C.goal_card("grande") == C.goal_card("piccolo") == 0
    assert C.goal_card("centro") == C.goal_card("mezzo") == 4


def test_solo_goal_sets_respect_card_pairing():
    # rules §7: the six recommended sets; each uses 3 different cards (§1.8 corroboration).
    assert [name for name, _ in C.SOLO_GOAL_SETS] == [
        "Big in the Back", "The Spice of Life", "Tiny Homes", "Balanced and Centered",
        "Location, Location, Location", "More Blocks, More Problems",
    ]
    for _, goals in C.SOLO_GOAL_SETS:
        assert len({C.goal_card(g) for g in goals}) == 3


@pytest.mark.parametrize(
    ("size", "players", "removed", "rounds"),
    [(4, 1, 4, 6), (4, 2, 4, 6), (4, 3, 1, 5), (4, 4, 0, 4), (5, 4, 1, 6), (5, 5, 0, 5),
     (5, 6, 1, 4)],
)
def test_lots_removed_and_rounds(size, players, removed, rounds):
    # rules §2.4, §6, §8.
    assert C.LOTS_REMOVED[(size, players)] == removed
    assert C.ROUNDS[(size, players)] == rounds
