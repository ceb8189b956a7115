"""Pieces of the trained MaskablePPO baselines that need torch.

Imported only by training and by loading a checkpoint, so the core package never imports torch.

The observation vectors hold counts with loose bounds (Rapa Nui's wood runs 0..663 in the space,
a few units in play); fed raw, those few large inputs dominate the first layer. The
:class:`LogScaledExtractor` passes binary features through and maps every feature whose bound
is above 1 through ``log1p``, a fixed transform that needs no running statistics, so a saved
checkpoint is self-contained (no ``VecNormalize`` file to carry beside it).
"""

from __future__ import annotations

import gymnasium
import numpy as np
import torch
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor


class LogScaledExtractor(BaseFeaturesExtractor):
    """Flatten, then ``log1p`` every feature whose space bound exceeds 1.

    Args:
        observation_space: The flat ``Box`` observation space of the env.
    """

    counts: torch.Tensor
    """1 for the features whose bound exceeds 1 (a registered buffer)."""

    def __init__(self, observation_space: gymnasium.spaces.Box):
        super().__init__(observation_space, int(np.prod(observation_space.shape)))
        high = np.asarray(observation_space.high, dtype=np.float32).reshape(-1)
        self.register_buffer("counts", torch.as_tensor(high > 1.0))

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        """The scaled feature vector."""
        flat = observations.flatten(start_dim=1)
        return torch.where(self.counts, torch.log1p(flat.clamp_min(0.0)), flat)
