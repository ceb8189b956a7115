"""Env ids: Gymnasium (single-agent views) and PettingZoo's registry (AEC and parallel envs)."""

from __future__ import annotations

import gymnasium
import pettingzoo
import pytest

import tabletop_gym


def test_gymnasium_ids_and_defaults():
    solo = gymnasium.make("Positano-v0")
    assert solo.unwrapped.aec.game.num_players == 1  # the official solo game against Otto
    rapa = gymnasium.make("RapaNui-v0")
    assert rapa.unwrapped.aec.game.num_players == 2
    assert rapa.unwrapped._opponent_specs == ["heuristic"]
    for env_id in ("Positano-v0", "RapaNui-v0"):
        assert gymnasium.spec(env_id).max_episode_steps >= 100
    # kwargs reach the game config and the wrapper
    env = gymnasium.make("Positano-v0", num_players=3, opponents="random", reward_type="score")
    assert env.unwrapped.aec.game.config.reward_type == "score"


def test_registering_twice_is_harmless():
    tabletop_gym.register_envs()
    tabletop_gym.register_envs()
    assert "Positano-v0" in gymnasium.registry


@pytest.mark.skipif(not hasattr(pettingzoo, "make"), reason="this PettingZoo has no registry")
def test_pettingzoo_registry_builds_our_envs():
    aec = pettingzoo.make("aec", "tabletop_gym/Positano-v0", num_players=3)
    aec.reset(seed=0)
    assert aec.agent_selection == "player_0"
    par = pettingzoo.make("parallel", "tabletop_gym/Positano-v0", num_players=2)
    obs, infos = par.reset(seed=0)
    assert set(obs) == {"player_0", "player_1"}
    rapa = pettingzoo.make("aec", "tabletop_gym/RapaNui-v0", num_players=4)
    rapa.reset(seed=1)
    assert len(rapa.possible_agents) == 4
