"""Regenerate the golden playthroughs on purpose: ``make playthroughs``.

Only when the rules, the observation encoding, the masks or the rewards changed on purpose (and the
env version was bumped); review the diff before committing.
"""

from __future__ import annotations

import pathlib

from tabletop_gym.core.playthrough import generate
from tabletop_gym.registry import game_specs

HERE = pathlib.Path(__file__).resolve().parent

PLAYTHROUGHS = {
    f"{p.file}.txt": (spec.env_name, dict(p.env_kwargs), p.seed)
    for spec in game_specs()
    for p in spec.playthroughs
}
"""File name -> (env name, env kwargs, seed), from every game's registration."""


def main() -> None:
    """Write every playthrough file."""
    for name, (env_name, kwargs, seed) in PLAYTHROUGHS.items():
        text = generate(env_name, kwargs, seed)
        (HERE / name).write_text(text)
        print(f"wrote {name}: {text.count(chr(10))} lines")


if __name__ == "__main__":
    main()
