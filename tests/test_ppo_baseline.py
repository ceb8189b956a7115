"""The trained baselines: log-scaled observations, tuned training settings, shipped checkpoints."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pytest

from tabletop_gym.agents.base import make_agent
from tabletop_gym.evaluation import _raw_env_factory


def test_log_scaled_extractor_by_hand():
    torch = pytest.importorskip("torch")
    import gymnasium

    from tabletop_gym.agents.ppo import LogScaledExtractor

    space = gymnasium.spaces.Box(low=0, high=np.array([1, 663, 10], dtype=np.float32))
    ext = LogScaledExtractor(space)
    out = ext(torch.tensor([[1.0, 5.0, 0.0], [0.0, 663.0, 10.0]]))
    # the binary first feature passes; counts become log1p: log(6), log(664), 0, log(11)
    want = [[1.0, math.log(6), 0.0], [0.0, math.log(664), math.log(11)]]
    assert out.numpy() == pytest.approx(np.array(want, dtype=np.float32), rel=1e-6)
    assert ext.features_dim == 3


def test_train_with_time_limit_and_settings_records_them(tmp_path):
    pytest.importorskip("sb3_contrib")
    from tabletop_gym.training import DEFAULT_HPARAMS, train

    res = train("RapaNui-v0", timesteps=10_000_000, out=tmp_path, n_envs=2, eval_games=0,
                progress_bar=False, verbose=False, time_limit=3.0,
                hparams={"net_arch": [16], "n_steps": 64, "batch_size": 64})
    assert 0 < res.timesteps < 10_000_000  # stopped by the time limit
    summary = json.loads((res.run_dir / "summary.json").read_text())
    assert summary["hparams"] == {**DEFAULT_HPARAMS, "net_arch": [16], "n_steps": 64,
                                  "batch_size": 64}
    assert summary["env_kwargs"]["seat_mode"] == "rotate"
    assert summary["metadata"]["package"] == "tabletop-gym"
    from sb3_contrib import MaskablePPO

    from tabletop_gym.agents.ppo import LogScaledExtractor

    model = MaskablePPO.load(res.run_dir / "model.zip", device="cpu")
    assert isinstance(model.policy.features_extractor, LogScaledExtractor)
    with pytest.raises(ValueError, match="unknown hparams"):
        train("RapaNui-v0", timesteps=64, out=tmp_path, hparams={"lr": 1})


def test_ppo_without_a_checkpoint_for_the_config_says_which_exist():
    env = _raw_env_factory("positano")(num_players=3)
    with pytest.raises(ValueError, match="no trained checkpoint for positano with 3"):
        make_agent("ppo", env.game, env.observer)


def test_core_and_search_do_not_import_torch():
    code = ("import sys, tabletop_gym, tabletop_gym.agents.ismcts, tabletop_gym.league, "
            "tabletop_gym.baselines, tabletop_gym.evaluation;"
            "from tabletop_gym.evaluation import evaluate;"
            "evaluate('rapa_nui', 'ismcts:3', 'heuristic', n_games=1, num_players=2);"
            "print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"
