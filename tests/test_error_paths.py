"""Error paths: bad input gets a clear error and changes nothing; no input crashes an env.

Each test reproduces one finding of the error-path audit (a hostile or careless caller) and pins
the fixed behaviour: atomic resets and steps, read-only masks, the final reward of a finished
start state, strict loaders with :class:`StateFormatError`, integer actions in any integer form,
faulty opponents, and guards that survive ``python -O``.
"""

from __future__ import annotations

import ast
import json
import random
import subprocess
import sys

import gymnasium
import numpy as np
import pytest

import tabletop_gym  # noqa: F401 - registers the ids
from tabletop_gym.core.game import ConfigError, StateFormatError
from tabletop_gym.core.records import GameRecord
from tabletop_gym.core.turn_based import TurnBasedGame
from tabletop_gym.envs import positano_v0, rapa_nui_v0
from tabletop_gym.envs.positano.rules import PositanoGame
from tabletop_gym.envs.rapa_nui.rules import RapaNuiGame
from tests.snapshots import aec_snapshot


def _first_legal(env, agent=None) -> int:
    agent = agent or env.agent_selection
    return int(np.flatnonzero(env.observe(agent)["action_mask"])[0])


def _finished_state(env, seed: int):
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            break
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return env.unwrapped.game_state


# --- 1. atomic reset ----------------------------------------------------------------------------

BAD_RESETS = [
    ({"state": "x"}, StateFormatError),
    ({"state": "{}"}, StateFormatError),
    ({"state": 42}, StateFormatError),
    ({"seat_permutation": [0, 0]}, ValueError),
    ({"seat_permutation": [0.2, 1.7]}, ValueError),
    ({"seat_permutation": [True, False]}, ValueError),
    ({"seat_permutation": "shuffle"}, ValueError),
    ({"seat_permutation": [1, 0], "state": "x"}, StateFormatError),
    ({"seat_perm": [1, 0]}, ValueError),
    ([1], TypeError),
]


@pytest.mark.parametrize(("options", "error"), BAD_RESETS, ids=repr)
@pytest.mark.parametrize("seed", [None, 99])
def test_a_failed_reset_leaves_the_env_exactly_as_it_was(options, error, seed):
    # Issue #9 finding 1: seats, engine seed and random stream were replaced before the options
    # were checked, so player_0 went on to observe seat 0's hand with seats swapped.
    env = rapa_nui_v0.env(num_players=2)
    env.reset(seed=7, options={"seat_permutation": [1, 0]})
    env.step(_first_legal(env))
    before = aec_snapshot(env)
    with pytest.raises(error):
        env.reset(seed=seed, options=options)
    assert aec_snapshot(env) == before
    # The random stream is untouched too: the next reset deals what it would have dealt.
    twin = rapa_nui_v0.env(num_players=2)
    twin.reset(seed=7, options={"seat_permutation": [1, 0]})
    twin.step(_first_legal(twin))
    env.reset()
    twin.reset()
    assert env.unwrapped.record().seed == twin.unwrapped.record().seed


def test_reset_rejects_unknown_options_naming_the_allowed_ones():
    # Issue #9 finding 6: unknown reset options were silently ignored.
    env = rapa_nui_v0.env(num_players=2)
    with pytest.raises(ValueError, match=r"seat_perm.*seat_permutation"):
        env.reset(options={"seat_perm": [1, 0]})
    par = positano_v0.parallel_env(num_players=2)
    with pytest.raises(ValueError, match="'bogus'"):
        par.reset(options={"bogus": 1})
    with pytest.raises(TypeError, match="options must be a dict"):
        par.reset(options=[1])


def test_reset_accepts_a_state_as_json_text_or_dict():
    # Issue #9 finding 6: a JSON text or dict in options["state"] raised AttributeError.
    game = RapaNuiGame(num_players=2)
    state = game.new_initial_state(random.Random(3))
    for given in (state.to_json(), json.loads(state.to_json())):
        env = rapa_nui_v0.env(num_players=2)
        env.reset(options={"state": given})
        assert env.unwrapped.game_state.to_json() == state.to_json()


