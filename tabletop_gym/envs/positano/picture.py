"""Drawn picture of a Positano table (``render_mode="rgb_array"`` and ``"human"``).

The cliff is a grid of lots, row 1 (nearest the sea) at the bottom: each building is a stack of
blocks in its owner's colour with its roof (Bronze, Silver, Gold) on top and its height beside
it; blocks with no sea view (spec §5.1) are hatched; the dashed tick marks the lot's regulation
height. Removed lots are crossed out, lots that stay empty for good say so, lots drafted this
round and not built yet are outlined in the drafter's colour. Beside the cliff: the Beach Board
tiles, the face-down stack sizes, the goals and the roof supply; below: each colour's supplies,
gelato, bids, draft order and score, and the viewer's own hand when the view is a seat.

The frame size depends only on the configuration (board size and number of colours), never on
the position, so a whole episode is one video size. Nothing hidden is drawn: a sealed bid shows
as a card back to every other seat until the reveal.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tabletop_gym.core.draw import (
    FAINT,
    INK,
    SEA,
    SEAT_COLOURS,
    Scene,
    shade,
    text_colour,
)
from tabletop_gym.core.game import State
from tabletop_gym.envs.positano import components as C
from tabletop_gym.envs.positano.render import (
    GOAL_TEXT,
    bid_label,
    card_label,
    decision_line,
    seat_label,
)
from tabletop_gym.envs.positano.rules import PositanoState
from tabletop_gym.envs.positano.scoring import visible_blocks

__all__ = ["draw_positano", "frame_size", "scene_positano"]

ROOF_COLOURS = ((0, 0, 0), (184, 115, 51), (192, 192, 204), (232, 190, 40))
"""Fill of each roof rank (index 1 Bronze, 2 Silver, 3 Gold)."""

WIDTH = 1240
HEADER = 52
CELL_W = 92
CELL_H = 104
BLOCK_H = 10
GRID_X = 64
GRID_Y = HEADER + 34
ROW_H = 30
LOT_FREE = (236, 220, 190)
LOT_REMOVED = (205, 205, 205)


def _cliff_height(size: int) -> int:
    return GRID_Y + size * CELL_H + 46


def frame_size(size: int, num_colours: int) -> tuple[int, int]:
    """(width, height) of every frame of a configuration."""
    right = HEADER + 310
    table = 26 + num_colours * ROW_H + 8 + 3 * 22 + 8
    return WIDTH, max(_cliff_height(size), right) + table


def _draw_building(cv: Scene, x: float, base: float, height: int, seen: int, roof: int,
                   colour: tuple[int, int, int]) -> None:
    """Stack of ``height`` blocks standing on ``base``; the lowest ``height - seen`` hatched."""
    w = 40
    for k in range(height):
        y1 = base - k * BLOCK_H
        box = (x, y1 - BLOCK_H + 1, x + w, y1)
        hidden = k < height - seen
        cv.rect(box, fill=shade(colour, 0.55) if hidden else colour, outline=shade(colour, 0.4))
        if hidden:
            cv.hatch(box, shade(colour, 0.3), step=4)
    top = base - height * BLOCK_H
    cv.polygon([(x - 4, top), (x + w / 2, top - 14), (x + w + 4, top)], ROOF_COLOURS[roof])
    cv.text((x + w / 2, top - 5), "BSG"[roof - 1], 10, INK, anchor="mm")


def _cliff(cv: Scene, s: PositanoState) -> None:
    g = s.game
    size = g.size
    seen = visible_blocks(s.height, size)
    removed = set(s.removed_lots)
    empty = set(s.empty_lots())
    drafted: dict[int, int] = {}
    for c in range(g.num_colours):
        for p in s.lots_taken[c]:
            drafted[p] = c
    cv.text((GRID_X - 50, HEADER + 10),
            "Cliff (row 1 nearest the sea). Hatched blocks have no sea view; 3v = 3 that do", 14)
    for r in range(size):
        y0 = GRID_Y + (size - 1 - r) * CELL_H
        cv.text((GRID_X - 10, y0 + CELL_H / 2), f"row {r + 1}", 12, FAINT, anchor="rm")
        for col in range(size):
            p = C.lot_position(r, col)
            x0 = GRID_X + col * CELL_W
            box = (x0 + 2, y0 + 2, x0 + CELL_W - 2, y0 + CELL_H - 2)
            base = y0 + CELL_H - 8
            if p in removed:
                cv.rect(box, fill=LOT_REMOVED, radius=4)
                cv.cross((box[0] + 20, box[1] + 24, box[2] - 20, box[3] - 18))
                cv.text((box[0] + 5, box[1] + 4), C.lot_name(p), 11, FAINT)
                cv.text(((box[0] + box[2]) / 2, box[1] + 12), "removed", 10, FAINT, anchor="mm")
                continue
            cv.rect(box, fill=LOT_FREE, outline=shade(LOT_FREE, 0.8), radius=4)
            cv.text((box[0] + 5, box[1] + 4), C.lot_name(p), 11, FAINT)
            # The regulation height of the lot is its row number (spec §4).
            reg = base - (r + 1) * BLOCK_H
            for x in range(int(box[0]) + 4, int(box[2]) - 4, 6):
                cv.line([(x, reg), (x + 3, reg)], FAINT)
            if s.height[p]:
                colour = SEAT_COLOURS[s.owner[p]]
                _draw_building(cv, x0 + 18, base, s.height[p], seen[p], s.roof[p], colour)
                cv.text((x0 + 64, base - 2), str(s.height[p]), 16, INK, anchor="lb")
                cv.text((x0 + 64, base - 20), f"{seen[p]}v", 10, FAINT, anchor="lb")
            elif p in empty:
                cv.rect(box, outline=SEAT_COLOURS[drafted[p]], width=3, radius=4)
                cv.text(((box[0] + box[2]) / 2, (box[1] + box[3]) / 2), "stays empty", 11,
                        SEAT_COLOURS[drafted[p]], anchor="mm")
            elif p in drafted:
                colour = SEAT_COLOURS[drafted[p]]
                for k in range(0, int(box[2] - box[0]), 10):
                    cv.line([(box[0] + k, box[1]), (box[0] + k + 5, box[1])], colour, 3)
                    cv.line([(box[0] + k, box[3]), (box[0] + k + 5, box[3])], colour, 3)
                cv.text(((box[0] + box[2]) / 2, (box[1] + box[3]) / 2), "drafted", 11, colour,
                        anchor="mm")
    bottom = GRID_Y + size * CELL_H
    for col in range(size):
        cv.text((GRID_X + col * CELL_W + CELL_W / 2, bottom + 4), "ABCDE"[col], 13, FAINT,
                anchor="ma")
    cv.rect((GRID_X, bottom + 22, GRID_X + size * CELL_W, bottom + 38), fill=SEA, radius=4)
    cv.text((GRID_X + size * CELL_W / 2, bottom + 30), "sea", 11, (255, 255, 255), anchor="mm")


def _tile(cv: Scene, x: float, y: float, label: str, fill: tuple[int, int, int],
          gelato: int = 0, sub: str = "") -> None:
    cv.rect((x, y, x + 70, y + 40), fill=fill, outline=shade(fill, 0.6), radius=5)
    ink = text_colour(fill)
    cv.text((x + 35, y + (14 if sub else 20)), label, 13, ink, anchor="mm")
    if sub:
        cv.text((x + 35, y + 30), sub, 10, ink, anchor="mm")
    for k in range(gelato):
        cv.ellipse((x + 58 - 9 * k, y + 3, x + 66 - 9 * k, y + 11), (250, 170, 200))


def _beach(cv: Scene, s: PositanoState, x0: float) -> float:
    g = s.game
    y = HEADER + 10
    cv.text((x0, y), "Beach Board (left to right; pink dots are gelato)", 14)
    rows = (
        ("Lots", [(C.lot_name(p), LOT_FREE, g.lot_tiles[p].gelato, f"level {C.lot_level(p)}")
                  for p in s.lot_row], len(s.lot_stack)),
        ("Blocks", [(g.block_tiles[t].label(), (120, 180, 120), g.block_tiles[t].gelato,
                     f"or +{g.block_tiles[t].blocks}" if g.block_tiles[t].multiplier else "")
                    for t in s.block_row], len(s.block_stack)),
        ("Builds", [(f"{C.ROOF_NAMES[b.roof]} +{b.bonus}" if b.bonus else C.ROOF_NAMES[b.roof],
                     ROOF_COLOURS[b.roof], b.gelato,
                     {"add_on": "Add-On", "remodel": "Remodel"}.get(b.action, ""))
                    for b in (g.build_tiles[t] for t in s.build_row)], len(s.build_stack)),
    )
    y += 24
    for name, tiles, stack in rows:
        cv.text((x0, y + 14), name, 13, INK)
        for i, (label, fill, gel, sub) in enumerate(tiles):
            _tile(cv, x0 + 56 + i * 74, y, label, fill, gel, sub)
        cv.text((x0 + 56 + g.tiles_per_round * 74 + 4, y + 14), f"stack {stack}", 11, FAINT)
        y += 48
    return y


def _goals(cv: Scene, s: PositanoState, x0: float, y: float) -> float:
    y += 6
    cv.text((x0, y), "Goals (6/3 = points for the most / second most)", 14)
    y += 22
    for goal in s.goals:
        cv.text((x0, y), goal.capitalize(), 13, INK)
        cv.text((x0 + 96, y + 1), cv.fit(GOAL_TEXT[goal], WIDTH - x0 - 110, 12), 12, FAINT)
        y += 20
    y += 8
    cv.text((x0, y), "Roofs left", 14)
    for i in range(3):
        x = x0 + 90 + i * 110
        cv.polygon([(x, y + 14), (x + 14, y), (x + 28, y + 14)], ROOF_COLOURS[i + 1])
        cv.text((x + 34, y + 1), f"{C.ROOF_NAMES[i + 1]} {s.roofs_left[i]}", 13)
    return y + 24


def _bid_text(s: PositanoState, colour: int, sealed: list[bool], own: str | None) -> str:
    shown = bid_label(s, colour, long=True)
    if shown is not None:
        return shown
    if own is not None:
        return f"committed: {own} (hidden from the others)"
    if sealed[colour]:
        return "sealed bid committed"
    return "-"


def _table(cv: Scene, s: PositanoState, y: float, viewer: int | None, sealed: list[bool],
           own: str | None) -> None:
    g = s.game
    cols = (16, 180, 300, 370, 450, 520, 890, 1020)
    heads = ("colour", "blocks pers./gen.", "gelato", "buildings", "score", "this round's bid",
             "played", "")
    cv.rect((8, y, WIDTH - 8, y + 26 + g.num_colours * ROW_H), fill=(238, 232, 218), radius=8)
    for x, h in zip(cols, heads, strict=True):
        cv.text((x, y + 6), h, 12, FAINT)
    results = s.score_breakdown()
    per_colour = results[0]["colours"] if g.solo else results
    winners = set(s.winners()) if s.is_terminal() else set()
    y += 26
    for c in range(g.num_colours):
        colour = SEAT_COLOURS[c]
        cv.rect((cols[0], y + 4, cols[0] + 18, y + 22), fill=colour, radius=3)
        cv.text((cols[0] + 26, y + 6), seat_label(s, c, long=True), 14)
        buildings = sum(1 for p in range(25) if s.height[p] and s.owner[p] == c)
        cv.text((cols[1], y + 6), f"{s.personal[c]} / {s.general[c]}", 14)
        cv.text((cols[2], y + 6), str(s.gelato(c)), 14)
        cv.text((cols[3], y + 6), str(buildings), 14)
        cv.text((cols[4], y + 6), str(per_colour[c]["total"]), 14)
        text = _bid_text(s, c, sealed, own if c == viewer else None)
        if sealed[c] and s.bid(c) is None and c != viewer:
            cv.rect((cols[5], y + 3, cols[5] + 16, y + 25), fill=(70, 70, 110), radius=2)
            text = "   " + text
        cv.text((cols[5], y + 6), cv.fit(text, cols[6] - cols[5] - 10, 13), 13)
        played = " ".join(f"#{C.BID_CARDS[a].number}+{C.BOOSTERS[b].value}"
                          for a, b in zip(s.played_cards[c], s.played_boosters[c], strict=True))
        cv.text((cols[6], y + 6), cv.fit(played or "-", cols[7] - cols[6] + 180, 12), 12)
        if c in winners:
            cv.text((cols[4] + 36, y + 6), "WIN", 13, (200, 40, 40))
        y += ROW_H
    y += 8
    orders = [s.draft_order(k) for k in range(3)]
    if orders[0]:
        parts = [f"{name}: " + " > ".join(seat_label(s, c, long=True) for c in orders[k])
                 for k, name in enumerate(("lots", "blocks", "builds"))]
        cv.text((16, y), "Draft order  " + "   ".join(parts), 13)
    y += 22
    if viewer is not None:
        cards = "  ".join(card_label(x, long=True) for x in s.hand_cards[viewer]) or "-"
        boosters = " ".join(f"+{C.BOOSTERS[x].value}" for x in s.hand_boosters[viewer]) or "-"
        cv.text((16, y), cv.fit(f"Your hand (seat {viewer}): {cards}   boosters {boosters}",
                                WIDTH - 32, 13), 13)
    elif g.solo:
        cv.text((16, y), f"Otto's deck: {len(s.hand_cards[1])} cards, "
                f"{len(s.hand_boosters[1])} boosters left", 13, FAINT)
    y += 22
    if s.is_terminal():
        if g.solo:
            b = results[0]
            line = f"Final: min(own {b['own']}, Otto {b['otto']}) = {b['total']}"
        else:
            line = "Final scores: " + ", ".join(
                f"{seat_label(s, c, long=True)} {r['total']} (buildings "
                f"{r['building_points']}, gelato {r['gelato']}, goals "
                f"{sum(r['goals'].values())})"
                for c, r in enumerate(per_colour))
        cv.text((16, y), cv.fit(line, WIDTH - 32, 13), 13, (160, 30, 30))


def scene_positano(state: State, viewer: int | None = None) -> Scene:
    """The table as ``viewer`` sees it, drawn; ``None`` is the public (spectator) view.

    Args:
        state: A Positano state, or the turn-based state over one (a flattened bid).
        viewer: The seat whose hand (and own committed bid) is shown, or ``None``.

    Returns:
        The :class:`~tabletop_gym.core.draw.Scene` (shapes) of the size :func:`frame_size` gives
        for the configuration.
    """
    inner: Any = getattr(state, "inner", state)
    s: PositanoState = inner
    g = s.game
    n = g.config.num_players
    if viewer is not None and not (isinstance(viewer, int) and 0 <= viewer < n):
        raise ValueError(f"viewer must be a seat 0..{n - 1} or None, got {viewer!r}")
    pending = getattr(state, "pending", None)
    sealed = [False] * g.num_colours
    own = None
    bidder = -1
    if pending is not None:
        bidder = state.current_player() if state.is_bid_round() else -1  # type: ignore[attr-defined]
        for p, a in enumerate(pending):
            if a is not None:
                sealed[p] = True
        if viewer is not None and pending[viewer] is not None:
            own = s.action_to_string(pending[viewer], viewer)
    w, h = frame_size(g.size, g.num_colours)
    cv = Scene(w, h)
    mode = "solo against Otto Amalfi" if g.solo else f"{n} players"
    cv.rect((0, 0, w, HEADER - 8), fill=(40, 70, 110))
    title = (f"Positano  |  {mode}, {g.size}x{g.size}  |  round {min(s.round, g.num_rounds)} of "
             f"{g.num_rounds}  |  {decision_line(s, brief=True, sealed=sealed, bidder=bidder)}")
    cv.text((14, 12), cv.fit(title, w - 200, 18), 18, (255, 255, 255))
    view = "public view" if viewer is None else f"view of seat {viewer}"
    cv.text((w - 14, 14), view, 14, (220, 230, 245), anchor="ra")
    _cliff(cv, s)
    x0 = GRID_X + 5 * CELL_W + 40
    y = _beach(cv, s, x0)
    y = _goals(cv, s, x0, y)
    table_y = max(_cliff_height(g.size), y + 8)
    _table(cv, s, table_y, viewer, sealed, own)
    return cv


def draw_positano(state: State, viewer: int | None = None) -> np.ndarray:
    """:func:`scene_positano` drawn as an ``(H, W, 3)`` uint8 frame."""
    return scene_positano(state, viewer).array()
