"""Language-model agents end to end: real HTTP on loopback, every answer class, the rethinks,
the fallback and the timeout, whole games of both games against the heuristic, the league's
LLM report, the transcripts in the records and in ``replay``, and the error paths (a bad base
URL, a refused connection, a malformed response).

The server is ``tabletop_gym.arena.scripted_server``: an OpenAI-compatible chat-completions endpoint on
127.0.0.1 answering from a script. Nothing reaches the network.
"""

from __future__ import annotations

import json
import socket

import numpy as np
import pytest

from tabletop_gym.agents.kinds import make_agent
from tabletop_gym.agents.llm import (
    CallableBackend,
    InvalidResultWarning,
    LLMAgent,
    OpenAIBackend,
    parse_spec,
    record_with_logs,
    transcript_lines,
)
from tabletop_gym.arena.evaluation import evaluate
from tabletop_gym.arena.scripted_server import Reply, ScriptedServer, listed_moves
from tabletop_gym.cli import main
from tabletop_gym.core.records import GameRecord
from tabletop_gym.text.rules import PROMPT_VERSION, system_prompt
from tabletop_gym.text.view import SeatTracker
from tests.configs import raw_env

REASONING = "My hand decides it: the first move."
"""The scripted reasoning trace (7 words: 7 reasoning tokens by the server's count)."""

ILLEGAL_NAME = {"rapa_nui": "no purchase", "positano": "no-op"}
"""A name of an action of the game that is not among the listed moves when the script uses it."""


class PatternScript:
    """Answers decisions in a cycle of six kinds and notes the class each answer should get.

    Decision ``d`` (counted by the requests that open a decision):

    0. ``Move: 1``: legal, by number, with a reasoning trace apart (``reasoning_content``);
    1. the last move's exact text: legal, exact;
    2. the first move in upper case with a trailing period: legal, tolerant;
    3. prose that names no move (unparsable), then ``1`` on the rethink;
    4. a name of the game's that is not listed (illegal), then ``1``;
    5. an HTTP 500, then a body that is not JSON, then an unparsable answer: three non-legal
       answers, so the fallback plays. The first such decision sleeps past the client's
       timeout instead of the HTTP 500.
    """

    def __init__(self, game: str, timeout: float):
        self.game = game
        self.timeout = timeout
        self.decision = -1
        self.attempt = 0
        self.intended: list[str] = []
        self.slept = False

    def __call__(self, messages, k):
        if len(messages) == 2:
            self.decision += 1
            self.attempt = 0
        else:
            self.attempt += 1
        moves = listed_moves(messages)
        kind = self.decision % 6
        if kind == 0:
            return self._say("legal", "Move: 1", reasoning=REASONING)
        if kind == 1:
            return self._say("legal", moves[-1])
        if kind == 2:
            return self._say("legal", f"  {moves[0].upper()}.")
        if kind in (3, 4):
            if self.attempt:
                return self._say("legal", "1")
            if kind == 3:
                return self._say("unparsable", "I am not sure what to do here.")
            name = ILLEGAL_NAME[self.game]
            if name in moves:
                return self._say("legal", "1")
            return self._say("illegal", f"Move: {name}")
        if self.attempt == 0:
            self.intended.append("no_answer")
            if not self.slept:
                self.slept = True
                return Reply("Move: 1", sleep=self.timeout + 0.6)
            return Reply(status=500)
        if self.attempt == 1:
            self.intended.append("no_answer")
            return Reply(raw=b"{this is not json")
        return self._say("unparsable", "pass")

    def _say(self, kind, text, reasoning=None):
        self.intended.append(kind)
        return Reply(text, reasoning=reasoning)


def _attempts(records):
    out = []
    for rec in records:
        for log in rec.agent_logs or []:
            for d in log["decisions"]:
                out.append(d)
    return out


