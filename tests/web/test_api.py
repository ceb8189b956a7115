"""The web app's API without a browser (Starlette's TestClient): seat tokens, hidden information,
bad input, concurrent games, reloads, records and replays.
"""

from __future__ import annotations

import json
import random
import threading

import pytest

pytest.importorskip("starlette", reason="the web app needs the web extra (starlette)")
pytest.importorskip("httpx", reason="Starlette's TestClient needs httpx (the web-test extra)")

from starlette.testclient import TestClient

from tabletop_gym.core.records import GameRecord
from tabletop_gym.envs.positano.picture import scene_positano
from tabletop_gym.envs.rapa_nui.picture import scene_rapa_nui
from tabletop_gym.web.app import create_app


@pytest.fixture
def client(tmp_path):
    app = create_app(runs_dir=tmp_path / "runs", save_dir=tmp_path / "runs" / "web")
    with TestClient(app) as c:
        c.hub = app.state.hub
        yield c


def _new(client, game="rapa_nui", seats=("human", "human"), seed=5, **config):
    config.setdefault("num_players", len(seats))
    r = client.post("/api/games", json={"game": game, "config": config, "seats": list(seats),
                                        "seed": seed})
    assert r.status_code == 200, r.text
    return r.json()


def _view(client, gid, token=None):
    r = client.get(f"/api/games/{gid}", headers={"X-Seat-Token": token} if token else {})
    assert r.status_code == 200, r.text
    return r.json()


def _error(response, status, *needles):
    assert response.status_code == status, response.text
    message = response.json()["error"]
    for needle in needles:
        assert needle in message, message
    return message


# --- tokens and hidden information ---------------------------------------------------------------


def test_each_human_seat_gets_its_own_unguessable_token(client):
    made = _new(client, seats=("human", "human"))
    tokens = made["tokens"]
    assert sorted(tokens) == ["0", "1"]
    assert tokens["0"] != tokens["1"]
    # secrets.token_urlsafe(24): 24 random bytes, 32 URL-safe characters
    assert all(len(t) == 32 for t in tokens.values())
    other = _new(client, seats=("human", "heuristic"))
    assert list(other["tokens"]) == ["0"]  # agents have no token
    assert other["tokens"]["0"] not in tokens.values()


def test_views_show_each_seat_only_its_own_hand(client):
    made = _new(client, seats=("human", "human"), seed=9)
    gid, t0, t1 = made["id"], made["tokens"]["0"], made["tokens"]["1"]
    state = client.hub.game(gid).state
    public, seat0, seat1 = _view(client, gid), _view(client, gid, t0), _view(client, gid, t1)
    assert (public["you"], seat0["you"], seat1["you"]) == (None, 0, 1)
    # the board each one gets is exactly the scene drawn for that viewer
    assert public["svg"] == scene_rapa_nui(state, None).svg()
    assert seat0["svg"] == scene_rapa_nui(state, 0).svg()
    assert seat1["svg"] == scene_rapa_nui(state, 1).svg()
    # docs/rules/rapa_nui.md §2.1: 3 H&G cards start in each hidden hand; they are listed in
    # that seat's own view only
    hand0 = "hand 3 card(s): H&amp;G"
    assert hand0 in seat0["svg"] and hand0 not in public["svg"]
    # only the seat to act (the engine's start player, seat 0) is offered moves
    assert public["to_act"] == 0
    assert [m["action"] for m in seat0["legal"]] == state.legal_actions(0)
    assert public["legal"] == [] and seat1["legal"] == []
    # a token of another game or a made-up one gets the public view, never an error or a hand
    foreign = _new(client, seats=("human", "human"))["tokens"]["0"]
    for token in (foreign, "x" * 32, t0[:-1]):
        assert _view(client, gid, token) == public


@pytest.mark.parametrize("game,seats", [("rapa_nui", ("human", "human", "human")),
                                        ("positano", ("human", "human", "human"))])
