"""Text picture of a Positano table as one seat sees it (or as a spectator sees it).

Everything drawn is public except the last part, the viewer's own hand: in Positano a hand is the
complement of the public discard, but it is still shown only to its owner, so the render for a
seat is the spectator's render plus its "Your hand" lines. Nothing hidden is drawn: the face-down
stacks appear as their (public) contents in sorted order, never in stack order, and Otto
Amalfi's undrawn cards only as counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from tabletop_gym.core.game import SIMULTANEOUS, State
from tabletop_gym.envs.positano import components as C
from tabletop_gym.envs.positano.rules import PositanoState

__all__ = ["GOAL_TEXT", "bid_label", "card_label", "decision_line", "render_text", "seat_label"]

GOAL_TEXT: dict[str, str] = {
    "grande": "most buildings above regulation height (6/3)",
    "piccolo": "3 per building below regulation height",
    "solitario": "2 per building with no orthogonal neighbour of its colour",
    "gruppo": "largest orthogonal group of own buildings (6/3)",
    "eccesso": "most blocks left in the personal supply (6/3)",
    "equilibrato": "5 for a Bronze, a Silver and a Gold roof",
    "dietro": "most buildings in the last two rows (6/3)",
    "colonna": "most buildings in a single column (6/3)",
    "bordo": "most buildings in the outer columns (6/3)",
    "mezzo": "most buildings in the inner columns B and C (6/3)",
    "centro": "most buildings in rows 2-4 x columns B-D (6/3)",
    "perfetto": "2 per building at exactly regulation height",
    "altezza": "2 per different building height",
}
"""One-line summary of each goal (rules §1.8, §5.3); "6/3" marks a competition goal."""

_ROOF_LETTER = "-BSG"
_ORDINAL = ("1st", "2nd", "3rd", "4th", "5th", "6th")


def seat_label(s: PositanoState, colour: int, *, long: bool = False) -> str:
    """How the renders name a colour's seat: the text's short label or the picture's long one.

    Short: ``P<seat>``, and in solo Otto Amalfi's colour ``Otto``. Long: ``Seat <seat>``, and in
    solo ``You (seat 0)`` and ``Otto Amalfi``.
    """
    if s.game.solo:
        if colour == 1:
            return "Otto Amalfi" if long else "Otto"
        if long:
            return "You (seat 0)"
    return f"Seat {colour}" if long else f"P{colour}"


def card_label(card: int, *, long: bool = False) -> str:
    """A base bid card and its lot/block/build values: ``#3 (12/7/9)``; long: ``#3 12/7/9``."""
    c = C.BID_CARDS[card]
    values = f"{c.lot}/{c.block}/{c.build}"
    return f"#{c.number} {values}" if long else f"#{c.number} ({values})"


def bid_label(s: PositanoState, colour: int, *, long: bool = False) -> str | None:
    """A colour's revealed bid and the values it makes, or ``None`` before the reveal."""
    b = s.bid(colour)
    if b is None:
        return None
    values = s.bid_values(colour)
    assert values is not None
    arrow = "  ->  " if long else " -> "
    return (
        f"{card_label(b[0], long=long)} +{C.BOOSTERS[b[1]].value}{arrow}lot {values[0]}, "
        f"block {values[1]}, build {values[2]}"
    )


def _block_tile(s: PositanoState, t: int) -> str:
    tile = s.game.block_tiles[t]
    text = f"{tile.bga_id}: "
    if tile.multiplier:
        text += f"{tile.multiplier}X (or +{tile.blocks})"
    else:
        text += tile.label()
    if tile.gelato:
        text += f", {tile.gelato} gelato"
    return text


def _build_tile(s: PositanoState, t: int) -> str:
    tile = s.game.build_tiles[t]
    text = f"{tile.bga_id}: {tile.label()}"
    if tile.gelato:
        text += f", {tile.gelato} gelato"
    return text


_BRIEF = {"draft_lot": "drafts a lot", "draft_block": "drafts a block tile",
          "block_choice": "chooses 2X/3X: multiply or flat", "draft_build": "drafts a build tile",
          "build": "builds", "add_on": "may Add-On", "remodel": "may Remodel"}


