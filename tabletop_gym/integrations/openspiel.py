"""Every registered game as an OpenSpiel Python game (``pyspiel.register_game``).

Importing this module registers one OpenSpiel game per game of the registry
(:mod:`tabletop_gym.registry`), named ``python_<name>`` (``python_positano``,
``python_rapa_nui``), so ``pyspiel.load_game("python_positano(num_players=3)")`` works and
OpenSpiel's tests, transforms, bots and algorithms run on the engines. Needs the ``openspiel``
extra.

* **Parameters** are the game's config fields (their defaults are the parameter defaults; a
  tuple field such as Positano's ``goals`` is a comma-separated string) plus, for a game with
  simultaneous nodes, ``transform``: ``"none"`` (the simultaneous node is OpenSpiel's own
  simultaneous node), ``"turn_based"`` or ``"turn_based_split"`` (the engine's turn-based
  transform, :mod:`tabletop_gym.core.turn_based`: sequential turns with hidden commitments,
  which OpenSpiel's sequential-only algorithms such as ISMCTS need). An unknown parameter is
  OpenSpiel's ``SpielError`` naming the available ones; a value the config refuses is the
  config's :class:`~tabletop_gym.core.game.ConfigError` naming what is allowed.
* **Chance** is explicit: the engines draw every random event while dealing
  (``new_initial_state(rng)``), through ``random.Random``'s integer draws. Here the deal runs on
  a generator that answers each draw from the chance outcomes applied so far, so every draw is
  one chance node with ``n`` equally likely outcomes ``0..n-1`` (a card of a shuffle: at most
  the size of the largest deck). A ``random()`` call is a fair coin, outcomes 0 and 1 answering
  0.25 and 0.75: exact for the one such use, a goal card's side (``random() < 0.5``). The
  distribution of deals is the engine's exactly, and the rest of the game is a function of the
  actions, so nothing needs OpenSpiel's sampled-stochastic mode (whose outcomes cannot be
  listed, replayed from a history, or enumerated by search).
* **Observations** are the engine's per-seat observer (the one the PettingZoo env uses):
  ``observation_tensor`` is its vector, laid out by its declared slices (an observer made with
  ``params={"slices": True}`` names and shapes each in its ``dict``); ``observation_string``
  lists the slices that are not all zero, by name.
  ``information_state_string`` adds the seat's record of every action as that seat saw it (a
  sealed bid or a face-down card is named without its content for everyone but its owner);
  ``information_state_tensor`` is the observation vector. Nothing a seat may not see reaches any
  of them (tests/integrations/test_openspiel.py resamples it away and compares).
* ``resample_from_infostate`` is the engine's ``resample_hidden``; ``serialize`` is the state as
  JSON (the engine's JSON state document, the chance draws and the seats' records), which
  ``game.deserialize_state`` reads back (as it reads OpenSpiel's own serialization); the
  OpenSpiel 2.0 structs of a state, an observation and an action.
* :func:`load_record` and :func:`to_record` turn our game records into OpenSpiel histories and
  back; :class:`HeuristicBot` is the game's heuristic as an OpenSpiel bot;
  :func:`league_alpharank` is OpenSpiel's α-Rank of a two-seat league table.

Example:
    >>> import pyspiel
    >>> import tabletop_gym.integrations.openspiel  # registers the games
    >>> game = pyspiel.load_game("python_rapa_nui(num_players=3)")
    >>> game.num_players(), game.num_distinct_actions()
    (3, 45)
    >>> state = game.new_initial_state()
    >>> state.is_chance_node(), len(state.chance_outcomes()) > 1
    (True, True)
"""

from __future__ import annotations

import base64
import dataclasses
import json
import pickle
import random
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pyspiel

from tabletop_gym.core.game import (
    SIMULTANEOUS,
    TERMINAL,
    ConfigError,
    Game,
    State,
    StateFormatError,
    as_int,
    parse_document,
    shown,
)
from tabletop_gym.core.observer import Observer
from tabletop_gym.core.records import GameRecord, make_game
from tabletop_gym.core.turn_based import TurnBasedGame, TurnBasedObserver
from tabletop_gym.registry import GameSpec, game_spec, game_specs

__all__ = [
    "TRANSFORMS",
    "HeuristicBot",
    "TabletopGame",
    "TabletopState",
    "deal_draws",
    "league_alpharank",
    "load_record",
    "openspiel_name",
    "to_record",
]

PREFIX = "python_"
"""OpenSpiel's short names of the games: ``python_`` + the registry name."""

TRANSFORMS = ("none", "turn_based", "turn_based_split")
"""Values of the ``transform`` parameter of a game with simultaneous nodes."""

SERIAL_FORMAT = "tabletop_gym.openspiel/1"
"""The ``format`` entry of a JSON serialization written by :meth:`TabletopState.serialize`."""

