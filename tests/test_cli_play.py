"""The command line driven as a person would: whole games with scripted input (bad input
included), replays of the saved records, and bad arguments that must end without a traceback.
"""

from __future__ import annotations

import io
import json
import re
import sys

import pytest
from PIL import Image

from tabletop_gym import __version__, cli
from tabletop_gym.core.records import GameRecord

BAD_INPUT = ["x", "99", "-1", "", "b"]


def _run(argv, monkeypatch, capsys, stdin=""):
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    rc = cli.main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


def _scores(out: str) -> list[float]:
    line = [s for s in out.splitlines() if s.startswith("scores:")][-1]
    return json.loads(re.search(r"scores: (\[[^\]]*\])", line).group(1))


def test_positano_whole_game_two_step_bid_then_replay_to_a_gif(tmp_path, monkeypatch, capsys):
    record = tmp_path / "game.json"
    script = "\n".join(BAD_INPUT + ["0"] * 300) + "\n"
    rc, out, err = _run(["play", "--game", "positano", "--players", "2", "--seat", "1",
                         "--seed", "4", "--opponents", "heuristic",
                         "--save-record", str(record)], monkeypatch, capsys, script)
    assert rc == 0, err
    assert "'x' is not a choice" in out and "'99' is not a choice" in out
    lines = out.splitlines()
    bot = [s for s in lines if s.startswith("player_0: ")]
    # docs/rules/positano.md §3.1: seat 0 bids first in the turn-based bid; seat 1 sees only that it committed
    assert "player_0: commits a sealed bid card" in bot
    assert "player_0: commits a sealed booster" in bot
    assert not any(s.startswith(("player_0: bid", "player_0: booster")) for s in bot)
    # two-step bid by default: the human chooses a card, then a booster
    assert any("you: bid card #" in s for s in lines)
    assert any("you: booster +" in s for s in lines)
    # 2 players play 6 rounds (docs/rules/positano.md §2): six reveals, each with its draft order
    assert sum("Bids revealed:" in s for s in lines) == 6
    assert sum(s.strip().startswith("Draft order:") for s in lines) >= 6
    played = _scores(out)

    rec = GameRecord.from_json(record.read_text())
    assert rec.env_id == "positano_v0" and rec.transform == "turn_based_split"
    assert rec.provenance["package_version"] == __version__
    gif = tmp_path / "game.gif"
    rc, out, err = _run(["replay", str(record), "--gif", str(gif), "--every", "10"],
                        monkeypatch, capsys)
    assert rc == 0, err
    assert _scores(out) == played
    with Image.open(gif) as img:
        assert img.n_frames == 1 + -(-len(rec.actions) // 10)
    rc, out, err = _run(["replay", str(record), "--view", "1"], monkeypatch, capsys)
    assert rc == 0 and _scores(out) == played
    # seat 1's view of seat 0's sealed bids is the public one; its own bids are in full
    assert "seat 0: commits a sealed bid card" in out
    frames = tmp_path / "frames"
    rc, out, err = _run(["replay", str(record), "--frames", str(frames), "--every", "40"],
                        monkeypatch, capsys)
    assert rc == 0 and len(list(frames.glob("frame_*.png"))) == 1 + -(-len(rec.actions) // 40)


def test_positano_solo_plays_with_one_step_bids(tmp_path, monkeypatch, capsys):
    # The two-step bid splits a simultaneous bid; solo has none (the player bids alone against
    # Otto's revealed bid, docs/rules/positano.md §7), so `play` uses one-step bids there.
    record = tmp_path / "solo.json"
    rc, out, err = _run(["play", "--game", "positano", "--players", "1", "--seed", "3",
                         "--save-record", str(record)], monkeypatch, capsys, "0\n" * 400)
    assert rc == 0, err
    lines = out.splitlines()
    # solo plays 6 rounds (docs/rules/positano.md §6), one bid decision each
    assert sum(bool(re.search(r"you: bid #\d", s)) for s in lines) == 6
    assert not any("you: bid card #" in s for s in lines)
    assert sum("Bids revealed:" in s for s in lines) == 6
    rec = GameRecord.from_json(record.read_text())
    assert rec.transform == "turn_based" and rec.config["num_players"] == 1


def test_rapa_nui_whole_game_hides_face_down_offerings_until_the_end(tmp_path, monkeypatch,
                                                                     capsys):
    record = tmp_path / "game.json"
    script = "\n".join(BAD_INPUT + ["0"] * 600) + "\n"
    rc, out, err = _run(["play", "--game", "rapa_nui", "--players", "3", "--seat", "1",
                         "--seed", "2", "--opponents", "heuristic,random",
                         "--save-record", str(record)], monkeypatch, capsys, script)
    assert rc == 0, err
    lines = out.splitlines()
    others = [s for s in lines if s.startswith(("player_0: ", "player_2: "))]
    # docs/rules/rapa_nui.md §3.1: the active player's own offering goes face down; no kind reaches seat 1
    assert any(s.endswith("places an offering card face down") for s in others)
    assert not any("face down" in s and "offer own" in s for s in others)
    assert any(s.strip().startswith("Revealed and scored:") for s in lines)
    # docs/rules/rapa_nui.md §7: at the end the face-down cards and kind values are revealed
    assert any(s.strip().startswith("Final scoring (every face-down offering is now revealed)")
               for s in lines)
    assert any("-> worth" in s for s in lines)
    played = _scores(out)
    rc, out, err = _run(["replay", str(record)], monkeypatch, capsys)
    assert rc == 0 and _scores(out) == played


def test_quitting_and_ending_input_end_cleanly(monkeypatch, capsys):
    rc, out, _ = _run(["play", "--game", "rapa_nui", "--seed", "1"], monkeypatch, capsys,
                      "nonsense\nq\n")
    assert rc == 0 and "game abandoned" in out
    rc, _, err = _run(["play", "--game", "rapa_nui", "--seed", "1"], monkeypatch, capsys, "")
    assert rc == 2 and "input ended" in err and "Traceback" not in err


@pytest.mark.parametrize("argv,message", [
    (["play", "--seat", "5"], "--seat 5 is not a seat of a 2-player game; choose 0..1"),
    (["play", "--players", "9"], "num_players=9 is out of range"),
    (["play", "--opponents", "heuristc"], "unknown opponent 'heuristc'"),
    (["play", "--opponents", "missing/model.zip"], "checkpoint 'missing/model.zip' not found"),
    (["play", "--game", "rapa_nui", "--players", "3", "--opponents", "random,random,random"],
     "--opponents needs one spec or 2 comma-separated specs"),
    (["play", "--set", "num_player=3"], "raw_env got an unexpected keyword argument 'num_player' (did you mean 'num_players'?)"),
    (["play", "--set", "oops"], "--set expects key=value items, e.g. --set name=1; got 'oops'"),
    # Read before anything is imported or trained, and named by its own flag.
    (["exploit", "--hp", "lr"], "--hp expects key=value items, e.g. --hp name=1; got 'lr'"),
    (["train", "--hp", "=1"], "--hp expects key=value items, e.g. --hp name=1; got '=1'"),
    (["eval", "--games", "0"], "--games must be at least 1, got 0"),
    (["eval", "--games", "2", "--candidate", "heuristc"], "unknown opponent 'heuristc'"),
    (["replay", "no-such-record.json"], "record file 'no-such-record.json' not found"),
])
def test_bad_arguments_end_with_one_line_and_status_2(argv, message, monkeypatch, capsys):
    rc, _, err = _run(argv, monkeypatch, capsys, "0\n" * 5)
    assert rc == 2
    assert message in err and "Traceback" not in err
    assert err.count("\n") == 1


def test_replay_of_another_record_format_says_so(tmp_path, monkeypatch, capsys):
    path = tmp_path / "future.json"
    path.write_text(json.dumps({"record": 99, "game": "rapa_nui", "config": {}, "seed": 1,
                                "actions": [], "provenance": {"package_version": "9.0"}}))
    rc, _, err = _run(["replay", str(path)], monkeypatch, capsys)
    assert rc == 2
    assert "record format 99 (written by tabletop-gym 9.0)" in err
    assert f"tabletop-gym {__version__} reads record formats 1, 2, 3" in err


def test_replay_view_must_be_public_or_a_seat(tmp_path, monkeypatch, capsys):
    path = tmp_path / "r.json"
    path.write_text(GameRecord("rapa_nui", {"num_players": 2}, 1, []).to_json())
    rc, _, err = _run(["replay", str(path), "--view", "2"], monkeypatch, capsys)
    assert rc == 2 and "--view '2' is not allowed; choose public or a seat 0..1" in err


@pytest.mark.parametrize("view", ["\u00b2", "9" * 5000, "-1", " 1"])
def test_replay_view_that_is_no_seat_number_is_refused_in_one_line(view, tmp_path, monkeypatch,
                                                                    capsys):
    path = tmp_path / "r.json"
    path.write_text(GameRecord("rapa_nui", {"num_players": 2}, 1, []).to_json())
    rc, _, err = _run(["replay", str(path), "--view", view], monkeypatch, capsys)
    assert rc == 2
    assert err == (f"tabletop-gym replay: error: --view {view!r} is not allowed; choose public "
                   "or a seat 0..1\n")


def test_version_flag(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"tabletop-gym {__version__}"


def test_bench_forwards_every_flag(monkeypatch, tmp_path):
    calls = []
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bench").mkdir()
    (tmp_path / "bench" / "run.py").write_text("")
    monkeypatch.setattr(cli.subprocess, "call", lambda args: calls.append(args) or 0)
    assert cli.main(["bench", "--quick", "--reps", "1", "--seconds", "0.1"]) == 0
    assert calls[0][2:] == ["--quick", "--reps", "1", "--seconds", "0.1"]


def test_key_value_items_read_json_values_and_keep_the_rest_as_text():
    from tabletop_gym.console import parse_assignments

    got = parse_assignments(["lr=0.001", "hidden=[256,256]", "opponents=pool", "flag=true",
                             "name=a=b", "empty="], "--hp")
    # A value that parses as JSON is that value; anything else (a bare word, nothing) is text,
    # and only the first "=" splits.
    assert got == {"lr": 0.001, "hidden": [256, 256], "opponents": "pool", "flag": True,
                   "name": "a=b", "empty": ""}
    assert parse_assignments([], "--set") == {}
    with pytest.raises(ValueError, match=r"^--set expects key=value items, e\.g\. --set name=1; "
                       r"got 'oops'$"):
        parse_assignments(["lr=1", "oops"], "--set")
