"""Rules tests of the Rapa Nui engine, each citing the section of ``docs/rules/rapa_nui.md`` it checks.

Expected values are worked out by hand from the rules (the working is in the comments); positions
are JSON ``"state"`` dicts built by ``helpers.position`` and loaded through ``state_from_json``.
"""

from __future__ import annotations

import ast
import copy
import random
import sys
from pathlib import Path
from typing import Any

import pytest

from tabletop_gym.core.game import (
    TERMINAL,
    ConfigError,
    IllegalActionError,
    StateFormatError,
)
from tabletop_gym.envs.rapa_nui import rules
from tabletop_gym.envs.rapa_nui.rules import (
    BUY,
    DRAW,
    MOAI_VP,
    NO_BUY,
    NUM_ACTIONS,
    OFFER,
    PHASES,
    PLAY_MOAI,
    PLAY_PRIEST,
    PLAY_WOODCUTTER,
    REMOVE_MOAI,
    SUPPLY,
    SUPPLY_SKIP,
    RapaNuiConfig,
    RapaNuiGame,
    RapaNuiState,
    offering_values,
    play_hg_action,
)
from tests.rapa_nui.helpers import (
    FISH,
    GRAIN,
    MULB,
    SWEET,
    M,
    P,
    W,
    build,
    disp,
    load,
    position,
    start_hand,
)

ALL_SWITCHES = {
    "allow_voluntary_moai_discard": True,
    "active_supply_offering_optional": True,
    "moai_choice": "all_same",
    "offering_supply_limited": False,
    "zero_count_kind_value": "ranked",
}


def play_random(state: RapaNuiState, rng: random.Random) -> int:
    """Play uniformly random legal actions to the end; return the number of decisions."""
    steps = 0
    while not state.is_terminal():
        legal = state.legal_actions()
        assert legal, f"no legal action in phase {state.phase()}"
        state.apply_action(legal[rng.randrange(len(legal))])
        steps += 1
    return steps


# --- configuration (Decisions table) --------------------------------------------------------


def test_config_defaults_follow_the_decisions_table() -> None:
    # Decisions table of the rules reference: every switch with its default.
    cfg = RapaNuiConfig()
    assert cfg.num_players == 2
    assert cfg.allow_voluntary_moai_discard is False
    assert cfg.active_supply_offering_optional is False
    assert cfg.moai_choice == "per_unit"
    assert cfg.offering_supply_limited is True
    assert cfg.zero_count_kind_value == "zero"
    assert cfg.hunter_gatherer_majority_bonus is True
    assert cfg.reward_type == "win_loss"


@pytest.mark.parametrize(
    "kwargs",
    [{"num_players": 1}, {"num_players": 5}, {"moai_choice": "mixed"}, {"colour": 1}],
)
def test_config_rejects_bad_values(kwargs: dict) -> None:
    # Decisions table: 2–4 players, the listed switch values only.
    with pytest.raises(ConfigError):
        RapaNuiGame(**kwargs)


def test_game_facts() -> None:
    # Bounds documented on RapaNuiGame (their proofs rest on §1.2, §3 and §6).
    g = RapaNuiGame(num_players=4)
    assert g.name == "rapa_nui"
    assert g.num_distinct_actions == NUM_ACTIONS == 45
    # max_game_length: 2 × 48 turns + 48 draws + 9 rounds × 5 + 47 scorings × 4 = 377.
    assert g.max_game_length == 96 + 48 + 45 + 188
    assert g.score_bounds[0] == 0.0


# --- setup (§2) --------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 4])
def test_setup(n: int) -> None:
    # rules §2: Woodcutter in the display, 3 different H&G in hand (seat i lacks kind i), one
    # offering card of each kind, wood 2/3/4/5, seat 0 starts; 4 columns of 4 and 34 in the pile.
    s = RapaNuiGame(num_players=n).new_initial_state(random.Random(3))
    d = s.to_dict()
    assert d["phase"] == "buy"
    assert (d["active"], d["decider"], s.current_player()) == (0, 0, 0)
    for p in range(n):
        assert d["hands"][p] == start_hand(p)
        assert d["displays"][p] == [1, 0, 0, 0, 0, 0, 0]
        assert d["holdings"][p] == [1, 1, 1, 1]
    assert d["wood"] == [2, 3, 4, 5][:n]
    assert d["vp"] == [0] * n
    assert d["supply"] == [25 - n] * 4
    assert [len(c) for c in d["columns"]] == [4, 4, 4, 4]
    assert len(d["draw_pile"]) == 34
    deck = [c for col in d["columns"] for c in col] + d["draw_pile"]
    # rules §1.2: 12 Woodcutters, 9 Priests, 9 Moai, 5 H&G of each kind.
    assert [deck.count(c) for c in range(7)] == [12, 9, 9, 5, 5, 5, 5]


def test_same_seed_same_game_and_seeds_differ() -> None:
    # rules §2 step 3: the only chance event is the shuffle, drawn from the rng passed in.
    g = RapaNuiGame(num_players=3)
    a, b = g.new_initial_state(random.Random(11)), g.new_initial_state(random.Random(11))
    assert a.to_json() == b.to_json()
    ra, rb = random.Random(5), random.Random(5)
    play_random(a, ra)
    play_random(b, rb)
    assert a.to_json() == b.to_json()
    c = g.new_initial_state(random.Random(12))
    assert c.to_dict()["draw_pile"] != g.new_initial_state(random.Random(11)).to_dict()["draw_pile"]


# --- phase 1: buying (§3 phase 1, E4) ---------------------------------------------------------


def test_buy_costs_e4() -> None:
    # rules §3 phase 1 / E4: 2 Fish H&G in the display (and 1 in hand) -> Fish costs 5 - 2 = 3,
    # Grain (0 in the display) costs 5. Seat 1 starts with a Fish H&G in hand.
    s = build(2, active=1, displays=[disp(), disp(FISH=2)], wood=[2, 4])
    assert s.hand(1)[FISH] == 1
    # 4 wood: Fish (3) is affordable, the others (5) are not.
    assert s.legal_actions() == [BUY + 0, NO_BUY]
    assert s.action_to_string(BUY + 0) == "buy Fish (3 wood)"
    assert s.action_to_string(BUY + 1) == "buy Grain (5 wood)"
    s.apply_action(BUY + 0)
    assert s.wood(1) == 1
    assert s.holdings(1) == [2, 1, 1, 1]
    # 25 Fish - 2 held at the start - 1 bought.
    assert s.supply()[0] == 22
    # At most one card per turn: the turn moves on to phase 2.
    assert s.phase() == "play"
    assert all(a >= PLAY_WOODCUTTER for a in s.legal_actions())


