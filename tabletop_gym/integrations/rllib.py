"""RLlib: multi-agent self-play with PPO and action masks, on one machine or a Ray cluster.

RLlib's ``ActionMaskingTorchRLModule`` (``ray.rllib.examples.rl_modules.classes.
action_masking_rlm``) expects a ``Dict`` observation ``{"observations": ..., "action_mask":
...}``; :func:`rllib_env` gives RLlib's ``PettingZooEnv`` (AEC: only the agent to act observes,
one agent per step) or ``ParallelPettingZooEnv`` (every agent every step; the agents not to act
send the no-op, the only id in their mask) over the ``"rllib"`` mask layout. The module adds
``log(mask)`` (clamped to the smallest float) to the logits, so an illegal action has
probability exactly 0 and is never sampled, in training and in play.

On top of that:

* :func:`policy_mapping`: which RLlib module plays which seat: ``"shared"`` (one policy for all
  seats, plain self-play), ``"per_seat"`` (one policy per seat) or ``"pool"`` (a ``"learner"``
  against frozen snapshots of itself, refreshed every K iterations by :class:`OpponentPool`);
* :func:`ppo_config`: a ``PPOConfig`` with all of it wired up;
* :class:`RLlibAgent`: a trained module as an agent of :mod:`tabletop_gym.arena.evaluation`;
* :func:`selfplay`: the training loop of ``tabletop-gym train --backend rllib`` and
  ``examples/rllib_selfplay.py`` (progress line per iteration, checkpoints under ``runs/``,
  evaluation against the heuristic bot at the end).

Ray is imported only when one of these is called; it pins its own gymnasium, so ``make test``
runs these tests in ``.venv-rllib`` (docs/scale-out.md).

Example (in a venv with ``ray[rllib]``)::

    from ray.tune.registry import register_env
    from tabletop_gym.integrations.rllib import rllib_env

    register_env("rapa_nui", lambda cfg: rllib_env("rapa_nui", **cfg))
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import pathlib
import time
import zlib
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tabletop_gym.integrations.layouts import make_env
from tabletop_gym.registry import default_game, game_spec

INSTALL_HINT = (
    'the RLlib backend needs Ray RLlib: pip install "tabletop-gym[rllib]". Ray pins its own '
    "gymnasium, so give it a venv of its own: python -m venv .venv-rllib && "
    ".venv-rllib/bin/pip install torch==2.13.0 && .venv-rllib/bin/pip install -e \".[rllib]\" "
    "(make .venv-rllib/.installed does the same)"
)
"""What to do when ray is missing (the CLI prints it)."""

MAPPINGS = ("shared", "per_seat", "pool")
"""The policy mappings of :func:`policy_mapping`."""



def require_ray() -> None:
    """Raise ``ImportError`` with :data:`INSTALL_HINT` when ``ray[rllib]`` is not installed."""
    try:
        import ray.rllib  # noqa: F401
    except ImportError as exc:
        raise ImportError(f"{INSTALL_HINT} ({exc})") from None


def game_name(game: str) -> str:
    """The registered game's name (``"positano"``) from its name, env name or Gymnasium id.

    Raises:
        ValueError: On an unknown game (the message names the closest one and every game).
    """
    return game_spec(game).name


def _scale(observation: np.ndarray, counts: np.ndarray) -> np.ndarray:
    # The counts (features whose bound exceeds 1) reach dozens; log1p keeps them near the
    # 0/1 flags, as LogScaledExtractor does for MaskablePPO. log1p(x) <= x keeps the space.
    out = np.array(observation, dtype=np.float32, copy=True)
    out[counts] = np.log1p(np.maximum(out[counts], 0.0))
    return out


@functools.lru_cache(maxsize=1)
def _env_classes() -> tuple[type, type]:
    from ray.rllib.env.wrappers.pettingzoo_env import ParallelPettingZooEnv, PettingZooEnv

    class _Tabletop:
        """Scales the counts and, at the end, puts the env's own returns into every info."""

        log_scale: bool
        _counts: np.ndarray
        observation_space: Any  # set by RLlib's wrapper, the other base

        def __init__(self, env: Any, log_scale: bool = False):
            super().__init__(env)  # type: ignore[call-arg]
            self.log_scale = log_scale
            box = next(iter(self.observation_space.values()))["observations"]
            self._counts = np.asarray(box.high, dtype=np.float32).reshape(-1) > 1.0

        def _obs(self, obs: dict[str, Any]) -> dict[str, Any]:
            if not self.log_scale:
                return obs
            return {a: {"observations": _scale(o["observations"], self._counts),
                        "action_mask": o["action_mask"]} for a, o in obs.items()}

        def reset(self, *, seed=None, options=None):  # type: ignore[no-untyped-def]
            obs, info = super().reset(seed=seed, options=options)  # type: ignore[misc]
            return self._obs(obs), info

        def step(self, action):  # type: ignore[no-untyped-def]
            obs, rewards, terms, truncs, infos = super().step(action)  # type: ignore[misc]
            if terms["__all__"] or truncs["__all__"]:
                raw = self.get_sub_environments
                state = raw.game_state
                if state.is_terminal():  # an illegal action ends a game that is not over
                    returns, scores = state.returns(), state.scores()
                    seats = raw.possible_agents
                    infos = {a: {**infos.get(a, {}),
                                 "final_return": float(returns[seats.index(a)]),
                                 "final_score": float(scores[seats.index(a)])}
                             for a in obs}
            return self._obs(obs), rewards, terms, truncs, infos

    class TabletopPettingZooEnv(_Tabletop, PettingZooEnv):
        """RLlib's AEC wrapper with the counts scaled and the final returns in the infos."""

    class TabletopParallelPettingZooEnv(_Tabletop, ParallelPettingZooEnv):
        """RLlib's parallel wrapper with the counts scaled and the final returns in the infos."""

    return TabletopPettingZooEnv, TabletopParallelPettingZooEnv