@pytest.mark.parametrize("game", ["rapa_nui", "positano"])
def test_whole_games_over_http_exercise_every_class_the_rethinks_the_fallback_and_the_timeout(
        game, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret-0001")
    timeout = 1.5  # far above a loopback answer even on a loaded machine
    script = PatternScript(game, timeout)
    records = []
    with ScriptedServer(script) as server:
        spec = f"llm:scripted@{server.base_url}?timeout={timeout}&rethinks=2&seed=3"
        # one decision in six ends in the fallback: more than FALLBACK_LIMIT, an invalid result
        with pytest.warns(InvalidResultWarning, match="were played by the fallback"):
            res = evaluate(game, spec, "heuristic", n_games=2, seed=0, num_players=2,
                           record_sink=records.append)
        requests = server.requests
        headers = server.headers
    assert len(records) == 2 and all(r.replay().is_terminal() for r in records)
    entries = _attempts(records)
    decisions = [d for d in entries if not d["forced"]]
    forced = [d for d in entries if d["forced"]]
    # a forced move is one the seat had no choice in, played without a request
    assert forced and all(d["attempts"] == [] and not d["fallback"] for d in forced)
    for rec in records:
        for log in rec.agent_logs:
            for d in log["decisions"]:
                assert d["forced"] == (len(rec.replay(d["index"]).legal_actions()) == 1)
    classes = [a["class"] for d in decisions for a in d["attempts"]]
    assert classes == script.intended  # each scripted answer got the class it was written for
    assert {"legal", "illegal", "unparsable", "no_answer"} <= set(classes)
    assert any("timeout" in a["reason"] for d in decisions for a in d["attempts"])
    assert any("HTTP 500" in a["reason"] for d in decisions for a in d["attempts"])
    assert any("malformed response" in a["reason"] for d in decisions for a in d["attempts"])
    matches = {a["match"] for d in decisions for a in d["attempts"] if a["class"] == "legal"}
    assert matches == {"number", "exact", "tolerant"}
    # a rethink prompt says why the last answer was refused
    rethinks = [m for body in requests for m in body["messages"][2:] if m["role"] == "user"]
    assert any("not legal now" in m["content"] for m in rethinks)
    assert any("names no legal move" in m["content"] for m in rethinks)
    # the fallback: exactly the decisions of kind 5, flagged, and a legal move of the seat
    fallbacks = [d for d in decisions if d["fallback"]]
    assert len(fallbacks) == sum(1 for i in range(script.decision + 1) if i % 6 == 5) > 0
    for rec in records:
        for log in rec.agent_logs:
            for d in log["decisions"]:
                state = rec.replay(d["index"])
                assert state.current_player() == log["seat"]
                assert d["action"] in state.legal_actions()
                assert rec.actions[d["index"]] == d["action"]
    # counters in every game's row, summed over both games
    llm_rows = [g["llm"]["candidate"] for g in res.per_game]
    total = {k: sum(r[k] for r in llm_rows) for k in llm_rows[0]
             if not isinstance(llm_rows[0][k], dict)}
    assert total["decisions"] == len(decisions)
    assert total["forced"] == len(forced)
    assert sum(len(d["attempts"]) for d in decisions) == len(requests)
    assert total["fallbacks"] == len(fallbacks)
    assert total["answers"] == len(classes)
    assert total["illegal"] == classes.count("illegal")
    # each no_answer's reason is counted: the scripted timeout, HTTP 500 and malformed body
    reasons = [a["reason"] for d in decisions for a in d["attempts"] if a["class"] == "no_answer"]
    counted = {}
    for r in llm_rows:
        for reason, count in r["no_answer_reasons"].items():
            counted[reason] = counted.get(reason, 0) + count
    assert counted == {reason: reasons.count(reason) for reason in set(reasons)}
    assert res.invalid == {spec: res.llm[0]["invalid"]}
    assert res.invalid[spec].startswith(f"{total['fallbacks']} of its {total['decisions']} "
                                        "moves")
    assert total["prompt_tokens"] > 0 and total["completion_tokens"] > 0
    # the settings reached the server; the key went only into the Authorization header
    assert {b["seed"] for b in requests} == {3} and {b["model"] for b in requests} == {"scripted"}
    assert all(h.get("authorization") == "Bearer sk-test-secret-0001" for h in headers)
    assert all("sk-test-secret" not in r.to_json() for r in records)
    header = records[0].agent_logs[0]["header"]
    assert header["prompt_version"] == PROMPT_VERSION
    assert header["system_prompt"] == system_prompt(game)
    assert requests[0]["messages"][0]["content"] == system_prompt(game)


def test_the_record_round_trips_and_replay_shows_the_transcript_beside_the_moves(
        tmp_path, capsys):
    script = PatternScript("rapa_nui", 1.5)
    records = []
    # one fallback in six decisions: an invalid result
    with ScriptedServer(script) as server, pytest.warns(InvalidResultWarning):
        evaluate("rapa_nui", f"llm:scripted@{server.base_url}?timeout=1.5", "heuristic",
                 n_games=1, seed=0, num_players=2, record_sink=records.append)
    rec = GameRecord.from_json(records[0].to_json())
    assert rec.agent_logs == records[0].agent_logs
    path = tmp_path / "game.json"
    path.write_text(rec.to_json())
    seat = rec.agent_logs[0]["seat"]
    assert main(["replay", str(path), "--view", str(seat), "--prompts"]) == 0
    own = capsys.readouterr().out
    assert "llm scripted try 1: legal <- 'Move: 1'" in own
    # the reasoning is kept apart from the answer, shown to the seat's own view only
    assert f"llm scripted try 1 reasoning:\n      ~ {REASONING}\n" in own
    assert "(7 reasoning)" in own
    assert any(a["reasoning"] == REASONING and a["answer"] == "Move: 1"
               and a["reasoning_tokens"] == 7 for d in _attempts([rec]) for a in d["attempts"])
    assert "llm scripted try 1: illegal <- 'Move: no purchase' ('no purchase' is a move of" in own
    assert "FALLBACK, a random legal move was played for it" in own
    assert "llm scripted prompt:\n" in own and "  | == Decision ==" in own
    assert main(["replay", str(path), "--view", "public"]) == 0
    public = capsys.readouterr().out
    # another view sees the classes, never the prompts or answers (they hold the seat's cards)
    assert "llm scripted try 1: legal; " in public
    assert "Move: 1" not in public and "== Table ==" not in public
    assert REASONING not in public and "(7 reasoning)" in public
    first = rec.agent_logs[0]["decisions"][0]
    assert transcript_lines(rec.agent_logs, first["index"], 1 - seat) == [
        line for line in transcript_lines(rec.agent_logs, first["index"], None)]


def test_league_cli_rates_the_llm_beside_the_heuristic_and_prints_its_report(tmp_path, capsys):
    script = PatternScript("rapa_nui", 1.5)
    with ScriptedServer(script) as server:
        spec = f"llm:scripted@{server.base_url}?timeout=1.5&name=scripted-7b"
        # one decision in six ends in the fallback, past the limit: accepted by the flag only
        prices = tmp_path / "prices.json"
        prices.write_text(json.dumps({"scripted": {"prompt": 0.5, "completion": 2.0}}))
        code = main(["league", "--game", "rapa_nui", "--players", "2", "--agents", "heuristic",
                     spec, "--games", "2", "--bootstrap", "20", "--out", str(tmp_path),
                     "--no-heatmap", "--allow-fallbacks", "--prices", str(prices)])
    out, err = capsys.readouterr()
    assert code == 0
    assert "| rank | agent | rating (Elo) [95 % CI] |" in out
    assert ("| LLM agent | decisions | forced | answers | fallback rate | illegal-answer rate |"
            in out)
    assert "| `scripted-7b` **(INVALID)** |" in out and spec not in out  # ?name= is its name
    assert "tabletop-gym league: warning: the results of scripted-7b are INVALID: " in err
    data = json.loads((tmp_path / "league.json").read_text())
    (row,) = data["llm"]
    assert row["agent"] == "scripted-7b" and row["decisions"] > 0
    assert data["agents"] == ["heuristic", "scripted-7b"]
    assert data["invalid"] == {"scripted-7b": row["invalid"]}
    assert row["fallback_rate"] == pytest.approx(
        sum(1 for i in range(script.decision + 1) if i % 6 == 5) / row["decisions"])
    assert row["illegal_rate"] > 0 and row["tokens_per_decision"] > 0
    # reasoning: 7 tokens for each decision of kind 0; cost: the price table, keyed by model
    assert row["reasoning_tokens"] == 7 * len(range(0, script.decision + 1, 6))
    assert row["cost_usd"] == pytest.approx(
        (row["prompt_tokens"] * 0.5 + row["completion_tokens"] * 2.0) / 1e6)
    assert row["forced"] > 0
    assert f"| {row['cost_usd']:.4f} | **INVALID** |" in out
    saved = sorted((tmp_path / "records").glob("game_*.json"))
    assert len(saved) == 2
    assert GameRecord.from_json(saved[0].read_text()).agent_logs


def _closed_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def test_a_refused_connection_is_a_counted_no_answer_and_the_game_still_ends():
    spec = f"llm:m@http://127.0.0.1:{_closed_port()}/v1?timeout=2&rethinks=1"
    records = []
    with pytest.warns(InvalidResultWarning, match=r"\(100%\) were played by the fallback"):
        res = evaluate("rapa_nui", spec, "heuristic", n_games=1, seed=0, num_players=2,
                       record_sink=records.append)
    st = res.per_game[0]["llm"]["candidate"]
    assert records[0].replay().is_terminal()
    assert st["no_answer"] == st["answers"] == 2 * st["decisions"]
    assert st["fallbacks"] == st["decisions"] > 0
    reasons = {a["reason"].split(":")[0] for d in _attempts(records) for a in d["attempts"]}
    assert reasons == {"connection failed to http"}


@pytest.mark.parametrize(("reply", "why"), [
    (Reply(raw=b"[]"), "malformed response"),
    (Reply(raw=b'{"id": "x", "choices": []}'), "malformed response"),
    (Reply(raw=b"<html>not json</html>"), "malformed response"),
    (Reply(raw=b'{"choices": [{"message": {"role": "assistant", "content": null}}]}'),
     "malformed response"),
    (Reply(status=404), "HTTP 404"),
    (Reply(status=429), "HTTP 429"),
])
def test_a_malformed_response_is_a_counted_no_answer(reply, why):
    with ScriptedServer(lambda messages, k: reply) as server:
        backend = OpenAIBackend("m", server.base_url, timeout=2)
        # the first move of this deal is the only legal one: asked all the same
        agent = LLMAgent(backend, "rapa_nui", rethinks=1, rng=0, ask_forced=True)
        env = raw_env("rapa_nui", num_players=2)
        env.reset(seed=0)
        action = agent.act_env(env, "player_0")
    assert action in env.legal_actions()
    (entry,) = agent.log
    assert [a["class"] for a in entry["attempts"]] == ["no_answer", "no_answer"]
    assert all(why in a["reason"] for a in entry["attempts"])
    assert entry["fallback"] and agent.stats["fallbacks"] == 1


@pytest.mark.parametrize(("spec", "message"), [
    ("llm:m@ftp://127.0.0.1/v1", "not an http"),
    ("llm:m@127.0.0.1:8000", "not an http"),
    ("llm:m", "must read llm:MODEL@BASE_URL"),
    ("llm:@http://127.0.0.1:1/v1", "must read llm:MODEL@BASE_URL"),
    ("llm:m@http://user:pw@127.0.0.1:1/v1", "must not carry credentials"),
    ("llm:m@http://127.0.0.1:99999/v1", "invalid port"),
    ("llm:m@http://127.0.0.1:1/v1?api_key=sk-1", "never goes in a spec"),
    ("llm:m@http://127.0.0.1:1/v1?temp=1", "not allowed; options are"),
    ("llm:m@http://127.0.0.1:1/v1?timeout=soon", "timeout='soon' is not a float"),
    ("llm:m@http://127.0.0.1:1/v1?fallback=forfeit", "fallback='forfeit' is not offered"),
    ("llm:m@http://127.0.0.1:1/v1?temperature=5", "temperature must be in 0..2"),
])
def test_a_bad_spec_is_a_clear_error(spec, message):
    env = raw_env("rapa_nui", num_players=2)
    with pytest.raises(ValueError, match=message):
        make_agent(spec, env.game, env.observer)


def test_a_bad_spec_fails_the_league_before_any_game(capsys):
    code = main(["league", "--game", "rapa_nui", "--players", "2", "--agents", "heuristic",
                 "random", "llm:m@nowhere", "--games", "2"])
    assert code != 0
    err = capsys.readouterr().err
    assert "is not an http(s) URL" in err and "Traceback" not in err


def test_spec_options_are_read():
    got = parse_spec("llm:qwen2.5:7b@http://127.0.0.1:11434/v1?temperature=0.7&max_tokens=32"
                     "&seed=none&timeout=9&rethinks=0&name=q")
    assert got == {"model": "qwen2.5:7b", "base_url": "http://127.0.0.1:11434/v1",
                   "temperature": 0.7, "max_tokens": 32, "seed": None, "timeout": 9.0,
                   "rethinks": 0, "name": "q"}


def _view():
    env = raw_env("rapa_nui", num_players=2)
    env.reset(seed=0)
    env.step(env.legal_actions()[0])  # docs/rules/rapa_nui.md §3: the play phase follows
    return env, SeatTracker().view(env, "player_0")


def test_a_callable_backend_and_the_seeded_fallback():
    env, view = _view()
    answers = iter(["what?", "Move: 99", "still no"])
    agent = LLMAgent(CallableBackend(lambda m: next(answers), "fake"), "rapa_nui",
                     rethinks=2, rng=7)
    entry = agent.decide(view)
    assert [a["class"] for a in entry["attempts"]] == ["unparsable"] * 3
    assert "99 is not a move number" in entry["attempts"][1]["reason"]
    assert entry["fallback"]
    # the fallback draws from the agent's generator: the same seed gives the same move
    again = LLMAgent(CallableBackend(lambda m: "no", "fake"), "rapa_nui", rethinks=0, rng=7)
    assert again.decide(view)["action"] == entry["action"]
    assert entry["action"] == view.legal_actions[int(np.random.default_rng(7).integers(
        len(view.legal_moves)))]
    assert agent.stats["rethinks"] == 2 and agent.stats["fallbacks"] == 1


def test_a_failing_or_wrong_typed_callable_is_a_no_answer():
    _env, view = _view()

    def boom(messages):
        raise RuntimeError("model crashed")

    agent = LLMAgent(CallableBackend(boom), "rapa_nui", rethinks=0, rng=0)
    entry = agent.decide(view)
    assert entry["attempts"][0]["class"] == "no_answer"
    assert entry["attempts"][0]["reason"] == "RuntimeError: model crashed"
    agent = LLMAgent(CallableBackend(lambda m: 3), "rapa_nui", rethinks=0, rng=0)
    assert "not a string" in agent.decide(view)["attempts"][0]["reason"]


def test_the_agent_refuses_the_observation_vector_and_a_seat_not_to_act():
    env, _ = _view()
    agent = LLMAgent(CallableBackend(lambda m: "1"), "rapa_nui")
    with pytest.raises(TypeError, match="text view"):
        agent.act(env.observe("player_0"))
    idle = SeatTracker().view(env, "player_1")
    with pytest.raises(ValueError, match="not to act"):
        agent.decide(idle)
    with pytest.raises(ValueError, match="rethinks"):
        LLMAgent(CallableBackend(lambda m: "1"), "rapa_nui", rethinks=-1)


def test_record_with_logs_lists_only_llm_seats():
    env = raw_env("rapa_nui", num_players=2)
    env.reset(seed=0)
    llm = LLMAgent(CallableBackend(lambda m: "1", "one"), "rapa_nui", rng=0)
    bot = make_agent("random", env.game, env.observer, np.random.default_rng(0))
    agents = {"player_0": llm, "player_1": bot}
    while not env.game_state.is_terminal():
        name = env.agent_selection
        a = llm.act_env(env, name) if name == "player_0" else bot.act(env.observe(name))
        env.step(a)
    rec = record_with_logs(env, agents)
    (log,) = rec.agent_logs
    assert log["agent"] == "player_0" and log["seat"] == 0
    assert [d["index"] for d in log["decisions"]] == [
        i for i in range(len(rec.actions)) if rec.replay(i).current_player() == 0]


def test_play_against_an_llm_opponent_saves_its_transcript(tmp_path, monkeypatch, capsys):
    import io
    import sys

    record = tmp_path / "game.json"
    monkeypatch.setattr(sys, "stdin", io.StringIO("0\n" * 600))
    with ScriptedServer(lambda messages, k: Reply("Move: 1")) as server:
        code = main(["play", "--game", "rapa_nui", "--players", "2", "--seed", "3",
                     "--opponents", f"llm:scripted@{server.base_url}?timeout=5",
                     "--save-record", str(record)])
        served = len(server.requests)
    out = capsys.readouterr().out
    assert code == 0 and "player_1: " in out and "scores:" in out
    rec = GameRecord.from_json(record.read_text())
    (log,) = rec.agent_logs
    asked = [d for d in log["decisions"] if not d["forced"]]
    assert log["agent"] == "player_1" and len(asked) == served > 0
    assert {a["class"] for d in asked for a in d["attempts"]} == {"legal"}


def test_suite_run_accepts_an_llm_spec():
    from tabletop_gym.tasks.catalog import TASKS
    from tabletop_gym.tasks.runner import check_agent

    with ScriptedServer(lambda messages, k: Reply("Move: 1")) as server:
        # forced=ask: the first move of the task's deal is the only legal one, asked anyway
        check_agent(TASKS["RapaNui-2p-vsHeuristic-v0"],
                    f"llm:s@{server.base_url}?timeout=5&forced=ask")
        assert len(server.requests) == 1


def test_eval_cli_prints_the_llm_report(capsys):
    with ScriptedServer(lambda messages, k: Reply("Move: 1")) as server:
        spec = f"llm:scripted@{server.base_url}?timeout=5"
        code = main(["eval", "--game", "positano", "--players", "2", "--candidate", spec,
                     "--opponent", "heuristic", "--games", "1"])
        served = len(server.requests)
    out = capsys.readouterr().out
    assert code == 0
    (row,) = [line for line in out.splitlines() if line.startswith(f"| `{spec}` |")]
    # every answer legal at the first try: one answer per decision, no fallback, no failure
    cells = [c.strip() for c in row.split("|")[2:-1]]
    assert cells[0] == cells[2] == str(served)  # decisions, answers
    assert int(cells[1]) > 0  # forced moves, played without a request
    assert cells[3:7] == ["0.000"] * 4
