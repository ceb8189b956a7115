"""The one PettingZoo AEC adapter that every engine + observer plugs into.

A game's ``env.py`` subclasses :class:`TabletopAECEnv` and sets four class attributes (the game
class, the observer class, the text renderer and the metadata); everything PettingZoo expects is
here, written once:

* agents ``player_0 … player_{n-1}``, fixed per instance; an optional seat permutation is a reset
  option (``options={"seat_permutation": "random" | [seat of player_0, ...]}``);
* observations ``{"observation": float32 Box, "action_mask": int8 Box}``; the mask is all zeros for
  agents not to act and is repeated in ``info["action_mask"]`` with ``info["is_acting"]``;
* ``info_mode="full"`` (default: the mask, the phase name, and ``scores``/``score_breakdown``/
  ``winners`` added at the end) or ``"stable"`` (the same keys, types and shapes at every step, see
  :func:`stable_infos`), for libraries that build their specs from the first ``info``;
* ``state()`` with its ``state_space`` (every seat's observation, for centralised critics);
* terminal rewards from ``State.returns()`` (``reward_type`` of the config), correct
  ``_cumulative_rewards`` and the dead step: at the end every agent is terminated together and
  receives its final reward through ``last()``; ``info["scores"]``/``["score_breakdown"]``/
  ``["winners"]`` carry the result;
* illegal actions (docs/design.md): ``illegal_action="terminate"`` (default, the PettingZoo classic
  convention: the offender gets -1, the others 0, the game ends, a warning and ``info`` say which
  action and why) or ``"raise"`` (re-raise the engine's :class:`IllegalActionError`); an action
  outside the action space is always a ``ValueError``;
* ``render_mode="ansi"`` (text), ``"rgb_array"`` (the drawn table, one frame size per
  configuration) and ``"human"`` (the same picture in a pygame window); ``render_view`` chooses
  whose view: ``"public"`` (default for pictures), a seat, or ``"acting"`` (default for text);
* ``copy.deepcopy`` and ``pickle`` keep the game (plain ``__dict__`` state, no constructor replay);
* :meth:`record` returns the game record (config + engine seed + actions) that replays exactly;
* bad input (an unknown keyword or reset option, an action outside the space, a malformed state)
  raises a clear error before anything changes, and the acting agent's ``info["action_mask"]`` is
  read-only (``observe()`` hands out a copy), see ``docs/reliability.md``.

Privileged channels (for centralised critics and debugging; reading them while playing is
cheating): :attr:`TabletopAECEnv.game_state`, :meth:`TabletopAECEnv.state` (every seat's
observation, so every hand and, in Positano, every committed bid), :meth:`TabletopAECEnv.record`
mid-game (the engine seed fixes every deck order) and, after an illegal action, every agent's
``info["illegal_action"]["legal_actions"]`` (the offender's legal set).
"""

from __future__ import annotations

import inspect
import random
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import OrderEnforcingWrapper
from pettingzoo.utils.wrappers.order_enforcing import (
    AECOrderEnforcingIterable,
    AECOrderEnforcingIterator,
)

from tabletop_gym.core.draw import Scene
from tabletop_gym.core.game import (
    SIMULTANEOUS,
    TERMINAL,
    Game,
    IllegalActionError,
    State,
    StateFormatError,
    as_int,
    check_names,
    shown,
)
from tabletop_gym.core.observer import Observer
from tabletop_gym.core.records import GameRecord
from tabletop_gym.core.render import (
    RENDER_MODES,
    HumanWindow,
    check_render_view,
    render_frame,
    view_seat,
)
from tabletop_gym.provenance import metadata

ILLEGAL_ACTION_POLICIES = ("terminate", "raise")
ILLEGAL_REWARD = -1.0
INFO_MODES = ("full", "stable")
MASK_CACHE_SIZE = 4096
"""Distinct legal sets whose read-only masks an env keeps (a bound on its memory)."""


def check_env_args(
    metadata: dict[str, Any], render_mode: str | None, illegal_action: str,
    info_mode: str = "full",
) -> None:
    """Reject a render mode, an illegal-action policy or an info mode the env does not offer.

    Raises:
        ValueError: Naming the value and what is allowed.
    """
    if render_mode is not None and render_mode not in metadata["render_modes"]:
        raise ValueError(
            f"render_mode={render_mode!r} is not supported; choose one of "
            f"{metadata['render_modes']} or None"
        )
    if illegal_action not in ILLEGAL_ACTION_POLICIES:
        raise ValueError(
            f"illegal_action={illegal_action!r} is not allowed; choose one of "
            f"{ILLEGAL_ACTION_POLICIES}"
        )
    if info_mode not in INFO_MODES:
        raise ValueError(f"info_mode={info_mode!r} is not allowed; choose one of {INFO_MODES}")