def test_buy_free_with_six_matching_hunters_and_hand_does_not_count() -> None:
    # rules §8 E4: with 6 Fish H&G in the display a Fish card costs 0 (n=2: 5 deck + seat 1's start).
    s = build(
        2,
        active=1,
        hands=[start_hand(0), [P, MULB, SWEET]],
        displays=[disp(), disp(FISH=6)],
        wood=[2, 0],
        columns=[None, None, None, None],
    )
    assert s.legal_actions() == [BUY + 0, NO_BUY]
    assert s.action_to_string(BUY + 0) == "buy Fish (0 wood)"
    # rules §3 phase 1: cards in hand do not lower the cost (seat 1 holds a Fish H&G in hand).
    s = build(2, active=1, wood=[2, 4])
    assert s.legal_actions() == [NO_BUY]


def test_no_purchase_changes_nothing_but_the_phase() -> None:
    # rules §3 phase 1: buying is optional.
    s = build(2, wood=[9, 3])
    before = s.to_dict()
    s.apply_action(NO_BUY)
    after = s.to_dict()
    assert after["phase"] == "play"
    assert {k: v for k, v in after.items() if k != "phase"} == {
        k: v for k, v in before.items() if k != "phase"
    }


def test_empty_stack_cannot_be_bought_unless_unlimited() -> None:
    # rules §1.4: 25 cards per kind; with 24 + 1 Fish held the Fish stack is empty.
    kw = {"holdings": [[24, 1, 1, 1], [1, 1, 1, 1]], "wood": [9, 3]}
    s = build(2, **kw)
    assert s.supply() == [0, 23, 23, 23]
    assert BUY + 0 not in s.legal_actions()
    # offering_supply_limited=False: the stack never runs out.
    s = build(2, {"offering_supply_limited": False}, **kw)
    assert BUY + 0 in s.legal_actions()
    s.apply_action(BUY + 0)
    assert s.holdings(0) == [25, 1, 1, 1]
    assert s.supply()[0] == 0
    assert s.wood(0) == 4


# --- phase 2: playing (§3 phase 2, E5) --------------------------------------------------------


def test_play_options_e5() -> None:
    # rules §8 E5: hand Fish, Fish, Priest -> 1 Fish (0 wood), 2 Fish (1 wood) or the Priest.
    kw = {"active": 1, "hands": [start_hand(0), [FISH, FISH, P]], "phase": "play"}
    s = build(2, wood=[2, 1], **kw)
    assert s.legal_actions() == [PLAY_PRIEST, play_hg_action(0, 1), play_hg_action(0, 2)]
    assert s.action_to_string(play_hg_action(0, 2)) == "play 2× H&G Fish (1 wood)"
    # Without wood the pair is not affordable.
    assert build(2, wood=[2, 0], **kw).legal_actions() == [PLAY_PRIEST, play_hg_action(0, 1)]
    # Playing 2 Fish costs 1 wood and means drawing 2 cards.
    s.apply_action(play_hg_action(0, 2))
    assert s.wood(1) == 0
    assert s.display(1)[FISH] == 2
    assert s.hand(1)[FISH] == 0 and s.hand_size(1) == 1
    assert (s.phase(), s.draws_left()) == ("draw", 2)


def test_three_hunters_cost_two_wood() -> None:
    # rules §3 phase 2: 1/2/3 H&G of one kind cost 0/1/2 wood in total.
    kw = {"active": 1, "hands": [start_hand(0), [FISH, FISH, FISH]], "phase": "play"}
    s = build(2, wood=[2, 2], **kw)
    assert play_hg_action(0, 3) in s.legal_actions()
    s.apply_action(play_hg_action(0, 3))
    assert (s.wood(1), s.draws_left(), s.hand_size(1)) == (0, 3, 0)
    assert play_hg_action(0, 3) not in build(2, wood=[2, 1], **kw).legal_actions()


def test_woodcutter_and_priest_are_free_and_moai_costs_seven() -> None:
    # rules §3 phase 2: Woodcutter and Priest cost 0, a Moai 7.
    kw = {"hands": [[M, P, W], start_hand(1)], "phase": "play"}
    assert build(2, wood=[6, 3], **kw).legal_actions() == [PLAY_WOODCUTTER, PLAY_PRIEST]
    s = build(2, wood=[7, 3], **kw)
    assert s.legal_actions() == [PLAY_WOODCUTTER, PLAY_PRIEST, PLAY_MOAI]
    s.apply_action(PLAY_MOAI)
    assert (s.wood(0), s.display(0)[M], s.hand_size(0)) == (0, 1, 2)
    # rules §3.1: building a Moai starts the offering round before the draw.
    assert (s.phase(), s.current_player()) == ("offer", 1)


def test_stuck_hand_of_three_moai_must_remove_one() -> None:
    # rules §3 phase 2 (stuck hand): 3 Moai in hand and wood < 7 -> remove one from the game.
    kw = {"hands": [[M, M, M], start_hand(1)], "phase": "play"}
    s = build(2, wood=[6, 3], **kw)
    assert s.legal_actions() == [REMOVE_MOAI]
    s.apply_action(REMOVE_MOAI)
    assert s.removed_moai() == 1
    assert s.hand(0)[M] == 2 and s.display(0)[M] == 0
    # No offering round; the player draws 1 card.
    assert (s.phase(), s.draws_left(), s.current_player()) == ("draw", 1, 0)
    assert s.stone_face_up() == [0, 0, 0, 0] and s.face_down_count() == 0
    # With 7 wood the Moai must be built (default switch).
    assert build(2, wood=[7, 3], **kw).legal_actions() == [PLAY_MOAI]


def test_stuck_hand_switch_allows_voluntary_removal() -> None:
    # rules §3 phase 2, allow_voluntary_moai_discard=True: also with wood >= 7.
    kw = {"hands": [[M, M, M], start_hand(1)], "phase": "play"}
    cfg = {"allow_voluntary_moai_discard": True}
    assert build(2, cfg, wood=[7, 3], **kw).legal_actions() == [PLAY_MOAI, REMOVE_MOAI]
    assert build(2, cfg, wood=[6, 3], **kw).legal_actions() == [REMOVE_MOAI]


def test_removal_only_with_an_all_moai_hand() -> None:
    # rules §3 phase 2: any other hand has a free card, so removal is never allowed.
    kw = {"hands": [[M, M, P], start_hand(1)], "phase": "play", "wood": [0, 3]}
    assert build(2, **kw).legal_actions() == [PLAY_PRIEST]
    assert build(2, {"allow_voluntary_moai_discard": True}, **kw).legal_actions() == [PLAY_PRIEST]


def test_purchase_can_leave_the_player_stuck() -> None:
    # rules §3 phase 2 note: a purchase may drop wood below 7; the stuck rule then applies.
    s = build(2, hands=[[M, M, M], start_hand(1)], wood=[7, 3])
    s.apply_action(BUY + 1)  # Grain costs 5: 2 wood left
    assert s.legal_actions() == [REMOVE_MOAI]


# --- offering round (§3.1, E7) ------------------------------------------------------------------


