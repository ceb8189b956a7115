"""Minari datasets of a task's single-agent view, read back with Minari's own API.

Minari's data folder is the test's tmp folder (MINARI_DATASETS_PATH), never the user's.
"""

from __future__ import annotations

import json
import pathlib

import gymnasium
import numpy as np
import pytest

import tabletop_gym
from tabletop_gym.arena.stats import normalize
from tabletop_gym.cli import main
from tabletop_gym.tasks.datasets.games import DatasetError
from tabletop_gym.tasks.datasets.minari_view import (
    CHECKSUMS,
    dataset_id,
    load_minari,
    make_minari,
    write_checksums,
)

# The datasets extra installs Minari where it runs: Python 3.11 or later.
minari = pytest.importorskip("minari", reason="Minari needs Python 3.11+ and the datasets extra")

TASK = "RapaNui-2p-vsHeuristic-v0"
REFERENCES = pathlib.Path(tabletop_gym.__file__).parent / "tasks" / "reference_scores.json"


@pytest.fixture
def minari_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path / "minari"))
    return tmp_path / "minari"


@pytest.fixture
def made(minari_dir):
    make_minari(TASK, "heuristic", 4, seed=0)
    return minari_dir / "tabletop_gym" / TASK / "heuristic-v0"


def test_the_id_names_task_and_policy():
    assert dataset_id(TASK, "heuristic") == f"tabletop_gym/{TASK}/heuristic-v0"
    assert dataset_id(TASK, "ismcts:200:guided") == f"tabletop_gym/{TASK}/ismcts-200-guided-v0"


def test_minari_loads_iterates_and_samples_the_episodes(made):
    ds = minari.load_dataset(dataset_id(TASK, "heuristic"))
    assert ds.total_episodes == 4
    episodes = list(ds.iterate_episodes())
    assert [e.id for e in episodes] == [0, 1, 2, 3]
    assert ds.total_steps == sum(len(e.actions) for e in episodes)
    for e in episodes:
        masks = e.observations["action_mask"]
        assert masks.shape == (len(e.actions) + 1, 45)  # Rapa Nui's 45 action ids
        assert np.all(masks[np.arange(len(e.actions)), e.actions] == 1)  # every action legal
        # win_loss: nothing before the end, then +1, -1 or 0 (a tie)
        assert np.all(e.rewards[:-1] == 0) and e.rewards[-1] in (-1.0, 0.0, 1.0)
        assert e.terminations[-1] and not e.terminations[:-1].any()
    sampled = ds.sample_episodes(3)
    assert len(sampled) == 3 and len({e.id for e in sampled}) == 3


def test_the_steps_are_what_the_task_env_shows(made):
    # Episode i is reset(seed=i) of the task: replayed on the recovered env, its actions give
    # exactly the stored observations (the opponents are seeded by the reset too).
    ds = minari.load_dataset(dataset_id(TASK, "heuristic"))
    env = ds.recover_environment()
    assert env.spec.id == TASK
    assert env.observation_space == ds.observation_space
    for e in ds.iterate_episodes([0, 1]):
        obs, _ = env.reset(seed=e.id)
        for t, action in enumerate(e.actions):
            assert np.array_equal(obs["observation"], e.observations["observation"][t])
            assert np.array_equal(obs["action_mask"], e.observations["action_mask"][t])
            obs, reward, terminated, _, _ = env.step(int(action))
            assert reward == e.rewards[t] and terminated == e.terminations[t]


def test_the_reference_scores_are_the_results_pages(made):
    refs = json.loads(REFERENCES.read_text())["tasks"][TASK]
    low, high = refs["random"]["score"], refs["heuristic"]["score"]  # -0.987 and 0.033
    ds = minari.load_dataset(dataset_id(TASK, "heuristic"))
    assert ds.storage.metadata["ref_min_score"] == low
    assert ds.storage.metadata["ref_max_score"] == high
    # (-0.477 + 0.987) / (0.033 + 0.987) = 0.51 / 1.02 = 0.5
    assert minari.get_normalized_score(ds, np.array([low, high, -0.477])) == pytest.approx(
        [0.0, 1.0, 0.5])
    returns = np.array([e.rewards.sum() for e in ds.iterate_episodes()])
    assert minari.get_normalized_score(ds, returns.mean()) == pytest.approx(
        normalize(returns.mean(), low, high))


