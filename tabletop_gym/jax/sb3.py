"""A Stable-Baselines3 ``VecEnv`` over the batched JAX engines.

Needs the ``jax`` and ``train`` extras.
:class:`BatchedVecEnv` presents :class:`~tabletop_gym.jax.env.VectorEnv` (numpy in, numpy out)
through SB3's vectorised-env interface, so SB3 algorithms (and sb3-contrib's ``MaskablePPO``)
train on thousands of games stepped at once by XLA. As in the vector env, one policy plays every
seat: the observation is that of the seat to decide (at a multiplayer Positano bid, the next seat
to commit its hidden bid), the reward is the return of the seat that acted, and a finished game is
replaced by a new deal in the same step. ``MaskablePPO`` reads the legal actions through
``env_method("action_masks")`` (sb3-contrib's ``get_action_masks``); :meth:`action_masks` gives
the whole batch at once.

The final observation of a finished game is not kept (the slot already holds the next deal), so
``infos[i]`` has no ``"terminal_observation"``: games end only by termination, never by
truncation, and SB3 bootstraps from it only on truncation.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from tabletop_gym.jax.env import VectorEnv


class BatchedVecEnv(VecEnv):
    """``num_envs`` games of one batched engine as an SB3 ``VecEnv``.

    Args:
        game: ``"rapa_nui"`` or ``"positano"``.
        num_envs: Games stepped at once.
        seed: Seed of the deals (``seed()`` / ``reset()`` may change it).
        **config: The reference config's switches (``num_players``, ``reward_type``, ...).
    """

    render_mode = None
    """The batched engines do not render."""

    def __init__(self, game: str | None = None, num_envs: int = 64, seed: int = 0,
                 **config: Any):
        if game is None:
            from tabletop_gym.registry import default_game

            game = default_game("sb3")
        self.vector = VectorEnv(game, num_envs=num_envs, **config)
        super().__init__(
            num_envs, self.vector.single_observation_space, self.vector.single_action_space
        )
        self._seed = seed
        self._actions: np.ndarray | None = None

    def reset(self) -> np.ndarray:
        """Deal every game (the seed set by ``seed()``, or the constructor's)."""
        seed = self._seeds[0] if self._seeds and self._seeds[0] is not None else self._seed
        self._seeds = [None] * self.num_envs
        obs, _ = self.vector.reset(seed=int(seed))
        return np.array(obs)  # writable: SB3 hands it to torch

    def step_async(self, actions: np.ndarray) -> None:
        """Store one action id per game (of its seat to decide)."""
        self._actions = np.asarray(actions).reshape(self.num_envs).astype(np.int64)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        """Step every game: the acting seat's rewards, and ``dones`` for the games that ended."""
        if self._actions is None:
            raise RuntimeError("call step_async() before step_wait()")
        obs, reward, term, trunc, info = self.vector.step(self._actions)
        self._actions = None
        done = term | trunc
        infos = [
            {"rewards": info["rewards"][i], "current_player": int(info["current_player"][i])}
            for i in range(self.num_envs)
        ]
        return np.array(obs), reward.astype(np.float32), done, infos

    def action_masks(self) -> np.ndarray:
        """Bool ``(num_envs, num_actions)``: each game's legal actions now."""
        return self.vector.action_masks().astype(bool)

    def close(self) -> None:
        """Nothing to release: the games live in JAX arrays."""

    def _indices(self, indices: Any) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, int):
            return [indices]
        return list(indices)

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        """``attr_name`` of the batch, once per requested game."""
        value = getattr(self, attr_name)
        return [value for _ in self._indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        """Set an attribute of the whole batch (the games share one object)."""
        setattr(self, attr_name, value)

    def env_method(
        self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any
    ) -> list[Any]:
        """Per requested game, the result of ``method_name``; ``action_masks`` gives its row."""
        idx = self._indices(indices)
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in idx]
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result for _ in idx]

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        """No game is wrapped by a Gymnasium wrapper."""
        return [False for _ in self._indices(indices)]

    def get_images(self) -> Sequence[np.ndarray | None]:
        """No frames: the batched engines do not render."""
        return [None for _ in range(self.num_envs)]