def as_action(action: Any, num_actions: int, who: str) -> int:
    """``action`` as an int id of ``Discrete(num_actions)``, the one check every env uses.

    Accepted: Python ints, numpy integers and integer arrays with one element (``np.array(4)``,
    ``np.array([4])``: what ``model.predict`` returns). Refused: bools, floats (even integral
    ones), strings, ``None`` and ids outside ``0..num_actions - 1``.

    Raises:
        ValueError: Naming the action, whose it was and what is allowed.
    """
    if type(action) is int and 0 <= action < num_actions:
        return action  # the common case (a Python int in range), on every env step
    value = action
    if isinstance(action, np.ndarray) and action.ndim > 0 and action.size == 1:
        value = action.reshape(())
    a = as_int(value)
    if a is None or not 0 <= a < num_actions:
        raise ValueError(
            f"action {action!r} of {who} is outside the action space Discrete({num_actions}); "
            f"give an integer in 0..{num_actions - 1} (a Python or numpy int, or an integer "
            "array with one element)"
        )
    return a


def as_seed(seed: Any) -> int | None:
    """``seed`` as a Python int (numpy integers accepted) or ``None``.

    Raises:
        ValueError: On a bool, a float, a negative number or anything else.
    """
    if seed is None:
        return None
    value = as_int(seed)
    if value is None or value < 0:
        raise ValueError(f"seed must be None or a non-negative integer, got {seed!r}")
    return value


def env_argument_names(env_class: type) -> list[str]:
    """Every keyword an env class accepts: its own ``__init__`` arguments and the game's config."""
    names: list[str] = []
    for klass in env_class.__mro__:
        init = klass.__dict__.get("__init__")
        if init is None or not klass.__module__.startswith("tabletop_gym"):
            continue
        for param in inspect.signature(init).parameters.values():
            keyword = param.kind in (param.POSITIONAL_OR_KEYWORD, param.KEYWORD_ONLY)
            if keyword and param.name != "self" and param.name not in names:
                names.append(param.name)
    game_class = getattr(env_class, "game_class", None)
    if game_class is not None:
        names += [f for f in game_class.config_class.__dataclass_fields__ if f not in names]
    return names


def reset_options(
    game: Game, options: Any, allowed: tuple[str, ...] = ("seat_permutation", "state")
) -> dict[str, Any]:
    """Check ``reset()`` options before anything changes; return them with the state loaded.

    ``"state"`` may be a :class:`State` of ``game`` (or of the game a turn-based ``game``
    wraps), a JSON text or a dict in the schema of ``State.to_json``; it comes back as a fresh
    state of ``game``. ``"seat_permutation"`` is ``"random"`` or one engine seat per agent
    (ints, numpy ints or an integer array).

    Raises:
        TypeError: When ``options`` is not a dict, or names an unknown option.
        ValueError: On a seat permutation that is not one.
        StateFormatError: On a state that is malformed or belongs to another game or config.
    """
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise TypeError(f"reset options must be a dict, got {options!r}")
    out = dict(options)
    if "options" in out and "options" not in allowed:
        # PettingZoo's api_test and parallel_api_test pass {"options": 1} only to check that
        # reset() takes the argument; anything else unknown is an error.
        warnings.warn("reset option 'options' is not an option of this env; ignored",
                      stacklevel=3)
        del out["options"]
    check_names(out, allowed, "reset()", kind="reset option")
    perm = out.get("seat_permutation")
    if perm is not None and not (isinstance(perm, str) and perm == "random"):
        n = game.num_players
        seats = [as_int(s) for s in perm] if isinstance(perm, list | tuple | np.ndarray) else None
        if seats is None or None in seats or sorted(seats) != list(range(n)):  # type: ignore[type-var]
            raise ValueError(
                f"seat_permutation must be a permutation of the seats 0..{n - 1} (one int per "
                f"agent) or 'random', got {shown(perm)}"
            )
        out["seat_permutation"] = seats
    if out.get("state") is not None:
        out["state"] = _given_state(game, out["state"])
    return out


def _given_state(game: Game, given: Any) -> State:
    """A fresh state of ``game`` from a State, JSON text or dict (see :func:`reset_options`)."""
    if isinstance(given, State):
        if given.game == game:
            return given.clone()
        if given.game == getattr(game, "inner", None) and hasattr(game, "wrap"):
            wrapped: State = game.wrap(given.clone())
            return wrapped
        raise StateFormatError(
            f"options['state'] belongs to {given.game!r}, not to this env's game {game!r} "
            "(another game or config)"
        )
    return game.state_from_json(given)


def observation_space(observer: Observer, num_actions: int) -> spaces.Dict:
    """``{"observation": Box from the observer's layout and dtype, "action_mask": int8 Box}``."""
    layout = observer.layout
    return spaces.Dict(
        {
            "observation": spaces.Box(layout.low, layout.high, dtype=observer.dtype),
            "action_mask": spaces.Box(0, 1, (num_actions,), dtype=np.int8),
        }
    )


def state_space(observer: Observer) -> spaces.Box:
    """The Box of ``state()``: every seat's observation bounds, in seat order."""
    n = observer.game.num_players
    layout = observer.layout
    return spaces.Box(np.tile(layout.low, n), np.tile(layout.high, n), dtype=observer.dtype)