def test_offering_round_e7() -> None:
    # rules §3.1 / E7, 3 players: A = seat 0 builds; B (seat 1, A's left) then C (seat 2) place
    # face up; A places one own card face down, then one supply card face up.
    s = build(
        3,
        phase="play",
        hands=[[M, P, W], start_hand(1), start_hand(2)],
        wood=[7, 3, 4],
        holdings=[[0, 0, 1, 1], [1, 1, 0, 0], [0, 1, 0, 1]],
    )
    # Grain: 1 + 1 held -> 23 in the stack.
    assert s.supply()[1] == 23
    s.apply_action(PLAY_MOAI)
    assert (s.phase(), s.current_player()) == ("offer", 1)
    assert s.legal_actions() == [OFFER + 0, OFFER + 1]
    assert s.action_to_string(OFFER + 0) == "offer own Fish face up"
    s.apply_action(OFFER + 0)  # B: Fish
    assert (s.phase(), s.current_player()) == ("offer", 2)
    assert s.legal_actions() == [OFFER + 1, OFFER + 3]
    s.apply_action(OFFER + 1)  # C: Grain
    assert (s.phase(), s.current_player()) == ("offer", 0)
    assert s.legal_actions() == [OFFER + 2, OFFER + 3]
    assert s.action_to_string(OFFER + 3) == "offer own Sweet potato face down"
    s.apply_action(OFFER + 3)  # A: Sweet potato, face down
    assert (s.phase(), s.current_player()) == ("supply_offer", 0)
    # The supply card is mandatory (default): no skip.
    assert s.legal_actions() == [SUPPLY + 0, SUPPLY + 1, SUPPLY + 2, SUPPLY + 3]
    s.apply_action(SUPPLY + 1)  # A: Grain from the supply
    # Stone: public Fish 1, Grain 2; hidden 1 card (Sweet potato by seat 0).
    assert s.stone_face_up() == [1, 2, 0, 0]
    assert s.face_down_count() == 1 and s.face_down(0) == [0, 0, 0, 1]
    assert s.holdings(0) == [0, 0, 1, 0]
    assert s.holdings(1) == [0, 1, 0, 0]
    assert s.holdings(2) == [0, 0, 0, 1]
    assert s.supply()[1] == 22
    # Then A draws 1 card.
    assert (s.phase(), s.current_player(), s.draws_left()) == ("draw", 0, 1)


def offer_order(n: int, active: int, holdings: list[list[int]], config: dict | None = None):
    hands = [start_hand(p) for p in range(n)]
    hands[active] = [M, P, W]
    wood = [2 + p for p in range(n)]
    wood[active] = 7
    s = build(n, config, phase="play", active=active, hands=hands, wood=wood, holdings=holdings)
    s.apply_action(PLAY_MOAI)
    order = []
    while s.phase() == "offer":
        order.append(s.current_player())
        s.apply_action(s.legal_actions()[0])
    return order, s


def test_offering_order_clockwise_from_the_left_of_the_active_player() -> None:
    # rules §3.1: 4 players, seat 2 builds: seats 3, 0, 1 face up, then seat 2 face down.
    order, s = offer_order(4, 2, [[1, 1, 1, 1]] * 4)
    assert order == [3, 0, 1, 2]
    assert s.stone_face_up() == [3, 0, 0, 0]
    assert s.face_down(2) == [1, 0, 0, 0]
    assert s.phase() == "supply_offer"


def test_players_without_offering_cards_place_nothing() -> None:
    # rules §3.1.3: seat 1 holds no offering card and is skipped.
    order, _ = offer_order(3, 0, [[1, 0, 0, 0], [0, 0, 0, 0], [0, 1, 0, 0]])
    assert order == [2, 0]
    # An active player without cards still adds the supply card (§3.1.3 [I]).
    order, s = offer_order(3, 0, [[0, 0, 0, 0], [0, 0, 1, 0], [0, 1, 0, 0]])
    assert order == [1, 2]
    assert (s.phase(), s.current_player()) == ("supply_offer", 0)
    # Nobody holds a card: straight to the supply card.
    order, s = offer_order(2, 1, [[0, 0, 0, 0], [0, 0, 0, 0]])
    assert order == []
    assert (s.phase(), s.current_player()) == ("supply_offer", 1)


def test_supply_offering_optional_switch() -> None:
    # rules §3.1.4, active_supply_offering_optional=True: the supply card may be skipped.
    _, s = offer_order(
        2, 0, [[1, 0, 0, 0], [0, 1, 0, 0]], {"active_supply_offering_optional": True}
    )
    assert s.legal_actions() == [SUPPLY + 0, SUPPLY + 1, SUPPLY + 2, SUPPLY + 3, SUPPLY_SKIP]
    s.apply_action(SUPPLY_SKIP)
    assert s.stone_face_up() == [0, 1, 0, 0]
    assert (s.phase(), s.draws_left()) == ("draw", 1)


def test_empty_stack_cannot_be_the_supply_offering() -> None:
    # rules §1.4: 24 + 1 Grain held -> the Grain stack is empty and cannot be chosen.
    holdings = [[0, 1, 0, 0], [0, 24, 0, 0]]
    _, s = offer_order(2, 0, holdings)
    assert s.supply()[1] == 0
    assert s.legal_actions() == [SUPPLY + 0, SUPPLY + 2, SUPPLY + 3]
    # Unlimited supply: it can.
    _, s = offer_order(2, 0, holdings, {"offering_supply_limited": False})
    assert SUPPLY + 1 in s.legal_actions()
    s.apply_action(SUPPLY + 1)
    assert s.stone_face_up() == [0, 2, 0, 0] and s.supply()[1] == 0


# --- turn scoring (§4, E1–E3) ---------------------------------------------------------------


def reveal(n: int, revealed: int, displays: list[list[int]], config: dict | None = None, **kw):
    """Seat ``active`` (default 0) takes the Priest in front of ``revealed`` as its last draw.

    Column 1 is [Priest, revealed, Woodcutter, Woodcutter]; the other columns are filled up.
    """
    active = kw.pop("active", 0)
    hands = [start_hand(p) for p in range(n)]
    hands[active] = hands[active][:2]
    s = build(
        n,
        config,
        phase="draw",
        active=active,
        draws_left=1,
        hands=hands,
        displays=displays,
        columns=[[P, revealed, W, W], None, None, None],
        **kw,
    )
    s.apply_action(DRAW + 0)
    return s


