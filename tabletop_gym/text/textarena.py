"""The games as TextArena envs, so TextArena's own agents and wrappers play them.

:func:`register_envs` registers the games as TextArena registers its own board games
(``register_with_versions``): ``RapaNui-v0`` and ``Positano-v0`` with TextArena's default wrappers
(``LLMObservationWrapper``: each observation is the player's whole conversation as one string;
``ActionFormattingWrapper``: an answer gets TextArena's ``[...]`` brackets), ``...-v0-train`` with
its board-game training wrappers, and ``...-v0-raw`` with none. TextArena's README loop then runs
as it is written::

    env = ta.make(env_id="RapaNui-v0")
    env.reset(num_players=len(agents))
    done = False
    while not done:
        player_id, observation = env.get_observation()
        action = agents[player_id](observation)
        done, step_info = env.step(action=action)
    rewards, game_info = env.close()

Each player's first message is the game's fixed system prompt (rules summary); before each of
its decisions it gets its text view as the board (``GAME_BOARD``: table, private cards, history
since its last decision and the numbered legal moves). An action is read with the strict parser
(:func:`tabletop_gym.text.moves.parse_move`; TextArena's ``[...]`` brackets around the whole
answer are taken off first, so ``[3]`` and ``[Move: 3]`` read as ``3``). A non-legal action is
TextArena's invalid move: the player is told why and may answer again ``error_allowance`` times;
after that its game ends as a loss (reward -1, the others 0), as TextArena's multi-player games
do. At the end the rewards are the engine's returns under the
config's ``reward_type``, and every player is shown the final scoring.

TextArena player ids are the PettingZoo agents' indices (``player_0`` is id 0); seats follow
the env's seat assignment. TextArena's ``State`` would reseed Python's global ``random`` from a
seed, so it is given none: the seed deals the game through the env's own generator only.
"""

from __future__ import annotations

from typing import Any

import textarena as ta

from tabletop_gym.registry import RegistryView, game_spec, game_specs
from tabletop_gym.text.env import TextEnv
from tabletop_gym.text.moves import LEGAL, other_move_names, parse_move
from tabletop_gym.text.rules import system_prompt

ENV_IDS: RegistryView[str, str] = RegistryView(lambda: {
    spec.benchmark.textarena_id: spec.name for spec in game_specs()
    if spec.benchmark.textarena_id is not None})
"""TextArena ids :func:`register_envs` registers (default wrappers), and their games (each game's
benchmark block's ``textarena_id``)."""

VERSIONS = ("", "-train", "-raw")
"""The suffixes TextArena's ``register_with_versions`` gives: default, training and no wrappers."""


