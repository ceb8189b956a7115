"""The twins' primitives (``tabletop_gym.core.batched``): where they may be loaded, and ``decode``."""

from __future__ import annotations

import pathlib
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np

from tabletop_gym.core.batched import decode
from tabletop_gym.envs.positano.actions import BIDS
from tabletop_gym.envs.rapa_nui.rules import PLAY_HG, PLAY_HG_RANGE

ROOT = pathlib.Path(__file__).resolve().parents[2]

WITHOUT_JAX = """
import sys
sys.modules["jax"] = None  # `import jax` fails, as on a core install
import gymnasium
import tabletop_gym
import tabletop_gym.cli
from tabletop_gym.envs import positano_v0, rapa_nui_v0
from tabletop_gym.registry import game_specs
for spec in game_specs():
    spec.game_class(), spec.envs()
gymnasium.make("RapaNui-v0").reset(seed=0)
env = positano_v0.env(num_players=2)
env.reset(seed=0)
env.observe(env.agent_selection)
loaded = sorted(m for m in sys.modules if m.rsplit(".", 1)[-1] == "batched")
assert not loaded, loaded
try:
    import tabletop_gym.core.batched
except ImportError:
    print("refused")
"""


def test_a_core_install_loads_no_twin_and_the_twins_need_jax():
    # core/ and envs/ now hold JAX modules (core/batched.py, envs/<game>/batched.py): the
    # package, its envs, the registry's lookups and the command must load without them.
    done = subprocess.run([sys.executable, "-c", WITHOUT_JAX], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "refused"


def test_decode_is_the_action_layouts_decoding_of_traced_ids():
    # docs/rules/rapa_nui.md §3 phase 2: id 16 plays 3 H&G of kind 2 (index (2, 2): count − 1);
    # id 8, the first of the range, plays 1 of kind 0. An id outside the range reads as its
    # nearest end (the twin masks those out).
    kind, less = jax.jit(lambda a: decode(PLAY_HG_RANGE, a))(jnp.array([16, PLAY_HG, 0, 44]))
    assert np.asarray(kind).tolist() == [2, 0, 0, 3] and np.asarray(less).tolist() == [2, 0, 0, 2]
    # Positano's bids: card c with booster b is id 6c + b (docs/rules/positano.md §3.1: 7 × 6).
    card, booster = decode(BIDS, jnp.array([[23, 41], [0, -1]], jnp.int8))
    assert np.asarray(card).tolist() == [[3, 6], [0, 0]]
    assert np.asarray(booster).tolist() == [[5, 5], [0, 0]]
