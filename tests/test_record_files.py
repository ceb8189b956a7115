"""Game records from outside: every field checked before anything replays (issue 39 item 3).

``provenance`` and ``agent_logs`` (at every level) are checked like the other fields; a
transform the game does not use is refused; ``replay`` validates the whole record, its actions
included, before it prints or writes anything; no guard a user can reach is an ``assert``.
"""

from __future__ import annotations

import copy
import io
import json
import random
import sys

import numpy as np
import pytest

from tabletop_gym import cli
from tabletop_gym.core.records import GameRecord, make_game
from tabletop_gym.core.turn_based import TurnBasedGame
from tabletop_gym.envs import rapa_nui_v0
from tabletop_gym.envs.positano.rules import PositanoGame
from tabletop_gym.envs.rapa_nui import picture, render


def _record() -> dict:
    """A Rapa Nui 2p record of 4 random legal actions, with one well-formed LLM log."""
    env = rapa_nui_v0.env(num_players=2)
    env.reset(seed=2)
    rng = np.random.default_rng(2)
    for _ in range(4):
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    doc = json.loads(env.unwrapped.record().to_json())
    doc["provenance"] = {"package_version": "0.1.0"}
    doc["agent_logs"] = [{
        "header": {"model": "m", "base_url": "http://x/v1"}, "agent": "player_1", "seat": 1,
        "decisions": [{"index": 1, "seat": 1, "prompt": "p", "action": doc["actions"][1],
                       "move": "m", "fallback": False, "agent": "player_1",
                       "attempts": [{"sent": "(the view)", "answer": "1", "class": "legal",
                                     "match": "number", "reason": None, "latency_s": 0.25,
                                     "prompt_tokens": 10, "completion_tokens": None}]}]}]
    return doc


BAD = [
    # (what to change, the message)
    (lambda d: d.update(provenance="x"), "record 'provenance' must be an object"),
    (lambda d: d.update(provenance=[1]), "record 'provenance' must be an object"),
    (lambda d: d.update(env_id=5), "record 'env_id' must be a string"),
    (lambda d: d.update(transform="turn_based"),
     "record 'transform' 'turn_based' is not used by rapa_nui"),
    (lambda d: d.update(transform="turn_based_split"),
     "record 'transform' 'turn_based_split' is not used by rapa_nui"),
    (lambda d: d.update(agent_logs={"decisions": []}), "record 'agent_logs' must be a list"),
    (lambda d: d["agent_logs"].append(1), "record 'agent_logs'[1] must be an object, got 1"),
    (lambda d: d["agent_logs"][0].pop("decisions"), "record 'agent_logs'[0] lacks 'decisions'"),
    (lambda d: d["agent_logs"][0].update(header="x"),
     "record 'agent_logs'[0]['header'] must be an object, got 'x'"),
    (lambda d: d["agent_logs"][0].update(seat=2),
     "record 'agent_logs'[0]['seat'] must be a seat 0..1 or null, got 2"),
    (lambda d: d["agent_logs"][0].update(seat=True),
     "record 'agent_logs'[0]['seat'] must be an integer or null, got True"),
    (lambda d: d["agent_logs"][0].update(decisions=[1]),
     "record 'agent_logs'[0]['decisions'][0] must be an object, got 1"),
    (lambda d: d["agent_logs"][0]["decisions"][0].pop("index"),
     "record 'agent_logs'[0]['decisions'][0] lacks 'index'"),
    (lambda d: d["agent_logs"][0]["decisions"][0].update(index=4),
     "['index'] must be the index of one of the record's 4 actions, got 4"),
    (lambda d: d["agent_logs"][0]["decisions"][0].update(index="0"),
     "['decisions'][0]['index'] must be an integer, got '0'"),
    (lambda d: d["agent_logs"][0]["decisions"][0].update(attempts=5),
     "record 'agent_logs'[0]['decisions'][0]['attempts'] must be a list, got 5"),
    (lambda d: d["agent_logs"][0]["decisions"][0].update(attempts=[1]),
     "record 'agent_logs'[0]['decisions'][0]['attempts'][0] must be an object, got 1"),
    (lambda d: d["agent_logs"][0]["decisions"][0]["attempts"][0].update(latency_s="fast"),
     "['attempts'][0]['latency_s'] must be a number or null, got 'fast'"),
    (lambda d: d["agent_logs"][0]["decisions"][0].update(fallback="no"),
     "['decisions'][0]['fallback'] must be true or false, got 'no'"),
    # what replay reads of forced moves, reasoning and belief probes (docs/llm.md)
    (lambda d: d["agent_logs"][0]["decisions"][0].update(forced=1),
     "['decisions'][0]['forced'] must be true or false, got 1"),
    (lambda d: d["agent_logs"][0]["decisions"][0]["attempts"][0].update(reasoning=3),
     "['attempts'][0]['reasoning'] must be a string or null, got 3"),
    (lambda d: d["agent_logs"][0]["decisions"][0].update(probes={}),
     "['decisions'][0]['probes'] must be a list, got {}"),
    (lambda d: d["agent_logs"][0]["decisions"][0].update(probes=[{"log_loss": "low"}]),
     "['probes'][0]['log_loss'] must be a number, got 'low'"),
]


