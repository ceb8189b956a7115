"""Tests of the Positano text render and of the docs page's worked scoring example.

Expected texts and scores are worked out by hand from the rules reference
(``docs/rules/positano.md``); each test cites the section it relies on.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

from tabletop_gym.envs.positano import PositanoGame, PositanoState
from tabletop_gym.envs.positano.render import render_text
from tests.positano.helpers import pos, random_step
from tests.positano.test_observer import CONFIGS, _random_positions, _round3_build_position

DOCS = Path(__file__).resolve().parents[2] / "docs" / "envs" / "positano.md"


def _docs_example() -> dict[str, Any]:
    """The JSON document of the docs page's finished 2-player example."""
    text = DOCS.read_text(encoding="utf-8")
    tail = text.split("### Example: a finished 2-player game", 1)[1]
    match = re.search(r"```json\n(.*?)\n```", tail, re.S)
    assert match, "the docs example has no JSON block"
    return json.loads(match.group(1))


def _finished_example() -> PositanoState:
    state = PositanoGame(num_players=2).state_from_json(_docs_example())
    assert isinstance(state, PositanoState)
    return state


def _cliff_rows(text: str) -> list[list[str]]:
    return [line.split()[1:] for line in text.splitlines() if line.startswith("  row ")]


# --- the cliff ---------------------------------------------------------------------------------


def test_finished_cliff_is_drawn_from_the_sea():
    # rules §1.2: row 1 is nearest the sea (drawn at the bottom), columns A..D left to right;
    # removed lots (rules §2.4) are marked xx.
    text = render_text(_finished_example())
    assert _cliff_rows(text) == [
        ["4", "P1", "5B", "P1", "2B", "P1", "1G", "xx"],
        ["3", "xx", "P0", "4S", "P1", "3G", "P0", "1B"],
        ["2", "P0", "3G", "P0", "3S", "P0", "3S", "xx"],
        ["1", "xx", "P1", "2S", "P1", "2B", "P0", "2S"],
    ]
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("  row 4"))
    header, row4 = lines[at - 1], lines[at]
    assert header.split() == ["A", "B", "C", "D"]
    # each cell sits under its column letter
    assert abs(row4.index("5B") - header.index("A")) <= 2
    assert abs(row4.index("xx") - header.index("D")) <= 2


def test_mid_round_render_shows_drafted_lots_beach_and_decision():
    # rules §3.4: seat 1 drafted build tile 70 (Gold +1, Add-On) and builds on 4C now; 4C's
    # limit is level 4 + 1 = 5 but seat 1 holds 2 blocks (rules §4).
    state = _round3_build_position()
    text = render_text(state)
    assert "Decision: seat 1 builds on 4C with Gold +1, Add-On: 1 to 2 blocks" in text
    assert _cliff_rows(text) == [
        ["4", "(P0)", ".", "(P1)", "xx"],
        ["3", "xx", "P1", "4B", ".", "."],
        ["2", ".", "P0", "3S", "P1", "2S", "xx"],
        ["1", "xx", "P0", "1B", ".", "."],
    ]
    assert "  builds: 67: Bronze +2, Add-On" in text
    assert "Draft order: lot P1 > P0; block P0 > P1; build P1 > P0" in text
    # rules §3.1: P0 played #2 +13 this round → 23 / 73 / 63.
    assert "  this round's bid: #2 (10/60/50) +13 -> lot 23, block 73, build 63" in text
    # rules §2: the stack's contents are public, listed in sorted order, never in stack order.
    assert "  lots:   1C 1D 2A 3C 3D 4B" in text
    assert "Roofs left: Bronze 4, Silver 4, Gold 6" in text


def test_hand_line_for_the_viewer():
    state = _round3_build_position()
    assert render_text(state, 0).splitlines()[-1] == (
        "Your hand (seat 0): cards #3 (50/10/60) #4 (40/40/40) #6 (30/70/20) #7 (20/30/70); "
        "boosters +5 +14 +21"
    )
    assert render_text(state, 1).splitlines()[-1] == (
        "Your hand (seat 1): cards #1 (60/50/10) #2 (10/60/50) #4 (40/40/40) #5 (70/20/30); "
        "boosters +6 +14 +22"
    )


