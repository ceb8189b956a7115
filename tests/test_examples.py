"""Every example runs in CI with a short budget (never skipped)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(*args: str) -> str:
    out = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True,
                         timeout=600, env=dict(os.environ, MPLBACKEND="Agg"))
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


def test_random_play_example():
    out = run("examples/random_play.py", "--games", "1")
    assert out.count("game 0") == 3


def test_train_and_evaluate_saved_model_examples(tmp_path):
    model = str(tmp_path / "model.zip")
    out = run("examples/train_maskable_ppo.py", "--timesteps", "1024", "--eval-episodes", "3",
              "--save", model)
    assert "mean episode reward" in out
    out = run("examples/evaluate_saved_model.py", model, "--games", "6")
    assert "random" in out and "heuristic" in out


def test_self_play_example():
    out = run("examples/self_play.py", "--timesteps", "2048", "--snapshot-every", "1024",
              "--eval-games", "4")
    assert "self-play" in out


@pytest.mark.parametrize(("env_id", "warm_up"), [
    ("Positano-v0", "behaviour cloning (value) from heuristic"),
    ("RapaNui-v0", "behaviour cloning (gain) from ismcts:24:guided"),
])
def test_cli_train_short_budget(tmp_path, env_id, warm_up):
    # each env's own recipe (training.recipe), its warm-up on one game
    out = run("-m", "tabletop_gym.cli", "train", "--env", env_id, "--timesteps", "1024",
              "--eval-games", "4", "--n-envs", "2", "--no-progress", "--out", str(tmp_path),
              "--hp", "bc_games=1", "bc_epochs=1")
    assert "win rate" in out and warm_up in out
    runs = list(tmp_path.iterdir())
    assert len(runs) == 1
    names = {p.name for p in runs[0].iterdir()}
    assert {"model.zip", "evaluation.csv", "evaluation.json", "learning_curve.csv",
            "learning_curve.png", "summary.json"} <= names


def test_cli_play_a_whole_game_from_the_terminal(tmp_path):
    record = tmp_path / "game.json"
    out = subprocess.run(
        [sys.executable, "-m", "tabletop_gym.cli", "play", "--game", "rapa_nui", "--players", "2",
         "--opponent", "random", "--seed", "3", "--save-record", str(record)],
        cwd=ROOT, input="0\n" * 400, capture_output=True, text=True, timeout=300,
    )
    assert out.returncode == 0, out.stderr
    assert "your choice" in out.stdout and "scores:" in out.stdout
    from tabletop_gym.core.records import GameRecord

    rec = GameRecord.from_json(record.read_text())
    assert rec.replay().is_terminal()


def test_cli_eval_prints_and_saves(tmp_path):
    out = run("-m", "tabletop_gym.cli", "eval", "--game", "positano", "--players", "3",
              "--candidate", "heuristic", "--opponent", "random", "--games", "6",
              "--out", str(tmp_path / "res"))
    assert "heuristic" in out and "win rate" in out
    assert (tmp_path / "res.csv").exists() and (tmp_path / "res.json").exists()