def test_a_seats_view_does_not_change_when_what_it_cannot_see_is_redrawn(client, game, seats):
    made = _new(client, game=game, seats=seats, seed=3)
    gid, tokens = made["id"], made["tokens"]
    live = client.hub.game(gid)
    rng = random.Random(0)
    for _ in range(12):  # a few moves in, with sealed bids (Positano) and hands in play
        actor = live.to_act()
        r = client.post(f"/api/games/{gid}/move", json={"action": rng.choice(
            live.env.legal_actions())}, headers={"X-Seat-Token": tokens[str(actor)]})
        assert r.status_code == 200, r.text
    for seat in range(len(seats)):
        before = _view(client, gid, tokens[str(seat)])
        public = _view(client, gid)
        state = live.env.state_obj
        # everything this seat cannot see is dealt again; its view must stay the same
        live.env.state_obj = state.resample_hidden(seat, random.Random(seat + 1))
        assert _view(client, gid, tokens[str(seat)]) == before
        if seat == 0:
            assert _view(client, gid) == public
        live.env.state_obj = state


def test_positano_bid_is_two_clicks_and_hidden_from_the_other_seat(client):
    made = _new(client, game="positano", seats=("human", "human"), seed=2)
    gid, t0, t1 = made["id"], made["tokens"]["0"], made["tokens"]["1"]
    first = _view(client, gid, t0)
    # docs/rules/positano.md §3.1: a bid is a bid card and a booster; the card is asked first
    labels = [m["label"] for m in first["legal"]]
    assert len(labels) == 7 and all(label.startswith("bid card #") for label in labels)
    card = first["legal"][0]
    r = client.post(f"/api/games/{gid}/move", json={"action": card["action"]},
                    headers={"X-Seat-Token": t0})
    second = r.json()
    assert second["to_act"] == 0 and all(m["label"].startswith("booster +")
                                         for m in second["legal"])
    assert second["log"][0]["text"] == card["label"]
    # the other seat and the public learn only that a card was committed
    assert _view(client, gid, t1)["log"][0]["text"] == "commits a sealed bid card"
    assert _view(client, gid)["log"][0]["text"] == "commits a sealed bid card"


# --- bad input changes nothing -------------------------------------------------------------------


@pytest.mark.parametrize("body,status,needle", [
    ({"game": "chess", "config": {}, "seats": ["human", "human"]}, 400, "unknown game 'chess'"),
    ({"game": "rapa_nui", "config": {"num_players": 9}, "seats": ["human"] * 9}, 400,
     "out of range"),
    ({"game": "rapa_nui", "config": {"num_player": 2}, "seats": ["human"] * 2}, 400,
     "did you mean 'num_players'"),
    ({"game": "rapa_nui", "config": {"num_players": 3}, "seats": ["human"] * 2}, 400,
     "seats must list 3 entries"),
    ({"game": "rapa_nui", "config": {}, "seats": ["human", "grandmaster"]}, 400,
     "unknown opponent 'grandmaster'"),
    ({"game": "rapa_nui", "config": {}, "seats": ["human", "nowhere/model.zip"]}, 400,
     "checkpoint 'nowhere/model.zip' not found"),
    ({"game": "rapa_nui", "config": {}, "seats": ["human", "human"], "seed": -1}, 400,
     "seed must be an integer"),
    ({"game": "rapa_nui", "config": {}, "seats": ["human", "human"], "colour": 1}, 400,
     "unknown field(s) ['colour']"),
    ({"game": "rapa_nui", "config": [2], "seats": ["human", "human"]}, 400,
     "config must be an object"),
    (["rapa_nui"], 400, "must be a JSON object"),
])
def test_bad_new_game_requests_are_refused_with_what_is_allowed(client, body, status, needle):
    _error(client.post("/api/games", json=body), status, needle)
    assert client.get("/api/games").json() == []


def test_malformed_json_is_a_400(client):
    r = client.post("/api/games", content=b"{game: positano", headers={
        "Content-Type": "application/json"})
    _error(r, 400, "not valid JSON")
    gid = _new(client)["id"]
    token = client.hub.game(gid).tokens[0]
    r = client.post(f"/api/games/{gid}/move", content=b"[1,", headers={"X-Seat-Token": token})
    _error(r, 400, "not valid JSON")


