"""The end of a Rapa Nui game shows its own final scoring in every view (issue #26 item 5).

At the end the face-down offerings are revealed (docs/rules/rapa_nui.md §3.1.5) and every kind
gets its value from the count of its cards on the stone (§7.4). The ansi render and the CLI's
final screen name the revealed kinds, the count per kind on the stone, each kind's value and
every seat's offering points, so a player can check the final scoring.
"""

from __future__ import annotations

import numpy as np

from tabletop_gym.agents.heuristic import heuristic_for
from tabletop_gym.envs import rapa_nui_v0
from tests.test_cli_play import _run

KINDS = ("Fish", "Grain", "Paper mulberry", "Sweet potato")


def _heuristic_game(seed: int, num_players: int):
    env = rapa_nui_v0.raw_env(num_players=num_players, render_mode="ansi", render_view="public")
    env.reset(seed=seed)
    bot = heuristic_for(env.game, env.observer, np.random.default_rng(0))
    while not env.game_state.is_terminal():
        env.step(bot.act(env.observe(env.agent_selection)))
    return env


def _kind_values(counts: dict[str, int]) -> dict[str, int]:
    # §7.4: a kind with no card on the stone is worth 0; the others rank densely 3/2/1/0.
    present = {c for c in counts.values() if c}
    return {k: 0 if c == 0 else max(0, 3 - sum(1 for d in present if d > c))
            for k, c in counts.items()}


def test_public_final_table_of_a_three_player_game():
    env = _heuristic_game(seed=4, num_players=3)
    text = env.render()
    # Worked by hand from this game's end: the stone holds face up Fish 4, Grain 3, Paper
    # mulberry 4, Sweet potato 4, and face down (seat 0) mulberry, (seat 1) Fish, (seat 2)
    # Fish, Grain, Sweet potato: totals Fish 6, Grain 4, mulberry 5, potato 5. Distinct counts
    # 6 > 5 > 4, so (§7.4) Fish 3, mulberry 2, potato 2, Grain 1. Seat 0 holds Fish 2, Grain 5,
    # mulberry 4, potato 7: 2*3 + 5*1 + 4*2 + 7*2 = 33 offering points.
    assert ("Offering stone: face up Fish×4, Grain×3, Paper mulberry×4, Sweet potato×4; "
            "face down (revealed) Fish×2, Grain×1, Paper mulberry×1, Sweet potato×1") in text
    assert "seat 0 placed face down: Paper mulberry×1\n" in text
    assert "seat 1 placed face down: Fish×1\n" in text
    assert "seat 2 placed face down: Fish×1, Grain×1, Sweet potato×1\n" in text
    for line in ("Fish: 4 + 2 = 6 -> worth 3 per card", "Grain: 3 + 1 = 4 -> worth 1 per card",
                 "Paper mulberry: 4 + 1 = 5 -> worth 2 per card",
                 "Sweet potato: 4 + 1 = 5 -> worth 2 per card"):
        assert line in text
    assert ("seat 0 holds Fish×2, Grain×5, Paper mulberry×4, Sweet potato×7: offering points "
            "2x3 + 5x1 + 4x2 + 7x2 = 33") in text
    assert "seat 0 total: VP tiles 4 + Moai 4 + wood 1 + offerings 33 = 42" in text
    assert "Final scores: seat 0 42, seat 1 40, seat 2 49; winner(s): [2]" in text
    # Every seat's view at the end is the same table: nothing is hidden any more.
    state = env.game_state
    block = text[text.index("Final scoring"):]
    assert all(type(env).renderer(state, seat).endswith(block) for seat in range(3))


def test_a_running_game_still_hides_the_face_down_kinds():
    env = rapa_nui_v0.raw_env(num_players=3, render_mode="ansi", render_view="public")
    env.reset(seed=4)
    assert "face down 0" in env.render()
    assert "Final scoring" not in env.render()
    assert "placed face down" not in env.render()


def _parse_counts(text: str) -> dict[str, int]:
    counts = dict.fromkeys(KINDS, 0)
    if text.strip() != "-":
        for part in text.split(", "):
            kind, n = part.rsplit("×", 1)
            counts[kind] = int(n)
    return counts


def test_cli_final_screen_lets_a_player_check_the_scoring(monkeypatch, capsys):
    rc, out, err = _run(["play", "--game", "rapa_nui", "--players", "3", "--seat", "1",
                         "--seed", "2", "--opponents", "heuristic,heuristic"],
                        monkeypatch, capsys, "0\n" * 600)
    assert rc == 0, err
    final = out[out.rindex("Rapa Nui, 3 players"):]  # the last table: the final screen
    lines = final.splitlines()
    stone = next(s for s in lines if s.startswith("Offering stone:"))
    up_text, down_text = stone.removeprefix("Offering stone: face up ").split(
        "; face down (revealed) ")
    face_up, face_down = _parse_counts(up_text), _parse_counts(down_text)
    values = {}
    for kind in KINDS:
        row = next(s.strip() for s in lines if s.strip().startswith(f"{kind}: "))
        counts, worth = row.removeprefix(f"{kind}: ").split(" -> worth ")
        up, rest = counts.split(" + ")
        down, total = rest.split(" = ")
        # §7.4: c[K] = face up + face down, as the stone line shows them
        assert (int(up), int(down)) == (face_up[kind], face_down[kind])
        assert int(total) == int(up) + int(down)
        values[kind] = int(worth.split()[0])
    assert values == _kind_values({k: face_up[k] + face_down[k] for k in KINDS})
    for seat in range(3):
        held_line = next(s for s in lines if s.strip().startswith(f"seat {seat} holds "))
        held = _parse_counts(held_line.split(" holds ")[1].split(": offering points")[0])
        points = sum(values[k] * held[k] for k in KINDS)
        assert held_line.endswith(f"= {points}")
