"""The Rapa Nui heuristic bot: legal, deterministic, blind to the engine state, and clearly
better than random play.

Positions for the behaviour tests are JSON ``"state"`` dicts from ``tests.rapa_nui.helpers``;
the bot only ever sees the observation dict of the seat to act, encoded by an observer of its own.
"""

from __future__ import annotations

import ast
import hashlib
import inspect
import random

import numpy as np
import pytest

from tabletop_gym.agents import make_agent
from tabletop_gym.agents.base import RandomAgent
from tabletop_gym.arena.evaluation import evaluate
from tabletop_gym.core.game import State
from tabletop_gym.envs.rapa_nui import bot as rapa_nui_bot
from tabletop_gym.envs.rapa_nui.bot import RapaNuiHeuristic
from tabletop_gym.envs.rapa_nui.env import raw_env
from tabletop_gym.envs.rapa_nui.observer import RapaNuiObserver
from tabletop_gym.envs.rapa_nui.rules import (
    BUY,
    DRAW,
    MOAI_VP,
    NO_BUY,
    OFFER,
    PLAY_MOAI,
    PLAY_WOODCUTTER,
    SUPPLY,
    RapaNuiGame,
    RapaNuiState,
)
from tests.rapa_nui.helpers import FISH, GRAIN, MULB, SWEET, M, P, W, disp, load, position

VARIANTS = [
    {"num_players": 2},
    {"num_players": 3},
    {"num_players": 4},
    {"num_players": 3, "moai_choice": "all_same"},
    {
        "num_players": 2,
        "allow_voluntary_moai_discard": True,
        "active_supply_offering_optional": True,
    },
    {"num_players": 4, "offering_supply_limited": False, "zero_count_kind_value": "ranked"},
    {"num_players": 3, "hunter_gatherer_majority_bonus": False},
]


def _bot(config: dict, seed: int = 0) -> RapaNuiHeuristic:
    """A bot with its own game and observer: it never gets hold of the env or its state."""
    game = RapaNuiGame(**config)
    return RapaNuiHeuristic(game, RapaNuiObserver(game), np.random.default_rng(seed))


def _obs(state: RapaNuiState, seat: int) -> dict[str, np.ndarray]:
    """The observation dict of ``seat`` for ``state``, frozen so the bot cannot write to it."""
    observer = RapaNuiObserver(state.game)
    obs = {
        "observation": observer.encode(state, seat),
        "action_mask": observer.action_mask(state, seat),
    }
    for v in obs.values():
        v.flags.writeable = False
    return obs


def _act(config: dict, state_dict: dict) -> int:
    state = load(RapaNuiGame(**config), state_dict)
    return _bot(config).act(_obs(state, state.current_player()))


# --- strength -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "games"), [(2, 60), (3, 45), (4, 40)])
def test_beats_random_clearly(players, games):
    # Seats rotate over paired deals, so the Wilson interval's lower end above 1/n is a robust
    # "better than the fair share" (over 200 games: 0.995 / 0.925 / 0.855 for 2 / 3 / 4 players).
    res = evaluate("rapa_nui", "heuristic", "random", n_games=games, seed=0, num_players=players)
    assert res.win_ci[0] > 1 / players, res.row()
    assert res.mean_score_diff > 0
    if players == 2:
        assert res.win_rate >= 0.75


# --- legality and purity ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "config", VARIANTS, ids=lambda c: "-".join(f"{k}{v}" for k, v in c.items())
)
def test_only_legal_actions_over_many_positions(config):
    # Half the moves are random, so the bot is asked in positions it would not reach itself.
    env = raw_env(**config)
    n = config["num_players"]
    bots = [_bot(config, seed) for seed in range(n)]
    rnd = RandomAgent(np.random.default_rng(1))
    coin = random.Random(2)
    asked = 0
    for game_seed in range(6):
        env.reset(seed=game_seed)
        while not env.game_state.is_terminal():
            agent = env.agent_selection
            obs = env.observe(agent)
            seat = env.game_state.current_player()
            action = bots[seat].act(obs)
            asked += 1
            assert obs["action_mask"][action] == 1, (env.game_state.phase(), action)
            env.step(action if coin.random() < 0.5 else rnd.act(obs))
    assert asked > 300


