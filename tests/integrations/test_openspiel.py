"""Both games as OpenSpiel games (tabletop_gym.integrations.openspiel, docs/libraries.md).

OpenSpiel's own conformance test (``pyspiel.random_sim_test``, with serialization) on every
configuration of the registry; the chance model against the engine's deal; the JSON
serialization; the information hygiene of the strings and tensors OpenSpiel hands each seat;
bad input; and OpenSpiel's transforms, bots and an algorithm running on the games.
"""

from __future__ import annotations

import json
import pathlib
import random

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import ismcts, mcts, outcome_sampling_mccfr as os_mccfr
from open_spiel.python.observation import make_observation

from tabletop_gym.core.game import (
    SIMULTANEOUS,
    TERMINAL,
    ConfigError,
    Game,
    GameConfig,
    IllegalActionError,
    State,
    StateFormatError,
)
from tabletop_gym.core.turn_based import TurnBasedGame
from tabletop_gym.integrations.openspiel import (
    HeuristicBot,
    TabletopState,
    _turn_based_actions,
    deal_draws,
    league_alpharank,
    load_record,
    openspiel_name,
    to_record,
)
from tabletop_gym.registry import game_spec, game_specs

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _params(game: str) -> dict:
    return dict(pyspiel.load_game(openspiel_name(game)).get_type().parameter_specification)


def _configs() -> list[tuple[str, dict]]:
    """Every registry test configuration, and the turn-based transforms where a game has them."""
    out = []
    for spec in game_specs():
        for _, cfg in spec.test_configs:
            out.append((spec.name, dict(cfg)))
        if "transform" in _params(spec.name):
            for transform in ("turn_based", "turn_based_split"):
                out.append((spec.name, {"num_players": 3, "transform": transform}))
    return out


CONFIGS = _configs()


def _id(item) -> str:
    game, cfg = item
    return game + "-" + "-".join(f"{k}{v}" for k, v in cfg.items())


def _load(game: str, **params):
    return pyspiel.load_game(openspiel_name(game), params)


def _play_random(state, rng: np.random.Generator, steps: int):
    """Play ``steps`` decisions (and every chance node on the way) at random."""
    done = 0
    while not state.is_terminal() and (done < steps or state.is_chance_node()):
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.integers(len(outcomes))][0])
            continue
        if state.is_simultaneous_node():
            joint = []
            for p in range(state.num_players()):
                legal = state.legal_actions(p)
                joint.append(int(legal[rng.integers(len(legal))]) if legal else 0)
            state.apply_actions(joint)
        else:
            legal = state.legal_actions()
            state.apply_action(int(legal[rng.integers(len(legal))]))
        done += 1
    return state


def _mid_game_states(game, n: int, seed: int) -> list:
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        state = _play_random(game.new_initial_state(), rng, int(rng.integers(1, 60)))
        if not state.is_terminal():
            out.append(state)
    return out


def _views(state, p: int) -> tuple:
    return (state.information_state_string(p), state.information_state_tensor(p),
            state.observation_string(p), state.observation_tensor(p))


# --- OpenSpiel's own conformance test ----------------------------------------------------------


@pytest.mark.parametrize("item", CONFIGS, ids=_id)
def test_random_sim_test_with_serialization_on_every_configuration(item):
    game, cfg = item
    # Clones, the serialization round trip, legal-action masks, chance outcomes, observation
    # and information-state sizes, returns within the utilities, the game length bound.
    pyspiel.random_sim_test(_load(game, **cfg), num_sims=1, serialize=True, verbose=False)


