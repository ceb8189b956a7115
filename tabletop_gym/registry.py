"""The game registry: one :class:`GameSpec` per game, read by every lookup in the package.

In the spirit of OpenSpiel's ``register_game``: a game is known to the package by one line of
:data:`GAMES` naming the ``GameSpec`` its package declares (``envs/<game>/spec.py``). The spec
names the game's engine, env modules, Gymnasium id and single-agent defaults, heuristic bot, the
configurations the generic tests run over and its golden playthroughs, and its
:class:`Benchmark` block holds everything the benchmark needs (the tasks and suites it
contributes, standard switches, board labels, reward texts, held-out population, league
line-ups, recipe budgets, baselines' rows, rules summary, move grammar, probes, TextArena id).
The CLI, evaluation, training, records, playthroughs, env registration, tasks, text views and
integrations all look games up here, so adding a game means one new package under ``envs/`` plus
one line of :data:`GAMES` (or one :func:`register_game` call), and no other module of the package
names a game (``tests/test_registry.py`` checks it).

Every reference is a ``"module:attribute"`` string imported on first use, so importing the
registry imports no spec, engine, observer or bot (and nothing here can form an import cycle);
a game's spec module imports nothing of its engine.

Example:
    >>> from tabletop_gym.registry import game_spec, game_names
    >>> game_names()
    ('rapa_nui', 'positano')
    >>> spec = game_spec("RapaNui-v0")  # names, env names and Gymnasium ids all resolve
    >>> spec.name, spec.env_name, spec.single_agent_defaults["num_players"]
    ('rapa_nui', 'rapa_nui_v0', 2)
    >>> spec.game_class()(num_players=3).num_players
    3
"""

from __future__ import annotations

import dataclasses
import difflib
import importlib
from collections.abc import Callable, Iterator, Mapping
from types import ModuleType
from typing import Any, Generic, TypeVar

__all__ = [
    "GAMES",
    "GENERIC_ENTRY_POINT",
    "Baselines",
    "Benchmark",
    "GameSpec",
    "LeagueLine",
    "Playthrough",
    "ProbeLine",
    "Recipe",
    "RegistryView",
    "TaskLine",
    "default_game",
    "game_names",
    "game_spec",
    "game_specs",
    "register_game",
    "resolve",
    "unregister_game",
]

GAMES: tuple[str, ...] = (
    "tabletop_gym.envs.rapa_nui.spec:SPEC",
    "tabletop_gym.envs.positano.spec:SPEC",
)
"""The games of the package: one ``"module:attribute"`` line per game, naming its
:class:`GameSpec`, in registration order (loaded on the first lookup)."""


@dataclasses.dataclass(frozen=True)
class Playthrough:
    """One golden playthrough file of a game (``tests/playthroughs/<file>.txt``).

    Attributes:
        file: File name without the ``.txt``.
        env_kwargs: Keyword arguments of the AEC ``raw_env`` (config switches and env options).
        seed: ``reset`` seed; it also seeds the random policy that picked the actions.
    """

    file: str
    env_kwargs: Mapping[str, Any]
    seed: int


@dataclasses.dataclass(frozen=True)
class TaskLine:
    """One benchmark task a game contributes (its id without the version).

    Attributes:
        name: The task's name, e.g. ``"Positano-2p-vsHeuristic"`` (the id is ``<name>-v0``).
        mode: ``"solo"``, ``"vs"`` (one learner against pinned bots) or ``"selfplay"``.
        num_players: Seats at the table.
        description: One line.
        config: Config fields the task pins beyond the seat count, the reward type and the
            game's :attr:`Benchmark.standard` switches (e.g. ``{"board_size": 4}``).
        opponents: The bots in every other seat of a ``"vs"`` task.
        core: Whether the task is in the ``core`` suite.
    """

    name: str
    mode: str
    num_players: int
    description: str
    config: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    opponents: str | None = None
    core: bool = False


@dataclasses.dataclass(frozen=True)
class LeagueLine:
    """One league of the results page (``<game>-<N>p``).

    Attributes:
        num_players: Seats (2: round robin of pairs; more: tables of distinct agents).
        agents: Agent specs, the heuristic first (it anchors the scale); ``jax-ppo`` is the
            learned agent.
        games: Two players: games per pair. More: deals per table.
        learned_task: ``None``: the shipped ``jax-ppo`` policy plays the learned agent; else the
            task id whose ``jax-ppo`` training seed 0 does.
    """

    num_players: int
    agents: tuple[str, ...]
    games: int
    learned_task: str | None = None


