"""The move parser: every answer class, and no guess where two moves could be meant."""

from __future__ import annotations

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
