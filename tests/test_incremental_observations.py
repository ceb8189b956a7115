"""Kept observations follow the engine's change log in every configuration.

Each observer keeps one shared vector of every observable fact on the state and rewrites only the
fact groups the engine logged (``State.change_log``); a seat's observation is gathered from it.
At every step of random games the kept vector
must equal the encoding of a clone (a clone starts an empty log and encodes everything), for
every seat, in every configuration of ``tests/configs.py`` (and split bids).
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from tabletop_gym.envs.positano.observer import PositanoObserver
from tabletop_gym.envs.positano.rules import CH_CLIFF, PositanoGame
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
    # sums of the column's heights and roofs (the key of the former cache); the change log names
    # the column, so the kept vector follows (docs/rules/positano.md §5.1: the sea view of the
    # lot behind changes).
    game = PositanoGame(num_players=2)
    state = game.new_initial_state(random.Random(0))
    observer = PositanoObserver(game)
    # Column A: a 2-block Bronze building at 1A (pos 0), a 2-block Silver one at 2A (pos 5).
    state._set_building(0, 0, 2, 1)
    state._set_building(5, 1, 2, 2)
    kept = observer.encode(state, 0)
    np.testing.assert_array_equal(kept, _fresh(observer, state, 0))
    log_size = len(state.change_log())
    state._set_building(0, 0, 1, 2)  # 1A: one block lower, Silver now (sums unchanged)
    assert state.change_log()[log_size:] == [CH_CLIFF << 0]
    after = observer.encode(state, 0)
    np.testing.assert_array_equal(after, _fresh(observer, state, 0))
    o = observer.layout["cliff_visible"].start
    # 2A stands on level 2 behind 1A: a 1-block front building hides nothing of it now.
    assert (kept[o], kept[o + 5]) == (2, 1)
    assert (after[o], after[o + 5]) == (1, 2)
    state._set_building(5, -1, 0, 0)  # and a building removed altogether
    np.testing.assert_array_equal(observer.encode(state, 1), _fresh(observer, state, 1))


def test_every_rapa_nui_action_is_logged_before_the_observer_reads_it():
    # The observer reads nothing the log did not name: after each action the log grew, and
    # the kept vectors of both seats equal a fresh encoding (hidden hands included).
    game = RapaNuiGame(num_players=2)
    state = game.new_initial_state(random.Random(3))
    observer = RapaNuiObserver(game)
    rng = random.Random(3)
    while not state.is_terminal():
        size = len(state.change_log())
        state.apply_action(rng.choice(state.legal_actions()))
        assert len(state.change_log()) > size
        for seat in (0, 1):
            np.testing.assert_array_equal(
                observer.encode(state, seat), _fresh(observer, state, seat)
            )


def test_a_clone_starts_its_own_log_and_shares_no_kept_vector():
    game = RapaNuiGame(num_players=2)
    state = game.new_initial_state(random.Random(0))
    observer = RapaNuiObserver(game)
    observer.encode(state, 0)
    state.apply_action(state.legal_actions()[0])
    copy = state.clone()
    assert copy.change_log() == [] and len(state.change_log()) == 1
    assert "_kept_observations" not in copy.__dict__
