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
    assert ("Face-down offerings revealed: seat 0: Paper mulberry×1; seat 1: Fish×1; "
            "seat 2: Fish×1, Grain×1, Sweet potato×1") in text
    assert ("Stone totals: Fish×6, Grain×4, Paper mulberry×5, Sweet potato×5 -> kind values: "
            "Fish 3, Grain 1, Paper mulberry 2, Sweet potato 2") in text
    assert "seat 0: VP tiles 4 + Moai 4 + wood 1 + offerings 33 = 42" in text
    assert "Final scores: seat 0 42, seat 1 40, seat 2 49; winner(s): [2]" in text
    # Every seat's view at the end is the same table: nothing is hidden any more.
    state = env.game_state
    block = text[text.index("Final scoring:"):]
    assert all(type(env).renderer(state, seat).endswith(block) for seat in range(3))


def test_a_running_game_still_hides_the_face_down_kinds():
    env = rapa_nui_v0.raw_env(num_players=3, render_mode="ansi", render_view="public")
    env.reset(seed=4)
    assert "face down 0" in env.render()
    assert "Final scoring" not in env.render()


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
    stone = next(s for s in final.splitlines() if s.startswith("Offering stone:"))
    up, down = stone.removeprefix("Offering stone: face up ").split("; face down (revealed) ")
    totals_line = next(s for s in final.splitlines() if "Stone totals:" in s)
    totals_text, values_text = totals_line.split("Stone totals: ")[1].split(" -> kind values: ")
    totals = _parse_counts(totals_text)
    face_up, face_down = _parse_counts(up), _parse_counts(down)
    assert totals == {k: face_up[k] + face_down[k] for k in KINDS}  # §7.4: c[K] = up + down
    values = {k: int(v) for k, v in (p.rsplit(" ", 1) for p in values_text.split(", "))}
    assert values == _kind_values(totals)
    held_line = next(s for s in final.splitlines() if "Offering cards held:" in s)
    held = {int(p.split(":")[0].split()[1]): _parse_counts(p.split(": ", 1)[1])
            for p in held_line.split("Offering cards held: ")[1].split("; ")}
    for seat, cards in held.items():
        points = sum(values[k] * cards[k] for k in KINDS)
        assert f"seat {seat}: VP tiles" in final and f"offerings {points} =" in final