class TabletopTextArenaEnv(ta.Env):
    """A tabletop-gym game behind TextArena's ``Env`` interface.

    Args:
        game: The registered game name.
        error_allowance: Invalid answers a player may give in a row before its game ends.
        **config: Config switches (``num_players`` comes from ``reset``) and env options.
    """

    def __init__(self, game: str, error_allowance: int = 2, **config: Any):
        if "num_players" in config:
            raise ValueError("num_players is given to reset(num_players=...), as in TextArena")
        if not isinstance(error_allowance, int) or error_allowance < 0:
            raise ValueError(f"error_allowance must be a non-negative int, got {error_allowance!r}")
        self.game_name = game_spec(game).name
        self.error_allowance = error_allowance
        self.config = dict(config)
        self.text_env: TextEnv | None = None

    def reset(self, num_players: int, seed: int | None = None) -> None:
        """Deal a game for ``num_players`` (seeded through the env's own generator).

        Raises:
            ConfigError: For a player count the game does not have.
        """
        text_env = TextEnv(self.game_name, num_players=num_players, **self.config)
        text_env.reset(seed=seed)
        self.text_env = text_env
        self.state = ta.FFAMultiPlayerState(num_players=num_players, seed=None,
                                            error_allowance=self.error_allowance)
        prompt = system_prompt(self.game_name)
        self.state.reset(game_state={"game": self.game_name},
                         player_prompt_function=lambda player_id, game_state: prompt)
        self._to_act()

    def _env(self) -> TextEnv:
        if self.text_env is None:
            raise RuntimeError("call reset(num_players=...) first")
        return self.text_env

    def _pid(self, agent: str) -> int:
        return self._env().possible_agents.index(agent)

    def _to_act(self) -> None:
        """Point TextArena at the agent to act and show it its view."""
        env = self._env()
        agent = env.agent_selection
        pid = self._pid(agent)
        self.state.manually_set_current_player_id(pid, force=True)
        self.state.add_observation(env.observe(agent)["text"], ta.ObservationType.GAME_BOARD,
                                   to_id=pid)

    def step(self, action: str) -> tuple[bool, dict[str, Any]]:
        """Play ``action`` (a move number or string) for the current player."""
        env = self._env()
        agent = env.agent_selection
        pid = self._pid(agent)
        self.state.add_observation(action, ta.ObservationType.PLAYER_ACTION, from_id=pid,
                                   to_id=pid)
        view = env.view(agent)
        raw = env.env
        answer = str(action)
        if answer.startswith("[") and answer.endswith("]"):
            answer = answer[1:-1]  # TextArena's brackets (ActionFormattingWrapper adds them)
        parsed = parse_move(
            answer, view.legal_moves,
            lambda: other_move_names(raw.game_state, view.seat, view.legal_actions,
                                     raw.game.num_distinct_actions))
        if parsed.kind != LEGAL or parsed.index is None:
            if self.state.set_invalid_move(reason=f"{parsed.kind}: {parsed.reason}"):
                rewards = {p: 0.0 for p in range(self.state.num_players)}
                rewards[pid] = -1.0
                self.state.set_game_outcome(rewards, f"Player {pid} gave no legal move "
                                                     f"({parsed.reason})")
            else:
                self.state.add_observation(view.text, ta.ObservationType.GAME_BOARD, to_id=pid)
            return self.state.step(rotate_player=False)
        env.step(parsed.index + 1)
        if raw.game_state.is_terminal():
            for a in env.possible_agents:
                self.state.add_observation(env.observe(a)["text"], ta.ObservationType.GAME_BOARD,
                                           to_id=self._pid(a))
            rewards = {self._pid(a): float(raw.rewards[a]) for a in env.possible_agents}
            winners = ", ".join(raw.agent_of(s) for s in raw.game_state.winners())
            self.state.set_game_outcome(rewards, f"game over; winner(s): {winners}")
            return self.state.step(rotate_player=False)
        done, info = self.state.step(rotate_player=False)
        self._to_act()
        return done, info


    def get_board_str(self) -> str:
        """The public table (what every player may see), for TextArena's render wrappers."""
        raw = self._env().env
        return str(type(raw).renderer(raw.game_state, None))


def register_envs() -> list[str]:
    """Register the games with TextArena as it registers its own (idempotent).

    Each id of :data:`ENV_IDS` gets TextArena's default wrappers, ``<id>-train`` its board-game
    training wrappers and ``<id>-raw`` none, by TextArena's own ``register_with_versions``.

    Returns:
        Every id registered, the default ones first.
    """
    from textarena.envs import BOARDGAME_WRAPPERS, DEFAULT_WRAPPERS
    from textarena.envs.registration import ENV_REGISTRY, register_with_versions

    for env_id, game in ENV_IDS.items():
        if env_id not in ENV_REGISTRY:
            register_with_versions(id=env_id, entry_point=TabletopTextArenaEnv,
                                   wrappers={"default": DEFAULT_WRAPPERS,
                                             "-train": BOARDGAME_WRAPPERS}, game=game)
    return [f"{env_id}{suffix}" for suffix in VERSIONS for env_id in ENV_IDS]
