"""The registration of Rapa Nui (:data:`SPEC`) with its benchmark block.

Beside the spec sit the truths of its two belief probes (the kinds of a seat's face-down
offerings and of its hand, docs/rules/rapa_nui.md §3.1.2), which read only the state's declared
accessors. Nothing here imports the engine; references to it are ``"module:attribute"`` strings.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tabletop_gym.registry import (
    Baselines,
    Benchmark,
    GameSpec,
    LeagueLine,
    Playthrough,
    ProbeLine,
    Recipe,
    TaskLine,
)

SEARCH = {
    2: "search:jax-ppo?worlds=16&z=2",
    4: "search:heuristic-net-v2?worlds=32",
}
"""The strongest search measured at each table size, what ``search:best`` plays (the results
page's row ``search:best``, which reads its Rapa Nui cells from the rows it shares with;
docs/search.md): at 2 players continued by the shipped ``jax-ppo``, which is stronger than the
heuristic there."""


def _shares(counts: Sequence[int]) -> np.ndarray | None:
    total = sum(counts)
    return None if total == 0 else np.asarray(counts, dtype=float) / total


def offering_truth(state: Any, seat: int) -> np.ndarray | None:
    """The kinds of ``seat``'s face-down offerings, as shares (§3.1.2: only it knows them)."""
    return _shares(state.face_down(seat))


def hand_truth(state: Any, seat: int) -> np.ndarray | None:
    """The kinds of ``seat``'s hand cards, as shares."""
    return _shares(state.hand(seat))


def _tasks() -> tuple[TaskLine, ...]:
    out = [TaskLine("RapaNui-2p-vsRandom", "vs", 2,
                    "Rapa Nui, 2 players, one learner against a random bot.", opponents="random")]
    for n in (2, 3, 4):
        out.append(TaskLine(
            f"RapaNui-{n}p-vsHeuristic", "vs", n,
            f"Rapa Nui, {n} players, one learner against {n - 1} heuristic "
            f"bot{'s' if n > 2 else ''}.", opponents="heuristic", core=n == 2))
        out.append(TaskLine(f"RapaNui-{n}p-SelfPlay", "selfplay", n,
                            f"Rapa Nui, {n} players, every seat a learner.", core=n == 4))
    return tuple(out)


SPEC = GameSpec(
    name="rapa_nui",
    title="Rapa Nui",
    engine="tabletop_gym.envs.rapa_nui.rules:RapaNuiGame",
    config="tabletop_gym.envs.rapa_nui.rules:RapaNuiConfig",
    env_module="tabletop_gym.envs.rapa_nui_v0",
    gym_id="RapaNui-v0",
    max_episode_steps=1000,
    single_agent_defaults={"num_players": 2, "opponents": "heuristic"},
    heuristic="tabletop_gym.envs.rapa_nui.bot:RapaNuiHeuristic",
    player_counts=(2, 3, 4),
    train_timesteps=3_000_000,
    test_configs=(
        ("2p", {"num_players": 2}),
        ("3p", {"num_players": 3}),
        ("4p", {"num_players": 4}),
    ),
    playthroughs=(
        Playthrough("rapa_nui_2p", {"num_players": 2}, 2024),
        Playthrough("rapa_nui_4p", {"num_players": 4}, 7),
    ),
    batched="tabletop_gym.envs.rapa_nui.batched:batched_spec",
    docs_tables="tabletop_gym.envs.rapa_nui.docs:TABLES",
    benchmark=Benchmark(
        # The rulebook reading of each switch.
        standard={
            "allow_voluntary_moai_discard": False,
            "active_supply_offering_optional": False,
            "moai_choice": "per_unit",
            "offering_supply_limited": True,
            "zero_count_kind_value": "zero",
            "hunter_gatherer_majority_bonus": True,
        },
        tasks=_tasks(),
        held_out=("heuristic:woodsman", "heuristic:mystic", "heuristic:loner", "ismcts:20"),
        leagues=(
            # The strongest search of each table size (SEARCH, search:best).
            LeagueLine(2, ("heuristic", "ismcts:12:guided", "heuristic:woodsman", "ppo",
                           "jax-ppo", SEARCH[2]), 200),
            LeagueLine(4, ("heuristic", "random", "ismcts:12:guided", "heuristic:woodsman",
                           "jax-ppo", SEARCH[4]), 30, "RapaNui-4p-SelfPlay-v0"),
        ),
        # A multi-player learner takes every seat in turn, as the evaluation seats it; the
        # warm-up regresses a guided search's gains (docs/training.md).
        recipe=Recipe(env_kwargs={"seat_mode": "rotate"},
                      hparams={"teacher": "ismcts:24:guided", "bc_target": "gain",
                               "bc_games": 200, "bc_epochs": 10, "gain_margin": 0.02}),
        baselines=Baselines(
            heuristic_rows=({"num_players": 2}, {"num_players": 3}, {"num_players": 4}),
            ppo_players=2,
            search="ismcts:48:guided",
            search_games=60,
            curve=(("ismcts:12:guided", 30), ("ismcts:24:guided", 30)),
            league_agent="ismcts:12:guided",
        ),
        summary="tabletop_gym.envs.rapa_nui.summary:SUMMARY",
        grammar=(
            ("draw column N", r"draw column \d+ \(.+\)"),
            ("play Woodcutter | play Priest | play Moai",
             r"play (Woodcutter|Priest|Moai \(\d+ wood\))"),
            ("play N× H&G KIND  (N = 1, 2 or 3 cards of one kind)",
             r"play [123]× H&G (KIND) \(\d+ wood\)"),
            ("buy KIND | no purchase", r"buy (KIND) \(\d+ wood\)|no purchase"),
            ("offer KIND from the supply | no supply offering",
             r"offer (KIND) from the supply|no supply offering"),
            ("offer own KIND face down | offer own KIND face up",
             r"offer own (KIND) face (down|up)"),
            ("Moai scoring: N VP, rest wood | Moai scoring: N VP + W wood",
             r"Moai scoring: \d+ VP(, rest wood| \+ \d+ wood)"),
            ("remove a Moai from the game", r"remove a Moai from the game"),
        ),
        kinds="tabletop_gym.envs.rapa_nui.components:KIND_NAMES",
        probes=(
            ProbeLine("offering", "tabletop_gym.envs.rapa_nui.components:KIND_NAMES",
                      "the kind of one of seat {seat}'s face-down offerings on the offering "
                      "stone, picked at random", "tabletop_gym.envs.rapa_nui.spec:offering_truth"),
            ProbeLine("hand", "tabletop_gym.envs.rapa_nui.components:CARD_NAMES",
                      "the kind of one of seat {seat}'s hand cards, picked at random",
                      "tabletop_gym.envs.rapa_nui.spec:hand_truth"),
        ),
        textarena_id="RapaNui-v0",
        distill=True,
        search=SEARCH,
        default_for=("batched", "exploit", "league", "play", "text", "ladder", "rllib"),
    ),
)
"""Rapa Nui as the package knows it."""