def test_game_facts_follow_the_configuration():
    # 2 seats, win_loss: +1/-1 or 0/0 on a shared win, so zero-sum (core.game.compute_returns).
    g = _load("rapa_nui", num_players=2)
    assert g.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    assert (g.min_utility(), g.max_utility(), g.utility_sum()) == (-1.0, 1.0, 0.0)
    # 3 seats, win_loss: one winner gives +1 -1 -1 (sum -1), two give +1 +1 -1 (sum 1).
    g = _load("rapa_nui", num_players=3)
    assert g.get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM
    assert g.utility_sum() is None
    # score_diff: own score minus the mean of the others' sums to zero for any count.
    g = _load("rapa_nui", num_players=3, reward_type="score_diff")
    assert g.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    # The bid is OpenSpiel's simultaneous node; the transform makes it turns.
    assert _load("positano", num_players=3).get_type().dynamics == \
        pyspiel.GameType.Dynamics.SIMULTANEOUS
    assert _load("positano", num_players=3, transform="turn_based").get_type().dynamics == \
        pyspiel.GameType.Dynamics.SEQUENTIAL
    assert _load("rapa_nui").get_type().dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    for game, cfg in CONFIGS:
        g = _load(game, **cfg)
        assert g.max_game_length() == g.engine.max_game_length
        assert (g.min_utility(), g.max_utility()) == g.engine.return_bounds()
        assert g.num_distinct_actions() == g.engine.num_distinct_actions


def test_parameters_are_the_config_fields_and_the_transform():
    assert _params("rapa_nui") == {
        "num_players": 2, "reward_type": "win_loss", "allow_voluntary_moai_discard": False,
        "active_supply_offering_optional": False, "moai_choice": "per_unit",
        "offering_supply_limited": True, "zero_count_kind_value": "zero",
        "hunter_gatherer_majority_bonus": True,
    }
    assert _params("positano") == {
        "num_players": 2, "reward_type": "win_loss", "board_size": 0, "goals": "",
        "solo_goal_set": 0, "transform": "none",
    }
    # A solo goal set, fixed goals (a comma-separated list) and the board size reach the engine.
    assert _load("positano", num_players=1, solo_goal_set=3).engine.config.solo_goal_set == 3
    g = _load("positano", num_players=4, board_size=5, goals="centro, grande,altezza")
    assert g.engine.config.goals == ("centro", "grande", "altezza")
    assert g.engine.config.size == 5


# --- chance --------------------------------------------------------------------------------


@pytest.mark.parametrize("game,cfg", [("rapa_nui", {"num_players": 3}),
                                      ("positano", {"num_players": 2}),
                                      ("positano", {"num_players": 1})])
def test_chance_nodes_deal_exactly_the_engines_game(game, cfg):
    g = _load(game, **cfg)
    for seed in range(3):
        expected = g.engine.new_initial_state(random.Random(seed))
        state = g.new_initial_state()
        for outcome in deal_draws(g.engine, seed):
            assert state.is_chance_node()
            outcomes = state.chance_outcomes()
            # Each draw: n equally likely outcomes 0..n-1, n within max_chance_outcomes.
            n = len(outcomes)
            assert [a for a, _ in outcomes] == list(range(n))
            assert all(p == pytest.approx(1.0 / n) for _, p in outcomes)
            assert 2 <= n <= g.max_chance_outcomes()
            state.apply_action(outcome)
        assert not state.is_chance_node()
        assert state.engine_state == expected


def test_the_chance_node_of_a_goal_side_is_a_fair_coin():
    # Positano deals 3 goal cards and shows each on a random side (docs/rules/positano.md §2.8):
    # each side is a chance node of 2 outcomes. Turning every 2-outcome draw over (the sides,
    # and the last swap of each shuffle) shows each of the same 3 cards on its other side.
    g = _load("positano", num_players=2)
    draws = deal_draws(g.engine, 0)
    dealt = []
    for flip in (False, True):
        state = g.new_initial_state()
        for a in draws:
            two = len(state.chance_outcomes()) == 2
            state.apply_action(1 - a if flip and two else a)
        dealt.append(state.engine_state.goals)
    for first, second in zip(*dealt, strict=True):
        assert first != second
        assert (first, second) in g.engine.goal_cards or (second, first) in g.engine.goal_cards


def test_a_game_record_becomes_an_openspiel_history():
    env = game_spec("positano").envs().env(num_players=3)
    env.reset(seed=5)
    rng = np.random.default_rng(0)
    while not all(env.terminations.values()):
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
    record = env.unwrapped.record()
    state = load_record(record)
    assert state.is_terminal()
    assert state.engine_state.inner == record.replay().inner
    assert state.returns() == record.replay().returns()
    # The history: the deal's draws, then the record's actions.
    assert state.history() == deal_draws(state.get_game().engine, record.seed) + record.actions