def test_refuses_when_not_to_act():
    env = raw_env(num_players=2)
    env.reset(seed=0)
    idle = next(a for a in env.agents if a != env.agent_selection)
    with pytest.raises(ValueError):
        _bot({"num_players": 2}).act(env.observe(idle))


def test_decides_from_the_observation_alone():
    # The bot is built from its own game and observer (never the env's), gets read-only copies
    # of env.observe(...), and decides the same when everything the seat cannot see is re-dealt.
    config = {"num_players": 3}
    env = raw_env(**config)
    rnd = RandomAgent(np.random.default_rng(5))
    shuffle = random.Random(6)
    checked = 0
    for game_seed in range(3):
        env.reset(seed=game_seed)
        while not env.game_state.is_terminal():
            agent = env.agent_selection
            state = env.game_state
            seat = state.current_player()
            obs = {k: v.copy() for k, v in env.observe(agent).items()}
            for v in obs.values():
                v.flags.writeable = False
            action = _bot(config, checked).act(obs)
            other = state.resample_hidden(seat, shuffle)
            assert _bot(config, checked).act(_obs(other, seat)) == action
            checked += 1
            env.step(rnd.act(env.observe(agent)))
    assert checked > 100
    bot = _bot(config)
    assert not any(isinstance(v, State) for v in vars(bot).values())


def test_source_never_touches_engine_state():
    # Belt and braces: the module names no state accessor of the engine or the env.
    tree = ast.parse(inspect.getsource(rapa_nui_bot))
    attrs = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    forbidden = {
        "game_state",
        "state_obj",
        "legal_actions",
        "apply_action",
        "clone",
        "resample_hidden",
        "encode",
        "action_mask",
        "scores",
        "winners",
        "to_json",
    }
    assert not attrs & forbidden, attrs & forbidden


def test_deterministic_given_seed_and_reseedable():
    config = {"num_players": 2}

    def play(bots):
        env = raw_env(**config)
        env.reset(seed=11)
        actions = []
        while not env.game_state.is_terminal():
            agent = env.agent_selection
            actions.append(bots[env.game_state.current_player()].act(env.observe(agent)))
            env.step(actions[-1])
        return actions

    first = play([_bot(config, 3), _bot(config, 4)])
    assert play([_bot(config, 3), _bot(config, 4)]) == first
    bots = [_bot(config, 99), _bot(config, 98)]
    for b, s in zip(bots, (3, 4), strict=True):
        b.seed(s)
    assert play(bots) == first


def test_made_by_make_agent_and_named():
    env = raw_env(num_players=4)
    bot = make_agent("heuristic", env.game, env.observer, np.random.default_rng(0))
    assert isinstance(bot, RapaNuiHeuristic)
    assert bot.name == "heuristic"


# --- behaviour ----------------------------------------------------------------------------------


def test_moai_timing():
    # At the start a second Woodcutter (the wood majority for the whole game) beats the Moai,
    # which waits in hand; later, with few scorings left, the affordable Moai comes first.
    hands = [[M, W, P], [FISH, W, P]]
    early = position(phase="play", hands=hands, wood=[7, 3])
    assert _act({"num_players": 2}, early) == PLAY_WOODCUTTER
    late = position(
        phase="play",
        hands=hands,
        displays=[disp(W=3, P=2), disp()],
        wood=[7, 3],
        draw_pile=[W, P, FISH, GRAIN, MULB, SWEET],
        dump=1,
    )
    assert _act({"num_players": 2}, late) == PLAY_MOAI