def test_woodcutter_scoring_e1() -> None:
    # rules §4 / E1: A 3, B 2, C 1 Woodcutters -> A 3 + 1 = 4 wood, B 2, C 1 (wood 2/3/4 before).
    s = reveal(3, W, [disp(W=3), disp(W=2), disp(W=1)])
    assert [s.wood(p) for p in range(3)] == [2 + 4, 3 + 2, 4 + 1]
    # The turn is over: seat 1 buys next.
    assert (s.phase(), s.active_player(), s.current_player()) == ("buy", 1, 1)
    # Tie for most (2, 2, 1): no bonus.
    s = reveal(3, W, [disp(W=2), disp(W=2), disp(W=1)])
    assert [s.wood(p) for p in range(3)] == [2 + 2, 3 + 2, 4 + 1]
    # At the start everyone has 1: 1 each, no bonus (nobody has 2). (Seat 0 has just played a
    # Priest.)
    s = reveal(3, W, [disp(P=1), disp(), disp()])
    assert [s.wood(p) for p in range(3)] == [3, 4, 5]


def test_priest_scoring_with_bonus() -> None:
    # rules §4: Priest -> 1 VP per Priest, +1 for the sole majority of >= 2.
    s = reveal(2, P, [disp(P=3), disp(P=1)])
    assert [s.vp(0), s.vp(1)] == [4, 1]
    s = reveal(2, P, [disp(P=1), disp()])
    assert [s.vp(0), s.vp(1)] == [1, 0]


def test_hunter_scoring_e2() -> None:
    # rules §4 / E2: A 2 Fish H&G, B 1, C 0 -> A 2 Fish cards (1 + bonus), B 1, C nothing.
    s = reveal(3, FISH, [disp(FISH=2), disp(FISH=1), disp()])
    assert [s.holdings(p)[0] for p in range(3)] == [1 + 2, 1 + 1, 1]
    # 25 - 3 held at the start - 3 gained.
    assert s.supply()[0] == 19
    # Only the revealed kind counts.
    assert [s.holdings(p)[1:] for p in range(3)] == [[1, 1, 1]] * 3
    # A 1, B 1 -> 1 each; A 1 alone -> 1 (sole most but only 1 card: no bonus).
    s = reveal(3, FISH, [disp(FISH=1), disp(FISH=1), disp()])
    assert [s.holdings(p)[0] for p in range(3)] == [2, 2, 1]
    s = reveal(3, FISH, [disp(FISH=1), disp(), disp()])
    assert [s.holdings(p)[0] for p in range(3)] == [2, 1, 1]


def test_hunter_scoring_tie_e2() -> None:
    # rules §8 E2: A 3, B 3, C 1 -> 1 each, no bonus. Needs 7 Fish in displays + the revealed one, so
    # 4 players (5 + 3 start Fish); D has none. Hands hold no Fish.
    hands = [[GRAIN, MULB], [P, MULB, SWEET], [P, GRAIN, SWEET], [P, GRAIN, MULB]]
    s = build(
        4,
        phase="draw",
        draws_left=1,
        hands=hands,
        displays=[disp(FISH=3), disp(FISH=3), disp(FISH=1), disp()],
        columns=[[P, FISH], None, None, None],
    )
    s.apply_action(DRAW + 0)
    assert [s.holdings(p)[0] for p in range(4)] == [2, 2, 2, 1]


def test_moai_scoring_e3() -> None:
    # rules §4 / E3: A 2 Moai, B 1, C 0 -> A 3 units (2 + bonus), e.g. 2 VP + 1 wood; B 1 unit.
    s = reveal(3, M, [disp(M=2), disp(M=1), disp()])
    assert (s.phase(), s.current_player()) == ("moai_split", 0)
    assert [s.moai_units(p) for p in range(3)] == [3, 1, 0]
    assert s.legal_actions() == [MOAI_VP + v for v in range(4)]
    assert s.action_to_string(MOAI_VP + 2) == "Moai scoring: 2 VP + 1 wood"
    s.apply_action(MOAI_VP + 2)
    assert (s.vp(0), s.wood(0)) == (2, 2 + 1)
    assert (s.phase(), s.current_player()) == ("moai_split", 1)
    assert s.legal_actions() == [MOAI_VP, MOAI_VP + 1]
    s.apply_action(MOAI_VP + 0)
    assert (s.vp(1), s.wood(1)) == (0, 3 + 1)
    # C has no Moai and decides nothing; the next turn starts.
    assert (s.phase(), s.active_player(), s.vp(2), s.wood(2)) == ("buy", 1, 0, 4)


def test_moai_split_order_starts_with_the_active_player() -> None:
    # rules §4 [I]: resolution clockwise from the active player (seat 1 here).
    s = reveal(3, M, [disp(M=2), disp(M=1), disp()], active=1)
    assert s.current_player() == 1
    s.apply_action(MOAI_VP + 1)
    assert s.current_player() == 0
    s.apply_action(MOAI_VP + 3)
    assert (s.vp(0), s.wood(0), s.vp(1), s.wood(1)) == (3, 2, 1, 3)
    assert (s.phase(), s.active_player()) == ("buy", 2)


def test_moai_all_same_switch() -> None:
    # rules §4, moai_choice="all_same": all units wood or all VP.
    s = reveal(3, M, [disp(M=2), disp(M=1), disp()], {"moai_choice": "all_same"})
    assert s.legal_actions() == [MOAI_VP, MOAI_VP + 3]


def test_moai_revealed_without_moai_in_any_display() -> None:
    # rules §4: players with 0 cards of the type receive nothing; no decision is asked.
    s = reveal(2, M, [disp(P=1), disp()])
    assert (s.phase(), s.active_player(), s.vp(0), s.wood(0)) == ("buy", 1, 0, 2)


def test_short_stack_resolved_clockwise_from_the_active_player() -> None:
    # rules §1.4 / §4: 2 Fish left; seat 1 is active and first in order; it has the sole majority
    # (2) and takes both cards; seats 2 and 0 gain nothing.
    kw = {
        "active": 1,
        "holdings": [[21, 1, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1]],
    }
    displays = [disp(FISH=1), disp(FISH=2), disp(FISH=1)]
    s = reveal(3, FISH, displays, **kw)
    assert [s.holdings(p)[0] for p in range(3)] == [21, 3, 1]
    assert s.supply()[0] == 0
    # Unlimited supply: everybody gains (seat 1 2 cards, seats 2 and 0 one each).
    s = reveal(3, FISH, displays, {"offering_supply_limited": False}, **kw)
    assert [s.holdings(p)[0] for p in range(3)] == [22, 3, 2]
    assert s.supply()[0] == 0


# --- phase 3: drawing, refill and the scored card (§3 phase 3, E6) ------------------------------


def e6_state(config: dict | None = None) -> RapaNuiState:
    # rules §8 E6, 2 players: seat 0 played 2 cards and draws 2. c1 = [Priest, Moai, Woodcutter,
    # Fish], c2 = [Woodcutter, Grain, Priest], c3 = [Moai], c4 = 4 cards; pile top: Priest.
    return build(
        2,
        config,
        phase="draw",
        draws_left=2,
        hands=[[GRAIN], start_hand(1)],
        displays=[disp(W=2, P=1, M=1, GRAIN=1), disp(W=1, GRAIN=2)],
        columns=[[P, M, W, FISH], [W, GRAIN, P], [M], [P, P, MULB, SWEET]],
        pile_top=[P, W, W, W],
    )


