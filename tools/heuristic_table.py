"""The heuristic-against-random table of the training page: ``python tools/heuristic_table.py``.

Each row is one ``tabletop-gym eval`` run, and the table lists the exact command beside its
numbers. The script rewrites the ``heuristic-vs-random`` block of ``docs/training.md`` (between
``<!-- generated: heuristic-vs-random (python tools/heuristic_table.py) -->`` and its end
marker) and heads it with the provenance of the run (package version, commit, libraries). It
takes minutes, so the tests do not rerun it; rerun it after any change to the rules, the bots or
the evaluation.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

PAGE = ROOT / "docs" / "training.md"
GAMES = 200
SEED = 0
ROWS = [
    ("positano", 1, {}, "Positano", "1 (solo, duplicate deals)"),
    ("positano", 2, {}, "Positano", "2"),
    ("positano", 3, {}, "Positano", "3"),
    ("positano", 4, {}, "Positano", "4"),
    ("positano", 4, {"board_size": 5}, "Positano", "4 on 5×5"),
    ("positano", 5, {}, "Positano", "5"),
    ("rapa_nui", 2, {}, "Rapa Nui", "2"),
    ("rapa_nui", 3, {}, "Rapa Nui", "3"),
    ("rapa_nui", 4, {}, "Rapa Nui", "4"),
]


def command(game: str, players: int, config: dict) -> str:
    """The ``tabletop-gym eval`` command line of one row."""
    cmd = (f"tabletop-gym eval --game {game} --players {players} --candidate heuristic "
           f"--opponent random --games {GAMES} --seed {SEED}")
    if config:
        cmd += " --set " + " ".join(f"{k}={v}" for k, v in config.items())
    return cmd


def table() -> str:
    """Run every row's evaluation and return the block's Markdown."""
    from tabletop_gym.evaluation import evaluate
    from tabletop_gym.provenance import metadata

    meta = metadata()
    libs = ", ".join(f"{k} {v}" for k, v in sorted(meta.get("libraries", {}).items()))
    head = (f"Made by `python tools/heuristic_table.py`: package {meta.get('package_version')}, "
            f"commit {str(meta.get('commit'))[:12]}, {libs}.")
    lines = [head, "",
             "| game | players | win rate [95 % CI] | heuristic mean score | diff | command |",
             "|---|---|---|---|---|---|"]
    for game, players, config, name, label in ROWS:
        r = evaluate(game, "heuristic", "random", n_games=GAMES, seed=SEED,
                     num_players=players, **config)
        lines.append(
            f"| {name} | {label} | {r.win_rate:.3f} [{r.win_ci[0]:.3f}, {r.win_ci[1]:.3f}] "
            f"| {r.mean_score:.1f} | {r.mean_score_diff:+.1f} "
            f"| `{command(game, players, config)}` |"
        )
        print(lines[-1], flush=True)
    return "\n".join(lines) + "\n"


def main() -> int:
    """Rewrite the block of the training page."""
    text = PAGE.read_text(encoding="utf-8")
    pattern = re.compile(
        r"(<!-- generated: heuristic-vs-random \(python tools/heuristic_table\.py\) -->\n)"
        r".*?(<!-- end generated: heuristic-vs-random -->)",
        re.S,
    )
    if not pattern.search(text):
        print("docs/training.md has no heuristic-vs-random block")
        return 1
    body = table()
    PAGE.write_text(pattern.sub(lambda m: m.group(1) + body + m.group(2), text), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