def test_a_game_played_in_openspiel_becomes_a_game_record_and_back():
    g = _load("rapa_nui", num_players=3)
    state = g.new_initial_state()
    for outcome in deal_draws(g.engine, 42):
        state.apply_action(outcome)
    state = _play_random(state, np.random.default_rng(2), 10_000)
    record = to_record(state, 42)
    assert (record.game, record.seed, record.transform) == ("rapa_nui", 42, None)
    assert record.config == g.engine.config.to_dict()
    # The record replays to the same final position, and reads back to the same history.
    assert record.replay() == state.engine_state
    assert load_record(record).history() == state.history()
    with pytest.raises(ValueError, match="not the deal of seed 43"):
        to_record(state, 43)


@pytest.mark.parametrize("players", [1, 2, 3])
def test_a_game_played_at_native_simultaneous_bids_becomes_a_turn_based_record(players):
    g = _load("positano", num_players=players)
    assert g.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS
    state = g.new_initial_state()
    for outcome in deal_draws(g.engine, 7):
        state.apply_action(outcome)
    # The first bid by hand: OpenSpiel keeps a joint action as one entry per seat, and the
    # turn-based transform takes the same ids one seat after another in seat order. Solo bids
    # alone, after Otto (docs/rules/positano.md §7): a sequential node, one action.
    assert state.is_simultaneous_node() == (players > 1)
    first = [int(state.legal_actions(p)[-1]) for p in range(players)]
    if players > 1:
        state.apply_actions(first)
    else:
        state.apply_action(first[0])
    assert to_record(state, 7).actions == first
    state = _play_random(state, np.random.default_rng(players), 10_000)
    assert state.is_terminal()
    record = to_record(state, 7)
    assert (record.game, record.seed, record.transform) == ("positano", 7, "turn_based")
    assert record.config == g.engine.config.to_dict()
    replayed = record.replay()
    assert replayed.inner == state.engine_state
    assert replayed.returns() == state.returns()
    assert replayed.scores() == state.engine_state.scores()
    loaded = load_record(record)
    assert loaded.get_game().get_type().dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert loaded.is_terminal()
    assert loaded.engine_state.inner == state.engine_state
    assert loaded.returns() == state.returns()
    assert to_record(loaded, 7) == record
    with pytest.raises(ValueError, match="not the deal of seed 8"):
        to_record(state, 8)


class _SkipState(State):
    """Three seats bid 0-2 at once for two rounds; in round r seat r has no choice."""

    def __init__(self, game: Game, bids: tuple[tuple[int | None, ...], ...] = ()):
        self.game = game
        self.bids = bids

    def current_player(self) -> int:
        return SIMULTANEOUS if len(self.bids) < 2 else TERMINAL

    def phase(self) -> str:
        return "bid"

    def _legal_actions(self) -> list[int]:
        return []

    def _apply_action(self, action: int) -> None:
        raise AssertionError("no sequential node")

    def _legal_simultaneous(self, player: int) -> list[int]:
        return [] if player == len(self.bids) else [0, 1, 2]

    def _apply_joint_action(self, actions: list[int | None]) -> None:
        self.bids += (tuple(actions),)

    def action_to_string(self, action: int, player: int | None = None) -> str:
        return f"bid {action}"

    def scores(self) -> list[float]:
        return [float(sum(r[p] or 0 for r in self.bids)) for p in range(3)]

    def score_breakdown(self) -> list[dict]:
        return [{"total": x} for x in self.scores()]

    def winners(self) -> list[int]:
        return []

    def clone(self) -> _SkipState:
        return _SkipState(self.game, self.bids)

    def to_dict(self) -> dict:
        return {"bids": [list(r) for r in self.bids]}


class _SkipGame(Game):
    name = "skip"
    config_class = GameConfig
    phases = ("bid",)
    num_distinct_actions = 3
    max_game_length = 2
    score_bounds = (0.0, 4.0)

    def __init__(self):
        super().__init__(GameConfig(num_players=3))

    def new_initial_state(self, rng: random.Random) -> _SkipState:
        return _SkipState(self)

    def _state_from_dict(self, data: dict) -> _SkipState:
        raise NotImplementedError