class StableInfos:
    """Builds the ``info_mode="stable"`` infos: the same keys, types and shapes at every step.

    Every agent's info is ``{"is_acting": bool, "phase": int (index in game.phases),
    "game_over": bool, "scores": float32[num_agents], "winners": int8[num_agents],
    "illegal_action": int}``. ``scores`` and ``winners`` are indexed like ``possible_agents``
    and stay zero until the game ends; ``illegal_action`` is -1 unless this agent's action ended
    the game as illegal. The action mask is in the observation only.

    Args:
        game: The env's game (for its phase names and number of players).
    """

    ROWS = 1024
    """Rows of zeros allocated at once: one row per call, never handed out twice."""

    def __init__(self, game: Game):
        self.phase_index = {name: i for i, name in enumerate(game.phases)}
        self.num_players = game.num_players
        self._next = self.ROWS

    def _zeros(self) -> tuple[np.ndarray, np.ndarray]:
        """Read-only all-zero ``scores`` and ``winners`` that no earlier call handed out.

        The agents of one call share them (they cannot be written); two calls never do, so the
        infos of two steps share no object (Gymnasium's passive checker warns about any shared
        array, read-only or not). Each call takes the next row of a read-only block allocated
        :attr:`ROWS` calls at a time, a view that costs a fifth of two new arrays.
        """
        k = self._next
        if k == self.ROWS:
            self._scores = np.zeros((self.ROWS, self.num_players), dtype=np.float32)
            self._winners = np.zeros((self.ROWS, self.num_players), dtype=np.int8)
            self._scores.flags.writeable = False
            self._winners.flags.writeable = False
            k = 0
        self._next = k + 1
        return self._scores[k], self._winners[k]

    def running(self, agents: list[str], acting: set[str], phase: str) -> dict[str, dict[str, Any]]:
        """Infos while the game runs."""
        ph = self.phase_index[phase]
        scores, winners = self._zeros()
        return {a: {"is_acting": a in acting, "phase": ph, "game_over": False,
                    "scores": scores, "winners": winners,
                    "illegal_action": -1} for a in agents}

    def final(
        self, agents: list[str], phase: str, scores: list[float], winners: list[int]
    ) -> dict[str, dict[str, Any]]:
        """Infos at the end: ``scores[i]``/``winners[i]`` of agent ``possible_agents[i]``."""
        sc = np.asarray(scores, dtype=np.float32)
        won = np.zeros(len(scores), dtype=np.int8)
        won[list(winners)] = 1
        ph = self.phase_index[phase]
        return {a: {"is_acting": False, "phase": ph, "game_over": True, "scores": sc,
                    "winners": won, "illegal_action": -1} for a in agents}

    def illegal(
        self, agents: list[str], phase: str, offender: str, action: int
    ) -> dict[str, dict[str, Any]]:
        """Infos when ``offender``'s illegal ``action`` ended the game."""
        ph = self.phase_index[phase]
        scores, winners = self._zeros()
        return {a: {"is_acting": False, "phase": ph, "game_over": True,
                    "scores": scores, "winners": winners,
                    "illegal_action": action if a == offender else -1} for a in agents}


def terminal_infos(
    state: State,
    agents: list[str],
    seat_of: Mapping[str, int],
    seat_agent: Sequence[str],
    possible_agents: Sequence[str],
    stable: StableInfos | None,
) -> dict[str, dict[str, Any]]:
    """What every agent's info says about the finished game, for the AEC and the parallel env.

    With ``info_mode="full"`` (``stable`` None): ``scores`` (every agent's final score, by agent
    name), the agent's own ``score_breakdown`` and ``winners`` (the winning agents' names); each
    env puts these after the keys it keeps all game long. With ``info_mode="stable"``: the whole
    infos of :meth:`StableInfos.final`, scores and winners indexed like ``possible_agents``.

    Args:
        state: The terminal state.
        agents: The agents to give an info (the env's live agents).
        seat_of: Each agent's seat.
        seat_agent: The agent of each seat.
        possible_agents: The env's agents in their fixed order.
        stable: The env's stable-info builder, or None for the full infos.
    """
    scores = state.scores()
    if stable is not None:
        return stable.final(agents, state.phase(), [scores[seat_of[a]] for a in possible_agents],
                            [possible_agents.index(seat_agent[s]) for s in state.winners()])
    breakdown = state.score_breakdown()
    winners = [seat_agent[s] for s in state.winners()]
    # Every agent gets its own scores dict: a caller changing one info changes no other.
    return {a: {"scores": {seat_agent[s]: float(v) for s, v in enumerate(scores)},
                "score_breakdown": breakdown[seat_of[a]], "winners": winners} for a in agents}


def illegal_detail(agent: str, err: IllegalActionError) -> dict[str, Any]:
    """``info["illegal_action"]`` (``info_mode="full"``) when ``agent``'s action ended the game."""
    return {"agent": agent, "action": err.action, "phase": err.phase,
            "legal_actions": err.legal, "message": str(err)}


