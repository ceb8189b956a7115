"""The frozen reference ladder (docs/llm.md, "The reference ladder"): a rating against fixed
members, worked out by hand; the ladder never refitted by a rating; the committed file; the CLI."""

from __future__ import annotations

import copy
import json
import math

import pytest

from tabletop_gym.arena import ladder
from tabletop_gym.arena.league import ELO
from tabletop_gym.arena.scripted_server import Reply, ScriptedServer
from tabletop_gym.cli import main


def test_fit_one_by_hand():
    # 3 wins in 4 games against a member rated 0, plus one virtual draw: 3.5 points of 5, so
    # the odds are 3.5 : 1.5 and the rating ELO * ln(7/3) (400 points per factor 10 of odds)
    assert ladder.fit_one([3], [4], [0.0]) == pytest.approx(ELO * math.log(3.5 / 1.5))
    assert ELO * math.log(10) == pytest.approx(400)
    # half the points against members at -100 and +100: the middle, 0
    assert ladder.fit_one([5, 5], [10, 10], [-100.0, 100.0]) == pytest.approx(0, abs=1e-6)
    # all wins and all losses stay finite thanks to the virtual draw
    assert ladder.fit_one([0], [20], [0.0]) == pytest.approx(-ELO * math.log(41))


def _tiny_ladder():
    return {"protocol": ladder.LADDER_PROTOCOL, "game": "rapa_nui", "num_players": 2,
            "package_version": "test", "ratings": {"random": 0.0, "heuristic": 400.0}}


def test_a_rating_plays_every_member_and_leaves_the_ladder_as_it_was():
    doc = _tiny_ladder()
    before = copy.deepcopy(doc)
    res = ladder.rate_against("heuristic", games_per_member=4, bootstrap=50, ladder=doc)
    assert doc == before  # no refit: the members keep their ratings
    assert [m["member"] for m in res.per_member] == ["random", "heuristic"]
    assert all(m["games"] == 4 for m in res.per_member)
    points = [m["points"] for m in res.per_member]
    assert points[0] == 4  # the heuristic beats the random agent in each of these deals
    assert res.rating == pytest.approx(ladder.fit_one(points, [4, 4], [0.0, 400.0]))
    assert res.ci[0] <= res.rating <= res.ci[1]
    assert "against the frozen ladder tabletop-ladder-v1" in res.markdown()


def test_an_llm_agent_is_rated_over_http(tmp_path, capsys):
    path = tmp_path / "ladder.json"
    path.write_text(json.dumps({**_tiny_ladder(), "ratings": {"random": 0.0}}))
    with ScriptedServer(lambda messages, k: Reply("Move: 1")) as server:
        code = main(["ladder", "--agent", f"llm:m@{server.base_url}?timeout=5&name=first",
                     "--games", "2", "--bootstrap", "20", "--ladder", str(path)])
    out = capsys.readouterr().out
    assert code == 0
    assert out.startswith("`first`: **") and "| `random` | 0 | 2 |" in out
    assert "off protocol (2 games per member, seed 0" in out


def test_an_llm_that_never_answers_gets_an_invalid_rating_and_exit_3(tmp_path, capsys):
    path = tmp_path / "ladder.json"
    path.write_text(json.dumps({**_tiny_ladder(), "ratings": {"random": 0.0}}))
    with ScriptedServer(lambda messages, k: Reply(status=503)) as server:
        argv = ["ladder", "--agent", f"llm:m@{server.base_url}?timeout=5&rethinks=0&name=down",
                "--games", "2", "--bootstrap", "10", "--ladder", str(path)]
        assert main(argv) == 3
        out, err = capsys.readouterr()
        assert main([*argv, "--allow-fallbacks"]) == 0
    assert out.startswith("`down` **(INVALID)**: **")
    assert "error: the results of down against random are INVALID: " in err


def test_bad_ladders_and_arguments_are_clear_errors(tmp_path, capsys):
    path = tmp_path / "other.json"
    path.write_text(json.dumps({"protocol": "tabletop-ladder-v0", "ratings": {}}))
    with pytest.raises(ValueError, match="is not a ladder of protocol tabletop-ladder-v1"):
        ladder.load_ladder(path)
    with pytest.raises(ValueError, match="no ladder file"):
        ladder.load_ladder(tmp_path / "missing.json")
    with pytest.raises(ValueError, match="games_per_member must be at least 1"):
        ladder.rate_against("random", games_per_member=0, ladder=_tiny_ladder())
    assert main(["ladder", "--refit", "--agent", "random"]) != 0
    assert "give no --agent with it" in capsys.readouterr().err
    assert main(["ladder"]) != 0
    assert "give --agent SPEC" in capsys.readouterr().err



def test_the_committed_ladder_is_of_the_protocol_with_its_members():
    doc = ladder.load_ladder()
    assert list(doc["ratings"]) == list(ladder.MEMBERS)
    assert doc["ratings"]["random"] == 0.0
    assert doc["games_per_member"] == ladder.GAMES_PER_MEMBER
    for member, (lo, hi) in doc["rating_ci"].items():
        assert lo <= doc["ratings"][member] <= hi


def test_a_rating_is_saved_with_out_and_reads_back(tmp_path, capsys):
    lad = tmp_path / "ladder.json"
    lad.write_text(json.dumps(_tiny_ladder()))
    out = tmp_path / "ratings" / "heuristic.json"
    assert main(["ladder", "--agent", "heuristic", "--games", "2", "--bootstrap", "20",
                 "--ladder", str(lad), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert f"saved {out}" in printed
    back = ladder.LadderRating.from_json(json.loads(out.read_text()))
    assert back.agent == "heuristic" and back.protocol == ladder.LADDER_PROTOCOL
    assert [m["games"] for m in back.per_member] == [2, 2]
    assert back.markdown() in printed  # the file holds the rating the command printed
    doc = back.to_json()
    with pytest.raises(ValueError, match="not a ladder rating of protocol"):
        ladder.LadderRating.from_json({**doc, "protocol": "tabletop-ladder-v0"})
    with pytest.raises(ValueError, match="a ladder rating has the entries"):
        ladder.LadderRating.from_json({k: v for k, v in doc.items() if k != "ci"})


def test_the_committed_example_rating_was_made_against_the_committed_ladder():
    # docs/llm.md shows it: a rating of the heuristic under the protocol (100 games a member)
    root = ladder.LADDER_FILE.parents[2]
    rating = ladder.LadderRating.from_json(
        json.loads((root / "benchmarks" / "ladder" / "heuristic.json").read_text()))
    doc = ladder.load_ladder()
    assert {m["member"]: m["rating"] for m in rating.per_member} == doc["ratings"]
    assert all(m["games"] == ladder.GAMES_PER_MEMBER for m in rating.per_member)
    assert rating.ci[0] <= rating.rating <= rating.ci[1]
