"""Pieces of the trained MaskablePPO baselines that need torch.

Imported only by training and by loading a checkpoint, so the core package never imports torch.

The observation vectors hold counts with loose bounds (Rapa Nui's wood runs 0..663 in the space,
a few units in play); fed raw, those few large inputs dominate the first layer. The
:class:`LogScaledExtractor` passes binary features through and maps every feature whose bound
is above 1 through ``log1p``, a fixed transform that needs no running statistics, so a saved
checkpoint is self-contained (no ``VecNormalize`` file to carry beside it).
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import torch
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from stable_baselines3.common.vec_env import VecEnv, VecEnvWrapper

from tabletop_gym.agents.base import hinted_observation, with_hints


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


class HintedExtractor(torch.nn.Module):
    """The policy and value MLPs of :class:`HintedPolicy`; the policy latent ends with the hint.

    Both MLPs read the whole feature vector (the observation and the hint). The policy latent is
    the MLP's output followed by the hint's one-hot block, so the action head adds a learned
    linear map of the hint to the logits (initialised to ``hint_weight`` times the identity).

    Args:
        feature_dim: Length of the feature vector (the observation's, then ``n_actions``).
        net_arch: Hidden layer sizes of both MLPs.
        activation_fn: Activation between layers.
        n_actions: Length of the hint block (the action count).
    """

    def __init__(self, feature_dim: int, net_arch: list[int], activation_fn: type[torch.nn.Module],
                 n_actions: int):
        super().__init__()
        from stable_baselines3.common.torch_layers import MlpExtractor

        self.body = MlpExtractor(feature_dim, net_arch=net_arch, activation_fn=activation_fn,
                                 device="cpu")
        self.n_actions = n_actions
        self.latent_dim_pi = self.body.latent_dim_pi + n_actions
        self.latent_dim_vf = self.body.latent_dim_vf

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The policy latent (MLP output, hint) and the value latent."""
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        """The policy MLP's output followed by the hint block of ``features``."""
        return torch.cat([self.body.forward_actor(features), features[:, -self.n_actions:]],
                         dim=1)

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        """The value MLP's output."""
        return self.body.forward_critic(features)


try:
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
except ImportError:  # pragma: no cover - the train extra is what this module is for
    MaskableActorCriticPolicy = object  # type: ignore[misc,assignment]


class HintedPolicy(MaskableActorCriticPolicy):  # type: ignore[misc]
    """A residual policy over the heuristic bot: logits = learned(obs) + W·onehot(heuristic).

    Its observation is the seat's own flat observation followed by a one-hot block of the move
    the heuristic bot would play from that same observation (:func:`hinted_observation`; the bot
    reads only the seat's observation dict, so nothing hidden enters). The hint block's weights
    in the action head start at ``hint_weight`` times the identity and the rest of the head near
    zero, so before any training the greedy policy *is* the heuristic, and training learns
    where to leave it. ``heuristic_hint`` tells :func:`tabletop_gym.agents.kinds.make_agent` to
    compute the hint when the model plays.

    Args:
        *args: As :class:`sb3_contrib.common.maskable.policies.MaskableActorCriticPolicy`.
        hint_weight: The logit the hint adds to the heuristic's move at the start.
        **kwargs: As :class:`~sb3_contrib.common.maskable.policies.MaskableActorCriticPolicy`.
    """

    heuristic_hint = True

    def __init__(self, *args: Any, hint_weight: float = 4.0, **kwargs: Any):
        self.hint_weight = float(hint_weight)
        super().__init__(*args, **kwargs)

    def _n_actions(self) -> int:
        space = self.action_space
        if not isinstance(space, gymnasium.spaces.Discrete):
            raise TypeError(f"a hinted policy needs a Discrete action space, got {space}")
        return int(space.n)

    def _build_mlp_extractor(self) -> None:
        arch = self.net_arch
        if not isinstance(arch, list):
            raise TypeError(f"a hinted policy takes one list of layer sizes (net_arch=[64, 64]), "
                            f"got net_arch={arch!r}")
        self.mlp_extractor = HintedExtractor(  # type: ignore[assignment]
            self.features_dim, arch, self.activation_fn, self._n_actions())

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)
        n = self._n_actions()
        head = self.action_net
        assert isinstance(head, torch.nn.Linear)
        with torch.no_grad():
            head.weight[:, -n:] = self.hint_weight * torch.eye(n)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data: dict[str, Any] = super()._get_constructor_parameters()
        data["hint_weight"] = self.hint_weight
        return data


class HintVecEnv(VecEnvWrapper):
    """Appends to each env's observation the heuristic's move for it (:class:`HintedPolicy`).

    Wraps a vector env of this package's single-agent envs (flat observations, ``action_masks``;
    :func:`tabletop_gym.integrations.sb3.make_vec_env`). Each env has its own hint bot: the game's
    heuristic reading the learner's observation and mask, with a generator seeded from ``seed``
    and the env's index.

    Args:
        venv: The vector env.
        seed: Seeds the hint bots' generators.
    """

    def __init__(self, venv: VecEnv, seed: int = 0):
        from tabletop_gym.agents.heuristic import heuristic_for

        base = venv.observation_space
        if not isinstance(base, gymnasium.spaces.Box) or not isinstance(
                venv.action_space, gymnasium.spaces.Discrete):
            raise TypeError(f"HintVecEnv wraps envs with a flat Box observation and a Discrete "
                            f"action space (make_vec_env of this package), got "
                            f"{base} and {venv.action_space}")
        self.n_actions = int(venv.action_space.n)
        space = gymnasium.spaces.Box(
            np.concatenate([base.low.reshape(-1), np.zeros(self.n_actions, np.float32)]),
            np.concatenate([base.high.reshape(-1), np.ones(self.n_actions, np.float32)]),
            dtype=np.float32)
        super().__init__(venv, observation_space=space)
        self.bots = [heuristic_for(aec.game, aec.observer, np.random.default_rng([seed, i]))
                     for i, aec in enumerate(venv.get_attr("aec"))]

    def _hinted(self, obs: np.ndarray) -> np.ndarray:
        masks = self.action_masks()
        hints = [int(bot.act({"observation": obs[i], "action_mask": mask.astype(np.int8)}))
                 if mask.any() else -1
                 for i, (bot, mask) in enumerate(zip(self.bots, masks, strict=True))]
        return with_hints(obs, hints, self.n_actions)

    def reset(self) -> np.ndarray:
        """Reset every env; the hinted first observations."""
        return self._hinted(self.venv.reset())  # type: ignore[arg-type]

    def step_wait(self) -> Any:
        """Step every env; hinted observations (a finished game's last one has no hint)."""
        obs, rewards, dones, infos = self.venv.step_wait()
        for info in infos:
            last = info.get("terminal_observation")
            if last is not None:
                info["terminal_observation"] = hinted_observation(last, None, self.n_actions)
        return self._hinted(obs), rewards, dones, infos  # type: ignore[arg-type]

    def action_masks(self) -> np.ndarray:
        """Each env's legal actions (for ``MaskablePPO``)."""
        return np.asarray(self.venv.action_masks(), dtype=bool)  # type: ignore[attr-defined]
