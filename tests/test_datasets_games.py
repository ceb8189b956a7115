"""The multi-agent games format: the committed samples replay exactly, and bad files are refused.

The samples in tests/data/games were written by ``tabletop-gym dataset make --format parquet``
(their manifests hold the commands): Rapa Nui 2p, heuristic in both seats, 3 games with the first
annotated by the guided search at 24 simulations; Positano 2p, heuristic against random, 3 games.
"""

from __future__ import annotations

import json
import pathlib
import shutil

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tabletop_gym.cli import main
from tabletop_gym.tasks.datasets.games import (
    DATA_NAME,
    MANIFEST_NAME,
    DatasetError,
    GameDataset,
    check_replay,
    merge_games,
    sha256,
    write_games,
)

SAMPLES = pathlib.Path(__file__).resolve().parent / "data" / "games"
RAPA_NUI = SAMPLES / "rapa_nui_2p"
POSITANO = SAMPLES / "positano_2p"


def _copy(tmp_path: pathlib.Path, sample: pathlib.Path = RAPA_NUI) -> pathlib.Path:
    out = tmp_path / sample.name
    shutil.copytree(sample, out)
    return out


def _rewrite_manifest(folder: pathlib.Path, **changes) -> None:
    """Make the manifest agree with the data file as it now is (size, checksum), plus changes."""
    path = folder / MANIFEST_NAME
    doc = json.loads(path.read_text())
    data = folder / DATA_NAME
    doc["files"][0].update(bytes=data.stat().st_size, sha256=sha256(data))
    doc.update(changes)
    path.write_text(json.dumps(doc))


def _rewrite_table(folder: pathlib.Path, table: pa.Table) -> None:
    pq.write_table(table, folder / DATA_NAME)
    _rewrite_manifest(folder)


# --- the round trip -----------------------------------------------------------------------------


@pytest.mark.parametrize("sample", [RAPA_NUI, POSITANO], ids=lambda p: p.name)
def test_every_game_of_the_sample_replays_row_for_row_through_the_env(sample):
    ds = GameDataset(sample)
    assert ds.num_games == 3
    # Every row: the env's seat to act, its observe() (vector and mask), the public string, and
    # after the last row the returns, compared exactly.
    assert check_replay(ds) == len(ds)
    for game in ds.games():
        # win_loss with two seats: +1 the winner, -1 the other, 0 both on a tie
        assert sorted(game.returns.tolist()) in ([-1.0, 1.0], [0.0, 0.0])
        assert np.all(game.masks[np.arange(len(game.actions)), game.actions] == 1)


def test_a_sealed_bid_is_stored_as_its_public_string_only():
    # docs/rules/positano.md §3.1: bids are chosen secretly and revealed together, so a seat's row tells the
    # others only that a bid was committed, never which cards.
    strings = [s for g in GameDataset(POSITANO).games() for s in g.action_strings]
    assert strings[:2] == ["commits a sealed bid", "commits a sealed bid"]
    assert not any("booster" in s.lower() for s in strings if "bid" in s)


@pytest.mark.parametrize(("column", "message"), [
    ("observation", r"game 0 \(deal seed 0\), step 5: observation differs from the env's at 1 "
                    r"entries \(first: index 3\)"),
    ("action_mask", r"game 0 \(deal seed 0\), step 5: action_mask differs"),
    ("action_string", r"game 0 \(deal seed 0\), step 5: action_string differs"),
])
def test_the_replay_finds_a_row_that_is_not_what_its_seat_saw(tmp_path, column, message):
    folder = _copy(tmp_path)
    table = pq.read_table(folder / DATA_NAME)
    values = table.column(column).to_pylist()
    if column == "observation":
        values[5][3] += 1.0
    elif column == "action_mask":
        values[5] = [1 - x for x in values[5]]
    else:
        values[5] = values[5] + " (edited)"
    i = table.schema.get_field_index(column)
    table = table.set_column(i, table.schema.field(i),
                             pa.array(values, table.schema.field(i).type))
    _rewrite_table(folder, table)
    ds = GameDataset(folder)  # checksums and schema agree: only the replay can tell
    with pytest.raises(DatasetError, match=message):
        check_replay(ds)


# --- the reader ---------------------------------------------------------------------------------


