"""Suite runner, results schema, normalisation and aggregate statistics, report, and the
committed files generated from the task registry (docs page, snapshot, reference scores)."""

from __future__ import annotations

import copy
import json
import pathlib
import sys

import jsonschema
import numpy as np
import pytest

from tabletop_gym.arena.stats import iqm, normalize, stratified_bootstrap, stratified_bootstrap_ci
from tabletop_gym.cli import main
from tabletop_gym.tasks import SUITES, TASKS
from tabletop_gym.tasks.catalog import compare_snapshot, docs_page, snapshot
from tabletop_gym.tasks.report import ReportError, load_results, markdown_table, plot
from tabletop_gym.tasks.runner import (
    MIN_REFERENCE_GAMES,
    PROTOCOL_VERSION,
    REFERENCE_FILE,
    SCHEMA_FILE,
    TARGET_HALF_WIDTH,
    compute_references,
    deals_needed,
    games_per_deal,
    load_references,
    protocol_deals,
    run_suite,
    score_task,
    write_results,
)

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCHEMA = json.loads(SCHEMA_FILE.read_text())


# --- statistics, worked by hand ------------------------------------------------------------------


def test_iqm_cuts_a_quarter_from_each_end():
    # 8 values: cut int(0.25 * 8) = 2 from each end, mean of 3, 4, 5, 6
    assert iqm(np.array([[8, 1, 2, 7], [3, 6, 5, 4]])) == 4.5
    # 5 values: cut int(1.25) = 1 from each end, mean of 2, 3, 10
    assert iqm(np.array([10, 1, 3, 2, 100])) == 5.0
    # 3 values: nothing is cut
    assert iqm(np.array([0.0, 0.0, 3.0])) == 1.0


def test_normalize():
    assert normalize(0.5, -1.0, 0.0) == 1.5
    assert normalize(-1.0, -1.0, 0.0) == 0.0
    assert normalize(0.2, 0.2, 0.2) is None  # no scale when the references coincide


def test_stratified_bootstrap_resamples_within_each_task():
    # 2 runs x 2 tasks. A replicate resamples each column: the IQM of 4 values is the mean of
    # the middle two = max(task 0 sample) + min(task 1 sample), halved.
    # max(task 0) is 0 w.p. 1/4 and 1 w.p. 3/4; min(task 1) is 10 w.p. 3/4 and 11 w.p. 1/4.
    # So IQM = 5.0 w.p. 3/16, 5.5 w.p. 1/16 + 9/16 = 10/16, 6.0 w.p. 3/16.
    mat = np.array([[0.0, 10.0], [1.0, 11.0]])
    assert iqm(mat) == 5.5
    reps = stratified_bootstrap(mat, iqm, reps=8000, seed=1)
    values, counts = np.unique(reps, return_counts=True)
    assert list(values) == [5.0, 5.5, 6.0]  # an unstratified resample could give e.g. 0.5
    assert np.allclose(counts / 8000, [3 / 16, 10 / 16, 3 / 16], atol=0.02)
    assert stratified_bootstrap_ci(mat, iqm, reps=8000, seed=1) == (5.0, 6.0)
    # one run per task: every replicate is the data itself
    single = np.array([[1.0, 2.0, 3.0, 4.0]])
    assert stratified_bootstrap_ci(single, iqm, reps=50) == (2.5, 2.5)


# --- the runner and its results file ----------------------------------------------------------


@pytest.fixture(scope="module")
def core_random() -> dict:
    return run_suite("core", "random", seeds=2, deals_per_seed=1, bootstrap_reps=200)


def test_core_suite_with_the_random_agent_matches_the_schema(core_random, tmp_path):
    path = write_results(core_random, tmp_path / "r.json")
    doc = json.loads(path.read_text())
    jsonschema.validate(doc, SCHEMA)
    assert [r["id"] for r in doc["tasks"]] == list(SUITES["core"].task_ids)
    assert doc["metadata"]["tasks"] == {t: 0 for t in SUITES["core"].task_ids}
    assert doc["protocol"]["seeds"] == [0, 1]
    games = {r["id"]: r["games"] for r in doc["tasks"]}
    # 2 seeds x 1 deal; a deal is played from every seat, against every reference table
    assert games == {"Positano-Solo-v0": 2, "Positano-2p-vsHeuristic-v0": 4,
                     "Positano-4p-SelfPlay-v0": 16, "RapaNui-2p-vsHeuristic-v0": 4,
                     "RapaNui-4p-SelfPlay-v0": 16}
    for row in doc["tasks"]:
        assert len(row["per_seed"]) == 2
        assert row["score"] == pytest.approx(np.mean(row["per_seed"]))
        if row["reference"] is not None:
            r, h = row["reference"]["random"], row["reference"]["heuristic"]
            assert row["normalized"] == pytest.approx((row["score"] - r) / (h - r))
    agg = doc["aggregate"]
    used = [r for r in doc["tasks"] if r["normalized_per_seed"]]
    assert agg["tasks"] == [r["id"] for r in used]
    if used:
        mat = np.array([r["normalized_per_seed"] for r in used]).T
        assert agg["iqm"] == pytest.approx(iqm(mat))
        assert agg["iqm_ci"][0] <= agg["iqm"] <= agg["iqm_ci"][1]


