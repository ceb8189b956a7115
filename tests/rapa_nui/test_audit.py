"""Audit tests of the Rapa Nui engine: rules that had no test yet, the JSON loader's
consistency checks, and the readable names (``action_to_string``, ``__str__``).

Each test cites the rules section it checks (``docs/rules/rapa_nui.md``); expected values are
worked out by hand in the comments. Positions are JSON ``"state"`` dicts from
``helpers.position`` loaded through ``state_from_json``.
"""

from __future__ import annotations

import pytest

from tabletop_gym.core.game import StateFormatError
from tabletop_gym.envs.rapa_nui.rules import (
    BUY,
    DRAW,
    MOAI_VP,
    NO_BUY,
    OFFER,
    PLAY_MOAI,
    PLAY_WOODCUTTER,
    SUPPLY,
    SUPPLY_SKIP,
    RapaNuiGame,
    RapaNuiState,
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


def reveal(n: int, revealed: int, displays: list[list[int]], **kw) -> RapaNuiState:
    """Seat 0 takes the Priest in front of ``revealed`` as its last draw (column 1)."""
    hands = [start_hand(p) for p in range(n)]
    hands[0] = hands[0][:2]
    s = build(
        n,
        phase="draw",
        draws_left=1,
        hands=hands,
        displays=displays,
        columns=[[P, revealed, W, W], None, None, None],
        **kw,
    )
    s.apply_action(DRAW + 0)
    return s


# --- phase 1: buying (§3 phase 1) ---------------------------------------------------------------


def test_buy_needs_exactly_the_cost_in_wood() -> None:
    # rules §3 phase 1: cost max(0, 5 − 0) = 5 for every kind with no H&G in the display; 5 wood
    # affords any kind, 4 wood none.
    assert build(2, wood=[5, 3]).legal_actions() == [BUY + 0, BUY + 1, BUY + 2, BUY + 3, NO_BUY]
    assert build(2, wood=[4, 3]).legal_actions() == [NO_BUY]


def test_hunters_played_this_turn_lower_the_cost_from_the_next_turn_on() -> None:
    # rules §3 phase 1: phase 1 comes before phase 2, so a Grain H&G played this turn makes Grain
    # cheaper only on the seat's next turn (5 now, 5 − 1 = 4 then).
    s = build(2, wood=[9, 3])
    assert s.action_to_string(BUY + 1) == "buy Grain (5 wood)"
    s.apply_action(BUY + 1)  # 9 − 5 = 4 wood
    s.apply_action(play_hg_action(1, 1))
    # Column 1 is four Woodcutters: the exposed Woodcutter gives each seat 1 wood (no bonus).
    s.apply_action(DRAW + 0)
    assert (s.wood(0), s.wood(1)) == (5, 4)
    # Seat 1: no purchase, one Fish H&G, takes a Priest exposing a Priest (nobody has one).
    s.apply_action(NO_BUY)
    s.apply_action(play_hg_action(0, 1))
    s.apply_action(DRAW + 1)
    assert (s.phase(), s.current_player()) == ("buy", 0)
    assert s.action_to_string(BUY + 1) == "buy Grain (4 wood)"
    # 5 wood: Grain (4) and the other kinds (5) are all affordable.
    assert s.legal_actions() == [BUY + 0, BUY + 1, BUY + 2, BUY + 3, NO_BUY]
    s.apply_action(BUY + 1)
    assert s.wood(0) == 1 and s.holdings(0) == [1, 3, 1, 1]


# --- turn scoring (§4) -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("woodcutters", "gains"),
    [
        # 2, 2, 3: the later seat with 3 is the sole most (≥ 2) -> 3 + 1.
        ([2, 2, 3], [2, 2, 4]),
        # 3, 2, 3: a tie for most -> no bonus.
        ([3, 2, 3], [3, 2, 3]),
        # 2, 3, 3: a tie for most between the two later seats -> no bonus.
        ([2, 3, 3], [2, 3, 3]),
        # 1, 1, 2: sole most with exactly 2 -> bonus.
        ([1, 1, 2], [1, 1, 3]),
    ],
)
def test_majority_bonus_sole_most_with_at_least_two(
    woodcutters: list[int], gains: list[int]
) -> None:
    # rules §4: the single player with strictly the most cards of the type gets +1, only with ≥ 2;
    # any tie for most means no bonus. Start wood 2, 3, 4.
    s = reveal(3, W, [disp(W=c) for c in woodcutters])
    assert [s.wood(p) for p in range(3)] == [2 + gains[0], 3 + gains[1], 4 + gains[2]]


