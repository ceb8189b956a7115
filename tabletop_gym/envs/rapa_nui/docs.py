"""The generated tables of Rapa Nui's docs page (``docs/envs/rapa_nui.md``), made from its code.

``tools/docs_tables.py`` writes each between the page's ``<!-- generated: rapa_nui-NAME ... -->``
markers and its test fails when a committed table differs from what the code makes now; the
spec names this mapping (``GameSpec.docs_tables``), so the tool names no game.
"""

from __future__ import annotations

from collections.abc import Callable

from tabletop_gym.core.layout import markdown_table


def cards() -> str:
    """Card ids with the counts of the deck and the start cards."""
    from tabletop_gym.envs.rapa_nui import rules as r

    rows = []
    for card, (name, count) in enumerate(zip(r.CARD_NAMES, r.DECK_COUNTS, strict=True)):
        if card == r.WOODCUTTER:
            extra = f"{count} + 1 start card per seat"
        elif card >= r.HG:
            extra = f"{count} + 1 per seat other than seat {card - r.HG}"
        else:
            extra = str(count)
        rows.append([str(card), name, extra])
    return markdown_table(["id", "card", "count"], rows)


def actions() -> str:
    """One row per action id, from the id constants of the engine."""
    from tabletop_gym.envs.rapa_nui import rules as r

    rows: list[list[str]] = []
    for k, kind in enumerate(r.KIND_NAMES):
        rows.append([str(r.BUY + k), f"`BUY + {k}`", "buy",
                     f"buy one {kind} offering card (cost max(0, {r.BUY_BASE_COST} − own {kind} "
                     "H&G in the display))"])
    rows.append([str(r.NO_BUY), "`NO_BUY`", "buy", "make no purchase"])
    rows.append([str(r.PLAY_WOODCUTTER), "`PLAY_WOODCUTTER`", "play", "play a Woodcutter (free)"])
    rows.append([str(r.PLAY_PRIEST), "`PLAY_PRIEST`", "play", "play a Priest (free)"])
    rows.append([str(r.PLAY_MOAI), "`PLAY_MOAI`", "play",
                 f"build a Moai ({r.MOAI_COST} wood); starts an offering round"])
    for k, kind in enumerate(r.KIND_NAMES):
        for c in (1, 2, 3):
            i = 3 * k + c - 1
            rows.append([str(r.PLAY_HG + i), f"`PLAY_HG + {i}`", "play",
                         f"play {c} H&G {kind} ({c - 1} wood)"])
    rows.append([str(r.REMOVE_MOAI), "`REMOVE_MOAI`", "play",
                 "remove a Moai from the game (hand of three Moai)"])
    for c in range(r.NUM_COLUMNS):
        rows.append([str(r.DRAW + c), f"`DRAW + {c}`", "draw",
                     f"take the front card of column {c + 1}"])
    for k, kind in enumerate(r.KIND_NAMES):
        rows.append([str(r.OFFER + k), f"`OFFER + {k}`", "offer",
                     f"place an own {kind} offering card (face up; face down when the active "
                     "player places it)"])
    for k, kind in enumerate(r.KIND_NAMES):
        rows.append([str(r.SUPPLY + k), f"`SUPPLY + {k}`", "supply_offer",
                     f"place a {kind} card from the supply face up"])
    rows.append([str(r.SUPPLY_SKIP), "`SUPPLY_SKIP`", "supply_offer",
                 "no supply card (only with active_supply_offering_optional)"])
    for v in range(r.MAX_MOAI_UNITS + 1):
        rows.append([str(r.MOAI_VP + v), f"`MOAI_VP + {v}`", "moai_split",
                     f"take {v} of the Moai units as VP, the rest as wood"])
    assert [int(row[0]) for row in rows] == list(range(r.NUM_ACTIONS))
    return markdown_table(["id", "constant", "phase", "meaning"], rows)


def observation() -> str:
    """The observation slices (2 players, default switches)."""
    from tabletop_gym.envs.rapa_nui.observer import observation_layout

    return observation_layout().markdown_table()


def events() -> str:
    """The engine's change events, from its vocabulary."""
    from tabletop_gym.envs.rapa_nui.events import EVENTS

    return EVENTS.markdown_table()


TABLES: dict[str, Callable[[], str]] = {
    "cards": cards,
    "actions": actions,
    "observation": observation,
    "events": events,
}
"""Each table's name on the page (after ``rapa_nui-``) and its generator."""
