"""``tabletop-gym suite train``: a recipe per (task, seed), scored by the protocol, resumable.

Tiny budgets and one deal per evaluation seed keep this quick; the recipes' real budgets are
on the results page.
"""

from __future__ import annotations

import json

import pytest

from tabletop_gym.cli import main
from tabletop_gym.tasks import SUITES
from tabletop_gym.tasks.train import RECIPES, gather, train_suite

pytest.importorskip("sb3_contrib")  # the train extra, installed by make test

TASK = "RapaNui-2p-vsHeuristic-v0"


@pytest.fixture(autouse=True)
def tiny_population(monkeypatch):
    """The held-out scores of a trained row on one deal against two cheap opponents."""
    from tabletop_gym.tasks import held_out

    monkeypatch.setattr(held_out, "SEEDS", 1)
    monkeypatch.setattr(held_out, "GAMES_PER_OPPONENT", 2)
    monkeypatch.setattr(held_out, "POPULATION",
                        {**held_out.POPULATION, "rapa_nui": ("heuristic:mystic", "random")})


def test_sb3_recipe_trains_scores_and_resumes(tmp_path):
    calls = []
    recipe = RECIPES["sb3-ppo"]
    real = recipe.train

    def counted(task, seed, out_dir, timesteps, overrides):
        calls.append((task.id, seed, timesteps))
        return real(task, seed, out_dir, timesteps, overrides)

    object.__setattr__(recipe, "train", counted)
    try:
        doc = train_suite("core", "sb3-ppo", seeds=2, out=tmp_path, timesteps=128,
                          task_ids=[TASK], deals_per_seed=1, eval_seeds=1)
        assert calls == [(TASK, 0, 128), (TASK, 1, 128)]
        for seed in (0, 1):
            res = json.loads((tmp_path / "sb3-ppo" / TASK / f"seed-{seed}" / "result.json")
                             .read_text())
            assert res["recipe"] == "sb3-ppo" and res["recipe_version"] == recipe.version
            assert res["seed"] == seed and res["timesteps_budget"] == 128
            assert res["training"]["timesteps"] >= 128
            assert res["training"]["env_kwargs"]["opponents"] == "heuristic"
            # one deal from each of the 2 seats, one evaluation seed
            assert res["row"]["games"] == 2 and res["protocol"]["deals_per_seed"] == {TASK: 1}
            assert (tmp_path / "sb3-ppo" / TASK / f"seed-{seed}" / "model.zip").is_file()
            # and scored against the held-out population: one deal from both seats
            assert {o: c["games"] for o, c in res["held_out"]["by_opponent"].items()} == {
                "heuristic:mystic": 2, "random": 2}
        assert doc["seeds_complete"] == [0, 1]
        assert doc["aggregate"]["runs"] == 2 and doc["aggregate"]["tasks"] == [TASK]
        # resumed: the finished (task, seed) pairs are not trained again, a new seed is
        again = train_suite("core", "sb3-ppo", seeds=3, out=tmp_path, timesteps=128,
                            task_ids=[TASK], deals_per_seed=1, eval_seeds=1)
        assert calls[2:] == [(TASK, 2, 128)]
        assert again["seeds_complete"] == [0, 1, 2]
        assert gather(tmp_path, "sb3-ppo", "core", [TASK], write=False)["runs"] == again["runs"]
        # The file summarises the whole suite, not only the tasks of the last run: every core
        # task is listed (the others with no finished seed), and no seed is complete on all.
        summary = json.loads((tmp_path / "sb3-ppo" / "results.json").read_text())
        assert set(summary["runs"]) == set(SUITES["core"].task_ids)
        assert sorted(summary["runs"][TASK]) == ["0", "1", "2"]
        assert summary["seeds_complete"] == []
        # A row finished before the held-out population gets its scores from its checkpoint
        # on the next run, and is not trained again.
        path = tmp_path / "sb3-ppo" / TASK / "seed-0" / "result.json"
        res = json.loads(path.read_text())
        kept = res.pop("held_out")
        path.write_text(json.dumps(res))
        train_suite("core", "sb3-ppo", seeds=3, out=tmp_path, timesteps=128, task_ids=[TASK],
                    deals_per_seed=1, eval_seeds=1)
        assert calls[3:] == []
        assert json.loads(path.read_text())["held_out"] == kept
    finally:
        object.__setattr__(recipe, "train", real)