SERIAL_KEYS = ("format", "history", "move_number", "draws", "state", "record")

# Our seat ids for "several act at once" and "game over" are OpenSpiel's, so current_player()
# passes the engine's answer through.
if (int(pyspiel.PlayerId.SIMULTANEOUS), int(pyspiel.PlayerId.TERMINAL)) != (SIMULTANEOUS,
                                                                           TERMINAL):
    raise ImportError("this OpenSpiel numbers its simultaneous or terminal player differently")
_CHANCE = int(pyspiel.PlayerId.CHANCE)


def openspiel_name(game: str) -> str:
    """OpenSpiel's short name of a registered game (``"positano"`` -> ``"python_positano"``).

    Raises:
        ValueError: On a name the registry does not know.
    """
    return PREFIX + game_spec(game).name


# --- chance: the deal, one draw at a time -------------------------------------------------------


class _NeedDraw(Exception):
    """Raised by the deal when it asks for a draw that no chance outcome has answered yet."""

    def __init__(self, n: int):
        super().__init__(n)
        self.n = n


class _DrawReplay(random.Random):
    """A generator whose integer draws are answered from a list of chance outcomes.

    Every ``random.Random`` method the engines deal with (``shuffle``, ``sample``, ``choice``,
    ``randrange``) draws through ``_randbelow(n)``; the answer to the k-th such draw is
    ``answers[k]``. ``random()`` is answered as a draw of 2 (a fair coin). A draw past the
    answers raises :class:`_NeedDraw` with its ``n``, unless ``fill`` is set (then it is 0 and
    ``sizes`` records every ``n``: how a game learns its largest draw).
    """

    def __init__(self, answers: Sequence[int], fill: bool = False):
        # Not seeded (random.Random.__init__ would seed the Mersenne Twister, most of a deal's
        # cost here): every draw this generator makes is answered above it, never by the
        # twister.
        self._answers = answers
        self._next = 0
        self._fill = fill
        self.sizes: list[int] = []

    def _randbelow(self, n: int) -> int:  # type: ignore[override]
        if n <= 1:
            return 0  # no choice: not a chance node
        k = self._next
        if k == len(self._answers):
            if not self._fill:
                raise _NeedDraw(n)
            self.sizes.append(n)
            return 0
        answer = self._answers[k]
        if not 0 <= answer < n:
            raise StateFormatError(f"chance draw {k} is {answer}; it must be in 0..{n - 1}")
        self._next = k + 1
        return answer

    def random(self) -> float:
        return 0.25 + 0.5 * self._randbelow(2)

    def getrandbits(self, k: int) -> int:
        raise TypeError(
            "the OpenSpiel bridge answers a deal's draws through random.Random's integer draws "
            "and random(); getrandbits() is not one of them"
        )


class _DrawRecorder(random.Random):
    """A seeded ``random.Random`` that notes each draw as the chance outcome that answers it."""

    def __init__(self, seed: int):
        super().__init__(seed)
        self.answers: list[int] = []

    def _randbelow(self, n: int) -> int:  # type: ignore[override]
        answer: int = super()._randbelow(n)  # type: ignore[misc]
        if n > 1:
            self.answers.append(answer)
        return answer

    def random(self) -> float:
        value = super().random()
        # Only whether it is below one half matters (the coin of _DrawReplay.random).
        self.answers.append(int(value >= 0.5))
        return value


def deal_draws(game: Game, seed: int) -> list[int]:
    """The chance outcomes that deal what ``game.new_initial_state(random.Random(seed))`` deals.

    Applied at the chance nodes of the OpenSpiel game of the same configuration, they deal the
    same game: how a game record (config, seed, actions) becomes an OpenSpiel history.
    """
    recorder = _DrawRecorder(seed)
    game.new_initial_state(recorder)
    return recorder.answers


def _deal(game: Game, draws: Sequence[int]) -> State | int:
    """The dealt state once ``draws`` answer every draw, else the size of the next draw."""
    try:
        return game.new_initial_state(_DrawReplay(draws))
    except _NeedDraw as need:
        return need.n


# --- the seats' records of the actions ----------------------------------------------------------


class _Record:
    """What each seat saw of every action so far: ``(actor, one string per seat)`` entries.

    Immutable, so a clone shares it (a deep copy returns it as it is) and an action makes a new
    one; the states of a search tree then share their common past.
    """

    __slots__ = ("entries",)

    def __init__(self, entries: tuple[tuple[int, tuple[str, ...]], ...] = ()):
        self.entries = entries

    def __deepcopy__(self, memo: dict[int, Any]) -> _Record:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (_Record, (self.entries,))

    def plus(self, items: list[tuple[int, tuple[str, ...]]]) -> _Record:
        return _Record(self.entries + tuple(items))

    def seen_by(self, player: int) -> _Record:
        """Every seat's strings replaced by ``player``'s (what a resampled world may keep)."""
        return _Record(tuple((a, (seen[player],) * len(seen)) for a, seen in self.entries))


