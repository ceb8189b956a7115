"""Helpers for the Positano rules tests: hand-written positions and random play.

``position(game, ...)`` writes a JSON ``"state"`` object from the few facts a test cares about
and fills in the rest by the conservation rules (hands = the cards not played,
stacks = the tiles nowhere else, general supply = 16 − personal − blocks on the cliff, roofs left
= supply − roofs placed), then the engine loads and validates it.
"""

from __future__ import annotations

import random
from typing import Any

from tabletop_gym.core.game import SIMULTANEOUS
from tabletop_gym.envs.positano import PositanoGame, PositanoState, components as C

GOALS = ["piccolo", "solitario", "eccesso"]


def pos(name: str) -> int:
    """Board position of a lot name such as ``"2C"``."""
    return (int(name[0]) - 1) * 5 + "ABCDE".index(name[1])


def position(
    game: PositanoGame,
    *,
    round: int = 1,
    phase: str = "bid",
    turn: int = 0,
    goals: list[str] | None = None,
    star_sets: list[int] | None = None,
    cards: list[list[int]] | None = None,
    boosters: list[list[int]] | None = None,
    otto_cards: list[int] | None = None,
    otto_boosters: list[int] | None = None,
    lots: list[list[str]] | None = None,
    blocks: list[list[int]] | None = None,
    builds: list[list[int]] | None = None,
    beach_lots: list[str] | None = None,
    beach_blocks: list[int] | None = None,
    beach_builds: list[int] | None = None,
    removed: list[str] | None = None,
    lot_stack: list[str] | None = None,
    block_stack: list[int] | None = None,
    build_stack: list[int] | None = None,
    buildings: dict[str, tuple[int, int, int]] | None = None,
    personal: list[int] | None = None,
) -> dict[str, Any]:
    """A ``"state"`` object; ``buildings`` maps lot name → (owner, height, roof)."""
    nc = game.num_colours
    cards = cards or [[] for _ in range(nc)]
    boosters = boosters or [[] for _ in range(nc)]
    lots = lots or [[] for _ in range(nc)]
    blocks = blocks or [[] for _ in range(nc)]
    builds = builds or [[] for _ in range(nc)]
    buildings = buildings or {}
    personal = personal or [1] * nc
    star_sets = star_sets or list(range(1, nc + 1))
    owner, height, roof = [-1] * 25, [0] * 25, [0] * 25
    for name, (o, h, q) in buildings.items():
        owner[pos(name)], height[pos(name)], roof[pos(name)] = o, h, q
    lot_taken = {pos(n) for x in lots for n in x}
    beach_l = [pos(n) for n in beach_lots or []]
    rem = [pos(n) for n in removed or []]
    if lot_stack is None:
        rest = [p for p in game.positions if p not in lot_taken | set(beach_l) | set(rem)]
    else:
        rest = [pos(n) for n in lot_stack]
    used_blocks = {t for x in blocks for t in x} | set(beach_blocks or [])
    used_builds = {t for x in builds for t in x} | set(beach_builds or [])
    if block_stack is None:
        block_stack = [t for t in range(len(game.block_tiles)) if t not in used_blocks]
    if build_stack is None:
        build_stack = [t for t in range(len(game.build_tiles)) if t not in used_builds]
    colours = []
    for c in range(nc):
        on_cliff = sum(height[p] for p in range(25) if owner[p] == c)
        hand_c = [x for x in range(7) if x not in cards[c]]
        hand_b = [x for x in range(6) if x not in boosters[c]]
        if game.solo and c == 1:
            hand_c = otto_cards if otto_cards is not None else hand_c
            hand_b = otto_boosters if otto_boosters is not None else hand_b
        colours.append(
            {
                "star_set": star_sets[c],
                "hand_cards": hand_c,
                "hand_boosters": hand_b,
                "played_cards": list(cards[c]),
                "played_boosters": list(boosters[c]),
                "lots": [pos(n) for n in lots[c]],
                "block_tiles": list(blocks[c]),
                "build_tiles": list(builds[c]),
                "personal": personal[c],
                "general": C.BLOCKS_PER_COLOUR - personal[c] - on_cliff,
            }
        )
    placed = [sum(1 for q in roof if q == k) for k in (1, 2, 3)]
    return {
        "round": round,
        "phase": phase,
        "turn": turn,
        "goals": list(goals or GOALS),
        "colours": colours,
        "stacks": {"lots": rest, "blocks": block_stack, "builds": build_stack},
        "beach": {"lots": beach_l, "blocks": list(beach_blocks or []), "builds": list(beach_builds or [])},
        "removed_lots": rem,
        "owner": owner,
        "height": height,
        "roof": roof,
        "roofs_left": [game.roof_supply[k] - placed[k] for k in range(3)],
    }


def load(game: PositanoGame, **kwargs: Any) -> PositanoState:
    """Load a hand-written position (see :func:`position`)."""
    doc = {"schema": 1, "game": "positano", "state": position(game, **kwargs)}
    state = game.state_from_json(doc)
    assert isinstance(state, PositanoState)
    return state


def random_step(state: PositanoState, rng: random.Random) -> None:
    """Apply one uniformly random legal decision (a joint one at the simultaneous bid)."""
    if state.current_player() == SIMULTANEOUS:
        n = state.game.num_players
        state.apply_joint_action([rng.choice(state.legal_actions(p)) for p in range(n)])
    else:
        state.apply_action(rng.choice(state.legal_actions()))


def play_random(game: PositanoGame, seed: int, check: bool = False) -> tuple[PositanoState, int]:
    """Play a random game to the end; returns the final state and the number of decisions."""
    rng = random.Random(seed + 1000)
    state = game.new_initial_state(random.Random(seed))
    steps = 0
    while not state.is_terminal():
        if check:
            state.check_invariants()
        random_step(state, rng)
        steps += 1
    if check:
        state.check_invariants()
    return state, steps
