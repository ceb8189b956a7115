"""Random legal play through the PettingZoo AEC envs, masks respected.

Usage: python examples/random_play.py [--games 3]
"""

from __future__ import annotations

import argparse

import numpy as np

from tabletop_gym.envs import positano_v0, rapa_nui_v0


def play(env, seed: int) -> dict[str, float]:
    """One game with uniformly random legal actions; returns each agent's final reward."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    final = {}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _info = env.last()
        if terminated or truncated:
            final[agent] = reward
            action = None
        else:
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)
    return final


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    args = parser.parse_args(argv)
    for name, make in [("rapa_nui 3p", lambda: rapa_nui_v0.env(num_players=3)),
                       ("positano 4p", lambda: positano_v0.env(num_players=4)),
                       ("positano solo", lambda: positano_v0.env(num_players=1))]:
        env = make()
        for g in range(args.games):
            rewards = play(env, seed=g)
            scores = env.unwrapped.game_state.scores()
            print(f"{name} game {g}: rewards {rewards} scores {scores}")


if __name__ == "__main__":
    main()
