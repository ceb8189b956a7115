"""Drawn picture of a Rapa Nui table (``render_mode="rgb_array"`` and ``"human"``).

Left: the four columns of the general display, front card (the one a draw takes, §3 Phase 3)
first and largest, the draw pile and the Moai removed from the game. Right: the offering stone
(face-up cards by kind, face-down cards as backs in the colour of the seat that placed them),
the offering supply, and one panel per seat with wood, VP tiles, the personal display, hand
size and offering-card count. A seat view adds that seat's own hand, offering-card kinds and
face-down cards; at the end every face-down card and every kind value is revealed (§7).

The frame size depends only on the number of players.
"""

from __future__ import annotations

import numpy as np

from tabletop_gym.core.draw import FAINT, INK, SEAT_COLOURS, Scene, shade, text_colour
from tabletop_gym.core.game import State, state_of
from tabletop_gym.envs.rapa_nui.rules import (
    CARD_NAMES,
    HG,
    KIND_NAMES,
    NUM_CARD_TYPES,
    NUM_KINDS,
    RapaNuiState,
)

__all__ = ["draw_rapa_nui", "frame_size", "scene_rapa_nui"]

CARD_COLOURS = (
    (140, 96, 60),  # Woodcutter
    (120, 80, 165),  # Priest
    (112, 116, 126),  # Moai
    (60, 130, 205),  # Fish
    (222, 190, 60),  # Grain
    (86, 160, 96),  # Paper mulberry
    (222, 124, 62),  # Sweet potato
)
"""Fill of each card type; an H&G card and an offering card of one kind share a colour."""

SHORT = ("Woodcutter", "Priest", "Moai", "H&G Fish", "H&G Grain", "H&G Mulb.", "H&G S.pot.")
KIND_SHORT = ("Fish", "Grain", "Mulberry", "S. potato")
BACK = (70, 60, 90)

WIDTH = 1240
HEADER = 52
COL_W = 150
PLAYER_H = 118


def frame_size(num_players: int) -> tuple[int, int]:
    """(width, height) of every frame for ``num_players`` seats."""
    return WIDTH, max(HEADER + 470, HEADER + 28 + num_players * PLAYER_H) + 4


def _card(cv: Scene, box: tuple[float, float, float, float], t: int, size: int = 13) -> None:
    fill = CARD_COLOURS[t]
    cv.rect(box, fill=fill, outline=shade(fill, 0.55), radius=5)
    cv.text(((box[0] + box[2]) / 2, (box[1] + box[3]) / 2), CARD_NAMES[t], size,
            text_colour(fill), anchor="mm")


def _back(cv: Scene, box: tuple[float, float, float, float], edge: tuple[int, int, int]) -> None:
    cv.rect(box, fill=BACK, outline=edge, width=2, radius=3)
    cv.hatch((box[0] + 3, box[1] + 3, box[2] - 3, box[3] - 3), shade(BACK, 1.35), step=6)


def _columns(cv: Scene, s: RapaNuiState) -> None:
    x0, y0 = 14, HEADER + 6
    cv.text((x0, y0), "General display (front card on top: the next draw takes it)", 14)
    for c, col in enumerate(s.columns()):
        x = x0 + c * (COL_W + 10)
        y = y0 + 24
        cv.text((x + COL_W / 2, y), f"column {c + 1}", 12, FAINT, anchor="ma")
        y += 18
        if not col:
            cv.rect((x, y, x + COL_W, y + 60), outline=FAINT, radius=5)
            cv.text((x + COL_W / 2, y + 30), "empty", 12, FAINT, anchor="mm")
            continue
        for i, t in enumerate(col):
            h = 62 if i == 0 else 30
            _card(cv, (x, y, x + COL_W, y + h), t, 15 if i == 0 else 12)
            y += h + 4
    y = y0 + 42 + 62 + 3 * 34 + 16
    cv.text((x0, y), f"Draw pile: {s.draw_pile_size()} cards (order hidden)", 14)
    cv.text((x0 + 330, y), f"Moai removed from the game: {s.removed_moai()}", 14)


