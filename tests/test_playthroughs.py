"""Golden playthroughs replay exactly (docs/design.md, "Tests"): rules, encodings, masks and rewards pinned."""

from __future__ import annotations

import pytest

from tabletop_gym.core.playthrough import iter_diff, parse, replay
from tests.playthroughs.regenerate import HERE, PLAYTHROUGHS


@pytest.mark.parametrize("name", sorted(PLAYTHROUGHS))
def test_playthrough_replays_exactly(name):
    path = HERE / name
    assert path.exists(), f"missing golden file {name}; run `make playthroughs`"
    golden = path.read_text()
    env_name, kwargs, seed, actions = parse(golden)
    assert (env_name, kwargs, seed) == PLAYTHROUGHS[name]
    assert len(actions) > 20
    again = replay(golden)
    if again != golden:
        diff = "\n".join(list(iter_diff(golden, again))[:60])
        pytest.fail(f"{name} no longer replays exactly:\n{diff}")


def test_every_env_has_a_playthrough():
    envs = {env for env, _, _ in PLAYTHROUGHS.values()}
    assert envs == {"rapa_nui_v0", "positano_v0"}
    players = {(env, kw.get("num_players")) for env, kw, _ in PLAYTHROUGHS.values()}
    assert {("rapa_nui_v0", 2), ("rapa_nui_v0", 4), ("positano_v0", 2), ("positano_v0", 4)} <= players