def test_a_seat_without_a_choice_is_left_out_of_the_turn_based_actions():
    game = _SkipGame()
    # OpenSpiel's history of two joint actions, with -1 sent for the seat without a choice
    # (seat 0 in the first, seat 1 in the second).
    moves = [(0, -1), (1, 2), (2, 0), (0, 1), (1, -1), (2, 2)]
    actions = _turn_based_actions(game, [], moves)
    assert actions == [2, 0, 1, 2]
    # The turn-based transform takes exactly these, seat by seat, to the same end.
    state = TurnBasedGame(game).new_initial_state(random.Random(0))
    for a in actions:
        assert state.current_player() >= 0
        state.apply_action(a)
    assert state.is_terminal()
    assert state.inner.bids == ((None, 2, 0), (1, None, 2))
    assert state.scores() == [1.0, 2.0, 2.0]


def test_a_native_game_mid_bid_free_play_becomes_the_turn_based_record_of_that_point():
    g = _load("positano", num_players=2)
    state = g.new_initial_state()
    for outcome in deal_draws(g.engine, 3):
        state.apply_action(outcome)
    state = _play_random(state, np.random.default_rng(0), 25)
    assert not state.is_terminal()
    record = to_record(state, 3)
    assert record.replay().inner == state.engine_state
    assert load_record(record).engine_state.inner == state.engine_state
    # Still dealing: no action yet, so an empty record of the turn-based game.
    dealing = g.new_initial_state()
    dealing.apply_action(deal_draws(g.engine, 3)[0])
    assert to_record(dealing, 3).actions == []


# --- serialization --------------------------------------------------------------------------


@pytest.mark.parametrize("game,cfg", [("rapa_nui", {"num_players": 3}),
                                      ("positano", {"num_players": 3}),
                                      ("positano", {"num_players": 2, "transform": "turn_based"})])
def test_json_serialization_round_trips_at_every_kind_of_node(game, cfg):
    g = _load(game, **cfg)
    rng = np.random.default_rng(1)
    state = g.new_initial_state()
    for _ in range(5):
        state.apply_action(state.chance_outcomes()[0][0])  # mid-deal
    points = [state.clone()]
    for steps in (0, 7, 30, 10_000):
        points.append(_play_random(state.clone(), rng, steps))
    assert points[-1].is_terminal()
    for st in points:
        text = st.serialize()
        doc = json.loads(text)
        assert doc["format"] == "tabletop_gym.openspiel/1"
        # The engine's own JSON state document (None while dealing).
        if st.engine_state is None:
            assert doc["state"] is None
        else:
            assert doc["state"] == json.loads(st.engine_state.to_json())
        back = g.deserialize_state(text)
        assert isinstance(back, TabletopState)
        assert str(back) == str(st)
        assert back.history() == st.history() and back.move_number() == st.move_number()
        if not st.is_chance_node():
            for p in range(g.num_players()):
                assert _views(back, p) == _views(st, p)
        # Both play on alike.
        a = _play_random(st.clone(), np.random.default_rng(9), 10_000)
        b = _play_random(back, np.random.default_rng(9), 10_000)
        assert a.returns() == b.returns() and a.history() == b.history()


def test_openspiel_serialization_reads_back_too():
    g = _load("rapa_nui", num_players=2)
    state = _play_random(g.new_initial_state(), np.random.default_rng(3), 20)
    game2, back = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(g, state))
    assert str(game2) == str(g) and str(back) == str(state)
    assert g.deserialize_state(pyspiel.serialize_game_and_state(g, state).split(
        "[State]\n", 1)[1]).history() == state.history()


# --- information -------------------------------------------------------------------------------


def _parse_observation(game, text: str) -> np.ndarray:
    """The vector an observation string lists (every slice not named is all zeros)."""
    layout = game.observer.layout
    out = np.zeros(layout.size, np.float32)
    lines = text.split("\n")
    assert lines[0].startswith("seat ")
    for line in lines[1:]:
        name, values = line.split(": ")
        s = layout[name]
        out[s.start:s.stop] = [float(v) for v in values.split()]
    return out


@pytest.mark.parametrize("game,cfg", [("rapa_nui", {"num_players": 2}),
                                      ("positano", {"num_players": 4}),
                                      ("positano", {"num_players": 3, "transform": "turn_based"})])