def test_games_decisions_and_arrays_agree():
    ds = GameDataset(RAPA_NUI)
    arr = ds.arrays()
    assert arr["observation"].shape == (len(ds), 213) and arr["observation"].dtype == np.float32
    assert arr["action_mask"].shape == (len(ds), 45)
    games = list(ds.games())
    assert [g.index for g in games] == [0, 1, 2]
    assert [g.deal_seed for g in games] == [0, 1, 2]
    assert sum(len(g.actions) for g in games) == len(ds) == len(list(ds.decisions()))
    first = next(ds.decisions())
    assert first["step"] == 0 and first["seat"] == 0
    assert np.array_equal(first["observation"], games[0].observations[0])


def test_a_batch_is_rows_of_the_file():
    ds = GameDataset(RAPA_NUI)
    batch = ds.sample(64, seed=0)
    assert batch["observation"].shape == (64, 213)
    # each drawn action is legal under its own row's mask
    assert np.all(batch["action_mask"][np.arange(64), batch["action"]] == 1)
    again = ds.sample(64, seed=0)
    assert np.array_equal(batch["action"], again["action"])
    with pytest.raises(ValueError, match="batch_size must be a positive integer"):
        ds.sample(0)


def test_annotated_rows_value_every_legal_move():
    ds = GameDataset(RAPA_NUI)
    arr = ds.arrays()
    games = list(ds.games())
    # only the first game is annotated, and there every decision with a choice
    choice = arr["action_mask"].sum(axis=1) > 1
    first = arr["game_index"] == 0
    assert np.array_equal(arr["annotated"], choice & first)
    # the counts read from the file without building the arrays say the same
    assert ds.annotated_games == 1
    assert ds.annotated_decisions == int((choice & first).sum()) > 0
    assert GameDataset(POSITANO).annotated_games == GameDataset(POSITANO).annotated_decisions == 0
    batch = ds.sample(32, seed=1, annotated=True)
    legal = batch["action_mask"] == 1
    assert np.array_equal(~np.isnan(batch["search_values"]), legal)
    values = batch["search_values"][legal]
    assert np.all((values >= 0) & (values <= 1))
    assert games[1].search == [None] * len(games[1].actions)
    with pytest.raises(ValueError, match="has no annotated decisions"):
        GameDataset(POSITANO).sample(4, annotated=True)


def test_annotating_does_not_change_the_games_played(tmp_path):
    # The sample's first game was annotated; played again without the search, it is the same.
    ds = write_games(tmp_path / "plain", "RapaNui-2p-SelfPlay-v0", "heuristic", games=1, seed=0)
    sample = next(GameDataset(RAPA_NUI).games())
    plain = next(ds.games())
    assert np.array_equal(plain.actions, sample.actions)
    assert np.array_equal(plain.observations, sample.observations)
    assert not ds.arrays()["annotated"].any()


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"games": 0}, "games must be a positive integer"),
    ({"policy": ["heuristic"] * 3}, r"give one policy for every seat \(2\)"),
    ({"policy": "nobody"}, "unknown opponent 'nobody'"),
    ({"annotated_games": 1}, "needs annotate"),
    ({"annotate": 1, "annotated_games": 1}, "at least 2"),
    ({"annotate": "ismcts:8:guided", "annotated_games": 1},
     r"an integer, at least 2\) or a batched search's spec"),
    # A word that only begins like the search's is no search spec (the agent-kind registry
    # decides), and a bool is not a number of simulations.
    ({"annotate": "searchlight", "annotated_games": 1}, r"got 'searchlight'"),
    ({"annotate": True, "annotated_games": 1}, r"got True"),
    ({"annotate": "search:jax-ppo?worlds=0", "annotated_games": 1},
     r"worlds in 'search:jax-ppo\?worlds=0' must be an integer in 1\.\.1024"),
    ({"task": "Nope-v0"}, "unknown task id 'Nope-v0'"),
    ({"task": "RapaNui-v0"}, "configurable id"),
])
def test_bad_arguments_are_refused_before_anything_is_written(tmp_path, kwargs, message):
    args = {"task": "RapaNui-2p-SelfPlay-v0", "policy": "random", "games": 1, **kwargs}
    out = tmp_path / "out"
    with pytest.raises(ValueError, match=message):
        write_games(out, **args)
    assert not out.exists()


