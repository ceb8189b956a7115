"""Text picture of a Rapa Nui table as one seat sees it (or as a spectator sees it)."""

from __future__ import annotations

from tabletop_gym.core.game import State
from tabletop_gym.envs.rapa_nui.rules import (
    CARD_NAMES,
    HG,
    KIND_NAMES,
    NUM_CARD_TYPES,
    NUM_KINDS,
    RapaNuiState,
    buy_cost,
)

_SHORT = ("Woodcutter", "Priest", "Moai", "Fish", "Grain", "Mulberry", "SweetPotato")


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
    assert isinstance(state, RapaNuiState)
    s = state
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
    lines.append(
        f"Offering stone: face up {_counts(s.stone_face_up(), KIND_NAMES)}; "
        f"face down {s.face_down_count()}"
    )
    for q in range(n):
        tag = " (you)" if q == player else ""
        lines.append(
            f"Seat {q}{tag}: wood {s.wood(q)}, VP tiles {s.vp(q)}, hand {s.hand_size(q)} cards, "
            f"offering cards {s.holding_count(q)}, face-down offerings {s.face_down_count(q)}"
        )
        lines.append(f"  display: {_counts(s.display(q), _SHORT)}")
        if s.moai_units(q):
            lines.append(f"  Moai units to split: {s.moai_units(q)}")
    if player is not None:
        hand = s.hand(player)
        cards = [CARD_NAMES[t] for t in range(NUM_CARD_TYPES) for _ in range(hand[t])]
        lines.append(f"Your hand: {', '.join(cards) if cards else '-'}")
        lines.append(f"Your offering cards: {_counts(s.holdings(player), KIND_NAMES)}")
        lines.append(
            f"Your face-down offerings on the stone: {_counts(s.face_down(player), KIND_NAMES)}"
        )
        disp = s.display(player)
        costs = ", ".join(f"{KIND_NAMES[k]} {buy_cost(disp[HG + k])}" for k in range(NUM_KINDS))
        lines.append(f"Your offering card costs: {costs}")
    if s.is_terminal():
        scores = s.scores()
        lines.append(
            "Final scores: "
            + ", ".join(f"seat {q} {scores[q]:g}" for q in range(n))
            + f"; winner(s): {s.winners()}"
        )
    return "\n".join(lines)
