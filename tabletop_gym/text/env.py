"""A PettingZoo-AEC-style env over text: observations are views, actions are move strings.

``observe(agent)`` gives ``{"text": str, "legal_moves": list[str]}`` (the seat's view and its
legal moves, :mod:`tabletop_gym.text.view`); ``step`` takes a move string exactly as listed or its
number in the list (1-based, an int or a string of digits). Anything else raises
:class:`InvalidMoveError` and changes nothing: the same agent is still to act. Before the first
``reset()`` every call says to make it, and after the last dead step ``step`` says that the
game is over (both ``RuntimeError``). The rest follows the AEC env underneath (``agents``,
``agent_selection``, ``rewards``, ``terminations``, ``infos``, ``last()``, the dead step at the
end, ``record()``).

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

import numbers
from typing import Any

from tabletop_gym.registry import game_spec
from tabletop_gym.text.moves import (
    LEGAL,
    is_number,
    list_index,
    numbered,
    parse_move,
    shown,
)
from tabletop_gym.text.view import SeatTracker, TextObservation


class InvalidMoveError(ValueError):
    """A move that is neither a listed move string nor a number of the list (nothing changed)."""


def move_index(move: Any, legal: list[str], agent: str) -> int:
    """The list position (0-based) of ``move``: an exact listed string or its 1-based number.

    A number is an int (numpy's too) or a string of decimal digits (spaces around it ignored);
    another string is classified by :func:`~tabletop_gym.text.moves.parse_move` only for the
    hint, in time linear in its length.

    Raises:
        InvalidMoveError: Naming the move (a long one cut), whose it was and what is allowed.
    """
    k = len(legal)
    if k == 0:
        raise InvalidMoveError(f"{agent} has no move to make now (the game is over: its step "
                               "takes None), so no move names one")
    allowed = f"give one of {legal} exactly or its number ({numbered(k)})"
    if isinstance(move, numbers.Integral) and not isinstance(move, bool):
        if 1 <= int(move) <= k:
            return int(move) - 1
        raise InvalidMoveError(f"move number {move} of {agent} is not in the list; {allowed}")
    if not isinstance(move, str):
        raise InvalidMoveError(f"a move of {agent} must be a move string or its number (an "
                               f"int), got {shown(repr(move))}; {allowed}")
    if is_number(move.strip()):
        at = list_index(move.strip(), k)
        if at is not None:
            return at
        raise InvalidMoveError(f"move number {shown(move.strip(), 12)} of {agent} is not in the "
                               f"list; {allowed}")
    if move in legal:
        return legal.index(move)
    hint = ""
    parsed = parse_move(move, legal)
    if parsed.kind == LEGAL and parsed.index is not None:
        hint = f" (did you mean {legal[parsed.index]!r}?)"
    raise InvalidMoveError(f"{shown(move, quote=True)} is not a legal move of {agent}{hint}; "
                           f"{allowed}")


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

    def _dealt(self) -> Any:
        """The env underneath, once a game is dealt.

        Raises:
            RuntimeError: Before the first ``reset()``, saying to call it.
        """
        if self.env.state_obj is None:
            raise RuntimeError(f"TextEnv({self.game_name!r}) has no game yet: call reset() "
                               "first")
        return self.env

    def _in_play(self) -> Any:
        """The env underneath while an agent is still in the game.

        Raises:
            RuntimeError: Before the first ``reset()``, or once every agent has taken its
                dead step (the game is over).
        """
        env = self._dealt()
        if not env.agents:
            raise RuntimeError("the game is over: every agent has taken its last step; "
                               "call reset() to play again")
        return env

    @property
    def agents(self) -> list[str]:
        """Agents still in the game."""
        return list(self._dealt().agents)

    @property
    def agent_selection(self) -> str:
        """The agent to act."""
        return str(self._dealt().agent_selection)

    @property
    def rewards(self) -> dict[str, float]:
        """Rewards of the last step."""
        return dict(self._dealt().rewards)

    @property
    def terminations(self) -> dict[str, bool]:
        """Which agents are done."""
        return dict(self._dealt().terminations)

    @property
    def truncations(self) -> dict[str, bool]:
        """Truncations (never set: every game ends by its rules)."""
        return dict(self._dealt().truncations)

    @property
    def infos(self) -> dict[str, dict[str, Any]]:
        """The AEC env's infos."""
        return self._dealt().infos  # type: ignore[no-any-return]

    # --- API ----------------------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new game (the AEC env's ``reset``: same seeds, same games)."""
        self.env.reset(seed=seed, options=options)
        self._trackers = {a: SeatTracker() for a in self.possible_agents}

    def view(self, agent: str) -> TextObservation:
        """``agent``'s whole text view (with the action ids of its moves).

        Raises:
            RuntimeError: Before the first ``reset()``.
            KeyError: For an unknown agent.
        """
        env = self._dealt()
        if agent not in self.possible_agents:
            raise KeyError(f"unknown agent {agent!r}; agents: {self.possible_agents}")
        return self._trackers[agent].view(env, agent)

    def observe(self, agent: str) -> dict[str, Any]:
        """``{"text": str, "legal_moves": list[str]}`` of ``agent`` (moves empty unless acting).

        Raises:
            RuntimeError: Before the first ``reset()``.
            KeyError: For an unknown agent.
        """
        view = self.view(agent)
        if self.env.terminations.get(agent, True):
            return {"text": view.text, "legal_moves": []}
        return view.as_dict()

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """``(observation, reward, termination, truncation, info)`` of the agent to act.

        Raises:
            RuntimeError: Before the first ``reset()``, or after every agent's dead step.
        """
        env = self._in_play()
        agent = str(env.agent_selection)
        obs = self.observe(agent) if observe else None
        return (obs, float(env._cumulative_rewards[agent]), env.terminations[agent],
                env.truncations[agent], env.infos[agent])

    def action_of(self, move: Any) -> int:
        """The action id ``move`` stands for (the agent to act's move string or number).

        Raises:
            InvalidMoveError: When it is neither; nothing changes.
            RuntimeError: Before the first ``reset()``, or after every agent's dead step.
        """
        agent = str(self._in_play().agent_selection)
        view = self.view(agent)
        return view.legal_actions[move_index(move, view.legal_moves, agent)]

    def step(self, move: Any) -> None:
        """Play ``move`` for the agent to act (``None`` for a terminated agent's dead step).

        Raises:
            InvalidMoveError: For a move that is neither a listed string nor its number; the
                game is unchanged and the same agent is still to act.
            RuntimeError: Before the first ``reset()``, or after every agent's dead step (the
                game is over).
        """
        env = self._in_play()
        agent = str(env.agent_selection)
        if env.terminations.get(agent) or env.truncations.get(agent):
            env.step(None)
            return
        action = self.action_of(move)
        self._trackers[agent].decided()
        env.step(action)

    def record(self) -> Any:
        """The game record of this episode (``TabletopAECEnv.record``)."""
        return self.env.record()

    def close(self) -> None:
        """Close the env underneath."""
        self.env.close()
