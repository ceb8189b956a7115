"""TorchRL: our envs through ``torchrl.envs.PettingZooWrapper``, AEC or parallel.

TorchRL builds its specs from the first ``info`` and writes every later info into them, so the env
runs with ``info_mode="stable"`` (same keys, types and shapes at every step; the mask in the
observation only, which TorchRL moves to ``(group, "action_mask")`` and into the action spec).
An AEC env needs ``use_mask=True``: ``(group, "mask")`` marks the agent to act. The mask of an
agent not to act is all ones in TorchRL (its action is never used), so a masked distribution such
as ``torchrl.modules.MaskedCategorical`` never sees an all-zero mask.

Example (needs the ``integrations`` extra)::

    from tabletop_gym.integrations.torchrl import torchrl_env

    env = torchrl_env("rapa_nui", num_players=3)
    td = env.rollout(5, break_when_any_done=False)   # random masked actions
    td["agents", "action_mask"].shape                 # (5, 3, 45)
"""

from __future__ import annotations

from typing import Any

from tabletop_gym.integrations.layouts import make_env


def torchrl_env(game: str, parallel: bool = False, **kwargs: Any) -> Any:
    """A ``torchrl.envs.PettingZooWrapper`` over ``game``, all agents in one group ``"agents"``.

    Args:
        game: ``"positano"`` or ``"rapa_nui"``.
        parallel: Wrap the parallel env instead of the AEC env.
        **kwargs: The game's config switches (and ``render_mode``, ``illegal_action``).

    Returns:
        The wrapper, with ``return_state=True`` (the global ``state`` for centralised critics).
    """
    from torchrl.envs import PettingZooWrapper
    from torchrl.envs.utils import MarlGroupMapType

    kwargs.setdefault("info_mode", "stable")
    env = make_env(game, parallel=parallel, **kwargs)
    return PettingZooWrapper(
        env=env,
        use_mask=True,
        categorical_actions=True,
        group_map=MarlGroupMapType.ALL_IN_ONE_GROUP,
        return_state=True,
    )
