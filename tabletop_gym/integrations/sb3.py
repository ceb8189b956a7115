"""A fast in-process Stable-Baselines3 ``VecEnv`` over our single-agent envs.

:func:`make_vec_env` is a drop-in for ``stable_baselines3.common.env_util.make_vec_env(env_id,
n_envs, seed, vec_env_cls=DummyVecEnv)`` on a registered single-agent id (``Positano-v0``,
``RapaNui-v0``, the tasks): the same envs, seeds, observations, rewards, dones, action masks,
``terminal_observation``, ``TimeLimit.truncated`` flags and ``info["episode"]`` statistics, with
less work around each step. ``tabletop_gym.tasks.recipes.train`` trains on it.

What it leaves out, and why that changes nothing:

* **Gymnasium's wrappers.** ``gymnasium.make`` builds each env (so its kwargs, spec and errors are
  Gymnasium's) and the wrappers it adds are taken off: ``PassiveEnvChecker`` checks only the
  first reset and step, ``OrderEnforcing`` refuses a step before the first reset (the vector env
  resets every env before it steps, and :class:`SingleAgentVecEnv` refuses a step before its
  first ``reset()``), and ``TimeLimit``'s count is kept here: an episode is truncated at its
  ``max_episode_steps``-th step, as the wrapper does.
* **SB3's ``Monitor``.** Its episode statistics are kept here: at the end of each episode the
  info gets ``"episode": {"r": return rounded to 6 decimals, "l": length, "t": seconds since
  the vector env was built}``, what ``Monitor`` writes (SB3's logger and
  ``tabletop_gym.tasks.recipes``'s learning curve read it). ``env_is_wrapped(Monitor)``
  is true.
* **The deep copy of every info** (``DummyVecEnv`` copies the whole list each step). It guards
  against an env changing an info after handing it out; ours never do: every
  :meth:`SingleAgentEnv.step` builds a new info dict, and what it puts in it is either new for
  that step (the ``action_mask`` copy, the learner's ``seat``, the ``illegal_action`` report, the
  terminal observation, the ``episode`` dict) or a value the AEC env builds once at the end of a
  game and never changes afterwards (``scores``, ``score_breakdown``, ``winners``, ``phase``; a
  new game builds new ones), or, with ``info_mode="stable"``, the all-zero ``scores`` and
  ``winners`` of a running game, read-only arrays (writing into one raises) that no other step
  hands out. ``tests/integrations/test_sb3_vec_env.py`` checks that infos held over many later
  steps and resets stay equal to a copy taken when they were returned.
* **The masks one env at a time.** ``MaskablePPO`` asks for the masks every step through
  ``env_method("action_masks")``; here that writes every env's mask into one preallocated bool
  array and returns its rows, converting a row only when its env's (read-only) mask array is
  another than at the last call.

Example (needs the ``train`` extra)::

    from sb3_contrib import MaskablePPO
    from tabletop_gym.integrations.sb3 import make_vec_env

    vec = make_vec_env("RapaNui-v0", n_envs=8, seed=0, env_kwargs={"seat_mode": "rotate"})
    model = MaskablePPO("MlpPolicy", vec, n_steps=256, seed=0, device="cpu")
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.wrappers import OrderEnforcing, PassiveEnvChecker, TimeLimit
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices

from tabletop_gym.wrappers.single_agent import SingleAgentEnv

REMOVED_WRAPPERS = (TimeLimit, OrderEnforcing, PassiveEnvChecker)
"""The wrappers ``gymnasium.make`` adds that :func:`make_vec_env` takes off (see the module)."""

KEPT_BEHAVIOUR = (Monitor, TimeLimit)
"""Wrappers whose behaviour :class:`SingleAgentVecEnv` keeps, so ``env_is_wrapped`` says yes."""


class SingleAgentVecEnv(VecEnv):
    """``len(envs)`` single-agent envs stepped in one object, as SB3's ``DummyVecEnv`` would.

    Args:
        envs: Distinct :class:`SingleAgentEnv` instances with the flat (``Box``) observation.
        max_episode_steps: Truncate an episode at this many steps (``TimeLimit``'s rule);
            ``None`` never truncates.

    Raises:
        TypeError: When an env is not a :class:`SingleAgentEnv`.
        ValueError: When ``envs`` is empty, holds one env twice, mixes spaces, or an env has
            the dict observation; or ``max_episode_steps`` is not a positive int or ``None``.
    """

    def __init__(self, envs: Sequence[SingleAgentEnv], max_episode_steps: int | None = None):
        envs = list(envs)
        if not envs:
            raise ValueError("give at least one env")
        for env in envs:
            if not isinstance(env, SingleAgentEnv):
                raise TypeError(
                    f"every env must be a tabletop_gym SingleAgentEnv, got {type(env).__name__}; "
                    "for other envs use stable_baselines3's make_vec_env"
                )
            if env.observation_type != "flat":
                raise ValueError(
                    f"observation_type={env.observation_type!r}: this vector env batches the "
                    "flat Box observation only; use observation_type='flat' or stable_baselines3's "
                    "DummyVecEnv"
                )
        if len({id(env) for env in envs}) != len(envs):
            raise ValueError("the same env instance was given more than once; build one per slot")
        first = envs[0]
        for env in envs[1:]:
            if env.observation_space != first.observation_space or \
                    env.action_space != first.action_space:
                raise ValueError("every env must have the same observation and action spaces")
        if max_episode_steps is not None and (
            type(max_episode_steps) is not int or max_episode_steps < 1
        ):
            raise ValueError(
                f"max_episode_steps must be a positive int or None, got {max_episode_steps!r}"
            )
        self.envs = envs
        self.max_episode_steps = max_episode_steps
        n = len(envs)
        super().__init__(n, first.observation_space, first.action_space)
        space = first.observation_space
        assert isinstance(space, spaces.Box)
        self._obs = np.zeros((n, *space.shape), dtype=space.dtype)
        self._masks = np.zeros((n, int(first.action_space.n)), dtype=bool)
        self._mask_views: list[np.ndarray | None] = [None] * n
        self._actions: list[Any] | None = None
        self._started = False
        self.t_start = time.time()
        self._ep_rewards: list[list[float]] = [[] for _ in range(n)]
        self.metadata = first.metadata

    # --- the VecEnv API -----------------------------------------------------------------------

    def reset(self) -> np.ndarray:
        """Reset every env; the batch of first observations.

        Each env's reset gets the seed and options set since the last reset (``seed()``,
        ``set_options()``), used once, as in ``DummyVecEnv``.
        """
        obs = self._obs
        for i, env in enumerate(self.envs):
            options = self._options[i]
            kwargs = {"options": options} if options else {}
            obs[i], self.reset_infos[i] = env.reset(seed=self._seeds[i], **kwargs)
            self._ep_rewards[i] = []
        self._reset_seeds()
        self._reset_options()
        self._started = True
        return obs.copy()

    def step_async(self, actions: np.ndarray) -> None:
        """Store one action per env (an array of shape ``(num_envs,)`` or ``(num_envs, 1)``).

        Raises:
            RuntimeError: Before the first :meth:`reset`.
            ValueError: On another shape; nothing is stored then.
        """
        if not self._started:
            raise RuntimeError("call reset() before stepping the vector env")
        a = np.asarray(actions)
        if a.shape not in ((self.num_envs,), (self.num_envs, 1)):
            raise ValueError(
                f"actions must have shape ({self.num_envs},) (one action id per env) or "
                f"({self.num_envs}, 1), got shape {a.shape}"
            )
        # Python ints (numpy's own scalars for other dtypes), which the envs check exactly as
        # they check any action: a float or bool is refused there with the usual message.
        self._actions = a.reshape(self.num_envs).tolist()

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        """Step every env; an env whose episode ended is reset at once.

        Its last observation is in ``info["terminal_observation"]``, its statistics in
        ``info["episode"]``.

        Raises:
            RuntimeError: Without a pending :meth:`step_async`.
        """
        actions = self._actions
        if actions is None:
            raise RuntimeError("call step_async(actions) before step_wait()")
        self._actions = None
        n = self.num_envs
        obs = self._obs
        rewards = np.zeros(n, dtype=np.float32)
        dones = np.zeros(n, dtype=bool)
        infos: list[dict[str, Any]] = []
        limit = self.max_episode_steps
        for i, env in enumerate(self.envs):
            o, reward, terminated, truncated, info = env.step(actions[i])
            ep = self._ep_rewards[i]
            ep.append(float(reward))
            if limit is not None and len(ep) >= limit:
                truncated = True
            if terminated or truncated:
                info["episode"] = {"r": round(sum(ep), 6), "l": len(ep),
                                   "t": round(time.time() - self.t_start, 6)}
                info["TimeLimit.truncated"] = truncated and not terminated
                info["terminal_observation"] = o
                o, self.reset_infos[i] = env.reset()
                self._ep_rewards[i] = []
                dones[i] = True
            else:
                info["TimeLimit.truncated"] = False
            obs[i] = o
            rewards[i] = reward
            infos.append(info)
        return obs.copy(), rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        """Bool ``(num_envs, num_actions)``: each env's legal actions for its learner now."""
        masks = self._masks
        views = self._mask_views
        for i, env in enumerate(self.envs):
            # The arrays action_mask_view() hands out are read-only and never change, so a
            # row is converted again only when its env hands out another one (MaskablePPO and
            # a hint wrapper both ask once per step).
            view = env.action_mask_view()
            if view is not views[i]:
                masks[i] = view
                views[i] = view
        return masks.copy()

    def close(self) -> None:
        """Close every env."""
        for env in self.envs:
            env.close()

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """``attr_name`` of each requested env."""
        return [getattr(self.envs[i], attr_name) for i in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Set ``attr_name`` on each requested env."""
        for i in self._get_indices(indices):
            setattr(self.envs[i], attr_name, value)

    def env_method(
        self, method_name: str, *method_args: Any, indices: VecEnvIndices = None,
        **method_kwargs: Any,
    ) -> list[Any]:
        """Call ``method_name`` of each requested env.

        ``action_masks`` (what ``MaskablePPO`` calls every step) is answered in one pass by
        :meth:`action_masks`; any other method env by env.
        """
        idx = self._get_indices(indices)
        if method_name == "action_masks" and not method_args and not method_kwargs:
            masks = self.action_masks()
            return [masks[i] for i in idx]
        return [getattr(self.envs[i], method_name)(*method_args, **method_kwargs) for i in idx]

    def env_is_wrapped(
        self, wrapper_class: type[gymnasium.Wrapper], indices: VecEnvIndices = None
    ) -> list[bool]:
        """Whether each env behaves as wrapped in ``wrapper_class``.

        True for SB3's ``Monitor`` and Gymnasium's ``TimeLimit`` (their behaviour is kept
        here), False for any other wrapper.
        """
        kept = any(issubclass(k, wrapper_class) for k in KEPT_BEHAVIOUR)
        return [kept for _ in self._get_indices(indices)]

    def get_images(self) -> Sequence[np.ndarray | None]:
        """Each env's frame (``render_mode="rgb_array"``), else ``None`` per env."""
        if self.render_mode != "rgb_array":
            return [None for _ in self.envs]
        return [env.render() for env in self.envs]  # type: ignore[misc]


def make_vec_env(
    env_id: str,
    n_envs: int = 8,
    seed: int | None = None,
    env_kwargs: dict[str, Any] | None = None,
    max_episode_steps: int | None = None,
) -> SingleAgentVecEnv:
    """``n_envs`` envs of ``env_id`` in one :class:`SingleAgentVecEnv`, seeded as SB3 seeds them.

    Equivalent to ``stable_baselines3.common.env_util.make_vec_env(lambda:
    gymnasium.make(env_id, **env_kwargs), n_envs=n_envs, seed=seed, vec_env_cls=DummyVecEnv)``:
    env ``i``'s first reset gets seed ``seed + i`` (a random base when ``seed`` is ``None``) and
    its action space is seeded with ``seed + i``.

    Args:
        env_id: A registered single-agent id (``"Positano-v0"``, ``"RapaNui-v0"``, a task id).
        n_envs: Envs in the vector env.
        seed: Base seed of the envs' first resets.
        env_kwargs: Keyword arguments of ``gymnasium.make`` for each env.
        max_episode_steps: Overrides the id's registered ``max_episode_steps``.

    Raises:
        ValueError: When ``n_envs`` is not a positive int, or ``seed`` not an int or ``None``.
        TypeError: When the id's env is not a :class:`SingleAgentEnv` under Gymnasium's own
            wrappers only (use SB3's ``make_vec_env`` for other envs); unknown keyword
            arguments are Gymnasium's errors.
    """
    if type(n_envs) is not int or n_envs < 1:
        raise ValueError(f"n_envs must be a positive int, got {n_envs!r}")
    if seed is not None and (type(seed) is not int and not isinstance(seed, np.integer)):
        raise ValueError(f"seed must be an int or None, got {seed!r}")
    make_kwargs = dict(env_kwargs or {})
    if max_episode_steps is not None:
        make_kwargs["max_episode_steps"] = max_episode_steps
    envs: list[SingleAgentEnv] = []
    limit: int | None = None
    for rank in range(n_envs):
        env = gymnasium.make(env_id, **make_kwargs)
        if seed is not None:
            # What SB3's make_vec_env does (the envs themselves are seeded at the first reset).
            env.action_space.seed(int(seed) + rank)
        inner, limit = _strip(env, env_id)
        envs.append(inner)
    vec = SingleAgentVecEnv(envs, max_episode_steps=limit)
    vec.seed(None if seed is None else int(seed))
    return vec


def _strip(env: gymnasium.Env, env_id: str) -> tuple[SingleAgentEnv, int | None]:
    """The :class:`SingleAgentEnv` under ``gymnasium.make``'s wrappers, and the time limit."""
    limit: int | None = None
    layer: Any = env
    while isinstance(layer, gymnasium.Wrapper):
        if not isinstance(layer, REMOVED_WRAPPERS):
            raise TypeError(
                f"{env_id} is wrapped in {type(layer).__name__}, whose behaviour this vector env "
                "would drop; use stable_baselines3's make_vec_env for it"
            )
        if isinstance(layer, TimeLimit):
            limit = int(layer._max_episode_steps)
        layer = layer.env
    if not isinstance(layer, SingleAgentEnv):
        raise TypeError(
            f"{env_id} is a {type(layer).__name__}, not a tabletop_gym SingleAgentEnv; use "
            "stable_baselines3's make_vec_env for it"
        )
    return layer, limit
