"""Information-set MCTS: decides on its own information only, is seeded, and is named everywhere."""

from __future__ import annotations

import math
import random

import gymnasium
import numpy as np
import pytest

import tabletop_gym  # noqa: F401 - registers the env ids
from tabletop_gym.agents.base import RandomAgent, choose_action
from tabletop_gym.agents.ismcts import ISMCTSAgent, parse_spec
from tabletop_gym.agents.kinds import make_agent
from tabletop_gym.arena.envs import raw_env_factory
from tabletop_gym.arena.evaluation import evaluate

GAMES = [("rapa_nui", 2), ("rapa_nui", 3), ("positano", 2), ("positano", 1)]


def _agent(env, seed: int, sims: int = 12, rollout: str = "random") -> ISMCTSAgent:
    return ISMCTSAgent(env.game, env.observer, seed, simulations=sims, rollout=rollout)


@pytest.mark.parametrize(("game", "players", "rollout"),
                         [(g, n, "random") for g, n in GAMES]
                         + [("rapa_nui", 2, "guided"), ("positano", 2, "guided")])
def test_decisions_do_not_depend_on_hidden_information(game: str, players: int,
                                                       rollout: str) -> None:
    # The agent must decide on its information set: re-dealing what the acting seat cannot see
    # (rules: hidden hands, draw pile, face-down stacks, Otto's undrawn cards) leaves its choice,
    # with the same seed, unchanged.
    env = raw_env_factory(game)(num_players=players)
    rnd = RandomAgent(1)
    shuffle = random.Random(5)
    checked = changed = 0
    env.reset(seed=3)
    while not env.game_state.is_terminal() and checked < 12:
        state = env.game_state
        seat = state.current_player()
        if len(state.legal_actions()) > 1:
            other = state.resample_hidden(seat, shuffle)
            changed += other.to_dict() != state.to_dict()
            sims = 12 if rollout == "random" else 4
            assert (_agent(env, 7, sims, rollout).act_in(state, seat)
                    == _agent(env, 7, sims, rollout).act_in(other, seat))
            checked += 1
        env.step(rnd.act(env.observe(env.agent_selection)))
    assert checked == 12
    assert changed > 0  # the test really varied the hidden parts


@pytest.mark.parametrize(("game", "players"), GAMES[:1] + GAMES[2:3])
def test_resample_hidden_is_a_function_of_the_view(game: str, players: int) -> None:
    env = raw_env_factory(game)(num_players=players)
    env.reset(seed=11)
    state = env.game_state
    other = state.resample_hidden(0, random.Random(1))
    assert other.to_dict() != state.to_dict()
    a = state.resample_hidden(0, random.Random(42)).to_dict()
    b = other.resample_hidden(0, random.Random(42)).to_dict()
    assert a == b


def test_same_seed_same_game_and_other_seed_other_search() -> None:
    runs = [evaluate("rapa_nui", "ismcts:6", "random", n_games=2, seed=4, num_players=2)
            for _ in range(2)]
    assert runs[0].per_game == runs[1].per_game
    env = raw_env_factory("rapa_nui")(num_players=2)
    env.reset(seed=0)
    rnd = RandomAgent(0)
    while len(env.game_state.legal_actions()) < 3:
        env.step(rnd.act(env.observe(env.agent_selection)))
    state = env.game_state
    seat = state.current_player()
    # One simulation per action and two more: the rollouts, hence the seed, pick the winner.
    sims = len(state.legal_actions()) + 2
    picks = {_agent(env, s, sims=sims).act_in(state, seat) for s in range(12)}
    assert len(picks) > 1


def test_search_picks_the_best_final_move() -> None:
    # At a game's last decision every action ends the game, so enough simulations must find the
    # action of highest value (win share, then score margin). Brute force gives the answer; only
    # positions where that answer does not depend on hidden tiles are used. The margins differ by
    # single points, so exploration is turned off to let the visits follow the values.
    found = 0
    for env, last, seat, best in _final_decisions(range(12)):
        agent = ISMCTSAgent(env.game, env.observer, 0, simulations=4 * len(last.legal_actions()),
                            exploration=0.0)
        assert agent.act_in(last, seat) == best
        found += 1
    assert found >= 3


