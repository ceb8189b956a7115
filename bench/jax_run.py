"""Decisions/s of the batched JAX engines beside Pgx games, measured in the same run on CPU.

Every row runs the same loop inside one jitted ``lax.scan``: for a batch of games, pick a random
legal action per game (from the mask), step, compute the observation of the seat to decide, and
deal a new game wherever one ended (auto-reset, with a fresh shuffle for our games and Pgx's own
``init`` for Pgx). A decision is one action of one game. Each cell is the median of ``--reps``
timed scans after one warm-up (compile) scan; the
timed scans run round-robin over all cells, so that load from other work on the machine falls on
every row alike.

Usage: ``make bench`` (calls this after ``bench/run.py``) or
``python bench/jax_run.py [--batches 1 64 1024 4096] [--steps 200] [--reps 3]``.
Needs the ``jax`` and ``bench`` extras (Pgx). Results go to ``bench/results/jax_latest.json``
and ``bench/results/jax_latest.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import platform
import statistics
import sys
import time
from collections.abc import Callable

import jax
import jax.numpy as jnp

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tabletop_gym.jax.core import make  # noqa: E402
from tabletop_gym.jax.env import BatchedEnv  # noqa: E402
from tabletop_gym.provenance import metadata  # noqa: E402

RESULTS = ROOT / "bench" / "results"
TARGET_RATIO = 2.0
"""Target: at least this many times Pgx backgammon's decisions/s at the best batch (CPU)."""


def _random_actions(key: jax.Array, mask: jax.Array) -> jax.Array:
    return jax.random.categorical(key, jnp.where(mask, 0.0, -jnp.inf), axis=-1)


def ours(game: str, batch: int, steps: int, **config) -> Callable[[jax.Array], jax.Array]:
    """A jitted scan of ``steps`` batched env steps; returns a checksum to block on."""
    env = BatchedEnv(make(game, **config), batch)

    @jax.jit
    def run(key: jax.Array) -> jax.Array:
        state, ts = env.reset(key)

        def body(carry, k):
            state, ts = carry
            state, ts = env.step(state, _random_actions(k, ts.action_mask))
            return (state, ts), ts.observation[:, 0].sum() + ts.done.sum()

        _, out = jax.lax.scan(body, (state, ts), jax.random.split(key, steps))
        return out.sum()

    return run


def pgx_game(env_id: str, batch: int, steps: int) -> Callable[[jax.Array], jax.Array]:
    """The same loop over a Pgx env with Pgx's own auto-reset."""
    import pgx
    from pgx.experimental import auto_reset

    env = pgx.make(env_id)
    step = jax.vmap(auto_reset(env.step, env.init))

    @jax.jit
    def run(key: jax.Array) -> jax.Array:
        state = jax.vmap(env.init)(jax.random.split(key, batch))

        def body(state, k):
            k1, k2 = jax.random.split(k)
            action = _random_actions(k1, state.legal_action_mask)
            state = step(state, action, jax.random.split(k2, batch))
            return state, state.observation.reshape(batch, -1)[:, 0].sum() + state.terminated.sum()

        _, out = jax.lax.scan(body, state, jax.random.split(key, steps))
        return out.sum()

    return run


ROWS: list[tuple[str, Callable[[int, int], Callable[[jax.Array], jax.Array]]]] = [
    ("Rapa Nui 2p", lambda b, s: ours("rapa_nui", b, s, num_players=2)),
    ("Rapa Nui 3p", lambda b, s: ours("rapa_nui", b, s, num_players=3)),
    ("Rapa Nui 4p", lambda b, s: ours("rapa_nui", b, s, num_players=4)),
    *[
        (
            f"Positano {n}p",
            lambda b, s, n=n: ours("positano", b, s, num_players=n),
        )
        for n in range(1, 7)
    ],
    ("Pgx connect_four", lambda b, s: pgx_game("connect_four", b, s)),
    ("Pgx backgammon", lambda b, s: pgx_game("backgammon", b, s)),
    ("Pgx sparrow_mahjong", lambda b, s: pgx_game("sparrow_mahjong", b, s)),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 64, 1024, 4096])
    parser.add_argument("--steps", type=int, default=200, help="scan length per timed run")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--rows", nargs="*", default=None, help="row names to run (default all)")
    args = parser.parse_args()
    rows = [r for r in ROWS if args.rows is None or r[0] in args.rows]
    # Compile everything first, then time the cells round-robin, so that every row sees the
    # same share of whatever else runs on the machine.
    runs = {}
    for name, build in rows:
        for b in args.batches:
            # Batch 1 runs longer scans so that the timed part is not all dispatch overhead.
            steps = args.steps * (8 if b == 1 else 1)
            run = build(b, steps)
            run(jax.random.PRNGKey(0)).block_until_ready()
            runs[name, b] = (run, b * steps)
            print(f"compiled {name} batch {b}", flush=True)
    rates: dict[tuple[str, int], list[float]] = {cell: [] for cell in runs}
    for r in range(args.reps):
        for cell, (run, decisions) in runs.items():
            t0 = time.perf_counter()
            run(jax.random.PRNGKey(r + 1)).block_until_ready()
            rates[cell].append(decisions / (time.perf_counter() - t0))
    table: dict[str, dict[int, float]] = {}
    for (name, b), values in rates.items():
        table.setdefault(name, {})[b] = statistics.median(values)
        print(f"{name:22s} batch {b:5d}: {table[name][b]:12,.0f} decisions/s", flush=True)
    best = {name: max(v.values()) for name, v in table.items()}
    bg = best.get("Pgx backgammon")
    lines = [
        "| game | " + " | ".join(f"batch {b}" for b in args.batches) + " | best | target |",
        "|---|" + "---:|" * (len(args.batches) + 2),
    ]
    for name, v in table.items():
        target = ""
        if bg and not name.startswith("Pgx"):
            ratio = best[name] / bg
            verdict = "met" if ratio >= TARGET_RATIO else "not met"
            target = f"{ratio:.2f}× Pgx backgammon (≥ {TARGET_RATIO:g}×: {verdict})"
        cells = " | ".join(f"{v[b]:,.0f}" for b in args.batches)
        lines.append(f"| {name} | {cells} | {best[name]:,.0f} | {target} |")
    md = "\n".join(lines)
    print()
    print(md)
    meta = metadata(
        jax=jax.__version__,
        device=str(jax.devices()[0]),
        cpus=os.cpu_count(),
        machine=platform.machine(),
        steps=args.steps,
        reps=args.reps,
    )
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "jax_latest.json").write_text(
        json.dumps({"metadata": meta, "decisions_per_s": table}, indent=2, default=str) + "\n"
    )
    (RESULTS / "jax_latest.md").write_text(
        "Decisions/s on CPU inside `lax.scan` (random legal actions, observations, auto-reset); "
        "`python bench/jax_run.py`.\n\n" + md + "\n"
    )


if __name__ == "__main__":
    main()
