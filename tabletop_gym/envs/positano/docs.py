"""The generated tables of Positano's docs page (``docs/envs/positano.md``), made from its code.

``tools/docs_tables.py`` writes each between the page's ``<!-- generated: positano-NAME ... -->``
markers and its test fails when a committed table differs from what the code makes now; the
spec names this mapping (``GameSpec.docs_tables``), so the tool names no game.
"""

from __future__ import annotations

from collections.abc import Callable

from tabletop_gym.core.layout import markdown_table


def shapes() -> str:
    """Observation shapes of the engine observer and the AEC env for every configuration."""
    from tabletop_gym.core.turn_based import TurnBasedGame, TurnBasedObserver
    from tabletop_gym.envs.positano.observer import PositanoObserver
    from tabletop_gym.envs.positano.rules import PositanoGame

    rows = []
    for n, board, label in [(1, 4, "1 (solo)"), (2, 4, "2"), (3, 4, "3"), (4, 4, "4"),
                            (4, 5, "4"), (5, 5, "5"), (6, 5, "6")]:
        game = PositanoGame(num_players=n, board_size=board)
        engine = PositanoObserver(game)
        aec = [TurnBasedObserver(TurnBasedGame(game, split=s), PositanoObserver(game)).size
               for s in (False, True)]
        rows.append([label, f"{board}×{board}", f"`({aec[0]},)`", f"`({aec[1]},)`",
                     f"`({engine.size},)`"])
    return markdown_table(["players", "board", "AEC env", "AEC env, `split_bids=True`",
                           "parallel env (engine observer)"], rows)


def actions() -> str:
    """The action-id ranges, from the engine's action layout."""
    from tabletop_gym.envs.positano.actions import ACTIONS

    return ACTIONS.markdown_table()


def observation() -> str:
    """The engine observer's slices (2 players)."""
    from tabletop_gym.envs.positano.observer import PositanoObserver
    from tabletop_gym.envs.positano.rules import PositanoGame

    return PositanoObserver(PositanoGame(num_players=2)).layout.markdown_table()


def events() -> str:
    """The engine's change events, from its vocabulary."""
    from tabletop_gym.envs.positano.events import EVENTS

    return EVENTS.markdown_table()


TABLES: dict[str, Callable[[], str]] = {
    "shapes": shapes,
    "actions": actions,
    "observation": observation,
    "events": events,
}
"""Each table's name on the page (after ``positano-``) and its generator."""
