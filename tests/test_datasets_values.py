"""The learner on the search-annotated action values, played back as a ``jax:<path>`` policy.

``tests/data/games/rapa_nui_2p_annotated`` was written by ``tabletop-gym dataset make --format
parquet --task RapaNui-2p-SelfPlay-v0 --policy heuristic --episodes 4 --seed 0 --annotate 4
--annotated-games 4``: four heuristic games, every decision with a choice annotated.
"""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

from tabletop_gym.agents.base import choose_action
from tabletop_gym.agents.jax_policy import load_policy
from tabletop_gym.agents.kinds import make_agent
from tabletop_gym.arena.envs import raw_env_factory
from tabletop_gym.cli import main
from tabletop_gym.tasks.datasets.cloning import forward
from tabletop_gym.tasks.datasets.games import GameDataset, write_games
from tabletop_gym.tasks.datasets.values import (
    BETAS,
    fit_values,
    held_out_gains,
    play_layer,
    value_targets,
)

pytest.importorskip("torch", reason="the values learner trains with torch (the train extra)")

DATA = pathlib.Path(__file__).resolve().parent / "data" / "games"
ANNOTATED = DATA / "rapa_nui_2p_annotated"


def test_the_targets_are_each_moves_value_less_its_decisions_mean_over_one_spread():
    # Row 0: legal actions 0, 2, 3 valued 0.6, 0.3, 0.9: mean 0.6, centred 0, -0.3, +0.3.
    # Row 1: legal actions 0, 1 valued 0.5, 0.7: mean 0.6, centred -0.1, +0.1.
    # The spread is the root mean square over the five legal moves:
    # sqrt((0 + 0.09 + 0.09 + 0.01 + 0.01) / 5) = sqrt(0.04) = 0.2.
    nan = np.nan
    values = np.array([[0.6, nan, 0.3, 0.9], [0.5, 0.7, nan, nan]], np.float32)
    mask = np.array([[1, 0, 1, 1], [1, 1, 0, 0]], bool)
    targets, scale = value_targets(values, mask)
    assert scale == pytest.approx(0.2, abs=1e-6)
    assert targets == pytest.approx(np.array([[0, 0, -1.5, 1.5], [-0.5, 0.5, 0, 0]]), abs=1e-5)
    # With the fitted rows' spread given (held-out rows use it), the centring is the same.
    targets, scale = value_targets(values, mask, scale=0.1)
    assert scale == 0.1
    assert targets[0] == pytest.approx([0, 0, -3, 3], abs=1e-5)


def test_beta_tilts_the_clones_move_toward_the_valued_one_and_is_scored_by_the_search():
    # A network with no hidden layer on the input 1: policy logits (2, 1, 0), value head
    # (0, 0, 1), so it plays argmax of (2, 1, beta) over the legal moves.
    weights = [(np.array([[2.0, 1.0, 0.0, 0.0, 0.0, 1.0]], np.float32), np.zeros(6, np.float32))]
    raw = np.ones((2, 1), np.float32)
    # Decision 0: all three legal, search values (0.5, 0.4, 0.8), the data played 0.
    # Decision 1: action 2 illegal, values (0.5, 0.6, -), the data played 1.
    mask = np.array([[1, 1, 1], [1, 1, 0]], bool)
    values = np.array([[0.5, 0.4, 0.8], [0.5, 0.6, np.nan]], np.float32)
    gains = held_out_gains(weights, raw, mask, np.array([0, 1]), values, 3)
    assert list(gains) == list(BETAS)
    for beta, gain in gains.items():
        # beta above 2: decision 0 plays 2 (gain 0.8 - 0.5), else 0 (gain 0; at 2 the tie goes
        # to the first); decision 1 always plays 0, as its illegal action 2 never counts
        # (gain 0.5 - 0.6).
        expected = (0.3 - 0.1) / 2 if beta > 2 else (0.0 - 0.1) / 2
        assert gain == pytest.approx(expected, abs=1e-6), beta
    # The played network is one output layer: policy + beta * value.
    (w, b), = play_layer(weights, 3, 4.0)
    assert forward([(w, b)], raw[:1])[0] == pytest.approx([2.0, 1.0, 4.0])


def test_the_learner_fits_both_heads_and_plays_its_saved_legal_moves(tmp_path):
    ds = GameDataset(ANNOTATED)
    arr = ds.arrays()
    choice = arr["action_mask"].sum(axis=1) > 1
    out = tmp_path / "values.npz"
    report = fit_values(ds, out, hidden=(64,), epochs=30, batch_size=32, value_passes=4, seed=0)
    # 4 annotated games: the last (game 3) is both the held-out tenth of the games and the
    # held-out annotated game; the first three fit both heads.
    fitted = int((choice & (arr["game_index"] < 3)).sum())
    assert report.train_decisions == report.annotated_decisions == fitted
    assert report.held_out_annotated == report.valid_decisions == int(
        (choice & (arr["game_index"] == 3)).sum())
    assert list(report.gains) == [f"{b:g}" for b in BETAS]
    best = max(report.gains.values())
    assert report.gains[f"{report.beta:g}"] == best
    assert all(report.gains[f"{b:g}"] < best for b in BETAS if b < report.beta)
    _arrays, meta = load_policy(out)
    assert meta["train"]["beta"] == report.beta and meta["critic"] is False
    assert meta["train"]["annotation"]["simulations"] == 4
    # jax:<path> plays the saved layer; a whole game of legal moves.
    env = raw_env_factory("rapa_nui")(num_players=2)
    agent = make_agent(f"jax:{out}", env.game, env.observer)
    env.reset(seed=7)
    while not env.game_state.is_terminal():
        env.step(choose_action(agent, env, env.agent_selection))