# --- the game -----------------------------------------------------------------------------------


def _parameter_spec(spec: GameSpec, engine: Game) -> dict[str, Any]:
    """The OpenSpiel parameters of ``spec``'s game and their defaults."""
    params: dict[str, Any] = {}
    for f in dataclasses.fields(spec.config_class()):
        default = f.default
        if isinstance(default, tuple):
            default = ",".join(str(x) for x in default)
        params[f.name] = default
    if engine.supports("simultaneous_action_range"):
        params["transform"] = TRANSFORMS[0]
    return params


def _config_of(spec: GameSpec, params: Mapping[str, Any]) -> tuple[dict[str, Any], str | None]:
    """The engine config and the transform that OpenSpiel ``params`` ask for.

    Raises:
        ConfigError: On a transform that is not allowed (the config checks the rest).
    """
    config: dict[str, Any] = {}
    fields = {f.name: f for f in dataclasses.fields(spec.config_class())}
    transform = None
    for key, value in params.items():
        if key == "transform":
            if value not in TRANSFORMS:
                raise ConfigError(
                    f"transform={shown(value)} is not allowed; choose one of {list(TRANSFORMS)}"
                )
            transform = None if value == "none" else value
        elif key in fields and isinstance(fields[key].default, tuple):
            text = str(value).strip()
            config[key] = tuple(x.strip() for x in text.split(",")) if text else ()
        else:
            config[key] = value
    return config, transform


def _utility(engine: Game) -> tuple[Any, float | None]:
    """OpenSpiel's utility type and utility sum of the configured returns."""
    n = engine.num_players
    reward_type = engine.config.reward_type
    zero_sum = n > 1 and (reward_type == "score_diff" or (reward_type == "win_loss" and n == 2))
    if zero_sum and not getattr(engine, "solo", False):
        return pyspiel.GameType.Utility.ZERO_SUM, 0.0
    return pyspiel.GameType.Utility.GENERAL_SUM, None


def _game_type(spec: GameSpec, engine: Game, params: dict[str, Any],
               utility: Any) -> pyspiel.GameType:
    simultaneous = engine.supports("simultaneous_action_range")
    return pyspiel.GameType(
        short_name=PREFIX + spec.name,
        long_name=f"{spec.title} (tabletop-gym)",
        dynamics=(pyspiel.GameType.Dynamics.SIMULTANEOUS if simultaneous
                  else pyspiel.GameType.Dynamics.SEQUENTIAL),
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=utility,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=max(spec.player_counts),
        min_num_players=min(spec.player_counts),
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=params,
    )


def _observer_for(spec: GameSpec, engine: Game) -> Observer:
    """The env's per-seat observer of ``engine`` (the turn-based one around a transform)."""
    cls = spec.envs().raw_env.observer_class
    if isinstance(engine, TurnBasedGame):
        return TurnBasedObserver(engine, cls(engine.inner))
    observer: Observer = cls(engine)
    return observer


