"""Text picture of a Rapa Nui table as one seat sees it (or as a spectator sees it)."""

from __future__ import annotations

from tabletop_gym.core.game import State, state_of
from tabletop_gym.envs.rapa_nui.rules import (
    CARD_NAMES,
    DRAW,
    HG,
    KIND_NAMES,
    NUM_CARD_TYPES,
    NUM_KINDS,
    OFFER,
    RapaNuiState,
    buy_cost,
)


def _counts(counts: list[int], names: tuple[str, ...] | list[str]) -> str:
    parts = [f"{names[i]}×{c}" for i, c in enumerate(counts) if c]
    return ", ".join(parts) if parts else "-"


def _decision(s: RapaNuiState) -> str:
    phase = s.phase()
    d = s.decider()
    if d is None:
        return "game over"
    if phase == "buy":
        return f"seat {d} may buy one offering card"
    if phase == "play":
        return f"seat {d} plays from hand"
    if phase == "draw":
        return f"seat {d} draws ({s.draws_left()} left)"
    if phase == "offer":
        face = "face down" if d == s.active_player() else "face up"
        return f"offering round: seat {d} places an own offering card {face}"
    if phase == "supply_offer":
        return f"offering round: seat {d} places a supply card face up"
    return f"Moai scoring: seat {d} splits {s.moai_units(d)} units into VP and wood"


def render_text(state: State, player: int | None = None) -> str:
    """The table as ``player`` sees it; ``None`` shows public information only.

    Args:
        state: A Rapa Nui state.
        player: The seat whose private cards (hand, offering cards, own face-down stone cards)
            are shown; other seats show only counts.

    Returns:
        A multi-line string.
    """
    s = state_of(state, RapaNuiState, "render_text")
    n = s.num_players
    lines = [
        f"Rapa Nui, {n} players - turn of seat {s.active_player()} - phase {s.phase()}",
        f"Decision: {_decision(s)}",
        "General display (front card first):",
    ]
    for c, col in enumerate(s.columns()):
        cards = " < ".join(CARD_NAMES[x] for x in col) if col else "(empty)"
        lines.append(f"  column {c + 1}: {cards}")
    lines.append(
        f"Draw pile: {s.draw_pile_size()} cards   Moai removed from the game: {s.removed_moai()}"
    )
    lines.append(f"Offering supply: {_counts(s.supply(), KIND_NAMES)}")
    # The final scoring reveals the face-down cards (§3.1.5), so after the game every view
    # names them.
    if s.is_terminal():
        down = [sum(s.face_down(q)[k] for q in range(n)) for k in range(NUM_KINDS)]
        hidden = f"face down (revealed) {_counts(down, KIND_NAMES)}"
    else:
        hidden = f"face down {s.face_down_count()}"
    lines.append(f"Offering stone: face up {_counts(s.stone_face_up(), KIND_NAMES)}; {hidden}")
    for q in range(n):
        tag = " (you)" if q == player else ""
        lines.append(
            f"Seat {q}{tag}: wood {s.wood(q)}, VP tiles {s.vp(q)}, hand {s.hand_size(q)} cards, "
            f"offering cards {s.holding_count(q)}, face-down offerings {s.face_down_count(q)}"
        )
        # the cards' own names, as in the columns and the hand (one name per kind)
        lines.append(f"  display: {_counts(s.display(q), CARD_NAMES)}")
        if s.moai_units(q):
            lines.append(f"  Moai units to split: {s.moai_units(q)}")
    if player is not None:
        hand = s.hand(player)
        names = [CARD_NAMES[t] for t in range(NUM_CARD_TYPES) for _ in range(hand[t])]
        lines.append(f"Your hand: {', '.join(names) if names else '-'}")
        lines.append(f"Your offering cards: {_counts(s.holdings(player), KIND_NAMES)}")
        lines.append(
            f"Your face-down offerings on the stone: {_counts(s.face_down(player), KIND_NAMES)}"
        )
        disp = s.display(player)
        costs = ", ".join(f"{KIND_NAMES[k]} {buy_cost(disp[HG + k])}" for k in range(NUM_KINDS))
        lines.append(f"Your offering card costs: {costs}")
    if s.is_terminal():
        # The whole final scoring (§7), so a player can check every total.
        lines += reveal_lines(s)
        scores = s.scores()
        lines.append(
            "Final scores: "
            + ", ".join(f"seat {q} {scores[q]:g}" for q in range(n))
            + f"; winner(s): {s.winners()}"
        )
    return "\n".join(lines)