def test_eval_env_is_the_task_with_its_pinned_opponents(made):
    ds = minari.load_dataset(dataset_id(TASK, "heuristic"))
    env = ds.recover_environment(eval_env=True)
    assert env.spec.id == TASK
    inner = env.unwrapped
    assert inner.aec.game.num_players == 2
    assert inner._opponent_specs == ["heuristic"]
    assert inner.seat_mode == "rotate"


@pytest.mark.parametrize(("task", "message"), [
    ("RapaNui-2p-SelfPlay-v0", "is a self-play task"),
    ("Nope-v0", "unknown task id 'Nope-v0'"),
])
def test_tasks_without_a_single_agent_view_are_refused(minari_dir, task, message):
    with pytest.raises(ValueError, match=message):
        make_minari(task, "random", 1)
    assert not (minari_dir / "tabletop_gym").exists()


def test_an_existing_dataset_is_not_overwritten(made):
    with pytest.raises(ValueError, match="already exists"):
        make_minari(TASK, "heuristic", 1)


# --- bad files, through load_minari -------------------------------------------------------------


def _data_file(folder: pathlib.Path) -> pathlib.Path:
    return folder / "data" / "main_data.hdf5"


def test_a_truncated_data_file_is_named(made):
    part = _data_file(made)
    size = part.stat().st_size
    part.write_bytes(part.read_bytes()[:100])
    with pytest.raises(DatasetError) as err:
        load_minari(dataset_id(TASK, "heuristic"))
    assert str(err.value) == (f"{part}: is 100 bytes, {CHECKSUMS} says {size}: truncated or "
                              "replaced since it was written")


def test_a_tampered_data_file_is_named(made):
    part = _data_file(made)
    raw = bytearray(part.read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    part.write_bytes(bytes(raw))
    with pytest.raises(DatasetError, match=f"{part}: SHA-256 differs"):
        load_minari(dataset_id(TASK, "heuristic"))


def test_a_dataset_without_our_checksums_is_foreign(made):
    (made / CHECKSUMS).unlink()
    with pytest.raises(DatasetError, match=f"{made / CHECKSUMS}: missing; .* not written by "
                                           "make_minari"):
        load_minari(dataset_id(TASK, "heuristic"))


def test_a_file_added_after_writing_is_named(made):
    extra = made / "data" / "extra.hdf5"
    extra.write_bytes(b"x")
    with pytest.raises(DatasetError, match=f"{extra}: not listed in {CHECKSUMS}"):
        load_minari(dataset_id(TASK, "heuristic"))


def test_a_file_minari_cannot_read_is_one_error(made):
    part = _data_file(made)
    part.write_bytes(b"not hdf5")
    write_checksums(made)  # the checksums agree: Minari's own reader meets the bad file
    with pytest.raises(DatasetError, match=f"{made / 'data'}: Minari cannot load it "
                                           r"\(OSError: "):
        load_minari(dataset_id(TASK, "heuristic"))


def test_no_such_dataset(minari_dir):
    with pytest.raises(DatasetError, match="no Minari dataset tabletop_gym/x/y-v0 here"):
        load_minari("tabletop_gym/x/y-v0")


def test_the_command_makes_a_minari_dataset(minari_dir, capsys):
    assert main(["dataset", "make", "--task", "Positano-Solo-v0", "--policy", "random",
                 "--episodes", "2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("tabletop_gym/Positano-Solo-v0/random-v0: 2 episodes, ")
    ds = load_minari("tabletop_gym/Positano-Solo-v0/random-v0")
    assert ds.total_episodes == 2
    assert isinstance(ds.recover_environment().observation_space, gymnasium.spaces.Dict)
    assert main(["dataset", "make", "--task", "Positano-Solo-v0", "--policy", "random,random",
                 "--episodes", "1"]) == 2
    assert "a Minari dataset records one seat" in capsys.readouterr().err
