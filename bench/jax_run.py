"""Decisions/s of the batched JAX engines beside Pgx games, measured in the same run on CPU.

Every row runs the same loop inside one jitted ``lax.scan``: for a batch of games, pick a random
legal action per game (from the mask), step, compute the observation of the seat to decide, and
deal a new game wherever one ended (auto-reset, with a fresh shuffle for our games and Pgx's own
``init`` for Pgx). A decision is one action of one game.

Every cell (row × batch) is compiled first, then run once untimed; then the timed scans go
round-robin over all cells, ``--reps`` rounds, so that load from other work on the machine falls
on every row alike. A cell is the median of its timed scans. Each measurement is printed and
written to ``bench/results/jax_latest.{md,json}`` as soon as it is taken (the table shows how many
of the ``--reps`` scans a cell has so far), so a run cut short still leaves every cell it reached.

Compiled programs go to JAX's persistent compilation cache (``--cache-dir``), so a second run of
the same cells loads them in seconds instead of compiling for minutes; ``--compile-only`` fills
the cache without timing anything (it can run at low priority before a timed run).

The target compares each of our rows with Pgx backgammon measured in the same run (each at its
best batch). A long grid can be split into several runs that each include Pgx backgammon, with
``--append`` adding a run to the results file instead of starting a new one.

``--max-minutes`` bounds a run: no timed round starts that would end after it (the run then
has fewer rounds, every cell with the same number).

Usage: ``make bench`` (calls this after ``bench/run.py``) or
``python bench/jax_run.py [--batches 1 64 1024 4096] [--steps 200] [--reps 3] [--rows NAME ...]``.
Needs the ``jax`` and ``bench`` extras (Pgx).
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
from typing import Any

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
ANCHOR = "Pgx backgammon"
DEFAULT_CACHE = pathlib.Path(
    os.environ.get("XDG_CACHE_HOME", pathlib.Path.home() / ".cache")
) / "tabletop_gym" / "jax"

Scan = Callable[[jax.Array], jax.Array]


def _random_actions(key: jax.Array, mask: jax.Array) -> jax.Array:
    return jax.random.categorical(key, jnp.where(mask, 0.0, -jnp.inf), axis=-1)


def ours(game: str, batch: int, steps: int, **config: Any) -> Scan:
    """A scan of ``steps`` batched env steps (to be jitted); returns a checksum to block on."""
    env = BatchedEnv(make(game, **config), batch)

    def run(key: jax.Array) -> jax.Array:
        state, ts = env.reset(key)

        def body(carry: Any, k: jax.Array) -> tuple[Any, jax.Array]:
            state, ts = carry
            state, ts = env.step(state, _random_actions(k, ts.action_mask))
            return (state, ts), ts.observation[:, 0].sum() + ts.done.sum()

        _, out = jax.lax.scan(body, (state, ts), jax.random.split(key, steps))
        return out.sum()

    return run


def pgx_game(env_id: str, batch: int, steps: int) -> Scan:
    """The same loop over a Pgx env with Pgx's own auto-reset."""
    import pgx
    from pgx.experimental import auto_reset

    env = pgx.make(env_id)
    step = jax.vmap(auto_reset(env.step, env.init))

    def run(key: jax.Array) -> jax.Array:
        state = jax.vmap(env.init)(jax.random.split(key, batch))

        def body(state: Any, k: jax.Array) -> tuple[Any, jax.Array]:
            k1, k2 = jax.random.split(k)
            action = _random_actions(k1, state.legal_action_mask)
            state = step(state, action, jax.random.split(k2, batch))
            return state, state.observation.reshape(batch, -1)[:, 0].sum() + state.terminated.sum()

        _, out = jax.lax.scan(body, state, jax.random.split(key, steps))
        return out.sum()

    return run


ROWS: list[tuple[str, Callable[[int, int], Scan]]] = [
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
    (ANCHOR, lambda b, s: pgx_game("backgammon", b, s)),
    ("Pgx sparrow_mahjong", lambda b, s: pgx_game("sparrow_mahjong", b, s)),
]
ROW_NAMES = [name for name, _ in ROWS]


def scan_length(batch: int, steps: int) -> int:
    """Steps per scan: batch 1 runs 8× longer so the timed part is not all dispatch overhead."""
    return steps * (8 if batch == 1 else 1)


def enable_cache(cache_dir: pathlib.Path) -> None:
    """Keep every compiled scan in JAX's persistent compilation cache at ``cache_dir``."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    jax.config.update("jax_compilation_cache_dir", str(cache_dir))
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)


def _ratio_cell(run: dict[str, Any], name: str, reps: int) -> str:
    """The target column of one of our rows: its best over the run's Pgx backgammon best."""
    if name.startswith("Pgx"):
        return ""
    cells, anchor = run["cells"].get(name, {}), run["cells"].get(ANCHOR)
    if not cells or not anchor:
        return f"no {ANCHOR} in this run"
    ratio = _best(cells) / _best(anchor)
    complete = all(len(c["rates"]) >= reps for c in (*cells.values(), *anchor.values()))
    complete = complete and len(cells) == len(anchor) == len(run["batches"])
    verdict = ("met" if ratio >= TARGET_RATIO else "not met") if complete else "partial"
    return f"{ratio:.2f}× (≥ {TARGET_RATIO:g}×: {verdict})"


def _best(cells: dict[str, dict[str, Any]]) -> float:
    return max(c["median"] for c in cells.values())


