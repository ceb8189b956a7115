"""Positano as PettingZoo AEC and parallel envs: wiring only.

The AEC env runs the engine through the turn-based transform, so the simultaneous bid becomes
sequential turns with hidden commitments; the parallel env runs the engine directly (all players
bid at once; in sequential phases the others send the no-op).
"""

from __future__ import annotations

from typing import Any

from tabletop_gym.core.aec import OrderEnforcing, TabletopAECEnv
from tabletop_gym.core.game import ConfigError, Game
from tabletop_gym.core.observer import Observer
from tabletop_gym.core.parallel import TabletopParallelEnv
from tabletop_gym.core.render import RENDER_MODES
from tabletop_gym.core.turn_based import TurnBasedGame, TurnBasedObserver, TurnBasedState
from tabletop_gym.envs.positano.observer import PositanoObserver
from tabletop_gym.envs.positano.picture import draw_positano, scene_positano
from tabletop_gym.envs.positano.render import describe_events, render_text
from tabletop_gym.envs.positano.rules import PositanoGame

_METADATA = {
    "render_modes": RENDER_MODES,
    "name": "positano_v0",
    "is_parallelizable": False,
    "render_fps": 1,
}


def _render(state: Any, player: int | None) -> str:
    """Render the inner table; during a flattened bid show only the viewer's own commitment."""
    if isinstance(state, TurnBasedState):
        text = render_text(state.inner, player)
        if state.is_bid_round():
            done = [p for p, a in enumerate(state.pending) if a is not None]
            lines = [text, f"Bids committed (hidden): seats {done}"]
            own = None if player is None else state.pending[player]
            if own is not None:
                lines.append(f"Your committed bid: {state.inner.action_to_string(own, player)}")
            return "\n".join(lines)
        return text
    return render_text(state, player)


class raw_env(TabletopAECEnv):
    """Positano for 1–6 players, bids flattened into hidden sequential turns.

    Args:
        split_bids: Enter each bid as two decisions (bid card, then booster) instead of one of
            the 42 (card, booster) pairs (2-6 players; refused in solo).
        **kwargs: ``render_mode``, ``illegal_action`` and the game's config switches.
    """

    metadata = _METADATA
    game_class = PositanoGame
    observer_class = PositanoObserver
    renderer = staticmethod(_render)
    painter = staticmethod(draw_positano)
    scene = staticmethod(scene_positano)
    narrator = staticmethod(describe_events)

    def __init__(self, split_bids: bool = False, **kwargs: Any):
        if not isinstance(split_bids, bool):
            raise ConfigError(f"split_bids must be True or False, got {split_bids!r}")
        self.split_bids = split_bids
        super().__init__(**kwargs)

    def make_game(self, config: dict[str, Any]) -> Game:
        """The engine behind the turn-based transform.

        Raises:
            ConfigError: For ``split_bids=True`` in solo, where there is no simultaneous bid to
                split (the player bids alone, after Otto's bid is revealed).
        """
        game = PositanoGame(config)
        if self.split_bids and game.solo:
            raise ConfigError(
                "split_bids=True splits the simultaneous bid of 2-6 players; in solo the bid "
                "is one sequential decision among the 42 (card, booster) pairs, so use "
                "split_bids=False"
            )
        return TurnBasedGame(game, split=self.split_bids)

    def make_observer(self, game: Game) -> Observer:
        """The Positano observer extended with the seat's own pending bid."""
        assert isinstance(game, TurnBasedGame) and isinstance(game.inner, PositanoGame)
        return TurnBasedObserver(game, PositanoObserver(game.inner))


class raw_parallel_env(TabletopParallelEnv):
    """Positano as a PettingZoo parallel env (all bid at once; others send the no-op 191)."""

    metadata = {**_METADATA, "name": "positano_parallel_v0"}  # noqa: RUF012
    game_class = PositanoGame
    observer_class = PositanoObserver
    renderer = staticmethod(render_text)
    painter = staticmethod(draw_positano)


def env(**kwargs: Any) -> OrderEnforcing:
    """The Positano AEC env with PettingZoo's order enforcement."""
    return OrderEnforcing(raw_env(**kwargs))


def parallel_env(**kwargs: Any) -> raw_parallel_env:
    """The Positano parallel env."""
    return raw_parallel_env(**kwargs)
