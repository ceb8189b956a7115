"""Property tests of the error paths: tampered documents and hostile call sequences.

Two properties, run by hypothesis over every game:

* every tampered state document is either rejected with :class:`StateFormatError` or loads into
  a consistent state that plays to a legal end (within ``max_game_length``, returns within
  ``return_bounds()``) and writes itself back unchanged;
* a call that raises (a junk action, an illegal action under ``illegal_action="raise"``, bad
  reset options, a step after the end) leaves the env exactly as it was: its state, record,
  random stream, seats and every agent's ``last()``.

``HYPOTHESIS_PROFILE=long`` runs many more examples (the figures in ``docs/reliability.md``)::

    HYPOTHESIS_PROFILE=long python -m pytest -q -p no:randomly tests/test_properties.py \\
        --hypothesis-show-statistics
"""

from __future__ import annotations

import functools
import json
import os
import random
from typing import Any

import gymnasium
import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st

import tabletop_gym  # noqa: F401 - registers the ids
from tabletop_gym.core.game import SIMULTANEOUS, Game, IllegalActionError, StateFormatError
from tabletop_gym.core.turn_based import TurnBasedGame
from tabletop_gym.envs import positano_v0, rapa_nui_v0
from tabletop_gym.envs.positano.rules import PositanoGame
from tabletop_gym.envs.rapa_nui.rules import RapaNuiGame
from tests.snapshots import aec_snapshot, parallel_snapshot, single_snapshot

_COMMON = {"deadline": None, "suppress_health_check": list(HealthCheck), "print_blob": True}
settings.register_profile("ci", max_examples=40, derandomize=True, **_COMMON)
settings.register_profile("long", max_examples=500, **_COMMON)
PROFILE = settings.get_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
"""The CI profile is derandomised (the same examples on every run); ``long`` explores."""

ENV_ERRORS = (ValueError, TypeError, RuntimeError)
"""What a bad call may raise (IllegalActionError, StateFormatError and ConfigError are
ValueErrors; UnknownArgumentError is also a TypeError)."""

# --- valid documents to tamper with ------------------------------------------------------------


def _games() -> list[Game]:
    return [
        RapaNuiGame(num_players=2),
        RapaNuiGame(num_players=3, offering_supply_limited=True),
        RapaNuiGame(num_players=4),
        PositanoGame(num_players=1),
        PositanoGame(num_players=2),
        PositanoGame(num_players=4, board_size=5),
        TurnBasedGame(PositanoGame(num_players=3)),
        TurnBasedGame(PositanoGame(num_players=2), split=True),
    ]


def _random_step(state: Any, rng: random.Random) -> None:
    if state.current_player() == SIMULTANEOUS:
        n = state.game.num_players
        state.apply_joint_action(
            [rng.choice(legal) if (legal := state.legal_actions(p)) else None for p in range(n)]
        )
    else:
        state.apply_action(rng.choice(state.legal_actions()))


@functools.cache
def _bases() -> list[tuple[Game, str]]:
    """Positions of every game at several depths (start, bids pending, mid-game, the end)."""
    out = []
    for gi, game in enumerate(_games()):
        for depth in (0, 1, 3, 25, 10**6):
            rng = random.Random(1000 * gi + depth)
            state = game.new_initial_state(rng)
            steps = 0
            while not state.is_terminal() and steps < depth:
                _random_step(state, rng)
                steps += 1
            out.append((game, state.to_json()))
    return out


# --- tampering ---------------------------------------------------------------------------------

JUNK = st.one_of(
    st.integers(-3, 60),
    st.integers(-(10**30), 10**30),
    st.floats(allow_nan=True),
    st.booleans(),
    st.none(),
    st.text(max_size=4),
    st.lists(st.integers(-2, 30), max_size=4),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    st.just(10**5000),
)


def _paths(node: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if len(prefix) > 12:  # inside a deeply nested edit: nothing worth editing further down
        return out
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, (*prefix, i))
    return out


def _deep(depth: int) -> list:
    node: list = []
    for _ in range(depth):
        node = [node]
    return node