def render(doc: dict[str, Any]) -> str:
    """The markdown table of every run in ``doc`` (ours first, in :data:`ROWS` order)."""
    batches = sorted({int(b) for run in doc["runs"] for b in run["batches"]})
    lines = [
        "| game | run | " + " | ".join(f"batch {b}" for b in batches)
        + f" | best | best ÷ {ANCHOR} of the run |",
        "|---|---:|" + "---:|" * (len(batches) + 2),
    ]
    for name in ROW_NAMES:
        for i, run in enumerate(doc["runs"], 1):
            cells = run["cells"].get(name)
            if not cells:
                continue
            reps = run["reps"]

            def show(b: int, cells: dict[str, Any] = cells, reps: int = reps) -> str:
                c = cells.get(str(b))
                if c is None:
                    return ""
                partial = "" if len(c["rates"]) >= reps else f" ({len(c['rates'])}/{reps})"
                return f"{c['median']:,.0f}{partial}"

            row = " | ".join(show(b) for b in batches)
            lines.append(
                f"| {name} | {i} | {row} | {_best(cells):,.0f} | {_ratio_cell(run, name, reps)} |"
            )
    notes = [
        f"Run {i}: {run['started']}, {run.get('minutes', '(running)')} min, load average "
        f"{run['load_start']} at the start and {run.get('load_end', '(running)')} at the end; "
        f"`{run['command']}`."
        for i, run in enumerate(doc["runs"], 1)
    ]
    return "\n".join(lines) + "\n\n" + "\n".join(f"- {n}" for n in notes) + "\n"


def write(doc: dict[str, Any]) -> None:
    """Write the results files (atomically: a reader never sees half a file)."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    md = (
        "Decisions/s on CPU inside `lax.scan` (random legal actions, observations, auto-reset), "
        "median of the timed scans; `python bench/jax_run.py`.\n\n" + render(doc)
    )
    for path, text in (
        (RESULTS / "jax_latest.json", json.dumps(doc, indent=2, default=str) + "\n"),
        (RESULTS / "jax_latest.md", md),
    ):
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_text(text)
        tmp.replace(path)


def _load_avg() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 64, 1024, 4096])
    parser.add_argument("--steps", type=int, default=200, help="scan length per timed run")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--rows", nargs="+", default=None, choices=ROW_NAMES, metavar="ROW",
                        help=f"row names to run (default all): {', '.join(ROW_NAMES)}")
    parser.add_argument("--append", action="store_true",
                        help="add this run to the results file instead of replacing it")
    parser.add_argument("--cache-dir", type=pathlib.Path, default=DEFAULT_CACHE,
                        help="JAX persistent compilation cache (default %(default)s)")
    parser.add_argument("--no-cache", action="store_true", help="compile without the cache")
    parser.add_argument("--compile-only", action="store_true",
                        help="only compile every cell into the cache; time nothing")
    parser.add_argument("--max-minutes", type=float, default=None,
                        help="start no timed round that would end after this many minutes "
                        "from the start (the run then has fewer rounds, all complete)")
    args = parser.parse_args()
    start = time.perf_counter()
    if not args.no_cache:
        enable_cache(args.cache_dir)
    rows = [r for r in ROWS if args.rows is None or r[0] in args.rows]

    compiled: dict[tuple[str, int], tuple[Any, int]] = {}
    for name, build in rows:
        for b in args.batches:
            steps = scan_length(b, args.steps)
            t0 = time.perf_counter()
            program = jax.jit(build(b, steps)).lower(jax.random.PRNGKey(0)).compile()
            print(f"compiled {name} batch {b} in {time.perf_counter() - t0:.1f} s", flush=True)
            compiled[name, b] = (program, b * steps)
    if args.compile_only:
        return

    run: dict[str, Any] = {
        "started": time.strftime("%Y-%m-%d %H:%M:%S"),
        "command": "python bench/jax_run.py " + " ".join(
            f"'{a}'" if " " in a else a for a in sys.argv[1:]),
        "load_start": _load_avg(),
        "batches": args.batches,
        "steps": args.steps,
        "reps": args.reps,
        "cells": {},
    }
    doc: dict[str, Any] = {"runs": []}
    results = RESULTS / "jax_latest.json"
    if args.append and results.exists():
        doc = json.loads(results.read_text())
    doc["metadata"] = metadata(
        jax=jax.__version__,
        device=str(jax.devices()[0]),
        cpus=os.cpu_count(),
        machine=platform.machine(),
    )
    doc["runs"].append(run)
    # One untimed run of each cell first (allocations, first-call work), then the timed rounds.
    for program, _ in compiled.values():
        program(jax.random.PRNGKey(0)).block_until_ready()
    round_s = 0.0
    for r in range(args.reps):
        elapsed = time.perf_counter() - start
        if args.max_minutes is not None and elapsed + round_s > 60 * args.max_minutes:
            print(f"stopping after {r} rounds: another would pass --max-minutes", flush=True)
            run["reps"] = r
            break
        r0 = time.perf_counter()
        for (name, b), (program, decisions) in compiled.items():
            key = jax.random.PRNGKey(r + 1)
            w0, c0 = time.perf_counter(), time.process_time()
            program(key).block_until_ready()
            wall, cpu = time.perf_counter() - w0, time.process_time() - c0
            cell = run["cells"].setdefault(name, {}).setdefault(
                str(b), {"rates": [], "cpu_s": [], "decisions": decisions}
            )
            cell["rates"].append(decisions / wall)
            cell["cpu_s"].append(cpu)
            cell["median"] = statistics.median(cell["rates"])
            print(f"rep {r + 1}/{args.reps} {name:22s} batch {b:5d}: "
                  f"{decisions / wall:12,.0f} decisions/s ({wall:.2f} s wall, {cpu:.2f} s CPU)",
                  flush=True)
            write(doc)
        round_s = time.perf_counter() - r0
    run["load_end"] = _load_avg()
    run["minutes"] = round((time.perf_counter() - start) / 60, 1)
    write(doc)
    print()
    print(render(doc))


if __name__ == "__main__":
    main()
