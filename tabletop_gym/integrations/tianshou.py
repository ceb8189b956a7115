"""Tianshou: our AEC envs through ``tianshou.env.PettingZooEnv``.

Tianshou's wrapper reads ``obs["observation"]`` and ``obs["action_mask"]`` (our default layout)
and hands its policies ``{"agent_id", "obs", "mask"}``; ``MultiAgentPolicy`` dispatches each step
to the policy of ``agent_id``, and masked policies (e.g. ``DiscreteQLearningPolicy``) read
``mask``. Tianshou stacks every step's ``info`` into its replay buffer, so the env runs with
``info_mode="stable"``: with keys appearing only at the end, the buffer pads earlier entries and
training breaks.

Example (needs the ``integrations`` extra)::

    from tianshou.env import DummyVectorEnv
    from tabletop_gym.integrations.tianshou import tianshou_env

    envs = DummyVectorEnv([lambda: tianshou_env("rapa_nui", num_players=2)] * 4)
"""

from __future__ import annotations

from typing import Any

from tabletop_gym.integrations.layouts import make_env


def tianshou_env(game: str, **kwargs: Any) -> Any:
    """A ``tianshou.env.PettingZooEnv`` over the AEC env of ``game``.

    Args:
        game: ``"positano"`` or ``"rapa_nui"``.
        **kwargs: The game's config switches (and ``render_mode``, ``illegal_action``).
    """
    from tianshou.env import PettingZooEnv

    kwargs.setdefault("info_mode", "stable")
    return PettingZooEnv(make_env(game, **kwargs))