def test_buys_cheap_cards_but_not_with_the_wood_of_this_turns_moai():
    # Four Fish H&G make a Fish card cost 1 wood: worth it early, unless that wood is the 7th
    # wood of the Moai in hand.
    common = {
        "phase": "buy",
        "displays": [disp(FISH=4), disp()],
        "columns": [[W] * 4, [P] * 4, [M] * 4, [GRAIN, MULB, SWEET, GRAIN]],
        "wood": [7, 3],
    }
    buy = position(hands=[[GRAIN, W, P], [FISH, W, P]], **common)
    assert _act({"num_players": 2}, buy) == BUY + 0
    keep = position(hands=[[M, W, P], [FISH, W, P]], **common)
    assert _act({"num_players": 2}, keep) == NO_BUY


def _end_position(vp: list[int]) -> dict:
    # Two cards left in the pile: taking column 1's last card ends the game at once (§6).
    return position(
        phase="draw",
        draws_left=1,
        hands=[[W, P], [FISH, W, P]],
        vp=vp,
        columns=[[W], [P, M, M, M], [M, M, P, P], [P, P, P, M]],
        draw_pile=[W, W],
        dump=1,
    )


def test_ends_the_game_when_leading_and_not_when_behind():
    assert _act({"num_players": 2}, _end_position([300, 0])) == DRAW + 0
    assert _act({"num_players": 2}, _end_position([0, 300])) != DRAW + 0


def test_draw_order_exposes_a_card_that_scores_for_itself():
    # Same front cards everywhere; only column 3 exposes a Priest, and only seat 0 has Priests
    # (the other exposed cards score the same for both seats).
    state = position(
        phase="draw",
        draws_left=1,
        hands=[[W, GRAIN], [FISH, W, P]],
        displays=[disp(P=3), disp()],
        columns=[[M, W, W, W], [M, FISH, M, M], [M, P, W, W], [M, GRAIN, W, W]],
    )
    assert _act({"num_players": 2}, state) == DRAW + 2


def test_moai_units_as_wood_only_while_a_moai_waits():
    common = {"phase": "moai_split", "displays": [disp(M=2), disp()], "moai_units": [3, 0]}
    waiting = position(hands=[[M, W, P], [FISH, W, P]], wood=[3, 3], **common)
    assert _act({"num_players": 2}, waiting) == MOAI_VP + 0  # 3 wood: 6 of the 7 for the Moai
    nothing_to_build = position(hands=[[W, W, P], [FISH, W, P]], wood=[3, 3], **common)
    assert _act({"num_players": 2}, nothing_to_build) == MOAI_VP + 3


def test_offerings_keep_the_own_big_kind_on_top():
    # Seat 0 holds 5 Fish and 1 Sweet potato; the stone has 2 Fish, 2 Grain, 2 Mulberry.
    holdings = [[5, 0, 0, 1], [1, 1, 1, 1]]
    stone = [2, 2, 2, 0]
    # As the active player's face-down card: giving up the lone Sweet potato keeps Fish at 3.
    state = position(
        phase="offer",
        draws_left=1,
        hands=[[W, P], [FISH, W, P]],
        displays=[disp(M=2), disp(M=1)],
        holdings=holdings,
        stone_face_up=stone,
    )
    assert _act({"num_players": 2}, state) == OFFER + 3
    # The supply card raises Fish, the kind it holds most.
    state = position(
        phase="supply_offer",
        draws_left=1,
        hands=[[W, P], [FISH, W, P]],
        displays=[disp(M=2), disp(M=1)],
        holdings=[[5, 0, 0, 0], [1, 1, 1, 1]],
        stone_face_up=stone,
        stone_face_down=[[0, 0, 0, 1], [0, 0, 0, 0]],
    )
    assert _act({"num_players": 2}, state) == SUPPLY + 0


