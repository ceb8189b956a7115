"""``bench/search.py``'s table mode scores and rotates as its docstring says.

No timing is asserted (the bench measures; tests never do).
"""

from __future__ import annotations

import os
import pathlib

import pytest

from tests.scripts import load_script

_before = os.environ.get("XLA_FLAGS")
bench = load_script("bench/search.py", "bench_search")
# The bench pins XLA to one thread for its own process; the tests' process keeps its setting.
if _before is None:
    os.environ.pop("XLA_FLAGS", None)
else:
    os.environ["XLA_FLAGS"] = _before


def test_finished_above_counts_each_kinds_seats_and_a_tie_as_half():
    # Seat 0 scores 10: below the ismcts seat (12), level with one heuristic (10: one half),
    # above the other (5: one): heuristic (0.5 + 1) / 2.
    above = bench.finished_above([10, 12, 10, 5], 0, {1: "ismcts", 2: "heuristic", 3: "heuristic"})
    assert above == {"ismcts": 0.0, "heuristic": 0.75}


def test_the_table_rotates_the_searchers_seat_and_reports_each_opponent_kind():
    clocks = {spec: bench.Clock() for spec in ("random", "heuristic")}
    rows = bench.table_match("rapa_nui", 4, "random", ["heuristic"] * 3, 4, clocks)
    (row,) = rows  # one opponent kind
    assert (row["opponent"], row["games"], row["table"]) == ("heuristic", 4,
                                                            ["random", *["heuristic"] * 3])
    assert 0.0 <= row["finished_above_ci"][0] <= row["finished_above"] <= 1.0
    # Four games, the searcher in each seat once: every agent made timed choices.
    assert row["search_seats"] == [0, 1, 2, 3]
    assert clocks["random"].decisions > 0 and clocks["heuristic"].decisions > 0
    with pytest.raises(ValueError, match="4 seats need 3 opponents"):
        bench.table_match("rapa_nui", 4, "random", ["heuristic"], 4, clocks)
    # What pooling needs: the first deal and one value a game, whose mean is the rate.
    assert row["first_deal"] == 41000 and len(row["finished_above_per_game"]) == 4
    assert row["finished_above"] == round(sum(row["finished_above_per_game"]) / 4, 3)
    assert row["search_win_rate"] == round(sum(row["search_wins"]) / 4, 3)


def test_a_table_run_from_another_first_deal_plays_other_deals():
    clocks = {spec: bench.Clock() for spec in ("random", "heuristic")}
    a = bench.table_match("rapa_nui", 4, "random", ["heuristic"] * 3, 4, clocks, first_deal=7)
    b = bench.table_match("rapa_nui", 4, "random", ["heuristic"] * 3, 4, clocks, first_deal=7)
    c = bench.table_match("rapa_nui", 4, "random", ["heuristic"] * 3, 4, clocks, first_deal=8)
    assert a == b and a[0]["first_deal"] == 7  # the deal and the agents' generator: same games
    assert c[0]["first_deal"] == 8
    assert c[0]["finished_above_per_game"] != a[0]["finished_above_per_game"] or (
        c[0]["search_wins"] != a[0]["search_wins"])


def _table_doc(first_deal, above, wins, seconds=2.0):
    table = ["search:x", "ismcts:12:guided", "heuristic", "heuristic"]
    clock = {"decisions": 10, "seconds": seconds, "steps": 100}
    return {"command": f"table {first_deal}", "provenance": {"commit": "abcdef0123"},
            "tables": [{"game": "positano", "players": 4, "search": "search:x", "table": table,
                        "opponent": "heuristic", "games": len(above), "first_deal": first_deal,
                        "finished_above_per_game": above, "search_wins": wins}],
            "speed": [{"game": "positano", "players": 4, "compile_s": 40.0,
                       **{spec: dict(clock) for spec in dict.fromkeys(table)}}]}