def test_priest_bonus_against_seats_without_priests() -> None:
    # rules §4: A 2 Priests, B and C none -> A 2 + 1 = 3 VP; the others nothing.
    s = reveal(3, P, [disp(P=2), disp(), disp()])
    assert [s.vp(p) for p in range(3)] == [3, 0, 0]


def test_card_played_this_turn_counts_in_this_turns_scoring() -> None:
    # rules §3 / §4: the card played in phase 2 is in the display when phase 3 scores. Seat 0
    # plays its second Woodcutter, takes the Priest and exposes a Woodcutter: 2 + 1 (sole most
    # with 2) = 3 wood; seat 1 has 1 -> 1 wood.
    s = build(
        2,
        phase="play",
        hands=[[W, GRAIN, MULB], start_hand(1)],
        columns=[[P, W, W, W], None, None, None],
    )
    s.apply_action(PLAY_WOODCUTTER)
    s.apply_action(DRAW + 0)
    assert (s.wood(0), s.wood(1)) == (2 + 3, 3 + 1)
    assert s.display(0)[W] == 2 and s.hand(0)[P] == 1


def test_moai_built_this_turn_counts_and_every_unit_is_split() -> None:
    # rules §3.1 / §4 / E3: seat 0 builds its second Moai (7 wood), the round places seat 1's
    # Fish face up, seat 0's Grain face down and a Sweet potato from the supply; then seat 0
    # takes the Priest exposing a Moai: seat 0 has 2 (sole most) -> 3 units, seat 1 has 1 -> 1.
    s = build(
        2,
        phase="play",
        hands=[[M, GRAIN, MULB], start_hand(1)],
        displays=[disp(M=1), disp(M=1)],
        wood=[7, 3],
        columns=[[P, M, W, W], None, None, None],
    )
    s.apply_action(PLAY_MOAI)
    s.apply_action(OFFER + 0)
    s.apply_action(OFFER + 1)
    s.apply_action(SUPPLY + 3)
    s.apply_action(DRAW + 0)
    assert [s.moai_units(p) for p in range(2)] == [3, 1]
    s.apply_action(MOAI_VP + 1)  # seat 0: 1 VP + 2 wood
    s.apply_action(MOAI_VP + 1)  # seat 1: 1 VP + 0 wood
    assert (s.vp(0), s.wood(0), s.vp(1), s.wood(1)) == (1, 0 + 2, 1, 3)
    assert (s.phase(), s.active_player()) == ("buy", 1)


# --- offering round (§1.4, §3.1) ---------------------------------------------------------------


def all_stacks_empty(holdings0: list[int], config: dict | None = None) -> RapaNuiState:
    # 25 cards of every kind are held (seat 0 ``holdings0``, seat 1 the rest): every stack is
    # empty. Seat 0 builds a Moai.
    s = build(
        2,
        config,
        phase="play",
        hands=[[M, P, W], start_hand(1)],
        wood=[7, 3],
        holdings=[holdings0, [25 - h for h in holdings0]],
    )
    assert s.supply() == [0, 0, 0, 0]
    s.apply_action(PLAY_MOAI)
    return s