def test_the_bot_counts_the_hunter_gatherer_bonus_only_when_the_switch_is_on() -> None:
    # docs/rules/rapa_nui.md §4: the sole majority of >= 2 gets one more unit; with
    # hunter_gatherer_majority_bonus=False an H&G scoring gives no bonus card, the others still do.
    gains = rapa_nui_bot._gains
    assert gains([2.0, 1.0], True) == [2.0, 1.0]  # H&G: flat 1 card each, +1 for the leader
    assert gains([2.0, 1.0], True, False) == [1.0, 1.0]
    assert gains([2.0, 1.0], False, False) == [3.0, 1.0]  # Woodcutter/Priest/Moai keep it
    assert _bot({"hunter_gatherer_majority_bonus": False})._hg_bonus is False
    assert _bot({})._hg_bonus is True


# --- decisions pinned ---------------------------------------------------------------------------

# The bot's decisions over the seeded games below, hashed. The baselines tables and their
# regression test rest on these decisions, so a change that moves a single one (a valuation
# reordered, a rounding changed by a speed-up) must show here first. Recorded before the
# table-driven rewrite and unchanged by it (1,600 games compared action by action then).
PINNED_DECISIONS = (1888, "24ee608d60879786414e67c0faf01b43bebcc3880a7e01fc5b36e406abb30f62")


def _decision_digest(parts: bool = False) -> tuple[int, str]:
    """Every decision the bot makes in 2 seeded games per variant, half of them played out.

    The other half of the moves are random, so the bot is asked in positions it would not
    reach itself. With ``parts`` the bot is asked through ``act_on`` (the observation vector
    and the engine's legal ids) instead of ``act`` (the observation dict).
    """
    digest = hashlib.sha256()
    count = 0
    for index, config in enumerate(VARIANTS):
        game = RapaNuiGame(**config)
        observer = RapaNuiObserver(game)
        for seed in (index, index + 50):
            bots = [
                RapaNuiHeuristic(game, observer, np.random.default_rng(seed * 10 + q))
                for q in range(config["num_players"])
            ]
            coin = random.Random(seed + 1000)
            state = game.new_initial_state(random.Random(seed))
            while not state.is_terminal():
                seat = state.current_player()
                if parts:
                    action = bots[seat].act_on(observer.encode(state, seat),
                                               tuple(state.legal_actions(seat)))
                else:
                    obs = {
                        "observation": observer.encode(state, seat),
                        "action_mask": observer.action_mask(state, seat),
                    }
                    action = bots[seat].act(obs)
                digest.update(f"{action},".encode())
                count += 1
                if coin.random() < 0.5:
                    action = coin.choice(state.legal_actions())
                state.apply_action(action)
        digest.update(b";")
    return count, digest.hexdigest()


def test_decisions_are_pinned():
    assert _decision_digest() == PINNED_DECISIONS


def test_act_on_decides_as_act():
    # The single-agent env hands its heuristic opponents the parts of their observation: the
    # same decisions, the generator drawn from exactly as often.
    assert _decision_digest(parts=True) == PINNED_DECISIONS


def test_act_on_refuses_an_empty_legal_set():
    game = RapaNuiGame(num_players=2)
    observer = RapaNuiObserver(game)
    state = game.new_initial_state(random.Random(0))
    bot = RapaNuiHeuristic(game, observer, np.random.default_rng(0))
    with pytest.raises(ValueError, match="no legal action"):
        bot.act_on(observer.encode(state, 0), ())


def test_decisions_do_not_depend_on_the_memo_tables(monkeypatch):
    # The bots share memo tables of pure valuations, emptied whenever one is full. With room for
    # only three entries the tables are emptied all the time, and every decision is the same.
    monkeypatch.setattr(rapa_nui_bot, "_MEMO_LIMIT", 3)
    rapa_nui_bot.clear_memo_tables()
    assert _decision_digest() == PINNED_DECISIONS
    rapa_nui_bot.clear_memo_tables()
