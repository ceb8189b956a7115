"""Data parallelism over local devices: two host CPU devices give what one gives."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tabletop_gym.jax.devices import data_mesh, split_games

ROOT = Path(__file__).parents[2]

# Run in a fresh process: the device count is fixed when JAX starts.
TWO_DEVICES = textwrap.dedent("""
    import json

    import jax
    import jax.numpy as jnp
    import numpy as np

    from tabletop_gym.envs.rapa_nui.env import raw_env
    from tabletop_gym.jax.core import make
    from tabletop_gym.jax.devices import data_mesh
    from tabletop_gym.jax.search import SearchAgent, search_fn
    from tabletop_gym.jax.train import TrainConfig, Trainer

    out = {"devices": len(jax.local_devices())}
    cfg = TrainConfig(num_envs=8, num_steps=4, minibatches=2, epochs=1, hidden=(8,),
                      eval_envs=0)
    runs = {}
    for devices in (1, None):
        t = Trainer(make("rapa_nui", num_players=2), cfg, devices=devices)
        init, update = t.compiled
        r = init(jax.random.split(jax.random.PRNGKey(0), 2))
        for _ in range(2):
            r, m = update(r)
        runs[devices] = (jax.device_get(r.params), np.asarray(r.timestep.observation),
                         float(m["learner_steps"].sum()))
        sharding = r.timestep.observation.sharding
        out[f"split_{devices}"] = list(getattr(sharding, "spec", ["one device"]))
    gaps = jax.tree.map(lambda a, b: float(np.abs(np.asarray(a) - np.asarray(b)).max()),
                        runs[1][0], runs[None][0])
    out["param_gap"] = max(jax.tree.leaves(gaps))
    out["same_games"] = bool((runs[1][1] == runs[None][1]).all())
    out["steps"] = [runs[1][2], runs[None][2]]

    env = raw_env(num_players=2)
    env.reset(seed=11)
    while len(env.game_state.legal_actions()) < 3:  # a decision with a choice to search
        env.step(int(env.game_state.legal_actions()[0]))
    state = env.game_state
    agent = SearchAgent(env.game, env.observer, 0, "search:heuristic-net?worlds=4")
    s = agent.module.from_reference(state)
    found = []
    for devices in (1, None):
        fn = search_fn(**agent.compiled_for(4), devices=devices)
        action, cands, values, steps = jax.device_get(
            fn(agent.net.layers, s, state.current_player(), jax.random.PRNGKey(5),
               jnp.float32(1.0)))
        found.append([int(action), cands.tolist(), values.tolist(), int(steps)])
    out["search"] = found
    try:
        data_mesh(9)
    except ValueError as e:
        out["uneven"] = str(e)
    print(json.dumps(out))
""")


def test_two_host_devices_train_and_search_as_one_does():
    env = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=2",
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", TWO_DEVICES], env=env, capture_output=True,
                          text=True, timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["devices"] == 2
    # The games are split over both devices (the seeds' axis whole), and nothing else changes:
    # the same games (every random draw is the one device's), the same decisions learned from,
    # and the networks equal up to the order of the gradient's sums.
    assert out["split_1"] == ["one device"]
    assert out["split_None"] == [None, "games"]
    assert out["same_games"] and out["steps"][0] == out["steps"][1] > 0
    assert out["param_gap"] < 1e-5
    # The search: the same move, candidates and continuations; values to float rounding.
    (a1, c1, v1, s1), (a2, c2, v2, s2) = out["search"]
    assert (a1, c1, s1) == (a2, c2, s2)
    assert max(abs(x - y) for x, y in zip(v1, v2, strict=True)) < 1e-6
    assert out["uneven"] == ("9 games cannot be split evenly over 2 devices: make the batch "
                             "(num_envs + eval_envs, or the search's candidates x worlds) a "
                             "multiple of 2, or use devices=1")


@pytest.mark.parametrize("devices", [0, 2, True, 1.0, "all"])
def test_a_device_count_this_machine_lacks_is_refused(devices):
    import jax

    if len(jax.local_devices()) != 1:
        pytest.fail("this test expects the test process to see one device")
    with pytest.raises(ValueError, match=r"devices must be an integer from 1 to the 1 local "
                                         r"device\(s\), or None for all of them"):
        data_mesh(8, devices)


def test_one_device_changes_nothing():
    assert data_mesh(7) is None and data_mesh(8, 1) is None
    tree = {"a": [1, 2]}
    assert split_games(tree, None) is tree