class TabletopGame(pyspiel.Game):
    """One configuration of a registered game, as an OpenSpiel game.

    Each registered game has its own subclass (what ``pyspiel.register_game`` is given), whose
    :attr:`game_name` names the game in the registry.

    Attributes:
        game_name: The registry name of the game (set by each game's subclass).
        spec: The game's registry entry.
        engine: The engine's game (inside the turn-based transform when one is asked for).
        observer: The per-seat observer whose vector is the observation tensor.
    """

    game_name: str = ""

    def __init__(self, params: Mapping[str, Any] | None = None):
        """Build the configuration ``params`` of the game.

        Raises:
            ConfigError: On a parameter value the game's config or the transform refuses.
        """
        self.spec = spec = game_spec(self.game_name)
        params = dict(params or {})
        config, transform = _config_of(spec, params)
        self.engine: Game = make_game(spec.name, config, transform)
        self.observer = _observer_for(spec, self.engine)
        probe = _DrawReplay((), fill=True)
        self.engine.new_initial_state(probe)
        self._first_draw = _deal(self.engine, ())
        self._max_outcomes = max(probe.sizes, default=1)
        utility, utility_sum = _utility(self.engine)
        low, high = self.engine.return_bounds()
        game_type = _game_type(spec, self.engine, _parameter_spec(spec, self.engine), utility)
        if isinstance(self.engine, TurnBasedGame) or not self.engine.supports(
                "simultaneous_action_range"):
            game_type = _sequential(game_type)
        super().__init__(
            game_type,
            pyspiel.GameInfo(
                num_distinct_actions=self.engine.num_distinct_actions,
                max_chance_outcomes=self._max_outcomes,
                num_players=self.engine.num_players,
                min_utility=float(low),
                max_utility=float(high),
                utility_sum=utility_sum,
                max_game_length=self.engine.max_game_length,
            ),
            params,
        )

    def new_initial_state(self) -> TabletopState:
        """The start of a game: the first chance node of the deal."""
        return TabletopState(self)

    def make_py_observer(self, iig_obs_type: Any = None,
                         params: Mapping[str, Any] | None = None) -> _PyObserver:
        """The observer of OpenSpiel's observation API (``pyspiel.IIGObservationType``).

        Args:
            iig_obs_type: A single seat's view, with or without perfect recall (``None``: the
                observation, without).
            params: ``{"slices": True}`` names every slice of the layout in the observer's
                ``dict`` (the default observers give the same tensor in one piece).

        Raises:
            ValueError: For an observer parameter other than ``slices`` (a bool), or an
                observation type other than a single seat's view.
        """
        params = dict(params or {})
        unknown = sorted(k for k in params if k != "slices")
        slices = params.get("slices", False)
        if unknown or not isinstance(slices, bool):
            raise ValueError(
                f"observer parameters {params} are not allowed; the one parameter is 'slices' "
                "(True or False)"
            )
        recall = False
        if iig_obs_type is not None:
            if (not iig_obs_type.public_info
                    or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER):
                raise ValueError(
                    "the observers give one seat's view: public_info=True and "
                    "private_info=SINGLE_PLAYER, with or without perfect_recall; got "
                    f"{iig_obs_type}"
                )
            recall = bool(iig_obs_type.perfect_recall)
        return _PyObserver(self, recall, slices)

    def deserialize_state(self, text: str) -> TabletopState:  # type: ignore[override]
        """A state from :meth:`TabletopState.serialize`'s JSON or OpenSpiel's serialization.

        Raises:
            StateFormatError: On a JSON text that does not follow the format; the message says
                which entry and what is allowed. Nothing else changes.
        """
        if isinstance(text, str) and text.startswith("history="):
            state: TabletopState = pyspiel.Game.deserialize_state(self, text)
            return state
        doc = parse_document(text, "serialized OpenSpiel state")
        return pyspiel.Game.deserialize_state(self, self._native_serialization(doc))

    def _native_serialization(self, doc: dict[str, Any]) -> str:
        """OpenSpiel's serialization (history, move number, attributes) of a checked JSON doc."""
        unknown = sorted(str(k) for k in doc if k not in SERIAL_KEYS)
        if unknown:
            raise StateFormatError(
                f"serialized state has unknown key(s) {unknown}; allowed: {list(SERIAL_KEYS)}"
            )
        if doc.get("format") != SERIAL_FORMAT:
            raise StateFormatError(
                f"serialized state has format {shown(doc.get('format'))}; expected "
                f"{SERIAL_FORMAT!r}"
            )
        history = _int_pairs(doc.get("history"), "history")
        move_number = as_int(doc.get("move_number"))
        if move_number is None or move_number < 0:
            raise StateFormatError(
                f"'move_number' must be a non-negative integer, got {shown(doc.get('move_number'))}"
            )
        draws = doc.get("draws")
        if not isinstance(draws, list) or any(as_int(d) is None for d in draws):
            raise StateFormatError(f"'draws' must be a list of integers, got {shown(draws)}")
        draws = [int(d) for d in draws]
        chance = [a for p, a in history if p == _CHANCE]
        if chance != draws:
            raise StateFormatError(
                f"'draws' {shown(draws)} must be the chance outcomes of 'history' {shown(chance)}"
            )
        dealt = _deal(self.engine, draws)
        body = doc.get("state")
        if isinstance(dealt, int):
            if body is not None:
                raise StateFormatError(
                    f"the deal needs more draws after {len(draws)}, so 'state' must be null"
                )
            engine_state = None
            need = dealt
        else:
            if body is None:
                raise StateFormatError("the draws complete the deal, so 'state' must be given")
            engine_state = self.engine.state_from_json(body)
            need = 0
        record = _record_of(doc.get("record"), self.num_players())
        attributes = {"_draws": draws, "_need": need, "_engine": engine_state,
                      "_record": record}
        pairs = ",".join(f"{p}:{a}" for p, a in history)
        blob = base64.b64encode(pickle.dumps(attributes)).decode("ascii")
        return f"history={pairs}\nmove_number={move_number}\n__dict__={blob}"


def _sequential(game_type: pyspiel.GameType) -> pyspiel.GameType:
    """``game_type`` with sequential dynamics (the turn-based transform, or no joint node)."""
    return pyspiel.GameType(
        short_name=game_type.short_name,
        long_name=game_type.long_name,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=game_type.chance_mode,
        information=game_type.information,
        utility=game_type.utility,
        reward_model=game_type.reward_model,
        max_num_players=game_type.max_num_players,
        min_num_players=game_type.min_num_players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=game_type.parameter_specification,
    )