def test_the_base_record_is_valid_and_its_log_is_shown():
    rec = GameRecord.from_json(json.dumps(_record()))
    assert len(rec.actions) == 4 and rec.agent_logs[0]["seat"] == 1


@pytest.mark.parametrize(("change", "message"), BAD, ids=[m for _, m in BAD])
def test_a_malformed_record_is_refused_naming_the_field(change, message):
    doc = _record()
    change(doc)
    text = json.dumps(doc)
    with pytest.raises(ValueError) as exc:
        GameRecord.from_json(text)
    assert message in str(exc.value)


@pytest.mark.parametrize(("change", "message"), BAD, ids=[m for _, m in BAD])
def test_replay_of_a_malformed_record_is_one_line(change, message, tmp_path, monkeypatch,
                                                  capsys):
    doc = _record()
    change(doc)
    path = tmp_path / "r.json"
    path.write_text(json.dumps(doc))
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert cli.main(["replay", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("tabletop-gym replay: error: ") and err.count("\n") == 1
    assert message in err and "Traceback" not in err


def test_replay_checks_every_action_before_printing_or_writing(tmp_path, monkeypatch, capsys):
    doc = _record()
    doc["actions"][3] = 44  # not legal there: refused before the first line or frame
    path = tmp_path / "r.json"
    path.write_text(json.dumps(doc))
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    frames = tmp_path / "frames"
    assert cli.main(["replay", str(path), "--frames", str(frames)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "record action 3 (44) cannot be replayed" in err
    assert not frames.exists()


def test_the_record_is_left_as_it_was():
    doc = _record()
    doc["agent_logs"][0]["decisions"][0]["attempts"] = 5
    doc.pop("record")
    rec = GameRecord(**doc)
    before = copy.deepcopy(rec)
    with pytest.raises(ValueError):
        rec.validate()
    assert rec == before


def test_positano_keeps_its_transforms():
    # Positano has simultaneous bids, so both turn-based transforms (and its engine alone) are
    # records of it; Rapa Nui is sequential and takes none.
    for transform in (None, "turn_based", "turn_based_split"):
        assert make_game("positano", {"num_players": 2}, transform).name == "positano"
    with pytest.raises(ValueError, match="rapa_nui does not use the transform 'turn_based'"):
        make_game("rapa_nui", {"num_players": 2}, "turn_based")


def test_renderers_refuse_another_games_state_with_a_type_error():
    # Issue 39 item 3: a bare `assert isinstance(...)` (stripped by python -O) guarded these.
    positano = TurnBasedGame(PositanoGame(num_players=2)).new_initial_state(random.Random(0))
    with pytest.raises(TypeError, match="render_text needs a RapaNuiState, got TurnBasedState"):
        render.render_text(positano)
    with pytest.raises(TypeError, match="describe_events needs a RapaNuiState"):
        render.describe_events(positano, 0, positano)
    with pytest.raises(TypeError, match="scene_rapa_nui needs a RapaNuiState"):
        picture.scene_rapa_nui(positano)