def test_each_string_determines_its_tensor(game, cfg):
    # The observation string lists the tensor's slices (so equal strings mean equal tensors);
    # the information-state string ends with it, and its tensor is the observation's.
    g = _load(game, **cfg)
    for state in _mid_game_states(g, 6, seed=2):
        for p in range(g.num_players()):
            obs = state.observation_string(p)
            np.testing.assert_array_equal(_parse_observation(g, obs),
                                          np.asarray(state.observation_tensor(p), np.float32))
            info = state.information_state_string(p)
            assert info.startswith(f"seat {p}\n") and info.endswith(obs.split("\n", 1)[1])
            assert state.information_state_tensor(p) == state.observation_tensor(p)


def test_named_slices_of_an_observer_are_the_declared_layout():
    g = _load("positano", num_players=2)
    state = _mid_game_states(g, 1, seed=4)[0]
    obs = make_observation(g, pyspiel.IIGObservationType(perfect_recall=False), {"slices": True})
    obs.set_from(state, 1)
    layout = g.observer.layout
    assert list(obs.dict) == list(layout.slices)
    assert obs.dict["cliff_owner"].shape == layout["cliff_owner"].shape
    np.testing.assert_array_equal(obs.tensor, state.observation_tensor(1))


NO_LEAK = [("rapa_nui", {"num_players": 2}), ("rapa_nui", {"num_players": 4}),
           ("positano", {"num_players": 1}), ("positano", {"num_players": 3}),
           ("positano", {"num_players": 3, "transform": "turn_based"})]


@pytest.mark.parametrize("game,cfg", NO_LEAK)
def test_resampling_what_a_seat_cannot_see_changes_nothing_it_is_handed(game, cfg):
    g = _load(game, **cfg)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    changed = checked = 0
    for state in _mid_game_states(g, 10, seed=7):
        for p in range(g.num_players()):
            seen = _views(state, p)
            for _ in range(2):
                other = state.resample_from_infostate(p, sampler)
                assert _views(other, p) == seen
                assert other.current_player() == state.current_player()
                assert other.legal_actions(p) == state.legal_actions(p)
                changed += other.engine_state.to_dict() != state.engine_state.to_dict()
                checked += 1
    # The resampler really moves hidden things (else the test proves nothing); in solo only
    # the stacks' order is hidden.
    assert changed > checked // 4


def test_resampling_during_the_deal_redraws_the_draws_made_so_far():
    # Nobody sees a draw while the deal runs: a resampled state has as many draws, each within
    # its chance node, and goes on dealing; over a few samples the draws differ.
    g = _load("positano", num_players=2)
    state = g.new_initial_state()
    for _ in range(10):
        state.apply_action(state.chance_outcomes()[-1][0])
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    seen = set()
    for _ in range(5):
        other = state.resample_from_infostate(0, sampler)
        assert other.is_chance_node() and len(other.history()) == 10
        assert other.chance_outcomes() == state.chance_outcomes()
        seen.add(json.dumps(json.loads(other.serialize())["draws"]))
        while other.is_chance_node():
            other.apply_action(other.chance_outcomes()[0][0])
        assert other.is_simultaneous_node()  # the first bid (docs/rules/positano.md §3.1)
    assert len(seen) > 1


@pytest.mark.parametrize("game,cfg", [("rapa_nui", {"num_players": 3}),
                                      ("positano", {"num_players": 3, "transform": "turn_based"})])
def test_actions_a_seat_cannot_tell_apart_leave_it_the_same_information(game, cfg):
    # A face-down offering (docs/rules/rapa_nui.md §3.1) or a sealed bid in turns
    # (docs/rules/positano.md §3.1): the seats that do not see it are handed the same strings
    # and tensors whichever was chosen.
    g = _load(game, **cfg)
    rng = np.random.default_rng(11)
    checked = 0
    for _ in range(10):
        state = _play_random(g.new_initial_state(), rng, 0)
        while not state.is_terminal():
            actor = state.current_player()
            engine = state.engine_state
            legal = state.legal_actions()
            for q in range(g.num_players()):
                if q == actor:
                    continue
                by_view: dict[str, list[int]] = {}
                for a in legal:
                    by_view.setdefault(engine.public_action_string(a, q, actor), []).append(a)
                for same in by_view.values():
                    if len(same) < 2:
                        continue
                    views = []
                    for a in same[:3]:
                        child = state.clone()
                        child.apply_action(a)
                        # The last sealed bid reveals them all (docs/rules/positano.md §3.1).
                        if not getattr(child.engine_state, "is_bid_round", lambda: True)():
                            break
                        views.append((child.information_state_string(q),
                                      child.information_state_tensor(q)))
                    assert all(v == views[0] for v in views[1:])
                    checked += len(views) > 1
            state.apply_action(int(rng.choice(legal)))
    assert checked >= 10


