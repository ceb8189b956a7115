"""What an agent offers is declared by protocols and read in one place (agents/base.py)."""

from __future__ import annotations

import ast
import pathlib

import numpy as np
import pytest

from tabletop_gym.agents.base import (
    CallableAgent,
    Capabilities,
    RandomAgent,
    capabilities,
    choose_action,
    decides_on,
)
from tabletop_gym.agents.ismcts import ISMCTSAgent
from tabletop_gym.agents.kinds import make_agent
from tabletop_gym.agents.llm import CallableBackend, LLMAgent
from tabletop_gym.envs.positano_v0 import raw_env as positano_raw_env
from tabletop_gym.envs.rapa_nui_v0 import raw_env
from tabletop_gym.wrappers.single_agent import SingleAgentEnv

PACKAGE = pathlib.Path(__file__).resolve().parents[2] / "tabletop_gym"


def _env(game="rapa_nui", **config):
    return (raw_env if game == "rapa_nui" else positano_raw_env)(**config)


class _ActOnly:
    """A user agent with ``act`` only: it counts its decisions and their legal-set sizes."""

    def __init__(self):
        self.sizes = []

    def act(self, observation):
        legal = np.flatnonzero(observation["action_mask"])
        self.sizes.append(len(legal))
        return int(legal[0])


def test_an_object_with_act_only_has_the_default_capabilities():
    assert capabilities(_ActOnly()) == Capabilities()
    assert Capabilities() == Capabilities(decides_on="observation", seedable=False,
                                          forced_moves_blind=False, seed_resets=False)
    # A plain function is wrapped, and the wrapper offers nothing more either.
    env = _env()
    wrapped = make_agent(lambda obs: 0, env.game, env.observer)
    assert isinstance(wrapped, CallableAgent)
    assert capabilities(wrapped) == Capabilities()


def test_an_act_only_opponent_is_asked_at_every_decision_forced_moves_included():
    # The defaults: handed its observation dict every time, even with one legal action, never
    # reseeded and never kept.
    spy = _ActOnly()
    env = SingleAgentEnv(raw_env(num_players=2), opponents=spy)
    obs, info = env.reset(seed=1)
    for _ in range(300):
        obs, reward, terminated, truncated, info = env.step(
            int(np.flatnonzero(info["action_mask"])[0]))
        if terminated:
            obs, info = env.reset()
    assert 1 in spy.sizes and max(spy.sizes) > 1
    assert env._on_parts == {} and env._blind == set() and env._kept_bots == {}


def test_the_package_agents_declare_what_they_offer():
    env = _env()
    rapa = make_agent("heuristic", env.game, env.observer, np.random.default_rng(0))
    assert capabilities(rapa) == Capabilities(decides_on="parts", seedable=True,
                                              forced_moves_blind=True, seed_resets=True)
    positano = _env("positano", num_players=3)
    bot = make_agent("heuristic", positano.game, positano.observer, np.random.default_rng(0))
    assert capabilities(bot) == Capabilities(decides_on="observation", seedable=True)
    assert capabilities(RandomAgent(0)) == Capabilities(seedable=True)
    assert capabilities(ISMCTSAgent(env.game, env.observer, 0, simulations=2)) == Capabilities(
        decides_on="state", seedable=True)
    llm = LLMAgent(CallableBackend(lambda messages: "1"), "rapa_nui")
    assert capabilities(llm) == Capabilities(decides_on="text")


class _Parts:
    def __init__(self, blind):
        self.forced_moves_blind = blind

    def act(self, observation):
        return int(np.flatnonzero(observation["action_mask"])[0])

    def act_on(self, vector, legal):
        return legal[0]


def test_flags_are_read_from_the_instance_and_count_only_when_exactly_true():
    assert capabilities(_Parts(True)).forced_moves_blind is True
    assert capabilities(_Parts(False)).forced_moves_blind is False
    assert capabilities(_Parts("yes")).forced_moves_blind is False
    assert capabilities(_Parts(1)).forced_moves_blind is False
    # Without act_on the flag means nothing: nobody hands that agent the parts.
    odd = _ActOnly()
    odd.forced_moves_blind = True
    assert capabilities(odd).forced_moves_blind is False
    # seed_resets needs a seed() to reseed with.
    odd.seed_resets = True
    assert capabilities(odd).seed_resets is False
    seeded = RandomAgent(0)
    seeded.seed_resets = True
    assert capabilities(seeded).seed_resets is True


class _Everything(_Parts):
    def __init__(self):
        super().__init__(True)
        self.calls = []

    def act_in(self, state, seat):
        self.calls.append("state")
        return state.legal_actions(seat)[0]


class _Talker(_Parts):
    def __init__(self):
        super().__init__(True)
        self.calls = []

    def act_in(self, state, seat):
        raise AssertionError("a text agent is handed the env")

    def act_env(self, env, agent):
        self.calls.append("text")
        return env.legal_actions(agent)[0]


def test_text_comes_before_state_which_comes_before_parts():
    assert decides_on(_Talker()) == "text"
    assert decides_on(_Everything()) == "state"
    assert decides_on(_Parts(True)) == "parts"
    assert decides_on(_ActOnly()) == "observation"
    env = _env()
    env.reset(seed=0)
    for agent, path in ((_Talker(), "text"), (_Everything(), "state")):
        action = choose_action(agent, env, env.agent_selection)
        assert action in env.legal_actions() and agent.calls == [path]


CAPABILITY_NAMES = {"act_on", "act_in", "act_env", "seed", "seed_resets", "forced_moves_blind",
                    "needs_state", "needs_text"}


def test_no_module_looks_an_agent_capability_up_by_name():
    # getattr/hasattr with a capability's name would bypass the declared protocols.
    found = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id in ("getattr", "hasattr") and len(node.args) >= 2
                    and isinstance(node.args[1], ast.Constant)
                    and node.args[1].value in CAPABILITY_NAMES):
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert not found, f"capabilities looked up by name: {found}"


@pytest.mark.parametrize("blind", [True, False])
def test_a_parts_opponent_is_handed_the_parts(blind):
    spy = _Parts(blind)
    env = SingleAgentEnv(raw_env(num_players=2), opponents=spy)
    env.reset(seed=0)
    assert set(env._on_parts) == {"player_1"}
    assert env._blind == ({"player_1"} if blind else set())