def test_no_supply_card_when_every_stack_is_empty() -> None:
    # rules §1.4: an empty stack cannot be chosen as the supply offering; with every stack empty
    # (limited supply, mandatory card) nothing is placed and the round ends (docs: Readings).
    s = all_stacks_empty([12, 12, 12, 12])
    s.apply_action(OFFER + 0)  # seat 1, face up
    s.apply_action(OFFER + 1)  # seat 0, face down
    assert (s.phase(), s.current_player(), s.draws_left()) == ("draw", 0, 1)
    assert s.stone_face_up() == [1, 0, 0, 0] and s.face_down(0) == [0, 1, 0, 0]
    # The cards on the stone stay counted: the stacks remain empty.
    assert s.supply() == [0, 0, 0, 0]
    # An active player with no own card and no supply card: straight to the draw after seat 1.
    s = all_stacks_empty([0, 0, 0, 0])
    assert s.current_player() == 1
    s.apply_action(OFFER + 2)
    assert (s.phase(), s.current_player()) == ("draw", 0)
    # With the optional switch the skip is the one choice left.
    s = all_stacks_empty([12, 12, 12, 12], {"active_supply_offering_optional": True})
    s.apply_action(OFFER + 0)
    s.apply_action(OFFER + 1)
    assert (s.phase(), s.legal_actions()) == ("supply_offer", [SUPPLY_SKIP])


# --- end of the game (§6) ----------------------------------------------------------------------


def test_purchase_play_and_offering_round_stand_when_the_game_ends() -> None:
    # rules §6: the turn's purchase, play and offering round have happened and stand; the game
    # ends at the draw that empties column 1 with 2 cards in the pile (no turn scoring).
    s = build(
        2,
        hands=[[M, GRAIN, MULB], start_hand(1)],
        wood=[12, 3],
        columns=[[W], [P] * 4, [W] * 4, [FISH] * 4],
        draw_pile=[P, P],
        dump=1,
    )
    # The other 8 Moai are in seat 1's display.
    assert s.display(1)[M] == 8
    s.apply_action(BUY + 1)  # Grain: 5 wood (12 -> 7)
    s.apply_action(PLAY_MOAI)  # 7 wood (-> 0)
    s.apply_action(OFFER + 0)  # seat 1: Fish face up
    s.apply_action(OFFER + 0)  # seat 0: Fish face down
    s.apply_action(SUPPLY + 2)  # Paper mulberry from the supply
    s.apply_action(DRAW + 0)
    assert s.is_terminal()
    assert s.holdings(0) == [0, 2, 1, 1] and s.wood(0) == 0 and s.display(0)[M] == 1
    assert s.stone_face_up() == [1, 0, 1, 0] and s.face_down(0) == [1, 0, 0, 0]
    # Stone Fish 2, Grain 0, Mulberry 1, Sweet potato 0 -> values 3, 0, 2, 0 (zero rule).
    # Seat 0: 4 (Moai) + 2 × 0 + 1 × 2 + 1 × 0 = 6. Seat 1: 8 × 4 + 3 // 5 + (holdings
    # 0, 1, 1, 1 -> 2) = 34.
    b = s.score_breakdown()
    assert b[0]["kind_values"] == {"Fish": 3, "Grain": 0, "Paper mulberry": 2, "Sweet potato": 0}
    assert (b[0]["moai"], b[0]["offerings"], b[0]["total"]) == (4, 2, 6)
    assert s.scores() == [6.0, 34.0]
    assert s.winners() == [1]


# --- JSON loader: inconsistent states ---------------------------------------------------------


def split_state(n: int, units: list[int], decider: int, **kw) -> dict:
    # Moai scoring in progress, seat 0 active: displays 2, 1, 1 Moai -> 3, 1, 1 units due.
    displays = kw.pop("displays", [disp(M=2), disp(M=1), disp(M=1)][:n])
    return position(
        n,
        phase="moai_split",
        decider=decider,
        displays=displays,
        moai_units=units,
        columns=kw.pop("columns", [[M, W, W, W], None, None, None]),
        **kw,
    )


def offer_round(phase: str, moai: int) -> dict:
    # Seat 0 has played a card (hand 2) and is in the offering round with ``moai`` Moai built.
    return position(
        2,
        phase=phase,
        decider=1 if phase == "offer" else 0,
        draws_left=1,
        hands=[[GRAIN, MULB], start_hand(1)],
        displays=[disp(M=moai, SWEET=1), disp()],
    )


def terminal_state(columns: list[list[int]]) -> dict:
    return position(
        2,
        phase="terminal",
        decider=None,
        hands=[[GRAIN, MULB], start_hand(1)],
        columns=columns,
        draw_pile=[P, P],
        dump=1,
    )