@dataclasses.dataclass(frozen=True)
class Recipe:
    """Where the SB3 recipe of the game's Gymnasium id departs from the shared one.

    Attributes:
        timesteps: PPO steps after the warm-up (``None``: the shared fine-tuning budget).
        env_kwargs: Env keywords used unless given.
        hparams: Hyper-parameters that replace the shared defaults.
    """

    timesteps: int | None = None
    env_kwargs: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    hparams: Mapping[str, Any] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class Baselines:
    """The game's rows of the baselines page.

    Attributes:
        heuristic_rows: The configs (seat count and switches) of the heuristic-against-random
            rows, in page order.
        ppo_players: Seat count of the shipped SB3 checkpoint's rows.
        search: The search agent of the ISMCTS row.
        search_games: Games of the ISMCTS row (whole deals, both seats).
        curve: The budget/strength curve's other points and their games.
        league_agent: The search agent of the page's league.
    """

    heuristic_rows: tuple[Mapping[str, Any], ...]
    ppo_players: int
    search: str
    search_games: int
    curve: tuple[tuple[str, int], ...]
    league_agent: str


@dataclasses.dataclass(frozen=True)
class ProbeLine:
    """One belief probe of the game (:mod:`tabletop_gym.text.probes`).

    Attributes:
        name: The probe's name.
        outcomes: ``"module:attribute"`` of its outcomes (a sequence of names).
        what: The question, with ``{seat}`` for the seat asked about.
        truth: ``"module:function"``: ``truth(state, seat)``, the distribution of the hidden
            quantity (``None`` where the probe does not apply).
    """

    name: str
    outcomes: str
    what: str
    truth: str


@dataclasses.dataclass(frozen=True)
class Benchmark:
    """What the benchmark floors (tasks, text, leagues, results) need to know about a game.

    Attributes:
        standard: The variant switches every task of the game pins (the rulebook reading).
        standard_text: How the tasks page shows a pinned switch's value, where not as the value.
        tasks: The tasks the game contributes, in catalogue order.
        board: ``config -> side`` of the board a task's page shows (``None``: no board label).
        solo_reward: The reward text of a solo task (``None``: the reward type's text).
        solo_opponent: Who a solo task plays, for the catalogue page.
        held_out: The held-out opponent population (bots no recipe trains against).
        leagues: The game's leagues on the results page.
        recipe: The SB3 recipe of its Gymnasium id.
        baselines: Its rows of the baselines page (``None``: none).
        summary: ``"module:attribute"`` of the rules summary a language model is given.
        grammar: The move grammar: ``(form shown to the model, pattern of the full names)``.
        kinds: ``"module:attribute"`` of the names ``KIND`` stands for in the grammar.
        probes: Its belief probes.
        textarena_id: The TextArena id :func:`tabletop_gym.text.textarena.register_envs` gives it.
        distill: Whether a heuristic is distilled into a network for it (needs a batched twin).
        search: The strongest ``search:`` spec measured for each table size, the one
            ``search:best`` plays there (needs a batched twin and its networks).
        default_for: The commands and defaults whose game it is when none is named (``"sb3"``
            training and ``"eval"``; ``"batched"`` JAX runs, ``"league"``, ``"play"``,
            ``"text"``, ``"exploit"``, ``"ladder"``, ``"rllib"``).
    """

    standard: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    standard_text: Mapping[str, str] = dataclasses.field(default_factory=dict)
    tasks: tuple[TaskLine, ...] = ()
    board: Callable[[Mapping[str, Any]], int | None] | None = None
    solo_reward: str | None = None
    solo_opponent: str | None = None
    held_out: tuple[str, ...] = ()
    leagues: tuple[LeagueLine, ...] = ()
    recipe: Recipe = dataclasses.field(default_factory=Recipe)
    baselines: Baselines | None = None
    summary: str | None = None
    grammar: tuple[tuple[str, str], ...] = ()
    kinds: str | None = None
    probes: tuple[ProbeLine, ...] = ()
    textarena_id: str | None = None
    distill: bool = False
    search: Mapping[int, str] = dataclasses.field(default_factory=dict)
    default_for: tuple[str, ...] = ()


GENERIC_ENTRY_POINT = "tabletop_gym.wrappers.single_agent:make_registered"
"""The Gymnasium entry point of every game's single-agent view unless its spec names another."""