def decision_line(s: PositanoState, *, brief: bool = False, sealed: Sequence[bool] = (),
                  bidder: int = -1) -> str:
    """Who decides now and what: the text render's full line, or the picture's brief one.

    Args:
        s: The position.
        brief: The picture's line (no tile details; a seat's sealed bid shown as committed).
        sealed: Brief only: per colour, whether its bid is committed (a flattened bid).
        bidder: Brief only: the seat committing a sealed bid now, or -1.
    """
    if s.is_terminal():
        return "game over"
    if brief:
        ph = s.phase()
        if ph == "bid":
            if s.game.solo:
                return "you bid (Otto's card and booster are revealed)"
            if bidder >= 0:
                return f"Seat {bidder} commits a sealed bid ({sum(sealed)} of {len(sealed)} in)"
            return "every seat bids secretly; the bids are revealed together"
        return f"{seat_label(s, s.acting_colour(), long=True)} {_BRIEF.get(ph, ph)}"
    g = s.game
    cur = s.current_player()
    if cur == SIMULTANEOUS:
        return "every seat bids a base bid card and a booster; the bids are revealed together"
    colour = s.acting_colour()
    who = f"seat {cur}"
    if g.solo and colour == 1:
        who = "seat 0, deciding for Otto Amalfi,"
    ph = s.phase()
    if ph == "bid":
        return f"{who} bids (Otto's card and booster are revealed)"
    if ph == "draft_lot":
        return f"{who} drafts a lot tile"
    if ph == "draft_block":
        return f"{who} drafts a block tile"
    if ph == "block_choice":
        block = g.block_tiles[s.blocks_taken[colour][-1]]
        n, left = s.personal[colour], s.general[colour]
        mult = min(n * (block.multiplier - 1), left)
        flat = min(block.blocks, left)
        return (
            f"{who} chooses for the {block.multiplier}X tile: multiply (+{mult} blocks) or "
            f"flat (+{flat} blocks)"
        )
    lot = C.lot_name(s.lots_taken[colour][s.round - 1])
    if ph == "draft_build":
        return f"{who} drafts a build tile, then builds on {lot}"
    tile = g.build_tiles[s.builds_taken[colour][-1]]
    limit = C.lot_level(s.current_lot()) + tile.bonus
    if ph == "build":
        top = min(limit, s.personal[colour])
        return f"{who} builds on {lot} with {tile.label()}: 1 to {top} blocks"
    if ph == "add_on":
        return (
            f"{who} may add 1 block to an own building (Add-On, height limit level +{tile.bonus})"
        )
    return (
        f"{who} may upgrade an own {C.ROOF_NAMES[tile.roof - 1]} roof to "
        f"{C.ROOF_NAMES[tile.roof]} (Remodel)"
    )


def _cliff(s: PositanoState) -> list[str]:
    g = s.game
    size = g.size
    removed = set(s.removed_lots)
    empty = set(s.empty_lots())
    drafted = {}
    for c in range(g.num_colours):
        for p in s.lots_taken[c]:
            drafted[p] = c
    width = 9
    lines = [
        f"Cliff, seen from the sea (row {size} at the top, row 1 nearest the sea):",
        ("        " + "".join(f"{x:^{width}}" for x in "ABCDE"[:size])).rstrip(),
    ]
    for r in range(size - 1, -1, -1):
        cells = []
        for col in range(size):
            p = C.lot_position(r, col)
            if s.height[p]:
                cell = f"{seat_label(s, s.owner[p])} {s.height[p]}{_ROOF_LETTER[s.roof[p]]}"
            elif p in removed:
                cell = "xx"
            elif p in empty:
                cell = f"{seat_label(s, drafted[p])} --"
            elif p in drafted:
                cell = f"({seat_label(s, drafted[p])})"
            else:
                cell = "."
            cells.append(f"{cell:^{width}}")
        lines.append((f"  row {r + 1} " + "".join(cells)).rstrip())
    lines.append("  P0 3G = seat 0's building of 3 blocks with a Gold roof (B Bronze, S Silver)")
    lines.append(
        "  (P1) = drafted this round, not built yet; P1 -- = drafted, stays empty; "
        "xx = removed at set-up; . = still to come"
    )
    return lines


def _beach(s: PositanoState) -> list[str]:
    g = s.game
    head = "Beach board (left to right"
    if g.solo:
        head += "; the higher bid takes the leftmost tile of each row, the other bid the next"
    lines = [head + "):"]
    lines.append("  lots:   " + (", ".join(C.lot_name(p) for p in s.lot_row) or "-"))
    lines.append("  blocks: " + (" | ".join(_block_tile(s, t) for t in s.block_row) or "-"))
    lines.append("  builds: " + (" | ".join(_build_tile(s, t) for t in s.build_row) or "-"))
    lines.append(
        f"Face-down stacks (contents public, order hidden): {len(s.lot_stack)} lots, "
        f"{len(s.block_stack)} block tiles, {len(s.build_stack)} build tiles"
    )
    if s.lot_stack:
        lines.append("  lots:   " + " ".join(C.lot_name(p) for p in sorted(s.lot_stack)))
    if s.block_stack:
        lines.append("  blocks: " + " | ".join(_block_tile(s, t) for t in sorted(s.block_stack)))
    if s.build_stack:
        lines.append("  builds: " + " | ".join(_build_tile(s, t) for t in sorted(s.build_stack)))
    removed = " ".join(C.lot_name(p) for p in s.removed_lots) or "-"
    lines.append(f"Lots removed at set-up: {removed}")
    return lines