def test_refill_and_reveal_e6_grain() -> None:
    # c1 then c2: the last exposed card is c2's Grain -> Grain scoring (c1's Moai is not scored).
    s = e6_state()
    s.apply_action(DRAW + 0)
    assert (s.phase(), s.draws_left()) == ("draw", 1)
    s.apply_action(DRAW + 1)
    # Seat 0 has 1 Grain H&G (+1 card), seat 1 has 2 (sole majority: +2).
    assert s.holdings(0) == [1, 2, 1, 1] and s.holdings(1) == [1, 3, 1, 1]
    assert s.hand(0)[P] == 1 and s.hand(0)[W] == 1 and s.hand_size(0) == 3
    assert s.columns()[:2] == [[M, W, FISH], [GRAIN, P]]
    assert (s.wood(0), s.vp(0)) == (2, 0)


def test_hunter_gatherer_majority_bonus_switch_off_gives_no_bonus_card() -> None:
    # rules §4 + Decisions table: only secondary sources state the H&G bonus, so
    # hunter_gatherer_majority_bonus=False plays without it. E6's Grain scoring then gives seat 0
    # (1 Grain H&G) one card and seat 1 (2 Grain H&G, the sole majority) one card, not two.
    off = e6_state({"hunter_gatherer_majority_bonus": False})
    off.apply_action(DRAW + 0)
    off.apply_action(DRAW + 1)
    assert off.holdings(0) == [1, 2, 1, 1] and off.holdings(1) == [1, 2, 1, 1]


def test_hunter_gatherer_switch_leaves_the_other_majority_bonuses() -> None:
    # rules §4: the Woodcutter bonus is stated by S1 itself and stays. E6, c1 twice: the exposed
    # Woodcutter gives seat 0 (2 Woodcutters, sole majority) 2 + 1 wood, seat 1 1 wood.
    off = e6_state({"hunter_gatherer_majority_bonus": False})
    off.apply_action(DRAW + 0)
    off.apply_action(DRAW + 0)
    assert (off.wood(0), off.wood(1)) == (2 + 3, 3 + 1)


def test_refill_and_reveal_e6_moai() -> None:
    # c2 then c1: the last exposed card is c1's Moai -> Moai scoring (seat 0: 1 unit).
    s = e6_state()
    s.apply_action(DRAW + 1)
    s.apply_action(DRAW + 0)
    assert (s.phase(), s.current_player(), s.moai_units(0), s.moai_units(1)) == (
        "moai_split",
        0,
        1,
        0,
    )


def test_refill_and_reveal_e6_same_column_twice() -> None:
    # c1 twice (Priest, then Moai): the exposed card is c1's Woodcutter -> seat 0: 2 + 1 bonus.
    s = e6_state()
    s.apply_action(DRAW + 0)
    s.apply_action(DRAW + 0)
    assert (s.wood(0), s.wood(1)) == (2 + 3, 3 + 1)
    assert s.hand(0)[P] == 1 and s.hand(0)[M] == 1


def test_refill_and_reveal_e6_refilled_column_is_scored() -> None:
    # c2 then c3's last card (Moai): c3 is refilled at once with the 4 top pile cards
    # [Priest, W, W, W] and the new front card (Priest) is scored (§3 phase 3 [I]).
    s = e6_state()
    pile = s.draw_pile_size()
    s.apply_action(DRAW + 1)
    s.apply_action(DRAW + 2)
    assert s.columns()[2] == [P, W, W, W]
    assert s.draw_pile_size() == pile - 4
    assert (s.vp(0), s.vp(1)) == (1, 0)
    assert s.hand(0)[M] == 1


def test_refilled_column_can_be_drawn_again_the_same_turn() -> None:
    # rules §3 phase 3.2: the refill is immediate; c3 refilled, then its new front Priest taken,
    # exposing a Woodcutter: seat 0 2 + 1, seat 1 1 wood.
    s = e6_state()
    s.apply_action(DRAW + 2)
    s.apply_action(DRAW + 2)
    assert s.hand(0)[M] == 1 and s.hand(0)[P] == 1
    assert s.columns()[2] == [W, W, W]
    assert (s.wood(0), s.wood(1)) == (5, 4)


# --- end of the game (§6, E10) --------------------------------------------------------------


def end_state(pile: list[int]) -> RapaNuiState:
    # Seat 0 played 2 H&G and draws 2; column 1 holds one card; the rest of the cards go to
    # seat 1's display so that the draw pile is exactly ``pile``.
    return build(
        2,
        phase="draw",
        draws_left=2,
        hands=[[GRAIN], start_hand(1)],
        displays=[disp(P=2), disp()],
        columns=[[W], [P, P, P, P], [M, M, M, M], [FISH, FISH, FISH, FISH]],
        draw_pile=pile,
        dump=1,
    )


def test_game_ends_at_once_when_a_column_cannot_be_refilled_e10() -> None:
    # rules §6 / E10: the column's last card is taken with 2 cards in the pile: the game ends on
    # the spot, the second draw and the turn scoring are skipped.
    s = end_state([P, P])
    before = s.to_dict()
    s.apply_action(DRAW + 0)
    assert s.is_terminal() and s.current_player() == TERMINAL and s.phase() == "terminal"
    assert s.legal_actions() == []
    d = s.to_dict()
    assert d["decider"] is None and d["draws_left"] == 0
    assert d["columns"][0] == [] and d["draw_pile"] == [P, P]
    assert d["hands"][0] == [W, GRAIN]
    for key in ("wood", "vp", "holdings", "supply", "displays"):
        assert d[key] == before[key], key
    with pytest.raises(IllegalActionError):
        s.apply_action(DRAW + 1)


def test_column_is_refilled_while_four_cards_remain() -> None:
    # rules §3 phase 3.2: 4 cards in the pile are enough for a refill.
    s = end_state([P, P, W, W])
    s.apply_action(DRAW + 0)
    assert not s.is_terminal()
    assert s.columns()[0] == [P, P, W, W] and s.draw_pile_size() == 0


@pytest.mark.parametrize("n", [2, 3, 4])
def test_full_game_ends_at_the_ninth_emptied_column_e10(n: int) -> None:
    # rules §8 E10: 34 cards after setup; 8 refills leave 2; the next emptied column ends the game,
    # during that turn and without its scoring.
    g = RapaNuiGame(num_players=n)
    for seed in range(3):
        s = g.new_initial_state(random.Random(seed))
        rng = random.Random(seed)
        refills = 0
        while not s.is_terminal():
            pile = s.draw_pile_size()
            before = s.to_dict()
            legal = s.legal_actions()
            s.apply_action(legal[rng.randrange(len(legal))])
            if s.draw_pile_size() == pile - 4:
                refills += 1
        assert refills == 8
        d = s.to_dict()
        assert len(d["draw_pile"]) == 2
        assert sum(1 for c in d["columns"] if not c) == 1
        assert before["phase"] == "draw"
        for key in ("wood", "vp", "holdings", "supply"):
            assert d[key] == before[key], key


