"""What an agent is: the protocols, and the small generic agents.

An agent sees exactly what an RL policy sees: its own observation dict
(``{"observation": float32 vector, "action_mask": int8 vector}``) and nothing else. Bots never
get the engine state, so they cannot cheat.

What else an agent offers is declared by the protocols below, and read in one place,
:func:`capabilities` (no caller looks an attribute up by name):

* :class:`Agent`: ``act(observation_dict) -> int``, the one method every agent has;
* :class:`PartsAgent`: ``act_on(vector, legal)``, the same decision from the dict's parts (the
  ``observation`` vector and the ids its mask sets, ascending); the single-agent env then hands it
  those (the Rapa Nui heuristic);
* :class:`StateAgent`: ``act_in(state, seat)``, a search agent handed the engine state, which it
  determinizes before looking (ISMCTS);
* :class:`TextAgent`: ``act_env(env, agent)``, an agent that writes its own seat's text view from
  the env (a language model);
* :class:`SeedableAgent`: ``seed(seed)``; a named bot is reseeded from the env's generator;
* :class:`BlindToForcedMoves`: ``forced_moves_blind``; exactly ``True`` means a move that is the
  only legal one may be played for it without asking it (or observing it);
* :class:`ResetBySeed`: ``seed_resets``; exactly ``True`` means ``seed(s)`` makes it as good as a
  bot built afresh and seeded with ``s``, so an env may keep one from episode to episode.

An object with only ``act`` (or a plain function, wrapped in :class:`CallableAgent`) has the
default :class:`Capabilities`: it is handed its observation dict at every decision, is never
reseeded, never kept and always asked, even for a forced move. Declare a method or flag on the
class to offer more; the single-agent env reads them once per opponent.

How an agent is named by a spec string (``"heuristic"``, ``"ismcts:200"``, ...) and made from
one is :mod:`tabletop_gym.agents.kinds`'s.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

import numpy as np

from tabletop_gym.core.game import Game, State
from tabletop_gym.core.observer import Observer


@runtime_checkable
class Agent(Protocol):
    """Chooses an action from its own observation."""

    def act(self, observation: dict[str, np.ndarray]) -> int:
        """Return a legal action id (the ``action_mask`` of ``observation`` lists them)."""
        ...


@runtime_checkable
class PartsAgent(Protocol):
    """Also decides from the parts of its observation dict."""

    def act_on(self, vector: np.ndarray, legal: Sequence[int]) -> int:
        """What ``act`` returns for the dict of ``vector`` and the mask of ``legal``.

        Args:
            vector: The seat's ``observation`` vector (one-dimensional, as ``observe`` gives).
            legal: The ids set in its ``action_mask``, ascending (the engine's legal actions).
        """
        ...


@runtime_checkable
class StateAgent(Protocol):
    """Decides from the engine state and its seat (a search agent; it must determinize it)."""

    def act_in(self, state: State, seat: int) -> int:
        """The action of ``seat`` in ``state``, from what that seat may know only."""
        ...


@runtime_checkable
class TextAgent(Protocol):
    """Decides from its seat's text view, which it writes from the env."""

    def act_env(self, env: Any, agent: str) -> int:
        """The action of ``agent`` (the env's agent to act) in the AEC ``env``."""
        ...


@runtime_checkable
class SeedableAgent(Protocol):
    """Has a generator that can be reseeded."""

    def seed(self, seed: int | None) -> None:
        """Reseed the agent's own generator."""
        ...


@runtime_checkable
class BlindToForcedMoves(Protocol):
    """Says whether its forced moves may be played without asking it."""

    forced_moves_blind: bool
    """Exactly ``True``: with one legal action it plays it without reading its observation or
    its generator, so an env may play that move for it."""


@runtime_checkable
class ResetBySeed(Protocol):
    """Says whether a reseed makes it as good as new."""

    seed_resets: bool
    """Exactly ``True``: after ``seed(s)`` it decides as a bot built afresh and seeded with
    ``s`` (its generator is its only state), so an env may keep one and reseed it."""


DecisionInput = Literal["observation", "parts", "state", "text"]
"""What an agent is handed at a decision (:attr:`Capabilities.decides_on`)."""


@dataclasses.dataclass(frozen=True)
class Capabilities:
    """Which optional paths an agent offers; the defaults are those of an object with ``act``.

    Read with :func:`capabilities`, once per agent (not at every move).
    """

    decides_on: DecisionInput = "observation"
    """``"text"`` (:class:`TextAgent`), ``"state"`` (:class:`StateAgent`), ``"parts"``
    (:class:`PartsAgent`) or ``"observation"`` (``act``), the first that the agent offers."""
    seedable: bool = False
    """It is a :class:`SeedableAgent`."""
    forced_moves_blind: bool = False
    """It decides from the parts and declares ``forced_moves_blind`` exactly ``True``."""
    seed_resets: bool = False
    """It is seedable and declares ``seed_resets`` exactly ``True``."""


_BY_CLASS: dict[type, tuple[DecisionInput, bool]] = {}
"""Each agent class seen: its decision input and whether it is seedable. Its methods say both,
and methods are the class's, so they are found once per class."""


def _class_capabilities(cls: type) -> tuple[DecisionInput, bool]:
    found = _BY_CLASS.get(cls)
    if found is None:
        path: DecisionInput = ("text" if issubclass(cls, TextAgent) else
                               "state" if issubclass(cls, StateAgent) else
                               "parts" if issubclass(cls, PartsAgent) else "observation")
        found = _BY_CLASS[cls] = (path, issubclass(cls, SeedableAgent))
    return found


def decides_on(agent: object) -> DecisionInput:
    """What ``agent`` is handed at a decision: the first of text, state and parts it offers."""
    return _class_capabilities(type(agent))[0]


def capabilities(agent: object) -> Capabilities:
    """The :class:`Capabilities` that ``agent`` declares (the defaults for what it does not).

    The flags are read from the agent itself, so an instance may set its own.
    """
    path, seedable = _class_capabilities(type(agent))
    return Capabilities(
        decides_on=path,
        seedable=seedable,
        forced_moves_blind=(path == "parts" and isinstance(agent, BlindToForcedMoves)
                            and agent.forced_moves_blind is True),
        seed_resets=seedable and isinstance(agent, ResetBySeed) and agent.seed_resets is True,
    )


class RandomAgent:
    """Uniformly random among the legal actions of the mask."""

    def __init__(self, rng: np.random.Generator | int | None = None):
        """Use ``rng`` (a Generator or a seed) for every choice."""
        self.rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)

    def act(self, observation: dict[str, np.ndarray]) -> int:
        """A uniformly random legal action."""
        legal = np.flatnonzero(observation["action_mask"])
        if legal.size == 0:
            raise ValueError("no legal action in the mask; this agent is not to act")
        return int(legal[self.rng.integers(legal.size)])

    def seed(self, seed: int | None) -> None:
        """Reseed the agent's generator."""
        self.rng = np.random.default_rng(seed)


