"""An LLM result is never silently wrong: the validity policy, its marks, its exit status.

The policy (docs/llm.md, "Invalid results"): an LLM seat that had more than
``FALLBACK_LIMIT`` (5 %) of its moves played by the fallback makes every result it took part in
invalid; every table marks it, ``eval`` and ``league`` say why on stderr and exit 3 unless
``--allow-fallbacks`` is given. The servers are ``tabletop_gym.arena.scripted_server`` on loopback, or a closed
loopback port for a server that is down.
"""

from __future__ import annotations

import csv
import json
import re
import socket

import pytest

from tabletop_gym.agents.llm import (
    FALLBACK_LIMIT,
    InvalidResultWarning,
    empty_stats,
    invalid_reason,
    report_markdown,
    report_rows,
)
from tabletop_gym.arena.league import run_table_league
from tabletop_gym.arena.scripted_server import Reply, ScriptedServer
from tabletop_gym.cli import INVALID_STATUS, main


def _closed_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def _stats(decisions: int, fallbacks: int, reasons: dict[str, int] | None = None):
    st = empty_stats()
    st.update(decisions=decisions, answers=decisions, fallbacks=fallbacks)
    st["no_answer"] = sum((reasons or {}).values())
    st["no_answer_reasons"] = dict(reasons or {})
    return st


def test_the_limit_is_five_percent_of_the_moves_and_reaching_it_is_still_valid():
    assert FALLBACK_LIMIT == 0.05
    assert invalid_reason(_stats(20, 1)) == ""  # 1/20 = 5 %: at the limit, not past it
    assert invalid_reason(_stats(20, 0)) == ""
    assert invalid_reason(_stats(20, 2)) == (
        "2 of its 20 moves (10%) were played by the fallback, not chosen by the model (the "
        "limit is 5%)")
    assert invalid_reason(_stats(4, 4, {"timeout: no answer within 5 s": 3, "HTTP 500": 5})) == (
        "4 of its 4 moves (100%) were played by the fallback, not chosen by the model (the "
        "limit is 5%); no answer 8 times: 5x HTTP 500; 3x timeout: no answer within 5 s")


def test_the_report_marks_an_invalid_agent_and_lists_why_and_every_no_answer_reason():
    rows = report_rows({"bad": _stats(10, 10, {"a": 1, "b": 2, "c": 3, "d": 4}),
                        "good": _stats(10, 0, {"HTTP 429": 2})})
    text = report_markdown(rows)
    assert text.splitlines()[2].endswith("| **INVALID** |")
    assert text.splitlines()[3].endswith("| yes |")
    # the four reasons of "bad": the three commonest named, with their counts
    assert "- `bad` is INVALID: 10 of its 10 moves (100%) were played by the fallback, not " \
           "chosen by the model (the limit is 5%); no answer 10 times: 4x d; 3x c; 2x b and 1 " \
           "other reason." in text
    assert "- `good`: no answer 2 times: 2x HTTP 429." in text


def test_a_league_whose_server_is_down_is_marked_invalid_and_exits_3(tmp_path, capsys):
    port = _closed_port()
    spec = f"llm:qwen2.5@http://127.0.0.1:{port}/v1?timeout=2&rethinks=0&name=qwen7b"
    code = main(["league", "--game", "rapa_nui", "--players", "2", "--agents", "heuristic",
                 spec, "--games", "2", "--bootstrap", "20", "--out", str(tmp_path),
                 "--no-heatmap"])
    out, err = capsys.readouterr()
    assert code == INVALID_STATUS == 3
    data = json.loads((tmp_path / "league.json").read_text())
    (row,) = data["llm"]
    d = row["decisions"]
    assert d > 0 and row["answers"] == d and row["fallback_rate"] == 1.0
    why = (f"{d} of its {d} moves (100%) were played by the fallback, not chosen by the model "
           f"(the limit is 5%); no answer {d} times: {d}x connection failed to "
           f"http://127.0.0.1:{port}/v1")
    assert row["invalid"].startswith(why) and data["invalid"] == {"qwen7b": row["invalid"]}
    assert err.startswith(f"tabletop-gym league: error: the results of qwen7b are INVALID: "
                          f"{why}")
    assert "pass --allow-fallbacks to accept them" in err
    # ?name= is the agent's name everywhere, and every table marks it: ratings, matrix, LLM row
    for text in (out, (tmp_path / "league.md").read_text()):
        assert spec not in text
        assert re.search(r"^\| \d \| `qwen7b` \*\*\(INVALID\)\*\* \| ", text, re.MULTILINE)
        assert "| row beats column | `heuristic` | `qwen7b` **(INVALID)** |" in text
        assert re.search(r"^\| `qwen7b` \*\*\(INVALID\)\*\* \| [\d.]+ \[", text, re.MULTILINE)
        assert re.search(r"^\| `qwen7b` \| .* \| \*\*INVALID\*\* \|$", text, re.MULTILINE)
        assert "measure the fallback as much as the model" in text


def _every_third_answer_fails(messages, k):
    return Reply(status=500) if k % 3 == 2 else Reply("Move: 1")


