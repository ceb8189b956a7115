"""The change-event vocabulary (``core/events.py``) and a state's listeners.

Each game declares its events once; the engine tells them to whoever listens, and nobody
listens to a copy.
"""

from __future__ import annotations

import random

import pytest

from tabletop_gym.core.events import Handlers, Vocabulary
from tabletop_gym.core.turn_based import TurnBasedGame
from tabletop_gym.envs.positano import events as pev
from tabletop_gym.envs.positano.rules import PositanoGame
from tabletop_gym.envs.rapa_nui import events as rev
from tabletop_gym.envs.rapa_nui.rules import RapaNuiGame


def test_a_vocabulary_numbers_names_and_describes_its_events():
    v = Vocabulary("g", [("A", (), "a"), ("B_C", ("x", "y"), "b")])
    assert len(v) == 2 and v.codes() == {"A": 0, "B_C": 1}
    assert v["B_C"].args == ("x", "y")
    assert v.describe(1, (3, 4)) == "B_C(x=3, y=4)"
    assert "| 1 | `B_C` | x, y | b |" in v.markdown_table()


def test_bad_vocabularies_and_events_are_refused_with_what_is_allowed():
    with pytest.raises(ValueError, match="duplicate event name 'A'"):
        Vocabulary("g", [("A", (), ""), ("A", (), "")])
    with pytest.raises(ValueError, match="upper-case identifier"):
        Vocabulary("g", [("lower", (), "")])
    v = Vocabulary("g", [("A", ("x",), "")])
    with pytest.raises(KeyError, match=r"no event 'B'; its events: \['A'\]"):
        v["B"]
    with pytest.raises(ValueError, match=r"unknown event code 5 for g; codes are 0\.\.0"):
        v.describe(5, ())
    with pytest.raises(ValueError, match=r"A takes 1 arguments \('x',\), got 2"):
        v.describe(0, (1, 2))


def test_the_module_constants_are_the_vocabulary_codes():
    for module in (pev, rev):
        for name, code in module.EVENTS.codes().items():
            assert getattr(module, name) == code


def test_listeners_are_told_in_order_and_a_copy_has_none():
    game = PositanoGame(num_players=2)
    state = game.new_initial_state(random.Random(1))
    told: list[tuple[str, int]] = []
    state.listen(lambda _s, code, *a: told.append(("first", code)))
    state.listen(lambda _s, code, *a: told.append(("second", code)))
    assert type(state._on) is tuple and len(state._on) == len(pev.EVENTS)
    state.apply_joint_action([state.legal_actions(q)[0] for q in range(2)])
    # The bids revealed, the orders set, the turn moved (docs/rules/positano.md §3.1, §3.2):
    # each told to both listeners.
    codes = [c for who, c in told if who == "first"]
    assert codes == [pev.BID_PLAYED, pev.BID_PLAYED, pev.ORDERS_SET, pev.TURN]
    assert told[:2] == [("first", pev.BID_PLAYED), ("second", pev.BID_PLAYED)]
    assert state.clone()._on is None


def test_handlers_are_called_per_code_beside_a_plain_listener():
    # A listener given as handlers gets (state, *args) for its code only; a plain listener
    # subscribed after it gets (state, code, *args) of the same events, after it.
    game = PositanoGame(num_players=2)
    state = game.new_initial_state(random.Random(1))
    told: list[tuple[str, object]] = []
    table = [(lambda _s, *a, c=c: told.append(("handler", (c, a)))) for c in range(len(pev.EVENTS))]
    state.listen(Handlers(pev.EVENTS, table))
    state.listen(lambda _s, code, *a: told.append(("plain", (code, a))))
    state.apply_joint_action([state.legal_actions(q)[0] for q in range(2)])
    # Each event reaches the handler of its code, then the plain listener, with equal arguments
    # (docs/rules/positano.md §3.1: both bids revealed, then the orders set, then the turn).
    assert [w for w, _ in told] == ["handler", "plain"] * 4
    assert told[0][1] == told[1][1] and told[0][1][0] == pev.BID_PLAYED
    assert [e[0] for _, e in told[::2]] == [pev.BID_PLAYED, pev.BID_PLAYED, pev.ORDERS_SET,
                                          pev.TURN]


