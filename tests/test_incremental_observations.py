"""Kept observations follow the engine's change events in every configuration.

Each observer keeps one shared vector of every observable fact on the state and follows the
engine's change events (``State.listen``): their handlers write what changed, or name the fact
groups the next read rewrites; a seat's observation is gathered from it. At every step of random
games the kept vector must equal the encoding of a clone (nobody listens to a clone, so it is
encoded from scratch), for every seat, in every configuration of ``tests/configs.py`` (and split
bids).
"""

from __future__ import annotations

import copy
import gc
import pickle
import random

import numpy as np
import pytest

from tabletop_gym.envs.positano import events as pev
from tabletop_gym.envs.positano.observer import PositanoObserver
from tabletop_gym.envs.positano.rules import PositanoGame
from tabletop_gym.envs.rapa_nui.observer import RapaNuiObserver
from tabletop_gym.envs.rapa_nui.rules import RapaNuiGame
from tests.configs import ENGINE_CONFIGS, config_id, raw_env

CASES = [*ENGINE_CONFIGS, ("positano", {"num_players": 3, "split_bids": True})]


def _fresh(observer, state, seat):
    return observer.encode(state.clone(), seat)


@pytest.mark.parametrize("item", CASES, ids=[config_id(c) for c in CASES])
def test_kept_vectors_equal_a_fresh_encoding_at_every_step(item):
    game, cfg = item
    env = raw_env(game, **cfg)
    n = env.game.num_players
    rng = np.random.default_rng(7)
    for episode in range(3):
        env.reset(seed=episode)
        state = env.game_state
        while True:
            # Seats are read in a random order and not at every step, so a seat's kept vector
            # catches up over several logged actions at once.
            for seat in rng.permutation(n)[: rng.integers(1, n + 1)]:
                kept = env.observer.encode(state, int(seat))
                np.testing.assert_array_equal(kept, _fresh(env.observer, state, int(seat)))
            if rng.random() < 0.2:
                # Now and then every seat at once (the parallel env's call): each row equals
                # that seat's fresh encoding.
                rows = env.observer.encode_seats(state)
                for seat in range(n):
                    np.testing.assert_array_equal(rows[seat], _fresh(env.observer, state, seat))
            if state.is_terminal():
                break
            env.step(int(rng.choice(np.flatnonzero(env.acting_mask()))))
        rows = env.observer.encode_seats(state)
        assert rows.shape == (n, env.observer.size)
        for seat in range(n):
            np.testing.assert_array_equal(
                env.observer.encode(state, seat), _fresh(env.observer, state, seat)
            )
            np.testing.assert_array_equal(rows[seat], _fresh(env.observer, state, seat))


@pytest.mark.parametrize("game", ["positano", "rapa_nui"])
def test_parallel_observations_kept_by_a_caller_never_change(game):
    # The parallel env hands out rows of one array per step: a fresh array every step, so an
    # observation kept from an earlier step stays as it was, and no seat's row is another's.
    from tabletop_gym.registry import game_spec

    env = game_spec(game).envs().parallel_env(num_players=3)
    obs, _ = env.reset(seed=5)
    rng = np.random.default_rng(5)
    kept = {a: o["observation"] for a, o in obs.items()}
    before = {a: v.copy() for a, v in kept.items()}
    for _ in range(12):
        actions = {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()}
        obs, *_ = env.step(actions)
        if not env.agents:
            break
    for a in kept:
        np.testing.assert_array_equal(kept[a], before[a])
    first, second = (obs[a]["observation"] for a in env.possible_agents[:2])
    saved = second.copy()
    first[:] = 7
    np.testing.assert_array_equal(second, saved)


@pytest.mark.parametrize("game", ["positano", "rapa_nui"])
def test_observe_hands_out_a_copy_of_the_kept_vector(game):
    env = raw_env(game, num_players=2)
    env.reset(seed=0)
    agent = env.agent_selection
    first = env.observe(agent)["observation"]
    before = first.copy()
    first[:] = 99  # a caller scribbling on its observation must not reach the kept vector
    np.testing.assert_array_equal(env.observe(agent)["observation"], before)