def test_bad_moves_get_4xx_and_change_nothing(client):
    made = _new(client, seats=("human", "human"), seed=4)
    gid, t0, t1 = made["id"], made["tokens"]["0"], made["tokens"]["1"]
    live = client.hub.game(gid)
    before = _view(client, gid, t0)
    state_before = live.state.to_json()
    legal = live.env.legal_actions()
    illegal = next(a for a in range(45) if a not in legal)

    def move(body, token=t0):
        headers = {"X-Seat-Token": token} if token else {}
        return client.post(f"/api/games/{gid}/move", json=body, headers=headers)

    _error(move({"action": legal[0]}, token=None), 403, "needs the token of a human seat")
    _error(move({"action": legal[0]}, token="not-a-token"), 403)
    _error(move({"action": legal[0]}, token=t1), 409, "not your turn: seat 0 is to act")
    _error(move({"action": illegal}), 422, f"action {illegal} is not legal now")
    _error(move({"action": 10_000}), 422, "is not legal now")
    _error(move({"action": "3"}), 400, "'action' must be an integer")
    _error(move({"action": 1.0}), 400, "'action' must be an integer")
    _error(move({"action": True}), 400, "'action' must be an integer")
    _error(move({"move": legal[0]}), 400, '{"action": <action id>}')
    _error(move({"action": legal[0], "seat": 0}), 400, '{"action": <action id>}')
    _error(client.post("/api/games/nope/move", json={"action": legal[0]},
                       headers={"X-Seat-Token": t0}), 404, "no game 'nope'")
    # a human is to act: no agent may be advanced
    _error(client.post(f"/api/games/{gid}/advance"), 409, "seat 0 is a human seat")
    _error(client.get(f"/api/games/{gid}/record"), 409, "once the game is over")
    assert live.state.to_json() == state_before
    assert _view(client, gid, t0) == before
    # and a legal move still works afterwards
    assert move({"action": legal[0]}).status_code == 200
    assert _view(client, gid, t0)["actions"] == 1


def _finish(client, gid, tokens, rng):
    """Play the game out: humans pick at random, agents are advanced."""
    live = client.hub.game(gid)
    while (actor := live.to_act()) is not None:
        if str(actor) in tokens:
            r = client.post(f"/api/games/{gid}/move",
                            json={"action": rng.choice(live.env.legal_actions())},
                            headers={"X-Seat-Token": tokens[str(actor)]})
        else:
            r = client.post(f"/api/games/{gid}/advance")
        assert r.status_code == 200, r.text
    return _view(client, gid)


def test_finished_game_refuses_moves_and_gives_a_record_that_replays_to_its_scores(client, tmp_path):
    made = _new(client, seats=("human", "heuristic"), seed=8)
    gid, t0 = made["id"], made["tokens"]["0"]
    end = _finish(client, gid, made["tokens"], random.Random(1))
    assert end["over"] and end["to_act"] is None and len(end["scores"]) == 2
    _error(client.post(f"/api/games/{gid}/move", json={"action": 0},
                       headers={"X-Seat-Token": t0}), 409, "the game is over")
    _error(client.post(f"/api/games/{gid}/advance"), 409, "the game is over")
    r = client.get(f"/api/games/{gid}/record")
    assert r.status_code == 200
    rec = GameRecord.from_json(json.dumps(r.json()))
    assert len(rec.actions) == end["actions"] == len(end["log"])
    assert rec.provenance["seats"] == ["human", "heuristic"]
    assert rec.provenance["source"] == "web"
    assert [float(s) for s in rec.replay().scores()] == end["scores"]
    # the server also wrote it into its save folder
    saved = tmp_path / "runs" / "web" / f"rapa_nui-{gid}.json"
    assert GameRecord.from_json(saved.read_text()).actions == rec.actions


# --- several games, reloads ----------------------------------------------------------------------


