"""Behaviour cloning on a games dataset, played back as a ``jax:<path>`` policy."""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

from tabletop_gym.agents.base import choose_action
from tabletop_gym.agents.kinds import make_agent
from tabletop_gym.arena.envs import raw_env_factory
from tabletop_gym.cli import main
from tabletop_gym.tasks.datasets.cloning import clone
from tabletop_gym.tasks.datasets.games import GameDataset

pytest.importorskip("torch", reason="behaviour cloning trains with torch (the train extra)")

SAMPLE = pathlib.Path(__file__).resolve().parent / "data" / "games" / "rapa_nui_2p"


def test_the_clone_fits_its_games_and_plays_them_back_as_saved(tmp_path):
    ds = GameDataset(SAMPLE)
    out = tmp_path / "bc.npz"
    report = clone(ds, out, hidden=(64,), epochs=40, batch_size=64, seed=0)
    arr = ds.arrays()
    choice = arr["action_mask"].sum(axis=1) > 1
    # 3 games: the first two are fitted, the last is held out
    assert report.train_decisions == int((choice & (arr["game_index"] < 2)).sum())
    assert report.valid_decisions == int((choice & (arr["game_index"] == 2)).sum())
    assert report.train_accuracy > 0.9  # a 64-unit MLP all but memorises its 236 decisions
    # The saved checkpoint, played by jax:<path> on the raw observations, makes the choices the
    # report counted: its accuracy on the fitted rows is the report's, to the last decision.
    env = raw_env_factory("rapa_nui")(num_players=2)
    agent = make_agent(f"jax:{out}", env.game, env.observer)
    rows = np.flatnonzero(choice & (arr["game_index"] < 2))
    played = [agent.act({"observation": arr["observation"][i],
                         "action_mask": arr["action_mask"][i]}) for i in rows]
    assert np.mean(np.array(played) == arr["action"][rows]) == report.train_accuracy
    env.reset(seed=11)
    while not env.game_state.is_terminal():  # a whole game of legal moves
        env.step(choose_action(agent, env, env.agent_selection))


def test_the_command_clones_and_refuses_bad_widths(tmp_path, capsys):
    out = tmp_path / "bc.npz"
    assert main(["dataset", "clone", str(SAMPLE), "--out", str(out), "--hidden", "16",
                 "--epochs", "1"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["out"] == str(out) and out.is_file()
    assert main(["dataset", "clone", str(SAMPLE), "--out", str(out), "--hidden", "a,b"]) == 2
    assert "--hidden takes widths separated by commas" in capsys.readouterr().err
