"""RLlib: our envs as RLlib ``MultiAgentEnv``s with the mask where its masking module reads it.

RLlib's ``ActionMaskingTorchRLModule`` (``ray.rllib.examples.rl_modules.classes.
action_masking_rlm``) expects a ``Dict`` observation ``{"observations": ..., "action_mask":
...}``; :func:`rllib_env` gives RLlib's ``PettingZooEnv`` (AEC: only the agent to act observes,
one agent per step) or ``ParallelPettingZooEnv`` (every agent every step; the agents not to act
send the no-op, the only id in their mask) over the ``"rllib"`` mask layout. RLlib pins its own
gymnasium, so ``make test`` runs these tests in ``.venv-rllib``.

Example (in a venv with ``ray[rllib]``)::

    from ray.tune.registry import register_env
    from tabletop_gym.integrations.rllib import rllib_env

    register_env("rapa_nui", lambda cfg: rllib_env("rapa_nui", **cfg))
"""

from __future__ import annotations

from typing import Any

from tabletop_gym.integrations.layouts import make_env


def rllib_env(game: str, parallel: bool = False, **kwargs: Any) -> Any:
    """An RLlib ``MultiAgentEnv`` over ``game``: observations ``{"observations", "action_mask"}``.

    Args:
        game: ``"positano"`` or ``"rapa_nui"``.
        parallel: RLlib's ``ParallelPettingZooEnv`` over the parallel env instead of its
            ``PettingZooEnv`` over the AEC env.
        **kwargs: The game's config switches (and ``render_mode``, ``illegal_action``,
            ``info_mode``).
    """
    from ray.rllib.env.wrappers.pettingzoo_env import ParallelPettingZooEnv, PettingZooEnv

    env = make_env(game, parallel=parallel, layout="rllib", **kwargs)
    return ParallelPettingZooEnv(env) if parallel else PettingZooEnv(env)