def rllib_env(game: str, parallel: bool = False, log_scale: bool = False, **kwargs: Any) -> Any:
    """An RLlib ``MultiAgentEnv`` over ``game``: observations ``{"observations", "action_mask"}``.

    A subclass of RLlib's ``PettingZooEnv`` (or ``ParallelPettingZooEnv``) that, when the game
    ends, adds ``"final_return"`` (the env's own return of that seat, ``State.returns()``) and
    ``"final_score"`` to every agent's info, so that RLlib's episode returns can be checked
    against it (and self-play, where the returns sum to 0, shows its scores).

    Args:
        game: ``"positano"`` or ``"rapa_nui"``.
        parallel: RLlib's ``ParallelPettingZooEnv`` over the parallel env instead of its
            ``PettingZooEnv`` over the AEC env.
        log_scale: ``log1p`` the features whose bound exceeds 1 (counts), as the MaskablePPO
            training does; :class:`RLlibAgent` applies the same when it plays.
        **kwargs: The game's config switches (and ``render_mode``, ``illegal_action``,
            ``info_mode``).
    """
    aec_cls, par_cls = _env_classes()
    env = make_env(game_name(game), parallel=parallel, layout="rllib", **kwargs)
    return (par_cls if parallel else aec_cls)(env, log_scale=log_scale)


# --- who plays which seat ---------------------------------------------------------------------


def _draw(*parts: object) -> int:
    # Stable across processes (str hashes are salted per process), so every env runner maps an
    # episode's seats the same way.
    return zlib.crc32(":".join(map(str, parts)).encode())


@dataclasses.dataclass(frozen=True)
class PolicyMapping:
    """Which modules exist, which are trained, and the function RLlib maps agents with.

    Attributes:
        mode: ``"shared"``, ``"per_seat"`` or ``"pool"``.
        modules: Every module id.
        trained: The ids PPO updates (the pool's snapshots are frozen).
        fn: ``fn(agent_id, episode, **kwargs) -> module id`` (RLlib calls it once per agent
            and episode).
        snapshots: The pool's frozen module ids (empty unless ``mode == "pool"``).
        evaluated: The module (or, for ``"per_seat"``, one per seat) that the evaluation plays.
    """

    mode: str
    modules: tuple[str, ...]
    trained: tuple[str, ...]
    fn: Callable[..., str]
    snapshots: tuple[str, ...] = ()
    evaluated: tuple[str, ...] = ()