def test_solo_render_shows_otto_and_the_tile_order():
    # rules §7: Otto's bid is revealed before the player bids; his deck order stays hidden; the
    # higher bid takes the leftmost tile of each row.
    game = PositanoGame(num_players=1)
    state = game.new_initial_state(random.Random(4))
    text = render_text(state, 0)
    card, booster = state.bid(1)  # type: ignore[misc]
    assert "Decision: seat 0 bids (Otto's card and booster are revealed)" in text
    assert "the higher bid takes the leftmost tile of each row" in text
    otto = text.split("Otto Amalfi (Otto)", 1)[1]
    assert f"this round's bid: #{card + 1} " in otto
    assert "deck: 6 base bid cards and 5 boosters left (order hidden)" in otto
    blocks = next(line for line in text.splitlines() if line.startswith("  blocks: "))
    assert blocks.index(f"{40 + state.block_row[0]}:") < blocks.index(f"{40 + state.block_row[1]}:")


# --- information -------------------------------------------------------------------------------


@pytest.mark.parametrize("cfg", CONFIGS, ids=str)
def test_viewer_render_differs_from_spectator_only_by_own_hand(cfg):
    game = PositanoGame(**cfg)
    rng = random.Random(3)
    for state in _random_positions(game, 40, seed=90 + cfg["num_players"]):
        public = render_text(state)
        assert "Your hand" not in public
        for p in range(game.num_players):
            own = render_text(state, p)
            assert own.startswith(public + "\n")
            extra = own[len(public) + 1 :].splitlines()
            assert len(extra) == 1 and extra[0].startswith(f"Your hand (seat {p}): ")
            # docs/design.md, "Information hygiene": nothing drawn depends on the stack or Otto's deck order.
            assert render_text(state.resample_hidden(p, rng), p) == own


def test_bad_viewer_is_refused():
    state = PositanoGame(num_players=2).new_initial_state(random.Random(0))
    with pytest.raises(ValueError, match=r"seat 0\.\.1"):
        render_text(state, 2)


# --- the docs page's worked example ------------------------------------------------------------


def test_docs_example_scores_as_worked_out_by_hand():
    state = _finished_example()
    assert state.is_terminal()
    got = state.score_breakdown()
    # rules §5.1 sea view, column by column (front first):
    # A: 2A P0 3 Gold, nothing in front → 3·3 = 9; 4A P1 5 Bronze, 2A covers 3-2 = 1 → 4·1 = 4.
    # B: 1B P1 2 Silver → 4; 2B P0 3 Silver, hidden 2-1 = 1 → 2·2 = 4; 3B P0 4 Silver, hidden
    #    max(3-1, 2-2) = 2 → 2·2 = 4; 4B P1 2 Bronze, hidden max(4-1, 3-2, 2-3) = 3 → 0.
    # C: 1C P1 2 Bronze → 2; 2C P0 3 Silver, hidden 1 → 2·2 = 4; 3C P1 3 Gold, hidden
    #    max(3-1, 2-2) = 2 → 1·3 = 3; 4C P1 1 Gold, hidden max(3-1, 3-2, 2-3) = 2 → 0.
    # D: 1D P0 2 Silver → 4; 3D P0 1 Bronze, hidden max(0-1, 2-2) = 0 → 1.
    assert got[0]["buildings"] == {"1D": 4, "2A": 9, "2B": 4, "2C": 4, "3B": 4, "3D": 1}
    assert got[1]["buildings"] == {"1B": 4, "1C": 2, "3C": 3, "4A": 4, "4B": 0, "4C": 0}
    assert got[0]["building_points"] == 26 and got[1]["building_points"] == 13
    # rules §5.2: P0 cards #1 #5 #2 #4 #7 #6 = 3, boosters +22 +6 +13 +5 +14 +21 = 3, block tiles
    # 41 53 46 50 47 48 = 1, build tiles 60 65 75 70 68 64 = 4 → 11. P1 cards #3 #6 #7 #1 #5 #4
    # = 3, boosters = 3, block tiles 40 45 54 42 43 55 = 1+2+1+2 = 6, build tiles 0 → 12.
    assert got[0]["gelato"] == 11 and got[1]["gelato"] == 12
    # rules §1.8/§5.3: Piccolo P0 3D (1 < 3) → 3, P1 4B and 4C → 6; Gruppo both 4 buildings,
    # blocks 13 (2A 2B 2C 3B) vs 11 (4A 4B 4C 3C) → 6 / 3; Equilibrato both have B, S, G → 5.
    assert got[0]["goals"] == {"piccolo": 3, "gruppo": 6, "equilibrato": 5}
    assert got[1]["goals"] == {"piccolo": 6, "gruppo": 3, "equilibrato": 5}
    assert state.scores() == [51.0, 39.0]
    assert state.winners() == [0]
    text = render_text(state)
    assert (
        "  P0: buildings 26 + gelato 11 + goals 14 (piccolo 3, gruppo 6, equilibrato 5) = 51"
        in text
    )
    assert "  winner(s): P0" in text


