"""Dataset cards: what a dataset holds and how it was made, read from its own files."""

from __future__ import annotations

import json
import pathlib
import shutil

import numpy as np
import pytest

from tabletop_gym.cli import main
from tabletop_gym.tasks.datasets.cards import (
    CARD_FORMAT,
    games_card,
    load_card,
    minari_card,
    save_card,
)
from tabletop_gym.tasks.datasets.games import DatasetError

pytest.importorskip("pyarrow", reason="games datasets need the datasets extra")

SAMPLE = pathlib.Path(__file__).resolve().parent / "data" / "games" / "rapa_nui_2p"


def test_a_games_card_is_the_manifest_and_the_counts_of_the_file():
    card = games_card(SAMPLE)
    manifest = json.loads((SAMPLE / "manifest.json").read_text())
    assert card["kind"] == "games" and card["name"] == "rapa_nui_2p" and card["licence"] == "MIT"
    assert card["task"] == "RapaNui-2p-SelfPlay-v0"
    assert card["policies"] == ["heuristic", "heuristic"]
    assert (card["games"], card["decisions"]) == (3, 415)
    # --annotated-games 1: game 0's decisions with a choice are annotated, 113 of its 125 rows.
    assert card["annotated"] == 113 and card["annotation"]["simulations"] == 24
    assert card["sha256"] == manifest["files"][0]["sha256"]
    assert card["bytes"] == manifest["files"][0]["bytes"] == (SAMPLE / "games.parquet").stat().st_size
    assert card["command"] == manifest["making"]["command"]
    assert card["commit"] == manifest["metadata"]["provenance"]["commit"]
    assert card["manifest"] == manifest


def test_the_command_writes_a_card_and_a_tampered_dataset_gets_none(tmp_path, capsys):
    out = tmp_path / "cards" / "c.json"
    assert main(["dataset", "card", str(SAMPLE), "--name", "sample", "--out", str(out)]) == 0
    assert load_card(out) == {**games_card(SAMPLE), "name": "sample"}
    folder = tmp_path / "copy"
    shutil.copytree(SAMPLE, folder)
    data = bytearray((folder / "games.parquet").read_bytes())
    data[100] ^= 0xFF
    (folder / "games.parquet").write_bytes(bytes(data))
    with pytest.raises(DatasetError, match="SHA-256"):
        games_card(folder)
    bad = tmp_path / "bad.json"
    assert main(["dataset", "card", str(folder), "--out", str(bad)]) == 2
    assert "games.parquet" in capsys.readouterr().err
    assert not bad.exists()


@pytest.mark.parametrize("text, message", [
    ("{", "not a readable JSON dataset card"),
    ('{"format": "something-else", "version": 1}', "not a dataset card"),
    (json.dumps({"format": CARD_FORMAT, "version": 99}), "card version 99"),
])
def test_a_file_that_is_not_a_card_is_refused(tmp_path, text, message):
    path = tmp_path / "card.json"
    path.write_text(text)
    with pytest.raises(ValueError, match=message):
        load_card(path)


def test_a_minari_card_holds_the_checksums_and_the_normalised_return(tmp_path, monkeypatch):
    minari = pytest.importorskip("minari", reason="Minari needs Python 3.11+")
    from tabletop_gym.tasks.datasets.minari_view import make_minari, reference_scores

    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path / "minari"))
    task = "RapaNui-2p-vsHeuristic-v0"
    make_minari(task, "heuristic", 3, seed=0)
    name = f"tabletop_gym/{task}/heuristic-v0"
    card = minari_card(name)
    folder = tmp_path / "minari" / name
    checksums = json.loads((folder / "checksums.json").read_text())
    assert card["checksums"] == checksums and card["kind"] == "minari"
    assert card["bytes"] == sum((folder / rel).stat().st_size for rel in checksums["files"])
    assert card["sha256"] == {rel: f["sha256"] for rel, f in checksums["files"].items()}
    ds = minari.load_dataset(name)
    returns = np.array([ep.rewards.sum() for ep in ds.iterate_episodes()])
    assert (card["episodes"], card["decisions"]) == (3, ds.total_steps)
    assert card["task"] == task and card["policies"] == ["heuristic"]
    # The results page's normalisation: (return - random) / (heuristic - random), here of the
    # mean and of the ends of its normal-approximation interval.
    low, high = reference_scores(task)
    half = 1.96 * returns.std(ddof=1) / np.sqrt(3)
    norm = card["normalised_return"]
    assert norm["mean"] == pytest.approx((returns.mean() - low) / (high - low), abs=1e-4)
    assert norm["high"] - norm["mean"] == pytest.approx(half / (high - low), abs=2e-4)
    assert card["command"] == (f"tabletop-gym dataset make --task {task} --policy heuristic "
                               "--episodes 3 --seed 0")
    out = save_card(card, tmp_path / "m.json")
    assert load_card(out) == card
