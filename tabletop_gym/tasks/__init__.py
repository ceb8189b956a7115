"""Benchmark tasks: versioned ids that pin every setting, and named suites of them.

A task id such as ``Positano-2p-vsHeuristic-v0`` names one exact benchmark: the game, the player
count, the board, every variant switch, the reward, the learner's seat policy and the opponents.
Two papers that report on the same id and version ran the same environment.

* Single-agent tasks (solo, or one learner against pinned bots) are Gymnasium ids:
  ``gymnasium.make("Positano-2p-vsHeuristic-v0")``.
* Self-play tasks (every seat a learner) are PettingZoo ids:
  ``pettingzoo.make("aec", "tabletop_gym/RapaNui-4p-SelfPlay-v0")`` (and ``"parallel"`` where
  the game has a parallel env).
* :func:`make` builds either from the id alone.

A task refuses a keyword that would change one of its pinned settings (:class:`PinnedSettingError`
names the setting and the configurable base id to use instead); only presentation keywords that
change no trajectory (``render_mode``, ``observation_type``, ``illegal_action``) are accepted.

Versioning rule (also in CHANGELOG.md): any change that can change a trajectory or a reward for the
same seed and actions bumps the version of every task it touches.

Example:
    >>> from tabletop_gym import tasks
    >>> info = tasks.describe("RapaNui-2p-vsHeuristic-v0")
    >>> info["num_players"], info["opponents"], info["reward_type"]
    (2, 'heuristic', 'win_loss')
    >>> sorted(tasks.SUITES)
    ['core', 'full', 'positano', 'rapa_nui', 'selfplay']
"""

from __future__ import annotations

import dataclasses
import difflib
import importlib
from collections.abc import Mapping
from typing import Any

from tabletop_gym.registry import GameSpec, RegistryView, TaskLine, game_spec, game_specs

__all__ = [
    "BASE_IDS",
    "SUITES",
    "TASKS",
    "PinnedSettingError",
    "Suite",
    "Task",
    "describe",
    "make",
    "register_tasks",
    "suite_tasks",
]


class PinnedSettingError(ValueError):
    """A keyword would change a setting that a task id pins."""


def _specs() -> list[GameSpec]:
    return sorted(game_specs(), key=lambda spec: spec.name)


def _games() -> dict[str, dict[str, Any]]:
    return {
        spec.name: {
            "title": spec.title,
            "module": spec.env_module,
            "base_id": spec.gym_id,
            "max_episode_steps": spec.max_episode_steps,
            "config": spec.config,
            "env_settings": dict(spec.task_env_settings),
            "standard": dict(spec.benchmark.standard),
            "recommended_timesteps": spec.train_timesteps,
        }
        for spec in _specs()
    }


GAMES: RegistryView[str, dict[str, Any]] = RegistryView(_games)
"""Per game, from its registration: the PettingZoo module, the configurable Gymnasium base id,
the variant switches every task pins (``standard``) and the training budget."""

FREE_KWARGS = {
    "gymnasium": ("render_mode", "observation_type", "illegal_action"),
    "pettingzoo": ("render_mode", "illegal_action"),
}
"""Keywords a pinned task accepts: presentation only, they change no trajectory or reward."""

MODES = ("solo", "vs", "selfplay")


@dataclasses.dataclass(frozen=True)
class Task:
    """One benchmark task: every setting that decides a trajectory and a reward.

    Attributes:
        name: The id without its version, e.g. ``"Positano-2p-vsHeuristic"``.
        version: Bumped by any change that can change a trajectory or a reward.
        game: The registered game's name (``"positano"``).
        mode: ``"solo"`` (one player against the game's automa), ``"vs"`` (one learner against
            pinned bots; a Gymnasium env) or ``"selfplay"`` (every seat a learner; PettingZoo).
        config: The game config, every field given explicitly.
        opponents: The bots in every other seat (``"vs"``), else ``None``.
        seat_mode: The learner's seat policy in the Gymnasium env (``"rotate"``:
            ``reset(seed=e)`` plays seat ``e mod n``, each unseeded reset one seat on); ``None``
            for self-play.
        reference_opponents: Who fills the other seats when an agent is scored on the task (solo:
            the policy that plays the same deals for the win-rate comparison).
        description: One line.
    """

    name: str
    version: int
    game: str
    mode: str
    config: Mapping[str, Any]
    opponents: str | None
    seat_mode: str | None
    reference_opponents: tuple[str, ...]
    description: str

    @property
    def id(self) -> str:
        """The versioned id, e.g. ``"Positano-2p-vsHeuristic-v0"``."""
        return f"{self.name}-v{self.version}"

    @property
    def num_players(self) -> int:
        """Seats at the table (solo Positano: 1)."""
        return int(self.config["num_players"])

    @property
    def interfaces(self) -> tuple[str, ...]:
        """How the task is made: ``gymnasium`` or PettingZoo's ``aec`` / ``parallel``."""
        if self.mode == "selfplay":
            return ("pettingzoo.aec", "pettingzoo.parallel")
        return ("gymnasium",)

    @property
    def env_settings(self) -> dict[str, Any]:
        """Env-level switches that change the action sequence (Positano: ``split_bids``)."""
        return dict(GAMES[self.game]["env_settings"])

    def pinned(self) -> dict[str, Any]:
        """Every keyword this task fixes, with its value (what a make call may not change).

        Config fields the task does not name (a switch added later) are pinned at their
        defaults, which is how the task's env is built.
        """
        out: dict[str, Any] = _config_defaults(self.game, **self.config)
        out.update(self.env_settings)
        out["opponents"] = self.opponents
        if self.mode != "selfplay":
            out.update(seat_mode=self.seat_mode, learner_seat=0)
        return out