def test_a_state_of_another_config_is_a_state_format_error():
    env = rapa_nui_v0.env(num_players=2)
    other = RapaNuiGame(num_players=3).new_initial_state(random.Random(0))
    with pytest.raises(StateFormatError, match="config"):
        env.reset(options={"state": other})
    with pytest.raises(StateFormatError, match="config"):
        env.reset(options={"state": other.to_json()})


def test_a_failed_step_changes_nothing():
    # Validate first, then change: an out-of-space or illegal action under "raise" leaves
    # every agent's last() as it was.
    env = rapa_nui_v0.env(num_players=2, illegal_action="raise")
    env.reset(seed=2)
    before = aec_snapshot(env)
    illegal = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"] == 0)[0])
    for bad in (illegal, -1, 10**6, 2.0, True, None, "3", np.array([1, 2])):
        with pytest.raises(ValueError):
            env.step(bad)
        assert aec_snapshot(env) == before


# --- 2. read-only masks ---------------------------------------------------------------------------


def test_the_info_mask_cannot_be_written_into():
    # Issue #9 finding 2: info["action_mask"] was the env's own buffer; writing a 1 into it made
    # an illegal action look legal to observe()/last().
    env = positano_v0.env(num_players=2)
    env.reset(seed=0)
    agent = env.agent_selection
    mask = env.unwrapped.infos[agent]["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(ValueError, match="read-only"):
        mask[illegal] = 1
    assert env.observe(agent)["action_mask"][illegal] == 0
    # observe() hands out the caller's own copy: writing into it changes nothing in the env.
    obs = env.observe(agent)["action_mask"]
    obs[illegal] = 1
    assert env.observe(agent)["action_mask"][illegal] == 0
    assert env.unwrapped.infos[agent]["action_mask"][illegal] == 0


# --- 3. final reward of a finished start state ------------------------------------------------------


@pytest.mark.parametrize("make", [lambda: rapa_nui_v0.env(num_players=2),
                                  lambda: positano_v0.env(num_players=3)], ids=["rn", "pos"])
def test_a_finished_start_state_delivers_the_final_rewards_through_last(make):
    # Issue #9 finding 3: every agent was terminated but last() returned 0.0.
    finished = _finished_state(make(), seed=5)
    env = make()
    env.reset(options={"state": finished})
    returns = finished.returns()
    assert sorted(returns) != [0.0] * len(returns) or len(set(returns)) == 1
    for agent in env.agent_iter():
        _, reward, term, _, _ = env.last()
        assert term
        assert reward == returns[env.unwrapped.seat_of(agent)]
        env.step(None)
    assert env.agents == []


# --- 4. strict Positano AEC JSON loader ---------------------------------------------------------


def _bid_document(num_players: int = 3, split: bool = False) -> tuple[TurnBasedGame, dict]:
    game = TurnBasedGame(PositanoGame(num_players=num_players), split=split)
    state = game.new_initial_state(random.Random(4))
    return game, json.loads(state.to_json())


def _legal_bid(game: TurnBasedGame, doc: dict, seat: int) -> int:
    inner = game.inner.state_from_json({**doc, "state": doc["state"]["inner"]})
    return inner.legal_actions(seat)[0]


def test_positano_turn_based_loader_accepts_a_valid_pending_bid():
    game, doc = _bid_document()
    doc["state"]["pending"] = [_legal_bid(game, doc, 0), None, None]
    state = game.state_from_json(doc)
    assert state.current_player() == 1 and state.own_pending(0) == doc["state"]["pending"][0]


@pytest.mark.parametrize("pending", [[1.0, None, None], [True, None, None], ["0", None, None]])
def test_pending_bids_must_be_integers(pending):
    # Issue #9 finding 4: 1.0 and true were accepted as bids.
    game, doc = _bid_document()
    doc["state"]["pending"] = pending
    with pytest.raises(StateFormatError, match=r"pending\[0\]"):
        game.state_from_json(doc)


def test_pending_bids_for_every_seat_are_refused():
    # Issue #9 finding 4: accepted, then reset raised RuntimeError (the joint bid never ran).
    game, doc = _bid_document()
    doc["state"]["pending"] = [_legal_bid(game, doc, p) for p in range(3)]
    with pytest.raises(StateFormatError, match="every seat"):
        game.state_from_json(doc)


def test_pending_bids_out_of_seat_order_are_refused():
    # Issue #9 finding 4: bids are entered in seat order (turn-based transform), so seat 1
    # cannot have bid while seat 0 has not.
    game, doc = _bid_document()
    doc["state"]["pending"] = [None, _legal_bid(game, doc, 1), None]
    with pytest.raises(StateFormatError, match="seat order"):
        game.state_from_json(doc)


def test_a_prefix_outside_a_split_bid_is_refused():
    # Issue #9 finding 4: a prefix was replayed as real moves in any phase.
    game, doc = _bid_document()
    doc["state"]["prefix"] = [_legal_bid(game, doc, 0)]
    with pytest.raises(StateFormatError, match="prefix"):
        game.state_from_json(doc)
    # A draft_lot document with a legal lot in "prefix" must not load with the lot drafted.
    raw = positano_v0.raw_env(num_players=2)
    raw.reset(seed=0)
    while raw.game_state.phase() == "bid":
        raw.step(_first_legal(raw))
    state = raw.game_state
    assert state.phase() == "draft_lot"
    doc = json.loads(state.to_json())
    doc["state"]["prefix"] = [state.legal_actions()[0]]
    with pytest.raises(StateFormatError, match="prefix"):
        raw.game.state_from_json(doc)


def test_split_prefix_is_checked_and_must_not_complete_a_bid():
    game, doc = _bid_document(num_players=2, split=True)
    card = game.new_initial_state(random.Random(4)).legal_actions()[0]
    doc["state"]["prefix"] = [card]
    state = game.state_from_json(doc)
    assert state.prefix == [card] and state.current_player() == 0
    for prefix in ([card, 49], [1000], [card, card]):
        doc["state"]["prefix"] = prefix
        with pytest.raises(StateFormatError, match="prefix"):
            game.state_from_json(doc)


def test_unknown_keys_of_the_turn_based_state_are_refused():
    game, doc = _bid_document()
    doc["state"]["pendng"] = None
    with pytest.raises(StateFormatError, match="pendng"):
        game.state_from_json(doc)


# --- 5. crashes ------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 4])
def test_parallel_step_after_the_end_is_a_clear_error(n):
    # Issue #9 finding 5: IndexError (2p) or KeyError (4p).
    env = positano_v0.parallel_env(num_players=n)
    _, infos = env.reset(seed=1)
    rng = np.random.default_rng(1)
    while env.agents:
        acts = {a: int(rng.choice(np.flatnonzero(infos[a]["action_mask"]))) for a in env.agents}
        _, _, _, _, infos = env.step(acts)
    # Issue 39 item 12: step({}) after the end gives five empty dicts, as PettingZoo's own
    # parallel envs do; actions for agents that are gone are still refused.
    assert env.step({}) == ({}, {}, {}, {}, {})
    assert env.agents == [] and env.state_obj.is_terminal()
    with pytest.raises(RuntimeError, match=r"over.*step\(\{\}\).*reset"):
        env.step(dict.fromkeys(env.possible_agents, 0))


def _faulty(action):
    return lambda obs: action


class _FaultyParts:
    """An opponent handed the parts of its observation (``act_on``) that answers ``action``."""

    forced_moves_blind = True

    def __init__(self, action):
        self.action = action

    def act(self, observation):
        return self.action

    def act_on(self, vector, legal):
        return self.action


FAULTY = [_faulty, _FaultyParts]


@pytest.mark.parametrize("make", FAULTY, ids=["callable", "act_on"])
@pytest.mark.parametrize("bad", [44, 5.9, -3, None, "3"], ids=repr)
def test_a_faulty_opponent_loses_with_a_warning_naming_it(bad, make):
    # Issue #9 finding 5: the opponent's illegal move raised out of step() and left the
    # wrapper mid-turn, so the next step() played for the opponent.
    env = gymnasium.make("RapaNui-v0", opponents=make(bad)).unwrapped
    # The learner opens (seat 0) and plays its turn; the opponent answers with its faulty action.
    obs, info = env.reset(seed=0)
    terminated = False
    with pytest.warns(UserWarning, match=r"opponent player_1 \(seat 1.*loses"):
        while not terminated:
            action = int(np.flatnonzero(info["action_mask"])[0])
            obs, reward, terminated, truncated, info = env.step(action)
    assert not truncated
    assert reward == 0.0
    assert info["illegal_action"]["agent"] == "player_1"
    assert not info["action_mask"].any() and not env.action_masks().any()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(action)
    # The wrapper is usable again after a reset.
    env.set_opponents("random")
    obs, info = env.reset(seed=1)
    assert info["action_mask"].any()


@pytest.mark.parametrize("make", FAULTY, ids=["callable", "act_on"])
def test_a_faulty_opponent_before_the_learners_first_move_is_a_clear_error(make):
    env = gymnasium.make("RapaNui-v0", opponents=make(44), learner_seat=1).unwrapped
    with pytest.warns(UserWarning, match=r"opponent player_0"), \
            pytest.raises(RuntimeError, match=r"player_0.*before the learner"):
        env.reset(seed=0)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


@pytest.mark.parametrize("make", FAULTY, ids=["callable", "act_on"])
def test_a_faulty_opponent_under_raise_raises_and_ends_the_episode(make):
    env = gymnasium.make("RapaNui-v0", opponents=make(44), illegal_action="raise").unwrapped
    obs, info = env.reset(seed=0)
    with pytest.raises(ValueError, match="opponent player_1"):
        for _ in range(10):
            obs, _, _, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


# --- 6. error types ----------------------------------------------------------------------------------

MALFORMED = [
    "not json",
    "[" * 100_000,
    '{"schema": 1, "game": "rapa_nui", "state": ' + "[" * 50_000 + "]" * 50_000 + "}",
    '{"schema": 1, "game": "rapa_nui", "state": {"phase": ' + "9" * 5000 + "}}",
    '{"schema": true, "game": "rapa_nui", "state": {}}',
    '{"schema": 1, "game": "rapa_nui", "config": [1], "state": {}}',
    '{"schema": 1, "game": "rapa_nui", "config": {"num_players": 2.0}, "state": {}}',
    '{"schema": 1, "game": ["rapa_nui"], "state": {}}',
    "[1, 2]",
    b"\xff",
    12,
    None,
]


@pytest.mark.parametrize("text", MALFORMED, ids=lambda t: repr(t)[:30])
@pytest.mark.parametrize("game", [RapaNuiGame(num_players=2),
                                  TurnBasedGame(PositanoGame(num_players=2))], ids=repr)
def test_every_malformed_document_is_a_state_format_error(game, text):
    # Issue #9 finding 6: JSONDecodeError, RecursionError, ValueError, TypeError leaked.
    with pytest.raises(StateFormatError):
        game.state_from_json(text)


def test_numpy_integers_are_accepted_wherever_ints_are():
    # Issue #9 finding 6.
    env = rapa_nui_v0.env(num_players=np.int64(2))
    env.reset(seed=np.int64(3), options={"seat_permutation": np.array([1, 0])})
    assert env.unwrapped.seat_of("player_0") == 1
    assert env.unwrapped.action_to_string(np.int64(4)) == env.unwrapped.action_to_string(4)
    state = RapaNuiGame(num_players=2).new_initial_state(random.Random(0))
    assert state.action_to_string(np.int64(3)) == state.action_to_string(3)
    single = gymnasium.make("RapaNui-v0", num_players=2, learner_seat=np.int64(1))
    _, info = single.reset(seed=0)
    assert info["seat"] == 1


@pytest.mark.parametrize("perm", [[0.2, 1.7, 2.1], [True, False, 2], [0, 1, 2.0]], ids=repr)
def test_floats_and_bools_are_refused_where_ints_are_expected(perm):
    env = rapa_nui_v0.env(num_players=3)
    with pytest.raises(ValueError, match="seat_permutation"):
        env.reset(options={"seat_permutation": perm})
    with pytest.raises(ValueError, match="learner_seat"):
        gymnasium.make("RapaNui-v0", learner_seat=1.0)
    with pytest.raises(ConfigError, match="num_players"):
        rapa_nui_v0.env(num_players=2.0)


# --- issue #8 finding 1: integer actions in any integer form -------------------------------------


INT_FORMS = [np.array(0), np.array([0]), np.int64(0), np.uint8(0), np.array(0, dtype=np.int8)]
NOT_INTS = [np.array(0.0), np.float32(0), np.bool_(False), np.array(False), np.array([0, 1]),
            0.0, 1.5, True, "0", None]


def _as_form(form, action):
    return type(form)(action) if np.isscalar(form) else np.full(form.shape, action, form.dtype)


@pytest.mark.parametrize("form", INT_FORMS, ids=lambda f: f"{type(f).__name__}{np.shape(f)}")
def test_integer_valued_arrays_and_numpy_ints_are_actions_everywhere(form):
    # What SB3's model.predict returns (a 0-d or size-1 int array) must step every env.
    aec = rapa_nui_v0.env(num_players=2)
    aec.reset(seed=0)
    first = _first_legal(aec)
    aec.step(_as_form(form, first))
    twin = rapa_nui_v0.env(num_players=2)
    twin.reset(seed=0)
    twin.step(first)
    assert aec_snapshot(aec) == aec_snapshot(twin)

    par = positano_v0.parallel_env(num_players=2)
    _, infos = par.reset(seed=0)
    acts = {a: _as_form(form, int(np.flatnonzero(infos[a]["action_mask"])[0])) for a in par.agents}
    par.step(acts)
    assert par.record()["joint_actions"][0] == [
        int(np.flatnonzero(infos[a]["action_mask"])[0]) for a in par.possible_agents
    ]

    single = gymnasium.make("RapaNui-v0")
    _, info = single.reset(seed=0)
    single.step(_as_form(form, int(np.flatnonzero(info["action_mask"])[0])))


@pytest.mark.parametrize("bad", NOT_INTS, ids=repr)
def test_floats_bools_and_other_values_are_refused_as_actions(bad):
    aec = rapa_nui_v0.env(num_players=2)
    aec.reset(seed=0)
    with pytest.raises(ValueError, match=r"Discrete\(45\)"):
        aec.step(bad)
    par = positano_v0.parallel_env(num_players=2)
    par.reset(seed=0)
    with pytest.raises(ValueError, match=r"Discrete\(192\)"):
        par.step(dict.fromkeys(par.agents, bad))
    single = gymnasium.make("RapaNui-v0")
    single.reset(seed=0)
    with pytest.raises(ValueError, match=r"Discrete\(45\)"):
        single.step(bad)


# --- issue #8 finding 4: unknown keyword arguments ------------------------------------------------


@pytest.mark.parametrize(("make", "wrong", "right"), [
    (lambda: gymnasium.make("RapaNui-v0", opponent="random"), "opponent", "opponents"),
    (lambda: gymnasium.make("Positano-v0", num_player=2), "num_player", "num_players"),
    (lambda: rapa_nui_v0.env(num_player=3), "num_player", "num_players"),
    (lambda: rapa_nui_v0.env(render_mod="ansi"), "render_mod", "render_mode"),
    (lambda: positano_v0.env(split_bid=True), "split_bid", "split_bids"),
    (lambda: positano_v0.parallel_env(reward_typ="score"), "reward_typ", "reward_type"),
    (lambda: RapaNuiGame(num_player=2), "num_player", "num_players"),
], ids=lambda x: x if isinstance(x, str) else "")
def test_unknown_keyword_arguments_are_type_errors_with_a_suggestion(make, wrong, right):
    with pytest.raises(TypeError, match=rf"'{wrong}'.*did you mean '{right}'") as info:
        make()
    assert isinstance(info.value, ConfigError)


@pytest.mark.parametrize("env_id", ["RapaNui-v0", "Positano-v0"])
def test_unknown_keyword_error_lists_each_allowed_name_once_sorted(env_id):
    # Issue #26 item 4: illegal_action, render_mode and render_view were listed twice.
    with pytest.raises(TypeError) as info:
        gymnasium.make(env_id, colour="red")
    # Gymnasium appends its own words after ours.
    listed = ast.literal_eval(str(info.value).split("allowed: ", 1)[1].split("]")[0] + "]")
    assert listed == sorted(set(listed))
    assert {"illegal_action", "render_mode", "render_view", "opponents"} <= set(listed)


@pytest.mark.parametrize("env_id", ["RapaNui-v0", "Positano-v0"])
def test_unknown_keyword_error_uses_pythons_wording(env_id):
    # Issue #26 item 2: TorchRL's GymEnv retries without ``frameskip`` only when the TypeError
    # reads as Python's own "unexpected keyword argument 'frameskip'".
    with pytest.raises(TypeError, match="unexpected keyword argument 'frameskip'"):
        gymnasium.make(env_id, frameskip=1)
    with pytest.raises(TypeError, match="an unexpected keyword argument 'a', "
                                        "an unexpected keyword argument 'b'"):
        rapa_nui_v0.env(a=1, b=2)


# --- 7. silent no-ops and guards ----------------------------------------------------------------


# Every public method of the raw AEC env that needs a game (issue #26 item 6: last() raised an
# AttributeError on agent_selection, public_action_string a bare assert that -O removes).
_BEFORE_RESET_CALLS = {
    "last": (), "agent_iter": (), "public_action_string": (0,), "seat_of": ("player_0",),
    "agent_of": (0,), "acting_mask": (), "acting_mask_view": (), "acting_legal": (),
    "acting_observation": (), "observe": ("player_0",), "step": (0,), "legal_actions": (),
    "action_to_string": (0,), "record": (), "state": (), "render": (),
}


@pytest.mark.parametrize("make", [positano_v0.raw_env, rapa_nui_v0.raw_env],
                         ids=["positano", "rapa_nui"])
@pytest.mark.parametrize("call", sorted(_BEFORE_RESET_CALLS))
def test_every_raw_env_call_before_reset_says_reset_first(make, call):
    env = make(num_players=2, render_mode="ansi")
    with pytest.raises(RuntimeError, match=r"no game yet: call reset\(\) first"):
        getattr(env, call)(*_BEFORE_RESET_CALLS[call])


def test_calls_before_reset_say_reset_first_under_python_O():
    code = (
        "from tabletop_gym.envs import positano_v0, rapa_nui_v0\n"
        f"calls = {_BEFORE_RESET_CALLS!r}\n"
        "for make in (positano_v0.raw_env, rapa_nui_v0.raw_env):\n"
        "    for name, args in calls.items():\n"
        "        env = make(num_players=2, render_mode='ansi')\n"
        "        try:\n"
        "            getattr(env, name)(*args)\n"
        "        except RuntimeError as err:\n"
        "            assert 'call reset() first' in str(err), (name, err)\n"
        "        else:\n"
        "            raise SystemExit(f'{name} did not raise')\n"
        "print('ok', len(calls))\n"
    )
    out = subprocess.run([sys.executable, "-O", "-c", code], capture_output=True, text=True,
                         check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["ok", str(len(_BEFORE_RESET_CALLS))]


def test_split_bids_in_solo_is_refused_with_a_reason():
    # Issue #9 finding 7: split_bids=True did nothing in solo (bids stayed ids 0-41).
    with pytest.raises(ConfigError, match=r"split_bids.*solo"):
        positano_v0.env(num_players=1, split_bids=True)


@pytest.mark.parametrize("call", ["record", "legal_actions", "state", "render", "observe",
                                  "action_to_string", "game_state"])
def test_calls_before_reset_say_reset_first(call):
    # Issue #9 finding 7: misleading answers, or asserts that vanish under python -O.
    env = rapa_nui_v0.raw_env(num_players=2, render_mode="ansi")
    args = {"observe": ("player_0",), "action_to_string": (0,)}.get(call, ())
    with pytest.raises(RuntimeError, match=r"reset\(\)"):
        attr = getattr(env, call)
        if callable(attr):
            attr(*args)
    par = positano_v0.parallel_env(num_players=2)
    for name in ("record", "state", "step"):
        with pytest.raises(RuntimeError, match=r"reset\(\)"):
            getattr(par, name)(*(({},) if name == "step" else ()))


def test_record_of_an_episode_from_a_given_state_says_so():
    env = rapa_nui_v0.env(num_players=2)
    env.reset(options={"state": RapaNuiGame(num_players=2).new_initial_state(random.Random(0))})
    with pytest.raises(ValueError, match="given state"):
        env.unwrapped.record()


@pytest.mark.parametrize(("field", "value", "match"), [
    ("seed", True, "seed"), ("seed", 1.5, "seed"), ("seed", -1, "seed"),
    ("actions", [True], "actions"), ("actions", "01", "actions"),
    ("seats", [0, 0], "seats"), ("seats", [1, 0, 2], "seats"), ("seats", [0.0, 1], "seats"),
    ("transform", "flat", "transform"), ("game", "chess", "game"), ("config", [1], "config"),
    ("config", {"num_players": 9}, "config"),
])
def test_game_records_validate_every_field(field, value, match):
    # Issue #9 finding 7: seed=true was accepted and seats never checked.
    doc = {"game": "rapa_nui", "config": {"num_players": 2}, "seed": 7, "actions": [],
           "seats": [1, 0]}
    assert GameRecord.from_json(json.dumps(doc)).seats == [1, 0]
    doc[field] = value
    with pytest.raises(ValueError, match=match):
        GameRecord.from_json(json.dumps(doc))


def test_game_record_of_an_illegal_action_is_a_clear_error():
    rec = GameRecord.from_json('{"game": "rapa_nui", "config": {"num_players": 2}, "seed": 7, '
                               '"actions": [44]}')
    with pytest.raises(ValueError, match="action 0"):
        rec.replay()



def test_the_single_agent_view_takes_a_start_state_but_not_a_seat_permutation():
    # Its seats follow seat_mode; a permutation would have the learner observe another seat.
    env = gymnasium.make("RapaNui-v0").unwrapped
    env.reset(seed=0)
    before = env.aec.game_state.to_json()
    with pytest.raises(TypeError, match="seat_permutation"):
        env.reset(options={"seat_permutation": [1, 0]})
    assert env.aec.game_state.to_json() == before
    start = RapaNuiGame(num_players=2).new_initial_state(random.Random(9))
    env.reset(options={"state": start.to_json()})
    assert env.aec.game_state.to_json() == start.to_json()


def test_agent_iter_without_a_step_raises_also_under_python_O():
    # Issue 39 item 3: a bare assert guarded it, so `python -O` ran the loop without a step.
    code = ("from tabletop_gym.envs import rapa_nui_v0\n"
            "env = rapa_nui_v0.env(num_players=2)\n"
            "env.reset(seed=0)\n"
            "try:\n"
            "    for agent in env.agent_iter(max_iter=5):\n"
            "        pass\n"
            "except AssertionError as exc:\n"
            "    print('refused:', exc)\n")
    out = subprocess.run([sys.executable, "-O", "-c", code], capture_output=True, text=True,
                         check=True, timeout=120).stdout
    assert out == "refused: need to call step() or reset() in a loop over `agent_iter`\n"