# --- final scoring (§7, E8, E9) -------------------------------------------------------------


@pytest.mark.parametrize(
    ("stone", "zero", "ranked"),
    [
        ([6, 6, 3, 1], [3, 3, 2, 1], [3, 3, 2, 1]),
        ([5, 5, 1, 1], [3, 3, 2, 2], [3, 3, 2, 2]),
        ([5, 1, 1, 1], [3, 2, 2, 2], [3, 2, 2, 2]),
        ([4, 4, 4, 4], [3, 3, 3, 3], [3, 3, 3, 3]),
        ([4, 2, 2, 0], [3, 2, 2, 0], [3, 2, 2, 1]),
        ([4, 3, 2, 1], [3, 2, 1, 0], [3, 2, 1, 0]),
        ([3, 0, 0, 0], [3, 0, 0, 0], [3, 2, 2, 2]),
        ([0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]),
    ],
)
def test_offering_values_e8(stone: list[int], zero: list[int], ranked: list[int]) -> None:
    # rules §7.4 / E8: dense ranking 3/2/1/0; a kind absent from the stone is worth 0 under the
    # default rule, ranked under "ranked"; an empty stone makes every kind worth 0.
    assert offering_values(stone, "zero") == zero
    assert offering_values(stone, "ranked") == ranked


def final_state(config: dict | None = None, **seat1: Any) -> RapaNuiState:
    # rules §8 E9, as a finished 3-player game: seat 0 = A (12 VP tiles, 2 Moai, 13 wood, holdings
    # Fish 2, Grain 1, Mulberry 3, Sweet potato 4); the stone holds 6/6/3/1 once the face-down
    # cards are revealed (face up 5/5/3/0, face down by A Fish + Sweet potato, by B Grain). The
    # 13 face-up cards need at least 5 offering rounds (at most 3 face-up cards each with 3
    # players), so seat 2 (C) has built the other 9 − 2 − B's Moai (6 or 5): 4 VP each, C stays
    # far below 41. The leftover cards go to seat 1's display (Priests and the like: no
    # final-score effect).
    moai1 = seat1.get("moai", 1)
    return build(
        3,
        config,
        phase="terminal",
        decider=None,
        displays=[disp(M=2), disp(M=moai1), disp(M=9 - 2 - moai1)],
        vp=[12, seat1.get("vp", 35), 0],
        wood=[13, seat1.get("wood", 10), 4],
        holdings=[[2, 1, 3, 4], seat1.get("holdings", [0, 0, 0, 0]), [0, 0, 0, 0]],
        stone_face_up=[5, 5, 3, 0],
        stone_face_down=[[1, 0, 0, 1], [0, 1, 0, 0], [0, 0, 0, 0]],
        columns=[[], [W] * 4, [P] * 4, [FISH, GRAIN, MULB, SWEET]],
        draw_pile=[],
        dump=1,
    )


def test_final_total_e9() -> None:
    # rules §7 / E9: 12 + 2×4 + 13 // 5 + (2×3 + 1×3 + 3×2 + 4×1) = 12 + 8 + 2 + 19 = 41.
    s = final_state()
    b = s.score_breakdown()[0]
    assert b["kind_values"] == {"Fish": 3, "Grain": 3, "Paper mulberry": 2, "Sweet potato": 1}
    assert (b["vp_tiles"], b["moai"], b["wood"], b["offerings"], b["total"]) == (12, 8, 2, 19, 41)
    # Seat 1: 35 + 4 + 10 // 5 + 0 = 41, a tie broken by Moai (A 2 vs B 1); seat 2: 6 × 4 = 24.
    assert s.scores() == [41.0, 41.0, 24.0]
    assert s.winners() == [0]
    assert s.returns() == [1.0, -1.0, -1.0]


def test_tie_broken_by_wood_then_shared() -> None:
    # rules §7 winner: tied on points and Moai (2 each) -> most wood. Seat 1: 31 + 8 + 14 // 5 = 41.
    s = final_state(moai=2, vp=31, wood=14)
    assert s.scores() == [41.0, 41.0, 20.0]
    assert s.winners() == [1]
    # Same wood too (13): a shared win of seats 0 and 1; seat 2 loses.
    s = final_state(moai=2, vp=31, wood=13)
    assert s.winners() == [0, 1]
    assert s.returns() == [1.0, 1.0, -1.0]


def test_everybody_tied_shares_the_win() -> None:
    # rules §7 winner: 2 players, both 0 points, 0 Moai, 3 wood: a shared win, and win_loss
    # gives 0 to everybody when all tie. The 9 Moai sit in hands and a column (no points).
    s = build(
        2,
        phase="terminal",
        decider=None,
        hands=[[M, M, M], [M, M, M]],
        wood=[3, 3],
        columns=[[], [M, M, M, W], [P] * 4, [FISH, GRAIN, MULB, SWEET]],
        draw_pile=[],
        dump=1,
    )
    assert s.scores() == [0.0, 0.0]
    assert s.winners() == [0, 1]
    assert s.returns() == [0.0, 0.0]


def test_reward_types() -> None:
    # core compute_returns: score_diff = own minus the mean of the other seats; score = own.
    # Seat 1: 30 + 4 + 2 = 36; seat 0 41; seat 2 24.
    # score_diff: 41 − (36 + 24) / 2 = 11; 36 − (41 + 24) / 2 = 3.5; 24 − (41 + 36) / 2 = −14.5.
    assert final_state({"reward_type": "score_diff"}, vp=30).returns() == [11.0, 3.5, -14.5]
    assert final_state({"reward_type": "score"}, vp=30).returns() == [41.0, 36.0, 24.0]


def test_zero_count_kind_value_switch_in_final_scoring() -> None:
    # rules §7.4: stone 4/2/2/0 (all face up); 5 Sweet potato held: 0 VP ("zero") or 5 × 1
    # ("ranked").
    # The 8 face-up cards need 4 offering rounds (2 face-up cards each with 2 players): seat 1
    # has built 4 Moai.
    kw = {
        "holdings": [[0, 0, 0, 5], [0, 0, 0, 0]],
        "stone_face_up": [4, 2, 2, 0],
        "displays": [disp(), disp(M=4)],
    }
    assert build(2, **kw).score_breakdown()[0]["offerings"] == 0
    ranked = build(2, {"zero_count_kind_value": "ranked"}, **kw)
    assert ranked.score_breakdown()[0]["offerings"] == 5
    # Stone empty: every kind worth 0.
    assert build(2, holdings=[[5, 5, 5, 5], [0, 0, 0, 0]]).score_breakdown()[0]["offerings"] == 0