def test_an_existing_dataset_is_not_overwritten(tmp_path):
    folder = _copy(tmp_path)
    before = (folder / DATA_NAME).read_bytes()
    with pytest.raises(ValueError, match="already holds a games dataset"):
        write_games(folder, "RapaNui-2p-SelfPlay-v0", "random", games=1)
    assert (folder / DATA_NAME).read_bytes() == before



# --- merging parts ------------------------------------------------------------------------------

TASK = "RapaNui-2p-SelfPlay-v0"


@pytest.fixture(scope="module")
def parts(tmp_path_factory):
    """Three parts over deals 0-1, 2-4 and 5: the first with its first game annotated."""
    root = tmp_path_factory.mktemp("parts")
    return [write_games(root / "a", TASK, "random", games=2, seed=0, annotate=2,
                        annotated_games=1),
            write_games(root / "b", TASK, "random", games=3, seed=2),
            write_games(root / "c", TASK, "random", games=1, seed=5)]


def test_merged_parts_are_their_rows_in_order_with_games_numbered_on(tmp_path, parts):
    merged = merge_games([p.folder for p in parts], tmp_path / "m")
    arr = merged.arrays()
    assert merged.num_games == 6 and len(merged) == sum(len(p) for p in parts)
    # Games 0-1 from the first part, 2-4 from the second, 5 from the third; each deal once.
    assert [g.deal_seed for g in merged.games()] == [0, 1, 2, 3, 4, 5]
    assert [g.index for g in merged.games()] == [0, 1, 2, 3, 4, 5]
    for column in ("observation", "action_mask", "action", "seat", "step", "returns",
                   "deal_seed"):
        assert np.array_equal(arr[column], np.concatenate([p.arrays()[column] for p in parts]))
    assert np.array_equal(arr["annotated"], np.concatenate([p.arrays()["annotated"]
                                                            for p in parts]))
    assert arr["annotated"].sum() == parts[0].arrays()["annotated"].sum() > 0
    assert check_replay(merged) == len(merged)


def test_the_merged_metadata_lists_its_parts_and_sums_their_making(tmp_path, parts):
    merged = merge_games([p.folder for p in parts], tmp_path / "m")
    meta = merged.metadata
    assert (meta["first_deal_seed"], meta["games"], meta["decisions"]) == (0, 6, len(merged))
    assert meta["annotation"] == parts[0].metadata["annotation"]  # 1 annotated game, the first
    assert [(q["first_deal_seed"], q["games"], q["annotated_games"]) for q in meta["parts"]] \
        == [(0, 2, 1), (2, 3, 0), (5, 1, 0)]
    assert [q["name"] for q in meta["parts"]] == ["a", "b", "c"]
    assert [q["sha256"] for q in meta["parts"]] == [p.manifest["files"][0]["sha256"]
                                                    for p in parts]
    assert meta["parts"][1]["command"] == parts[1].manifest["making"]["command"]
    making = merged.manifest["making"]
    assert making["cpu_seconds"] == pytest.approx(sum(p.manifest["making"]["cpu_seconds"]
                                                      for p in parts), abs=2e-3)
    assert making["command"] == "tabletop-gym dataset merge a b c --out m"
    assert GameDataset(tmp_path / "m").metadata == meta  # the manifest and the file agree


def test_a_merged_set_merges_again_and_keeps_its_parts(tmp_path, parts):
    first = merge_games([p.folder for p in parts[:2]], tmp_path / "ab")
    merged = merge_games([first.folder, parts[2].folder], tmp_path / "abc")
    assert [g.deal_seed for g in merged.games()] == [0, 1, 2, 3, 4, 5]
    assert [q["first_deal_seed"] for q in merged.metadata["parts"][0]["parts"]] == [0, 2]
    once = merge_games([p.folder for p in parts], tmp_path / "once")
    assert np.array_equal(merged.arrays()["observation"], once.arrays()["observation"])