def policy_mapping(mode: str, agents: Sequence[str], pool_size: int = 4) -> PolicyMapping:
    """The policy mapping for the seats ``agents`` (``env.possible_agents``).

    * ``"shared"``: module ``"shared"`` plays every seat and learns from all of them.
    * ``"per_seat"``: module ``"seat_<i>"`` plays seat ``i`` only.
    * ``"pool"``: in each episode one seat (drawn from the episode id) is played by
      ``"learner"``, every other seat by one of the frozen snapshots ``"snapshot_<k>"``
      (also drawn); only ``"learner"`` is trained. :class:`OpponentPool` copies the learner
      into the oldest snapshot every K iterations.

    Raises:
        ValueError: On an unknown mode or a pool smaller than 1.
    """
    seats = list(agents)
    if mode == "shared":
        return PolicyMapping(mode, ("shared",), ("shared",), _map_shared, (), ("shared",))
    if mode == "per_seat":
        ids = tuple(f"seat_{i}" for i in range(len(seats)))
        return PolicyMapping(mode, ids, ids, functools.partial(_map_seat, seats), (), ids)
    if mode == "pool":
        if pool_size < 1:
            raise ValueError(f"pool_size must be at least 1, got {pool_size}")
        snaps = tuple(f"snapshot_{k}" for k in range(pool_size))
        fn = functools.partial(_map_pool, seats, pool_size)
        return PolicyMapping(mode, ("learner", *snaps), ("learner",), fn, snaps, ("learner",))
    raise ValueError(f"unknown policy mapping {mode!r}; choose one of {MAPPINGS}")


def _map_shared(agent_id: str, episode: Any = None, **kwargs: Any) -> str:
    return "shared"


def _map_seat(seats: list[str], agent_id: str, episode: Any = None, **kwargs: Any) -> str:
    return f"seat_{seats.index(agent_id)}"


def _map_pool(seats: list[str], pool_size: int, agent_id: str, episode: Any = None,
              **kwargs: Any) -> str:
    eid = getattr(episode, "id_", "")
    if _draw(eid) % len(seats) == seats.index(agent_id):
        return "learner"
    return f"snapshot_{_draw(eid, agent_id) % pool_size}"


