"""Regenerate the golden playthroughs on purpose: ``make playthroughs``.

Only when the rules, the observation encoding, the masks or the rewards changed on purpose (and the
env version was bumped); review the diff before committing.
"""

from __future__ import annotations

import pathlib

from tabletop_gym.core.playthrough import generate

HERE = pathlib.Path(__file__).resolve().parent

PLAYTHROUGHS = {
    "rapa_nui_2p.txt": ("rapa_nui_v0", {"num_players": 2}, 2024),
    "rapa_nui_4p.txt": ("rapa_nui_v0", {"num_players": 4}, 7),
    "positano_2p.txt": ("positano_v0", {"num_players": 2}, 2025),
    "positano_4p.txt": ("positano_v0", {"num_players": 4}, 11),
    "positano_4p_5x5.txt": ("positano_v0", {"board_size": 5, "num_players": 4}, 5),
    "positano_solo.txt": ("positano_v0", {"num_players": 1}, 3),
    "positano_3p_split.txt": ("positano_v0", {"num_players": 3, "split_bids": True}, 8),
}


def main() -> None:
    """Write every playthrough file."""
    for name, (env_name, kwargs, seed) in PLAYTHROUGHS.items():
        text = generate(env_name, kwargs, seed)
        (HERE / name).write_text(text)
        print(f"wrote {name}: {text.count(chr(10))} lines")


if __name__ == "__main__":
    main()