def describe_events(before: State, action: int, after: State) -> list[str]:
    """What everyone learns from ``action`` beyond the action itself, in words.

    After the last draw of a turn: which card was revealed and scored (§4) and what each seat
    gained; a draw that ends the game says so (§6); at the end the face-down offerings, the kind
    values and the final scores are revealed (§7).

    Args:
        before: The state the action was taken in.
        action: The action id.
        after: The state after it.
    """
    b = state_of(before, RapaNuiState, "describe_events")
    a = state_of(after, RapaNuiState, "describe_events")
    n = b.num_players
    lines: list[str] = []
    if b.phase() == "draw" and DRAW <= action < OFFER:
        col = action - DRAW
        if a.is_terminal():
            lines.append(
                f"Column {col + 1} cannot be refilled: the draw pile is used up and the game "
                "ends at once (no turn scoring)"
            )
        elif b.draws_left() == 1:
            scored = a.columns()[col][0]
            gains = []
            for q in range(n):
                parts = []
                for label, diff in (
                    ("wood", a.wood(q) - b.wood(q)),
                    ("VP", a.vp(q) - b.vp(q)),
                    ("offering card(s)", a.holding_count(q) - b.holding_count(q)),
                    ("Moai unit(s) to split", a.moai_units(q) - b.moai_units(q)),
                ):
                    if diff:
                        parts.append(f"+{diff} {label}")
                if parts:
                    gains.append(f"seat {q} " + ", ".join(parts))
            kind = ""
            if scored >= HG:
                kind = f" ({KIND_NAMES[scored - HG]})"
            lines.append(
                f"Revealed and scored: {CARD_NAMES[scored]}{kind} -> "
                + ("; ".join(gains) if gains else "nobody gains")
            )
    if a.is_terminal() and not b.is_terminal():
        lines += reveal_lines(a)
    return lines


def reveal_lines(s: RapaNuiState) -> list[str]:
    """The final scoring of a finished game (§7), as every seat may read it then.

    Every face-down offering is revealed (§3.1.5); each kind counts its face-up and face-down
    cards on the stone and is valued from those counts (§7.4); each seat scores its VP tiles,
    Moai, wood and held offering cards times their kind's value (§7.1-§7.4), so the final
    scoring can be checked by hand.
    """
    n = s.num_players
    up = s.stone_face_up()
    down = [sum(s.face_down(q)[k] for q in range(n)) for k in range(NUM_KINDS)]
    totals = s.stone_totals()
    values = s.kind_values()
    lines = ["Final scoring (every face-down offering is now revealed):"]
    for q in range(n):
        lines.append(f"  seat {q} placed face down: {_counts(s.face_down(q), KIND_NAMES)}")
    lines.append("  Offering stone, cards per kind (face up + face down = total) and value:")
    for k in range(NUM_KINDS):
        lines.append(f"    {KIND_NAMES[k]}: {up[k]} + {down[k]} = {totals[k]} -> worth "
                     f"{values[k]} per card")
    for q, br in enumerate(s.score_breakdown()):
        held = s.holdings(q)
        terms = " + ".join(f"{held[k]}x{values[k]}" for k in range(NUM_KINDS) if held[k])
        lines.append(f"  seat {q} holds {_counts(held, KIND_NAMES)}: offering points "
                     f"{terms or '0'} = {br['offerings']}")
        lines.append(f"  seat {q} total: VP tiles {br['vp_tiles']} + Moai {br['moai']} + wood "
                     f"{br['wood']} + offerings {br['offerings']} = {br['total']}")
    return lines