def test_malformed_handlers_are_refused_and_change_nothing():
    game = PositanoGame(num_players=2)
    state = game.new_initial_state(random.Random(1))
    with pytest.raises(ValueError, match=r"positano has 9 events \['TURN', 'BID_PLAYED'.*got 2"):
        Handlers(pev.EVENTS, [print, print])
    with pytest.raises(TypeError, match="the handler of ORDERS_SET must be callable, got int"):
        Handlers(pev.EVENTS, [print, print, 3] + [print] * 6)
    with pytest.raises(TypeError, match="a listener is a callable"):
        state.listen(42)  # type: ignore[arg-type]
    # Handlers of the other game's vocabulary are refused, though it has as many events.
    with pytest.raises(ValueError, match="these handlers follow rapa_nui's events, not positano's"):
        state.listen(Handlers(rev.EVENTS, [print] * len(rev.EVENTS)))
    assert state._on is None


def test_a_game_without_events_refuses_a_listener():
    # The turn-based transform's own states report nothing: their observer reads the inner one.
    game = TurnBasedGame(RapaNuiGame(num_players=2))
    state = game.new_initial_state(random.Random(0))
    assert state.EVENTS is None
    with pytest.raises(TypeError, match="reports no change events"):
        state.listen(lambda *a: None)
    assert state._on is None


def _random_step(state, rng: random.Random) -> None:
    if state.current_player() >= 0:
        state.apply_action(rng.choice(state.legal_actions()))
    else:
        state.apply_joint_action([rng.choice(state.legal_actions(q))
                                  for q in range(state.game.num_players)])


@pytest.mark.parametrize("game", [RapaNuiGame(num_players=3), PositanoGame(num_players=1),
                                  PositanoGame(num_players=3)], ids=["rapa_nui", "solo", "3p"])
def test_every_event_is_told_after_its_change(game):
    # core/events.py: a handler sees its change made, the turn moved on included. So the last
    # event of every action sees the position the action leaves, whatever the rules did after
    # the decision (Positano: the solo drafts, docs/rules/positano.md §7, and the refresh,
    # docs/rules/positano.md §3.5; Rapa Nui: the turn scoring, docs/rules/rapa_nui.md §4).
    state = game.new_initial_state(random.Random(3))
    seen: list[tuple[int, tuple, dict]] = []
    state.listen(lambda s, code, *a: seen.append((code, a, s.to_dict())))
    rng = random.Random(3)
    while not state.is_terminal():
        seen.clear()
        _random_step(state, rng)
        assert seen, "every action tells at least one event"
        assert seen[-1][2] == state.to_dict(), seen[-1][:2]


def test_a_rapa_nui_draw_is_told_with_the_card_in_hand_before_its_scoring():
    # docs/rules/rapa_nui.md §3: the drawn card is in the hand (the column refilled from the pile
    # when emptied) when DREW is told; the turn scoring it triggers is told after it, paid
    # (docs/rules/rapa_nui.md §4).
    game = RapaNuiGame(num_players=2)
    state = game.new_initial_state(random.Random(5))
    told: list[tuple[int, tuple, int, int, str]] = []
    state.listen(lambda s, code, *a: told.append(
        (code, a, s.hand_size(a[0]) if code == rev.DREW else -1, s.draw_pile_size(), s.phase())))
    rng = random.Random(5)
    drew = scored = 0
    while not state.is_terminal() and scored < 3:
        before = state.hand_size(state.current_player())
        told.clear()
        _random_step(state, rng)
        codes = [c for c, *_ in told]
        if rev.DREW in codes:
            drew += 1
            _, (seat, column), hand, pile, _ = told[codes.index(rev.DREW)]
            assert hand == before + 1
            if rev.SCORED in codes:
                scored += 1
                assert codes.index(rev.SCORED) > codes.index(rev.DREW)
                # Told once paid and the turn moved on: to the next seat's purchase, or a split.
                assert told[-1][0] == rev.SCORED and told[-1][4] == state.phase()
    assert drew and scored == 3
