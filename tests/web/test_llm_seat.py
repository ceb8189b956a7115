"""A language-model seat in the web app (``serve``): an ``llm:`` spec plays over loopback HTTP
and the game's record carries its transcript.
"""

from __future__ import annotations

import json
import random

import pytest

pytest.importorskip("starlette", reason="the web app needs the web extra (starlette)")

from starlette.testclient import TestClient

from tabletop_gym.core.records import GameRecord
from tabletop_gym.web.app import create_app
from tests.llm_server import Reply, ScriptedServer
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
    assert log["seat"] == 1 and len(log["decisions"]) == served > 0
    assert [float(s) for s in rec.replay().scores()] == end["scores"]
    llm_moves = [e for e in own if e["llm"]]
    assert len(llm_moves) == served
    assert all(e["seat"] == 1 for e in llm_moves)
    assert all(e["llm"][0].startswith("llm scripted try 1: legal <- 'Move: 1'; ")
               for e in llm_moves)
    # another view reads only the class, latency and tokens (the answer may name private cards)
    for log in (public, other):
        lines = [line for e in log for line in e["llm"]]
        assert len(lines) == served
        assert all(line.startswith("llm scripted try 1: legal; ") for line in lines)


def test_a_bad_llm_spec_is_a_400(tmp_path):
    app = create_app(runs_dir=tmp_path / "runs", save_dir=tmp_path / "runs" / "web")
    with TestClient(app) as c:
        r = c.post("/api/games", json={"game": "rapa_nui", "config": {"num_players": 2},
                                       "seats": ["human", "llm:m@nowhere"], "seed": 1})
    assert r.status_code == 400 and "is not an http(s) URL" in r.text