def _int_pairs(value: Any, what: str) -> list[tuple[int, int]]:
    if not isinstance(value, list):
        raise StateFormatError(f"{what!r} must be a list of [player, action] pairs")
    out = []
    for i, item in enumerate(value):
        pair = [as_int(x) for x in item] if isinstance(item, list) else []
        if len(pair) != 2 or None in pair:
            raise StateFormatError(
                f"{what}[{i}]={shown(item)} must be a [player, action] pair of integers"
            )
        out.append((int(pair[0]), int(pair[1])))  # type: ignore[arg-type]
    return out


def _record_of(value: Any, n: int) -> _Record:
    if not isinstance(value, list):
        raise StateFormatError("'record' must be a list of [actor, [one string per seat]]")
    entries = []
    for i, item in enumerate(value):
        ok = (isinstance(item, list) and len(item) == 2 and as_int(item[0]) is not None
              and isinstance(item[1], list) and len(item[1]) == n
              and all(isinstance(s, str) for s in item[1]))
        if not ok:
            raise StateFormatError(
                f"record[{i}]={shown(item)} must be [actor, [{n} strings, one per seat]]"
            )
        entries.append((int(item[0]), tuple(item[1])))
    return _Record(tuple(entries))


# --- the state ----------------------------------------------------------------------------------


