"""Nim as a complete tabletop-gym game: engine, observer, envs and a heuristic bot.

Two players take 1 or 2 stones in turn from one pile; whoever takes the last stone wins. It has
exactly what a game package needs and nothing the registry would have to know about, so the
registry tests can show that adding a game is one new package plus one registration.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import numpy as np

from tabletop_gym.core.aec import OrderEnforcing, TabletopAECEnv
from tabletop_gym.core.game import TERMINAL, Game, GameConfig, State
from tabletop_gym.core.observer import ObservationLayout, Observer
from tabletop_gym.core.parallel import TabletopParallelEnv
from tabletop_gym.core.render import RENDER_MODES

MAX_PILE = 30

OBSERVATIONS = ("count", "one_hot")
"""How the observation gives the pile: ``count``, the number of stones as one entry; ``one_hot``,
one entry per pile size from 0 to :data:`MAX_PILE`, 1 at the stones left (the best move depends
on the pile modulo 3, which a small network reads off a one-hot far more easily than off one
number)."""


@dataclasses.dataclass(frozen=True)
class NimConfig(GameConfig):
    """Nim's switches: the pile size and how the observation gives it (:data:`OBSERVATIONS`)."""

    pile: int = dataclasses.field(default=7, metadata={"range": (1, MAX_PILE)})
    num_players: int = dataclasses.field(default=2, metadata={"range": (2, 2)})
    observation: str = dataclasses.field(default="count", metadata={"choices": OBSERVATIONS})


class NimGame(Game):
    """A pile of stones; take 1 (action 0) or 2 (action 1)."""

    name = "nim"
    config_class = NimConfig
    phases = ("take",)
    config: NimConfig

    @property
    def num_distinct_actions(self) -> int:
        return 2

    @property
    def max_game_length(self) -> int:
        return self.config.pile

    @property
    def score_bounds(self) -> tuple[float, float]:
        return (0.0, 1.0)

    def new_initial_state(self, rng: random.Random) -> NimState:
        return NimState(self, self.config.pile, 0)

    def _state_from_dict(self, data: dict[str, Any]) -> NimState:
        return NimState(self, int(data["pile"]), int(data["turn"]))


class NimState(State):
    """The stones left and whose turn it is."""

    def __init__(self, game: NimGame, pile: int, turn: int):
        self.game = game
        self.pile = pile
        self.turn = turn

    def current_player(self) -> int:
        return TERMINAL if self.pile == 0 else self.turn

    def phase(self) -> str:
        return "take"

    def _legal_actions(self) -> list[int]:
        return [0, 1] if self.pile >= 2 else [0]

    def _apply_action(self, action: int) -> None:
        self.pile -= action + 1
        self.turn = 1 - self.turn

    def action_to_string(self, action: int, player: int | None = None) -> str:
        return f"take {action + 1}"

    def scores(self) -> list[float]:
        # The player who took the last stone is the one who is not to move now.
        if self.pile:
            return [0.0, 0.0]
        return [1.0 if p != self.turn else 0.0 for p in range(2)]

    def score_breakdown(self) -> list[dict[str, Any]]:
        return [{"total": s} for s in self.scores()]

    def winners(self) -> list[int]:
        return [1 - self.turn]

    def clone(self) -> NimState:
        assert isinstance(self.game, NimGame)  # the base class types it as any Game
        return NimState(self.game, self.pile, self.turn)

    def to_dict(self) -> dict[str, Any]:
        return {"pile": self.pile, "turn": self.turn}