def test_hand_cards_score_nothing() -> None:
    # rules §7.5: seat 0 holds 3 Moai in hand: no Moai points.
    s = build(2, hands=[[M, M, M], start_hand(1)])
    assert s.score_breakdown()[0]["moai"] == 0
    # rules §7.3: 1 VP per full 5 wood (start wood 2 and 3 -> 0).
    assert s.scores() == [0.0, 0.0]


# --- illegal actions, names ---------------------------------------------------------------------


@pytest.mark.parametrize("action", [99, -1, True, "3", 2.0, PLAY_PRIEST, DRAW + 0, MOAI_VP])
def test_illegal_actions_change_nothing(action: object) -> None:
    # Engine contract (core/game.py): IllegalActionError names the phase and the legal set and is
    # raised before anything changes. Seat 0 (2 wood, nothing to afford) may only pass (§3).
    s = RapaNuiGame(num_players=3).new_initial_state(random.Random(0))
    before = s.to_json()
    with pytest.raises(IllegalActionError) as err:
        s.apply_action(action)  # type: ignore[arg-type]
    assert err.value.phase == "buy"
    assert err.value.legal == s.legal_actions()
    assert s.to_json() == before


def test_action_names() -> None:
    # Module docstring action table: every id has one distinct readable name.
    s = build(2, columns=[[M, W, W, W], None, None, None])
    names = [s.action_to_string(a) for a in range(NUM_ACTIONS)]
    assert len(set(names)) == NUM_ACTIONS
    assert names[NO_BUY] == "no purchase"
    assert names[DRAW + 0] == "draw column 1 (Moai)"
    assert names[REMOVE_MOAI] == "remove a Moai from the game"
    assert names[SUPPLY + 2] == "offer Paper mulberry from the supply"
    with pytest.raises(ValueError, match="out of range"):
        s.action_to_string(NUM_ACTIONS)


# --- JSON: round trip and malformed documents --------------------------------------------------


@pytest.mark.parametrize("config", [{}, ALL_SWITCHES])
@pytest.mark.parametrize("n", [2, 3, 4])
def test_json_round_trip_through_games(n: int, config: dict) -> None:
    # JSON schema (module docstring): every reached state round-trips exactly.
    g = RapaNuiGame(num_players=n, **config)
    rng = random.Random(n)
    s = g.new_initial_state(random.Random(n))
    while True:
        text = s.to_json()
        t = g.state_from_json(text)
        assert t == s and t.to_json() == text
        assert t.legal_actions() == s.legal_actions()
        if s.is_terminal():
            break
        legal = s.legal_actions()
        s.apply_action(legal[rng.randrange(len(legal))])


def hand_card_to_display(d: dict) -> None:
    d["displays"][1][d["hands"][1].pop()] += 1


def broken(change) -> dict:
    d = position(2)
    change(d)
    return d


@pytest.mark.parametrize(
    ("state", "message"),
    [
        (broken(lambda d: d.pop("wood")), "lacks key"),
        (broken(lambda d: d.update(colour=1)), "unknown key"),
        (broken(lambda d: d.update(wood=["2", 3])), "wood\\[0\\] must be an integer"),
        (broken(lambda d: d.update(removed_moai=True)), "removed_moai must be an integer"),
        (broken(lambda d: d.update(active=5)), "active=5 is out of range"),
        (broken(lambda d: d.update(phase="shop")), "phase='shop' is not allowed"),
        (broken(lambda d: d.update(hands=d["hands"][:1])), "hands must be a list of 2"),
        (broken(lambda d: d["hands"][0].__setitem__(0, 9)), "hands\\[0\\]\\[0\\]"),
        (broken(lambda d: d["draw_pile"].__setitem__(0, M)), "not conserved"),
        (broken(lambda d: d.update(supply=[25, 25, 25, 25])), "supply\\[0\\]"),
        (broken(lambda d: d["holdings"][0].__setitem__(0, 30)), "holdings\\[0\\]\\[0\\]=30"),
        (broken(lambda d: d["holdings"][0].__setitem__(0, 25)), "only 25 exist"),
        (broken(lambda d: d.update(decider=None)), "decider must be an integer"),
        (broken(lambda d: d.update(decider=1)), "decider must be the active seat"),
        (broken(lambda d: d.update(draws_left=2)), "draws_left=2 does not fit"),
        (broken(lambda d: d.update(moai_units=[1, 0])), "moai_units must be all 0"),
        (broken(lambda d: d["displays"][1].__setitem__(0, 0)), "start Woodcutter"),
        (broken(lambda d: d["columns"][0].append(W)), "columns\\[0\\] has 5 cards"),
        (broken(lambda d: d.update(columns=d["columns"][:3])), "columns must be a list of 4"),
        (broken(lambda d: d["draw_pile"].append(W)), "draw_pile has 35 cards"),
        (broken(hand_card_to_display), "hands\\[1\\] has 2 cards"),
        (broken(lambda d: d.update(phase="terminal", decider=None)), "phase 'terminal' needs"),
        (broken(lambda d: d.update(phase="terminal")), "decider must be null"),
        (
            broken(lambda d: d.update(phase="offer", draws_left=1)),
            "during the offering round the active player holds 2",
        ),
    ],
)
def test_malformed_states_are_rejected(state: dict, message: str) -> None:
    # JSON schema checks: types, ranges, card conservation (§1.2, §2), supply (§1.4), phase.
    game = RapaNuiGame(num_players=2)
    with pytest.raises(StateFormatError, match=message):
        load(game, state)


def test_malformed_documents_are_rejected() -> None:
    # Document envelope (core/game.py state_from_json) and per-seat list lengths.
    game = RapaNuiGame(num_players=2)
    with pytest.raises(StateFormatError, match="not valid JSON"):
        game.state_from_json("{not json")
    doc = {"schema": 1, "game": "rapa_nui", "state": position(3)}
    with pytest.raises(StateFormatError, match="must be a list of 2"):
        game.state_from_json(doc)
    with pytest.raises(StateFormatError, match="differs"):
        game.state_from_json({**doc, "config": {"num_players": 3}})
    with pytest.raises(StateFormatError, match="is for game"):
        game.state_from_json({**doc, "game": "positano"})


def test_offer_phase_decider_must_hold_a_card() -> None:
    # rules §3.1.3: a seat without offering cards places nothing, so it cannot be the decider.
    d = position(
        2,
        phase="offer",
        decider=1,
        draws_left=1,
        hands=[[GRAIN, MULB], start_hand(1)],
        displays=[disp(M=1), disp()],
        holdings=[[1, 1, 1, 1], [0, 0, 0, 0]],
    )
    with pytest.raises(StateFormatError, match="holds no offering card"):
        load(RapaNuiGame(num_players=2), d)
    d["holdings"][1] = [0, 0, 1, 0]
    d["supply"][2] = 23
    s = load(RapaNuiGame(num_players=2), d)
    assert s.legal_actions() == [OFFER + 2]