def test_games_run_side_by_side_and_tokens_do_not_cross(client):
    a = _new(client, game="rapa_nui", seats=("human", "human"), seed=1)
    b = _new(client, game="positano", seats=("human", "random"), seed=1)
    # game A's token is a stranger in game B: public view there, and no move
    assert _view(client, b["id"], a["tokens"]["0"])["you"] is None
    _error(client.post(f"/api/games/{b['id']}/move", json={"action": 42},
                       headers={"X-Seat-Token": a["tokens"]["0"]}), 403)
    rng = random.Random(2)
    end_a = _finish(client, a["id"], a["tokens"], rng)
    end_b = _finish(client, b["id"], b["tokens"], rng)
    listed = {g["id"]: g for g in client.get("/api/games").json()}
    assert listed[a["id"]]["over"] and listed[b["id"]]["over"]
    for gid, end in ((a["id"], end_a), (b["id"], end_b)):
        rec = GameRecord.from_json(json.dumps(client.get(f"/api/games/{gid}/record").json()))
        assert [float(s) for s in rec.replay().scores()] == end["scores"]


def test_a_checkpoint_path_plays_a_seat_and_a_wrong_one_is_refused(client, tmp_path):
    gymnasium = pytest.importorskip("gymnasium")
    sb3_contrib = pytest.importorskip("sb3_contrib", reason="checkpoints need the train extra")
    model = sb3_contrib.MaskablePPO("MlpPolicy", gymnasium.make("RapaNui-v0"), n_steps=64,
                                    batch_size=64, seed=0, device="cpu")
    path = tmp_path / "rapa.zip"
    model.save(path)
    made = _new(client, seats=("human", str(path)), seed=2)
    end = _finish(client, made["id"], made["tokens"], random.Random(5))
    assert end["over"] and end["seats"] == ["human", str(path)]
    # a Rapa Nui model cannot read Positano's observations: refused before any game starts
    r = client.post("/api/games", json={"game": "positano", "config": {"num_players": 2},
                                        "seats": ["human", str(path)], "seed": 1})
    _error(r, 400, "reads observations of shape", "another game or configuration")
    junk = tmp_path / "junk.zip"
    junk.write_text("not a model")
    r = client.post("/api/games", json={"game": "rapa_nui", "config": {"num_players": 2},
                                        "seats": ["human", str(junk)], "seed": 1})
    _error(r, 400, f"checkpoint {str(junk)!r} cannot be loaded")
    assert [g["id"] for g in client.get("/api/games").json()] == [made["id"]]


@pytest.mark.parametrize("game,seats,config", [
    ("positano", ("human",), {"num_players": 1}),  # solo against Otto Amalfi: one seat
    ("rapa_nui", ("human", "random", "human", "heuristic"), {"moai_choice": "all_same"}),
])
def test_other_configurations_play_to_the_end(client, game, seats, config):
    made = _new(client, game=game, seats=seats, seed=12, **config)
    assert sorted(made["tokens"]) == [str(q) for q, s in enumerate(seats) if s == "human"]
    end = _finish(client, made["id"], made["tokens"], random.Random(4))
    rec = GameRecord.from_json(json.dumps(client.get(f"/api/games/{made['id']}/record").json()))
    assert rec.config == {**rec.config, **config}
    assert [float(s) for s in rec.replay().scores()] == end["scores"]
    assert len(end["scores"]) == len(seats)