class CallableAgent:
    """Adapts a plain function ``f(observation_dict) -> int``."""

    def __init__(self, fn: Callable[[dict[str, np.ndarray]], int]):
        """Wrap ``fn``."""
        self.fn = fn

    def act(self, observation: dict[str, np.ndarray]) -> int:
        """Call the function; its answer goes to the env as is (5.9 is refused, not cut to 5)."""
        return self.fn(observation)


class ModelAgent:
    """Plays a trained Stable-Baselines3 / sb3-contrib model greedily with its action mask.

    The model's observation space decides what it is fed: a ``Box`` model gets the flat
    ``observation`` vector, a ``Dict`` model the whole dict.
    """

    def __init__(self, model: Any, deterministic: bool = True):
        """Wrap a model that has ``predict(obs, action_masks=..., deterministic=...)``."""
        self.model = model
        self.deterministic = deterministic
        space = getattr(model, "observation_space", None)
        self._flat = space is None or not hasattr(space, "spaces")

    def act(self, observation: dict[str, np.ndarray]) -> int:
        """The model's greedy masked action."""
        obs = observation["observation"] if self._flat else observation
        mask = observation["action_mask"].astype(bool)
        try:
            action, _ = self.model.predict(obs, action_masks=mask, deterministic=self.deterministic)
        except TypeError:  # a model without masking support
            action, _ = self.model.predict(obs, deterministic=self.deterministic)
        return int(np.asarray(action).reshape(-1)[0])


def with_hints(obs: np.ndarray, hints: Any, n_actions: int) -> np.ndarray:
    """Observations (one per row) each followed by the one-hot of its hint over ``n_actions``.

    The input of a policy that sees the heuristic's move (``tabletop_gym.agents.ppo.HintedPolicy``);
    a negative hint (no move to hint: the game is over for that seat) leaves its block all 0.
    """
    hints = np.asarray(hints, dtype=np.int64).reshape(-1)
    flat = np.asarray(obs, dtype=np.float32).reshape(len(hints), -1)
    size = flat.shape[1]
    out = np.zeros((len(hints), size + n_actions), dtype=np.float32)
    out[:, :size] = flat
    rows = np.flatnonzero(hints >= 0)
    out[rows, size + hints[rows]] = 1.0
    return out


def hinted_observation(observation: np.ndarray, hint: int | None, n_actions: int) -> np.ndarray:
    """``observation`` followed by the one-hot of ``hint`` over ``n_actions`` (all 0 for None).

    One row of :func:`with_hints`.
    """
    return with_hints(observation, [-1 if hint is None else hint], n_actions)[0]


