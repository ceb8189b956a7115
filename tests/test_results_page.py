"""docs/results.md cannot go stale: it is what the committed files give, and they replay."""

from __future__ import annotations

import json
import pathlib

import pytest

from tabletop_gym.cli import main
from tabletop_gym.tasks import SUITES, TASKS, held_out, results
from tabletop_gym.tasks.runner import load_references, score_task

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORE = list(SUITES["core"].task_ids)


def test_the_page_is_what_the_committed_files_give(monkeypatch):
    monkeypatch.chdir(ROOT)
    assert results.check(), "docs/results.md is stale: run `tabletop-gym suite results`"
    assert results.check_baselines(), "docs/baselines.md is stale: run `tabletop-gym suite results`"
    assert main(["suite", "results", "--check"]) == 0


def test_the_pipeline_writes_the_baselines_page_from_its_numbers(tmp_path, capsys):
    # One results pipeline: beside the results page, docs/baselines.md is rewritten from the
    # committed docs/baselines.json (what `make baselines` measured), byte for byte the
    # committed page, and --check fails on a stale one.
    committed = (ROOT / "docs" / "baselines.md").read_text()
    out = tmp_path / "results.md"
    assert results.baselines_page(out) is None  # no numbers file beside it: no page to write
    (tmp_path / "baselines.json").write_text((ROOT / "docs" / "baselines.json").read_text())
    (tmp_path / "baselines.md").write_text("old\n")
    args = ["suite", "results", "--root", str(ROOT / "benchmarks"), "--out", str(out)]
    assert main([*args, "--no-figure"]) == 0
    assert (tmp_path / "baselines.md").read_text() == committed
    assert f"saved {tmp_path / 'baselines.md'}" in capsys.readouterr().out
    assert main([*args, "--check"]) == 0
    (tmp_path / "baselines.md").write_text(committed.replace("| 0.", "| 1.", 1))
    assert main([*args, "--check"]) == 1
    assert f"{tmp_path / 'baselines.md'} is stale" in capsys.readouterr().err


def test_a_slice_of_the_references_replays():
    # The random agent's seed 0 of solo Positano: every deal of that seed played again.
    refs = load_references()
    task = TASKS["Positano-Solo-v0"]
    ref = refs["tasks"][task.id]
    got = score_task(task, "random", [0], int(ref["deals_per_seed"]))
    assert got["per_seed"][0] == pytest.approx(ref["random"]["per_seed"][0], abs=1e-12)


def test_a_slice_of_the_held_out_references_replays():
    # The heuristic bot against the Positano loner: the cell the held-out table prints.
    committed = held_out.load_references(ROOT / "benchmarks" / "held-out" / "references.json")
    task = TASKS["Positano-2p-vsHeuristic-v0"]
    cell = committed["tasks"][task.id]["heuristic"]["by_opponent"]["heuristic:loner"]
    got = score_task(task, "heuristic", list(range(held_out.SEEDS)),
                     held_out.deals_per_seed(task), opponents=["heuristic:loner"],
                     first_deal=held_out.FIRST_DEAL)["by_opponent"]["heuristic:loner"]
    assert got["games"] == cell["games"] == 100
    assert got["win_rate"] == pytest.approx(cell["win_rate"], abs=1e-12)
    assert got["mean_return"] == pytest.approx(cell["mean_return"], abs=1e-12)


def _row(tmp: pathlib.Path, task: str, seed: int, norm: float, held: dict | None = None,
         training: dict | None = None) -> None:
    doc = {"recipe": "sb3-ppo", "recipe_version": results.RECIPES["sb3-ppo"].version,
           "overrides": {}, "seed": seed, "cpu_seconds_in_process": 1800.0,
           "training": training or {},
           "row": {"normalized": norm, "score": norm, "score_ci": [norm - 0.1, norm + 0.1],
                   "reference": {"random": 0.0, "heuristic": 1.0}, "deals_per_seed": 3}}
    if held is not None:
        doc["held_out"] = held
    path = tmp / "suite-train" / "sb3-ppo" / task / f"seed-{seed}" / "result.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(doc))