def test_eval_shows_why_answers_failed_and_the_whole_agent_name(capsys):
    with ScriptedServer(_every_third_answer_fails) as server:
        spec = f"llm:stub@{server.base_url}?timeout=5&rethinks=1"
        code = main(["eval", "--game", "rapa_nui", "--players", "2", "--candidate", spec,
                     "--opponent", "heuristic", "--games", "1"])
        failed = sum(1 for k in range(len(server.requests)) if k % 3 == 2)
    out, err = capsys.readouterr()
    # a failed answer is followed by a good one (request k % 3 == 0): no fallback, valid
    assert code == 0 and err == "" and failed > 0
    (line,) = [x for x in out.splitlines() if x.startswith("rapa_nui ")]
    assert line.split()[2] == spec  # the whole name, not its first 12 characters
    assert (f"- `{spec}`: no answer {failed} times: {failed}x HTTP 500 from {server.base_url}: "
            "Error code: 500 - scripted failure 500.") in out
    assert re.search(rf"^\| `{re.escape(spec)}` \| .* \| yes \|$", out, re.MULTILINE)


def test_eval_of_a_failing_server_exits_3_unless_fallbacks_are_allowed(tmp_path, capsys):
    with ScriptedServer(lambda messages, k: Reply(status=503)) as server:
        spec = f"llm:stub@{server.base_url}?timeout=5&rethinks=0&name=stub"
        argv = ["eval", "--game", "positano", "--players", "2", "--candidate", "heuristic",
                "--opponent", spec, "--games", "2", "--out", str(tmp_path / "ev")]
        code = main(argv)
        out, err = capsys.readouterr()
        assert code == 3
        assert "error: the results of stub are INVALID: " in err
        assert "stub (INVALID)" in out.splitlines()[2]
        (row,) = csv.DictReader((tmp_path / "ev.csv").read_text().splitlines())
        assert row["invalid"].startswith("stub: ") and "(100%)" in row["invalid"]
        assert main([*argv, "--allow-fallbacks"]) == 0
        out, err = capsys.readouterr()
        assert "warning: the results of stub are INVALID: " in err
        assert "stub (INVALID)" in out


def test_a_table_league_marks_an_llm_that_never_answered():
    spec = f"llm:m@http://127.0.0.1:{_closed_port()}/v1?timeout=2&rethinks=0&name=down"
    with pytest.warns(InvalidResultWarning, match=r"down: \d+ of its \d+ moves \(100%\)"):
        res = run_table_league("rapa_nui", ["random", "heuristic", spec], deals_per_table=1,
                               bootstrap=5, num_players=3)
    assert res.agents == ["random", "heuristic", "down"]
    assert list(res.invalid) == ["down"]
    assert "| `down` **(INVALID)** |" in res.markdown()


@pytest.mark.parametrize("command", [["eval"], ["league"], ["play"], ["suite", "run"],
                                     ["ladder"]])
def test_the_help_of_every_agent_argument_mentions_llm_specs(command, capsys):
    with pytest.raises(SystemExit):
        main([*command, "--help"])
    assert "llm:MODEL@BASE_URL" in " ".join(capsys.readouterr().out.split())


def test_suite_run_marks_an_invalid_llm_score_and_exits_3_unless_allowed(tmp_path, capsys):
    import jsonschema

    from tabletop_gym.agents import llm
    from tabletop_gym.tasks.runner import SCHEMA_FILE

    schema = json.loads(SCHEMA_FILE.read_text())
    task = "RapaNui-2p-vsHeuristic-v0"
    out = tmp_path / "run.json"
    with ScriptedServer(lambda messages, k: Reply(status=503)) as server:
        argv = ["suite", "run", "--suite", "rapa_nui", "--agent",
                f"llm:stub@{server.base_url}?timeout=5&rethinks=0", "--label", "stub",
                "--seeds", "1", "--deals", "1", "--task", task, "--out", str(out)]
        assert main(argv) == INVALID_STATUS == llm.INVALID_STATUS
        printed, err = capsys.readouterr()
        doc = json.loads(out.read_text())
        assert main([*argv, "--allow-fallbacks"]) == 0
        assert "warning: the results of stub on " in capsys.readouterr().err
    jsonschema.validate(doc, schema)
    (row,) = doc["tasks"]
    # every model decision of the 2 games (one per seat) went to the fallback
    assert row["llm"]["fallback_rate"] == 1.0 and row["llm"]["decisions"] > 0
    assert row["llm"]["no_answer_reasons"] and row["llm"]["forced"] > 0
    assert doc["invalid"] == {task: row["invalid"]} and "(100%)" in row["invalid"]
    assert f"error: the results of stub on {task} are INVALID: " in err
    assert f"| `{task}` | " in printed and " **INVALID** |" in printed


def test_suite_run_of_a_model_that_answers_is_valid(tmp_path, capsys):
    out = tmp_path / "run.json"
    with ScriptedServer(lambda messages, k: Reply("Move: 1")) as server:
        code = main(["suite", "run", "--suite", "rapa_nui", "--agent",
                     f"llm:m@{server.base_url}?timeout=5", "--seeds", "1", "--deals", "1",
                     "--task", "RapaNui-2p-vsHeuristic-v0", "--out", str(out)])
    assert code == 0 and "INVALID" not in capsys.readouterr().out
    doc = json.loads(out.read_text())
    assert doc["invalid"] == {} and doc["tasks"][0]["invalid"] == ""
    assert doc["tasks"][0]["llm"]["fallback_rate"] == 0.0