def test_docs_example_is_reachable_by_legal_play():
    # The example is a real game: replay it from its set-up (rules §2) with the bids and choices
    # the docs page lists, and reach exactly the documented final position.
    game = PositanoGame(num_players=2)

    def lots(*names: str) -> list[int]:
        return [pos(n) for n in names]

    start = {
        "round": 1,
        "phase": "bid",
        "turn": 0,
        "goals": ["piccolo", "gruppo", "equilibrato"],
        "colours": [
            {
                "star_set": s,
                "hand_cards": list(range(7)),
                "hand_boosters": list(range(6)),
                "played_cards": [],
                "played_boosters": [],
                "lots": [],
                "block_tiles": [],
                "build_tiles": [],
                "personal": 1,
                "general": 15,
            }
            for s in (1, 2)
        ],
        "stacks": {
            "lots": lots("3B", "1C", "2C", "3C", "4A", "2A", "1D", "4B", "3D", "4C"),
            "blocks": [5, 13, 6, 14, 2, 10, 7, 3, 8, 15, 4, 9, 11, 12],
            "builds": [5, 6, 2, 15, 10, 12, 3, 8, 13, 4, 7, 9, 11, 14],
        },
        "beach": {"lots": lots("1B", "2B"), "blocks": [0, 1], "builds": [0, 1]},
        "removed_lots": lots("1A", "2D", "3A", "4D"),
        "owner": [-1] * 25,
        "height": [0] * 25,
        "roof": [0] * 25,
        "roofs_left": [6, 6, 6],
    }
    state = game.state_from_json({"schema": 1, "game": "positano", "state": start})

    def bid(number: int, booster: int) -> int:
        return 6 * (number - 1) + booster

    def lot(n: str) -> int:
        return 55 + pos(n)

    def block(bga: int) -> int:
        return 80 + bga - 40

    def build(bga: int) -> int:
        return 107 + bga - 60

    def height(h: int) -> int:
        return 131 + h

    rounds = [
        (
            [bid(1, 5), bid(3, 0)],
            [
                lot("2B"),
                lot("1B"),
                block(41),
                block(40),
                build(61),
                height(1),
                build(60),
                height(2),
            ],
        ),
        (
            [bid(5, 1), bid(6, 2)],
            [
                lot("3B"),
                lot("1C"),
                block(45),
                block(53),
                105,
                build(65),
                height(4),
                build(66),
                height(2),
                139 + pos("1B"),
            ],
        ),
        (
            [bid(2, 2), bid(7, 4)],
            [
                lot("3C"),
                lot("2C"),
                block(46),
                block(54),
                build(62),
                height(3),
                build(75),
                height(2),
                165 + pos("2B"),
            ],
        ),
        (
            [bid(4, 0), bid(1, 3)],
            [
                lot("4A"),
                lot("2A"),
                block(42),
                block(50),
                build(70),
                height(3),
                139 + pos("2C"),
                build(72),
                height(5),
            ],
        ),
        (
            [bid(7, 3), bid(5, 5)],
            [
                lot("4B"),
                lot("1D"),
                block(47),
                block(43),
                build(68),
                height(2),
                139 + pos("2B"),
                build(63),
                height(2),
            ],
        ),
        (
            [bid(6, 4), bid(4, 1)],
            [
                lot("3D"),
                lot("4C"),
                block(48),
                block(55),
                build(73),
                height(1),
                build(64),
                height(1),
            ],
        ),
    ]
    for joint, actions in rounds:
        state.apply_joint_action(joint)
        for a in actions:
            state.apply_action(a)
    assert state.is_terminal()
    assert state == _finished_example()


def test_render_of_every_position_of_random_games():
    # rules §1.2, §8: 4 cliff rows on 4×4, 5 on 5×5; the end shows the final scores (rules §5).
    for cfg, rows in (({"num_players": 2}, 4), ({"num_players": 5}, 5)):
        game = PositanoGame(**cfg)
        state = game.new_initial_state(random.Random(1))
        rng = random.Random(2)
        while not state.is_terminal():
            assert len(_cliff_rows(render_text(state))) == rows
            random_step(state, rng)
        assert "Final scores:" in render_text(state)
