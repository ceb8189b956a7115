"""The final scoring of a finished Rapa Nui game in words, as every seat may read it then.

The end reveals what was hidden on the stone (§3.1.5), so the text shows every face-down
offering, the count of each kind on the stone, each kind's value (§7.4) and every seat's points,
from which the final scoring can be checked by hand.
"""

from __future__ import annotations

from collections.abc import Sequence

from tabletop_gym.core.game import State
from tabletop_gym.envs.rapa_nui.rules import KIND_NAMES, NUM_KINDS, RapaNuiState


def _counts(values: Sequence[int], names: Sequence[str]) -> str:
    parts = [f"{names[i]} {c}" for i, c in enumerate(values) if c]
    return ", ".join(parts) if parts else "none"


def final_scoring_lines(state: State) -> list[str]:
    """The final scoring of a finished Rapa Nui game, from what the end reveals (§7).

    Every face-down offering is revealed (§3.1.5); each kind counts its face-up and face-down
    cards on the stone and is valued from those counts (§7.4); each seat scores its VP tiles,
    Moai, wood and held offering cards times their kind's value (§7.1-§7.4).
    """
    assert isinstance(state, RapaNuiState) and state.is_terminal()
    s = state
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
