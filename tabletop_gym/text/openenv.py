"""The text env as an OpenEnv environment (``openenv-core``, the ``llm`` extra).

OpenEnv serves an :class:`~openenv.core.env_server.interfaces.Environment` over HTTP and
WebSocket (``openenv.core.env_server.http_server.create_app``); a trainer talks to it with the
package's clients (``GenericEnvClient``). One session plays every seat of one game, as the text
env does (self-play; a trainer that plays one seat answers for the others with its bots):

* ``reset(seed=...)`` deals a game (the same seed, the same deal) and returns the view of the
  agent to act;
* ``step(MoveAction(move=...))`` plays a move of the agent to act, written as the text env takes
  it (a listed move string or its number). A move that is not legal changes nothing: the
  observation repeats the view with ``error`` saying why;
* ``reward`` is the reward the acting agent got from its move (the game's reward, at the end),
  and ``metadata["rewards"]`` every agent's; ``done`` is true once the game is over.

Example:
    >>> env = TabletopTextEnvironment("rapa_nui", num_players=2)
    >>> obs = env.reset(seed=0)
    >>> obs.agent, obs.legal_moves
    ('player_0', ['no purchase'])
    >>> env.step(MoveAction(move="no purchase")).agent
    'player_0'
"""

from __future__ import annotations

from typing import Any

from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import Action, Observation, State
from pydantic import Field

from tabletop_gym.text.env import TextEnv


class MoveAction(Action):
    """A move of the agent to act: a listed move string or its number (1-based)."""

    move: str = Field(description="a legal move as listed, or its number in the list")


class TextGameObservation(Observation):
    """The view of the agent to act (or, once the game is over, the last view)."""

    agent: str = Field(default="", description="the agent to act (after the game: the last)")
    text: str = Field(default="", description="that agent's text view")
    legal_moves: list[str] = Field(default_factory=list, description="its legal moves")
    error: str = Field(default="", description="why the last move was refused; '' if played")


class TextGameState(State):
    """Where the session's game stands."""

    game: str = ""
    seed: int | None = None
    actions: list[int] = Field(default_factory=list, description="every action so far")


class TabletopTextEnvironment(Environment[MoveAction, TextGameObservation, TextGameState]):
    """One game of ``game`` (``rapa_nui`` or ``positano``) over text, for OpenEnv.

    Args:
        game: The game's registry name.
        **config: Its config (``num_players``, variants), as the text env takes it.
    """

    SUPPORTS_CONCURRENT_SESSIONS = True  # each session builds its own env

    def __init__(self, game: str | None = None, **config: Any):
        super().__init__()
        if game is None:
            from tabletop_gym.registry import default_game

            game = default_game("text")
        self._env = TextEnv(game, **config)
        self._game = game
        self._seed: int | None = None
        self._episode: str | None = None
        self._steps = 0

    def _observe(self, reward: float | None = None, error: str = "") -> TextGameObservation:
        env = self._env
        raw = env.env
        over = raw.game_state.is_terminal()
        agent = env.agent_selection
        view = env.observe(agent)
        return TextGameObservation(agent=agent, text=view["text"],
                                   legal_moves=list(view["legal_moves"]), error=error,
                                   done=over, reward=reward,
                                   metadata={"rewards": {a: float(r) for a, r in
                                                         env.rewards.items()}})

    def reset(self, seed: int | None = None, episode_id: str | None = None,
              **kwargs: Any) -> TextGameObservation:
        """Deal a game (``seed``: the same seed, the same deal)."""
        self._env.reset(seed=seed)
        self._seed, self._episode, self._steps = seed, episode_id, 0
        return self._observe()

    def step(self, action: MoveAction, timeout_s: float | None = None,
             **kwargs: Any) -> TextGameObservation:
        """Play ``action.move`` for the agent to act; a refused move changes nothing."""
        env = self._env
        if env.env.game_state.is_terminal():
            return self._observe(error="the game is over; reset() deals a new one")
        agent = env.agent_selection
        try:
            env.step(action.move)
        except ValueError as exc:  # InvalidMoveError: nothing changed
            return self._observe(error=str(exc))
        self._steps += 1
        return self._observe(reward=float(env.rewards.get(agent, 0.0)))

    @property
    def state(self) -> TextGameState:
        """The session's game, seed, episode id, steps and actions."""
        return TextGameState(episode_id=self._episode, step_count=self._steps, game=self._game,
                             seed=self._seed, actions=list(self._env.env.episode_actions()))