class TabletopState(pyspiel.State):
    """A position: the deal in progress (chance nodes), then the engine's state."""

    def __init__(self, game: TabletopGame):
        """The first chance node of the deal (or the dealt game if the deal draws nothing)."""
        super().__init__(game)
        self._draws: list[int] = []
        self._record = _Record()
        first = game._first_draw
        if isinstance(first, int):
            self._need = first
            self._engine: State | None = None
        else:
            self._need = 0
            self._engine = first.clone()

    @property
    def engine_state(self) -> State | None:
        """The engine's state (privileged: every hidden part); ``None`` while dealing."""
        return self._engine

    def _game(self) -> TabletopGame:
        game: TabletopGame = self.get_game()
        return game

    # --- whose turn -----------------------------------------------------------------------------

    def current_player(self) -> int:
        """Chance while dealing, then the engine's seat, SIMULTANEOUS or TERMINAL."""
        engine = self._engine
        return _CHANCE if engine is None else engine.current_player()

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        return self._engine is not None and self._engine.is_terminal()

    def _legal_actions(self, player: int) -> list[int]:
        """``player``'s sorted legal actions (at a simultaneous node: each seat's own)."""
        engine = self._engine
        if engine is None or player < 0:
            raise ValueError(
                f"legal actions of player {player} asked at a {self._where()} node; ask a seat "
                "0..num_players-1 (at a simultaneous node, each seat separately)"
            )
        return engine.legal_actions(player)

    def _where(self) -> str:
        cur = self.current_player()
        return {_CHANCE: "chance", SIMULTANEOUS: "simultaneous", TERMINAL: "terminal"}.get(
            cur, "sequential")

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The next draw of the deal: ``n`` outcomes, each with probability ``1/n``."""
        if self._engine is not None:
            raise ValueError("chance_outcomes() asked at a node that is not a chance node")
        n = self._need
        p = 1.0 / n
        return [(k, p) for k in range(n)]

    # --- actions --------------------------------------------------------------------------------

    def _apply_action(self, action: int) -> None:
        engine = self._engine
        if engine is None:
            self._draw(action)
            return
        cur = engine.current_player()
        n = engine.game.num_players
        seen = tuple(engine.public_action_string(action, q, cur) for q in range(n))
        engine.apply_action(action)
        self._record = self._record.plus([(cur, seen)])

    def _draw(self, outcome: int) -> None:
        if not 0 <= outcome < self._need:
            raise ValueError(
                f"chance outcome {outcome} is not one of the {self._need} outcomes "
                f"0..{self._need - 1} of draw {len(self._draws)}"
            )
        draws = [*self._draws, int(outcome)]
        dealt = _deal(self._game().engine, draws)
        self._draws = draws
        if isinstance(dealt, int):
            self._need = dealt
        else:
            self._need = 0
            self._engine = dealt

    def _apply_actions(self, actions: Sequence[int]) -> None:
        engine = self._engine
        if engine is None or engine.current_player() != SIMULTANEOUS:
            raise ValueError(f"a joint action at a {self._where()} node; use apply_action")
        n = engine.game.num_players
        if len(actions) != n:
            raise ValueError(f"a joint action needs one entry per seat ({n}), got {len(actions)}")
        # A seat without a choice sends any id (OpenSpiel's tests send 0, its bots -1).
        joint = [int(a) if engine.legal_actions(p) else None for p, a in enumerate(actions)]
        seen = [(p, tuple(engine.public_action_string(a, q, p) for q in range(n)))
                for p, a in enumerate(joint) if a is not None]
        engine.apply_joint_action(joint)
        self._record = self._record.plus(seen)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == _CHANCE:
            return f"draw {action}"
        engine = self._engine
        if engine is None:
            return f"action {action}"
        return engine.action_to_string(action, player)

    # --- results --------------------------------------------------------------------------------

    def returns(self) -> list[float]:
        """Each seat's return under the configured ``reward_type`` (zeros until the end)."""
        if self._engine is None:
            return [0.0] * self.num_players()
        return self._engine.returns()

    def __str__(self) -> str:
        if self._engine is None:
            return f"dealing: draws {self._draws}, next draw of {self._need}"
        return str(self._engine)

    # --- information ------------------------------------------------------------------------------

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> TabletopState:
        """A state ``player_id`` cannot tell from this one, its hidden parts re-drawn.

        The engine's ``resample_hidden`` re-draws them from a generator seeded by
        ``probability_sampler`` (OpenSpiel's ``UniformProbabilitySampler``, or any callable
        returning a float in ``[0, 1)``). While dealing, the draws made so far are re-drawn.
        The other seats' records of the past become ``player_id``'s, which is all it knows of
        their private actions.
        """
        rng = random.Random(int(float(probability_sampler()) * 2**53))
        new: TabletopState = self.clone()
        engine = self._engine
        if engine is None:
            draws: list[int] = []
            while len(draws) < len(self._draws):
                need = _deal(self._game().engine, draws)
                assert isinstance(need, int)
                draws.append(rng.randrange(need))
            new._draws = draws
            need = _deal(self._game().engine, draws)
            assert isinstance(need, int)  # as many draws as this state: the deal goes on
            new._need = need
            return new
        new._engine = engine.resample_hidden(player_id, rng)
        new._record = self._record.seen_by(player_id)
        return new

    # --- OpenSpiel 2.0 structs -----------------------------------------------------------------

    def _to_struct(self) -> dict[str, Any]:
        """The whole state (privileged, as ``str(state)``): its JSON document, or the draws."""
        engine = self._engine
        return {
            "game": self._game().spec.name,
            "config": self._game().engine.config.to_dict(),
            "current_player": self.current_player(),
            "phase": None if engine is None else engine.phase(),
            "draws": list(self._draws),
            "state": None if engine is None else json.loads(engine.to_json())["state"],
        }

    def _to_observation_struct(self, player: int) -> dict[str, Any]:
        """What seat ``player`` is handed: its observation by slice name and its legal actions."""
        engine = self._engine
        observer = self._game().observer
        return {
            "player": player,
            "current_player": self.current_player(),
            "legal_actions": [] if engine is None else self.legal_actions(player),
            "observation": (None if engine is None
                            else observer.describe(observer.encode(engine, player))),
        }

    def _action_to_struct(self, player: int, action: int) -> dict[str, Any]:
        """An action: its id and its name."""
        return {"action": int(action), "text": self._action_to_string(player, action)}

    def _struct_to_actions(self, struct: Mapping[str, Any]) -> list[int]:
        """The id of an action struct (``{"action": id, ...}``).

        Raises:
            ValueError: When the struct has no integer ``action``.
        """
        action = as_int(struct.get("action")) if isinstance(struct, Mapping) else None
        if action is None:
            raise ValueError(f"an action struct needs an integer 'action', got {shown(struct)}")
        return [action]

    def serialize(self) -> str:  # type: ignore[override]
        """The state as JSON, which ``game.deserialize_state`` reads back.

        It holds OpenSpiel's history and move number, the chance draws, the engine's JSON state
        document (``null`` while dealing) and the seats' records.
        """
        engine = self._engine
        doc = {
            "format": SERIAL_FORMAT,
            "history": [[int(pa.player), int(pa.action)] for pa in self.full_history()],
            "move_number": int(self.move_number()),
            "draws": list(self._draws),
            "state": None if engine is None else json.loads(engine.to_json()),
            "record": [[a, list(seen)] for a, seen in self._record.entries],
        }
        return json.dumps(doc)


def load_record(record: GameRecord) -> TabletopState:
    """A game record (:mod:`tabletop_gym.core.records`) replayed as an OpenSpiel state.

    The OpenSpiel game is the record's config (and transform); the chance nodes take the draws
    of the record's seed (:func:`deal_draws`), the players the record's actions. The state's
    ``history()`` is then the game in OpenSpiel's terms.

    Raises:
        ValueError: When the record is invalid or an action cannot be replayed.
    """
    record.validate()
    params: dict[str, Any] = {}
    for key, value in record.config.items():
        params[key] = ",".join(value) if isinstance(value, list | tuple) else value
    if record.transform is not None:
        params["transform"] = record.transform
    game = pyspiel.load_game(openspiel_name(record.game), params)
    state: TabletopState = game.new_initial_state()
    for outcome in deal_draws(game.engine, int(record.seed)):
        state.apply_action(outcome)
    for i, action in enumerate(record.actions):
        legal = state.legal_actions()
        if action not in legal:
            raise ValueError(
                f"record action {i} ({action!r}) is not legal here; legal actions: {legal}"
            )
        state.apply_action(int(action))
    return state