# --- bad input ----------------------------------------------------------------------------------


def test_a_value_out_of_range_names_what_is_allowed():
    with pytest.raises(ConfigError, match=r"num_players=9 is out of range; allowed: 1\.\.6"):
        _load("positano", num_players=9)
    with pytest.raises(ConfigError, match=r"choose one of \('per_unit', 'all_same'\)"):
        _load("rapa_nui", moai_choice="sometimes")
    with pytest.raises(ConfigError, match=r"transform='flat' is not allowed; choose one of "
                                          r"\['none', 'turn_based', 'turn_based_split'\]"):
        _load("positano", transform="flat")
    with pytest.raises(ConfigError, match="unknown goal 'nope'"):
        _load("positano", goals="nope,grande,altezza")


def test_an_unknown_parameter_names_the_available_ones():
    # OpenSpiel's own check, against the parameters the game declares.
    with pytest.raises(pyspiel.SpielError, match=r"Unknown parameter 'players'\. Available "
                                                 r"parameters are: .*num_players"):
        pyspiel.load_game("python_rapa_nui(players=3)")
    # Rapa Nui has no simultaneous node, so no transform.
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter 'transform'"):
        _load("rapa_nui", transform="turn_based")


@pytest.mark.parametrize("mutate,message", [
    (lambda d: "{not json", "is not valid JSON"),
    (lambda d: {**d, "extra": 1}, r"unknown key\(s\) \['extra'\]; allowed: \['format'"),
    (lambda d: {**d, "format": "x"}, "expected 'tabletop_gym.openspiel/1'"),
    (lambda d: {**d, "draws": [*d["draws"][:-1], 999]}, "must be the chance outcomes"),
    (lambda d: {**d, "history": [[-1, 999], *d["history"][1:]],
                "draws": [999, *d["draws"][1:]]}, r"chance draw 0 is 999; it must be in 0\.\.\d+"),
    (lambda d: {**d, "state": None}, "the draws complete the deal, so 'state' must be given"),
    (lambda d: {**d, "record": [[0, ["only one"]]]}, r"must be \[actor, \[2 strings"),
    (lambda d: {**d, "move_number": -1}, "'move_number' must be a non-negative integer"),
])
def test_a_malformed_serialized_state_is_a_clear_error(mutate, message):
    g = _load("rapa_nui", num_players=2)
    state = _play_random(g.new_initial_state(), np.random.default_rng(0), 3)
    doc = json.loads(state.serialize())
    bad = mutate(doc)
    with pytest.raises(StateFormatError, match=message):
        g.deserialize_state(bad if isinstance(bad, str) else json.dumps(bad))


def test_an_illegal_action_is_refused_and_changes_nothing():
    g = _load("rapa_nui", num_players=2)
    state = g.new_initial_state()
    with pytest.raises(ValueError, match=r"chance outcome 9999 is not one of the \d+ outcomes"):
        state.apply_action(9999)
    state = _play_random(state, np.random.default_rng(0), 2)
    before = state.serialize()
    illegal = next(a for a in range(g.num_distinct_actions()) if a not in state.legal_actions())
    with pytest.raises(IllegalActionError, match="illegal action"):
        state.apply_action(illegal)
    assert state.serialize() == before


# --- OpenSpiel's transforms, bots and algorithms --------------------------------------------------


def test_convert_to_turn_based_hides_earlier_bids_from_later_bidders():
    tb = pyspiel.convert_to_turn_based(_load("positano", num_players=3))
    pyspiel.random_sim_test(tb, num_sims=1, serialize=False, verbose=False)
    state = tb.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    assert state.current_player() == 0  # the bid, rolled out in seat order
    views = set()
    for bid in state.legal_actions()[:4]:
        child = state.clone()
        child.apply_action(bid)
        assert child.current_player() == 1
        views.add((child.information_state_string(1), tuple(child.information_state_tensor(1)),
                   child.observation_string(2)))
    assert len(views) == 1


