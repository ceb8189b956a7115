"""The game registry: every lookup reads it, and a third game needs one registration."""

from __future__ import annotations

import pytest

from tabletop_gym import registry
from tabletop_gym.registry import GameSpec, Playthrough, game_names, game_spec, register_game

NIM = GameSpec(
    name="nim",
    title="Nim",
    engine="tests.toy.nim:NimGame",
    config="tests.toy.nim:NimConfig",
    env_module="tests.toy.nim_v0",
    gym_id="Nim-v0",
    gym_entry_point="tests.toy.nim_v0:single_agent",
    max_episode_steps=50,
    single_agent_defaults={"num_players": 2, "opponents": "heuristic"},
    heuristic="tests.toy.nim:NimHeuristic",
    player_counts=(2,),
    train_timesteps=10_000,
    test_configs=(("2p", {"num_players": 2}),),
    playthroughs=(Playthrough("nim_2p", {"pile": 7}, 0),),
)


@pytest.fixture
def nim():
    """Nim registered for one test, and forgotten after it."""
    register_game(NIM)
    try:
        yield NIM
    finally:
        del registry._REGISTRY[NIM.name]
        for alias in NIM.aliases:
            del registry._ALIASES[alias]


def test_every_name_of_a_game_resolves_to_its_spec():
    spec = game_spec("positano")
    for alias in ("positano", "positano_v0", "Positano-v0", "tabletop_gym/Positano-v0"):
        assert game_spec(alias) is spec
    assert spec.game_class().name == "positano"
    assert game_names() == ("rapa_nui", "positano")


def test_an_unknown_game_is_refused_with_the_closest_name():
    with pytest.raises(ValueError, match=r"unknown game 'positan' \(did you mean 'positano'\?\)"):
        game_spec("positan")


def test_a_name_is_registered_once():
    taken = GameSpec(**{**NIM.__dict__, "name": "positano"})
    with pytest.raises(ValueError, match=r"\['positano'\] already name a game"):
        register_game(taken)
    assert "nim" not in game_names()


def test_the_registered_heuristic_and_envs_are_the_ones_used():
    from tabletop_gym.agents.heuristic import heuristic_for
    from tabletop_gym.envs import positano_v0
    from tabletop_gym.envs.positano.bot import PositanoHeuristic
    from tabletop_gym.registration import GYM_ENVS, PZ_ENVS

    env = positano_v0.raw_env(num_players=2)
    assert isinstance(heuristic_for(env.game, env.observer), PositanoHeuristic)
    assert GYM_ENVS["Positano-v0"] == ("tabletop_gym.wrappers.single_agent:make_positano", 400)
    assert PZ_ENVS[("parallel", "tabletop_gym/RapaNui-v0")] == (
        "tabletop_gym.envs.rapa_nui_v0:parallel_env"
    )


def test_a_third_game_is_one_registration(nim):
    """Records, evaluation, the heuristic lookup, the CLI, playthroughs and the single-agent
    view all find Nim through its registration alone."""
    from tabletop_gym.arena.evaluation import evaluate
    from tabletop_gym.cli import build_parser
    from tabletop_gym.core.playthrough import generate, replay
    from tabletop_gym.core.records import GameRecord, make_game
    from tabletop_gym.wrappers.single_agent import make_registered

    game = make_game("nim", {"pile": 5})
    assert game.config.pile == 5
    record = GameRecord(game="nim", config={"pile": 5}, seed=0, actions=[1, 0, 1])
    assert GameRecord.from_json(record.to_json()).replay().to_dict() == {"pile": 0, "turn": 1}

    # Seat rotation: the heuristic moves first in half the games; from 7 stones the first
    # player always wins with the multiple-of-3 rule, so it wins at least those 2 of 4.
    res = evaluate("nim", "heuristic", "random", n_games=4, seed=0)
    assert res.n_games == 4 and res.win_rate >= 0.5

    args = build_parser().parse_args(["eval", "--game", "nim"])
    assert args.game == "nim"

    text = generate("nim_v0", {"pile": 7}, 0)
    assert "env: nim_v0" in text and replay(text) == text
    assert text.count("\naction: ") <= 7  # each action takes at least one of the 7 stones

    env = make_registered("Nim-v0")
    obs, _ = env.reset(seed=0)
    assert env.aec.game.name == "nim"
    # The registered single-agent defaults: 2 seats, the registered heuristic as opponent.
    assert [type(a).__name__ for a in env._opponents.values()] == ["NimHeuristic"]