@dataclasses.dataclass(frozen=True)
class GameSpec:
    """Everything the package needs to know to offer a game.

    Attributes:
        name: The engine's ``Game.name`` (``"positano"``), used in records and on the CLI.
        title: The game's name for people (``"Positano"``).
        engine: ``"module:Class"`` of the :class:`~tabletop_gym.core.game.Game` subclass.
        config: ``"module:Class"`` of its :class:`~tabletop_gym.core.game.GameConfig`.
        env_module: The versioned PettingZoo module (``env()``, ``raw_env()``,
            ``parallel_env()``).
        gym_id: The configurable Gymnasium id of the single-agent view.
        gym_entry_point: ``"module:function"`` that Gymnasium calls for :attr:`gym_id`
            (default: the one entry point of every game,
            :func:`tabletop_gym.wrappers.single_agent.make_registered`, given the game's name).
        max_episode_steps: Gymnasium's step limit (every game ends long before it).
        single_agent_defaults: Keyword defaults of the single-agent view (seat count,
            opponents); training and evaluation of a model use the same seat count.
        heuristic: ``"module:Class"`` of the rule-based bot, built as
            ``Class(game, observer, rng)``.
        player_counts: Every allowed number of seats.
        split_switch: The AEC env's switch that enters each simultaneous action as
            sub-decisions (``None``: the game has none); the CLI's ``--one-step-bid`` turns it
            off.
        train_timesteps: MaskablePPO budget from scratch on :attr:`gym_id` (about 10 minutes on
            2 CPU cores): the tasks' recommended budget. ``tabletop-gym train`` instead clones
            the heuristic and fine-tunes for ``training.DEFAULT_TIMESTEPS``.
        task_env_settings: Env switches every benchmark task of the game pins.
        test_configs: ``(id, config)`` of every configuration the generic tests run over.
        playthroughs: The golden playthroughs that pin the game's trajectories.
        batched: ``"module:function"`` binding the batched JAX engine to a config
            (``function(config) -> tabletop_gym.core.batched.BatchedGame``); ``None``: the game has
            none. Needs the ``jax`` extra.
        benchmark: What the benchmark floors need (:class:`Benchmark`).
        docs_tables: ``"module:attribute"`` of the mapping ``name -> generator`` of the
            tables its docs page holds (``tools/docs_tables.py`` writes each as
            ``<game>-<name>``); ``None``: none.
    """

    name: str
    title: str
    engine: str
    config: str
    env_module: str
    gym_id: str
    max_episode_steps: int
    single_agent_defaults: Mapping[str, Any]
    heuristic: str
    player_counts: tuple[int, ...]
    train_timesteps: int
    gym_entry_point: str = GENERIC_ENTRY_POINT
    split_switch: str | None = None
    task_env_settings: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    test_configs: tuple[tuple[str, Mapping[str, Any]], ...] = ()
    playthroughs: tuple[Playthrough, ...] = ()
    batched: str | None = None
    docs_tables: str | None = None
    benchmark: Benchmark = dataclasses.field(default_factory=Benchmark)

    @property
    def env_name(self) -> str:
        """The PettingZoo env name (``"positano_v0"``): the last part of :attr:`env_module`."""
        return self.env_module.rsplit(".", 1)[1]

    @property
    def gym_kwargs(self) -> dict[str, Any]:
        """The keywords Gymnasium gives :attr:`gym_entry_point`.

        The game's name for the generic entry point, none for a game's own.
        """
        return {"game": self.name} if self.gym_entry_point == GENERIC_ENTRY_POINT else {}

    @property
    def aliases(self) -> tuple[str, ...]:
        """Every name :func:`game_spec` resolves to this game."""
        return (self.name, self.env_name, self.gym_id, f"tabletop_gym/{self.gym_id}")

    def game_class(self) -> type[Any]:
        """The engine's ``Game`` subclass (imported on first use)."""
        cls: type[Any] = _load(self.engine)
        return cls

    def config_class(self) -> type[Any]:
        """The game's config dataclass (imported on first use)."""
        cls: type[Any] = _load(self.config)
        return cls

    def envs(self) -> ModuleType:
        """The versioned PettingZoo env module (imported on first use)."""
        return importlib.import_module(self.env_module)

    def batched_spec(self) -> Any:
        """The function binding the batched engine to a config (imports JAX).

        Raises:
            ValueError: When the game has no batched engine.
        """
        if self.batched is None:
            raise ValueError(f"game {self.name!r} has no batched engine")
        return _load(self.batched)

    def heuristic_class(self) -> type[Any]:
        """The heuristic bot's class (imported on first use)."""
        cls: type[Any] = _load(self.heuristic)
        return cls