def _players(s: PositanoState) -> list[str]:
    g = s.game
    lines = []
    orders = [s.draft_order(k) for k in range(3)]
    if orders[0]:
        parts = [f"{C.TILE_TYPES[k]} " + " > ".join(seat_label(s, c) for c in orders[k])
                 for k in range(3)]
        lines.append("Draft order: " + "; ".join(parts))
    for c in range(g.num_colours):
        name = "Otto Amalfi" if g.solo and c == 1 else f"Seat {c}"
        buildings = [p for p in range(25) if s.height[p] and s.owner[p] == c]
        lines.append(
            f"{name} ({seat_label(s, c)}): star set {s.star_sets[c]}; blocks "
            f"{s.personal[c]} personal, {s.general[c]} general; gelato {s.gelato(c)}; "
            f"{len(buildings)} building(s)"
        )
        played = ", ".join(
            f"#{C.BID_CARDS[x].number} +{C.BOOSTERS[y].value}"
            for x, y in zip(s.played_cards[c], s.played_boosters[c], strict=True)
        )
        lines.append(f"  played: {played or '-'}")
        lines.append(f"  this round's bid: {bid_label(s, c) or '-'}")
        if g.solo and c == 1:
            lines.append(
                f"  deck: {len(s.hand_cards[1])} base bid cards and {len(s.hand_boosters[1])} "
                "boosters left (order hidden)"
            )
    return lines


def _results(s: PositanoState) -> list[str]:
    g = s.game
    breakdown = s.score_breakdown()
    lines = ["Final scores:"]
    per_colour = breakdown[0]["colours"] if g.solo else breakdown
    for c, res in enumerate(per_colour):
        goals = ", ".join(f"{k} {v}" for k, v in res["goals"].items())
        lines.append(
            f"  {seat_label(s, c)}: buildings {res['building_points']} + gelato {res['gelato']} + "
            f"goals {sum(res['goals'].values())} ({goals}) = {res['total']}"
        )
    if g.solo:
        lines.append(
            f"  solo result = min(own {breakdown[0]['own']}, Otto {breakdown[0]['otto']}) = "
            f"{breakdown[0]['total']}"
        )
    else:
        lines.append("  winner(s): " + ", ".join(seat_label(s, c) for c in s.winners()))
    return lines


def render_text(state: State, player: int | None = None) -> str:
    """The table as ``player`` sees it; ``None`` shows public information only.

    Args:
        state: A Positano state.
        player: The seat whose hand is shown at the end ("Your hand"); ``None`` for a spectator.
            Everything else is the same for every viewer.

    Returns:
        A multi-line string: header, decision, cliff (drawn from the sea: the top row is the
        highest), Beach Board, stacks, goals, roofs, each colour's supplies, played cards, bid
        and gelato, the final scores at the end, and the viewer's hand.

    Raises:
        ValueError: If ``player`` is not a seat of this game.
    """
    s = cast(PositanoState, state)
    g = s.game
    n = g.config.num_players
    if player is not None and not (isinstance(player, int) and 0 <= player < n):
        raise ValueError(f"player must be a seat 0..{n - 1} or None, got {player!r}")
    mode = "solo against Otto Amalfi" if g.solo else f"{n} players"
    lines = [
        f"Positano - {mode}, {g.size}x{g.size} cliff - round {s.round} of {g.num_rounds} - "
        f"phase {s.phase()}",
        f"Decision: {decision_line(s)}",
    ]
    lines += _cliff(s)
    lines += _beach(s)
    lines.append("Goals: " + "; ".join(f"{x.capitalize()}: {GOAL_TEXT[x]}" for x in s.goals))
    lines.append(
        f"Roofs left: Bronze {s.roofs_left[0]}, Silver {s.roofs_left[1]}, Gold {s.roofs_left[2]}"
    )
    lines += _players(s)
    if s.is_terminal():
        lines += _results(s)
    if player is not None:
        cards = " ".join(card_label(x) for x in s.hand_cards[player]) or "-"
        boosters = " ".join(f"+{C.BOOSTERS[x].value}" for x in s.hand_boosters[player]) or "-"
        lines.append(f"Your hand (seat {player}): cards {cards}; boosters {boosters}")
    return "\n".join(lines)


def describe_events(before: State, action: int, after: State) -> list[str]:
    """What everyone learns from ``action`` beyond the action itself, in words.

    After the last sealed bid of a round: every revealed bid and the draft orders it set (§3.1);
    at the end: the final scores.

    Args:
        before: The state the action was taken in (the turn-based state or the engine's).
        action: The action id.
        after: The state after it.
    """
    a = cast(PositanoState, getattr(after, "inner", after))
    b = cast(PositanoState, getattr(before, "inner", before))
    lines = []
    if b.phase() == "bid" and a.phase() != "bid":
        bids = "; ".join(f"{seat_label(a, c)} {bid_label(a, c) or '-'}"
                         for c in range(a.game.num_colours))
        lines.append(f"Bids revealed: {bids}")
        orders = [a.draft_order(k) for k in range(3)]
        if orders[0]:
            parts = [
                f"{C.TILE_TYPES[k]} " + " > ".join(seat_label(a, c) for c in orders[k])
                for k in range(3)
            ]
            lines.append("Draft order: " + "; ".join(parts))
    if a.round != b.round and not a.is_terminal():
        lines.append(f"Round {a.round} of {a.game.num_rounds} begins")
    if a.is_terminal() and not b.is_terminal():
        lines += _results(a)
    return lines