def test_a_two_player_win_loss_score_is_the_mean_return():
    # Two players, win/loss reward: a win returns +1, a loss -1, a shared win (both tie) 0 and
    # counts half a win, so the mean return is 2 * win rate - 1.
    out = score_task(TASKS["RapaNui-2p-vsHeuristic-v0"], "random", [0], 1)
    assert out["games"] == 2
    per_game = out["by_opponent"]["heuristic"]
    assert out["score"] == per_game["mean_return"] == 2 * per_game["win_rate"] - 1


def test_the_cli_writes_a_valid_results_file(tmp_path, capsys):
    out = tmp_path / "run.json"
    rc = main(["suite", "run", "--suite", "rapa_nui", "--agent", "heuristic", "--seeds", "1",
               "--deals", "1", "--task", "RapaNui-2p-vsRandom-v0", "--out", str(out)])
    assert rc == 0
    doc = json.loads(out.read_text())
    jsonschema.validate(doc, SCHEMA)
    assert doc["agent"] == "heuristic" and [r["id"] for r in doc["tasks"]] == [
        "RapaNui-2p-vsRandom-v0"]
    assert "RapaNui-2p-vsRandom-v0" in capsys.readouterr().out


def test_bad_agents_fail_before_any_game(capsys):
    assert main(["suite", "run", "--agent", "nobody", "--seeds", "1", "--deals", "1"]) == 2
    assert "unknown opponent 'nobody'" in capsys.readouterr().err
    with pytest.raises(ValueError, match="no agent given for rapa_nui"):
        run_suite("core", {"positano": "random"}, seeds=1, deals_per_seed=1)
    with pytest.raises(ValueError, match="not in suite"):
        run_suite("positano", "random", task_ids=["RapaNui-2p-vsRandom-v0"])


# --- reference scores ---------------------------------------------------------------------------


def test_committed_references_follow_protocol_1():
    refs = load_references()
    proto = refs["protocol"]
    assert proto == {"version": PROTOCOL_VERSION, "seeds": list(range(SUITES["full"].seeds)),
                     "seed_stride": 1000, "min_games": MIN_REFERENCE_GAMES,
                     "half_width": TARGET_HALF_WIDTH}
    # Every task of the core suite has its references; the others as the job reaches them.
    assert set(SUITES["core"].task_ids) <= set(refs["tasks"])
    for task_id, row in refs["tasks"].items():
        task = TASKS[task_id]
        assert row["version"] == task.version
        deals = row["deals_per_seed"]
        for agent in ("random", "heuristic"):
            cell = row[agent]
            assert len(cell["per_seed"]) == len(proto["seeds"])
            assert cell["score"] == pytest.approx(np.mean(cell["per_seed"]))
            # every seed's deals from every seat, against every table of reference opponents
            assert cell["games"] == deals * games_per_deal(task) * len(proto["seeds"])
            assert cell["games"] >= MIN_REFERENCE_GAMES
            lo, hi = cell["ci"]
            assert lo <= cell["score"] <= hi
        # the power rule: the heuristic's interval is within the target, normalised
        power = row["power"]
        span = row["heuristic"]["score"] - row["random"]["score"]
        assert power["span"] == pytest.approx(span)
        half = (row["heuristic"]["ci"][1] - row["heuristic"]["ci"][0]) / 2
        assert power["heuristic_half_width"] == pytest.approx(half / span)
        assert power["heuristic_half_width"] <= TARGET_HALF_WIDTH
        assert power["deals_per_seed_needed"] <= deals
        assert deals_needed(power["heuristic_return_sd"], span, task,
                            len(proto["seeds"])) == power["deals_per_seed_needed"]
    # a win/loss 2-player task: random loses to the heuristic
    row = refs["tasks"]["RapaNui-2p-vsHeuristic-v0"]
    assert row["random"]["score"] < row["heuristic"]["score"]


