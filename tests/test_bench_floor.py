"""``bench/floor.py`` replays exactly the games RapaNui-v0's vector env played.

Its floor rows time those games' rules, observations and opponents' decisions without the env
layers, so they mean something only if the replay is the same games: the games it keeps must
replay action for action to their end, and a game that does not is refused by name. No timing
is asserted (the bench measures; tests never do).
"""

from __future__ import annotations

import random

import pytest

from tabletop_gym.envs.rapa_nui.rules import RapaNuiGame
from tests.scripts import load_script

floor = load_script("bench/floor.py", "bench_floor")


@pytest.fixture(scope="module")
def played() -> tuple[float, list[floor.Game], dict]:
    # 8 envs x 120 learner steps: every env finishes at least one game (about 50 steps each).
    return floor.play_vec(120, "heuristic", warmup=0)


def test_kept_games_are_the_games_played(played):
    per_step, games, config = played
    assert per_step > 0 and len(games) >= 8
    assert config == RapaNuiGame(num_players=2).config.to_dict()
    floor.check(games, config)  # raises unless each replays legally to its end
    seats = {seat for _seed, _actions, seat in games}
    assert seats == {0, 1}  # seat_mode="rotate": the learner plays both seats
    # The learner decisions the replay counts are the learner's turns of those games, every
    # one of which the env handed a step.
    decisions = floor.replay(games, config, 1)[1]
    game = RapaNuiGame(**config)
    turns = 0
    for seed, actions, seat in games:
        state = game.new_initial_state(random.Random(seed))
        for action in actions:
            turns += state.current_player() == seat
            state.apply_action(action)
    assert decisions == turns > 0


def test_every_pass_replays_the_same_decisions(played):
    _per_step, games, config = played
    counts = {floor.replay(games, config, parts)[1] for parts in (1, 2, 3)}
    assert len(counts) == 1


def test_a_game_that_does_not_replay_is_refused_by_name(played):
    _per_step, games, config = played
    seed, actions, seat = games[0]
    # Another deal: an action turns illegal, or the actions stop short of the end.
    with pytest.raises(RuntimeError,
                       match=rf"game 1 \(engine seed {seed + 1}\) does not (replay|end)"):
        floor.check([games[0], (seed + 1, actions, seat)], config)
    with pytest.raises(RuntimeError, match=rf"game 0 \(engine seed {seed}\) does not end"):
        floor.check([(seed, actions[:-1], seat)], config)