def test_agent_games_advance_in_parallel_threads(client):
    ids = [_new(client, game=g, seats=("random", "heuristic"), seed=s)["id"]
           for g, s in (("rapa_nui", 1), ("rapa_nui", 2), ("positano", 1), ("positano", 2))]
    errors: list[str] = []

    def play(gid):
        # two threads drive each game at once: each advance moves exactly one agent
        live = client.hub.game(gid)
        while live.to_act() is not None:
            r = client.post(f"/api/games/{gid}/advance")
            if r.status_code not in (200, 409):
                errors.append(r.text)

    threads = [threading.Thread(target=play, args=(gid,)) for gid in ids for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    for gid in ids:
        end = _view(client, gid)
        rec = GameRecord.from_json(json.dumps(client.get(f"/api/games/{gid}/record").json()))
        assert len(rec.actions) == end["actions"]
        assert [float(s) for s in rec.replay().scores()] == end["scores"]


def test_a_reload_finds_the_game_as_it_was(client):
    made = _new(client, game="positano", seats=("human", "heuristic"), seed=6)
    gid, t0 = made["id"], made["tokens"]["0"]
    rng = random.Random(3)
    for _ in range(5):
        live = client.hub.game(gid)
        if live.to_act() == 0:
            client.post(f"/api/games/{gid}/move", json={"action": rng.choice(
                live.env.legal_actions())}, headers={"X-Seat-Token": t0})
        else:
            client.post(f"/api/games/{gid}/advance")
    before = _view(client, gid, t0)
    assert before["actions"] >= 5
    # a new browser session (no cookies, nothing kept in the page) with the seat's link
    with TestClient(client.app) as fresh:
        again = fresh.get(f"/api/games/{gid}", headers={"X-Seat-Token": t0}).json()
    assert again == before
    assert client.get(f"/game/{gid}").status_code == 200


# --- catalog, pages, replays ---------------------------------------------------------------------


def test_catalog_lists_both_games_with_their_switches(client):
    cat = client.get("/api/catalog").json()
    assert sorted(cat["games"]) == ["positano", "rapa_nui"]
    rapa = {f["name"]: f for f in cat["games"]["rapa_nui"]["config"]}
    # rules: Rapa Nui is for 2-4 players
    assert rapa["num_players"] == {"name": "num_players", "type": "int", "default": 2,
                                   "range": [2, 4]}
    assert rapa["moai_choice"]["choices"] == ["per_unit", "all_same"]
    assert {"human", "random", "heuristic", "ppo"} <= set(cat["agents"])
    for path in ("/", "/static/app.js", "/static/style.css", "/replay/x"):
        assert client.get(path).status_code == 200


def test_replay_steps_through_an_uploaded_record(client):
    made = _new(client, game="positano", seats=("heuristic", "random"), seed=2)
    end = _finish(client, made["id"], {}, random.Random(0))
    record = client.get(f"/api/games/{made['id']}/record").json()
    rep = client.post("/api/replays", json={"record": record}).json()
    assert rep["steps"] == end["actions"]
    rec = GameRecord.from_json(json.dumps(record))
    for step in (0, 1, 7, rep["steps"]):
        v = client.get(f"/api/replays/{rep['id']}", params={"step": step}).json()
        assert v["step"] == step and len(v["log"]) == step
        assert v["svg"] == scene_positano(rec.replay(step), None).svg()
    seat1 = client.get(f"/api/replays/{rep['id']}", params={"step": 1, "view": "1"}).json()
    assert seat1["svg"] == scene_positano(rec.replay(1), 1).svg()
    last = client.get(f"/api/replays/{rep['id']}", params={"step": rep["steps"]}).json()
    assert last["scores"] == end["scores"]
    _error(client.get(f"/api/replays/{rep['id']}", params={"step": rep["steps"] + 1}), 400,
           f"step must be an integer in 0..{rep['steps']}")
    _error(client.get(f"/api/replays/{rep['id']}", params={"view": "2"}), 400,
           "view must be 'public' or a seat 0..1")
    _error(client.get("/api/replays/none"), 404)
    # a text upload works too; a broken record says what is wrong
    assert client.post("/api/replays", json={"record": json.dumps(record)}).status_code == 200
    bad = dict(record, actions=[*record["actions"], 999])
    _error(client.post("/api/replays", json={"record": bad}), 400, "cannot be replayed")
    _error(client.post("/api/replays", json={"record": {"game": "go"}}), 400,
           "not a game record")


def test_replay_lists_and_opens_records_under_runs_only(client, tmp_path):
    made = _new(client, seats=("heuristic", "heuristic"), seed=3)
    _finish(client, made["id"], {}, random.Random(0))
    listed = client.get("/api/records").json()
    assert listed == [f"web/rapa_nui-{made['id']}.json"]
    assert client.post("/api/replays", json={"path": listed[0]}).status_code == 200
    secret = tmp_path / "secret.json"
    secret.write_text('{"game": "rapa_nui", "seed": 1, "actions": []}')
    for path in ("../secret.json", str(secret), "web/missing.json"):
        _error(client.post("/api/replays", json={"path": path}), 404, "no record")
    _error(client.post("/api/replays", json={"path": 3}), 400, "listed records")