def _plain(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def _task(game: str, line: TaskLine) -> Task:
    config: dict[str, Any] = {"num_players": line.num_players, **line.config,
                              "reward_type": "win_loss", **GAMES[game]["standard"]}
    if line.mode == "selfplay":
        refs: tuple[str, ...] = ("random", "heuristic")
    elif line.mode == "solo":
        refs = ("heuristic",)
    else:
        refs = (str(line.opponents),)
    return Task(
        name=line.name, version=0, game=game, mode=line.mode, config=config,
        opponents=line.opponents,
        seat_mode="rotate" if line.mode == "vs" else ("fixed" if line.mode == "solo" else None),
        reference_opponents=refs, description=line.description,
    )


def _build_tasks() -> dict[str, Task]:
    out = [_task(spec.name, line) for spec in _specs() for line in spec.benchmark.tasks]
    return {t.id: t for t in out}


TASKS: RegistryView[str, Task] = RegistryView(_build_tasks)
"""Every pinned task, by versioned id (the tasks of every registered game's benchmark block)."""


@dataclasses.dataclass(frozen=True)
class Suite:
    """A named set of tasks with its recommended budgets and evaluation protocol.

    Attributes:
        name: Suite name.
        task_ids: The tasks, in report order.
        description: One line.
        seeds: Evaluation seeds (each seed is a block of fresh deals). The deals per seed are
            the protocol's, set per task by the power rule and recorded with its reference
            scores (:func:`tabletop_gym.tasks.runner.protocol_deals`); a multi-player deal is
            played once from every seat (seat rotation), a solo deal once by the agent and once
            by the reference policy.
        train_timesteps: Recommended training budget per task (environment steps of the learner).
    """

    name: str
    task_ids: tuple[str, ...]
    description: str
    seeds: int = 5

    def train_timesteps(self, task_id: str) -> int:
        """Recommended training budget for one task of the suite."""
        return int(GAMES[TASKS[task_id].game]["recommended_timesteps"])


def _build_suites() -> dict[str, Suite]:
    specs = _specs()
    core = tuple(f"{line.name}-v0" for spec in specs for line in spec.benchmark.tasks
                 if line.core)
    return {
        "core": Suite("core", core, "One task per game and mode (solo, against bots, self-play)."),
        "full": Suite("full", tuple(TASKS), "Every registered task."),
        **{spec.name: Suite(spec.name, tuple(i for i, t in TASKS.items() if t.game == spec.name),
                            f"Every {spec.title} task (one checkpoint can play all of them).")
           for spec in specs if spec.benchmark.tasks},
        "selfplay": Suite("selfplay", tuple(i for i, t in TASKS.items() if t.mode == "selfplay"),
                          "Every self-play task, scored against the reference bots."),
    }


SUITES: RegistryView[str, Suite] = RegistryView(_build_suites)
"""Named suites."""


def suite_tasks(name: str) -> list[Task]:
    """The tasks of suite ``name``.

    Raises:
        ValueError: On an unknown suite (the message lists the suites).
    """
    if name not in SUITES:
        raise ValueError(f"unknown suite {name!r}; choose one of {sorted(SUITES)}")
    return [TASKS[i] for i in SUITES[name].task_ids]


# --- the configurable ids that existed before tasks ------------------------------------------

def _base_ids() -> dict[str, dict[str, Any]]:
    return {
        **{
            spec.gym_id: {
                "game": spec.name, "interface": "gymnasium",
                "defaults": {"num_players": spec.single_agent_defaults["num_players"],
                             "opponents": spec.single_agent_defaults.get("opponents", "random"),
                             "seat_mode": "fixed", "learner_seat": 0},
            }
            for spec in _specs()
        },
        **{spec.env_name: {"game": spec.name, "interface": "pettingzoo", "defaults": {}}
           for spec in _specs()},
    }


BASE_IDS: RegistryView[str, dict[str, Any]] = RegistryView(_base_ids)
"""The configurable ids (Gymnasium ids and PettingZoo modules) and their defaults."""
_ALIASES: RegistryView[str, str] = RegistryView(
    lambda: {f"tabletop_gym/{spec.gym_id}": spec.env_name for spec in _specs()})


def _config_defaults(game: str, **overrides: Any) -> dict[str, Any]:
    defaults: dict[str, Any] = game_spec(game).config_class().from_kwargs(**overrides).to_dict()
    return defaults


def describe(task_id: str) -> dict[str, Any]:
    """Every setting an id fixes, and a one-line description.

    Args:
        task_id: A task id (``"Positano-2p-vsHeuristic-v0"``) or a configurable id
            (``"Positano-v0"``, ``"RapaNui-v0"``, ``"positano_v0"``, ``"rapa_nui_v0"``,
            ``"tabletop_gym/Positano-v0"``), for which the defaults are reported with
            ``"pinned": False``.

    Raises:
        KeyError: On an unknown id (the message suggests close ids).
    """
    task_id = _ALIASES.get(task_id, task_id)
    if task_id in TASKS:
        t = TASKS[task_id]
        config = _config_defaults(t.game, **t.config)
        return {
            "id": t.id,
            "name": t.name,
            "version": t.version,
            "pinned": True,
            "description": t.description,
            "game": t.game,
            "mode": t.mode,
            "num_players": t.num_players,
            "board_size": _board(t.game, config),
            "reward_type": config["reward_type"],
            "reward": _reward_text(t.game, config),
            "config": config,
            "env_settings": t.env_settings,
            "opponents": t.opponents,
            "seat_mode": t.seat_mode,
            "learner_seat": 0 if t.mode != "selfplay" else None,
            "reference_opponents": list(t.reference_opponents),
            "interfaces": list(t.interfaces),
            "base_id": GAMES[t.game]["base_id"],
            "max_episode_steps": GAMES[t.game]["max_episode_steps"],
            "recommended_timesteps": GAMES[t.game]["recommended_timesteps"],
        }
    if task_id in BASE_IDS:
        base = BASE_IDS[task_id]
        game = base["game"]
        defaults = dict(base["defaults"])
        config = _config_defaults(game, **{k: v for k, v in defaults.items()
                                           if k == "num_players"})
        gym = base["interface"] == "gymnasium"
        return {
            "id": task_id,
            "pinned": False,
            "description": (f"Configurable {GAMES[game]['title']} "
                            f"{'Gymnasium id' if gym else 'PettingZoo env'}: every keyword may "
                            "change a setting, so a paper must list them all; these are the "
                            "defaults."),
            "game": game,
            "mode": ("solo" if config["num_players"] == 1 else "vs") if gym else "selfplay",
            "num_players": config["num_players"],
            "board_size": _board(game, config),
            "reward_type": config["reward_type"],
            "reward": _reward_text(game, config),
            "config": config,
            "env_settings": dict(GAMES[game]["env_settings"]),
            "opponents": defaults.get("opponents"),
            "seat_mode": defaults.get("seat_mode"),
            "learner_seat": defaults.get("learner_seat"),
            "interfaces": ["gymnasium"] if gym else ["pettingzoo.aec", "pettingzoo.parallel"],
            "max_episode_steps": GAMES[game]["max_episode_steps"] if gym else None,
        }
    known = [*TASKS, *BASE_IDS]
    close = difflib.get_close_matches(task_id, known, n=3)
    hint = f"; did you mean {close}?" if close else f"; known ids: {known}"
    raise KeyError(f"unknown task id {task_id!r}{hint}")


def _board(game: str, config: Mapping[str, Any]) -> int | None:
    board = game_spec(game).benchmark.board
    return None if board is None else board(config)


def _reward_text(game: str, config: Mapping[str, Any]) -> str:
    solo = game_spec(game).benchmark.solo_reward
    if solo is not None and config["num_players"] == 1:
        return solo
    return {
        "win_loss": "at the end: +1 each winner, -1 each other player, 0 all if all tie",
        "score_diff": "at the end: own score minus the mean of the others' scores",
        "score": "at the end: own final score",
    }[config["reward_type"]]


# --- making tasks ------------------------------------------------------------------------------


def _check_kwargs(task: Task, kind: str, kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """Refuse every keyword that would change a pinned setting; the presentation keywords.

    Validates everything before anything is built.
    """
    pinned = task.pinned()
    free = FREE_KWARGS[kind]
    for key, value in kwargs.items():
        if key in free:
            continue
        if key in pinned:
            if _plain(value) == pinned[key]:
                continue  # restating the pinned value changes nothing
            base = GAMES[task.game]["base_id"] if kind == "gymnasium" else (
                f"tabletop_gym/{GAMES[task.game]['base_id']}")
            raise PinnedSettingError(
                f"{task.id} pins {key}={pinned[key]!r}; it cannot be changed to {value!r}. "
                f"For another {key}, use the configurable base id {base!r} (and report every "
                "keyword), or a task that pins the value you want"
            )
        allowed = sorted({*free, *pinned})
        close = difflib.get_close_matches(key, allowed, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise TypeError(f"{task.id} got an unexpected keyword {key!r}{hint}; it accepts only "
                        f"{list(free)} (pinned: {sorted(pinned)})")
    return {k: v for k, v in kwargs.items() if k in free}


def _get(task_id: str, mode: str | tuple[str, ...]) -> Task:
    if task_id not in TASKS:
        describe(task_id)  # raises the KeyError with suggestions
        raise KeyError(f"{task_id!r} is a configurable id, not a pinned task")
    task = TASKS[task_id]
    modes = (mode,) if isinstance(mode, str) else mode
    if task.mode not in modes:
        raise ValueError(f"{task_id} is a {task.mode} task; it is made with "
                         f"{' / '.join(task.interfaces)}")
    return task


def make_gym_env(task: str, **kwargs: Any) -> Any:
    """Gymnasium entry point of a solo or against-bots task (``gymnasium.make(task_id)``)."""
    t = _get(task, ("solo", "vs"))
    kwargs = _check_kwargs(t, "gymnasium", kwargs)
    from tabletop_gym.wrappers.single_agent import make_single_agent

    raw = importlib.import_module(GAMES[t.game]["module"]).raw_env
    # Solo has no other seat, so the opponent spec is never used.
    opponents = t.opponents if t.opponents is not None else "random"
    return make_single_agent(raw, **t.config, **t.env_settings, opponents=opponents,
                             learner_seat=0, seat_mode=str(t.seat_mode), **kwargs)


def make_aec_env(task: str, **kwargs: Any) -> Any:
    """PettingZoo AEC entry point of a self-play task (order-enforced, like ``env()``)."""
    t = _get(task, "selfplay")
    kwargs = _check_kwargs(t, "pettingzoo", kwargs)
    module = importlib.import_module(GAMES[t.game]["module"])
    return module.env(**t.config, **t.env_settings, **kwargs)


def make_parallel_env(task: str, **kwargs: Any) -> Any:
    """PettingZoo parallel entry point of a self-play task.

    Raises:
        ValueError: When the game has no parallel env in this version.
    """
    t = _get(task, "selfplay")
    kwargs = _check_kwargs(t, "pettingzoo", kwargs)
    module = importlib.import_module(GAMES[t.game]["module"])
    if not hasattr(module, "parallel_env"):
        raise ValueError(f"{GAMES[t.game]['title']} has no parallel env in this version; make "
                         f"{t.id} with pettingzoo.make('aec', 'tabletop_gym/{t.id}')")
    split = game_spec(t.game).split_switch
    settings = {k: v for k, v in t.env_settings.items() if k != split}
    return module.parallel_env(**t.config, **settings, **kwargs)


def make(task_id: str, parallel: bool = False, **kwargs: Any) -> Any:
    """Build a task from its id: a Gymnasium env (solo, against bots) or a PettingZoo env.

    Args:
        task_id: A task id of :data:`TASKS`.
        parallel: Self-play tasks: the parallel env instead of the AEC env.
        **kwargs: Presentation keywords only (:data:`FREE_KWARGS`).
    """
    t = _get(task_id, MODES)
    if t.mode == "selfplay":
        return (make_parallel_env if parallel else make_aec_env)(task_id, **kwargs)
    import gymnasium

    return gymnasium.make(task_id, **kwargs)


def register_tasks() -> None:
    """Register every task with Gymnasium (solo, against bots) or PettingZoo (self-play).

    Idempotent: ids already registered are left alone.
    """
    import gymnasium

    for task in TASKS.values():
        if task.mode != "selfplay" and task.id not in gymnasium.registry:
            gymnasium.register(task.id, entry_point="tabletop_gym.tasks:make_gym_env",
                               max_episode_steps=GAMES[task.game]["max_episode_steps"],
                               kwargs={"task": task.id})
    try:
        from pettingzoo import register as pz_register, spec as pz_spec
    except ImportError:  # PettingZoo before its registry existed
        return
    for task in TASKS.values():
        if task.mode != "selfplay":
            continue
        for kind, entry in (("aec", "make_aec_env"), ("parallel", "make_parallel_env")):
            pz_id = f"tabletop_gym/{task.id}"
            try:
                pz_spec(kind, pz_id)
                continue
            except Exception:
                pass
            pz_register(kind, pz_id, entry_point=f"tabletop_gym.tasks:{entry}",
                        kwargs={"task": task.id})