def test_deals_needed_by_hand():
    # 2 players against one table: 2 games a deal. sd 1, span 1, target ±0.05: games needed
    # (1.96 / 0.05)^2 = 1536.6, so 1537 games = 768.5 deals over 5 seeds: 154 per seed.
    task = TASKS["RapaNui-2p-vsHeuristic-v0"]
    assert games_per_deal(task) == 2
    assert deals_needed(1.0, 1.0, task, 5) == 154
    # A self-play task of 4 seats is scored against two tables: 8 games a deal. sd 0.96,
    # span 0.99: (1.96 * 0.96 / (0.05 * 0.99))^2 = 1444.9 games, 180.6 deals: 37 per seed.
    selfplay = TASKS["Positano-4p-SelfPlay-v0"]
    assert games_per_deal(selfplay) == 8
    assert deals_needed(0.96, 0.99, selfplay, 5) == 37
    with pytest.raises(ValueError, match="no positive span"):
        deals_needed(1.0, 0.0, task, 5)


@pytest.mark.parametrize(("task_id", "agent", "seed"), [
    ("RapaNui-2p-vsRandom-v0", "random", 0),
    ("Positano-Solo-v0", "heuristic", 3),
])
def test_a_slice_of_the_reference_scores_reproduces(task_id, agent, seed):
    refs = load_references()
    deals = protocol_deals(TASKS[task_id], refs)
    got = score_task(TASKS[task_id], agent, [seed], deals)["per_seed"][0]
    assert got == refs["tasks"][task_id][agent]["per_seed"][seed]


def test_references_resume_and_refuse_nothing_silently(tmp_path):
    out = tmp_path / "refs.json"
    doc = compute_references(["RapaNui-2p-vsRandom-v0"], seeds=1, min_games=4, out=out)
    row = doc["tasks"]["RapaNui-2p-vsRandom-v0"]
    # 4 games a agent at least: 2 deals of 2 seats; then as many as the power rule needs
    assert row["deals_per_seed"] >= 2 and row["random"]["games"] == 2 * row["deals_per_seed"]
    written = json.loads(out.read_text())
    assert written["tasks"] == json.loads(json.dumps(doc["tasks"]))
    # a second run under the same protocol keeps the finished task and adds the new one
    again = compute_references(["RapaNui-2p-vsRandom-v0", "RapaNui-2p-vsHeuristic-v0"],
                               seeds=1, min_games=4, out=out)
    assert again["tasks"]["RapaNui-2p-vsRandom-v0"] == written["tasks"]["RapaNui-2p-vsRandom-v0"]
    assert "RapaNui-2p-vsHeuristic-v0" in json.loads(out.read_text())["tasks"]


# --- report -----------------------------------------------------------------------------------


def test_report_table_and_plot(core_random, tmp_path):
    a = write_results(core_random, tmp_path / "a.json")
    b_doc = copy.deepcopy(core_random)
    b_doc["agent"] = "other"
    b_doc["tasks"] = b_doc["tasks"][:2]
    b = write_results(b_doc, tmp_path / "b.json")
    runs = load_results([a, b])
    table = markdown_table(runs)
    lines = table.splitlines()
    assert lines[0].startswith("| task | random (core, 2 seeds) | other (core, 2 seeds) |")
    assert sum(line.startswith("| `") for line in lines) == 5
    assert "not run" in table  # b has only 2 of the 5 tasks
    assert "IQM of normalised scores" in table
    png = plot(runs, tmp_path / "r.png")
    assert png.read_bytes()[:4] == b"\x89PNG"
    out = tmp_path / "report.md"
    assert main(["suite", "report", str(a), "--out", str(out), "--no-plot"]) == 0
    assert out.read_text().startswith("| task |")
    assert not out.with_suffix(".png").exists()


def test_report_refuses_other_files_and_explains_a_missing_matplotlib(core_random, tmp_path,
                                                                      monkeypatch, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"game": "positano"}]))
    with pytest.raises(ReportError, match="not a suite results file"):
        load_results([bad])
    assert main(["suite", "report", str(bad)]) == 2
    good = write_results(core_random, tmp_path / "a.json")
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ReportError, match="--no-plot"):
        plot(load_results([good]), tmp_path / "x.png")
    capsys.readouterr()
    # Issue 39 item 5: the plot is a by-product; without matplotlib it is skipped with a note
    # given before the work, and the table is written.
    assert main(["suite", "report", str(good), "--out", str(tmp_path / "t.md")]) == 0
    out, err = capsys.readouterr()
    assert err.startswith("note: matplotlib is not installed, so the plot is not drawn")
    assert '"tabletop-gym[train]"' in err and "--no-plot" in err
    assert (tmp_path / "t.md").read_text().startswith("| task |")
    assert not (tmp_path / "t.png").exists()


# --- committed files generated from the registry ------------------------------------------------


def test_registry_snapshot_same_id_and_version_means_same_settings():
    committed = json.loads((ROOT / "tests" / "data" / "tasks_snapshot.json").read_text())
    assert compare_snapshot(committed, snapshot()) == []


