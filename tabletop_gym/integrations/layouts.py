"""Where the action mask travels: one wrapper for AEC and one for parallel envs, for every game.

Our envs observe ``{"observation": float32 Box, "action_mask": int8 Box}`` (layout ``"dict"``, what
PettingZoo's own tests, Tianshou and TorchRL read). Other consumers expect it elsewhere:

* ``"rllib"``: ``{"observations": ..., "action_mask": ...}``, the keys RLlib's
  ``ActionMaskingTorchRLModule`` reads;
* ``"info"``: the flat ``Box`` observation alone, the mask in ``info["action_mask"]`` only (plain
  loops, AgileRL, and SuperSuit, whose wrappers reject ``Dict`` observation spaces). Needs the
  default ``info_mode="full"``, which puts the mask in ``info``.

Example:
    >>> from tabletop_gym.integrations import make_env
    >>> env = make_env("rapa_nui", layout="rllib", num_players=2)
    >>> env.reset(seed=0)
    >>> sorted(env.observe(env.agent_selection))
    ['action_mask', 'observations']
"""

from __future__ import annotations

import importlib
from typing import Any

from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv

from tabletop_gym.registry import game_specs

GAMES = {spec.name: spec.env_module for spec in game_specs()}
"""Game name -> its versioned env module (``env()``, ``raw_env()``, ``parallel_env()``), for
every registered game."""

MASK_LAYOUTS = ("dict", "rllib", "info")


def _convert_space(space: spaces.Dict, layout: str) -> spaces.Space:
    if layout == "rllib":
        return spaces.Dict(
            {"observations": space["observation"], "action_mask": space["action_mask"]}
        )
    return space["observation"]


def _convert(obs: dict[str, Any], layout: str) -> Any:
    if layout == "rllib":
        return {"observations": obs["observation"], "action_mask": obs["action_mask"]}
    return obs["observation"]


def _check_layout(env: Any, layout: str) -> None:
    if layout not in MASK_LAYOUTS:
        raise ValueError(f"layout={layout!r} is not allowed; choose one of {MASK_LAYOUTS}")
    if layout == "info" and getattr(env.unwrapped, "info_mode", "full") != "full":
        raise ValueError("layout='info' needs info_mode='full' (the mask travels in info)")


class _Converted:
    """Forwards everything to the wrapped env except the observations and their spaces.

    Written against the plain ``AECEnv``/``ParallelEnv`` interfaces rather than PettingZoo's
    wrapper base classes, whose forwarding differs between the PettingZoo releases we support.
    """

    def __init__(self, env: Any, layout: str):
        _check_layout(env, layout)
        self.env = env
        self.layout = layout
        self.metadata = env.metadata
        self.possible_agents = env.possible_agents
        self._spaces = {a: _convert_space(env.observation_space(a), layout)
                        for a in env.possible_agents}

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name in ("env", "_spaces"):
            raise AttributeError(name)
        return getattr(self.env, name)

    @property
    def unwrapped(self) -> Any:
        """The raw env underneath."""
        return self.env.unwrapped

    def observation_space(self, agent: str) -> spaces.Space:
        """The converted observation space of ``agent``."""
        return self._spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        """The action space of ``agent``."""
        return self.env.action_space(agent)

    def state(self) -> Any:
        """The wrapped env's global state."""
        return self.env.state()

    def render(self) -> Any:
        """The wrapped env's render."""
        return self.env.render()

    def close(self) -> None:
        """Close the wrapped env."""
        self.env.close()

    def __str__(self) -> str:
        return str(self.env)


class AECMaskLayout(_Converted, AECEnv):
    """An AEC env whose observations carry the mask in ``layout`` (see the module docstring)."""

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Reset the wrapped env."""
        self.env.reset(seed=seed, options=options)

    def step(self, action: Any) -> None:
        """Step the wrapped env."""
        self.env.step(action)

    def observe(self, agent: str) -> Any:
        """The converted observation of ``agent``."""
        return _convert(self.env.observe(agent), self.layout)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """``last()`` of the wrapped env with the converted observation."""
        obs, reward, term, trunc, info = self.env.last(observe)
        return (_convert(obs, self.layout) if observe else None), reward, term, trunc, info


class ParallelMaskLayout(_Converted, ParallelEnv):
    """A parallel env whose observations carry the mask in ``layout``."""

    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        """Reset the wrapped env; converted observations."""
        obs, infos = self.env.reset(seed=seed, options=options)
        return {a: _convert(o, self.layout) for a, o in obs.items()}, infos

    def step(self, actions: dict[str, int]) -> tuple[dict, dict, dict, dict, dict]:
        """Step the wrapped env; converted observations."""
        obs, rewards, terms, truncs, infos = self.env.step(actions)
        return {a: _convert(o, self.layout) for a, o in obs.items()}, rewards, terms, truncs, infos


def mask_layout(env: AECEnv | ParallelEnv, layout: str) -> Any:
    """``env`` with the mask in ``layout``; ``"dict"`` returns ``env`` itself.

    Raises:
        ValueError: For an unknown layout, or ``"info"`` on an env without the mask in ``info``.
    """
    _check_layout(env, layout)
    if layout == "dict":
        return env
    if isinstance(env, ParallelEnv):
        return ParallelMaskLayout(env, layout)
    return AECMaskLayout(env, layout)


def make_env(game: str, parallel: bool = False, layout: str = "dict", **kwargs: Any) -> Any:
    """The (order-enforced) AEC env or the parallel env of ``game``, with the mask in ``layout``.

    Args:
        game: ``"positano"`` or ``"rapa_nui"``.
        parallel: The parallel env instead of the AEC env.
        layout: One of :data:`MASK_LAYOUTS`.
        **kwargs: ``render_mode``, ``illegal_action``, ``info_mode`` and the game's config.

    Raises:
        ValueError: For an unknown game or layout.
    """
    if game not in GAMES:
        raise ValueError(f"game={game!r} is not known; choose one of {sorted(GAMES)}")
    module = importlib.import_module(GAMES[game])
    env = module.parallel_env(**kwargs) if parallel else module.env(**kwargs)
    return mask_layout(env, layout)