@pytest.mark.parametrize(
    ("num_players", "state", "message"),
    [
        # §3.1.2: one face-down card per offering round of an own Moai; seat 1 has built none.
        (
            2,
            position(2, stone_face_down=[[0] * 4, [1, 0, 0, 0]]),
            "seat 1 has built only 0 Moai",
        ),
        # Before: 9 face-down cards per seat were accepted and the observation's face-down
        # total (18) broke its bound of 9.
        (
            2,
            position(2, stone_face_down=[[9, 0, 0, 0], [0, 9, 0, 0]]),
            "stone_face_down\\[0\\] holds 9 cards, but seat 0 has built only 0 Moai",
        ),
        # §3.1: at most N face-up cards per round; 2 players, 1 Moai built -> at most 2.
        (
            2,
            position(2, stone_face_up=[2, 1, 0, 0], displays=[disp(M=1), disp()]),
            "stone_face_up holds 3 cards, but only 1 Moai were built",
        ),
        # §6: the game ends at the first column that cannot be refilled: one empty column.
        (
            2,
            terminal_state([[], [], [M] * 4, [FISH, GRAIN] * 2]),
            "has 2 empty columns",
        ),
        # §4: splits go clockwise from the active seat: seat 1 (after the decider 0) has not
        # split yet and must still hold its unit.
        (3, split_state(3, [3, 0, 1], 0), "moai_units\\[1\\]=0.*has not split yet"),
        # ... and seat 0 (before the decider 1) has split already.
        (3, split_state(3, [3, 1, 1], 1), "moai_units\\[0\\]=3.*has split already"),
        # The decider must still have units: seat 0 (3 units due) has split, seat 1 has no Moai.
        (
            2,
            split_state(2, [0, 0], 1, displays=[disp(M=2), disp()]),
            "decider must be the first seat",
        ),
        # §3 phase 3.3: the scored card (a column's front card) must be a Moai.
        (
            2,
            split_state(2, [3, 1], 0, columns=[[W, M], None, None, None]),
            "needs a Moai as the front card",
        ),
        # §3.1: an offering round follows a Moai built by the active seat.
        (2, offer_round("offer", 0), "display holds none"),
        (2, offer_round("supply_offer", 0), "display holds none"),
        # §1.4: every stack empty, mandatory supply card: the decider could not act.
        (
            2,
            {
                **offer_round("supply_offer", 1),
                "holdings": [[12] * 4, [13] * 4],
                "supply": [0, 0, 0, 0],
            },
            "no legal action",
        ),
        # Types and shapes not covered elsewhere.
        (
            2,
            {**position(2), "columns": [[W] * 4, 7, [M] * 4, [FISH, GRAIN] * 2]},
            "columns\\[1\\] must be a list",
        ),
        (2, {**position(2), "hands": [5, start_hand(1)]}, "hands\\[0\\] must be a list"),
        (2, {**position(2), "decider": True}, "decider must be an integer"),
        (
            2,
            {**position(2), "stone_face_down": [[10, 0, 0, 0], [0] * 4]},
            "stone_face_down\\[0\\]\\[0\\]=10 is out of range",
        ),
        (
            2,
            {**terminal_state([[], [W] * 4, [M] * 4, [FISH, GRAIN] * 2]), "draws_left": 1},
            "draws_left must be 0",
        ),
        (2, {**offer_round("offer", 1), "draws_left": 0}, "draws_left=0 does not fit"),
    ],
)
def test_inconsistent_states_are_rejected(num_players: int, state: dict, message: str) -> None:
    with pytest.raises(StateFormatError, match=message):
        load(RapaNuiGame(num_players=num_players), state)