def test_fully_annotated_parts_may_be_followed_by_more_annotated_ones(tmp_path):
    a = write_games(tmp_path / "a", TASK, "random", games=1, seed=0, annotate=2,
                    annotated_games=1)
    b = write_games(tmp_path / "b", TASK, "random", games=2, seed=1, annotate=2,
                    annotated_games=1)
    merged = merge_games([a.folder, b.folder], tmp_path / "m")
    assert merged.metadata["annotation"]["annotated_games"] == merged.annotated_games == 2
    assert [p["annotated_games"] for p in merged.metadata["parts"]] == [1, 1]
    assert merged.arrays()["annotated"].sum() == (a.arrays()["annotated"].sum()
                                                  + b.arrays()["annotated"].sum())


@pytest.mark.parametrize(("first", "second", "reverse", "message"), [
    # The first part deals 0-1; a part from deal 3 leaves deal 2 out.
    ({}, {"seed": 3}, False, r"deals from seed 3; after the parts before it the next deal is 2"),
    # Given in the wrong order: after the part of deal 2 the next deal is 3.
    ({}, {}, True, r"deals from seed 0; after the parts before it the next deal is 3"),
    ({}, {"policy": "heuristic"}, False, r"its policies differ"),
    ({}, {"task": "RapaNui-3p-SelfPlay-v0"}, False,
     # The same observation and action sizes, but a third seat and its policy.
     r"its task, env_kwargs, num_players, policies differ"),
    # Game 1 of the first part is not annotated, so game 2 may not be.
    ({}, {"annotate": 2, "annotated_games": 1}, False, r"annotated games after games without"),
    ({"annotated_games": 2}, {"annotate": 3, "annotated_games": 1}, False,
     r"annotated by 'ismcts:3:guided', an earlier part by 'ismcts:2:guided'"),
])
def test_parts_that_do_not_join_are_refused_before_anything_is_written(tmp_path, first, second,
                                                                        reverse, message):
    a = write_games(tmp_path / "a", **{"task": TASK, "policy": "random", "games": 2, "seed": 0,
                                       "annotate": 2, "annotated_games": 1, **first})
    b = write_games(tmp_path / "b", **{"task": TASK, "policy": "random", "games": 1, "seed": 2,
                                       **second})
    folders = [b.folder, a.folder] if reverse else [a.folder, b.folder]
    out = tmp_path / "m"
    with pytest.raises(ValueError, match=message):
        merge_games(folders, out)
    assert not out.exists()


@pytest.mark.parametrize("given", [[], ["a"], "a"])
def test_a_merge_needs_two_parts(tmp_path, given):
    with pytest.raises(ValueError, match="two or more games datasets"):
        merge_games([tmp_path / g for g in given] if isinstance(given, list) else given,
                    tmp_path / "m")


def test_a_merge_does_not_overwrite_a_dataset_or_read_a_broken_part(tmp_path, parts):
    folder = _copy(tmp_path)
    before = (folder / DATA_NAME).read_bytes()
    with pytest.raises(ValueError, match="already holds a games dataset"):
        merge_games([p.folder for p in parts], folder)
    assert (folder / DATA_NAME).read_bytes() == before
    broken = tmp_path / "broken"
    shutil.copytree(parts[1].folder, broken)
    (broken / DATA_NAME).write_bytes((broken / DATA_NAME).read_bytes()[:100])
    with pytest.raises(DatasetError, match="is 100 bytes"):
        merge_games([parts[0].folder, broken], tmp_path / "m")
    assert not (tmp_path / "m").exists()

# --- bad files ----------------------------------------------------------------------------------