def test_a_learned_row_aggregates_its_complete_seeds_by_hand(tmp_path):
    # Seeds 0 and 1 on all five tasks: normalised 0.0 .. 0.9 (seed-major); seed 2 on one task
    # only, so it stays out of the aggregate.
    for seed in (0, 1):
        for k, task in enumerate(CORE):
            _row(tmp_path, task, seed, (5 * seed + k) / 10)
    _row(tmp_path, CORE[0], 2, 5.0)
    rows, _ = results.collect(tmp_path)
    learned = next(r for r in rows if r.name == "sb3-ppo")
    assert learned.complete_runs == [0, 1]
    agg = learned.aggregate
    assert agg["runs"] == 2
    # IQM of the 10 scores: drop floor(2.5) = 2 from each end, mean of 0.2 .. 0.7 = 0.45.
    assert agg["iqm"] == pytest.approx(0.45)
    assert agg["mean"] == pytest.approx(0.45)
    # Per task: the mean over its seeds; the first task has seeds 0, 1 and 2: (0 + 0.5 + 5) / 3.
    assert learned.cells[CORE[0]].normalized == pytest.approx(5.5 / 3)
    assert learned.cells[CORE[1]].normalized == pytest.approx((0.1 + 0.6) / 2)
    # 11 rows of 1,800 CPU s each.
    assert learned.cpu_seconds == pytest.approx(11 * 1800)


def test_the_compute_table_says_which_rows_trained_on_a_gpu(tmp_path):
    # Two of three rows trained on an accelerator: their hours are that machine's CPU time,
    # and the page must not pass them off as this machine's.
    _row(tmp_path, CORE[0], 0, 0.5, training={"jax_backend": "gpu", "device": "NVIDIA H200"})
    _row(tmp_path, CORE[0], 1, 0.5, training={"jax_backend": "gpu", "device": "NVIDIA H200"})
    _row(tmp_path, CORE[0], 2, 0.5, training={"jax_backend": "cpu", "device": "cpu"})
    rows, played = results.collect(tmp_path)
    learned = next(r for r in rows if r.name == "sb3-ppo")
    assert learned.trained_on == {"NVIDIA H200": 2}
    lines, total = results._compute_table(rows, played)
    line = next(x for x in lines if x.startswith("| `sb3-ppo`"))
    assert "of its 3 rows 2 on a GPU (NVIDIA H200)" in line and line.endswith("| 1.50 |")
    assert total == pytest.approx(3 * 1800)


def test_a_row_on_one_seed_shows_its_games_interval_and_no_aggregate_interval(tmp_path):
    for task in CORE:
        _row(tmp_path, task, 0, 0.5)
    rows, _ = results.collect(tmp_path)
    learned = next(r for r in rows if r.name == "sb3-ppo")
    assert learned.cells[CORE[0]].interval == pytest.approx((0.4, 0.6))
    assert learned.cells[CORE[0]].interval_kind == "games of 1 seed"
    assert "iqm_ci" not in learned.aggregate
    text = results.page(rows, load_references(), {}, figure=None)
    assert "| `sb3-ppo` | 1 training seed (of 5) | **0.50** | 0.50 |" in text


def _held_references(tmp: pathlib.Path) -> tuple[str, str]:
    # Random and heuristic against one held-out Rapa Nui bot: mean returns -0.8 and 0.2 (so a
    # held-out return x normalises to (x + 0.8) / 1.0), win rates 0.1 and 0.6.
    task = "RapaNui-2p-vsHeuristic-v0"
    opp = held_out.POPULATION["rapa_nui"][0]
    refs = {"protocol": {"version": held_out.HELD_OUT_VERSION}, "tasks": {task: {
        "version": 0,
        "random": {"by_opponent": {opp: {"mean_return": -0.8, "win_rate": 0.1}}},
        "heuristic": {"by_opponent": {opp: {"mean_return": 0.2, "win_rate": 0.6}}}}}}
    (tmp / "held-out").mkdir()
    (tmp / "held-out" / "references.json").write_text(json.dumps(refs))
    return task, opp


