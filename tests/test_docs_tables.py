"""The docs tables that hold numbers are the ones their generators make from the code now."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.exploit_files import ladder_files, nim_case
from tests.scripts import load_script

ROOT = Path(__file__).resolve().parent.parent
docs_tables = load_script("tools/docs_tables.py", "docs_tables")

# Where each generated table stands.
PLACES = {
    "rapa_nui-cards": "docs/envs/rapa_nui.md",
    "rapa_nui-actions": "docs/envs/rapa_nui.md",
    "rapa_nui-observation": "docs/envs/rapa_nui.md",
    "positano-shapes": "docs/envs/positano.md",
    "positano-actions": "docs/envs/positano.md",
    "positano-observation": "docs/envs/positano.md",
    "positano-events": "docs/envs/positano.md",
    "rapa_nui-events": "docs/envs/rapa_nui.md",
    "training-budgets": "docs/training.md",
    "distilled-nets": "docs/jax-train.md",
    "gpu-speed": "docs/jax-train.md",
    "gpu-runs": "docs/jax-train.md",
    "jax-ppo-shipped": "docs/jax-train.md",
    "jax-cpu-runs": "docs/jax-train.md",
    "jax-train-speed": "docs/jax-train.md",
    "openspiel-learning": "docs/libraries.md",
    "llm-grammars": "docs/llm.md",
    "llm-transcript": "docs/llm.md",
    "llm-league": "docs/llm.md",
    "llm-probe-references": "docs/llm.md",
    "ladder-ratings": "docs/llm.md",
    "ladder-heuristic": "docs/llm.md",
    "datasets-bc": "docs/datasets.md",
    "datasets-values-gains": "docs/datasets.md",
    "datasets-games-cards": "docs/datasets.md",
    "datasets-minari-cards": "docs/datasets.md",
    "datasets-coverage": "docs/datasets.md",
    "expert-iteration-positano": "docs/search.md",
    "exploit-settings": "docs/cli.md",
}


_CACHE: dict[str, str] = {}
"""Each generator's output, made once for all the pages' checks (some play games)."""


@pytest.mark.parametrize("name", sorted(PLACES))
def test_generated_table_is_in_its_page_and_current(name):
    text = (ROOT / PLACES[name]).read_text(encoding="utf-8")
    opening = f"<!-- generated: {name} (python tools/docs_tables.py) -->\n"
    assert opening in text, f"{PLACES[name]} lost its {name} table"
    regenerated, changed = docs_tables.regenerate(text, _CACHE)
    assert name not in changed, (
        f"{PLACES[name]}: the {name} table is stale; run `python tools/docs_tables.py`"
    )
    assert regenerated == text


def test_every_generator_has_a_place():
    assert set(PLACES) == set(docs_tables.GENERATORS)


def test_no_page_is_stale():
    assert docs_tables.main(["--check"]) == 0


def test_regenerate_rewrites_a_stale_block_and_rejects_unknown_names():
    name = "rapa_nui-cards"
    stale = f"x\n<!-- generated: {name} (python tools/docs_tables.py) -->\nold\n<!-- end generated: {name} -->\n"
    new, changed = docs_tables.regenerate(stale)
    assert changed == [name]
    assert "| 0 | Woodcutter | 12 + 1 start card per seat |" in new
    with pytest.raises(KeyError, match="no generator"):
        docs_tables.regenerate("<!-- generated: nope (python tools/docs_tables.py) -->\n\n<!-- end generated: nope -->")


def test_the_generators_stand_on_the_package_alone():
    # The docs are made from the package: the transcripts' scripted server is
    # tabletop_gym.arena.scripted_server, not a test helper, so the generator never imports tests.
    import ast

    tree = ast.parse((ROOT / "tools" / "docs_tables.py").read_text(encoding="utf-8"))
    modules = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    modules |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert {m for m in modules if m and m.split(".")[0] == "tests"} == set()
    assert "tabletop_gym.arena.scripted_server" in modules


def test_a_merged_dataset_is_made_by_its_parts_commands_then_the_merge():
    # A dataset made in two parts, the second itself merged from two: the commands that remake
    # it are the leaves' makes, each into its folder, then each merge, innermost first.
    leaf = {"command": "make --seed 0"}
    inner = {"name": "b", "command": "merge b1 b2 --out b",
             "parts": [{"name": "b1", "command": "make --seed 2"},
                       {"name": "b2", "command": "make --seed 3"}]}
    meta = {"parts": [{"name": "a", **leaf}, inner]}
    assert docs_tables._made_by(meta, "merge a b --out m", "m") == [
        "make --seed 0 --out a", "make --seed 2 --out b1", "make --seed 3 --out b2",
        "merge b1 b2 --out b", "merge a b --out m"]
    assert docs_tables._made_by({}, "make --seed 0", "x") == ["make --seed 0 --out x"]
    assert docs_tables._in_parts({"parts": 3}) == " in 3 parts"
    assert docs_tables._in_parts({"parts": 1}) == docs_tables._in_parts({}) == ""


def test_the_coverage_table_files_each_card_under_its_game_size_and_teacher(monkeypatch):
    # Whole games of a self-play task count for the core task of the same game and size; a
    # card whose seats play different policies has no one teacher and is left out.
    games = [
        {"kind": "games", "task": "Positano-2p-SelfPlay-v0", "policies": ["heuristic"] * 2,
         "games": 2000, "annotation": None},
        {"kind": "games", "task": "RapaNui-4p-SelfPlay-v0",
         "policies": ["ismcts:12:guided"] * 4, "games": 1000,
         "annotation": {"annotated_games": 30, "simulations": 8, "search": "ismcts:8:guided"}},
        {"kind": "games", "task": "RapaNui-2p-SelfPlay-v0", "policies": ["heuristic", "random"],
         "games": 5, "annotation": None},
    ]
    minari = [{"kind": "minari", "task": "Positano-Solo-v0", "policies": ["ppo"],
               "episodes": 1000}]
    monkeypatch.setattr(docs_tables, "_card_rows",
                        lambda kind: games if kind == "games" else minari)
    rows = {line.split(" | ")[0].strip("| `"): line.split(" | ")[1:]
            for line in docs_tables.datasets_coverage().splitlines()[2:]}
    assert rows["Positano-Solo-v0"] == ["Positano 1p", "none", "none",
                                        "`ppo` 1,000 episodes (Minari) |"]
    assert rows["Positano-2p-vsHeuristic-v0"][1:3] == ["2,000 games", "none"]
    assert rows["RapaNui-4p-SelfPlay-v0"] == [
        "Rapa Nui 4p", "none", "`ismcts:12:guided` 1,000 games, 30 annotated at 8 simulations",
        "no learned policy shipped |"]
    assert rows["RapaNui-2p-vsHeuristic-v0"][1:3] == ["none", "none"]


def test_the_expert_iteration_table_pairs_each_fit_with_jax_ppo_deal_by_deal(monkeypatch,
                                                                              tmp_path):
    import json

    folder = tmp_path / "benchmarks" / "expert-iteration" / "positano-2p"
    header = ("game,players,candidate,opponent,games,win_rate,win_ci_low,win_ci_high\n"
              "positano,2,x,heuristic,4,{},0.1,0.9\n")

    def run(name, outcomes, report=None):
        (folder / name).mkdir(parents=True)
        stem = folder / name / docs_tables.EXIT_EVAL
        stem.with_suffix(".csv").write_text(header.format(sum(outcomes) / len(outcomes)))
        stem.with_suffix(".outcomes.json").write_text(json.dumps({"outcomes": outcomes}))
        if report:
            (folder / name / "iteration_1.json").write_text(json.dumps(report))

    base = {"teacher": "search:jax-ppo?worlds=64&z=2", "games": 400, "samples": 26335,
            "init_holdout_agreement": 0.8158, "holdout_agreement": 0.809}
    run("jax-ppo", [1, 0, 1, 0, 0, 1])
    run("b10", [1, 1, 1, 0, 1, 1], {**base, "beta": 10.0})
    run("labels", [0, 0, 1, 0, 0, 0], {**base, "games": 240})
    monkeypatch.setattr(docs_tables, "ROOT", tmp_path)
    lines = docs_tables.expert_iteration_positano().splitlines()[2:]
    assert lines[0].startswith("| `jax-ppo` itself |")
    # Labels first, then gains; the deals' mean differences: b10 (0.5, 0, 0.5), mean 1/3,
    # sd 0.2887 over 3 deals: 1.96 * 0.2887 / sqrt(3) = 0.327.
    assert "searched moves (`labels`) | 240 | 26,335 | 0.816 \u2192 0.809" in lines[1]
    assert lines[1].endswith("| 0.167 [0.100, 0.900] | \u22120.333 \u00b1 0.327 |")
    assert "gains, B = 10 (`b10`)" in lines[2]
    assert lines[2].endswith("| 0.833 [0.100, 0.900] | +0.333 \u00b1 0.327 |")


def test_the_expert_iteration_table_has_a_row_for_every_iteration_of_a_run(monkeypatch, tmp_path):
    # A run of several iterations (bench/search_gpu.py's): each iteration scored under its own
    # name, by the committed outcomes or by the eval's own json, or not yet scored.
    import json

    folder = tmp_path / "benchmarks" / "expert-iteration" / "positano-2p"
    header = ("game,players,candidate,opponent,games,win_rate,win_ci_low,win_ci_high\n"
              "positano,2,x,heuristic,6,{:.4f},0.1,0.9\n")

    def scored(run, stem, outcomes, kept=True):
        (folder / run).mkdir(parents=True, exist_ok=True)
        path = folder / run / stem
        path.with_name(f"{stem}.csv").write_text(header.format(sum(outcomes) / len(outcomes)))
        if kept:
            path.with_name(f"{stem}.outcomes.json").write_text(json.dumps({"outcomes": outcomes}))
        else:
            per_game = [{"outcome": o, "scores": [0.0, 0.0]} for o in outcomes]
            path.with_name(f"{stem}.json").write_text(json.dumps([{"per_game": per_game}]))

    report = {"teacher": "search:jax-ppo?worlds=64&z=2", "games": 4096, "samples": 270000,
              "init_holdout_agreement": 0.82, "holdout_agreement": 0.81, "beta": 10.0}
    scored("jax-ppo", docs_tables.EXIT_EVAL, [1, 0, 1, 0, 0, 1])
    scored("gpu", f"{docs_tables.EXIT_EVAL}-iteration_1", [1, 1, 0, 0, 1, 1], kept=False)
    scored("gpu", f"{docs_tables.EXIT_EVAL}-iteration_2", [1, 0, 1, 0, 0, 1])
    for k in (1, 2, 3):
        (folder / "gpu" / f"iteration_{k}.json").write_text(json.dumps({**report, "iteration": k}))
    monkeypatch.setattr(docs_tables, "ROOT", tmp_path)
    lines = docs_tables.expert_iteration_positano().splitlines()[2:]
    assert len(lines) == 4
    assert lines[0].startswith("| `jax-ppo` itself |")
    # Iteration 1 against jax-ppo, deal by deal: (0.5, 0.5, 0.5) -> (1, 0, 1), differences
    # (0.5, -0.5, 0.5): mean 1/6, sd 0.577, 1.96 * 0.577 / sqrt(3) = 0.653.
    assert "gains, B = 10 (`gpu`, iteration 1) | 4,096 | 270,000 | 0.820 \u2192 0.810" in lines[1]
    assert lines[1].endswith("| 0.667 [0.100, 0.900] | +0.167 \u00b1 0.653 |")
    # Iteration 2 plays jax-ppo's very games: no difference on any deal.
    assert "(`gpu`, iteration 2)" in lines[2]
    assert lines[2].endswith("| 0.500 [0.100, 0.900] | +0.000 \u00b1 0.000 |")
    assert "(`gpu`, iteration 3)" in lines[3]
    assert lines[3].endswith("| not scored |  |")


def _nim_case(root, pile, exact, cells, train, observation=None):
    # The case's folder as the calibration tool names it.
    calibration = load_script("tools/exploit_calibration.py", "exploit_calibration")
    case = root / calibration.case_name(pile, observation or "count")
    nim_case(case, pile, exact, cells, observation=observation, train=train)


def test_the_settings_table_compares_the_ladders_own_with_each_other_folder(monkeypatch,
                                                                            tmp_path):
    from tabletop_gym.tasks.exploit import LADDER_SETTINGS

    page = {**LADDER_SETTINGS, "lr": 0.00025, "ent_coef": 0.01, "opponents": "random"}
    other = {**page, "lr": 0.001, "ent_coef": 0.05}
    won, lost = [1, 1, 1, 1], [0, 0, 0, 0]
    bench = tmp_path / "benchmarks"
    # The page's: pile 4 within its exact value (1.0) at 100k, not at 1M; its 10M rung and the
    # one-hot case are not compared.
    _nim_case(bench / "exploit-calibration", 4, 1.0,
              {(100_000, 0): won, (100_000, 1): won, (1_000_000, 0): lost,
               (1_000_000, 1): lost, (10_000_000, 0): won, (10_000_000, 1): won}, page)
    _nim_case(bench / "exploit-calibration", 4, 1.0, {(100_000, 0): won, (100_000, 1): won},
              page, observation="one_hot")
    ladder_files(bench / "exploit" / "rapa_nui-2p" / "heuristic", "rapa_nui",
                 {(100_000, 0): lost, (100_000, 1): lost, (300_000, 0): [1, 0, 1, 0],
                  (300_000, 1): [1, 0, 1, 0]}, train=page)
    # Other settings: within at both budgets.
    folder = bench / "exploit-settings" / "lr-ent"
    _nim_case(folder / "calibration", 4, 1.0, {(100_000, 0): won, (100_000, 1): won,
                                                (1_000_000, 0): won, (1_000_000, 1): won}, other)
    ladder_files(folder / "rapa_nui-2p" / "heuristic", "rapa_nui",
                 {(1_000_000, 0): won, (1_000_000, 1): won}, train=other)
    monkeypatch.setattr(docs_tables, "ROOT", tmp_path)
    lines = docs_tables.exploit_settings().splitlines()
    assert lines[0].endswith("win rate at 100k / 300k / 1M / 3M |")
    own, lr_ent = lines[2:]
    assert own.startswith("| the ladders' own (the results page) | 1 of 2 | 4: 100k | 0.000 \u00b1 ")
    assert " / 0.500 \u00b1 " in own and own.endswith(" / \u2013 / \u2013 |")
    assert lr_ent.startswith("| `lr=0.001`, `ent_coef=0.05` | 2 of 2 | 4: 100k, 1M | \u2013 / "
                             "\u2013 / 1.000 \u00b1 ")
    # A folder whose two ladders were trained with different settings is refused.
    (folder / "rapa_nui-2p" / "heuristic" / "budget1000000_seed0.json").write_text(
        (folder / "rapa_nui-2p" / "heuristic" / "budget1000000_seed0.json").read_text()
        .replace('"lr": 0.001', '"lr": 0.003'))
    with pytest.raises(ValueError, match="the Nim and Rapa Nui ladders were trained with other "
                       "settings"):
        docs_tables.exploit_settings()
