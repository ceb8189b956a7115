"""The ``obs_dtype`` option: integer observations where every value of the layout fits."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import tabletop_gym  # noqa: F401  (registers the single-agent ids)
from tabletop_gym.envs import positano_v0, rapa_nui_v0


def _play(env, seed, steps=60):
    """The observations of the first ``steps`` decisions of a seeded game (seat order)."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(steps):
        if env.game_state.is_terminal():
            break
        agent = env.agent_selection
        obs = env.observe(agent)
        out.append(obs["observation"])
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return out


@pytest.mark.parametrize(
    ("module", "cfg", "dtype"),
    [
        (positano_v0, {"num_players": 1}, "uint8"),
        (positano_v0, {"num_players": 4}, "uint8"),
        (positano_v0, {"num_players": 2}, "uint16"),
        (rapa_nui_v0, {"num_players": 3}, "uint16"),
    ],
)
def test_integer_observations_hold_the_same_values_as_float32(module, cfg, dtype):
    ints = module.raw_env(obs_dtype=dtype, **cfg)
    floats = module.raw_env(**cfg)
    space = ints.observation_space("player_0")["observation"]
    assert space.dtype == np.dtype(dtype)
    assert floats.observation_space("player_0")["observation"].dtype == np.float32
    assert ints.state_space.dtype == np.dtype(dtype)
    for a, b in zip(_play(ints, 5), _play(floats, 5), strict=True):
        assert a.dtype == np.dtype(dtype)
        assert space.contains(a)
        np.testing.assert_array_equal(a.astype(np.float32), b)


def test_the_single_agent_and_parallel_views_follow_the_dtype():
    env = gymnasium.make("Positano-v0", obs_dtype="uint8")
    obs, _ = env.reset(seed=0)
    assert env.observation_space.dtype == np.uint8 and obs.dtype == np.uint8
    assert env.observation_space.contains(obs)
    par = rapa_nui_v0.parallel_env(obs_dtype="uint16")
    observations, _ = par.reset(seed=0)
    for agent, o in observations.items():
        assert o["observation"].dtype == np.uint16
        assert par.observation_space(agent).contains(o)


@pytest.mark.parametrize(
    ("module", "bad", "allowed"),
    [
        # Rapa Nui's wood reaches 663 (rules.py bounds), more than uint8 holds.
        (rapa_nui_v0, "uint8", "['float32', 'uint16']"),
        (positano_v0, "int8", "['float32', 'uint8', 'uint16']"),
        (positano_v0, "float64", "['float32', 'uint8', 'uint16']"),
        (positano_v0, 8, "['float32', 'uint8', 'uint16']"),
        (rapa_nui_v0, None, "['float32', 'uint16']"),
    ],
)
def test_a_dtype_that_does_not_hold_the_values_is_refused_naming_what_is_allowed(
    module, bad, allowed
):
    with pytest.raises(ValueError, match="obs_dtype=") as err:
        module.raw_env(obs_dtype=bad)
    assert allowed in str(err.value)
    with pytest.raises(ValueError, match="obs_dtype="):
        module.parallel_env(obs_dtype=bad)


def test_numpy_dtypes_are_accepted_by_name():
    env = positano_v0.raw_env(obs_dtype=np.uint8)
    assert env.obs_dtype == "uint8"
    env = positano_v0.raw_env(obs_dtype=np.dtype("float32"))
    assert env.observation_space("player_0")["observation"].dtype == np.float32
