"""Training curves of the shipped ``jax-ppo`` policies: ``python tools/jax_curves.py``.

Reads the ``log.csv`` that ``tabletop_gym.jax.train`` wrote for each shipped policy's run (on
the GPU, committed under ``benchmarks/gpu/round-<r>/<trainer>/``; the checkpoint's metadata names
the run and the seed) and, for comparison, the ``jax-ppo`` recipe's CPU run of the same task
(``benchmarks/suite-train/jax-ppo/<task>/seed-0/``). Per game it draws the learner's win rate in
its training games (against the distilled heuristic) and against random (measured inside the
jit) over the learner steps, into ``docs/img/jax-ppo-curves.png``.
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script from a source checkout
    sys.path.insert(0, str(ROOT))
RECIPE_RUNS = {
    "positano": ROOT / "benchmarks/suite-train/jax-ppo/Positano-2p-vsHeuristic-v0/seed-0",
    "rapa_nui": ROOT / "benchmarks/suite-train/jax-ppo/RapaNui-2p-vsHeuristic-v0/seed-0",
}
OUT = ROOT / "docs" / "img" / "jax-ppo-curves.png"


def read(log: Path, seed: int = 0) -> dict[str, list[float]]:
    """The columns of one seed's rows of a run's log that the figure draws."""
    if not log.is_file():
        raise FileNotFoundError(f"no {log}")
    cols: dict[str, list[float]] = {"steps": [], "vs_net": [], "vs_random": []}
    with log.open() as fh:
        for row in csv.DictReader(fh):
            if (int(row["seed"]) != seed or not row["learner_win_rate"]
                    or not row["win_rate_vs_random"]):
                continue
            cols["steps"].append(float(row["learner_steps"]))
            cols["vs_net"].append(float(row["learner_win_rate"]))
            cols["vs_random"].append(float(row["win_rate_vs_random"]))
    return cols


def shipped_runs() -> dict[str, tuple[Path, int, str]]:
    """Per game: the shipped policy's training log, its seed in that run, and its trainer."""
    from tabletop_gym.agents.base import jax_checkpoint_path
    from tabletop_gym.agents.jax_policy import load_policy

    out = {}
    for game in RECIPE_RUNS:
        _arrays, meta = load_policy(jax_checkpoint_path(game, 2))
        on = meta["trained_on"]
        rnd = on["script"].rsplit(" ", 1)[-1]
        out[game] = (ROOT / "benchmarks/gpu" / f"round-{rnd}" / on["trainer"] / "log.csv",
                     int(on["seed_index"]), str(on["trainer"]))
    return out


def main(argv: list[str] | None = None) -> int:
    """Draw the figure."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(OUT))
    args = parser.parse_args(argv)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = shipped_runs()
    fig, axes = plt.subplots(1, len(runs), figsize=(5.5 * len(runs), 3.4), sharey=True)
    for ax, (game, (log, seed, trainer)) in zip(axes, runs.items(), strict=True):
        try:
            gpu = read(log, seed)
            cpu = read(next(iter(sorted(RECIPE_RUNS[game].glob("*/log.csv"))), Path("-")))
        except FileNotFoundError as err:
            print(err, file=sys.stderr)
            return 1
        ax.plot(gpu["steps"], gpu["vs_net"], label=f"{trainer} (GPU): vs distilled heuristic")
        ax.plot(gpu["steps"], gpu["vs_random"], lw=0.7, alpha=0.7,
                label=f"{trainer} (GPU): vs random")
        ax.plot(cpu["steps"], cpu["vs_net"], ls="--",
                label="recipe jax-ppo v2 (CPU): vs distilled heuristic")
        ax.axhline(0.5, color="grey", lw=0.8, ls=":")
        ax.set_xscale("log")
        ax.set_title(f"{game} 2p")
        ax.set_xlabel("learner steps")
        ax.set_ylim(0, 1)
    axes[0].set_ylabel("win rate in the jit")
    axes[0].legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.out, dpi=90, metadata={"Software": None})
    print(f"saved {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
