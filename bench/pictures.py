"""Draw the pictures of the docs and measure the milliseconds per drawn frame.

Usage::

    python bench/pictures.py              # writes docs/images/*.png, prints the timing table
    python bench/pictures.py --no-images  # timing only

The pictures are positions of games between heuristic bots with fixed seeds, drawn by the
package's own ``rgb_array`` renderer (public view, or a seat view where named), so rerunning
the script reproduces them. The timing draws every position of whole games (public view) and
reports the mean and the 95th percentile per configuration, in CPU time of this process (on a
shared machine wall time also counts the other processes) and in wall time.
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tabletop_gym.agents.kinds import make_agent  # noqa: E402
from tabletop_gym.envs import positano_v0, rapa_nui_v0  # noqa: E402
from tabletop_gym.provenance import metadata  # noqa: E402

IMAGES = ROOT / "docs" / "images"


def _bots(env, seed):
    rng = np.random.default_rng(seed)
    return {a: make_agent("heuristic", env.game, env.observer, rng) for a in env.possible_agents}


def _play(env, seed, stop=None):
    """Play heuristic bots from ``reset(seed)``; stop early when ``stop(env)`` is true."""
    env.reset(seed=seed)
    bots = _bots(env, seed)
    while not env.game_state.is_terminal():
        if stop is not None and stop(env):
            return env
        agent = env.agent_selection
        env.step(bots[agent].act(env.observe(agent)))
    return env


def _save(env, name: str) -> None:
    from PIL import Image

    IMAGES.mkdir(parents=True, exist_ok=True)
    img = Image.fromarray(env.render()).quantize(colors=255)
    img.save(IMAGES / name, optimize=True)
    print(f"wrote docs/images/{name} ({(IMAGES / name).stat().st_size // 1024} KiB)")


def images() -> None:
    """The four pictures the env pages and the README show."""
    env = positano_v0.raw_env(num_players=3, render_mode="rgb_array")
    _play(env, 7, stop=lambda e: e.game_state.inner.round == 4
          and e.game_state.phase() == "draft_build")
    _save(env, "positano_midgame.png")
    env = positano_v0.raw_env(num_players=4, board_size=5, render_mode="rgb_array")
    _save(_play(env, 3), "positano_end.png")
    env = rapa_nui_v0.raw_env(num_players=3, render_mode="rgb_array", render_view=0)
    _play(env, 5, stop=lambda e: e.game_state.face_down_count() >= 2
          and e.game_state.phase() == "buy")
    _save(env, "rapa_nui_midgame_seat0.png")
    env = rapa_nui_v0.raw_env(num_players=3, render_mode="rgb_array")
    _save(_play(env, 5), "rapa_nui_end.png")


CONFIGS = [
    ("Positano 2p 4x4", positano_v0.raw_env, {"num_players": 2}),
    ("Positano 6p 5x5", positano_v0.raw_env, {"num_players": 6}),
    ("Rapa Nui 2p", rapa_nui_v0.raw_env, {"num_players": 2}),
    ("Rapa Nui 4p", rapa_nui_v0.raw_env, {"num_players": 4}),
]


def timing(games: int) -> None:
    """Milliseconds per ``render()`` over every position of whole games, per configuration."""
    print(f"\nms per rgb_array frame (public view), {games} whole game(s) per configuration")
    print(f"provenance: {metadata()}")
    print("\n| configuration | frame (W x H) | frames | CPU ms mean | CPU ms p95 | wall ms mean |")
    print("|---|---|---|---|---|---|")
    for name, factory, cfg in CONFIGS:
        env = factory(render_mode="rgb_array", **cfg)
        times, walls = [], []
        shape = None
        for g in range(games):
            env.reset(seed=g)
            bots = _bots(env, g)
            while True:
                t0, w0 = time.process_time(), time.perf_counter()
                frame = env.render()
                times.append(time.process_time() - t0)
                walls.append(time.perf_counter() - w0)
                shape = frame.shape
                if env.game_state.is_terminal():
                    break
                agent = env.agent_selection
                env.step(bots[agent].act(env.observe(agent)))
        ms, wall = np.array(times) * 1000, np.array(walls) * 1000
        print(f"| {name} | {shape[1]} x {shape[0]} | {len(ms)} | {ms.mean():.1f} | "
              f"{np.percentile(ms, 95):.1f} | {wall.mean():.1f} |")


def main() -> None:
    """Parse the flags, write the pictures and print the timing table."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--no-images", action="store_true", help="only measure")
    p.add_argument("--games", type=int, default=2, help="whole games timed per configuration")
    args = p.parse_args()
    if not args.no_images:
        images()
    timing(args.games)


if __name__ == "__main__":
    main()