def test_held_out_scores_are_normalised_against_the_same_opponent(tmp_path):
    task, opp = _held_references(tmp_path)
    for seed, ret in ((0, -0.3), (1, 0.1)):
        _row(tmp_path, task, seed, 0.5, held={"version": held_out.HELD_OUT_VERSION,
             "by_opponent": {opp: {"mean_return": ret, "win_rate": 0.25 * (seed + 1)}}})
    rows, held_refs = results.collect(tmp_path)
    learned = next(r for r in rows if r.name == "sb3-ppo")
    # (-0.3 + 0.8) / 1.0 = 0.5 and (0.1 + 0.8) / 1.0 = 0.9: mean 0.7; wins (0.25 + 0.5) / 2.
    got = learned.held_out[task][opp]
    assert got["normalized"] == pytest.approx(0.7)
    assert got["win_rate"] == pytest.approx(0.375)
    text = results.page(rows, load_references(), held_refs, figure=None)
    assert f"| `{task}` | `{opp}` | 0.10 | 0.60 | 0.70 (0.38, 2 seeds) |" in text


def test_a_stale_page_fails_the_check(tmp_path, capsys):
    out = tmp_path / "results.md"
    out.write_text("old\n")
    assert main(["suite", "results", "--check", "--root", str(ROOT / "benchmarks"),
                 "--out", str(out)]) == 1
    assert "is stale" in capsys.readouterr().err
    assert main(["suite", "results", "--root", str(ROOT / "benchmarks"), "--out", str(out),
                 "--no-figure"]) == 0
    assert main(["suite", "results", "--check", "--root", str(ROOT / "benchmarks"),
                 "--out", str(out)]) == 0


def test_a_league_section_states_its_widest_interval_against_the_target(tmp_path):
    from tabletop_gym.tasks import leagues

    doc = {"kind": "round robin", "cpu_seconds": 7200.0, "markdown": "TABLE", "learned": "X",
           "result": {"agents": ["heuristic", "random", "x"], "games_per_pair": 200,
                      "seed": 700000, "rating_ci": [[0, 0], [-900, -700], [-50, 30]]}}
    lines = "\n".join(results._league_sections({"positano-2p": doc}))
    # random: (-700 - -900) / 2 = 100; x: 40; the anchor's 0 is left out.
    assert "Widest half-width of the other ratings: **±100 Elo** (target ±60: not met)" in lines
    assert "Round robin, 200 seat-rotated games per pair" in lines and "TABLE" in lines
    # The learned agent is described as the league's file says it was played.
    assert "`jax-ppo` is X." in lines
    assert "Not played yet: `tabletop-gym suite leagues --league rapa_nui-2p`" in lines
    assert "are kept from the league" not in lines  # every pair played for this file
    # A league that kept the games of earlier pairs says how many and from which commit.
    kept = {**doc, "reused": {"pairs": [["heuristic", "random"]], "from_commit": "c0eb00bbad"},
            "result": {**doc["result"], "pairs": [{}, {}, {}]}}
    lines = "\n".join(results._league_sections({"positano-2p": kept}))
    assert ("The games of 1 of its 3 pairs are kept from the league as played at `c0eb00b`, "
            "each pair checked by replaying its first deal from both seats") in lines
    compute, total = results._compute_table([], {"positano-2p": doc})
    assert total == 7200.0 and "| league `positano-2p` | its games and bootstrap | 2.00 |" in compute
    # A league that trained its own learned policy counts that too.
    doc["learned_cpu_seconds"] = 1800.0
    compute, total = results._compute_table([], {"rapa_nui-4p": doc})
    assert total == 9000.0 and "| league `rapa_nui-4p`: its learned policy | training it" in "\n".join(compute)
    assert set(leagues.LEAGUES) == {"positano-2p", "rapa_nui-2p", "positano-4p", "rapa_nui-4p"}


