"""Thin adapters for training libraries that need more than the standard PettingZoo/Gymnasium API.

Every adapter is generic over the games: pass ``"positano"`` or ``"rapa_nui"`` and the game's
config switches. The table of libraries, where each expects the action mask, and the test that
backs each row are in ``docs/libraries.md``.

* :mod:`tabletop_gym.integrations.layouts`: where the mask travels (``"dict"``: the default
  ``{"observation", "action_mask"}``; ``"rllib"``: ``{"observations", "action_mask"}``;
  ``"info"``: a flat ``Box`` observation with the mask in ``info["action_mask"]`` only), for AEC and
  parallel envs, and :func:`~tabletop_gym.integrations.layouts.make_env`.
* :mod:`tabletop_gym.integrations.masks`: :func:`~tabletop_gym.integrations.masks.safe_mask` for
  vector envs' autoreset step, where the mask is all zeros.
* :mod:`tabletop_gym.integrations.rllib`, :mod:`tabletop_gym.integrations.torchrl`,
  :mod:`tabletop_gym.integrations.tianshou`: one constructor each (the library is imported only
  when it is called).
* :mod:`tabletop_gym.integrations.sb3`: an in-process Stable-Baselines3 vector env over the
  single-agent envs, what ``train()`` steps (imports SB3 itself: needs the ``train`` extra).
* :mod:`tabletop_gym.integrations.verifiers_env`: one seat over text as a ``verifiers``
  environment (``load_environment``; needs the ``verifiers`` extra, docs/llm.md).
"""

from __future__ import annotations

from tabletop_gym.integrations.layouts import GAMES, MASK_LAYOUTS, make_env, mask_layout
from tabletop_gym.integrations.masks import safe_mask

__all__ = ["GAMES", "MASK_LAYOUTS", "make_env", "mask_layout", "safe_mask"]
