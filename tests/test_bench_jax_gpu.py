"""``bench/jax_gpu.py``: its rounds name real trainers and every row makes a valid config.

The script itself runs on a GPU machine; here only what can go wrong before it gets there is
checked (no compile): the names, the configs, and that a trainer's opponents are the ones the
docs say.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.scripts import load_script

pytest.importorskip("flax")

jax_gpu = load_script("bench/jax_gpu.py", "jax_gpu")


def test_every_round_names_trainers_that_exist_once():
    named = [n for names in jax_gpu.ROUNDS.values() for n in names]
    assert sorted(named) == sorted(jax_gpu.TRAINERS)


@pytest.mark.parametrize("row", jax_gpu.SPEED_ROWS, ids=lambda r: f"{r['game']}-{r['num_envs']}")
def test_speed_rows_are_self_play_at_a_batch_of_at_least_4096(row):
    config = jax_gpu._config(row, smoke=False, opponents="self")
    assert config.opponents == "self" and config.num_envs >= 4096
    assert config.num_steps == 64 and (config.epochs, config.minibatches) == (4, 4)


@pytest.mark.parametrize("name", sorted(jax_gpu.TRAINERS))
def test_trainer_configs_are_valid_and_smoke_shrinks_them(name):
    row = jax_gpu.TRAINERS[name]
    config = jax_gpu.trainer_config(name)
    assert config.hidden == tuple(row["hidden"]) and config.num_envs == row["num_envs"]
    assert config.gamma == row.get("gamma", 0.99)
    assert config.opponents == row.get("opponents", "heuristic-net")
    # Against the distilled heuristic: the shipped net of the trainer's game.
    assert (config.opponent_net is None) == (config.opponents != "heuristic-net")
    if config.opponent_net:
        assert Path(config.opponent_net).name == f"heuristic_net_{row['game']}_2p.npz"
    small = jax_gpu.trainer_config(name, smoke=True)
    assert (small.num_envs, small.hidden, small.num_steps) == (8, (8,), 8)


def test_an_unknown_role_is_refused_before_anything_runs(capsys):
    with pytest.raises(SystemExit):
        jax_gpu.main(["--out", "unused", "--role", "nobody"])
    assert "invalid choice: 'nobody'" in capsys.readouterr().err