def _tamper(doc: dict, data: st.DataObject) -> dict:
    """Apply one random edit somewhere in ``doc`` (in place) and return it."""
    paths = _paths(doc)
    path = paths[data.draw(st.integers(0, len(paths) - 1), label="path")]
    op = data.draw(st.sampled_from(
        ["replace", "bump", "drop", "add_key", "duplicate", "swap", "wrap", "deep"]), label="op")
    if not path:
        return {"state": doc} if op == "wrap" else doc
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    key = path[-1]
    value = parent[key]
    if op == "replace":
        parent[key] = data.draw(JUNK, label="junk")
    elif op == "bump" and isinstance(value, int) and not isinstance(value, bool):
        parent[key] = value + data.draw(st.sampled_from([-2, -1, 1, 2, 7]), label="by")
    elif op == "drop":
        del parent[key]
    elif op == "add_key" and isinstance(value, dict):
        value[data.draw(st.text(max_size=6), label="new key")] = data.draw(JUNK, label="junk")
    elif op == "duplicate" and isinstance(value, list) and value:
        # The same object twice: a copy of a deeply nested entry would itself recurse too deep.
        value.append(value[data.draw(st.integers(0, len(value) - 1))])
    elif op == "swap" and isinstance(value, list) and len(value) > 1:
        i = data.draw(st.integers(0, len(value) - 1))
        j = data.draw(st.integers(0, len(value) - 1))
        value[i], value[j] = value[j], value[i]
    elif op == "wrap":
        parent[key] = [value]
    elif op == "deep":
        parent[key] = _deep(data.draw(st.sampled_from([3, 3000])))
    return doc


def _plays_to_a_legal_end(game: Game, state: Any, seed: int) -> None:
    inner = getattr(state, "inner", state)
    if hasattr(inner, "check_invariants"):
        inner.check_invariants()
    again = game.state_from_json(state.to_json())
    assert again.to_json() == state.to_json()
    rng = random.Random(seed)
    steps = 0
    while not state.is_terminal():
        _random_step(state, rng)
        steps += 1
        assert steps <= game.max_game_length, "the loaded state outlives max_game_length"
    if hasattr(inner, "check_invariants"):
        inner.check_invariants()
    lo, hi = game.return_bounds()
    assert all(lo <= r <= hi for r in state.returns())


@PROFILE
@given(data=st.data())
def test_a_tampered_document_is_rejected_or_plays_to_a_legal_end(data):
    game, text = data.draw(st.sampled_from(_bases()), label="base")
    doc = json.loads(text)
    for _ in range(data.draw(st.integers(1, 3), label="edits")):
        doc = _tamper(doc, data)
    as_text = data.draw(st.booleans(), label="as text")
    payload: Any = doc
    if as_text:
        try:
            payload = json.dumps(doc)
        except (ValueError, RecursionError):  # too deep or too many digits to write
            payload = doc
    try:
        state = game.state_from_json(payload)
    except StateFormatError:
        return
    _plays_to_a_legal_end(game, state, data.draw(st.integers(0, 2**16), label="play seed"))


# --- hostile call sequences ----------------------------------------------------------------------

JUNK_ACTIONS = st.one_of(
    st.integers(-5, 300), st.floats(), st.booleans(), st.none(), st.text(max_size=3),
    st.builds(np.float32, st.floats(width=32)),
    st.lists(st.integers(0, 50), min_size=2, max_size=3).map(np.array),
    st.sampled_from([np.array(3.0), np.bool_(True), np.array([[1, 2]]), np.int64(10**9)]),
)
JUNK_OPTIONS = st.one_of(
    st.none(), st.lists(st.integers(), max_size=2), st.text(max_size=3),
    st.dictionaries(
        st.sampled_from(["seat_permutation", "state", "seat_perm", "opponents", ""]),
        st.one_of(JUNK, st.sampled_from(["random", [1, 0], [0, 0], [0.0, 1], "{}", "[]"]),
                  st.lists(st.integers(0, 3), max_size=4)),
        max_size=2,
    ),
)

AEC_MAKERS = [
    lambda policy: rapa_nui_v0.env(num_players=2, illegal_action=policy),
    lambda policy: rapa_nui_v0.env(num_players=4, illegal_action=policy),
    lambda policy: positano_v0.env(num_players=1, illegal_action=policy),
    lambda policy: positano_v0.env(num_players=3, illegal_action=policy),
    lambda policy: positano_v0.env(num_players=2, split_bids=True, illegal_action=policy),
]


def _mask(env: Any) -> np.ndarray:
    return env.unwrapped.observe(env.agent_selection)["action_mask"]