def test_a_league_without_its_learned_policy_is_refused_before_any_game(tmp_path, capsys):
    from tabletop_gym.tasks import leagues

    with pytest.raises(ValueError, match="unknown league 'chess'"):
        leagues.play("chess", root=tmp_path, out=tmp_path / "out")
    with pytest.raises(ValueError, match=r"Positano-4p-SelfPlay-v0-seed-0\.npz is missing: it is "
                                         r"training seed 0 of the jax-ppo row"):
        leagues.play("positano-4p", root=tmp_path, out=tmp_path / "out")
    assert main(["suite", "leagues", "--league", "rapa_nui-4p", "--root", str(tmp_path),
                 "--out", str(tmp_path / "out")]) == 2
    assert "seed-0.npz is missing" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_a_retrained_league_policy_counts_its_training_from_the_file_beside_it(tmp_path):
    from tabletop_gym.tasks import leagues

    spec = leagues.LEAGUES["rapa_nui-4p"]
    # No results file beside the policy: the policy is the row's own, whose cost the row counts.
    assert leagues.learned_cost(spec, tmp_path) is None
    side = (tmp_path / spec.learned_policy).with_suffix(".json")
    side.parent.mkdir(parents=True)
    side.write_text(json.dumps({"cpu_seconds_in_process": 321.5}))
    assert leagues.learned_cost(spec, tmp_path) == 321.5
    assert leagues.learned_cost(leagues.LEAGUES["rapa_nui-2p"], tmp_path) is None  # shipped
    # Both committed 4-player leagues play their row's own seed-0 policy: no extra cost.
    for name in ("positano-4p", "rapa_nui-4p"):
        assert leagues.learned_cost(leagues.LEAGUES[name], ROOT / "benchmarks") is None


def test_the_committed_league_policies_load_as_the_learned_agent():
    # Each 4-player league's learned agent is a committed file of its game and table size, so a
    # clone can replay the league; the 2-player leagues use the shipped policy.
    from tabletop_gym.tasks import leagues

    for name, spec in leagues.LEAGUES.items():
        agents = leagues._agents(spec, ROOT / "benchmarks")
        learned = agents[spec.agents.index(leagues.LEARNED)]
        assert spec.agents.count(leagues.LEARNED) == 1 and spec.agents[0] == "heuristic"
        if spec.learned_policy is None:
            assert spec.num_players == 2 and learned == "jax-ppo" and "random" not in agents
        else:
            assert learned.name == "jax-ppo"
            assert learned.metadata["game"] == spec.game
            assert learned.metadata["num_players"] == spec.num_players == 4


def test_every_committed_league_was_played_with_the_agents_its_game_names():
    # A league line changed (a new search setting, say) leaves its file stale until the league
    # is played again; the page must not show a league its game no longer defines. Every league
    # seats the game's search:best for its table size.
    from tabletop_gym.registry import game_spec
    from tabletop_gym.tasks import leagues

    for name, spec in leagues.LEAGUES.items():
        doc = json.loads((ROOT / "benchmarks" / "leagues" / f"{name}.json").read_text())
        assert tuple(doc["spec"]["agents"]) == spec.agents, name
        assert doc["result"]["agents"] == list(spec.agents), name
        assert game_spec(spec.game).benchmark.search[spec.num_players] in spec.agents


def test_a_fixed_row_reads_its_files_and_its_held_out_scores_by_hand(tmp_path):
    # The shipped jax-ppo row, scored on one task with `suite run --held-out`: its cell is the
    # file's normalised score, and its held-out cell is normalised against the same opponent
    # with no seeds to average (one policy).
    task, opp = _held_references(tmp_path)
    ref = load_references()["tasks"][task]
    r, h = ref["random"]["score"], ref["heuristic"]["score"]
    score = r + 1.5 * (h - r)  # normalised 1.5
    doc = {"cpu_seconds": 36.0, "held_out_cpu_seconds": 3564.0, "tasks": [{
        "score": score, "score_ci": [score, score], "normalized": 1.5,
        "normalized_per_seed": [1.4, 1.6], "deals_per_seed": 200,
        "held_out": {"version": held_out.HELD_OUT_VERSION,
                     "by_opponent": {opp: {"mean_return": 0.7, "win_rate": 0.8}}}}]}
    folder = tmp_path / "suite-run" / "jax-ppo-shipped"
    folder.mkdir(parents=True)
    (folder / f"{task}.json").write_text(json.dumps(doc))
    rows, held_refs = results.collect(tmp_path)
    row = next(r for r in rows if r.name == "jax-ppo (shipped)")
    assert row.kind == "shipped" and set(row.cells) == {task}
    assert row.cells[task].normalized == 1.5 and row.cells[task].runs == [1.4, 1.6]
    assert row.budget.endswith("200 deals per seed")
    assert row.cpu_seconds == pytest.approx(3600.0)  # scoring and held-out scoring: 1 hour
    # (0.7 + 0.8) / (0.2 + 0.8) = 1.5
    assert row.held_out[task][opp] == {"normalized": pytest.approx(1.5), "win_rate": 0.8,
                                       "seeds": None}
    text = results.page(rows, load_references(), held_refs, figure=None)
    assert f"| `{task}` | `{opp}` | 0.10 | 0.60 | 1.50 (0.80) |" in text
    assert "| `jax-ppo (shipped)` | scoring on the suite (its training ran on a GPU" in text


