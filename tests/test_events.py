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