def _check_unchanged(before: tuple, after: tuple, what: str) -> None:
    assert after == before, f"{what} raised but changed the env"


@PROFILE
@given(data=st.data())
def test_a_raising_call_leaves_the_aec_env_as_it_was(data):
    policy = data.draw(st.sampled_from(["raise", "terminate"]), label="policy")
    env = data.draw(st.sampled_from(AEC_MAKERS), label="env")(policy)
    env.reset(seed=data.draw(st.integers(0, 2**32), label="seed"))
    for _ in range(data.draw(st.integers(1, 40), label="calls")):
        raw = env.unwrapped
        if not raw.agents:
            env.reset()
            continue
        dead = raw.terminations[env.agent_selection]
        kind = data.draw(st.sampled_from(
            ["legal", "legal", "legal", "illegal", "junk", "reset", "reset_junk"]), label="call")
        before = aec_snapshot(env)
        try:
            if kind == "legal":
                env.step(None if dead else int(data.draw(
                    st.sampled_from(list(np.flatnonzero(_mask(env)))), label="action")))
            elif kind == "illegal" and not dead:
                free = np.flatnonzero(_mask(env) == 0)
                env.step(int(data.draw(st.sampled_from(list(free)), label="illegal")))
            elif kind == "junk":
                env.step(data.draw(JUNK_ACTIONS, label="junk action"))
            elif kind == "reset":
                env.reset(seed=data.draw(st.none() | st.integers(0, 99), label="reset seed"))
            elif kind == "reset_junk":
                env.reset(seed=data.draw(st.none() | st.integers(0, 99)),
                          options=data.draw(JUNK_OPTIONS, label="options"))
        except ENV_ERRORS as exc:
            if kind == "illegal":
                assert isinstance(exc, IllegalActionError) and policy == "raise"
            _check_unchanged(before, aec_snapshot(env), kind)


@PROFILE
@given(data=st.data())
def test_a_raising_call_leaves_the_parallel_env_as_it_was(data):
    make = data.draw(st.sampled_from([positano_v0.parallel_env, rapa_nui_v0.parallel_env]))
    players = data.draw(st.sampled_from([1, 2, 4] if make is positano_v0.parallel_env else [2, 3]))
    env = make(num_players=players, illegal_action="raise")
    _, infos = env.reset(seed=data.draw(st.integers(0, 2**32), label="seed"))
    for _ in range(data.draw(st.integers(1, 30), label="calls")):
        kind = data.draw(st.sampled_from(["legal", "legal", "junk", "partial", "reset_junk"]))
        before = parallel_snapshot(env)
        try:
            if kind == "legal":
                acts = {a: int(np.flatnonzero(infos[a]["action_mask"])[0]) for a in env.agents}
                _, _, _, _, infos = env.step(acts)
                if not env.agents:
                    _, infos = env.reset()
            elif kind == "junk":
                env.step({a: data.draw(JUNK_ACTIONS) for a in env.agents})
            elif kind == "partial":
                env.step(data.draw(st.dictionaries(st.sampled_from(
                    [*env.possible_agents, "nobody"]), st.integers(0, 191), max_size=4)))
            else:
                env.reset(options=data.draw(JUNK_OPTIONS, label="options"))
                _, infos = env.reset()
        except ENV_ERRORS:
            _check_unchanged(before, parallel_snapshot(env), kind)


@PROFILE
@given(data=st.data())
def test_a_raising_call_leaves_the_single_agent_env_as_it_was(data):
    env_id = data.draw(st.sampled_from(["Positano-v0", "RapaNui-v0"]), label="id")
    env = gymnasium.make(env_id, opponents="random").unwrapped
    _, info = env.reset(seed=data.draw(st.integers(0, 2**32), label="seed"))
    for _ in range(data.draw(st.integers(1, 25), label="calls")):
        kind = data.draw(st.sampled_from(["legal", "legal", "junk", "reset_junk"]))
        before = single_snapshot(env)
        try:
            if kind == "legal":
                _, _, term, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
                if term:
                    _, info = env.reset()
            elif kind == "junk":
                env.step(data.draw(JUNK_ACTIONS, label="junk action"))
            else:
                env.reset(options=data.draw(JUNK_OPTIONS, label="options"))
                _, info = env.reset()
        except ENV_ERRORS:
            _check_unchanged(before, single_snapshot(env), kind)

