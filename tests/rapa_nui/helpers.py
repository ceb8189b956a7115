"""Position builders for the Rapa Nui tests: JSON ``"state"`` dicts written from a few overrides.

``position(...)`` starts from the setup of ``docs/rules/rapa_nui.md`` §2 (start hands, start Woodcutters, 2/3/4/5 wood,
one offering card of each kind) and replaces what a test names. It fills in what the schema
needs but the test does not care about: the supply stacks (25 minus the cards in use), and the
cards not placed anywhere, which go to the draw pile (or, when a test fixes the draw pile, to the
display of the seat named by ``dump``). States are then loaded through ``game.state_from_json``.
"""

from __future__ import annotations

from typing import Any

from tabletop_gym.envs.rapa_nui.rules import (
    HG,
    MOAI,
    NUM_CARD_TYPES,
    NUM_KINDS,
    PRIEST,
    WOODCUTTER,
    RapaNuiGame,
    RapaNuiState,
    card_totals,
)

W, P, M = WOODCUTTER, PRIEST, MOAI
FISH, GRAIN, MULB, SWEET = HG, HG + 1, HG + 2, HG + 3
"""Card ids of the four H&G kinds."""


def start_hand(seat: int) -> list[int]:
    """Rules §2: seat i holds one H&G of every kind except kind i."""
    return [HG + k for k in range(NUM_KINDS) if k != seat]


def disp(**counts: int) -> list[int]:
    """A display from counts by short name (W, P, M, FISH, GRAIN, MULB, SWEET); W defaults to 1."""
    names = {"W": W, "P": P, "M": M, "FISH": FISH, "GRAIN": GRAIN, "MULB": MULB, "SWEET": SWEET}
    out = [0] * NUM_CARD_TYPES
    out[W] = 1
    for name, c in counts.items():
        out[names[name]] = c
    return out


def position(
    num_players: int = 2,
    *,
    phase: str = "buy",
    active: int = 0,
    decider: int | str | None = "active",
    draws_left: int = 0,
    hands: list[list[int]] | None = None,
    displays: list[list[int]] | None = None,
    wood: list[int] | None = None,
    vp: list[int] | None = None,
    holdings: list[list[int]] | None = None,
    stone_face_up: list[int] | None = None,
    stone_face_down: list[list[int]] | None = None,
    columns: list[list[int] | None] | None = None,
    draw_pile: list[int] | None = None,
    pile_top: list[int] | None = None,
    removed_moai: int = 0,
    moai_units: list[int] | None = None,
    dump: int | None = None,
    supply: list[int] | None = None,
) -> dict[str, Any]:
    """A complete ``"state"`` dict; unspecified parts are the §2 setup values.

    A column given as None is filled with 4 of the cards left over (lowest card ids first);
    ``pile_top`` puts those cards on top of the draw pile made of the remaining cards.
    """
    n = num_players
    hands = hands if hands is not None else [start_hand(p) for p in range(n)]
    displays = displays if displays is not None else [disp() for _ in range(n)]
    holdings = holdings if holdings is not None else [[1, 1, 1, 1] for _ in range(n)]
    stone_face_up = stone_face_up if stone_face_up is not None else [0, 0, 0, 0]
    stone_face_down = stone_face_down if stone_face_down is not None else [[0] * 4] * n
    columns = columns if columns is not None else [[W] * 4, [P] * 4, [M] * 4, [FISH, GRAIN] * 2]
    if supply is None:
        supply = [
            max(
                0,
                25
                - stone_face_up[k]
                - sum(holdings[p][k] + stone_face_down[p][k] for p in range(n)),
            )
            for k in range(NUM_KINDS)
        ]
    left = card_totals(n)
    left[MOAI] -= removed_moai
    for p in range(n):
        for c in hands[p]:
            left[c] -= 1
        for c in range(NUM_CARD_TYPES):
            left[c] -= displays[p][c]
    for col in columns:
        for c in col or []:
            left[c] -= 1
    pool = [c for c in range(NUM_CARD_TYPES) for _ in range(left[c])]
    filled = []
    for col in columns:
        if col is None:
            col, pool = pool[:4], pool[4:]
            for c in col:
                left[c] -= 1
        filled.append(list(col))
    columns = filled
    displays = [list(d) for d in displays]
    if draw_pile is None:
        top = pile_top or []
        for c in top:
            left[c] -= 1
        assert min(left) >= 0, f"more cards named than exist: {left}"
        draw_pile = [*top, *(c for c in range(NUM_CARD_TYPES) for _ in range(left[c]))]
    else:
        for c in draw_pile:
            left[c] -= 1
        if any(left):
            assert dump is not None, f"cards left over {left}: name a seat to dump them on"
            for c in range(NUM_CARD_TYPES):
                displays[dump][c] += left[c]
    return {
        "phase": phase,
        "active": active,
        "decider": active if decider == "active" else decider,
        "draws_left": draws_left,
        "hands": [list(h) for h in hands],
        "displays": displays,
        "wood": list(wood) if wood is not None else [2 + p for p in range(n)],
        "vp": list(vp) if vp is not None else [0] * n,
        "holdings": [list(h) for h in holdings],
        "stone_face_up": list(stone_face_up),
        "stone_face_down": [list(x) for x in stone_face_down],
        "supply": supply,
        "columns": columns,
        "draw_pile": list(draw_pile),
        "removed_moai": removed_moai,
        "moai_units": list(moai_units) if moai_units is not None else [0] * n,
    }


def load(game: RapaNuiGame, state: dict[str, Any]) -> RapaNuiState:
    """Load a ``"state"`` dict through the public JSON entry point."""
    s = game.state_from_json({"schema": 1, "game": "rapa_nui", "state": state})
    assert isinstance(s, RapaNuiState)
    return s


def build(num_players: int = 2, config: dict[str, Any] | None = None, **kw: Any) -> RapaNuiState:
    """``load(RapaNuiGame(num_players, **config), position(num_players, **kw))``."""
    game = RapaNuiGame(num_players=num_players, **(config or {}))
    return load(game, position(num_players, **kw))