def test_ismcts_and_the_heuristic_play_through_evaluate_bots():
    for game, cfg in (("rapa_nui", {"num_players": 2}),
                      ("positano", {"num_players": 2, "transform": "turn_based"})):
        g = _load(game, **cfg)
        rs = np.random.RandomState(0)
        bot = ismcts.ISMCTSBot(g, mcts.RandomRolloutEvaluator(1, rs), uct_c=2.0,
                               max_simulations=2, random_state=rs)
        returns = pyspiel.evaluate_bots(g.new_initial_state(), [bot, HeuristicBot(g, 1, 0)], 0)
        # win_loss for two seats: a winner and a loser, or a shared win.
        assert sorted(returns) in ([-1.0, 1.0], [0.0, 0.0])


def test_the_heuristic_bot_bids_at_the_simultaneous_node():
    g = _load("positano", num_players=3)
    bots = [HeuristicBot(g, p, seed=p) for p in range(3)]
    returns = pyspiel.evaluate_bots(g.new_initial_state(), bots, 3)
    assert sorted(returns) in ([-1.0, -1.0, 1.0], [-1.0, 1.0, 1.0], [0.0, 0.0, 0.0])


def test_outcome_sampling_mccfr_learns_for_a_few_iterations():
    # OpenSpiel's outcome-sampling MCCFR keys its regrets by information-state strings.
    g = _load("positano", num_players=1, transform="turn_based")
    solver = os_mccfr.OutcomeSamplingSolver(g)
    for _ in range(3):
        solver.iteration()
    policy = solver.average_policy()
    state = _play_random(g.new_initial_state(), np.random.default_rng(0), 0)
    probs = policy.action_probabilities(state)
    assert set(probs) == set(state.legal_actions())
    assert sum(probs.values()) == pytest.approx(1.0)
    assert len(solver._infostates) >= 3


@pytest.mark.parametrize("league,top", [("rapa_nui-2p", "search:jax-ppo?worlds=16&z=2"),
                                        ("positano-2p", "search:heuristic-net-v3?worlds=28")])
def test_alpharank_of_a_league_puts_its_mass_on_the_agent_that_beats_all_others(league, top):
    # In each league one agent wins more than half its games against every other (its row of
    # the win-rate matrix is above 0.5 throughout), so every mutant invading it is driven out
    # and α-Rank's stationary distribution sits on it. In both it is the game's search:best; on
    # Positano its narrowest edge is over ismcts:12:guided, 0.67 [0.60, 0.73].
    result = json.loads((ROOT / "benchmarks" / "leagues" / f"{league}.json").read_text())["result"]
    row = result["matrix"][result["agents"].index(top)]
    assert all(x > 0.5 for i, x in enumerate(row) if i != result["agents"].index(top))
    mass = league_alpharank(result)
    assert set(mass) == set(result["agents"])
    assert mass[top] > 0.99
    assert sum(mass.values()) == pytest.approx(1.0)


def test_alpharank_refuses_a_result_without_a_square_matrix():
    with pytest.raises(ValueError, match=r"square 'matrix' over its 'agents'; got 2 agents"):
        league_alpharank({"agents": ["a", "b"], "matrix": [[0.5]]})


def test_openspiel_structs_of_a_state_an_observation_and_an_action():
    g = _load("rapa_nui", num_players=2)
    state = _play_random(g.new_initial_state(), np.random.default_rng(0), 4)
    full = json.loads(state.to_struct().to_json())
    assert full["state"] == json.loads(state.engine_state.to_json())["state"]
    seat = state.current_player()
    seen = json.loads(state.to_observation_struct(seat).to_json())
    assert seen["legal_actions"] == state.legal_actions()
    assert set(seen["observation"]) == set(g.observer.layout.slices)
    a = state.legal_actions()[0]
    act = json.loads(state.action_to_struct(seat, a).to_json())
    assert act == {"action": a, "text": state.action_to_string(seat, a)}