def to_record(state: TabletopState, seed: int) -> GameRecord:
    """The game record of a state whose deal is ``seed``'s (the inverse of :func:`load_record`).

    A game played in OpenSpiel from the chance outcomes of :func:`deal_draws` becomes one of our
    records (config, seed, actions), which ``GameRecord.replay`` and the CLI read.

    A record holds sequential actions, so a game played at OpenSpiel's own simultaneous node
    (``transform=none``) becomes the record of the same game under the turn-based transform
    (``transform="turn_based"``, as the AEC env plays it): each joint action is the seats'
    actions one after another in seat order, leaving out every seat without a choice there
    (whose entry in OpenSpiel's history is whatever id was sent for it), which is the order and
    the ids in which :class:`~tabletop_gym.core.turn_based.TurnBasedGame` takes them. The
    record replays to the same position and returns; :func:`load_record` reads it back as the
    turn-based OpenSpiel game.

    Raises:
        ValueError: When the state's chance outcomes are not ``seed``'s deal.
    """
    game: TabletopGame = state.get_game()
    history = state.full_history()
    chance = [int(pa.action) for pa in history if pa.player == _CHANCE]
    expected = deal_draws(game.engine, seed)
    # A state still dealing has a prefix of the deal's outcomes (and no action yet).
    if chance != expected[: len(chance)]:
        raise ValueError(f"the state's chance outcomes are not the deal of seed {seed}")
    moves = [(int(pa.player), int(pa.action)) for pa in history if pa.player != _CHANCE]
    engine = game.engine
    if isinstance(engine, TurnBasedGame):
        transform: str | None = engine.transform_name
        actions = [a for _, a in moves]
    elif game.get_type().dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL:
        transform, actions = None, [a for _, a in moves]
    else:
        transform, actions = "turn_based", _turn_based_actions(engine, chance, moves)
    return GameRecord(
        game=game.spec.name,
        config=engine.config.to_dict(),
        seed=int(seed),
        actions=actions,
        transform=transform,
    )


def _turn_based_actions(engine: Game, draws: Sequence[int],
                        moves: Sequence[tuple[int, int]]) -> list[int]:
    """The turn-based transform's actions of a history played at native simultaneous nodes.

    OpenSpiel's history holds a joint action as one ``(seat, action)`` entry per seat, seats in
    order, so which entries belong to a joint action shows only by replaying the game: the
    engine replays ``moves`` from the deal of ``draws``.
    """
    if not moves:
        return []
    position = _deal(engine, draws)
    assert not isinstance(position, int)  # an action was taken, so the deal was complete
    n = engine.num_players
    actions: list[int] = []
    i = 0
    while i < len(moves):
        if position.current_player() != SIMULTANEOUS:
            position.apply_action(moves[i][1])
            actions.append(moves[i][1])
            i += 1
            continue
        entries = moves[i : i + n]
        assert [p for p, _ in entries] == list(range(n))  # how OpenSpiel stores a joint action
        joint = [a if position.legal_actions(p) else None for p, a in entries]
        actions.extend(a for a in joint if a is not None)
        position.apply_joint_action(joint)
        i += n
    return actions


# --- observations -------------------------------------------------------------------------------


def _format(values: np.ndarray) -> str:
    if bool(np.all(values == np.floor(values))):
        return " ".join(map(str, values.astype(np.int64).tolist()))
    return " ".join(f"{v:g}" for v in values.tolist())


class _PyObserver:
    """OpenSpiel's Python observer: the engine observer's vector, its slices and strings.

    With ``slices`` its ``dict`` holds every declared slice by name, in its shape (what
    ``pyspiel.Observation.dict`` shows); without, one entry ``"observation"``, the whole
    vector: the same tensor, which OpenSpiel copies out in one piece rather than slice by slice
    (about 15 times faster for Positano's 49 slices).
    """

    def __init__(self, game: TabletopGame, perfect_recall: bool, slices: bool = False):
        self._observer = game.observer
        layout = game.observer.layout
        self._slices = list(layout.slices.values())
        self._recall = perfect_recall
        self.tensor = np.zeros(layout.size, np.float32)
        self.dict = ({s.name: self.tensor[s.start : s.stop].reshape(s.shape)
                      for s in self._slices} if slices else {"observation": self.tensor})

    def set_from(self, state: TabletopState, player: int) -> None:
        engine = state._engine
        if engine is None:
            self.tensor.fill(0)
        else:
            self.tensor[:] = self._observer.encode(engine, player)

    def string_from(self, state: TabletopState, player: int) -> str:
        engine = state._engine
        lines = [f"seat {player}"]
        if self._recall:
            lines += [f"{actor}: {seen[player]}" for actor, seen in state._record.entries]
        if engine is None:
            lines.append(f"dealing ({len(state._draws)} draws made)")
            return "\n".join(lines)
        vec = self._observer.encode(engine, player)
        for s in self._slices:
            part = vec[s.start : s.stop]
            if part.any():
                lines.append(f"{s.name}: {_format(part)}")
        return "\n".join(lines)


