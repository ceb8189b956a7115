"""Golden playthroughs replay exactly (docs/design.md, "Tests"): rules, encodings, masks and rewards pinned."""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_gym.core.layout import Grid
from tabletop_gym.core.observer import ObservationLayout
from tabletop_gym.core.playthrough import iter_diff, observations, parse, replay
from tabletop_gym.registry import game_spec
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


def _replayed_observations(golden: str):
    """``(step, agent, observation)`` of the acting agent at every step, from the env itself."""
    env_name, kwargs, seed, actions = parse(golden)
    env = game_spec(env_name).envs().raw_env(**kwargs)
    env.reset(seed=seed)
    todo = iter(actions)
    out: list[tuple[int, str, np.ndarray]] = []
    for agent in env.agent_iter():
        _, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        out.append((len(out), agent, env.observe(agent)["observation"]))
        env.step(next(todo))
    return out


@pytest.mark.parametrize("name", sorted(PLAYTHROUGHS))
def test_every_step_rebuilds_the_whole_observation_exactly(name):
    """The printed changes, applied in order, give every entry of every step's observation."""
    golden = (HERE / name).read_text()
    rebuilt = observations(golden)
    played = _replayed_observations(golden)
    assert [(step, agent) for step, agent, _ in rebuilt] == [(s, a) for s, a, _ in played]
    for (step, agent, vec), (_, _, obs) in zip(rebuilt, played, strict=True):
        assert vec.shape == obs.shape, step
        np.testing.assert_array_equal(vec, obs, err_msg=f"{name} step {step} ({agent})")


def _block(golden: list[str], header: str) -> list[str]:
    start = golden.index(header) + 1
    end = start
    while golden[end].startswith("    "):
        end += 1
    return golden[start:end]


def test_a_first_observation_prints_every_non_zero_slice_and_grids_as_tables():
    golden = (HERE / "rapa_nui_2p.txt").read_text().splitlines()
    block = _block(golden, "  observation of player_0 (first; its non-zero entries):")
    env = game_spec("rapa_nui_v0").envs().raw_env(num_players=2)
    env.reset(seed=PLAYTHROUGHS["rapa_nui_2p.txt"][2])
    expected = env.observe(env.agent_selection)["observation"]
    names = [line.split()[0].split("[")[0] for line in block if not line.startswith("      ")]
    assert names == [n for n, v in env.observer.layout.view(expected).items() if v.any()]
    # docs/rules/rapa_nui.md §2.1: each seat's Woodcutter starts face up in its display, so both displays hold
    # one Woodcutter: a table of seats (ego order) by card id, zero rows of absent seats left out.
    at = block.index("    displays[4x7]")
    assert block[at + 1].split() == [
        "Woodcutter", "Priest", "Moai", "H&G_Fish", "H&G_Grain", "H&G_Paper_mulberry",
        "H&G_Sweet_potato",
    ]
    assert block[at + 2].split() == ["you", "1", ".", ".", ".", ".", ".", "."]
    assert block[at + 3].split() == ["+1", "1", ".", ".", ".", ".", ".", "."]
    assert not block[at + 4].startswith("      ")
    # docs/rules/rapa_nui.md §2.9: seat i starts with 2 + i wood; ego order lists seat 0 first.
    assert "    wood[4] 0:2 1:3" in block


def test_a_later_observation_prints_only_what_changed_for_that_agent():
    golden = (HERE / "rapa_nui_2p.txt").read_text().splitlines()
    # Step 1 is seat 0's play phase right after it bought nothing (docs/rules/rapa_nui.md §3,
    # phase 1): only
    # the phase one-hot moves, from buy (index 0) to play (index 1).
    block = _block(golden, "  observation of player_0 (changes since its step 0):")
    assert block == ["    phase[7] 0:1→0 1:0→1"]


def test_a_change_that_does_not_follow_from_the_observation_before_is_refused():
    golden = (HERE / "rapa_nui_2p.txt").read_text()
    assert "    phase[7] 0:1→0 1:0→1" in golden
    broken = golden.replace("    phase[7] 0:1→0 1:0→1", "    phase[7] 0:0→0 1:0→1", 1)
    with pytest.raises(ValueError, match="does not follow the observation before"):
        observations(broken)
    # A slice printed as a table must be declared one: a grid header of the wrong shape.
    broken = golden.replace("    displays[4x7]", "    displays[7x4]", 1)
    with pytest.raises(ValueError, match="bad grid header"):
        observations(broken)


def test_grids_are_declared_with_labels_that_fit_their_slice():
    with pytest.raises(ValueError, match="has 6 entries but its grid"):
        ObservationLayout([("x", 6, 0, 1, "doc", Grid(("a", "b"), ("c", "d")))])
    with pytest.raises(ValueError, match="no whitespace"):
        Grid(("a b",), ("c",))
    with pytest.raises(ValueError, match="distinct"):
        Grid(("a", "a"), ("c",))
    with pytest.raises(ValueError, match="at least one column"):
        Grid(("a",), ())
    layout = ObservationLayout([("x", 4, 0, 1, "doc", Grid(("a", "b"), ("c", "d")))])
    assert layout["x"].grid is not None and layout["x"].shape == (2, 2)
    assert ObservationLayout([("y", 3, 0, 1, "doc")])["y"].shape == (3,)
    assert layout["x"].part == ("x", 4, 0.0, 1.0, "doc", Grid(("a", "b"), ("c", "d")))