def test_bad_requests_are_refused_before_anything_is_written(tmp_path, capsys):
    with pytest.raises(ValueError, match="unknown recipe 'sb4'"):
        train_suite("core", "sb4", out=tmp_path)
    with pytest.raises(ValueError, match="not in suite 'core'"):
        train_suite("core", "sb3-ppo", out=tmp_path, task_ids=["Positano-6p-SelfPlay-v0"])
    with pytest.raises(ValueError, match="at least 1"):
        train_suite("core", "sb3-ppo", out=tmp_path, timesteps=0)
    assert not any(tmp_path.iterdir())
    assert main(["suite", "train", "--algo", "sb3-ppo", "--timesteps", "0",
                 "--out", str(tmp_path)]) == 2
    assert "at least 1" in capsys.readouterr().err


def test_jax_recipe_trains_from_scratch_and_plays_by_numpy(tmp_path):
    pytest.importorskip("jax")  # the jax extra, installed by make test
    tiny = {"num_envs": 8, "num_steps": 8, "minibatches": 2, "epochs": 1, "eval_envs": 2,
            "hidden": [8], "pool_every": 1, "pool_size": 2}
    doc = train_suite("core", "jax-ppo", seeds=1, out=tmp_path, timesteps=64, task_ids=[TASK],
                      deals_per_seed=1, eval_seeds=1, overrides=tiny)
    res = json.loads((tmp_path / "jax-ppo" / TASK / "seed-0" / "result.json").read_text())
    assert res["overrides"] == tiny  # marked: not the recipe's own settings
    # A task against the heuristic bot trains against the shipped distilled heuristic.
    assert res["training"]["settings"]["opponents"] == "heuristic-net"
    assert res["training"]["settings"]["opponent_net"].endswith("heuristic_net_rapa_nui_2p.npz")
    assert res["training"]["timesteps"] >= 64
    # where it trained is recorded: a GPU and a CPU run of one seed round differently
    assert res["training"]["jax_backend"] == "cpu" and res["training"]["device"]
    assert (tmp_path / "jax-ppo" / TASK / "seed-0" / "policy.npz").is_file()
    assert res["row"]["games"] == 2 and doc["seeds_complete"] == [0]


def test_jax_recipe_opponents_per_task():
    from tabletop_gym.tasks import TASKS
    from tabletop_gym.tasks.train import jax_settings

    got = {t: jax_settings(TASKS[t], {})["opponents"] for t in (
        "Positano-Solo-v0", "Positano-2p-vsHeuristic-v0", "Positano-4p-SelfPlay-v0",
        "RapaNui-2p-vsHeuristic-v0", "RapaNui-4p-SelfPlay-v0")}
    assert got == {"Positano-Solo-v0": "self", "Positano-2p-vsHeuristic-v0": "heuristic-net",
                   "Positano-4p-SelfPlay-v0": "self", "RapaNui-2p-vsHeuristic-v0": "heuristic-net",
                   "RapaNui-4p-SelfPlay-v0": "self"}
    # An override of the opponents drops the distilled net that went with the recipe's own.
    assert jax_settings(TASKS["RapaNui-2p-vsHeuristic-v0"], {"opponents": "pool"}) == {
        "opponents": "pool"}
    # A task against the heuristic with no distilled net shipped for its table is refused.
    with pytest.raises(ValueError, match="no distilled heuristic for positano with 3 players"):
        jax_settings(TASKS["Positano-3p-vsHeuristic-v0"], {})


