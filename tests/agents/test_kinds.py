"""Agent kinds: one registered entry per kind of spec, read by the factory and the checks."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from tabletop_gym.agents import kinds
from tabletop_gym.agents.base import RandomAgent
from tabletop_gym.agents.kinds import (
    AgentKind,
    agent_extra,
    agent_kind,
    agent_kinds,
    agent_name,
    check_spec,
    make_agent,
    register_kind,
)
from tabletop_gym.envs.rapa_nui_v0 import raw_env

USE = ("use 'random', 'heuristic[:variant]', 'ismcts[:simulations[:rollout]]', "
       "'search[:<policy>][?worlds=K] or search:best', 'ppo', 'jax-ppo', 'llm:MODEL@BASE_URL', "
       "'jax:<checkpoint.npz>', an Agent, a callable or a trained model")


@pytest.mark.parametrize(("spec", "hint"), [
    ("nobody", ""),  # nothing close: every kind's form is listed
    ("heuristc", " (did you mean 'heuristic'?)"),
    ("heuristc:hoarder", " (did you mean 'heuristic'?)"),  # the kind's word is matched
    ("random:3", " (write 'random')"),  # a kind that takes nothing after its name
    ("heuristic?hoarder", " (write 'heuristic[:variant]')"),  # a separator it does not take
    ("llm", " (write 'llm:MODEL@BASE_URL')"),  # a kind that needs more than its name
    ("jax", " (write 'jax:<checkpoint.npz>')"),
])
def test_an_unknown_spec_says_what_is_close_and_lists_every_kind(spec, hint):
    env = raw_env(num_players=2)
    with pytest.raises(ValueError) as err:
        make_agent(spec, env.game, env.observer)
    assert str(err.value) == f"unknown opponent {spec!r}{hint}; {USE}"


def test_each_spec_finds_its_kind_by_its_first_word():
    assert [k.name for k in agent_kinds()] == ["random", "heuristic", "ismcts", "search", "ppo",
                                               "jax-ppo", "llm", "jax"]
    assert agent_kind("heuristic").name == agent_kind("heuristic:hoarder").name == "heuristic"
    assert agent_kind("search?worlds=4").name == agent_kind("search:jax-ppo").name == "search"
    assert agent_kind("jax-ppo").name == "jax-ppo"
    assert agent_kind("jax:policy.npz").name == "jax"
    assert agent_kind("llm:m@http://127.0.0.1:1/v1?name=x").name == "llm"
    for spec in ("randomly", "random:3", "ppo?x", "llm", "heuristic?x", ""):
        assert agent_kind(spec) is None, spec
    assert kinds.is_kind("search:jax-ppo?worlds=16", "search") and kinds.is_kind("search", "search")
    assert not kinds.is_kind("searchlight", "search") and not kinds.is_kind("jax-ppo", "search")


def test_a_malformed_ismcts_spec_fails_the_checks_before_any_game():
    check_spec("ismcts:200:heuristic")
    with pytest.raises(ValueError, match="must be a positive integer"):
        check_spec("ismcts:0")
    with pytest.raises(ValueError, match="rollout 'greedy'"):
        check_spec("ismcts:5:greedy")
    check_spec("nobody")  # an unknown spec is the factory's to refuse, with the game at hand


class _FirstLegal:
    """A test kind's agent: the lowest legal id."""

    def __init__(self, spec: str):
        self.spec = spec

    def act(self, observation):
        return int(np.flatnonzero(observation["action_mask"])[0])


def _build(game, observer, rng, spec):
    return _FirstLegal(spec)


def _check(spec):
    if spec.endswith(":bad"):
        raise ValueError(f"cannot read {spec!r}")


def test_a_kind_registered_by_its_module_path_is_loaded_when_used(monkeypatch):
    # As a kind above the agents' floor is (search): module:attribute strings, the extra named.
    monkeypatch.setattr(kinds, "_KINDS", dict(kinds._KINDS))
    register_kind(AgentKind("first", "first[:tag]", "the lowest legal id", f"{__name__}:_build",
                            separators=":", check=f"{__name__}:_check", label=str.upper,
                            extra="web"))
    env = raw_env(num_players=2)
    agent = make_agent("first:a", env.game, env.observer)
    assert isinstance(agent, _FirstLegal) and agent.spec == "first:a"
    check_spec("first:a")
    with pytest.raises(ValueError, match="cannot read 'first:bad'"):
        check_spec("first:bad")
    assert agent_name("first:a") == "FIRST:A"
    assert agent_extra("first") == ("web", ("starlette", "uvicorn"))
    with pytest.raises(ValueError, match=r"\(did you mean 'first'\?\); .*'first\[:tag\]', an Agent"):
        make_agent("firsts", env.game, env.observer)
    with pytest.raises(ValueError, match="cannot register agent kind 'first': it is registered"):
        register_kind(AgentKind("first", "first", "again", _build))


def test_the_package_kinds_build_their_agents():
    env = raw_env(num_players=2)
    assert isinstance(make_agent("random", env.game, env.observer, np.random.default_rng(0)),
                      RandomAgent)
    assert make_agent("heuristic:woodsman", env.game, env.observer).name == "heuristic:woodsman"
    assert agent_name("llm:m@http://127.0.0.1:1/v1?name=mine") == "mine"
    assert agent_name("ismcts:5") == "ismcts:5"


def test_making_and_checking_agents_imports_nothing_above_the_agents_floor():
    # The package's face registers the envs (and the tasks' ids) first; what comes after is the
    # agents' own.
    code = ("import sys, tabletop_gym\n"
            "before = set(sys.modules)\n"
            "from tabletop_gym.agents.kinds import agent_name, check_spec, make_agent\n"
            "from tabletop_gym.envs.rapa_nui_v0 import raw_env\n"
            "env = raw_env(num_players=2)\n"
            "for spec in ('random', 'heuristic', 'ismcts:3:heuristic'):\n"
            "    check_spec(spec)\n"
            "    make_agent(spec, env.game, env.observer)\n"
            "agent_name('llm:m@http://127.0.0.1:1/v1?name=x')\n"
            "above = ('tabletop_gym.jax', 'tabletop_gym.arena', 'tabletop_gym.tasks',\n"
            "         'tabletop_gym.wrappers', 'tabletop_gym.integrations')\n"
            "print(sorted(m for m in set(sys.modules) - before if m.startswith(above)))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
