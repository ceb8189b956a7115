"""A PettingZoo-AEC-style env over text: observations are views, actions are move strings.

``observe(agent)`` gives ``{"text": str, "legal_moves": list[str]}`` (the seat's view and its
legal moves, :mod:`tabletop_gym.text.view`); ``step`` takes a move string exactly as listed or its
number in the list (1-based, an int or a string of digits). Anything else raises
:class:`InvalidMoveError` and changes nothing: the same agent is still to act. The rest follows
the AEC env underneath (``agents``, ``agent_selection``, ``rewards``, ``terminations``, ``infos``,
``last()``, the dead step at the end, ``record()``).

Example:
    >>> env = TextEnv("rapa_nui", num_players=2)
    >>> env.reset(seed=0)
    >>> moves = env.observe("player_0")["legal_moves"]
    >>> moves
    ['no purchase']
    >>> env.step(1)
    >>> env.agent_selection
    'player_0'
"""

from __future__ import annotations

from typing import Any

from tabletop_gym.registry import game_spec
from tabletop_gym.text.moves import LEGAL, parse_move
from tabletop_gym.text.view import SeatTracker, TextObservation


class InvalidMoveError(ValueError):
    """A move that is neither a listed move string nor a number of the list (nothing changed)."""


def move_index(move: Any, legal: list[str], agent: str) -> int:
    """The list position (0-based) of ``move``: an exact listed string or its 1-based number.

    Raises:
        InvalidMoveError: Naming the move, whose it was and what is allowed.
    """
    k = len(legal)
    number: int | None = None
    if isinstance(move, int) and not isinstance(move, bool):
        number = move
    elif isinstance(move, str) and move.strip().isdigit():
        number = int(move.strip())
    if number is not None:
        if 1 <= number <= k:
            return number - 1
        raise InvalidMoveError(f"move number {number} of {agent} is not in the list; choose "
                               f"1..{k} or one of the move strings {legal}")
    if isinstance(move, str):
        if move in legal:
            return legal.index(move)
        hint = ""
        parsed = parse_move(move, legal)
        if parsed.kind == LEGAL and parsed.index is not None:
            hint = f" (did you mean {legal[parsed.index]!r}?)"
        raise InvalidMoveError(f"{move!r} is not a legal move of {agent}{hint}; give one of "
                               f"{legal} exactly or its number 1..{k}")
    raise InvalidMoveError(f"a move of {agent} must be a move string or its number (an int "
                           f"1..{k}), got {move!r}; the moves are {legal}")


class TextEnv:
    """A game as text, for agents that read and write strings.

    Args:
        game: A registered game name (``"rapa_nui"``, ``"positano"``) or alias.
        **kwargs: ``raw_env`` keywords: the config switches (``num_players``, variants) and env
            options such as Positano's ``split_bids``.
    """

    metadata = {"name": "tabletop_text_v0", "is_parallelizable": False}  # noqa: RUF012

    def __init__(self, game: str, **kwargs: Any):
        spec = game_spec(game)
        self.game_name = spec.name
        self.env = spec.envs().raw_env(**kwargs)
        self.possible_agents = list(self.env.possible_agents)
        self._trackers: dict[str, SeatTracker] = {}

    # --- forwarded state ----------------------------------------------------------------------

    @property
    def agents(self) -> list[str]:
        """Agents still in the game."""
        return list(self.env.agents)

    @property
    def agent_selection(self) -> str:
        """The agent to act."""
        return str(self.env.agent_selection)

    @property
    def rewards(self) -> dict[str, float]:
        """Rewards of the last step."""
        return dict(self.env.rewards)

    @property
    def terminations(self) -> dict[str, bool]:
        """Which agents are done."""
        return dict(self.env.terminations)

    @property
    def truncations(self) -> dict[str, bool]:
        """Truncations (never set: every game ends by its rules)."""
        return dict(self.env.truncations)

    @property
    def infos(self) -> dict[str, dict[str, Any]]:
        """The AEC env's infos."""
        return self.env.infos  # type: ignore[no-any-return]

    # --- API ----------------------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new game (the AEC env's ``reset``: same seeds, same games)."""
        self.env.reset(seed=seed, options=options)
        self._trackers = {a: SeatTracker() for a in self.possible_agents}

    def view(self, agent: str) -> TextObservation:
        """``agent``'s whole text view (with the action ids of its moves).

        Raises:
            KeyError: For an unknown agent.
        """
        if agent not in self.possible_agents:
            raise KeyError(f"unknown agent {agent!r}; agents: {self.possible_agents}")
        return self._trackers[agent].view(self.env, agent)

    def observe(self, agent: str) -> dict[str, Any]:
        """``{"text": str, "legal_moves": list[str]}`` of ``agent`` (moves empty unless acting)."""
        view = self.view(agent)
        if self.env.terminations.get(agent, True):
            return {"text": view.text, "legal_moves": []}
        return view.as_dict()

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """``(observation, reward, termination, truncation, info)`` of the agent to act."""
        agent = self.agent_selection
        obs = self.observe(agent) if observe else None
        return (obs, float(self.env._cumulative_rewards[agent]), self.env.terminations[agent],
                self.env.truncations[agent], self.env.infos[agent])

    def action_of(self, move: Any) -> int:
        """The action id ``move`` stands for (the agent to act's move string or number).

        Raises:
            InvalidMoveError: When it is neither; nothing changes.
        """
        agent = self.agent_selection
        view = self.view(agent)
        return view.legal_actions[move_index(move, view.legal_moves, agent)]

    def step(self, move: Any) -> None:
        """Play ``move`` for the agent to act (``None`` for a terminated agent's dead step).

        Raises:
            InvalidMoveError: For a move that is neither a listed string nor its number; the
                game is unchanged and the same agent is still to act.
        """
        agent = self.agent_selection
        if self.env.terminations.get(agent) or self.env.truncations.get(agent):
            self.env.step(None)
            return
        action = self.action_of(move)
        self._trackers[agent].decided()
        self.env.step(action)

    def record(self) -> Any:
        """The game record of this episode (``TabletopAECEnv.record``)."""
        return self.env.record()

    def close(self) -> None:
        """Close the env underneath."""
        self.env.close()