def test_table_runs_pool_their_games_and_refuse_shared_deals():
    a = _table_doc(41000, [1.0, 0.5, 0.0, 1.0], [1.0, 0.0, 0.0, 1.0])
    b = _table_doc(41001, [1.0, 1.0, 0.5, 0.5], [0.0, 1.0, 0.0, 0.0], seconds=1.0)
    (row,), (speed,) = bench.pool_tables([("a", a), ("b", b)])
    # 5.5 over 8 games; sample sd of the eight values by hand: mean 0.6875, squares of the
    # deviations: four 1s 4 x 0.09765625, three halves 3 x 0.03515625, one 0 0.47265625;
    # 0.96875 in all.
    assert (row["games"], row["finished_above"], row["search_win_rate"]) == (8, 0.688, 0.375)
    half = 1.959964 * (0.96875 / 7) ** 0.5 / 8 ** 0.5
    assert row["finished_above_ci"] == [round(0.6875 - half, 3), round(0.6875 + half, 3)]
    assert row["first_deals"] == [41000, 41001]
    # 20 decisions in 3 s for every agent: 150 ms a move.
    assert speed["search:x"]["ms_per_move"] == speed["heuristic"]["ms_per_move"] == 150.0
    with pytest.raises(ValueError, match=r"c: the positano table repeats deals of an earlier "
                                         r"file \(deals 41000"):
        bench.pool_tables([("a", a), ("c", _table_doc(40999, [1.0] * 8, [1.0] * 8))])
    old = _table_doc(41002, [1.0], [1.0])
    del old["tables"][0]["finished_above_per_game"]
    with pytest.raises(ValueError, match=r"old: the positano table has no per-game values"):
        bench.pool_tables([("old", old)])


def test_pool_writes_the_pooled_table_and_refuses_mixed_files(tmp_path):
    import json

    names = []
    for i, doc in enumerate([_table_doc(41000, [1.0, 0.0, 1.0, 1.0], [1.0, 0.0, 0.0, 0.0]),
                             _table_doc(41001, [0.5] * 4, [0.0] * 4)]):
        names.append(str(tmp_path / f"t{i}.json"))
        pathlib.Path(names[-1]).write_text(json.dumps(doc))
    assert bench.main(["--pool", *names, "--out", str(tmp_path / "pooled")]) == 0
    page = (tmp_path / "pooled.md").read_text()
    assert "# Batched search at 4-player tables (CPU, pooled runs)" in page
    assert "| `heuristic` | 8 | 0.625 [" in page  # 5 over 8 games and "* `table 41001` (commit `abcdef0`)" in page
    two = tmp_path / "two.json"
    two.write_text(json.dumps(_doc(41100, [1.0, 0.0], [1.0, 1.0])))
    with pytest.raises(SystemExit, match="either 2-player files or table files, not both"):
        bench.main(["--pool", names[0], str(two), "--out", str(tmp_path / "mixed")])


def _doc(first_deal, outcomes, diffs, search_s=2.0, ismcts_s=3.0, legacy=False):
    row = {"game": "rapa_nui", "search": "search:jax-ppo?worlds=16",
           "opponent": "ismcts:12:guided", "games": len(outcomes),
           "win_rate": round(sum(outcomes) / len(outcomes), 3),
           "mean_score_diff": round(sum(diffs) / len(diffs), 2)}
    if not legacy:
        row.update(first_deal=first_deal, outcomes=outcomes, score_diffs=diffs)
    clock = {"decisions": 10, "seconds": 0.0, "steps": 100}
    return {"command": f"run {first_deal}", "provenance": {"commit": "abcdef0123"},
            "matches": [row],
            "speed": [{"game": "rapa_nui", "compile_s": 60.0,
                       "search": {**clock, "seconds": search_s, "steps": 1000},
                       "ismcts:12:guided": {**clock, "seconds": ismcts_s, "steps": 150},
                       "heuristic": dict(clock, steps=0)}]}