def exact_win_rate(pile: int, take: Mapping[int, int] | None = None) -> Fraction:
    """A seat's win rate against uniform moves, seat-rotated, by backward recursion over the pile.

    ``mine[p]``: the seat's chance to win with ``p`` stones and itself to move; ``theirs[p]``:
    the same with the uniform seat to move (each legal move with equal chance). The seat plays
    each seat half the time. Exact, as a fraction.

    Args:
        pile: The starting pile.
        take: How many stones the seat takes facing each pile of 2 or more (from 1 it takes the
            last); None: the better move everywhere, the best response.

    Raises:
        ValueError: For a pile outside 1..MAX_PILE (the game's own range), or a ``take`` that
            lacks a pile or takes other than 1 or 2.
    """
    if type(pile) is not int or not 1 <= pile <= MAX_PILE:
        raise ValueError(f"pile must be an integer from 1 to {MAX_PILE}, got {pile!r}")
    if take is not None and any(take.get(p) not in (1, 2) for p in range(2, pile + 1)):
        raise ValueError(f"take must say 1 or 2 for every pile from 2 to {pile}, got {take!r}")
    # No stones left: whoever just moved took the last one and won.
    mine, theirs = [Fraction(0)], [Fraction(1)]
    for p in range(1, pile + 1):
        takes = [k for k in (1, 2) if k <= p]
        mine.append(max(theirs[p - k] for k in takes) if take is None or p == 1
                    else theirs[p - take[p]])
        theirs.append(sum((mine[p - k] for k in takes), Fraction(0)) / len(takes))
    return (mine[pile] + theirs[pile]) / 2


def exact_br_win_rate(pile: int) -> Fraction:
    """The best response's win rate against uniform moves, seat-rotated (:func:`exact_win_rate`)."""
    return exact_win_rate(pile)


class NimObserver(Observer):
    """The pile (as the config's ``observation`` says) and whether it is this seat's turn."""

    def __init__(self, game: Game):
        super().__init__(game)
        assert isinstance(game.config, NimConfig)
        self.one_hot = game.config.observation == "one_hot"
        self.layout = ObservationLayout([
            ("pile", MAX_PILE + 1, 0, 1, "1 at the stones left (0 to 30)") if self.one_hot
            else ("pile", 1, 0, MAX_PILE, "stones left"),
            ("own_turn", 1, 0, 1, "1 when this seat is to move"),
        ])

    def _fill(self, state: State, player: int, out: np.ndarray) -> None:
        assert isinstance(state, NimState)
        if self.one_hot:
            out[state.pile] = 1.0
        else:
            out[0] = state.pile
        out[-1] = float(state.current_player() == player)


def observed_pile(pile_entries: np.ndarray) -> int:
    """The stones left, from the observation's ``pile`` entries in either encoding."""
    return int(pile_entries[0]) if pile_entries.size == 1 else int(np.argmax(pile_entries))


class NimHeuristic:
    """Leaves a multiple of 3 stones whenever it can (the winning strategy)."""

    name = "heuristic"

    def __init__(self, game: Game, observer: Observer, rng: Any = None):
        self.view = observer.layout.view

    def act(self, observation: dict[str, np.ndarray]) -> int:
        pile = observed_pile(self.view(observation["observation"])["pile"])
        legal = np.flatnonzero(observation["action_mask"]).tolist()
        for a in legal:
            if (pile - a - 1) % 3 == 0:
                return int(a)
        return int(legal[0])


def _render(state: State, player: int | None) -> str:
    assert isinstance(state, NimState)
    return f"{state.pile} stones"


def _draw(state: State, player: int | None) -> np.ndarray:
    return np.zeros((8, 8, 3), dtype=np.uint8)


_METADATA = {"render_modes": RENDER_MODES, "name": "nim_v0", "is_parallelizable": False,
             "render_fps": 1}


class raw_env(TabletopAECEnv):
    """Nim as a PettingZoo AEC env."""

    metadata = _METADATA
    game_class = NimGame
    observer_class = NimObserver
    renderer = staticmethod(_render)
    painter = staticmethod(_draw)


class raw_parallel_env(TabletopParallelEnv):
    """Nim as a PettingZoo parallel env."""

    metadata = {**_METADATA, "name": "nim_parallel_v0"}  # noqa: RUF012
    game_class = NimGame
    observer_class = NimObserver
    renderer = staticmethod(_render)
    painter = staticmethod(_draw)


def env(**kwargs: Any) -> OrderEnforcing:
    return OrderEnforcing(raw_env(**kwargs))


def parallel_env(**kwargs: Any) -> raw_parallel_env:
    return raw_parallel_env(**kwargs)


def single_agent(**kwargs: Any) -> Any:
    from tabletop_gym.wrappers.single_agent import make_registered

    return make_registered("nim", **kwargs)