class OpponentPool:
    """The opponent pool: every ``every`` iterations the learner replaces the oldest snapshot.

    The copy goes into the learner group (so checkpoints keep it) and to every env runner.

    PPO syncs to the env runners only the modules it trained, so the frozen snapshots are synced
    here, explicitly. At the start every snapshot holds the learner's initial weights.

    Args:
        snapshots: The frozen module ids (``PolicyMapping.snapshots``).
        every: Refresh period in training iterations.
        learner: The trained module id.
    """

    def __init__(self, snapshots: Sequence[str], every: int, learner: str = "learner"):
        if every < 1:
            raise ValueError(f"the pool refresh period must be at least 1 iteration, got {every}")
        self.snapshots = tuple(snapshots)
        self.every = every
        self.learner = learner

    def copy_learner_into(self, algorithm: Any, slot: str) -> None:
        """Copy the learner's current weights into the snapshot ``slot``."""
        weights = algorithm.learner_group.get_weights(module_ids=[self.learner])[self.learner]
        algorithm.learner_group.set_weights({slot: weights})
        algorithm.env_runner_group.sync_weights(
            from_worker_or_learner_group=algorithm.learner_group, policies=[slot],
            inference_only=True, timeout_seconds=60.0)

    def on_algorithm_init(self, *, algorithm: Any, **kwargs: Any) -> None:
        """Start every snapshot as a copy of the untrained learner."""
        for slot in self.snapshots:
            self.copy_learner_into(algorithm, slot)

    def on_train_result(self, *, algorithm: Any, result: dict, **kwargs: Any) -> None:
        """Refresh the oldest snapshot every ``every`` iterations; report the pool's state."""
        it = int(result["training_iteration"])
        refreshed = None
        if it % self.every == 0:
            refreshed = self.snapshots[(it // self.every - 1) % len(self.snapshots)]
            self.copy_learner_into(algorithm, refreshed)
        result["opponent_pool"] = {"refreshed": refreshed, "size": len(self.snapshots)}


def on_episode_end(*, episode: Any, metrics_logger: Any, **kwargs: Any) -> None:
    """Log how many agents acted illegally and how far RLlib's returns are from the env's own.

    ``tabletop/illegal_actions`` (sum) counts agents whose game ended on their illegal action;
    ``tabletop/return_mismatch`` (max) is the largest ``|RLlib's agent return - final_return|``
    (0 when every agent's episode return is the env's own final return);
    ``tabletop/returns_checked`` (sum) counts the agents compared; ``tabletop/score`` (mean)
    is the mean final score of the seats.
    """
    illegal, worst, checked, scores = 0, 0.0, 0, []
    for aid, sa in episode.agent_episodes.items():
        info = sa.get_infos(-1) if len(sa.infos) else {}
        offence = info.get("illegal_action")
        # Every seat's info describes the offence; count it once, at the offender.
        if isinstance(offence, dict) and offence.get("agent") == aid:
            illegal += 1
        if "final_return" in info:
            worst = max(worst, abs(float(sa.get_return()) - info["final_return"]))
            checked += 1
            scores.append(info["final_score"])
    metrics_logger.log_value(("tabletop", "illegal_actions"), illegal, reduce="sum")
    metrics_logger.log_value(("tabletop", "return_mismatch"), worst, reduce="max")
    metrics_logger.log_value(("tabletop", "returns_checked"), checked, reduce="sum")
    if scores:
        metrics_logger.log_value(("tabletop", "score"), float(np.mean(scores)), reduce="mean",
                                 window=100)


def _at_least(**checks: tuple[int, int]) -> None:
    for name, (value, low) in checks.items():
        if value < low:
            raise ValueError(f"{name} must be at least {low}, got {value}")


# --- the PPO configuration --------------------------------------------------------------------

DEFAULT_HPARAMS: dict[str, Any] = {
    "lr": 3e-4,
    "gamma": 1.0,
    "lambda_": 0.95,
    "entropy_coeff": 0.01,
    "train_batch_size_per_learner": 4000,
    "minibatch_size": 500,
    "num_epochs": 4,
    "hiddens": [256, 256],
}
"""PPO settings of :func:`ppo_config` (each may be overridden): terminal rewards, so no
discount, and the MaskablePPO page's network size (docs/training.md)."""


def masked_module_spec(hiddens: Sequence[int] = (256, 256)) -> Any:
    """The ``RLModuleSpec`` of RLlib's ``ActionMaskingTorchRLModule`` with ``hiddens`` layers."""
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule,
    )

    return RLModuleSpec(module_class=ActionMaskingTorchRLModule,
                        model_config={"fcnet_hiddens": list(hiddens),
                                      "head_fcnet_hiddens": list(hiddens[-1:])})


def register(game: str, parallel: bool = False) -> str:
    """Register ``game`` with Ray Tune's env registry; returns the name to pass to RLlib."""
    from ray.tune.registry import register_env

    name = f"tabletop_gym/{game_name(game)}{'-parallel' if parallel else ''}"
    register_env(name, functools.partial(_make_registered, game_name(game), parallel))
    return name


def _make_registered(game: str, parallel: bool, env_config: Any) -> Any:
    return rllib_env(game, parallel=parallel, **dict(env_config))


def ppo_config(
    game: str,
    num_players: int = 2,
    mapping: str = "shared",
    num_env_runners: int = 0,
    envs_per_runner: int = 8,
    pool_size: int = 4,
    refresh_every: int = 5,
    parallel: bool = False,
    seed: int = 0,
    env_config: dict[str, Any] | None = None,
    hparams: dict[str, Any] | None = None,
) -> Any:
    """PPO with the masking module on ``game``, every seat mapped by :func:`policy_mapping`.

    Args:
        game: A registered game (or a registered env id).
        num_players: Seats at the table (at least 2 for multi-agent self-play).
        mapping: ``"shared"``, ``"per_seat"`` or ``"pool"``.
        num_env_runners: Ray actors that step envs; 0 steps them in the driver process.
        envs_per_runner: Envs each runner steps together: one forward pass of the module
            serves all of them, which amortises RLlib's per-step overhead.
        pool_size: Frozen snapshots of the ``"pool"`` mapping.
        refresh_every: Iterations between two refreshes of the pool.
        parallel: The parallel env (every agent acts every step) instead of the AEC one.
        seed: Seed of the modules and the envs.
        env_config: More of the game's config switches.
        hparams: Overrides of :data:`DEFAULT_HPARAMS`.

    Returns:
        ``(config, mapping)``: the ``PPOConfig`` and the :class:`PolicyMapping`.
    """
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec

    hp = {**DEFAULT_HPARAMS, **(hparams or {})}
    unknown = sorted(set(hp) - set(DEFAULT_HPARAMS))
    if unknown:
        raise ValueError(f"unknown hparams {unknown}; allowed: {sorted(DEFAULT_HPARAMS)}")
    if num_players < 2:
        raise ValueError(f"multi-agent self-play needs at least 2 players, got {num_players}")
    _at_least(num_env_runners=(num_env_runners, 0), envs_per_runner=(envs_per_runner, 1))
    cfg = {"log_scale": True, **(env_config or {}), "num_players": num_players}
    agents = make_env(game_name(game), num_players=num_players).possible_agents
    pm = policy_mapping(mapping, agents, pool_size)
    spec = masked_module_spec(hp.pop("hiddens"))
    config = (
        PPOConfig()
        # RLlib's env checker steps one random action that ignores the mask (that game ends
        # with -1 and a warning, docs/libraries.md); off, so any illegal action is ours.
        .environment(register(game, parallel), env_config=cfg, disable_env_checking=True)
        .multi_agent(policies=set(pm.modules), policy_mapping_fn=pm.fn,
                     policies_to_train=list(pm.trained))
        .rl_module(rl_module_spec=MultiRLModuleSpec(
            rl_module_specs=dict.fromkeys(pm.modules, spec)))
        .env_runners(num_env_runners=num_env_runners, num_envs_per_env_runner=envs_per_runner)
        .learners(num_learners=0)
        .training(**hp)
        .debugging(seed=seed)
    )
    if pm.snapshots:
        pool = OpponentPool(pm.snapshots, refresh_every)
        config = config.callbacks(on_algorithm_init=pool.on_algorithm_init,
                                  on_train_result=pool.on_train_result,
                                  on_episode_end=on_episode_end)
    else:
        config = config.callbacks(on_episode_end=on_episode_end)
    return config, pm


# --- playing a trained module -----------------------------------------------------------------


class RLlibAgent:
    """A trained masking module (or one per seat) as an agent of the evaluation harness.

    It plays greedily: the argmax of the masked logits, so it picks only legal actions. It is
    handed the engine state and its seat (``act_in``: a ``StateAgent``) so that a per-seat
    policy can pick its seat's module, and encodes the seat's own observation with the game's
    observer: it sees exactly what the seat's agent sees in the env.

    Args:
        modules: One RLlib module for every seat, or a dict seat -> module.
        game: ``"positano"`` or ``"rapa_nui"``.
        log_scale: Scale the counts as in training (:func:`rllib_env`).
        name: The agent's name in tables.
        **config: The game's config switches (``num_players`` included).
    """

    def __init__(self, modules: Any, game: str, log_scale: bool = True, name: str = "rllib-ppo",
                 **config: Any):
        self.modules = modules
        self.name = name
        self.log_scale = log_scale
        raw = make_env(game_name(game), **config).unwrapped
        self.observer = raw.observer
        space = raw.observation_space(raw.possible_agents[0])["observation"]
        self._counts = np.asarray(space.high, dtype=np.float32).reshape(-1) > 1.0

    def _module(self, seat: int) -> Any:
        return self.modules[seat] if isinstance(self.modules, dict) else self.modules

    def logits(self, observation: np.ndarray, mask: np.ndarray, seat: int = 0) -> np.ndarray:
        """The masked logits of the seat's module for one observation."""
        import torch

        obs = _scale(observation, self._counts) if self.log_scale else observation
        batch = {"obs": {"observations": torch.as_tensor(obs[None], dtype=torch.float32),
                         "action_mask": torch.as_tensor(mask[None], dtype=torch.float32)}}
        with torch.no_grad():
            out = self._module(seat).forward_inference(batch)
        return out["action_dist_inputs"][0].numpy()

    def act_in(self, state: Any, seat: int) -> int:
        """The greedy legal action of ``seat`` in ``state`` (from the seat's own observation)."""
        obs = self.observer.encode(state, seat)
        mask = self.observer.action_mask(state, seat)
        return int(np.argmax(self.logits(obs, mask, seat)))

    def act(self, observation: dict[str, np.ndarray]) -> int:
        """The greedy legal action from an observation dict (one module for every seat)."""
        return int(np.argmax(self.logits(observation["observation"],
                                         observation["action_mask"])))


def module_path(checkpoint: str | pathlib.Path, module_id: str) -> pathlib.Path:
    """Where an algorithm checkpoint keeps the weights of ``module_id``."""
    return pathlib.Path(checkpoint) / "learner_group" / "learner" / "rl_module" / module_id


def load_agent(checkpoint: str | pathlib.Path, game: str, num_players: int,
               mapping: str | None = None, **config: Any) -> RLlibAgent:
    """The evaluated policy of a :func:`selfplay` checkpoint as an :class:`RLlibAgent`.

    Args:
        checkpoint: The folder ``Algorithm.save_to_path`` wrote.
        game: ``"positano"`` or ``"rapa_nui"``.
        num_players: Seats at the table.
        mapping: The run's policy mapping (default: read from ``selfplay.json`` beside it).
        **config: More of the game's config switches.
    """
    from ray.rllib.core.rl_module.rl_module import RLModule

    ckpt = pathlib.Path(checkpoint)
    log_scale = True
    meta = ckpt.parent / "selfplay.json"
    if meta.exists():
        saved = json.loads(meta.read_text())
        mapping = mapping or saved["mapping"]
        log_scale = bool(saved.get("env_config", {}).get("log_scale", True))
    agents = make_env(game_name(game), num_players=num_players).possible_agents
    pm = policy_mapping(mapping or "shared", agents)
    loaded = [RLModule.from_checkpoint(module_path(ckpt, m)) for m in pm.evaluated]
    modules = dict(enumerate(loaded)) if pm.mode == "per_seat" else loaded[0]
    return RLlibAgent(modules, game, log_scale=log_scale, name=f"rllib-{pm.mode}",
                      num_players=num_players, **config)


# --- the training loop ------------------------------------------------------------------------


@dataclasses.dataclass
class SelfPlayResult:
    """What :func:`selfplay` produced.

    Attributes:
        run_dir: Folder with ``checkpoint/``, ``progress.csv``, ``evaluation.csv/json`` and
            ``selfplay.json``.
        checkpoint: The final algorithm checkpoint.
        iterations: Training iterations run.
        env_steps: Env steps sampled (one step is one agent's move in the AEC env).
        seconds: Wall time of the training loop.
        progress: One row per iteration (what the progress line shows).
        evaluations: Trained policy vs random and vs heuristic.
    """

    run_dir: pathlib.Path
    checkpoint: pathlib.Path
    iterations: int
    env_steps: int
    seconds: float
    progress: list[dict[str, Any]]
    evaluations: list[Any]


def init_ray(address: str | None = None, num_env_runners: int = 0) -> None:
    """Start a local Ray (``address=None``) or join a cluster (``"auto"``, ``"ray://host:10001"``).

    Locally Ray gets one CPU per env runner plus one for the driver, which hosts the learner;
    every worker runs torch on one thread (``OMP_NUM_THREADS=1``) unless told otherwise.
    """
    import ray

    if ray.is_initialized():
        return
    threads = {k: os.environ.get(k, "1") for k in ("OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    if address is None:
        ray.init(num_cpus=num_env_runners + 1, include_dashboard=False, log_to_driver=False,
                 runtime_env={"env_vars": threads})
    else:
        ray.init(address=address, log_to_driver=False, runtime_env={"env_vars": threads})


def _metric(result: dict, *keys: str, default: float = float("nan")) -> Any:
    value: Any = result
    for key in keys:
        if not isinstance(value, dict) or key not in value:
            return default
        value = value[key]
    return value


def progress_row(result: dict, seconds: float, steps_before: int) -> dict[str, Any]:
    """The numbers of one iteration's progress line, from ``Algorithm.train()``'s result."""
    runners = result.get("env_runners", {})
    steps = int(_metric(result, "env_runners", "num_env_steps_sampled_lifetime", default=0))
    modules = runners.get("module_episode_returns_mean", {}) or {}
    return {
        "iteration": int(result["training_iteration"]),
        "env_steps": steps,
        "seconds": round(seconds, 2),
        "env_steps_per_s": round((steps - steps_before) / seconds, 1) if seconds > 0 else 0.0,
        "episodes": int(_metric(result, "env_runners", "num_episodes", default=0)),
        "episode_return_mean": _metric(result, "env_runners", "episode_return_mean"),
        "episode_len_mean": _metric(result, "env_runners", "episode_len_mean"),
        # A module that finished no episode in the metrics window reports NaN: left out.
        "module_returns": {k: round(float(v), 3) for k, v in sorted(modules.items())
                           if v == v},
        "illegal_actions": int(_metric(result, "env_runners", "tabletop", "illegal_actions",
                                       default=0)),
        "return_mismatch": float(_metric(result, "env_runners", "tabletop", "return_mismatch",
                                         default=0.0)),
        "returns_checked": int(_metric(result, "env_runners", "tabletop", "returns_checked",
                                       default=0)),
        "score_mean": float(_metric(result, "env_runners", "tabletop", "score")),
    }


def format_progress(row: dict[str, Any], iterations: int) -> str:
    """One progress line: env steps/s, episode return (per module too) and episode length."""
    per_module = " ".join(f"{k} {v:+.3f}" for k, v in row["module_returns"].items())
    return (f"iter {row['iteration']:>3}/{iterations}  {row['env_steps']:>8} env steps  "
            f"{row['env_steps_per_s']:7.1f} steps/s  episodes {row['episodes']:>4}  "
            f"return {row['episode_return_mean']:+.3f} ({per_module})  "
            f"length {row['episode_len_mean']:.1f}  score {row['score_mean']:.1f}  "
            f"illegal {row['illegal_actions']}")


def selfplay(
    game: str | None = None,
    num_players: int = 2,
    iterations: int = 10,
    mapping: str = "shared",
    num_env_runners: int = 0,
    envs_per_runner: int = 8,
    address: str | None = None,
    out: str | pathlib.Path = "runs",
    seed: int = 0,
    eval_games: int = 100,
    pool_size: int = 4,
    refresh_every: int = 5,
    checkpoint_every: int = 10,
    time_limit: float | None = None,
    env_config: dict[str, Any] | None = None,
    hparams: dict[str, Any] | None = None,
    verbose: bool = True,
) -> SelfPlayResult:
    """PPO self-play on RLlib, then an evaluation of the trained policy.

    Prints one progress line per iteration, saves the algorithm under
    ``<out>/rllib-<game>-<n>p-<stamp>-s<seed>/checkpoint`` every ``checkpoint_every``
    iterations and at the end, then evaluates the policy restored from that checkpoint against
    the random and the heuristic bot with
    :func:`tabletop_gym.arena.evaluation.evaluate` (seats rotated on paired deals, 95 %
    intervals) and prints the table.

    Args:
        game: A registered game or env id (default: the registry's default for ``"rllib"``).
        num_players: Seats at the table.
        iterations: Training iterations (``Algorithm.train()`` calls).
        mapping: ``"shared"``, ``"per_seat"`` or ``"pool"`` (:func:`policy_mapping`).
        num_env_runners: Ray actors that step envs (0: in the driver).
        envs_per_runner: Envs each runner steps together.
        address: ``None`` starts Ray locally; ``"auto"`` or ``"ray://host:10001"`` joins a
            running cluster.
        out: Parent folder of the run folder.
        seed: Seed of the modules, the envs and the evaluation deals.
        eval_games: Games per evaluation matchup (0 skips the evaluation).
        pool_size: Frozen snapshots of the ``"pool"`` mapping.
        refresh_every: Iterations between two pool refreshes.
        checkpoint_every: Iterations between two checkpoints.
        time_limit: Stop after the iteration that passes this many seconds.
        env_config: More of the game's config switches.
        hparams: Overrides of :data:`DEFAULT_HPARAMS`.
        verbose: Print the progress lines and the table.
    """
    from tabletop_gym.arena.evaluation import evaluate, format_table, save_results
    from tabletop_gym.provenance import metadata

    require_ray()
    import ray
    import torch

    name = game_name(game if game is not None else default_game("rllib"))
    _at_least(iterations=(iterations, 1), checkpoint_every=(checkpoint_every, 1),
              eval_games=(eval_games, 0))
    config, pm = ppo_config(name, num_players, mapping, num_env_runners, envs_per_runner,
                            pool_size, refresh_every, seed=seed, env_config=env_config,
                            hparams=hparams)
    torch.set_num_threads(1)
    init_ray(address, num_env_runners)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    run_dir = pathlib.Path(out) / f"rllib-{name}-{num_players}p-{stamp}-s{seed}"
    run_dir.mkdir(parents=True, exist_ok=True)
    checkpoint = (run_dir / "checkpoint").resolve()
    env_cfg = dict(config.env_config)
    game_cfg = {k: v for k, v in env_cfg.items() if k not in ("log_scale", "num_players")}
    (run_dir / "selfplay.json").write_text(json.dumps({
        "metadata": metadata(backend="rllib", ray=ray.__version__, game=name,
                             seed=seed), "game": name,
        "num_players": num_players, "mapping": mapping, "num_env_runners": num_env_runners,
        "envs_per_runner": envs_per_runner,
        "env_config": env_cfg, "hparams": {**DEFAULT_HPARAMS, **(hparams or {})},
        "pool_size": pool_size, "refresh_every": refresh_every}, indent=1))
    if verbose:
        print(f"RLlib PPO self-play on {name}, {num_players} players, mapping {mapping!r} "
              f"({', '.join(pm.modules)}), {num_env_runners} env runner(s); run folder {run_dir}",
              flush=True)
    algo = config.build_algo()
    progress: list[dict[str, Any]] = []
    steps = 0
    t_start = time.perf_counter()
    try:
        for it in range(1, iterations + 1):
            t0 = time.perf_counter()
            result = algo.train()
            row = progress_row(result, time.perf_counter() - t0, steps)
            steps = row["env_steps"]
            progress.append(row)
            if verbose:
                print(format_progress(row, iterations), flush=True)
            last = it == iterations or (time_limit is not None
                                        and time.perf_counter() - t_start > time_limit)
            if it % checkpoint_every == 0 or last:
                algo.save_to_path(str(checkpoint))
            if last:
                break
    finally:
        algo.stop()
    seconds = time.perf_counter() - t_start
    _write_progress(progress, run_dir / "progress.csv")
    results = []
    if eval_games > 0:
        agent = load_agent(checkpoint, name, num_players, mapping, **game_cfg)
        for i, opponent in enumerate(("random", "heuristic")):
            res = evaluate(name, agent, opponent, n_games=eval_games,
                           seed=10_000 * (i + 1) + seed, num_players=num_players, **game_cfg)
            res.candidate = agent.name
            results.append(res)
        save_results(results, run_dir / "evaluation")
    summary = {"iterations": len(progress), "env_steps": steps, "train_seconds": round(seconds, 1),
               "env_steps_per_second": round(steps / seconds, 1) if seconds else 0.0,
               "evaluation": [r.row() for r in results]}
    meta = json.loads((run_dir / "selfplay.json").read_text())
    (run_dir / "selfplay.json").write_text(json.dumps({**meta, **summary}, indent=1))
    if verbose:
        print(f"\ntrained {len(progress)} iterations, {steps} env steps in {seconds:.0f} s "
              f"({steps / seconds:.0f} env steps/s); checkpoint: {checkpoint}")
        if results:
            print(format_table(results))
    return SelfPlayResult(run_dir, checkpoint, len(progress), steps, seconds, progress, results)


def _write_progress(rows: list[dict[str, Any]], path: pathlib.Path) -> None:
    import csv

    if not rows:
        return
    with path.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        for row in rows:
            writer.writerow({**row, "module_returns": json.dumps(row["module_returns"])})
