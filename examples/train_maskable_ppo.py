"""Train sb3-contrib's MaskablePPO on a single-agent view, then evaluate it with its masks.

Usage: python examples/train_maskable_ppo.py [--env RapaNui-v0] [--timesteps 20000]
"""

from __future__ import annotations

import argparse

import gymnasium
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.evaluation import evaluate_policy

import tabletop_gym  # noqa: F401 - registers Positano-v0 and RapaNui-v0


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="RapaNui-v0")
    parser.add_argument("--timesteps", type=int, default=20_000)
    parser.add_argument("--eval-episodes", type=int, default=20)
    parser.add_argument("--save", default=None, help="where to save the model (.zip)")
    args = parser.parse_args(argv)

    env = gymnasium.make(args.env, opponents="random") if args.env == "RapaNui-v0" \
        else gymnasium.make(args.env)
    model = MaskablePPO("MlpPolicy", env, n_steps=512, batch_size=128, seed=0, verbose=0)
    model.learn(total_timesteps=args.timesteps)
    # evaluate_policy finds the env's action_masks() through the gymnasium wrappers
    mean, std = evaluate_policy(model, env, n_eval_episodes=args.eval_episodes,
                                use_masking=True, warn=False)
    print(f"{args.env}: mean episode reward {mean:.3f} ± {std:.3f} over "
          f"{args.eval_episodes} episodes after {args.timesteps} timesteps")
    if args.save:
        model.save(args.save)
        print(f"saved {args.save}")


if __name__ == "__main__":
    main()