class HintedModelAgent(ModelAgent):
    """Plays a model whose policy also reads the heuristic's move (a residual policy).

    At each decision the game's heuristic bot chooses from the same observation dict (the seat's
    own view, nothing more), and the model is fed the observation followed by that choice as a
    one-hot block (:func:`hinted_observation`); it then plays its greedy masked action.
    """

    def __init__(self, model: Any, bot: Agent, deterministic: bool = True):
        """Wrap ``model`` with the heuristic ``bot`` that computes its hint."""
        super().__init__(model, deterministic)
        self.bot = bot
        self.n_actions = int(model.action_space.n)
        self.choices = 0
        """Decisions with more than one legal action so far."""
        self.left = 0
        """Those of them where the model played another move than the heuristic's."""

    def act(self, observation: dict[str, np.ndarray]) -> int:
        """The model's greedy masked action given the heuristic's move."""
        hint = int(self.bot.act(observation))
        obs = hinted_observation(observation["observation"], hint, self.n_actions)
        mask = observation["action_mask"].astype(bool)
        action, _ = self.model.predict(obs, action_masks=mask, deterministic=self.deterministic)
        chosen = int(np.asarray(action).reshape(-1)[0])
        if mask.sum() > 1:
            self.choices += 1
            self.left += chosen != hint
        return chosen

    def seed(self, seed: int | None) -> None:
        """Reseed the hint bot's generator (it breaks the heuristic's ties)."""
        self.bot.seed(seed)  # type: ignore[attr-defined]


CHECKPOINTS = Path(__file__).resolve().parent / "checkpoints"
"""The shipped checkpoints, one per game and player count: ``<game>_<players>p.zip``."""


def checkpoint_path(game: Game) -> Path:
    """Where the shipped checkpoint of ``game`` at its player count lies.

    Raises:
        ValueError: When no checkpoint is shipped for it (the message lists those that are).
    """
    return shipped_file(f"{game.name}_{game.num_players}p.zip", "*.zip",
                        f"no trained checkpoint for {game.name} with {game.num_players} "
                        "player(s)")


def shipped_file(name: str, family: str, missing: str, hint: str = "") -> Path:
    """The package's file ``name`` in :data:`CHECKPOINTS`, or an error listing its ``family``.

    Args:
        name: The file's name.
        family: Glob of the files of its kind (the shipped ones the error lists).
        missing: What the error says is missing.
        hint: Appended to the error (e.g. how to make one).

    Raises:
        ValueError: When the file is not shipped.
    """
    path = CHECKPOINTS / name
    if not path.is_file():
        shipped = sorted(p.stem for p in CHECKPOINTS.glob(family))
        raise ValueError(f"{missing}; shipped: {shipped}{hint}")
    return path


def jax_checkpoint_path(game_name: str, num_players: int) -> Path:
    """Where the shipped ``jax-ppo`` policy of a game at a player count lies.

    These are trained from scratch by the ``jax-ppo`` recipe of ``suite train`` (no heuristic
    input, no search labels) and played by numpy alone (:mod:`tabletop_gym.agents.jax_policy`).

    Raises:
        ValueError: When none is shipped for it (the message lists those that are).
    """
    return shipped_file(f"jax_ppo_{game_name}_{num_players}p.npz", "jax_ppo_*.npz",
                        f"no jax-ppo policy for {game_name} with {num_players} player(s)")


def reference_size(observer: Observer) -> int:
    """Length of the reference observer's vector inside ``observer``'s (the batched engine's).

    A turn-based observer (simultaneous bids taken one seat at a time) is the inner game's
    observer followed by the seat's commitment slices; any other observer is the reference one.
    """
    from tabletop_gym.core.turn_based import TurnBasedObserver

    if isinstance(observer, TurnBasedObserver):
        return int(observer.inner.size)
    return int(observer.size)


def game_name(game: Game) -> str:
    """The registry name of ``game`` (through a turn-based transform)."""
    return str(getattr(game, "inner", game).name)


def choose_action(agent: Any, env: Any, name: str) -> int:
    """The action of ``agent`` playing ``name`` in the AEC ``env``.

    An observation agent (a parts agent too) gets its own observation dict; a search agent
    (:class:`StateAgent`, such as :class:`tabletop_gym.agents.ismcts.ISMCTSAgent`) gets the engine
    state and its seat, and re-deals what that seat cannot see before it searches; a text agent
    (:class:`TextAgent`, such as :class:`tabletop_gym.agents.llm.LLMAgent`) gets the env and
    writes its own seat's text view from it (``tabletop_gym.text``), which shows only what that
    seat may know.
    """
    path = decides_on(agent)
    if path == "text":
        return int(agent.act_env(env, name))
    if path == "state":
        return agent.act_in(env.game_state, env.seat_of(name))
    # Passed on unchanged: the env refuses a float such as 5.9 instead of cutting it to 5.
    return agent.act(env.observe(name))
