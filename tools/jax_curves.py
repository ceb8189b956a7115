"""Training curves of the shipped ``jax-ppo`` policies: ``python tools/jax_curves.py``.

Reads the ``log.csv`` that ``tabletop_gym.jax.train`` wrote for each shipped policy (committed
with its ``suite train`` row under ``benchmarks/suite-train/jax-ppo/<task>/seed-0/``) and draws,
per game, the learner's win rate in its training games (against the distilled heuristic) and
against random (measured inside the jit) over the learner steps, into
``docs/img/jax-ppo-curves.png``.
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUNS = {
    "positano 2p": ROOT / "benchmarks/suite-train/jax-ppo/Positano-2p-vsHeuristic-v0/seed-0",
    "rapa_nui 2p": ROOT / "benchmarks/suite-train/jax-ppo/RapaNui-2p-vsHeuristic-v0/seed-0",
}
OUT = ROOT / "docs" / "img" / "jax-ppo-curves.png"


def read(folder: Path) -> dict[str, list[float]]:
    """The columns of the run's log that the figure draws."""
    logs = sorted(folder.glob("*/log.csv"))
    if not logs:
        raise FileNotFoundError(f"no log.csv under {folder}")
    cols: dict[str, list[float]] = {"steps": [], "vs_net": [], "vs_random": []}
    with logs[0].open() as fh:
        for row in csv.DictReader(fh):
            if not row["learner_win_rate"] or not row["win_rate_vs_random"]:
                continue
            cols["steps"].append(float(row["learner_steps"]))
            cols["vs_net"].append(float(row["learner_win_rate"]))
            cols["vs_random"].append(float(row["win_rate_vs_random"]))
    return cols


def main(argv: list[str] | None = None) -> int:
    """Draw the figure."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(OUT))
    args = parser.parse_args(argv)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(RUNS), figsize=(5 * len(RUNS), 3.2), sharey=True)
    for ax, (name, folder) in zip(axes, RUNS.items(), strict=True):
        try:
            cols = read(folder)
        except FileNotFoundError as err:
            print(err, file=sys.stderr)
            return 1
        ax.plot(cols["steps"], cols["vs_net"], label="training games (vs distilled heuristic)")
        ax.plot(cols["steps"], cols["vs_random"], label="vs random (in the jit)")
        ax.axhline(0.5, color="grey", lw=0.8, ls=":")
        ax.set_title(name)
        ax.set_xlabel("learner steps")
        ax.set_ylim(0, 1)
    axes[0].set_ylabel("win rate")
    axes[0].legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.out, dpi=90, metadata={"Software": None})
    print(f"saved {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
