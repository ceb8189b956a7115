"""Action layouts: named id ranges with encode and decode, one per game, read by every consumer."""

from __future__ import annotations

import random

import numpy as np
import pytest

from tabletop_gym.core.layout import ActionLayout
from tabletop_gym.envs.positano import components as C, rules as positano_rules
from tabletop_gym.envs.positano.actions import ACTIONS as POSITANO, BID_ID, BID_PAIR, BIDS
from tabletop_gym.envs.rapa_nui import rules as rapa_nui_rules
from tabletop_gym.envs.rapa_nui.rules import ACTIONS as RAPA_NUI


def test_ranges_follow_each_other_and_ids_are_row_major():
    layout = ActionLayout([("pair", (2, 3), "pick", "a pair"), ("one", 1, "pick", "one id")])
    assert layout.size == 7
    assert [(r.name, r.start, r.stop) for r in layout] == [("pair", 0, 6), ("one", 6, 7)]
    # Row-major: index (i, j) of a 2×3 range is id 3·i + j.
    assert [layout.encode("pair", i, j) for i in range(2) for j in range(3)] == list(range(6))
    assert [layout.decode(a) for a in range(7)] == [
        ("pair", (0, 0)), ("pair", (0, 1)), ("pair", (0, 2)),
        ("pair", (1, 0)), ("pair", (1, 1)), ("pair", (1, 2)), ("one", (0,)),
    ]
    assert layout.decision_of(6) == "pick"
    assert 5 in layout["pair"] and 6 not in layout["pair"]


def test_bad_ids_and_indices_are_refused_with_what_is_allowed():
    layout = ActionLayout([("pair", (2, 3), "pick", "a pair"), ("one", 1, "pick", "one id")])
    with pytest.raises(ValueError, match=r"7 is not an action id \(0\.\.6\)"):
        layout.decode(7)
    with pytest.raises(ValueError, match="is not an action id"):
        layout.range_of(True)
    with pytest.raises(ValueError, match=r"pair index \(2, 0\) is outside \(2, 3\)"):
        layout.encode("pair", 2, 0)
    with pytest.raises(ValueError, match=r"pair ids take 2 indices"):
        layout.encode("pair", 1)
    with pytest.raises(ValueError, match=r"6 is not a pair id \(0\.\.5\)"):
        layout["pair"].decode(6)
    with pytest.raises(ValueError, match="duplicate action range 'x'"):
        ActionLayout([("x", 1, "d", ""), ("x", 2, "d", "")])
    with pytest.raises(ValueError, match="non-empty shape"):
        ActionLayout([("x", (3, 0), "d", "")])


def test_positano_bid_ids_are_card_and_booster():
    # docs/rules/positano.md §1.3 (7 base bid cards) × §1.4 (6 boosters): 42 bid ids, then the
    # split-bid parts, the lots from 55 and the no-op last of 192.
    assert BIDS.shape == (7, 6) and (BIDS.start, BIDS.stop) == (0, 42)
    assert POSITANO.size == positano_rules.NUM_ACTIONS == 192
    assert BIDS.encode(3, 0) == 18 and BIDS.decode(41) == (6, 5)
    assert all(BID_ID[c][b] == BIDS.encode(c, b) for c in range(7) for b in range(6))
    assert all(BID_PAIR[a] == BIDS.decode(a) for a in range(42))
    assert POSITANO["lot"].start == 55 and POSITANO["noop"].start == 191
    game = positano_rules.PositanoGame(num_players=2)
    state = game.new_initial_state(random.Random(0))
    # The tables of docs/rules/positano.md §1.3 and §1.4: card #4 (40/40/40) with booster +5,
    # card #1 (60/50/10) with +22.
    assert state.action_to_string(BIDS.encode(3, 0)) == "bid #4 (40/40/40) +5"
    assert state.action_to_string(BIDS.encode(0, 5)) == "bid #1 (60/50/10) +22"
    assert game.split_simultaneous_action(BIDS.encode(2, 4)) == (42 + 2, 49 + 4)


def test_positano_decisions_name_the_phases_their_ids_answer():
    assert POSITANO.decision_of(0) == "bid"
    assert POSITANO.decision_of(67) == "draft_lot"
    assert POSITANO.decision_of(POSITANO["multiply"].start) == "block_choice"
    assert POSITANO.decision_of(POSITANO["flat"].start) == "block_choice"
    assert POSITANO.decision_of(POSITANO["skip_add_on"].start) == "add_on"
    assert POSITANO.decision_of(POSITANO["skip_remodel"].start) == "remodel"
    phases = set(positano_rules.PHASES)
    assert {r.decision for r in POSITANO} - phases == {"bid_card", "bid_booster", "noop"}


def test_positano_bid_values_have_one_table():
    # docs/rules/positano.md §1.3, §3.1: a bid is each card value plus the booster: card #1
    # (60/50/10) with +22 bids 82/72/32; card #7 (20/30/70) with +5 bids 25/35/75.
    assert C.BID_VALUES[0][5] == (82, 72, 32)
    assert C.BID_VALUES[6][0] == (25, 35, 75)
    from tabletop_gym.envs.positano import batched as jax_positano

    np.testing.assert_array_equal(jax_positano._BID_VALUE, np.array(C.BID_VALUES))


def test_rapa_nui_layout_matches_its_constants():
    r = rapa_nui_rules
    assert RAPA_NUI.size == r.NUM_ACTIONS == 45
    # docs/rules/rapa_nui.md §3, phase 2: play c = 1..3 H&G of one kind, c − 1 wood.
    assert r.play_hg_action(2, 3) == RAPA_NUI["play_hg"].encode(2, 2) == 8 + 3 * 2 + 2
    assert RAPA_NUI.decode(16) == ("play_hg", (2, 2))
    assert RAPA_NUI.decision_of(r.SUPPLY_SKIP) == "supply_offer"
    assert (r.BUY, r.NO_BUY, r.DRAW, r.OFFER, r.SUPPLY, r.MOAI_VP) == (0, 4, 21, 25, 29, 34)
    assert {x.decision for x in RAPA_NUI} == set(r.PHASES) - {"terminal"}
