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


def test_observations_are_printed_as_named_slices():
    """Each golden step names the slices it prints; the values rebuild the observation."""
    import numpy as np

    from tabletop_gym.registry import game_spec

    golden = (HERE / "rapa_nui_2p.txt").read_text().splitlines()
    start = golden.index("  observation:") + 1
    env = game_spec("rapa_nui_v0").envs().raw_env(num_players=2)
    env.reset(seed=PLAYTHROUGHS["rapa_nui_2p.txt"][2])
    expected = env.observe(env.agent_selection)["observation"]
    layout = env.observer.layout
    rebuilt = np.zeros(layout.size, dtype=np.float32)
    names = []
    for line in golden[start:]:
        if not line.startswith("    "):
            break
        head, _, rest = line.strip().partition(" ")
        name = head.split("[")[0]
        names.append(name)
        part = layout[name]
        if rest.startswith("= "):
            rebuilt[part.start] = float(rest[2:])
        else:
            assert head == f"{name}[{part.size}]"
            for item in rest.split():
                i, v = item.split(":")
                rebuilt[part.start + int(i)] = float(v)
    assert names == [n for n, v in layout.view(expected).items() if v.any()]
    np.testing.assert_array_equal(rebuilt, expected)