def _final_decisions(seeds: range):
    """Positano's last decisions whose best action (by brute force) does not depend on hidden
    tiles: the last build (docs/rules/positano.md §6) ends the game whatever is chosen."""
    env = raw_env_factory("positano")(num_players=2)
    rnd = RandomAgent(2)
    judge = _agent(env, 0)
    for game_seed in seeds:
        env.reset(seed=game_seed)
        last = None
        while not env.game_state.is_terminal():
            last = env.game_state.clone()
            env.step(rnd.act(env.observe(env.agent_selection)))
        seat = last.current_player()
        legal = last.legal_actions()
        best = set()
        for k in range(3):
            view = last.resample_hidden(seat, random.Random(k))
            values = {}
            for a in legal:
                s = view.clone()
                s.apply_action(a)
                values[a] = judge._values(s)[seat] if s.is_terminal() else None
            if None in values.values():
                best.add(())  # the game goes on in some deal: not a final decision
                continue
            top = max(values.values())
            best.add(tuple(a for a in legal if values[a] == top))
        if len(best) == 1 and len(next(iter(best))) == 1 and len(legal) > 1:
            yield env, last, seat, next(iter(best))[0]


def test_guided_search_leaves_the_heuristic_for_a_better_final_move() -> None:
    # At a final decision every candidate's value is the same in every deal, so the paired gains
    # have no spread: any candidate better than the heuristic's move is certainly better, and the
    # guided search must play the best one, whether or not the heuristic found it.
    found = differs = 0
    for env, last, seat, best in _final_decisions(range(60)):
        legal = last.legal_actions()
        agent = ISMCTSAgent(env.game, env.observer, 0, simulations=2 * len(legal),
                            rollout="guided", width=len(legal))
        assert agent.act_in(last, seat) == best
        bot = make_agent("heuristic", env.game, env.observer, np.random.default_rng(0))
        differs += bot.act({"observation": env.observer.encode(last, seat),
                            "action_mask": env.observer.action_mask(last, seat)}) != best
        found += 1
    assert found >= 20
    assert differs >= 1  # the search really had to leave the heuristic's move somewhere


def test_guided_search_keeps_the_heuristic_move_without_evidence() -> None:
    # A gain that does not clear an infinite bar never counts: the search plays the heuristic's
    # own move (here with the same tie-breaking seed as the search's root bot).
    env = raw_env_factory("rapa_nui")(num_players=2)
    env.reset(seed=1)
    rnd = RandomAgent(3)
    checked = 0
    while not env.game_state.is_terminal() and checked < 6:
        state = env.game_state
        seat = state.current_player()
        if len(state.legal_actions()) > 1:
            agent = ISMCTSAgent(env.game, env.observer, 5, simulations=4, rollout="guided",
                                switch_z=math.inf)
            bot = make_agent("heuristic", env.game, env.observer, np.random.default_rng(0))
            bot.seed(random.Random(5).randrange(2**63))
            assert agent.act_in(state, seat) == bot.act(env.observe(env.agent_selection))
            checked += 1
        env.step(rnd.act(env.observe(env.agent_selection)))
    assert checked == 6


def test_named_wherever_opponents_are_named() -> None:
    assert parse_spec("ismcts") == (200, "random")
    assert parse_spec("ismcts:50:heuristic") == (50, "heuristic")
    assert parse_spec("ismcts:48:guided") == (48, "guided")
    env = raw_env_factory("positano")(num_players=2)
    agent = make_agent("ismcts:5:heuristic", env.game, env.observer, np.random.default_rng(0))
    assert isinstance(agent, ISMCTSAgent) and agent.simulations == 5
    assert agent.name == "ismcts:5:heuristic"
    res = evaluate("positano", "ismcts:4:heuristic", "heuristic", n_games=2, seed=0,
                   num_players=2)
    assert res.candidate == "ismcts:4:heuristic" and res.n_games == 2
    g = gymnasium.make("RapaNui-v0", opponents="ismcts:3")
    obs, info = g.reset(seed=0)
    done = False
    while not done:
        action = int(np.flatnonzero(info["action_mask"])[0])
        obs, reward, term, trunc, info = g.step(action)
        done = term or trunc
    assert reward in (-1.0, 0.0, 1.0)


@pytest.mark.parametrize("bad", ["ismcts:0", "ismcts:x", "ismcts:5:greedy", "ismcts:1:2:3"])
def test_bad_specs_are_refused_with_what_is_allowed(bad: str) -> None:
    env = raw_env_factory("rapa_nui")(num_players=2)
    with pytest.raises(ValueError, match="ismcts"):
        make_agent(bad, env.game, env.observer)