def test_moai_split_units_must_match_the_displays() -> None:
    # rules §4: units = Moai in the display (+1 for the sole majority of >= 2).
    kw = {"phase": "moai_split", "displays": [disp(M=2), disp(M=1)]}
    with pytest.raises(StateFormatError, match="moai_units\\[0\\]=2"):
        load(RapaNuiGame(num_players=2), position(2, moai_units=[2, 1], **kw))
    s = load(RapaNuiGame(num_players=2), position(2, moai_units=[3, 1], **kw))
    assert s.legal_actions() == [MOAI_VP + v for v in range(4)]


# --- copies -------------------------------------------------------------------------------------


def test_clone_is_independent() -> None:
    # Engine contract: clone() shares no mutable object with the original.
    g = RapaNuiGame(num_players=4)
    s = g.new_initial_state(random.Random(1))
    rng = random.Random(2)
    for _ in range(40):
        s.apply_action(rng.choice(s.legal_actions()))
    saved = s.to_json()
    c = s.clone()
    assert c == s
    play_random(c, random.Random(3))
    assert s.to_json() == saved
    d = copy.deepcopy(s)
    assert d == s and d is not s
    # Accessors and legal-action lists are copies.
    s.hand(0).append(1)
    s.columns()[0].clear()
    legal = s.legal_actions()
    s.legal_actions().clear()
    assert s.to_json() == saved
    assert s.legal_actions() == legal and legal


# --- random play (all player counts and switches) ----------------------------------------------


@pytest.mark.parametrize("config", [{}, ALL_SWITCHES])
@pytest.mark.parametrize("n", [2, 3, 4])
def test_random_games_finish_within_the_bounds(n: int, config: dict) -> None:
    # rules §6: every game ends; max_game_length and score_bounds hold; invariants after each step.
    g = RapaNuiGame(num_players=n, **config)
    lo, hi = g.score_bounds
    for seed in range(20):
        s = g.new_initial_state(random.Random(seed))
        rng = random.Random(1000 + seed)
        steps = 0
        while not s.is_terminal():
            assert s.phase() in PHASES
            legal = s.legal_actions()
            assert legal == sorted(set(legal)) and legal
            assert all(0 <= a < NUM_ACTIONS for a in legal)
            s.apply_action(legal[rng.randrange(len(legal))])
            s.check_invariants()
            steps += 1
        assert steps <= g.max_game_length
        assert all(lo <= x <= hi for x in s.scores())
        assert s.winners()


# --- purity of the engine (house rules) -------------------------------------------------------


def _outside_functions(node: ast.AST):
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        yield child
        yield from _outside_functions(child)


def test_rules_module_is_pure_stdlib() -> None:
    # House rule: the engine imports the standard library (and the engine contract) only, calls
    # no module-level random function and never hash().
    engine = ("tabletop_gym.core.game", "tabletop_gym.core.layout", "tabletop_gym.core.events",
              "tabletop_gym.envs.rapa_nui", "tabletop_gym.envs.rapa_nui.components",
              "tabletop_gym.envs.rapa_nui.events", "tabletop_gym.envs.rapa_nui.rules",
              "tabletop_gym.envs.rapa_nui.state_json", "tabletop_gym.envs.rapa_nui.actions")
    here = Path(rules.__file__)
    for path in (here, here.with_name("state_json.py"), here.with_name("components.py"),
                 here.with_name("events.py"), here.with_name("actions.py")):
        _check_pure(ast.parse(path.read_text(encoding="utf-8")), engine)


def _check_pure(tree: ast.Module, engine: tuple[str, ...]) -> None:
    allowed = set(sys.stdlib_module_names) | {"__future__"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                assert alias.name.split(".")[0] in allowed, alias.name
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            assert module.split(".")[0] in allowed or module in engine, module
            assert module != "random", "import the module, draw only from the rng passed in"
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            assert node.func.id != "hash", "hash() differs between processes"
    for node in _outside_functions(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            base = node.func.value
            assert not (isinstance(base, ast.Name) and base.id == "random"), ast.dump(node)


def test_check_invariants_names_the_broken_rule() -> None:
    # rules §1.2/§2 (card conservation) and §1.4 (supply): a corrupted state is reported.
    s = RapaNuiGame(num_players=2).new_initial_state(random.Random(0))
    s.check_invariants()
    s._pile.pop()
    with pytest.raises(AssertionError, match="not conserved"):
        s.check_invariants()
    s = RapaNuiGame(num_players=2).new_initial_state(random.Random(0))
    s._supply[0] += 1
    with pytest.raises(AssertionError, match="supply\\[0\\]"):
        s.check_invariants()
    s = RapaNuiGame(num_players=2).new_initial_state(random.Random(0))
    s.legal_actions()
    s._wood[0] = 9  # all four kinds become affordable; the cached legal set is stale
    with pytest.raises(AssertionError, match="stale legal-action cache"):
        s.check_invariants()


@pytest.mark.parametrize("n", [2, 3, 4])
def test_each_action_tells_one_event_naming_its_seat_and_column(n: int) -> None:
    # The observer rewrites hands and displays only for the seat an event names, and the
    # columns block only for the column a draw names: every action tells one event with its
    # seat first (§3-§5: a seat plays from and draws into its own hand and display only), a
    # draw its column (§6: a draw takes that column's front card, a refill fills that column),
    # a turn scoring one more event without a seat, and nothing else of those lists changes.
    from tabletop_gym.envs.rapa_nui import events as ev

    game = RapaNuiGame(num_players=n)
    rng = random.Random(n)
    draws = 0
    for seed in range(3):
        state = game.new_initial_state(random.Random(seed))
        told: list[tuple[int, tuple[int, ...]]] = []
        state.listen(lambda _s, code, *args, told=told: told.append((code, args)))
        while not state.is_terminal():
            p = state.current_player()
            action = rng.choice(state.legal_actions())
            before = state.clone()
            told.clear()
            state.apply_action(action)
            (code, args), *scoring = told
            assert code != ev.SCORED and args[0] == p
            assert all(c == ev.SCORED for c, _ in scoring) and len(scoring) <= 1
            t = rules.NUM_CARD_TYPES
            for q in range(n):
                if q != p:
                    assert state._hands[q * t : (q + 1) * t] == before._hands[q * t : (q + 1) * t]
                    assert (state._displays[q * t : (q + 1) * t]
                            == before._displays[q * t : (q + 1) * t])
            columns = [args[1]] if code == ev.DREW else []
            if DRAW <= action < OFFER:
                draws += 1
                assert columns == [action - DRAW]
            else:
                assert code != ev.DREW
            for c in range(4):
                if c not in columns:
                    assert state._columns[c] == before._columns[c]
            if not columns:
                assert state._pile == before._pile
    assert draws > 50