# --- evolutionary ranking ------------------------------------------------------------------------


def league_alpharank(result: Mapping[str, Any], alpha: float = 5.0) -> dict[str, float]:
    """OpenSpiel's α-Rank of a two-seat round-robin league (``tabletop-gym suite leagues``).

    The league's ``matrix`` (row's win rate against column, a shared win counted half) is the
    payoff table of one population; an agent against itself scores 1/2.

    Args:
        result: The ``result`` object of a league file (``benchmarks/leagues/*-2p.json``).
        alpha: α-Rank's selection intensity.

    Returns:
        Each agent's mass in α-Rank's stationary distribution.

    Raises:
        ValueError: When ``result`` has no square ``matrix`` over its ``agents``.
    """
    from open_spiel.python.egt import alpharank

    agents = list(result.get("agents", []))
    table = np.array(result.get("matrix", []), dtype=float)
    if table.shape != (len(agents), len(agents)) or not agents:
        raise ValueError(
            f"a round-robin league result has a square 'matrix' over its 'agents'; got "
            f"{len(agents)} agents and a matrix of shape {table.shape}"
        )
    np.fill_diagonal(table, 0.5)
    # Large fixation exponents overflow to inf inside alpharank, which is their correct limit.
    with np.errstate(over="ignore"):
        pi = alpharank.compute([table], alpha=alpha)[2]
    return {a: max(0.0, float(x)) for a, x in zip(agents, pi, strict=True)}


# --- bots ---------------------------------------------------------------------------------------


class HeuristicBot(pyspiel.Bot):
    """The game's heuristic bot as an OpenSpiel bot of one seat.

    It reads only what OpenSpiel hands that seat: its ``observation_tensor`` and legal actions.
    """

    def __init__(self, game: TabletopGame, player_id: int, seed: int | None = None):
        """The heuristic of ``game`` for seat ``player_id``; ``seed`` breaks its ties."""
        pyspiel.Bot.__init__(self)
        from tabletop_gym.agents.heuristic import heuristic_for

        self._player = player_id
        self._num_actions = game.num_distinct_actions()
        self._bot = heuristic_for(game.engine, game.observer, np.random.default_rng(seed))

    def step(self, state: pyspiel.State) -> int:
        """The heuristic's action for this seat."""
        obs = np.asarray(state.observation_tensor(self._player), dtype=np.float32)
        mask = np.zeros(self._num_actions, dtype=np.int8)
        mask[state.legal_actions(self._player)] = 1
        return int(self._bot.act({"observation": obs, "action_mask": mask}))

    def restart_at(self, state: pyspiel.State) -> None:
        """Nothing to forget: the bot decides from the current observation alone."""

    def inform_action(self, state: pyspiel.State, player_id: int, action: int) -> None:
        """Nothing to remember (see :meth:`restart_at`)."""

    def inform_actions(self, state: pyspiel.State, actions: Sequence[int]) -> None:
        """Nothing to remember (see :meth:`restart_at`)."""


# --- registration -------------------------------------------------------------------------------


def _register(spec: GameSpec) -> type[TabletopGame]:
    """Register ``spec``'s game with OpenSpiel; its :class:`TabletopGame` subclass."""
    engine = spec.game_class()()
    utility, _ = _utility(engine)
    game_type = _game_type(spec, engine, _parameter_spec(spec, engine), utility)
    # A class, as OpenSpiel's own Python games register: OpenSpiel keeps the creator until the
    # process ends, and a class outlives the interpreter's clean-up where a plain function
    # (freed then, outside the interpreter's lock) would abort the exit.
    cls = type(f"{spec.title.replace(' ', '')}Game", (TabletopGame,), {
        "game_name": spec.name, "__module__": __name__,
        "__doc__": f"{spec.title} as an OpenSpiel game (see :class:`TabletopGame`)."})
    pyspiel.register_game(game_type, cls)
    return cls


GAME_CLASSES: dict[str, type[TabletopGame]] = {}
"""The OpenSpiel short name of every registered game -> its :class:`TabletopGame` subclass."""

for _spec in game_specs():
    GAME_CLASSES[PREFIX + _spec.name] = _register(_spec)
