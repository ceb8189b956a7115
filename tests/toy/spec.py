"""Nim's registration: what makes the toy game a full citizen of the package.

This file and one registration (``register_game("tests.toy.spec:SPEC")``, the line a shipped
game has in :data:`tabletop_gym.registry.GAMES`) give Nim its tasks and a suite, a text view
with a rules summary and move grammar, a league, a held-out population and rows of the results
page; no other module of the package changes (``tests/test_toy_citizen.py``).
"""

from __future__ import annotations

from tabletop_gym.registry import Benchmark, GameSpec, LeagueLine, Playthrough, TaskLine

SUMMARY = """\
Nim (2 players). One pile of stones; on your turn take 1 or 2 stones. Whoever takes the last
stone wins."""
"""The rules summary a language model is given for Nim."""

SPEC = GameSpec(
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
    benchmark=Benchmark(
        standard={"pile": 7},
        tasks=(
            TaskLine("Nim-2p-vsHeuristic", "vs", 2,
                     "Nim, 7 stones, one learner against the heuristic bot.",
                     opponents="heuristic", core=True),
            TaskLine("Nim-2p-SelfPlay", "selfplay", 2, "Nim, 7 stones, every seat a learner."),
        ),
        held_out=("random",),
        leagues=(LeagueLine(2, ("heuristic", "random"), 4),),
        summary="tests.toy.spec:SUMMARY",
        grammar=(("take N  (N = 1 or 2)", r"take [12]"),),
    ),
)
"""Nim as the package knows it once registered."""