def _stone(cv: Scene, s: RapaNuiState, viewer: int | None) -> int:
    x0, y0 = 14, HEADER + 264
    over = s.is_terminal()
    cv.panel((x0 - 4, y0, x0 + 4 * (COL_W + 10) - 6, y0 + 196), "Offering stone")
    up = s.stone_face_up()
    totals = s.stone_totals()
    y = y0 + 30
    cv.text((x0 + 8, y + 4), "face up", 12, FAINT)
    for k in range(NUM_KINDS):
        x = x0 + 80 + k * 132
        fill = CARD_COLOURS[HG + k]
        cv.rect((x, y, x + 120, y + 34), fill=fill, outline=shade(fill, 0.55), radius=5)
        cv.text((x + 60, y + 17), f"{KIND_SHORT[k]} x{up[k]}", 13, text_colour(fill), anchor="mm")
    y += 46
    cv.text((x0 + 8, y + 4), "face down", 12, FAINT)
    x = x0 + 80
    for q in range(s.num_players):
        n_down = s.face_down_count(q)
        kinds = s.face_down(q) if over or q == viewer else None
        for k in range(NUM_KINDS):
            for _ in range(kinds[k] if kinds is not None else 0):
                fill = CARD_COLOURS[HG + k]
                cv.rect((x, y, x + 22, y + 34), fill=fill, outline=SEAT_COLOURS[q], width=3,
                        radius=3)
                x += 26
        if kinds is None:
            for _ in range(n_down):
                _back(cv, (x, y, x + 22, y + 34), SEAT_COLOURS[q])
                x += 26
        if n_down:
            x += 8
    if not s.face_down_count():
        cv.text((x, y + 10), "none", 12, FAINT)
    y += 46
    if over:
        values = s.kind_values()
        text = "Stone revealed: " + ", ".join(
            f"{KIND_SHORT[k]} {totals[k]} -> {values[k]} VP" for k in range(NUM_KINDS))
        cv.text((x0 + 8, y), cv.fit(text, 4 * (COL_W + 10) - 30, 13), 13, (160, 30, 30))
    else:
        cv.text((x0 + 8, y), "Kind values are set by all stone cards at the end (3/2/1/0 VP).", 12,
                FAINT)
    y += 24
    supply = s.supply()
    cv.text((x0 + 8, y), "Supply: " + ", ".join(
        f"{KIND_NAMES[k]} {supply[k]}" for k in range(NUM_KINDS)), 13)
    return y0 + 196


