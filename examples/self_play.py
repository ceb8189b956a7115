"""Self-play with MaskablePPO on Rapa Nui: the learner plays snapshots of itself.

Every ``--snapshot-every`` timesteps the current policy is saved into a pool; each environment
then draws its opponent from the pool (the latest and past snapshots), so the learner keeps
meeting earlier versions of itself. The opponents run in the environments, see only their own
observations and play greedily with their masks. An evaluation against the random bot with
``MaskableEvalCallback`` tracks progress.

Usage: python examples/self_play.py [--timesteps 30000] [--snapshot-every 5000]
"""

from __future__ import annotations

import argparse
import pathlib
import tempfile

import gymnasium
import numpy as np
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.callbacks import MaskableEvalCallback
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.env_util import make_vec_env

import tabletop_gym  # noqa: F401
from tabletop_gym.arena.evaluation import evaluate, format_table


class SnapshotPool(BaseCallback):
    """Saves the learner every ``every`` steps and hands each env an opponent from the pool."""

    def __init__(self, folder: pathlib.Path, every: int, pool_size: int = 5, seed: int = 0):
        super().__init__()
        self.folder, self.every, self.pool_size = folder, every, pool_size
        self.pool: list[str] = []
        self.rng = np.random.default_rng(seed)

    def _on_step(self) -> bool:
        if self.num_timesteps % self.every < self.training_env.num_envs:
            path = str(self.folder / f"snapshot_{self.num_timesteps}.zip")
            self.model.save(path)
            self.pool = [*self.pool, path][-self.pool_size:]
            for i in range(self.training_env.num_envs):
                pick = self.pool[-1] if self.rng.random() < 0.5 else self.rng.choice(self.pool)
                self.training_env.env_method("set_opponents", str(pick), indices=[i])
        return True


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timesteps", type=int, default=30_000)
    parser.add_argument("--snapshot-every", type=int, default=5_000)
    parser.add_argument("--eval-games", type=int, default=40)
    args = parser.parse_args(argv)

    folder = pathlib.Path(tempfile.mkdtemp(prefix="selfplay-"))
    # Start against the random bot; snapshots of the learner replace it as training goes on.
    vec = make_vec_env(lambda: gymnasium.make("RapaNui-v0", opponents="random",
                                              seat_mode="rotate"), n_envs=4, seed=0)
    eval_env = gymnasium.make("RapaNui-v0", opponents="random")
    model = MaskablePPO("MlpPolicy", vec, n_steps=256, batch_size=256, seed=0, verbose=0)
    callbacks = [
        SnapshotPool(folder, args.snapshot_every),
        MaskableEvalCallback(eval_env, eval_freq=max(1, args.snapshot_every // 4),
                             n_eval_episodes=10, verbose=0),
    ]
    model.learn(total_timesteps=args.timesteps, callback=callbacks)
    res = evaluate("rapa_nui", model, "random", n_games=args.eval_games, seed=1, num_players=2)
    res.candidate = "self-play"
    print(format_table([res]))


if __name__ == "__main__":
    main()
