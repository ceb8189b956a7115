"""docs/baselines.md cannot go stale: every row's first games are replayed and compared.

`make baselines` stores, beside the page, the first games of every row (seeds, seats, scores,
outcomes) in docs/baselines.json. Replaying those games with today's code must give the same
numbers; when a change moves one, this test fails until the page is regenerated.
"""

from __future__ import annotations

import json
import math
import pathlib

import numpy as np
import pytest

from tabletop_gym.arena.envs import raw_env_factory
from tabletop_gym.arena.evaluation import evaluate
from tabletop_gym.arena.league import run_league
from tabletop_gym.tasks.baselines import Job, _verdicts, bootstrap_ci, first_moves, iqm, jobs

DOCS = pathlib.Path(__file__).resolve().parent.parent / "docs"
PAGE = json.loads((DOCS / "baselines.json").read_text())
ROWS = PAGE["rows"]


def test_every_row_of_the_page_is_a_job_with_its_numbers_committed():
    assert set(ROWS) <= {j.id for j in jobs()}
    text = (DOCS / "baselines.md").read_text()
    assert PAGE["metadata"]["package_version"] in text
    for entry in ROWS.values():
        assert entry["slice"], entry["job"]["id"]


@pytest.mark.parametrize("job_id", sorted(ROWS))
def test_row_slice_replays(job_id: str):
    entry = ROWS[job_id]
    job = Job(**{**entry["job"], "agents": tuple(entry["job"]["agents"])})
    assert job in jobs(), "the job behind this row changed: run `make baselines`"
    # The harness draws every game from one generator in order, so the first games replay alone.
    got = job.replay()
    assert json.loads(json.dumps(got)) == entry["slice"], (
        f"{job_id} no longer reproduces: run `make baselines` to regenerate docs/baselines.md")


def test_first_moves_are_the_first_game_of_the_evaluation():
    # Played to the end (more decisions than the game has), the moves must be the evaluation's
    # first game: the same final scores from the same deal and seats.
    moves = first_moves("rapa_nui", "ismcts:2", "random", seed=5, decisions=10_000,
                        num_players=2)
    first = evaluate("rapa_nui", "ismcts:2", "random", n_games=1, seed=5,
                     num_players=2).per_game[0]
    env = raw_env_factory("rapa_nui")(num_players=2)
    env.reset(seed=5)
    for a in moves:
        env.step(a)
    assert env.game_state.is_terminal()
    assert [float(x) for x in env.game_state.scores()] == first["scores"]
    short = first_moves("rapa_nui", "ismcts:2", "random", seed=5, decisions=2, num_players=2)
    assert short == moves[: len(short)] and len(short) < len(moves)


def test_a_league_reuses_games_already_played():
    # A pair's games from an evaluation with the same deals give the league the same numbers
    # as playing them again (the first k games of n are the evaluation of k).
    agents = ["random", "heuristic"]
    fresh = run_league("rapa_nui", agents, games_per_pair=2, seed=9, bootstrap=0,
                       num_players=2)
    longer = evaluate("rapa_nui", "random", "heuristic", n_games=4, seed=9, num_players=2)
    reused = run_league("rapa_nui", agents, games_per_pair=2, seed=9, bootstrap=0,
                        num_players=2, played={("random", "heuristic"): longer.per_game})
    assert reused.games == fresh.games == [{"agent": "random", "opponent": "heuristic", **g}
                                           for g in longer.per_game[:2]]
    np.testing.assert_equal(reused.matrix, fresh.matrix)  # NaN on the diagonal
    assert reused.pairs == fresh.pairs and reused.ratings == fresh.ratings


def test_iqm_and_bootstrap_by_hand():
    # 8 values: drop the 2 lowest and 2 highest, mean of 3, 4, 5, 6 = 4.5
    assert iqm([1, 2, 3, 4, 5, 6, 7, 100]) == 4.5
    # fewer than 4 values trim nothing (as scipy.stats.trim_mean(x, 0.25))
    assert iqm([0.2, 0.4, 0.9]) == pytest.approx(0.5)
    lo, hi = bootstrap_ci([0.5, 0.5, 0.5])
    assert lo == hi == 0.5
    lo, hi = bootstrap_ci([0.0, 1.0, 0.5, 0.25])
    assert 0.0 <= lo < hi <= 1.0
    assert not math.isnan(lo)


def test_a_fresh_clone_keeps_the_seeds_table_without_the_training_runs(tmp_path):
    # runs/ is not in the repository: rendering without the training runs must keep the seeds
    # the page was generated with, not drop the table.
    from tabletop_gym.tasks.baselines import render

    docs = tmp_path / "docs"
    (docs / "img").mkdir(parents=True)
    (docs / "baselines.json").write_text(json.dumps(PAGE))
    doc = render(tmp_path / "no-cache", tmp_path / "no-runs", docs)
    assert doc["seeds"] == PAGE["seeds"]
    assert "### Training seeds" in (docs / "baselines.md").read_text()


def test_a_search_target_needs_the_interval_and_the_time():
    # The search target: a win-rate interval above 0.5 and at most 1 CPU s per decision, both
    # measured; either one missing or failing leaves it unmet.
    job = next(j for j in jobs() if j.table == "ismcts" and j.game == "rapa_nui")
    row = {"opponent": "heuristic", "games": 60, "win_rate": 0.8, "win_ci_low": 0.7,
           "win_ci_high": 0.9, "mean_score_diff": 14.0, "diff_ci_low": 10.0,
           "diff_ci_high": 18.0}

    def verdict(row, timing):
        lines = [v for v in _verdicts({job.id: (job, {"row": row})}, timing)
                 if v.startswith(f"- `{job.agents[0]}`, rapa_nui")]
        assert len(lines) == 1
        return lines[0]

    assert "**met**: win rate 0.800 [0.700, 0.900] over 60 games" in verdict(
        row, {"rapa_nui": {job.agents[0]: 0.25}})
    assert "0.25 CPU s per move" in verdict(row, {"rapa_nui": {job.agents[0]: 0.25}})
    assert "**not met**" in verdict(row, {"rapa_nui": {job.agents[0]: 1.5}})
    assert "**not met**" in verdict(row, {})
    assert "not measured" in verdict(row, {})
    assert "**not met**" in verdict({**row, "win_ci_low": 0.45}, {"rapa_nui": {job.agents[0]: 0.25}})


def test_reusing_the_committed_rows_keeps_them_and_leaves_the_trained_ones_to_run(tmp_path):
    from tabletop_gym.tasks.baselines import render, reuse_committed

    docs = tmp_path / "docs"
    (docs / "img").mkdir(parents=True)
    (docs / "baselines.json").write_text(json.dumps(PAGE))
    cache = tmp_path / "cache"
    seeded = reuse_committed(cache, docs)
    with_ppo = {j.id for j in jobs() if "ppo" in j.agents}
    assert set(seeded) == ({"timing"} | set(ROWS)) - with_ppo
    for jid in with_ppo:
        assert not (cache / f"{jid}.json").exists()  # played again by run_jobs
    assert reuse_committed(cache, docs) == []  # a cached result is never overwritten
    render(cache, tmp_path / "no-runs", docs)
    doc = json.loads((docs / "baselines.json").read_text())
    for jid in set(seeded) - {"timing"}:
        assert doc["rows"][jid] == ROWS[jid]
    assert doc["timing"] == PAGE["timing"]
