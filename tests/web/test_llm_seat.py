"""A language-model seat in the web app (``serve``): an ``llm:`` spec plays over loopback HTTP
and the game's record carries its transcript.
"""

from __future__ import annotations

import json
import random

import pytest

pytest.importorskip("starlette", reason="the web app needs the web extra (starlette)")

from starlette.testclient import TestClient

from tabletop_gym.arena.scripted_server import Reply, ScriptedServer
from tabletop_gym.core.records import GameRecord
from tabletop_gym.web.app import create_app
from tests.web.test_api import _finish, _new


def test_an_llm_seat_plays_a_web_game_and_its_transcript_is_in_the_record(tmp_path):
    app = create_app(runs_dir=tmp_path / "runs", save_dir=tmp_path / "runs" / "web")
    with ScriptedServer(lambda messages, k: Reply("Move: 1")) as server, TestClient(app) as c:
        c.hub = app.state.hub
        spec = f"llm:scripted@{server.base_url}?timeout=5"
        made = _new(c, seats=("human", spec), seed=3)
        end = _finish(c, made["id"], made["tokens"], random.Random(0))
        assert end["over"]
        record = c.get(f"/api/games/{made['id']}/record").json()
        rec = GameRecord.from_json(json.dumps(record))
        served = len(server.requests)
        # the web replay shows the tries beside the moves: the answers to the seat's own view
        rep = c.post("/api/replays", json={"record": record}).json()
        step = {"step": rep["steps"]}
        own = c.get(f"/api/replays/{rep['id']}", params={**step, "view": "1"}).json()["log"]
        public = c.get(f"/api/replays/{rep['id']}", params=step).json()["log"]
        other = c.get(f"/api/replays/{rep['id']}", params={**step, "view": "0"}).json()["log"]
    (log,) = rec.agent_logs
    # A decision with one legal move is played without asking the model (docs/llm.md, "Forced
    # moves"): it is logged as forced, and every other decision is one request.
    asked = [d for d in log["decisions"] if not d["forced"]]
    forced = [d for d in log["decisions"] if d["forced"]]
    assert log["seat"] == 1 and len(asked) == served > 0
    assert forced and all(len(rec.replay(d["index"]).legal_actions()) == 1 for d in forced)
    assert [float(s) for s in rec.replay().scores()] == end["scores"]
    forced_line = "llm scripted: forced move (the only legal one), played without asking"
    llm_moves = [e for e in own if e["llm"]]
    assert len(llm_moves) == len(asked) + len(forced)
    assert all(e["seat"] == 1 for e in llm_moves)
    assert sum(e["llm"] == [forced_line] for e in llm_moves) == len(forced)
    assert all(e["llm"][0].startswith("llm scripted try 1: legal <- 'Move: 1'; ")
               for e in llm_moves if e["llm"] != [forced_line])
    # another view reads only the class, latency and tokens (the answer may name private cards)
    for log in (public, other):
        lines = [line for e in log for line in e["llm"] if line != forced_line]
        assert len(lines) == served
        assert all(line.startswith("llm scripted try 1: legal; ") for line in lines)


def test_a_bad_llm_spec_is_a_400(tmp_path):
    app = create_app(runs_dir=tmp_path / "runs", save_dir=tmp_path / "runs" / "web")
    with TestClient(app) as c:
        r = c.post("/api/games", json={"game": "rapa_nui", "config": {"num_players": 2},
                                       "seats": ["human", "llm:m@nowhere"], "seed": 1})
    assert r.status_code == 400 and "is not an http(s) URL" in r.text