def test_pooled_runs_join_their_games_and_sum_each_agents_time():
    a = _doc(41100, [1.0, 0.0, 1.0, 0.5], [3.0, -2.0, 5.0, 0.0])
    b = _doc(41102, [1.0, 1.0], [4.0, 2.0], search_s=1.0, ismcts_s=1.0)
    (row,), (speed,) = bench.pool_rows([("a", a), ("b", b)])
    # 4.5 points over 6 games; score differences 12 over 6.
    assert (row["games"], row["win_rate"], row["mean_score_diff"]) == (6, 0.75, 2.0)
    lo, hi = bench.wilson_interval(0.75, 6)
    assert row["win_ci"] == [round(lo, 3), round(hi, 3)] and row["first_deals"] == [41100, 41102]
    # 20 decisions in 3 s: 150 ms a move; 2000 steps in 3 s against 300 in 4 s: a ratio of 8.89.
    assert speed["search"]["ms_per_move"] == 150.0
    assert speed["ismcts:12:guided"]["ms_per_move"] == 200.0
    assert speed["steps_per_s_ratio"] == round((2000 / 3) / (300 / 4), 2)


def test_a_file_without_outcomes_pools_only_where_its_rate_gives_one_win_count():
    # 200 games at 0.815: only 326 half points round to 0.815, so 163 wins and no tie.
    old = _doc(41000, [1.0] * 163 + [0.0] * 37, [1.0] * 200, legacy=True)
    (row,), _ = bench.pool_rows([("old", old), ("new", _doc(41100, [0.0, 0.0], [1.0, 1.0]))])
    assert (row["games"], row["win_rate"]) == (202, round(163 / 202, 3))
    # 2,000 games at 0.5: 1999 to 2002 half points of 4000 all round to 0.5 (2002 / 4000 =
    # 0.5005 is a hair below that in binary, 1998 / 4000 = 0.4995 too, so it goes to 0.499).
    vague = _doc(41000, [1.0] * 1000 + [0.0] * 1000, [0.0] * 2000, legacy=True)
    with pytest.raises(ValueError, match=r"vague: .* rate 0.5 over 2000 games fits 4 win counts"):
        bench.pool_rows([("vague", vague)])


def test_pooling_refuses_runs_that_share_deals():
    with pytest.raises(ValueError, match=r"b: the rapa_nui match against ismcts:12:guided "
                                         r"repeats deals of an earlier file \(deals 41101"):
        bench.pool_rows([("a", _doc(41100, [1.0] * 4, [1.0] * 4)),
                         ("b", _doc(41101, [1.0] * 2, [1.0] * 2))])


def test_paired_compares_the_games_both_runs_played_seat_for_seat():
    # Same first deal: the first 4 games are common. A - B per game: 0, +1, -0.5, +1, so a mean
    # of 0.375 and a sample standard deviation of sqrt(((-.375)^2 + 2 (.625)^2 + (-.875)^2) / 3).
    a = _doc(41000, [1.0, 1.0, 0.0, 1.0, 1.0, 1.0], [1.0] * 6)
    b = _doc(41000, [1.0, 0.0, 0.5, 0.0], [1.0] * 4)
    b["matches"][0]["search"] = "other"
    (line,) = bench.paired(a, b)
    sd = ((0.375 ** 2 + 2 * 0.625 ** 2 + 0.875 ** 2) / 3) ** 0.5
    assert line == (f"rapa_nui against ismcts:12:guided, 4 common games from deal 41000: "
                    f"`{a['matches'][0]['search']}` 0.750, `other` 0.375, paired difference "
                    f"+0.375 ± {1.96 * sd / 2:.3f}")


def test_paired_refuses_runs_of_other_deals_and_files_without_outcomes():
    with pytest.raises(ValueError, match="share no match"):
        bench.paired(_doc(41000, [1.0] * 2, [1.0] * 2), _doc(41002, [1.0] * 2, [1.0] * 2))
    with pytest.raises(ValueError, match="has no per-game outcomes in both files"):
        bench.paired(_doc(41000, [1.0] * 2, [1.0] * 2),
                     _doc(41000, [1.0] * 2, [1.0] * 2, legacy=True))