def test_a_lowered_building_is_followed_even_when_column_sums_stay_equal():
    # A rule that lowers a building by one block and raises a roof in the same column keeps the
    # sums of the column's heights and roofs (the key of the former cache); the change event
    # names the lot and the old building, so the kept vector follows (docs/rules/positano.md §5.1: the sea view of the
    # lot behind changes).
    game = PositanoGame(num_players=2)
    state = game.new_initial_state(random.Random(0))
    observer = PositanoObserver(game)
    # Column A: a 2-block Bronze building at 1A (pos 0), a 2-block Silver one at 2A (pos 5).
    state._set_building(0, 0, 2, 1)
    state._set_building(5, 1, 2, 2)
    kept = observer.encode(state, 0)
    np.testing.assert_array_equal(kept, _fresh(observer, state, 0))
    told: list[tuple[int, tuple[int, ...]]] = []
    state.listen(lambda _s, code, *args: told.append((code, args)))
    state._set_building(0, 0, 1, 2)  # 1A: one block lower, Silver now (sums unchanged)
    assert told == [(pev.BUILDING, (0, 0, 2, 1))]  # lot 1A, which held colour 0's 2 Bronze
    after = observer.encode(state, 0)
    np.testing.assert_array_equal(after, _fresh(observer, state, 0))
    o = observer.layout["cliff_visible"].start
    # 2A stands on level 2 behind 1A: a 1-block front building hides nothing of it now.
    assert (kept[o], kept[o + 5]) == (2, 1)
    assert (after[o], after[o + 5]) == (1, 2)
    state._set_building(5, -1, 0, 0)  # and a building removed altogether
    np.testing.assert_array_equal(observer.encode(state, 1), _fresh(observer, state, 1))


def test_every_rapa_nui_action_is_told_before_the_observer_reads_it():
    # The observer reads nothing an event did not name: each action tells at least one event,
    # and the kept vectors of both seats equal a fresh encoding (hidden hands included).
    game = RapaNuiGame(num_players=2)
    state = game.new_initial_state(random.Random(3))
    observer = RapaNuiObserver(game)
    rng = random.Random(3)
    observer.encode(state, 0)  # subscribes
    told: list[int] = []
    state.listen(lambda _s, code, *args: told.append(code))
    while not state.is_terminal():
        size = len(told)
        state.apply_action(rng.choice(state.legal_actions()))
        assert len(told) > size
        for seat in (0, 1):
            np.testing.assert_array_equal(
                observer.encode(state, seat), _fresh(observer, state, seat)
            )


@pytest.mark.parametrize("make", [lambda s: s.clone(), copy.deepcopy,
                                  lambda s: pickle.loads(pickle.dumps(s))])
@pytest.mark.parametrize("game", [RapaNuiGame(num_players=2), PositanoGame(num_players=2)])
def test_a_copy_has_no_listener_and_shares_no_kept_vector(game, make):
    # Search clones positions by the thousand: nobody listens to a copy, so it pays nothing
    # for observations, and changing it leaves the original's kept vector as it was.
    observer = RapaNuiObserver(game) if isinstance(game, RapaNuiGame) else PositanoObserver(game)
    state = game.new_initial_state(random.Random(0))
    observer.encode(state, 0)
    assert state._on is not None
    dup = make(state)
    assert dup._on is None
    kept = observer.encode(state, 0)
    while not dup.is_terminal():
        dup.apply_action(dup.legal_actions()[0]) if dup.current_player() >= 0 else \
            dup.apply_joint_action([dup.legal_actions(q)[0] for q in range(game.num_players)])
    np.testing.assert_array_equal(observer.encode(state, 0), kept)
    np.testing.assert_array_equal(observer.encode(dup, 0), _fresh(observer, dup, 0))


@pytest.mark.parametrize("game", [RapaNuiGame(num_players=2), PositanoGame(num_players=2)])
def test_an_observer_keeps_its_vectors_itself_and_drops_them_with_the_state(game):
    # core/events.py: a listener keeps its data, not the engine. Observing adds nothing to the
    # state but its listener, and nothing to the game; the kept vector goes with the state.
    observer = RapaNuiObserver(game) if isinstance(game, RapaNuiGame) else PositanoObserver(game)
    game_attrs = set(vars(game))
    states = [game.new_initial_state(random.Random(seed)) for seed in range(5)]
    attrs = set(vars(states[0]))
    kept = observer._kept  # the observer's own store (shared by every Positano observer)
    start = len(kept)
    for state in states:
        observer.encode(state, 1)
    assert set(vars(states[0])) == attrs | {"_on"} and set(vars(game)) == game_attrs
    assert len(kept) == start + 5
    del state
    states.pop()
    gc.collect()
    assert len(kept) == start + 4
    # A new state gets a fresh vector, though it may reuse the id of the one that went.
    fresh = game.new_initial_state(random.Random(4))
    np.testing.assert_array_equal(observer.encode(fresh, 1), _fresh(observer, fresh, 1))
