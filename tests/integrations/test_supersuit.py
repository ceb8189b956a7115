"""SuperSuit's wrappers over the parallel env with the mask in ``info`` (docs/libraries.md)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import supersuit
from pettingzoo.test import parallel_api_test

from tabletop_gym.integrations import make_env

CASES = [("rapa_nui", {"num_players": 2}), ("positano", {"num_players": 3})]


@pytest.mark.parametrize(("game", "cfg"), CASES, ids=[c[0] for c in CASES])
def test_black_death_passes_the_parallel_api_test(game, cfg):
    # Issue 39 item 12: black_death_v3 steps the env once more after every agent is done, which
    # raised "the game is over (no live agents)" instead of returning empty dicts.
    env = supersuit.black_death_v3(make_env(game, parallel=True, layout="info", **cfg))
    with warnings.catch_warnings():
        # the API test samples unmasked actions: the illegal-action warning is expected
        warnings.simplefilter("ignore", UserWarning)
        parallel_api_test(env, num_cycles=300)


def test_black_death_plays_a_game_to_its_end_and_beyond():
    env = supersuit.black_death_v3(make_env("rapa_nui", parallel=True, layout="info",
                                            num_players=2))
    inner = env.unwrapped
    _, infos = env.reset(seed=3)
    rng = np.random.default_rng(3)
    steps = 0
    while inner.agents:
        acts = {a: int(rng.choice(np.flatnonzero(infos[a]["action_mask"]))) for a in inner.agents}
        _, _, _, _, infos = env.step(acts)
        steps += 1
    assert inner.state_obj.is_terminal() and steps > 10
    # The step after the end: every agent of the wrapper gets a zero observation and reward.
    obs, rewards, _, _, infos = env.step({a: 0 for a in env.possible_agents})
    assert set(obs) == set(env.possible_agents)
    assert all(not o.any() for o in obs.values())
    assert rewards == dict.fromkeys(env.possible_agents, 0.0)
    assert infos == {a: {} for a in env.possible_agents}
