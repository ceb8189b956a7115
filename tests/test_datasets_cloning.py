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


def test_an_offline_baseline_makes_clones_and_scores_in_one_call(tmp_path):
    from tabletop_gym.tasks.datasets.offline import offline_baseline, save

    res = offline_baseline("RapaNui-2p-SelfPlay-v0", "heuristic", 4, "RapaNui-2p-vsHeuristic-v0",
                      epochs=1, hidden=(8,), work=tmp_path, seeds=1, deals_per_seed=2)
    ds = GameDataset(tmp_path / "games")
    # The file's dataset is the one the call wrote, named by its checksum.
    assert res["dataset"]["games"] == 4 == ds.num_games
    assert res["dataset"]["decisions"] == len(ds)
    assert res["dataset"]["sha256"] == ds.manifest["files"][0]["sha256"]
    assert (res["dataset"]["made_by"], res["dataset"]["parts"]) == (
        ds.manifest["making"]["command"], 1)
    # 4 games: 3 fitted, the last held out; only decisions with a choice count.
    arr = ds.arrays()
    choice = arr["action_mask"].sum(axis=1) > 1
    assert res["clone"]["train_decisions"] == int((choice & (arr["game_index"] < 3)).sum())
    assert res["clone"]["valid_decisions"] == int((choice & (arr["game_index"] == 3)).sum())
    # Scored as the suite scores: 1 seed x 2 deals, each from both seats = 4 games.
    row = res["score"]["task"]
    assert row["id"] == "RapaNui-2p-vsHeuristic-v0" and row["games"] == 4
    assert res["score"]["protocol"]["deals_per_seed"] == {"RapaNui-2p-vsHeuristic-v0": 2}
    assert res["command"].startswith("tabletop-gym dataset baseline --source-task "
                                     "RapaNui-2p-SelfPlay-v0 --policy heuristic --games 4 ")
    out = save(res, tmp_path / "r" / "bc.json")
    assert json.loads(out.read_text())["clone"] == res["clone"]


@pytest.mark.parametrize("args, message", [
    (("RapaNui-2p-SelfPlay-v0", "heuristic", 4, "Positano-2p-vsHeuristic-v0"),
     "of different games"),
    (("RapaNui-2p-SelfPlay-v0", "heuristic", 1, "RapaNui-2p-vsHeuristic-v0"),
     "games must be at least 2"),
    (("NoSuch-v0", "heuristic", 4, "RapaNui-2p-vsHeuristic-v0"), "unknown task 'NoSuch-v0'"),
    (("RapaNui-2p-SelfPlay-v0", "heuristic", 4, "NoSuch-v0"), "unknown task 'NoSuch-v0'"),
])
def test_an_offline_baseline_refuses_bad_settings_before_any_game(tmp_path, args, message):
    from tabletop_gym.tasks.datasets.offline import offline_baseline

    with pytest.raises(ValueError, match=message):
        offline_baseline(*args, work=tmp_path)
    assert list(tmp_path.iterdir()) == []  # nothing was written


def test_a_positano_clone_saves_the_game_config_without_the_env_switches(tmp_path):
    # The games were played with split_bids=False (an env switch, not a rule of the game); the
    # checkpoint names the game's configuration only, so jax:<path> loads it and plays.
    sample = SAMPLE.parent / "positano_2p"
    assert "split_bids" in GameDataset(sample).metadata["env_kwargs"]
    out = tmp_path / "bc.npz"
    clone(GameDataset(sample), out, hidden=(8,), epochs=1)
    env = raw_env_factory("positano")(num_players=2)
    agent = make_agent(f"jax:{out}", env.game, env.observer)
    env.reset(seed=3)
    for _ in range(5):
        env.step(choose_action(agent, env, env.agent_selection))


def test_an_offline_baseline_on_a_dataset_made_in_parts_says_so(tmp_path):
    from tabletop_gym.tasks.datasets.games import merge_games, write_games
    from tabletop_gym.tasks.datasets.offline import offline_baseline

    parts = [write_games(tmp_path / "p0", "RapaNui-2p-SelfPlay-v0", "heuristic", 2, seed=0),
             write_games(tmp_path / "p2", "RapaNui-2p-SelfPlay-v0", "heuristic", 2, seed=2)]
    merged = merge_games([p.folder for p in parts], tmp_path / "games")
    res = offline_baseline("RapaNui-2p-SelfPlay-v0", "heuristic", 4, "RapaNui-2p-vsHeuristic-v0",
                           epochs=1, hidden=(8,), work=tmp_path / "w", seeds=1,
                           deals_per_seed=1, data=merged.folder)
    assert res["dataset"]["parts"] == 2
    assert res["dataset"]["made_by"] == "tabletop-gym dataset merge p0 p2 --out games"
    assert res["dataset"]["decisions"] == len(parts[0]) + len(parts[1])
    assert res["dataset"]["cpu_seconds"] == round(merged.manifest["making"]["cpu_seconds"], 1)
