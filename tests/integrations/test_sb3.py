"""Stable-Baselines3 and sb3-contrib: MaskablePPO trains, saves, loads and plays the inference loop
of sb3-contrib's documentation; checkpoints are opponents through ``gymnasium.make``; unmasked
SB3 algorithms are warned. Regression tests of findings 2 and 8 (docs/libraries.md).
"""

from __future__ import annotations

import pathlib
import warnings

import gymnasium
import numpy as np
import pytest
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks
from stable_baselines3 import PPO

import tabletop_gym  # noqa: F401 - registers the ids
from tabletop_gym.wrappers.single_agent import IllegalActionWarning

GAMES = [("Positano-v0", {}), ("RapaNui-v0", {"opponents": "random"})]
IDS = [g for g, _ in GAMES]


_TRAINED: dict[str, pathlib.Path] = {}


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory):
    """Trains on first use: a MaskablePPO trained 2,048 steps on a game, saved as a .zip."""

    class Lazy:
        def __getitem__(self, env_id):
            if env_id not in _TRAINED:
                env = gymnasium.make(env_id, **dict(GAMES)[env_id])
                model = MaskablePPO("MlpPolicy", env, n_steps=512, batch_size=128, n_epochs=2,
                                    seed=0, device="cpu")
                model.learn(2_048)
                assert model.num_timesteps == 2_048
                path = tmp_path_factory.mktemp("ckpt") / f"{env_id}.zip"
                model.save(path)
                _TRAINED[env_id] = path
            return _TRAINED[env_id]

    return Lazy()


@pytest.mark.parametrize(("env_id", "cfg"), GAMES, ids=IDS)
def test_maskable_ppo_saved_model_plays_the_documented_inference_loop(env_id, cfg, checkpoints):
    env = gymnasium.make(env_id, **cfg)
    model = MaskablePPO.load(checkpoints[env_id])
    # The loop of sb3-contrib's MaskablePPO documentation, verbatim except the episode end:
    # get_action_masks finds action_masks() through gymnasium.make's wrappers, and the action
    # predict() returns is a 0-d numpy array.
    obs, _ = env.reset()
    steps = 0
    while True:
        # Retrieve current action mask
        action_masks = get_action_masks(env)
        action, _states = model.predict(obs, action_masks=action_masks)
        obs, reward, terminated, truncated, info = env.step(action)
        steps += 1
        assert "illegal_action" not in info
        if terminated or truncated:
            break
    assert steps > 1
    assert reward in (-1.0, 0.0, 1.0) if env_id == "RapaNui-v0" else reward >= 0


@pytest.mark.parametrize("as_path", [False, True], ids=["str", "pathlib"])
@pytest.mark.parametrize(("env_id", "cfg"), GAMES[1:], ids=IDS[1:])
def test_a_checkpoint_is_an_opponent_through_gymnasium_make(env_id, cfg, checkpoints, as_path):
    # Finding 2: set_opponents took a checkpoint path but gymnasium.make(opponents=path) said
    # "unknown opponent".
    path = checkpoints[env_id] if as_path else str(checkpoints[env_id])
    assert isinstance(path, pathlib.Path) == as_path
    env = gymnasium.make(env_id, opponents=path, num_players=3)
    assert all(isinstance(o, MaskablePPO) for o in env.unwrapped._opponent_specs)
    obs, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    done = False
    while not done:
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, reward, terminated, truncated, info = env.step(action)
        done = terminated or truncated
    assert sorted(info["scores"].values()) == sorted(env.unwrapped.aec.game_state.scores())


def test_unmasked_ppo_is_warned_once_per_env():
    # Finding 8: SB3's PPO ignores masks; its episodes ended at -1 after one step, silently.
    env = gymnasium.make("RapaNui-v0", opponents="random")
    model = PPO("MlpPolicy", env, n_steps=64, batch_size=64, n_epochs=1, seed=0, device="cpu")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.learn(64)
    ours = [w for w in caught if issubclass(w.category, IllegalActionWarning)]
    assert len(ours) == 1
    assert "Choose actions from the mask" in str(ours[0].message)


@pytest.mark.parametrize(("env_id", "cfg"), GAMES, ids=IDS)
def test_get_action_masks_reaches_the_env_through_gymnasium_make(env_id, cfg):
    env = gymnasium.make(env_id, **cfg)
    _, info = env.reset(seed=1)
    np.testing.assert_array_equal(get_action_masks(env), info["action_mask"].astype(bool))
