"""The move parser: every answer class, and no guess where two moves could be meant."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tabletop_gym.text.moves import ILLEGAL, LEGAL, UNPARSABLE, normalise, parse_move

LEGAL_MOVES = ["build 1 block at 2D", "build 2 blocks at 2D", "play 1× H&G Grain (0 wood)"]
OTHERS = ["build 3 blocks at 2D", "no purchase"]


@pytest.mark.parametrize(("answer", "index", "match"), [
    ("2", 1, "number"),
    (" 3. ", 2, "number"),
    ("[1]", 0, "number"),
    ("Move: 2", 1, "number"),
    ("I think about it.\nMove: 3", 2, "number"),
    ("move 1", 0, "number"),
    ("build 2 blocks at 2D", 1, "exact"),
    ("Build 2 Blocks at 2d.", 1, "tolerant"),
    ("'play 1× H&G Grain (0 wood)'", 2, "tolerant"),
    ("[build 1 block at 2D]", 0, "tolerant"),
    ("Best is to build 1 block at 2D, keeping blocks.", 0, "tolerant"),
    ("2. build 2 blocks at 2D", 1, "number"),
    ("Move: 3. play 1× H&G Grain (0 wood)", 2, "number"),
])
def test_legal_answers(answer, index, match):
    got = parse_move(answer, LEGAL_MOVES, lambda: OTHERS)
    assert (got.kind, got.index, got.match, got.reason) == (LEGAL, index, match, "")


@pytest.mark.parametrize(("answer", "match"), [("build 3 blocks at 2D", "exact"),
                                               ("No purchase", "tolerant"),
                                               ("Move: no purchase", "exact")])
def test_a_move_of_the_game_that_is_not_legal_now_is_illegal(answer, match):
    got = parse_move(answer, LEGAL_MOVES, lambda: OTHERS)
    assert got.kind == ILLEGAL and got.index is None and got.match == match
    assert "not legal now" in got.reason


@pytest.mark.parametrize(("answer", "why"), [
    ("", "empty"),
    ("   ", "empty"),
    ("4", "4 is not a move number; the moves are numbered 1 to 3"),
    ("0", "0 is not a move number"),
    ("I choose 2", "names no legal move"),
    ("build 1 block at 2D or build 2 blocks at 2D", "more than one legal move"),
    ("hmm", "names no legal move"),
    ("1. build 2 blocks at 2D", "the number 1 and the text 'build 2 blocks at 2D' do not name"),
    ("Move: 2. no purchase", "the number 2 and the text 'no purchase' do not name the same"),
])
def test_unparsable_answers_say_why(answer, why):
    got = parse_move(answer, LEGAL_MOVES, lambda: OTHERS)
    assert got.kind == UNPARSABLE and got.index is None
    assert why in got.reason


def test_the_names_of_other_moves_are_read_only_when_needed():
    def boom():
        raise AssertionError("not needed for a legal answer")

    assert parse_move("1", LEGAL_MOVES, boom).kind == LEGAL
    assert parse_move("build 2 blocks at 2D", LEGAL_MOVES, boom).kind == LEGAL


def test_a_name_inside_a_longer_mentioned_name_is_not_a_second_mention():
    moves = ["draw column 1", "draw column 1 again"]
    got = parse_move("I pick: draw column 1 again", moves)
    assert (got.kind, got.index) == (LEGAL, 1)


def test_normalise():
    assert normalise('  "Build  2 Blocks at 2D."  ') == "build 2 blocks at 2d"


# Each answer below made the old reader backtrack from every position: 16,000 newlines took 8 s,
# so these 200,000-character ones would take about 20 minutes. A linear reader needs well under
# a second; the child process is given 60 s, a margin that no loaded machine comes near either
# way (the regex engine holds the GIL, so only a process can be stopped at a deadline).
_SLOW_BEFORE = {
    "newlines": ("'\\n' * 200_000", "the answer is empty"),
    "spaces after Move:": ("'move:a' + ' ' * 200_000 + 'b'", "names no legal move"),
    "spaces after a number": ("'1.' + ' ' * 200_000 + 'x\\ny'", "names no legal move"),
}


@pytest.mark.parametrize("case", sorted(_SLOW_BEFORE))
def test_a_long_answer_is_classified_in_time_linear_in_its_length(case):
    answer, why = _SLOW_BEFORE[case]
    code = ("import json; from tabletop_gym.text.moves import parse_move; "
            f"p = parse_move({answer}, {LEGAL_MOVES!r}); print(json.dumps([p.kind, p.reason]))")
    try:
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             timeout=60, check=True).stdout
    except subprocess.TimeoutExpired:
        pytest.fail(f"classifying the {case} answer took over 60 s (quadratic)")
    kind, reason = json.loads(out)
    assert kind == UNPARSABLE and why in reason


@pytest.mark.parametrize(("answer", "index"), [
    ("Move:\n\n  2", 1),  # the move on the line below its label
    ("Move:\nMove: 3", 2),  # the last labelled line counts
    ("0" * 5000 + "1", 0),  # leading zeros, past int()'s 4,300-digit limit
    ("\uff13", 2),  # a full-width 3: a decimal digit, as int() reads it
])
def test_numbers_and_labels_that_the_reader_must_still_read(answer, index):
    got = parse_move(answer, LEGAL_MOVES, lambda: OTHERS)
    assert (got.kind, got.index) == (LEGAL, index)


@pytest.mark.parametrize(("answer", "why"), [
    ("9" * 5000, "999999999999... (5000 characters) is not a move number; the moves are "
                 "numbered 1 to 3"),
    ("\u00b2", "names no legal move"),  # a superscript two is no decimal digit
    ("5000" + "0" * 5000 + ". build 1 block at 2D",
     "the number 500000000000... (5004 characters) and the text 'build 1 block at 2D' do not"),
])
def test_huge_numbers_and_superscripts_are_unparsable_with_a_reason(answer, why):
    got = parse_move(answer, LEGAL_MOVES, lambda: OTHERS)
    assert got.kind == UNPARSABLE and why in got.reason


def test_one_legal_move_is_not_a_range_1_to_1():
    assert parse_move("2", ["no purchase"]).reason == (
        "2 is not a move number; the only move is number 1")
    assert parse_move("hmm", ["no purchase"]).reason == (
        "the answer names no legal move; give the move's number (1) or its exact text")