def test_the_value_head_learns_which_moves_the_search_prefers(tmp_path):
    # Played on the value head alone (beta 64), the fitted network's moves on its own annotated
    # decisions are worth more by the search than the heuristic's recorded moves: it has
    # learned the values, not copied the moves. With beta 0 (the clone alone) they are worth
    # about what the recorded moves are.
    ds = GameDataset(ANNOTATED)
    arr = ds.arrays()
    rows = np.flatnonzero((arr["action_mask"].sum(axis=1) > 1) & (arr["game_index"] < 3))
    values = arr["search_values"][rows]
    taken = values[np.arange(len(rows)), arr["action"][rows]]
    gain = {}
    for beta in (0.0, 64.0):
        out = tmp_path / f"values-{beta:g}.npz"
        fit_values(ds, out, hidden=(64,), epochs=30, batch_size=32, value_passes=4, beta=beta,
                   seed=0)
        agent = make_agent(f"jax:{out}", *_game_and_observer())
        moves = np.array([agent.act({"observation": arr["observation"][i],
                                     "action_mask": arr["action_mask"][i]}) for i in rows])
        gain[beta] = float(np.mean(values[np.arange(len(rows)), moves] - taken))
    assert gain[64.0] > 0.03, gain
    assert gain[64.0] > gain[0.0] + 0.03, gain


def _game_and_observer() -> tuple:
    env = raw_env_factory("rapa_nui")(num_players=2)
    return env.game, env.observer


def test_a_dataset_without_annotations_is_refused_naming_it(tmp_path):
    folder = tmp_path / "plain"
    write_games(folder, "RapaNui-2p-SelfPlay-v0", "random", games=2, seed=0)
    out = tmp_path / "values.npz"
    with pytest.raises(ValueError, match=r"plain/games\.parquet: search-annotated decisions in "
                                         r"0 of its games.*--annotate SIMULATIONS"):
        fit_values(GameDataset(folder), out)
    # The shared sample annotates its first game only: one is not enough.
    with pytest.raises(ValueError, match="in 1 of its games; the values learner needs them in "
                                         "at least 2"):
        fit_values(GameDataset(DATA / "rapa_nui_2p"), out)
    assert not out.exists()


def test_the_baseline_command_runs_the_values_learner_on_a_made_dataset(tmp_path, capsys):
    from tabletop_gym.tasks.datasets.offline import offline_baseline

    res = offline_baseline("RapaNui-2p-SelfPlay-v0", "heuristic", 4, "RapaNui-2p-vsHeuristic-v0",
                           epochs=1, hidden=(8,), work=tmp_path, seeds=1, deals_per_seed=1,
                           method="values", annotate=4, annotated_games=4, data=ANNOTATED)
    manifest = json.loads((ANNOTATED / "manifest.json").read_text())
    assert res["method"] == "values learner on search annotations"
    assert res["command"].endswith("--annotate 4 --annotated-games 4 --method values "
                                   "--value-weight 1 --value-passes 1")
    assert res["dataset"]["sha256"] == manifest["files"][0]["sha256"]
    assert res["dataset"]["cpu_seconds"] == round(manifest["making"]["cpu_seconds"], 1)
    assert res["dataset"]["annotation"]["simulations"] == 4
    assert res["dataset"]["annotated_decisions"] == 492  # every decision with a choice
    assert res["learner"]["beta"] in BETAS and res["score"]["task"]["games"] == 2
    json.dumps(res)
    # A dataset of other settings, and the learner without annotations, are refused before
    # any game or file.
    with pytest.raises(ValueError, match=r"made with other settings: games 4 \(asked: 5\)"):
        offline_baseline("RapaNui-2p-SelfPlay-v0", "heuristic", 5, "RapaNui-2p-vsHeuristic-v0",
                         work=tmp_path / "x", method="values", annotate=4, annotated_games=4,
                         data=ANNOTATED)
    out = tmp_path / "r.json"
    assert main(["dataset", "baseline", "--source-task", "RapaNui-2p-SelfPlay-v0", "--policy",
                 "heuristic", "--games", "3", "--task", "RapaNui-2p-vsHeuristic-v0",
                 "--method", "values", "--out", str(out)]) == 2
    assert "the values learner needs annotated games" in capsys.readouterr().err
    assert not out.exists() and not (tmp_path / "x").exists()