def test_snapshot_comparison_catches_a_change_without_a_version_bump():
    old = snapshot()
    new = copy.deepcopy(old)
    new["Positano-2p-vsHeuristic-v0"]["opponents"] = "random"
    new["RapaNui-3p-SelfPlay-v0"]["config"]["moai_choice"] = "all_same"
    new["RapaNui-2p-vsRandom-v0"]["config"]["a_new_switch"] = True  # default keeps old play
    del new["Positano-Solo-v0"]
    problems = compare_snapshot(old, new)
    assert len(problems) == 3
    assert "Positano-2p-vsHeuristic-v0: opponents changed from 'heuristic' to 'random'" in (
        problems[1])
    assert "bump the task's version" in problems[1]
    assert "moai_choice" in problems[2]
    assert "left the registry without a newer version of Positano-Solo" in problems[0]
    # a bump: v1 replaces v0 with other settings; only the stale snapshot is reported
    bumped = copy.deepcopy(old)
    bumped["Positano-2p-vsHeuristic-v1"] = bumped.pop("Positano-2p-vsHeuristic-v0")
    bumped["Positano-2p-vsHeuristic-v1"]["opponents"] = "random"
    assert compare_snapshot(old, bumped) == [
        "Positano-2p-vsHeuristic-v1 is not in the snapshot; run `tabletop-gym suite snapshot`"]


def test_docs_page_is_generated_from_the_registry():
    page = (ROOT / "docs" / "tasks.md").read_text()
    assert page == docs_page(), "docs/tasks.md is stale: run `tabletop-gym suite docs`"
    for task_id in TASKS:
        assert f"`{task_id}`" in page


def test_reference_file_is_package_data():
    assert REFERENCE_FILE.exists() and SCHEMA_FILE.exists()
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


def test_the_reference_agents_score_exactly_zero_and_one_by_the_suite_protocol():
    # The runner plays the same deals as the reference computation, so the random agent's
    # normalised score is exactly 0 and the heuristic bot's exactly 1 (seed by seed too).
    # The heuristic's side costs more games; its first seed is checked the same way.
    refs = load_references()["tasks"]["RapaNui-2p-vsRandom-v0"]
    doc = run_suite("rapa_nui", "random", task_ids=["RapaNui-2p-vsRandom-v0"], bootstrap_reps=100)
    row = doc["tasks"][0]
    assert doc["protocol"]["seeds"] == [0, 1, 2, 3, 4]
    assert doc["protocol"]["deals_per_seed"] == {"RapaNui-2p-vsRandom-v0": refs["deals_per_seed"]}
    assert row["per_seed"] == refs["random"]["per_seed"]
    assert row["normalized"] == pytest.approx(0.0, abs=1e-12)
    doc = run_suite("rapa_nui", "heuristic", seeds=1, task_ids=["RapaNui-2p-vsRandom-v0"],
                    bootstrap_reps=100)
    assert doc["tasks"][0]["per_seed"] == refs["heuristic"]["per_seed"][:1]


def test_a_checkpoint_is_scored_on_its_game_and_refused_on_the_other(tmp_path, capsys):
    import gymnasium
    from sb3_contrib import MaskablePPO

    model = MaskablePPO("MlpPolicy", gymnasium.make("RapaNui-2p-vsRandom-v0"), n_steps=64,
                        batch_size=64, seed=0, device="cpu")
    path = tmp_path / "rapa.zip"
    model.save(path)
    out = tmp_path / "run.json"
    assert main(["suite", "run", "--suite", "rapa_nui", "--agent", f"rapa_nui={path}",
                 "--task", "RapaNui-2p-vsRandom-v0", "--seeds", "1", "--deals", "1",
                 "--out", str(out)]) == 0
    doc = json.loads(out.read_text())
    jsonschema.validate(doc, SCHEMA)
    assert doc["agent"] == f"rapa_nui-{path}"
    # a Rapa Nui checkpoint cannot play Positano: refused before any game
    assert main(["suite", "run", "--suite", "core", "--agent", str(path), "--seeds", "1",
                 "--deals", "1", "--out", str(tmp_path / "no.json")]) == 2
    assert "cannot play Positano-Solo-v0" in capsys.readouterr().err
    assert not (tmp_path / "no.json").exists()


def test_cli_lists_suites_and_describes_ids(capsys):
    assert main(["suite", "list"]) == 0
    out = capsys.readouterr().out
    assert "core: One task per game and mode" in out and "RapaNui-4p-SelfPlay-v0" in out
    assert main(["suite", "describe", "Positano-4p-5x5-SelfPlay-v0"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert (d["num_players"], d["board_size"], d["version"]) == (4, 5, 0)
    assert main(["suite", "describe", "Positano-4p-5x5-Selfplay-v0"]) == 2
    assert "did you mean ['Positano-4p-5x5-SelfPlay-v0'" in capsys.readouterr().err