def test_a_row_reads_the_tasks_it_shares_with_another_from_that_rows_files(tmp_path):
    # The heuristic-net-v2 search plays the shipped search's specs at 2 players: its row reads
    # those tasks from the shipped row's folder, and its own folder wins where it has a file.
    task, _opp = _held_references(tmp_path)
    ref = load_references()["tasks"][task]
    r, h = ref["random"]["score"], ref["heuristic"]["score"]

    def doc(norm: float, cpu: float) -> str:
        score = r + norm * (h - r)
        return json.dumps({"cpu_seconds": cpu, "tasks": [{
            "score": score, "score_ci": [score, score], "normalized": norm,
            "normalized_per_seed": [norm, norm], "deals_per_seed": 10}]})

    assert results.FIXED_ROWS["search-v2"].same_as == "search-shipped"
    shipped = tmp_path / "suite-run" / "search-shipped"
    shipped.mkdir(parents=True)
    (shipped / f"{task}.json").write_text(doc(1.25, 60.0))
    rows, _ = results.collect(tmp_path)
    row = next(r for r in rows if r.name == "search, heuristic-net-v2")
    assert row.cells[task].normalized == 1.25 and row.cpu_seconds == pytest.approx(60.0)
    own = tmp_path / "suite-run" / "search-v2"
    own.mkdir()
    (own / f"{task}.json").write_text(doc(1.5, 90.0))
    rows, _ = results.collect(tmp_path)
    row = next(r for r in rows if r.name == "search, heuristic-net-v2")
    assert row.cells[task].normalized == 1.5 and row.cpu_seconds == pytest.approx(90.0)
    # A row with no files of its own and none to share shows nowhere.
    (shipped / f"{task}.json").unlink()
    (own / f"{task}.json").unlink()
    rows, _ = results.collect(tmp_path)
    assert "search, heuristic-net-v2" not in {r.name for r in rows}


def test_a_row_follows_the_row_it_shares_with_to_the_row_that_one_shares_with(tmp_path):
    # The v3 row shares with the v2 row, which shares its 2-player tasks with the shipped row.
    task, _opp = _held_references(tmp_path)
    ref = load_references()["tasks"][task]
    r, h = ref["random"]["score"], ref["heuristic"]["score"]

    def write(folder: str, norm: float) -> pathlib.Path:
        score = r + norm * (h - r)
        path = tmp_path / "suite-run" / folder / f"{task}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"cpu_seconds": 1.0, "tasks": [{
            "score": score, "score_ci": [score, score], "normalized": norm,
            "normalized_per_seed": [norm], "deals_per_seed": 10}]}))
        return path

    def v3() -> float:
        rows, _ = results.collect(tmp_path)
        return next(x for x in rows if x.name == "search, heuristic-net-v3").cells[task].normalized

    assert results.FIXED_ROWS["search-v3"].same_as == "search-v2"
    write("search-shipped", 1.25)
    assert v3() == 1.25  # through the v2 row, which has no file of its own
    write("search-v2", 1.5)
    assert v3() == 1.5
    write("search-v3", 1.75)
    assert v3() == 1.75


def test_every_shared_row_is_a_row_and_no_row_shares_round_in_a_circle():
    for folder, fixed in results.FIXED_ROWS.items():
        seen = [folder]
        link = fixed.same_as
        while link is not None:
            assert link in results.FIXED_ROWS and link not in seen, (folder, link)
            seen.append(link)
            link = results.FIXED_ROWS[link].same_as


