"""Positano as the package knows it: :data:`SPEC`, its one line in the registry.

The spec's benchmark block gives the tasks (solo against Otto Amalfi, every player count on its
usual cliff), the held-out bots, leagues, recipe and baselines' rows; this module also holds
what those need of the game that is not a table (the cliff side a task page shows, the truth of
the ``bid`` probe). It imports no engine module: the registry reads it on every first lookup.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
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
    1: "search:heuristic-net-v2?worlds=32",
    2: "search:heuristic-net-v3?worlds=28",
    4: "search:heuristic-net-v3?worlds=32&value=above",
}
"""The strongest search measured at each table size, what ``search:best`` plays (the results
page's row ``search:best``; docs/search.md): at 2 players it beats ``ismcts:12:guided`` in less
time a move; at 4 it values a continuation by the seats it finished above, the table's measure."""

BID_CARDS = tuple(f"#{i}" for i in range(1, 8))
"""The outcomes of the ``bid`` probe: the seven base bid cards."""
_BID_CARD = re.compile(r"#([1-7])")


def bid_truth(state: Any, seat: int) -> np.ndarray | None:
    """The bid card ``seat`` has committed and not yet revealed (docs/rules/positano.md §3.1).

    ``None`` when the seat has no committed bid.

    Raises:
        ValueError: When a bid's name names no card (the names changed).
    """
    pending = getattr(state, "pending", None)
    if pending is None or pending[seat] is None:
        return None
    name = state.inner.action_to_string(pending[seat], seat)
    card = _BID_CARD.search(name)
    if card is None:  # every full bid names its card; a change of the names must fail here
        raise ValueError(f"bid {name!r} names no card #1..#7")
    out = np.zeros(len(BID_CARDS))
    out[int(card.group(1)) - 1] = 1.0
    return out


def board_side(config: Mapping[str, Any]) -> int:
    """The cliff's side: the config's ``board_size``, else 4 up to 4 players and 5 above (§1)."""
    if config["board_size"]:
        return int(config["board_size"])
    return 4 if config["num_players"] <= 4 else 5


def _tasks() -> tuple[TaskLine, ...]:
    out = [
        TaskLine("Positano-Solo", "solo", 1,
                 "Positano solo against the automa Otto Amalfi; reward min(own, Otto's) / 100.",
                 {"board_size": 4}, core=True),
        TaskLine("Positano-2p-vsRandom", "vs", 2,
                 "Positano, 2 players on the 4×4 cliff, one learner against a random bot.",
                 {"board_size": 4}, opponents="random"),
    ]
    # Every player count with its usual cliff, plus the 4-player 5×5 set-up.
    for n, board, tag in ((2, 4, "2p"), (3, 4, "3p"), (4, 4, "4p"), (4, 5, "4p-5x5"),
                          (5, 5, "5p"), (6, 5, "6p")):
        out.append(TaskLine(
            f"Positano-{tag}-vsHeuristic", "vs", n,
            f"Positano, {n} players on the {board}×{board} cliff, one learner against "
            f"{n - 1} heuristic bot{'s' if n > 2 else ''}.", {"board_size": board},
            opponents="heuristic", core=tag == "2p"))
        out.append(TaskLine(
            f"Positano-{tag}-SelfPlay", "selfplay", n,
            f"Positano, {n} players on the {board}×{board} cliff, every seat a learner.",
            {"board_size": board}, core=tag == "4p"))
    return tuple(out)


SPEC = GameSpec(
    name="positano",
    title="Positano",
    engine="tabletop_gym.envs.positano.rules:PositanoGame",
    config="tabletop_gym.envs.positano.rules:PositanoConfig",
    env_module="tabletop_gym.envs.positano_v0",
    gym_id="Positano-v0",
    max_episode_steps=400,
    single_agent_defaults={"num_players": 1},
    heuristic="tabletop_gym.envs.positano.bot:PositanoHeuristic",
    player_counts=(1, 2, 3, 4, 5, 6),
    train_timesteps=1_500_000,
    split_switch="split_bids",
    task_env_settings={"split_bids": False},
    test_configs=(
        ("1p", {"num_players": 1}),
        ("2p", {"num_players": 2}),
        ("3p", {"num_players": 3}),
        ("4p", {"num_players": 4}),
        ("5p", {"num_players": 5}),
        ("6p", {"num_players": 6}),
        ("4p5x5", {"num_players": 4, "board_size": 5}),
    ),
    playthroughs=(
        Playthrough("positano_2p", {"num_players": 2}, 2025),
        Playthrough("positano_4p", {"num_players": 4}, 11),
        Playthrough("positano_4p_5x5", {"board_size": 5, "num_players": 4}, 5),
        Playthrough("positano_solo", {"num_players": 1}, 3),
        Playthrough("positano_3p_split", {"num_players": 3, "split_bids": True}, 8),
    ),
    batched="tabletop_gym.envs.positano.batched:batched_spec",
    docs_tables="tabletop_gym.envs.positano.docs:TABLES",
    benchmark=Benchmark(
        # Random goal cards, no fixed solo set.
        standard={"goals": [], "solo_goal_set": 0},
        standard_text={"goals": "random goal cards"},
        tasks=_tasks(),
        board=board_side,
        solo_reward="at the end: min(own score, Otto's score) / 100; 0 before",
        solo_opponent="Otto Amalfi (automa)",
        held_out=("heuristic:hoarder", "heuristic:spender", "heuristic:loner", "ismcts:20"),
        leagues=(
            # The strongest search of each table size (SEARCH, search:best).
            LeagueLine(2, ("heuristic", "ismcts:12:guided", "heuristic:hoarder", "jax-ppo",
                           SEARCH[2]), 200),
            # Six agents make 15
            # tables, each agent at 10 of them, so 30 deals give each 1,200 games (45 deals at
            # five agents gave 720).
            LeagueLine(4, ("heuristic", "random", "ismcts:12:guided", "heuristic:hoarder",
                           "jax-ppo", SEARCH[4]), 30, "Positano-4p-SelfPlay-v0"),
        ),
        # Solo Positano's gain over the heuristic appears between 300,000 and 1,000,000 steps
        # (docs/training.md), about 15 CPU minutes.
        recipe=Recipe(timesteps=1_000_000),
        baselines=Baselines(
            heuristic_rows=({"num_players": 1}, {"num_players": 2}, {"num_players": 3},
                            {"num_players": 4}, {"num_players": 4, "board_size": 5},
                            {"num_players": 5}),
            ppo_players=1,
            search="ismcts:48:guided",
            search_games=100,
            # Also UCT with random rollouts (``ismcts:N``), the search of the earlier pages.
            curve=(("ismcts:12:guided", 40), ("ismcts:24:guided", 40), ("ismcts:100", 40),
                   ("ismcts:400", 40), ("ismcts:800", 100), ("ismcts:1600", 20)),
            league_agent="ismcts:12:guided",
        ),
        summary="tabletop_gym.envs.positano.summary:SUMMARY",
        grammar=(
            ("bid card #N  (N = 1 to 7)", r"bid card #[1-7] \(\d+/\d+/\d+\)"),
            ("bid #N +B  (bid card N with booster +B)", r"bid #[1-7] \(\d+/\d+/\d+\) \+\d+"),
            ("booster +B", r"booster \+\d+"),
            ("lot NL  (a lot, e.g. lot 3B)", r"lot [1-5][A-E]"),
            ("block tile N | build tile N  (the tile's number)",
             r"(block|build) tile \d+ \(.+\)"),
            ("build N blocks | build 1 block | build N blocks at NL",
             r"build (1 block|\d+ blocks)( at [1-5][A-E])?"),
            ("Add-On at NL | skip the Add-On", r"Add-On at [1-5][A-E]|skip the Add-On"),
            ("Remodel at NL | skip the Remodel", r"Remodel at [1-5][A-E]|skip the Remodel"),
            ("2X: double the personal supply | 2X: take +2 blocks | 3X: triple the personal "
             "supply | 3X: take +3 blocks  (2X/3X: ... when the tile is not yet known)",
             r"2X: (double the personal supply|take \+2 blocks)|3X: (triple the personal supply"
             r"|take \+3 blocks)|2X/3X: (multiply the personal supply|take \+2/\+3 blocks)"),
            ("no-op", r"no-op"),
        ),
        probes=(
            ProbeLine("bid", "tabletop_gym.envs.positano.spec:BID_CARDS",
                      "the bid card seat {seat} has committed this round (not yet revealed)",
                      "tabletop_gym.envs.positano.spec:bid_truth"),
        ),
        textarena_id="Positano-v0",
        distill=True,
        search=SEARCH,
        default_for=("sb3", "eval"),
    ),
)
"""Positano as the package knows it."""
