"""Same seed, same game: across episodes, with the global RNGs disturbed, and across processes."""

from __future__ import annotations

import hashlib
import os
import random
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from tests.configs import ENGINE_CONFIGS, config_id, raw_env

GAMES = 20


def trajectory_digest(game: str, cfg: dict, seed: int, disturb: int | None) -> str:
    """Play one seeded random game through the AEC env; hash everything every agent saw."""
    env = raw_env(game, **cfg)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    h = hashlib.sha256()
    step = 0
    for agent in env.agent_iter():
        if disturb is not None:
            # Polluting the global generators must change nothing.
            random.seed(disturb * 7919 + step)
            np.random.seed((disturb * 104729 + step) % 2**32)
            random.random()
            np.random.random()
        obs, reward, term, trunc, info = env.last()
        h.update(agent.encode())
        h.update(obs["observation"].tobytes())
        h.update(obs["action_mask"].tobytes())
        h.update(repr((reward, term, trunc)).encode())
        if term or trunc:
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        step += 1
    return h.hexdigest()


@pytest.mark.parametrize("item", ENGINE_CONFIGS, ids=config_id)
def test_same_seed_same_game_with_global_rngs_disturbed(item):
    game, cfg = item
    digests = []
    for seed in range(GAMES):
        a = trajectory_digest(game, cfg, seed, disturb=None)
        b = trajectory_digest(game, cfg, seed, disturb=seed + 1)
        assert a == b, f"seed {seed} diverged when the global RNGs were disturbed"
        digests.append(a)
    assert len(set(digests)) == GAMES  # different seeds deal different games


@pytest.mark.parametrize("item", [ENGINE_CONFIGS[0], ENGINE_CONFIGS[5]], ids=config_id)
def test_reset_without_seed_continues_the_stream(item):
    game, cfg = item
    env1, env2 = raw_env(game, **cfg), raw_env(game, **cfg)
    env1.reset(seed=5)
    env2.reset(seed=5)
    first = env1.game_state.to_json()
    env1.reset()
    env2.reset()
    assert env1.game_state == env2.game_state
    assert env1.game_state.to_json() != first


def test_same_game_in_a_fresh_process_with_another_hash_seed():
    code = textwrap.dedent(
        """
        from tests.test_determinism import trajectory_digest
        print(trajectory_digest("rapa_nui", {"num_players": 3}, 17, None))
        print(trajectory_digest("positano", {"num_players": 4}, 17, None))
        """
    )
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONHASHSEED="12345")
    out = subprocess.run([sys.executable, "-c", code], cwd=root, env=env, check=True,
                         capture_output=True, text=True).stdout.split()
    assert out == [trajectory_digest("rapa_nui", {"num_players": 3}, 17, None),
                   trajectory_digest("positano", {"num_players": 4}, 17, None)]