def test_a_truncated_file_is_named(tmp_path):
    folder = _copy(tmp_path)
    data = folder / DATA_NAME
    size = data.stat().st_size
    data.write_bytes(data.read_bytes()[: size // 2])
    with pytest.raises(DatasetError) as err:
        GameDataset(folder)
    assert str(err.value) == (f"{data}: is {size // 2} bytes, the manifest says {size}: "
                              "truncated or replaced since it was written")


def test_a_tampered_byte_is_found_by_the_checksum(tmp_path):
    folder = _copy(tmp_path)
    data = folder / DATA_NAME
    raw = bytearray(data.read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    data.write_bytes(bytes(raw))
    with pytest.raises(DatasetError, match=f"{data}: SHA-256 differs from the manifest's"):
        GameDataset(folder)


def test_a_truncated_file_with_a_matching_manifest_is_not_parquet(tmp_path):
    folder = _copy(tmp_path)
    data = folder / DATA_NAME
    data.write_bytes(data.read_bytes()[:1000])
    _rewrite_manifest(folder)
    with pytest.raises(DatasetError, match=f"{data}: not a readable Parquet file"):
        GameDataset(folder)


def test_a_foreign_parquet_file_is_refused(tmp_path):
    folder = _copy(tmp_path)
    _rewrite_table(folder, pa.table({"x": [1, 2, 3]}))
    with pytest.raises(DatasetError, match="without tabletop-gym games metadata"):
        GameDataset(folder)


def test_a_bare_parquet_file_without_its_manifest_is_refused(tmp_path):
    data = tmp_path / "other.parquet"
    pq.write_table(pa.table({"x": [1]}), data)
    with pytest.raises(DatasetError, match=f"{data}: no manifest.json beside it"):
        GameDataset(data)


@pytest.mark.parametrize(("text", "message"), [
    ("not json {", "not a games manifest \\(not JSON"),
    (json.dumps({"format": "minari"}), "not a games manifest: its format is 'minari', expected 'tabletop-gym-games'"),
    (json.dumps([1, 2]), "not a games manifest: its format is 'list'"),
])
def test_a_foreign_manifest_is_refused(tmp_path, text, message):
    folder = _copy(tmp_path)
    (folder / MANIFEST_NAME).write_text(text)
    with pytest.raises(DatasetError, match=f"{folder / MANIFEST_NAME}: {message}"):
        GameDataset(folder)


def test_a_newer_format_version_is_refused(tmp_path):
    folder = _copy(tmp_path)
    _rewrite_manifest(folder, format_version=2)
    with pytest.raises(DatasetError, match="format version 2; this tabletop-gym reads versions "
                                           "1 to 1"):
        GameDataset(folder)


def test_columns_that_break_the_schema_are_named(tmp_path):
    folder = _copy(tmp_path)
    table = pq.read_table(folder / DATA_NAME)
    _rewrite_table(folder, table.drop_columns(["action_string"]))
    with pytest.raises(DatasetError, match="columns do not match format version 1: "
                                           "action_string: missing"):
        GameDataset(folder)


def test_steps_out_of_order_are_named(tmp_path):
    folder = _copy(tmp_path)
    table = pq.read_table(folder / DATA_NAME)
    steps = table.column("step").to_pylist()
    steps[7], steps[8] = steps[8], steps[7]
    i = table.schema.get_field_index("step")
    _rewrite_table(folder, table.set_column(i, table.schema.field(i), pa.array(steps, pa.int32())))
    with pytest.raises(DatasetError, match="row 7: step 8, expected 7"):
        GameDataset(folder)


# --- the command --------------------------------------------------------------------------------


def test_the_command_makes_and_verifies_a_games_dataset(tmp_path, capsys):
    out = tmp_path / "games"
    assert main(["dataset", "make", "--format", "parquet", "--task", "RapaNui-2p-SelfPlay-v0",
                 "--policy", "random,heuristic", "--episodes", "2", "--out", str(out)]) == 0
    assert capsys.readouterr().out.startswith(f"{out}: 2 games, ")
    assert GameDataset(out).metadata["policies"] == ["random", "heuristic"]
    assert main(["dataset", "verify", str(out)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["games"] == 2 and summary["replayed"] == summary["decisions"] > 0
    data = out / DATA_NAME
    data.write_bytes(data.read_bytes()[:100])
    assert main(["dataset", "verify", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{data}: is 100 bytes" in err


def test_the_command_merges_parts(tmp_path, capsys, parts):
    out = tmp_path / "merged"
    assert main(["dataset", "merge", *[str(p.folder) for p in parts], "--out", str(out)]) == 0
    line = capsys.readouterr().out
    assert line.startswith(f"{out}: 6 games from 3 parts, {sum(len(p) for p in parts)} "
                           f"decisions, {int(parts[0].arrays()['annotated'].sum())} annotated")
    assert main(["dataset", "merge", str(parts[1].folder), str(parts[0].folder),
                 "--out", str(tmp_path / "wrong")]) == 2
    # Deals 2-4 given first: the next deal is 5, and part a deals from 0.
    assert "a deals from seed 0; after the parts before it the next deal is 5" in \
        capsys.readouterr().err