def resolve(ref: str) -> Any:
    """The object a ``"module:attribute"`` reference names (its module imported on first use)."""
    return _load(ref)


def _load(ref: str) -> Any:
    module, attr = ref.split(":")
    return getattr(importlib.import_module(module), attr)


_REGISTRY: dict[str, GameSpec] = {}
_ALIASES: dict[str, str] = {}
_LOADED = False
_GENERATION = 0
"""Bumped by every change of the registered games (what :class:`RegistryView` recomputes on)."""


def _load_games() -> None:
    global _LOADED
    if _LOADED:
        return
    _LOADED = True  # first: a spec module that looks a game up while loading must not recurse
    for ref in GAMES:
        register_game(ref)


def register_game(spec: GameSpec | str) -> GameSpec:
    """Make ``spec``'s game known to the package.

    Args:
        spec: The spec, or ``"module:attribute"`` of it (how :data:`GAMES` names them).

    Raises:
        ValueError: When its name or one of its aliases is taken by another game.
        TypeError: When ``spec`` is, or names, something other than a :class:`GameSpec`.
    """
    global _GENERATION
    _load_games()
    if isinstance(spec, str):
        spec = _load(spec)
    if not isinstance(spec, GameSpec):
        raise TypeError(f"register_game takes a GameSpec or 'module:attribute' of one, "
                        f"got {type(spec).__name__}")
    taken = [a for a in spec.aliases if a in _ALIASES]
    if taken:
        raise ValueError(f"cannot register game {spec.name!r}: {taken} already name a game")
    _REGISTRY[spec.name] = spec
    for alias in spec.aliases:
        _ALIASES[alias] = spec.name
    _GENERATION += 1
    return spec


def unregister_game(name: str) -> None:
    """Forget a registered game (a test's game, registered for the test).

    Raises:
        ValueError: On an unknown name.
    """
    global _GENERATION
    spec = game_spec(name)
    del _REGISTRY[spec.name]
    for alias in spec.aliases:
        del _ALIASES[alias]
    _GENERATION += 1


def game_spec(name: str) -> GameSpec:
    """The spec of a game given by name, env name or Gymnasium id.

    Raises:
        ValueError: On an unknown name (the message names the closest known one and every
            game).
    """
    _load_games()
    key = _ALIASES.get(name) if isinstance(name, str) else None
    if key is None:
        close = difflib.get_close_matches(str(name), list(_ALIASES), n=1, cutoff=0.6)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ValueError(f"unknown game {name!r}{hint}; known games: {list(_REGISTRY)}")
    return _REGISTRY[key]


def game_names() -> tuple[str, ...]:
    """Names of every registered game, in registration order."""
    _load_games()
    return tuple(_REGISTRY)


def game_specs() -> tuple[GameSpec, ...]:
    """Every registered game's spec, in registration order."""
    _load_games()
    return tuple(_REGISTRY.values())


def default_game(role: str) -> str:
    """The game a command or default plays when none is named.

    The game whose :attr:`Benchmark.default_for` names ``role``.

    Raises:
        ValueError: When no registered game is the default for ``role``.
    """
    for spec in game_specs():
        if role in spec.benchmark.default_for:
            return spec.name
    raise ValueError(f"no registered game is the default for {role!r}")


K = TypeVar("K")
V = TypeVar("V")


class RegistryView(Mapping[K, V], Generic[K, V]):
    """A read-only mapping computed from the registered games, recomputed when they change.

    Module-level tables of the upper floors (the tasks, suites, held-out populations, leagues)
    are views, so a game registered later (a test's toy game) appears in every one of them.

    Args:
        build: Computes the whole mapping from :func:`game_specs`.
    """

    def __init__(self, build: Callable[[], Mapping[K, V]]):
        self._build = build
        self._generation = -1
        self._data: dict[K, V] = {}

    def _current(self) -> dict[K, V]:
        _load_games()
        if self._generation != _GENERATION:
            self._data = dict(self._build())
            self._generation = _GENERATION
        return self._data

    def __getitem__(self, key: K) -> V:
        return self._current()[key]

    def __iter__(self) -> Iterator[K]:
        return iter(self._current())

    def __len__(self) -> int:
        return len(self._current())

    def __repr__(self) -> str:
        return repr(self._current())
