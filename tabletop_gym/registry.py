"""The game registry: one :class:`GameSpec` per game, read by every lookup in the package.

In the spirit of OpenSpiel's ``register_game``: a game is known to the package by one
registration that names its engine, its env modules, its Gymnasium id and single-agent defaults,
its heuristic bot, the configurations the generic tests run over and its golden playthroughs.
The CLI, evaluation, training, records, playthroughs, env registration, tasks and integrations
all look games up here, so adding a game means one new package under ``envs/`` plus one
:func:`register_game` call (at the end of this module).

Every reference is a ``"module:attribute"`` string imported on first use, so importing the
registry imports no engine, observer or bot (and nothing here can form an import cycle).

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
from collections.abc import Mapping
from types import ModuleType
from typing import Any

__all__ = ["GameSpec", "Playthrough", "game_names", "game_spec", "game_specs", "register_game"]


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
        gym_entry_point: ``"module:function"`` that Gymnasium calls for :attr:`gym_id`.
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
            (``function(config) -> tabletop_gym.jax.core.BatchedGame``); ``None``: the game has
            none. Needs the ``jax`` extra.
    """

    name: str
    title: str
    engine: str
    config: str
    env_module: str
    gym_id: str
    gym_entry_point: str
    max_episode_steps: int
    single_agent_defaults: Mapping[str, Any]
    heuristic: str
    player_counts: tuple[int, ...]
    train_timesteps: int
    split_switch: str | None = None
    task_env_settings: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    test_configs: tuple[tuple[str, Mapping[str, Any]], ...] = ()
    playthroughs: tuple[Playthrough, ...] = ()
    batched: str | None = None

    @property
    def env_name(self) -> str:
        """The PettingZoo env name (``"positano_v0"``): the last part of :attr:`env_module`."""
        return self.env_module.rsplit(".", 1)[1]

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

    def people_env(self, split: bool = True, **kwargs: Any) -> Any:
        """The raw AEC env a person plays (the CLI's ``play`` and the web app).

        With ``split``, each simultaneous action is entered as sub-decisions wherever the
        configuration has one (a Positano bid as two clicks, the card and then the booster,
        rather than one of 42 pairs). A configuration without a simultaneous action to split
        (Positano solo, where the player bids alone) refuses :attr:`split_switch`, and is then
        played with single decisions.

        Args:
            split: Turn :attr:`split_switch` on where the configuration allows it.
            **kwargs: ``raw_env`` keywords (config switches, ``render_mode``).

        Raises:
            ConfigError: For a bad configuration (the env's own message).
        """
        # Imported here: core's records and playthroughs import this module.
        from tabletop_gym.core.game import ConfigError

        cls = self.envs().raw_env
        if split and self.split_switch is not None:
            try:
                return cls(**{**kwargs, self.split_switch: True})
            except ConfigError:
                pass
        return cls(**kwargs)

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


def _load(ref: str) -> Any:
    module, attr = ref.split(":")
    return getattr(importlib.import_module(module), attr)


_REGISTRY: dict[str, GameSpec] = {}
_ALIASES: dict[str, str] = {}


def register_game(spec: GameSpec) -> GameSpec:
    """Make ``spec``'s game known to the package.

    Raises:
        ValueError: When its name or one of its aliases is taken by another game.
    """
    taken = [a for a in spec.aliases if a in _ALIASES]
    if taken:
        raise ValueError(f"cannot register game {spec.name!r}: {taken} already name a game")
    _REGISTRY[spec.name] = spec
    for alias in spec.aliases:
        _ALIASES[alias] = spec.name
    return spec


def game_spec(name: str) -> GameSpec:
    """The spec of a game given by name, env name or Gymnasium id.

    Raises:
        ValueError: On an unknown name (the message names the closest known one and every
            game).
    """
    key = _ALIASES.get(name) if isinstance(name, str) else None
    if key is None:
        close = difflib.get_close_matches(str(name), list(_ALIASES), n=1, cutoff=0.6)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ValueError(f"unknown game {name!r}{hint}; known games: {list(_REGISTRY)}")
    return _REGISTRY[key]


def game_names() -> tuple[str, ...]:
    """Names of every registered game, in registration order."""
    return tuple(_REGISTRY)


def game_specs() -> tuple[GameSpec, ...]:
    """Every registered game's spec, in registration order."""
    return tuple(_REGISTRY.values())


# --- the games ------------------------------------------------------------------------------

register_game(GameSpec(
    name="rapa_nui",
    title="Rapa Nui",
    engine="tabletop_gym.envs.rapa_nui.rules:RapaNuiGame",
    config="tabletop_gym.envs.rapa_nui.rules:RapaNuiConfig",
    env_module="tabletop_gym.envs.rapa_nui_v0",
    gym_id="RapaNui-v0",
    gym_entry_point="tabletop_gym.wrappers.single_agent:make_rapa_nui",
    max_episode_steps=1000,
    single_agent_defaults={"num_players": 2, "opponents": "heuristic"},
    heuristic="tabletop_gym.agents.rapa_nui_heuristic:RapaNuiHeuristic",
    player_counts=(2, 3, 4),
    train_timesteps=3_000_000,
    test_configs=(
        ("2p", {"num_players": 2}),
        ("3p", {"num_players": 3}),
        ("4p", {"num_players": 4}),
    ),
    playthroughs=(
        Playthrough("rapa_nui_2p", {"num_players": 2}, 2024),
        Playthrough("rapa_nui_4p", {"num_players": 4}, 7),
    ),
    batched="tabletop_gym.envs.rapa_nui.batched:batched_spec",
))

register_game(GameSpec(
    name="positano",
    title="Positano",
    engine="tabletop_gym.envs.positano.rules:PositanoGame",
    config="tabletop_gym.envs.positano.rules:PositanoConfig",
    env_module="tabletop_gym.envs.positano_v0",
    gym_id="Positano-v0",
    gym_entry_point="tabletop_gym.wrappers.single_agent:make_positano",
    max_episode_steps=400,
    single_agent_defaults={"num_players": 1},
    heuristic="tabletop_gym.agents.positano_heuristic:PositanoHeuristic",
    player_counts=(1, 2, 3, 4, 5, 6),
    train_timesteps=1_500_000,
    split_switch="split_bids",
    task_env_settings={"split_bids": False},
    test_configs=(
        ("1p", {"num_players": 1}),
        ("2p", {"num_players": 2}),
        ("3p", {"num_players": 3}),
        ("4p", {"num_players": 4}),
        ("5p", {"num_players": 5}),
        ("6p", {"num_players": 6}),
        ("4p5x5", {"num_players": 4, "board_size": 5}),
    ),
    playthroughs=(
        Playthrough("positano_2p", {"num_players": 2}, 2025),
        Playthrough("positano_4p", {"num_players": 4}, 11),
        Playthrough("positano_4p_5x5", {"board_size": 5, "num_players": 4}, 5),
        Playthrough("positano_solo", {"num_players": 1}, 3),
        Playthrough("positano_3p_split", {"num_players": 3, "split_bids": True}, 8),
    ),
    batched="tabletop_gym.envs.positano.batched:batched_spec",
))