def test_consistent_variants_of_the_rejected_states_load() -> None:
    # The same kinds of positions, made consistent, are accepted (so the checks are not too
    # strict): face-down card by a seat with a Moai, 2 face-up cards per Moai, one empty column
    # at the end, splits in clockwise order, an offering round after a Moai.
    g2, g3 = RapaNuiGame(num_players=2), RapaNuiGame(num_players=3)
    load(g2, position(2, stone_face_down=[[0] * 4, [1, 0, 0, 0]], displays=[disp(), disp(M=1)]))
    load(g2, position(2, stone_face_up=[2, 0, 0, 0], displays=[disp(M=1), disp()]))
    assert load(g2, terminal_state([[], [W] * 4, [M] * 4, [FISH, GRAIN] * 2])).is_terminal()
    s = load(g3, split_state(3, [0, 1, 1], 1))
    assert (s.current_player(), s.legal_actions()) == (1, [MOAI_VP, MOAI_VP + 1])
    s = load(g3, split_state(3, [0, 0, 1], 2))
    assert s.current_player() == 2
    s = load(g2, offer_round("offer", 1))
    assert s.legal_actions() == [OFFER + 0, OFFER + 1, OFFER + 2, OFFER + 3]


# --- readable names ----------------------------------------------------------------------------


def test_action_names_follow_the_state() -> None:
    # Action table (module docstring): costs are the deciding seat's; the face of an own
    # offering is face down for the active seat only; Moai splits name both parts.
    s = build(2, active=1, displays=[disp(), disp(FISH=2)], wood=[2, 4])
    assert s.action_to_string(BUY + 0) == "buy Fish (3 wood)"
    assert s.action_to_string(BUY + 0, player=0) == "buy Fish (5 wood)"
    assert s.action_to_string(PLAY_MOAI) == "play Moai (7 wood)"
    assert s.action_to_string(play_hg_action(3, 3)) == "play 3× H&G Sweet potato (2 wood)"
    assert s.action_to_string(SUPPLY_SKIP) == "no supply offering"
    o = load(RapaNuiGame(num_players=2), offer_round("offer", 1))
    assert o.action_to_string(OFFER + 0) == "offer own Fish face up"
    assert o.action_to_string(OFFER + 0, player=0) == "offer own Fish face down"
    m = load(RapaNuiGame(num_players=3), split_state(3, [3, 1, 1], 0))
    assert m.action_to_string(MOAI_VP) == "Moai scoring: 0 VP + 3 wood"
    assert m.action_to_string(MOAI_VP + 3) == "Moai scoring: 3 VP + 0 wood"
    # At the end nobody decides: no costs, no faces; an empty column says so.
    t = load(RapaNuiGame(num_players=2), terminal_state([[], [W] * 4, [M] * 4, [FISH] * 4]))
    assert t.action_to_string(BUY + 2) == "buy Paper mulberry"
    assert t.action_to_string(OFFER + 3) == "offer own Sweet potato"
    assert t.action_to_string(DRAW + 0) == "draw column 1 (empty)"
    assert t.action_to_string(DRAW + 1) == "draw column 2 (Woodcutter)"
    with pytest.raises(ValueError, match="must be an int"):
        s.action_to_string(True)


def test_str_names_every_part_hidden_ones_included() -> None:
    # __str__ is the full-information debug view: hands, offering kinds, face-down kinds and
    # the draw-pile order by name.
    s = load(
        RapaNuiGame(num_players=2),
        position(
            2,
            displays=[disp(M=1), disp()],
            holdings=[[1, 1, 1, 0], [2, 0, 0, 1]],
            stone_face_up=[0, 1, 0, 0],
            stone_face_down=[[0, 0, 0, 1], [0, 0, 0, 0]],
            pile_top=[SWEET, MULB],
        ),
    )
    text = str(s)
    lines = text.splitlines()
    assert lines[0] == "phase buy, turn of seat 0, decider 0, draws left 0"
    assert lines[1].startswith("columns (front first): Woodcutter,Woodcutter,")
    assert lines[2].startswith("draw pile (33, top first): H&G Sweet potato,H&G Paper mulberry,")
    assert "stone face up Grain×1" in lines[3]
    assert lines[4] == (
        "seat 0: wood 2; VP tiles 0; hand H&G Grain×1, H&G Paper mulberry×1, H&G Sweet "
        "potato×1; display Woodcutter×1, Moai×1; offering cards Fish×1, Grain×1, Paper "
        "mulberry×1; face down Sweet potato×1"
    )
    assert lines[5].endswith("offering cards Fish×2, Sweet potato×1; face down -")