def test_the_shipped_row_states_its_policies_learner_steps():
    # From the checkpoints' metadata: Rapa Nui 2p 125,462,034 steps, Positano 2p 389,156,407
    # (docs/jax-train.md's shipped table), rounded to millions.
    assert results._shipped_steps(["positano", "rapa_nui"]) == "125–389 M"
    assert results._shipped_steps(["rapa_nui"]) == "125 M"


def _offline_doc(number: int, method: str, policy: str, normalized: float,
                 score_ci: list[float]) -> tuple[str, dict]:
    """A result file of `dataset baseline`, with only what the page reads."""
    from tabletop_gym.tasks.datasets.offline import METHODS, OFFLINE_FORMAT

    fit = {"epochs": 5, "hidden": [256, 256]}
    doc = {"format": OFFLINE_FORMAT, "method": METHODS[method],
           "dataset": {"policy": policy, "games": 1000},
           "clone" if method == "bc" else "learner": fit,
           "score": {"task": {"id": "RapaNui-2p-vsHeuristic-v0", "normalized": normalized,
                              "score_ci": score_ci,
                              "reference": {"random": -10.0, "heuristic": 10.0}},
                     "aggregate": {"iqm_ci": [normalized - 0.01, normalized + 0.01]}}}
    return f"{method}/{number}-x.json", doc


def test_the_offline_section_shows_the_best_setting_of_each_teacher_and_how_many(tmp_path):
    from tabletop_gym.tasks.datasets.offline import load_results, section

    files = [_offline_doc(2, "bc", "heuristic", 0.60, [1.0, 3.0]),
             _offline_doc(10, "bc", "heuristic", 0.80, [5.0, 7.0]),
             _offline_doc(1, "bc", "ismcts:12:guided", 1.10, [11.0, 13.0]),
             _offline_doc(1, "cql", "heuristic", 0.70, [3.0, 5.0])]
    for name, doc in files:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(json.dumps(doc))
    docs = load_results(tmp_path)
    # methods in METHODS' order, files by number (10 after 2), each naming its file
    assert [d["file"] for d in docs] == ["bc/1-x.json", "bc/2-x.json", "bc/10-x.json",
                                         "cql/1-x.json"]
    rows = [line for line in section(docs, CORE) if line.startswith("| `")]
    # Normalised by hand: (x - random) / (heuristic - random) = (x + 10) / 20.
    assert rows == [
        "| `RapaNui-2p-vsHeuristic-v0` | behaviour cloning | `heuristic` | 2 | **0.80** "
        "[0.75, 0.85] | [0.79, 0.81] | 1,000 games, 5 epochs | `bc/10-x.json` |",
        "| `RapaNui-2p-vsHeuristic-v0` | behaviour cloning | `ismcts:12:guided` | 1 | **1.10** "
        "[1.05, 1.15] | [1.09, 1.11] | 1,000 games, 5 epochs | `bc/1-x.json` |",
        "| `RapaNui-2p-vsHeuristic-v0` | discrete CQL | `heuristic` | 1 | **0.70** "
        "[0.65, 0.75] | [0.69, 0.71] | 1,000 games, 5 epochs | `cql/1-x.json` |"]
    assert section([], CORE) == []


def test_a_foreign_file_among_the_offline_results_is_named(tmp_path):
    from tabletop_gym.tasks.datasets.offline import load_results

    (tmp_path / "bc").mkdir()
    (tmp_path / "bc" / "1-x.json").write_text(json.dumps({"format": "something-else"}))
    with pytest.raises(ValueError, match=r"1-x.json is not an offline baseline result "
                                         r"\(format 'something-else'"):
        load_results(tmp_path)


def test_an_offline_result_on_a_task_without_a_scale_is_refused():
    from tabletop_gym.tasks.datasets.offline import section

    name, doc = _offline_doc(3, "bc", "heuristic", 0.5, [1.0, 2.0])
    doc["score"]["task"]["reference"] = {"random": 4.0, "heuristic": 4.0}
    with pytest.raises(ValueError, match=r"x.json: the task's random and heuristic references "
                                         r"coincide"):
        section([{**doc, "file": name}], CORE)