def test_act_without_state_says_how_to_call_it() -> None:
    env = raw_env_factory("rapa_nui")(num_players=2)
    env.reset(seed=0)
    agent = _agent(env, 0)
    with pytest.raises(TypeError, match="act_in"):
        agent.act(env.observe(env.agent_selection))
    other = 1 - env.game_state.current_player()
    with pytest.raises(ValueError, match="not the one to act"):
        agent.act_in(env.game_state, other)
    assert choose_action(agent, env, env.agent_selection) in env.game_state.legal_actions()


class _Finished:
    """A finished game as the value function reads it: final scores and winners."""

    def __init__(self, scores: list[float], winners: list[int]):
        self._scores, self._winners = scores, winners

    def scores(self) -> list[float]:
        return self._scores

    def winners(self) -> list[int]:
        return self._winners


def test_value_mixes_the_win_with_a_squashed_margin_by_hand() -> None:
    import math

    env = raw_env_factory("rapa_nui")(num_players=2)
    agent = _agent(env, 0)
    # 60 to 50 (rules: the higher total wins): the winner gets 0.5 * 1 + 0.5 * (0.5 + 0.5 *
    # tanh(10 / 10)), the loser 0.5 * 0 + 0.5 * (0.5 - 0.5 * tanh(1)); the two add up to 1
    v = agent._values(_Finished([60.0, 50.0], [0]))
    assert v[0] == pytest.approx(0.75 + 0.25 * math.tanh(1.0))
    assert v[1] == pytest.approx(0.25 - 0.25 * math.tanh(1.0))
    # a shared win: half a win each, margin 0
    assert agent._values(_Finished([55.0, 55.0], [0, 1])) == pytest.approx([0.5, 0.5])
    # the score bounds (0..938 in Rapa Nui) no longer flatten the margin: 30 points ahead is
    # nearly the whole margin term
    assert agent._values(_Finished([90.0, 60.0], [0]))[0] > 0.99


@pytest.mark.parametrize(("game", "players"), [("rapa_nui", 2), ("positano", 2)])
def test_one_simulation_with_heuristic_rollouts_plays_the_heuristic_move(game: str,
                                                                        players: int) -> None:
    # The first child of a fresh node is the rollout policy's own choice, and the heuristic reads
    # only the acting seat's view (which a re-deal keeps), so a one-simulation search plays the
    # heuristic's move: one of the moves the heuristic picks under some seed (it breaks some ties
    # at random).
    env = raw_env_factory(game)(num_players=players)
    rnd = RandomAgent(4)
    env.reset(seed=2)
    checked = 0
    while not env.game_state.is_terminal() and checked < 8:
        state = env.game_state
        seat = state.current_player()
        obs = env.observe(env.agent_selection)
        if len(state.legal_actions()) > 1:
            heuristic = {make_agent("heuristic", env.game, env.observer,
                                    np.random.default_rng(k)).act(obs) for k in range(12)}
            pick = _agent(env, checked, sims=1, rollout="heuristic").act_in(state, seat)
            assert pick in heuristic
            checked += 1
        env.step(rnd.act(obs))
    assert checked == 8


def test_guided_values_cover_every_candidate_and_their_differences_are_the_gains() -> None:
    # With the width spanning the action space every legal move is a root candidate; a
    # candidate's gain is the mean of its paired differences from the heuristic's move, which is
    # the difference of the two means (the annotations of tabletop_gym.tasks.datasets.games).
    env = raw_env_factory("rapa_nui")(num_players=2)
    env.reset(seed=4)
    while len(env.game_state.legal_actions()) < 3:
        env.step(env.game_state.legal_actions()[0])
    state = env.game_state
    legal = state.legal_actions()
    agent = ISMCTSAgent(env.game, env.observer, 0, simulations=2 * len(legal), rollout="guided",
                        width=env.game.num_distinct_actions)
    agent.act_in(state, state.current_player())
    assert sorted(agent.last_values) == sorted(agent.last_gains) == sorted(legal)
    base = next(a for a, g in agent.last_gains.items() if g == 0.0)
    for a in legal:
        assert agent.last_gains[a] == pytest.approx(agent.last_values[a] - agent.last_values[base])
        assert 0.0 <= agent.last_values[a] <= 1.0