class TabletopEnvBase:
    """What the AEC and parallel envs share.

    Their construction (:meth:`_set_up`), the cached spaces, ``render``, ``state``, ``close``
    and the engine state.
    """

    metadata: ClassVar[dict[str, Any]]
    renderer: Callable[[State, int | None], str]
    painter: Callable[[State, int | None], np.ndarray]
    observation_spaces: dict[str, spaces.Space[Any]]
    action_spaces: dict[str, spaces.Space[Any]]

    def _set_up(
        self,
        config: dict[str, Any],
        make_game: Callable[[dict[str, Any]], Game],
        make_observer: Callable[[Game], Observer],
        render_mode: str | None,
        illegal_action: str,
        render_view: str | int | None,
        info_mode: str,
        obs_dtype: str,
    ) -> None:
        """Check the env's arguments, then build its game, observer and the settings both read.

        Raises:
            UnknownArgumentError: A ``TypeError`` naming an unknown config switch.
            ValueError: On a render mode, illegal-action policy, info mode, render view or
                observation dtype the env does not offer.
        """
        check_names(config, env_argument_names(type(self)), type(self).__name__)
        check_env_args(self.metadata, render_mode, illegal_action, info_mode)
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.info_mode = info_mode
        self.game = make_game(config)
        check_render_view(render_view, self.game.num_players, ("acting",))
        self.render_view = render_view
        self._window = HumanWindow(self.metadata["name"]) if render_mode == "human" else None
        self.observer = make_observer(self.game)
        self.observer.set_dtype(obs_dtype)
        self.obs_dtype = self.observer.dtype.name
        self.state_space = state_space(self.observer)
        self._stable = StableInfos(self.game) if info_mode == "stable" else None
        self.possible_agents = [f"player_{i}" for i in range(self.game.num_players)]
        self.agents: list[str] = []
        self.state_obj: State | None = None
        self._engine_seed: int | None = None
        self._masks: dict[tuple[int, ...], np.ndarray] = {}

    def _new_mask(self, legal: tuple[int, ...], size: int) -> np.ndarray:
        """The read-only mask of ``legal`` over ``size`` actions, kept for the next time.

        The envs look a legal set up in ``_masks`` first and call this on a miss: one array
        serves every position with the same legal set (the AEC env hands it out read-only, the
        parallel env a copy), so no caller can make an illegal action look legal.
        """
        mask = np.zeros(size, dtype=np.int8)
        mask[list(legal)] = 1
        mask.setflags(write=False)
        if len(self._masks) < MASK_CACHE_SIZE:
            self._masks[legal] = mask
        return mask

    def _seeded_record(self, **fields: Any) -> GameRecord:
        """This episode's :class:`GameRecord`: game, config, engine seed, env and ``fields``.

        Raises:
            RuntimeError: Before the first reset.
            ValueError: When the episode started from a given state (it has no seed).
        """
        self._require_state()
        if self._engine_seed is None:
            raise ValueError("this episode started from a given state; it has no seed to record")
        return GameRecord(game=self.game.name, config=self.game.config.to_dict(),
                          seed=self._engine_seed, env_id=self.metadata["name"],
                          provenance=metadata(), **fields)

    def __getstate__(self) -> dict[str, Any]:
        # A pickle or deep copy carries the game, not the cache of masks per legal set.
        state = self.__dict__.copy()
        state["_masks"] = {}
        return state

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The cached observation space of ``agent``."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """The cached action space of ``agent``."""
        return self.action_spaces[agent]

    def _require_state(self) -> State:
        """The engine state, or a clear error before the first reset (survives ``python -O``)."""
        state = self.state_obj
        if state is None:
            raise RuntimeError(f"{type(self).__name__} has no game yet: call reset() first")
        return state

    def render(self) -> str | np.ndarray | None:
        """The table in ``render_view``: text, the picture, or a window (``human``: None).

        The view ``"acting"`` is the seat to act at a sequential node, public at a simultaneous
        one or at the end.
        """
        if self.render_mode is None:
            warnings.warn("render() called with render_mode=None; nothing to render", stacklevel=2)
            return None
        state = self._require_state()
        cur = state.current_player()
        seat = view_seat(self.render_view, self.render_mode, cur if cur >= 0 else None)
        cls = type(self)
        return render_frame(cls.renderer, cls.painter, state, seat, self.render_mode, self._window)

    def state(self) -> np.ndarray:
        """Global view for centralised critics: every seat's observation, seat order.

        Privileged: it holds every seat's private information (hands, Positano's committed
        bids); a policy that reads it while playing cheats.
        """
        return self.observer.encode_all(self._require_state())

    def close(self) -> None:
        """Close the ``human`` window, if one is open."""
        window = getattr(self, "_window", None)
        if window is not None:
            window.close()

    @property
    def game_state(self) -> State:
        """The engine state (the full state, hidden parts included: reading it is cheating)."""
        return self._require_state()


class TabletopAECEnv(TabletopEnvBase, AECEnv):
    """A PettingZoo AEC env over any engine (:class:`Game`) and :class:`Observer`.

    Subclasses set :attr:`game_class`, :attr:`observer_class`, :attr:`renderer` (text),
    :attr:`painter` (picture) and :attr:`metadata`; games with simultaneous nodes also set
    :attr:`make_game` to apply the turn-based transform (see ``tabletop_gym.core.turn_based``).

    Args:
        render_mode: ``None``, ``"ansi"``, ``"rgb_array"`` or ``"human"``.
        illegal_action: ``"terminate"`` or ``"raise"``.
        render_view: Whose view :meth:`render` shows: ``"public"`` (a spectator; the default
            for ``rgb_array`` and ``human``), a seat number, or ``"acting"`` (the seat to act;
            the default for ``ansi``).
        info_mode: ``"full"`` or ``"stable"`` (fixed keys, types and shapes; see
            :class:`StableInfos`).
        obs_dtype: dtype of the observation vector: ``"float32"`` (default) or an unsigned
            integer dtype that holds every value of the layout (Positano: ``"uint8"`` or
            ``"uint16"``; Rapa Nui: ``"uint16"``); the observation space follows it.
        **config: The game's config switches (``num_players``, ``reward_type``, variants).
    """

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": RENDER_MODES,
        "name": "tabletop",
        "is_parallelizable": False,
        "render_fps": 1,
    }
    game_class: ClassVar[type[Game]]
    observer_class: ClassVar[type[Observer]]
    renderer: Callable[[State, int | None], str]
    painter: Callable[[State, int | None], np.ndarray]
    scene: Callable[[State, int | None], Scene]
    """The picture as shapes (``painter`` draws the same scene as a frame; the web app as SVG)."""
    narrator: Callable[[State, int, State], list[str]] = staticmethod(
        lambda before, action, after: []
    )
    """``narrator(before, action, after)``: public lines on what an action revealed."""
    _np_random_gen: np.random.Generator
    """The env's random stream (absent until the first reset)."""

    def __init__(
        self,
        render_mode: str | None = None,
        illegal_action: str = "terminate",
        render_view: str | int | None = None,
        info_mode: str = "full",
        obs_dtype: str = "float32",
        **config: Any,
    ):
        super().__init__()
        self._set_up(config, self.make_game, self.make_observer, render_mode, illegal_action,
                     render_view, info_mode, obs_dtype)
        n = self.game.num_players
        self._num_actions = self.game.num_distinct_actions
        obs_space = observation_space(self.observer, self._num_actions)
        # One object per agent, returned every call: PettingZoo's seed test seeds these.
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self._num_actions) for a in self.possible_agents}
        self._assign_seats(list(range(n)))
        self._actions: list[int] = []
        self._start_state: State | None = None
        self._episode = 0
        self._zero_mask = np.zeros(self._num_actions, dtype=np.int8)
        self._zero_mask.flags.writeable = False
        self._acting_mask = self._zero_mask
        self._acting_legal: tuple[int, ...] = ()
        # The seat to act (-1 at the end), its agent and phase, as of the last change: computed
        # once per position and read by observe(), step() and the infos.
        self._acting_seat = -1
        self._info_acting: str | None = None
        self._info_phase: str | None = None

    def _assign_seats(self, seats: list[int]) -> None:
        """Seat ``possible_agents[i]`` at ``seats[i]``: the one seat map, and its inverse.

        ``_seat_of`` (agent -> seat) and ``_seat_agent`` (seat -> agent) are both read on every
        step, so both are kept, made here together.
        """
        self._seat_of = {a: seats[i] for i, a in enumerate(self.possible_agents)}
        self._seat_agent = [""] * len(seats)
        for i, seat in enumerate(seats):
            self._seat_agent[seat] = self.possible_agents[i]

    # --- construction hooks -------------------------------------------------------------------

    def make_game(self, config: dict[str, Any]) -> Game:
        """Build the (sequential) game this env runs; override to add a transform."""
        return self.game_class(config)

    def make_observer(self, game: Game) -> Observer:
        """Build the observer for ``game``."""
        return self.observer_class(game)

    # --- PettingZoo API -----------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new game.

        Args:
            seed: Seeds the env's generator; ``None`` continues its stream (or seeds from
                entropy on the first reset).
            options: ``{"seat_permutation": "random"}`` assigns agents to seats at random
                (drawn from the env's generator), or a list giving the seat of each agent;
                ``{"state": State | JSON text | dict}`` starts from a given state of this env's
                game (for puzzles and bug reports).

        Raises:
            TypeError: When ``options`` is not a dict or names an unknown option.
            ValueError: On a bad seat permutation.
            StateFormatError: On a malformed state or one of another game or config.

        Nothing changes when it raises (seats, seed, random stream and game stay as they were).
        """
        # All or nothing: every option is checked (and a given state loaded) before the seats,
        # the engine seed or the random stream change.
        seed = as_seed(seed)
        opts = reset_options(self.game, options)
        if seed is not None or not hasattr(self, "_np_random_gen"):
            rng, _ = seeding.np_random(seed)
        else:
            rng = self._np_random_gen
        engine_seed: int | None = int(rng.integers(0, 2**63 - 1))
        n = self.game.num_players
        perm = opts.get("seat_permutation")
        if perm is None:
            seats = list(range(n))
        elif perm == "random":
            seats = [int(s) for s in rng.permutation(n)]
        else:
            seats = list(perm)
        given = opts.get("state")
        if given is not None:
            state = given
            engine_seed = None
            start: State | None = given.clone()
        else:
            state = self.game.new_initial_state(random.Random(engine_seed))
            start = None
        self._np_random_gen = rng
        self._engine_seed = engine_seed
        self._assign_seats(seats)
        self.state_obj = state
        self._start_state = start
        self._episode += 1
        self._actions = []
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._info_phase = None
        self._after_change()
        # A finished start state ends the game at once; last() must still deliver its rewards.
        self._accumulate_rewards()

    def _after_change(self) -> None:
        """Point agent_selection at the seat to act and refresh infos; handle the end."""
        state = self.state_obj
        assert state is not None  # called only once reset() has dealt a game
        cur = state.current_player()
        if cur == SIMULTANEOUS:
            raise RuntimeError(
                f"{type(self.game).__name__} reached a simultaneous node; an AEC env needs the "
                "turn-based transform (tabletop_gym.core.turn_based.TurnBasedGame)"
            )
        if cur == TERMINAL:
            self._acting_seat = -1
            self._acting_mask = self._zero_mask
            self._acting_legal = ()
            self._info_phase = None
            returns = state.returns()
            final = terminal_infos(state, self.agents, self._seat_of, self._seat_agent,
                                   self.possible_agents, self._stable)
            if self._stable is not None:
                self.infos = final
            for a in self.agents:
                self.rewards[a] = float(returns[self._seat_of[a]])
                self.terminations[a] = True
                if self._stable is not None:
                    continue
                self.infos[a] = {"action_mask": self._zero_mask, "is_acting": False, **final[a]}
            self.agent_selection = self.agents[0]
            return
        acting = self._seat_agent[cur]
        phase = state.phase()
        # The mask of the agent to act is found once per step and shared by its info and (as a
        # copy) by observe(). Handed out in the info, it is read-only, so no caller can make an
        # illegal action look legal; being read-only, one array serves every position with the
        # same legal set.
        # At a sequential node the seat to act's legal actions are the state's _legal_actions()
        # (what legal_actions(cur) returns after checking the node kind again).
        legal = tuple(state._legal_actions())
        mask = self._masks.get(legal)
        if mask is None:
            mask = self._new_mask(legal, self._num_actions)
        self._acting_mask = mask
        self._acting_legal = legal
        self._acting_seat = cur
        self.agent_selection = acting
        if self._stable is not None:
            self.infos = self._stable.running(self.agents, {acting}, phase)
            return
        zero = self._zero_mask
        infos = self.infos
        previous = self._info_acting
        if phase != self._info_phase:
            for a in self.agents:
                infos[a] = {"action_mask": mask if a == acting else zero, "is_acting": a == acting,
                            "phase": phase}
        else:
            # Only the agents whose info changed get a new dict; the others keep theirs (a
            # caller holding an old info never sees it change under it).
            if previous is not None and previous != acting:
                infos[previous] = {"action_mask": zero, "is_acting": False, "phase": phase}
            infos[acting] = {"action_mask": mask, "is_acting": True, "phase": phase}
        self._info_acting = acting
        self._info_phase = phase

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """What ``agent`` may know now: ``{"observation", "action_mask"}``."""
        state = self.state_obj
        if state is None:
            state = self._require_state()
        seat = self._seat_of[agent]
        obs = self.observer.encode(state, seat)
        if seat == self._acting_seat and not self.terminations.get(agent, True):
            mask = self._acting_mask.copy()
        else:
            mask = np.zeros(self._num_actions, dtype=np.int8)
        return {"observation": obs, "action_mask": mask}

    def step(self, action: int | None) -> None:
        """Apply the action of ``agent_selection`` (``None`` for a terminated agent)."""
        state = self.state_obj
        if state is None:
            state = self._require_state()
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if type(action) is not int or not 0 <= action < self._num_actions:
            action = as_action(action, self._num_actions, agent)
        try:
            if self._acting_mask[action]:
                # One of this position's legal actions (the mask's, one index rather than a
                # scan of the legal tuple): the engine need not check the action again.
                state.apply_trusted_action(action)
            else:
                state.apply_action(action)  # raises IllegalActionError, changing nothing
        except IllegalActionError as err:
            if self.illegal_action == "raise":
                raise
            self._cumulative_rewards[agent] = 0.0
            self._terminate_illegal(agent, err)
            return
        self._cumulative_rewards[agent] = 0.0
        self._actions.append(action)
        # Rewards are all zero while the game runs (they are terminal only), so they are
        # cleared and accumulated only when this action ended the game.
        self._after_change()
        if self._acting_seat < 0:
            self._accumulate_rewards()

    def _terminate_illegal(self, agent: str, err: IllegalActionError) -> None:
        warnings.warn(f"{agent} took an illegal action; the game ends: {err}", stacklevel=3)
        self._acting_seat = -1
        self._acting_mask = self._zero_mask
        self._acting_legal = ()
        self._info_phase = None
        detail = illegal_detail(agent, err)
        if self._stable is not None:
            assert self.state_obj is not None
            self.infos = self._stable.illegal(self.agents, self.state_obj.phase(), agent,
                                              err.action)
        for a in self.agents:
            self.rewards[a] = ILLEGAL_REWARD if a == agent else 0.0
            self.terminations[a] = True
            if self._stable is not None:
                continue
            self.infos[a] = {
                "action_mask": self._zero_mask,
                "is_acting": False,
                "illegal_action": detail,
            }
        self._accumulate_rewards()

    # --- extras -------------------------------------------------------------------------------

    def seat_of(self, agent: str) -> int:
        """The engine seat ``agent`` plays this episode.

        Raises:
            RuntimeError: Before the first reset.
            KeyError: When ``agent`` is not one of ``possible_agents``.
        """
        if self.state_obj is None:
            self._require_state()
        try:
            return self._seat_of[agent]
        except KeyError:
            raise KeyError(f"{agent!r} is not an agent; agents: {self.possible_agents}") from None

    def agent_of(self, seat: int) -> str:
        """The agent playing engine seat ``seat`` this episode.

        Raises:
            RuntimeError: Before the first reset.
        """
        self._require_state()
        return self._seat_agent[seat]

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """PettingZoo's ``last()``: the agent to act's observation, reward, flags and info.

        Raises:
            RuntimeError: Before the first reset.
        """
        if self.state_obj is None:
            self._require_state()
        # PettingZoo's own last(), without its frame: it runs once per agent step.
        agent = self.agent_selection
        return (self.observe(agent) if observe else None, self._cumulative_rewards[agent],
                self.terminations[agent], self.truncations[agent], self.infos[agent])

    def agent_iter(self, max_iter: int = 2**63) -> Any:
        """PettingZoo's ``agent_iter()``.

        Raises:
            RuntimeError: Before the first reset.
        """
        self._require_state()
        return super().agent_iter(max_iter)

    def acting_mask(self) -> np.ndarray:
        """A copy of the int8 mask of ``agent_selection`` (all zeros once the game is over)."""
        return self.acting_mask_view().copy()

    def acting_mask_view(self) -> np.ndarray:
        """The read-only int8 mask of ``agent_selection`` itself (all zeros at the end).

        For wrappers that convert it at once; :meth:`acting_mask` hands out a copy.
        """
        if self.state_obj is None or self.terminations.get(self.agent_selection, True):
            if self.state_obj is None:
                self._require_state()
            return self._zero_mask
        return self._acting_mask

    def acting_legal(self) -> tuple[int, ...]:
        """The legal action ids of ``agent_selection``, ascending (empty once the game is over).

        The ids its ``info["action_mask"]`` sets, found once per position (no copy is made).

        Raises:
            RuntimeError: Before the first reset.
        """
        if self.state_obj is None:
            self._require_state()
        if self.terminations.get(self.agent_selection, True):
            return ()
        return self._acting_legal

    def acting_observation(self) -> np.ndarray:
        """The ``observation`` vector of ``observe(agent_selection)``, without the mask and dict.

        Raises:
            RuntimeError: Before the first reset.
        """
        state = self._require_state()
        return self.observer.encode(state, self._seat_of[self.agent_selection])

    def legal_actions(self, agent: str | None = None) -> list[int]:
        """Legal action ids of ``agent`` (default: the agent to act)."""
        state = self._require_state()
        agent = agent or self.agent_selection
        if state.is_terminal():
            return []
        return state.legal_actions(self.seat_of(agent))

    def action_to_string(self, action: int) -> str:
        """Readable name of ``action`` for the agent to act (its full content: not for others).

        Raises:
            ValueError: When ``action`` is not an id of the action space.
        """
        state = self._require_state()
        return state.action_to_string(as_action(action, self._num_actions, "action_to_string"))

    def public_action_string(self, action: int, viewer: str | None = None) -> str:
        """What ``viewer`` (an agent; ``None``: a spectator) may know of the acting agent's move.

        A sealed bid or a face-down card is named without its content. Call it before
        :meth:`step` applies ``action``. Use this form for anything shown to a person or written
        to a shared log.
        """
        state = self._require_state()
        seat = None if viewer is None else self.seat_of(viewer)
        return state.public_action_string(action, seat)

    def episode_start(self) -> State:
        """A fresh copy of this episode's start state (the deal, or the state given to reset).

        Privileged, like :attr:`game_state`: with :meth:`episode_actions` it replays the episode,
        hidden parts included. The text views use it to write each seat's public history
        (``tabletop_gym.text``), showing a seat only the public form of every action.

        Raises:
            RuntimeError: Before the first reset.
        """
        self._require_state()
        if self._start_state is not None:
            return self._start_state.clone()
        assert self._engine_seed is not None
        return self.game.new_initial_state(random.Random(self._engine_seed))

    @property
    def episode(self) -> int:
        """How many episodes this env has dealt (1 after the first reset)."""
        return self._episode

    def episode_actions(self) -> tuple[int, ...]:
        """Every action applied this episode, in order (what :meth:`record` stores)."""
        return tuple(self._actions)

    def record(self) -> GameRecord:
        """Config, engine seed, seat assignment and actions of this episode (replays exactly).

        Privileged while the game runs: the engine seed fixes every deck and stack order.

        Raises:
            RuntimeError: Before the first reset.
            ValueError: When the episode started from a given state (it has no seed).
        """
        return self._seeded_record(actions=list(self._actions),
                                   transform=getattr(self.game, "transform_name", None),
                                   seats=[self._seat_of[a] for a in self.possible_agents])

    def __str__(self) -> str:
        return str(self.metadata["name"])


def _forwarded(name: str, doc: str) -> Any:
    """A property that reads the wrapped env's ``name`` (an ``AttributeError`` before reset).

    Older PettingZoo wrappers copy these attributes onto the wrapper after every call; the
    setter ignores the copy, since the getter always reads the env's own object.
    """
    checked = name != "_cumulative_rewards"

    def get(self: Any) -> Any:
        if checked and not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self.env, name)

    def ignore(self: Any, value: Any) -> None:
        del value

    return property(get, ignore, doc=f"{doc} (``AttributeError`` before the first reset)")


class OrderEnforcing(OrderEnforcingWrapper):
    """PettingZoo's order enforcement with direct attribute access on the hot path.

    The stock wrapper reaches every attribute ``last()``, ``agent_iter`` and training loops read
    (``agent_selection``, ``agents``, ``terminations``, ...) through ``__getattr__``, a failed
    lookup and a second one per access. Here they are properties that keep the same check (an
    ``AttributeError`` before the first reset) and read the wrapped env's attribute directly;
    ``last()``, ``step()`` and ``observe()`` call the wrapped env without the detour.
    """

    env: TabletopAECEnv

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """``last()`` of the wrapped env, after the reset check."""
        if not self._has_reset:
            raise AttributeError("last cannot be called before reset")
        result: tuple[Any, float, bool, bool, dict[str, Any]] = self.env.last(observe)
        return result

    def step(self, action: Any) -> None:
        """Step the wrapped env (PettingZoo's checks: reset first, agents left)."""
        if self._has_reset and self.env.agents:
            self._has_updated = True
            self.env.step(action)
        else:
            super().step(action)

    def observe(self, agent: str) -> Any:
        """``observe()`` of the wrapped env, after the reset check."""
        if not self._has_reset:
            return super().observe(agent)
        return self.env.observe(agent)

    def agent_iter(self, max_iter: int = 2**63) -> AECOrderEnforcingIterable[str, Any, Any]:
        """PettingZoo's ``agent_iter`` (reset first, a step between agents), read directly."""
        if not self._has_reset:
            return super().agent_iter(max_iter)  # PettingZoo's own error
        return _AgentIterable(self, max_iter)

    agent_selection = _forwarded("agent_selection", "The agent to act.")
    agents = _forwarded("agents", "The live agents.")
    rewards = _forwarded("rewards", "This step's rewards.")
    terminations = _forwarded("terminations", "Terminated flags.")
    truncations = _forwarded("truncations", "Truncated flags.")
    infos = _forwarded("infos", "Infos.")
    _cumulative_rewards = _forwarded("_cumulative_rewards", "Rewards since the agent last acted.")


class _AgentIterable(AECOrderEnforcingIterable[str, Any, Any]):
    def __iter__(self) -> _AgentIterator:
        return _AgentIterator(self.env, self.max_iter)


class _AgentIterator(AECOrderEnforcingIterator[str, Any, Any]):
    """PettingZoo's order-enforcing agent iterator reading the wrapped env's attributes directly.

    The stock iterator reads ``agents`` and ``agent_selection`` through the wrapper, a property
    and its reset check each, on every agent of every game.
    """

    env: OrderEnforcing

    def __init__(self, env: OrderEnforcing, max_iter: int):
        super().__init__(env, max_iter)
        self._inner = env.env

    def __next__(self) -> str:
        inner = self._inner
        if not inner.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        wrapper = self.env
        if not wrapper._has_updated:
            # PettingZoo's own iterator asserts; a raise keeps its exception under python -O.
            raise AssertionError("need to call step() or reset() in a loop over `agent_iter`")
        wrapper._has_updated = False
        return inner.agent_selection