def test_only_seeds_trains_just_those_and_refuses_others(tmp_path, capsys):
    calls = []
    recipe = RECIPES["sb3-ppo"]
    real = recipe.train

    def counted(task, seed, out_dir, timesteps, overrides):
        calls.append(seed)
        return real(task, seed, out_dir, timesteps, overrides)

    object.__setattr__(recipe, "train", counted)
    try:
        # One process per seed: seed 2 of 0..4 alone, the others left to other processes.
        train_suite("core", "sb3-ppo", seeds=5, out=tmp_path, timesteps=128, task_ids=[TASK],
                    deals_per_seed=1, eval_seeds=1, only_seeds=[2])
        assert calls == [2]
        assert [p.name for p in (tmp_path / "sb3-ppo" / TASK).iterdir()] == ["seed-2"]
    finally:
        object.__setattr__(recipe, "train", real)
    for bad in ([5], [-1], []):
        with pytest.raises(ValueError, match=r"not among 0\.\.4"):
            train_suite("core", "sb3-ppo", seeds=5, out=tmp_path / "no", only_seeds=bad)
    assert not (tmp_path / "no").exists()
    assert main(["suite", "train", "--algo", "sb3-ppo", "--seed", "7",
                 "--out", str(tmp_path / "no")]) == 2
    assert "[7] are not among 0..4" in capsys.readouterr().err
    assert not (tmp_path / "no").exists()


def test_bc_recipe_clones_the_heuristics_games_of_its_seeds_own_deals(tmp_path):
    pytest.importorskip("pyarrow")
    from tabletop_gym.tasks.datasets.games import write_games
    from tabletop_gym.tasks.train import BC_DEALS_PER_SEED, BC_FIRST_DEAL

    run = tmp_path / "bc" / TASK / "seed-1"
    # A run killed while playing its games left a partial file: the rerun plays them afresh.
    (run / "games").mkdir(parents=True)
    (run / "games" / "games.parquet").write_bytes(b"PAR1 cut short")
    train_suite("core", "bc", seeds=2, out=tmp_path, timesteps=3, task_ids=[TASK],
                deals_per_seed=1, eval_seeds=1, overrides={"epochs": 1, "hidden": [8]},
                only_seeds=[1])
    res = json.loads((run / "result.json").read_text())
    info = res["training"]
    # Seed 1 clones 3 games dealt from 100,000 + 10,000: the same games a games dataset of
    # the heuristic in both seats from that deal holds, so the recorded checksum is theirs.
    assert info["first_deal"] == BC_FIRST_DEAL + BC_DEALS_PER_SEED == 110_000
    again = write_games(tmp_path / "again", TASK, "heuristic", 3, seed=110_000)
    assert info["dataset_sha256"] == again.manifest["files"][0]["sha256"]
    assert (info["games"], info["decisions"]) == (3, len(again))
    assert info["settings"] == {"policy": "heuristic", "hidden": [8], "epochs": 1}
    # The games are removed once fitted; the policy plays by numpy and was scored.
    assert not (run / "games").exists() and (run / "policy.npz").is_file()
    assert res["row"]["games"] == 2 and res["overrides"] == {"epochs": 1, "hidden": [8]}


@pytest.mark.parametrize(("timesteps", "overrides", "message"), [
    (10_001, {}, r"the games it clones, 2\.\.10000 \(a seed's block of deals\); got 10001"),
    (1, {}, r"2\.\.10000 .*got 1"),
    (4, {"lr": 1.0}, r"unknown bc settings \['lr'\]; known: \['epochs', 'hidden', 'policy'\]"),
])
def test_bc_recipe_refuses_a_bad_budget_before_anything_is_written(tmp_path, timesteps,
                                                                   overrides, message):
    with pytest.raises(ValueError, match=message):
        train_suite("core", "bc", seeds=1, out=tmp_path, timesteps=timesteps, task_ids=[TASK],
                    overrides=overrides)
    assert not any(tmp_path.iterdir())