def _players(cv: Scene, s: RapaNuiState, viewer: int | None) -> None:
    x0, y0 = 660, HEADER + 6
    over = s.is_terminal()
    breakdown = s.score_breakdown()
    winners = set(s.winners()) if over else set()
    cv.text((x0, y0), "Players (display counts; cost to buy = 5 - matching H&G)", 14)
    y = y0 + 22
    for q in range(s.num_players):
        box = (x0, y, WIDTH - 10, y + PLAYER_H - 8)
        colour = SEAT_COLOURS[q]
        active = q == s.active_player() and not over
        cv.rect(box, fill=(238, 232, 218), outline=colour if active else shade(colour, 1.6),
                width=3 if active else 1, radius=8)
        cv.rect((x0 + 10, y + 10, x0 + 28, y + 28), fill=colour, radius=3)
        name = f"Seat {q}" + (" (you)" if q == viewer else "") + ("  - to play" if active else "")
        cv.text((x0 + 36, y + 10), name, 15)
        b = breakdown[q]
        if over:
            # Scores exist only at the end: held offerings count by kind values that depend on
            # the face-down cards, hidden until then.
            score = f"score {b['total']}" + ("  WINNER" if q in winners else "")
            cv.text((box[2] - 10, y + 10), score, 15, (160, 30, 30) if q in winners else INK,
                    anchor="ra")
        cv.text((x0 + 230, y + 12), f"wood {s.wood(q)}   VP tiles {s.vp(q)}", 13)
        disp = s.display(q)
        for t in range(NUM_CARD_TYPES):
            x = x0 + 10 + t * 80
            fill = CARD_COLOURS[t]
            cv.rect((x, y + 36, x + 74, y + 62), fill=fill if disp[t] else shade(fill, 1.7),
                    outline=shade(fill, 0.6), radius=4)
            cv.text((x + 37, y + 49), f"{SHORT[t]} {disp[t]}", 10,
                    text_colour(fill) if disp[t] else FAINT, anchor="mm")
        line = f"hand {s.hand_size(q)} card(s)"
        if q == viewer:
            hand = s.hand(q)
            line += ": " + ", ".join(CARD_NAMES[t] for t in range(NUM_CARD_TYPES)
                                     for _ in range(hand[t]))
        if s.moai_units(q):
            line += f"    Moai units to split: {s.moai_units(q)}"
        offer = f"offering cards {s.holding_count(q)}"
        if q == viewer or over:
            held = s.holdings(q)
            if any(held):
                offer += ": " + ", ".join(f"{KIND_SHORT[k]} {held[k]}" for k in range(NUM_KINDS)
                                          if held[k])
        if over:
            # The hand scores nothing (§7): the line shows the offering cards that do.
            line = offer
            offer = (f"VP tiles {b['vp_tiles']} + Moai {b['moai']} + wood {b['wood']} + "
                     f"offerings {b['offerings']} = {b['total']}")
        cv.text((x0 + 10, y + 70), cv.fit(line, box[2] - x0 - 20, 13), 13)
        cv.text((x0 + 10, y + 90), cv.fit(offer, box[2] - x0 - 20, 13), 13,
                (160, 30, 30) if over else INK)
        y += PLAYER_H


def _decision(s: RapaNuiState) -> str:
    d = s.decider()
    if d is None:
        return "game over"
    ph = s.phase()
    return {
        "buy": f"Seat {d} may buy an offering card",
        "play": f"Seat {d} plays from hand",
        "draw": f"Seat {d} draws ({s.draws_left()} left)",
        "offer": f"offering round: Seat {d} places a card",
        "supply_offer": f"offering round: Seat {d} adds a supply card",
    }.get(ph, f"Moai scoring: Seat {d} splits {s.moai_units(d)} unit(s)")


def scene_rapa_nui(state: State, viewer: int | None = None) -> Scene:
    """The table as ``viewer`` sees it, drawn; ``None`` is the public (spectator) view.

    Args:
        state: A Rapa Nui state.
        viewer: The seat whose hand, offering-card kinds and own face-down cards are shown.

    Returns:
        The :class:`~tabletop_gym.core.draw.Scene` (shapes) of the size :func:`frame_size` gives
        for the player count.
    """
    s = state_of(state, RapaNuiState, "scene_rapa_nui")
    n = s.num_players
    if viewer is not None and not (isinstance(viewer, int) and 0 <= viewer < n):
        raise ValueError(f"viewer must be a seat 0..{n - 1} or None, got {viewer!r}")
    w, h = frame_size(n)
    cv = Scene(w, h)
    cv.rect((0, 0, w, HEADER - 8), fill=(92, 70, 52))
    title = f"Rapa Nui  |  {n} players  |  {_decision(s)}"
    cv.text((14, 12), cv.fit(title, w - 200, 18), 18, (255, 255, 255))
    view = "public view" if viewer is None else f"view of seat {viewer}"
    cv.text((w - 14, 14), view, 14, (240, 228, 210), anchor="ra")
    _columns(cv, s)
    _stone(cv, s, viewer)
    _players(cv, s, viewer)
    return cv


def draw_rapa_nui(state: State, viewer: int | None = None) -> np.ndarray:
    """:func:`scene_rapa_nui` drawn as an ``(H, W, 3)`` uint8 frame."""
    return scene_rapa_nui(state, viewer).array()
