"""Named variants of the heuristic bots (``heuristic:NAME``): the held-out opponent population.

A variant is the same bot with other priorities. These tests check that each priority reaches
the valuation it names (values worked out by hand from the bot's formulas), that every variant
plays legal games and decides differently from the bot, that a variant leaves the bot's own
decisions and memo tables alone, and that a wrong name is refused with the names allowed.
"""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_gym.agents.heuristic import heuristic_for, variants_of
from tabletop_gym.agents.kinds import make_agent
from tabletop_gym.envs.positano.bot import PositanoHeuristic, PositanoPriorities
from tabletop_gym.envs.positano.env import raw_env as positano_env
from tabletop_gym.envs.rapa_nui.bot import (
    _FULL_CARDS,
    RapaNuiHeuristic,
    RapaNuiPriorities,
)
from tabletop_gym.envs.rapa_nui.components import MOAI_COST, MOAI_END_VP
from tabletop_gym.envs.rapa_nui.env import raw_env as rapa_nui_env

ENVS = {"positano": positano_env, "rapa_nui": rapa_nui_env}


def _play(game: str, specs: dict[int, str], seed: int, num_players: int) -> list[int]:
    """Every action of one seeded game with ``specs[seat]`` in each seat."""
    env = ENVS[game](num_players=num_players)
    env.reset(seed=seed)
    bots = {a: make_agent(specs[i], env.game, env.observer, np.random.default_rng([seed, i]))
            for i, a in enumerate(env.possible_agents)}
    actions = []
    for name in env.agent_iter():
        obs, _r, term, trunc, _info = env.last()
        if term or trunc:
            env.step(None)
            continue
        action = bots[name].act(obs)
        assert obs["action_mask"][action], f"{specs} chose illegal {action}"
        actions.append(int(action))
        env.step(action)
    return actions


def test_each_game_names_three_variants():
    assert sorted(variants_of("positano")) == ["hoarder", "loner", "spender"]
    assert sorted(variants_of("rapa_nui")) == ["loner", "mystic", "woodsman"]


@pytest.mark.parametrize("game", ["positano", "rapa_nui"])
@pytest.mark.parametrize("num_players", [2, 4])
def test_every_variant_plays_legally_and_differs_from_the_bot(game, num_players):
    for variant in variants_of(game):
        spec = f"heuristic:{variant}"
        # The variant in every seat against the bot in every seat, on the same deals.
        differs = False
        for seed in range(2):
            mixed = {i: spec if i % 2 == 0 else "heuristic" for i in range(num_players)}
            got = _play(game, mixed, seed, num_players)
            base = _play(game, dict.fromkeys(range(num_players), "heuristic"), seed,
                         num_players)
            differs = differs or got != base
        assert differs, f"{spec} made every decision the bot made in {num_players}p {game}"


def test_a_variant_leaves_the_bots_own_decisions_alone():
    # Rapa Nui's bots share memo tables per config; a variant must keep tables of its own.
    before = _play("rapa_nui", {0: "heuristic", 1: "heuristic"}, 7, 2)
    _play("rapa_nui", {0: "heuristic:mystic", 1: "heuristic:woodsman"}, 7, 2)
    assert _play("rapa_nui", {0: "heuristic", 1: "heuristic"}, 7, 2) == before


def test_the_bot_name_says_the_variant():
    env = positano_env(num_players=2)
    assert make_agent("heuristic:hoarder", env.game, env.observer).name == "heuristic:hoarder"
    assert make_agent("heuristic", env.game, env.observer).name == "heuristic"


def test_an_unknown_variant_is_refused_with_the_variants_allowed():
    env = rapa_nui_env(num_players=2)
    with pytest.raises(ValueError, match=r"unknown heuristic variant 'hoarder' for rapa_nui; "
                       r"its variants: \['loner', 'mystic', 'woodsman'\]"):
        make_agent("heuristic:hoarder", env.game, env.observer)
    with pytest.raises(ValueError, match="unknown heuristic variant ''"):
        heuristic_for(env.game, env.observer, None, "")


class _W:
    """The parts of a decoded Positano view that the weights below read."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.solo = n == 1


def test_positano_priorities_reach_their_valuations():
    env = positano_env(num_players=2)
    bot = PositanoHeuristic(env.game, env.observer)
    loner = PositanoHeuristic(env.game, env.observer,
                              priorities=PositanoPriorities(rival_view=0.0, competition=0.5))
    hoarder = PositanoHeuristic(env.game, env.observer,
                                priorities=PositanoPriorities(first_block=6.0))
    # A point of view taken from the one rival: 0.8 for the bot, nothing for the loner; with
    # three players every rival counts 1/2 whatever the priorities (one of several rivals).
    assert bot._other_weight(_W(2)) == 0.8
    assert loner._other_weight(_W(2)) == 0.0
    assert loner._other_weight(_W(3)) == bot._other_weight(_W(3)) == 0.5
    assert loner._other_weight(_W(1)) == -1.0  # solo: Otto is a partner
    # The first block of a building still to come (stock 0 below a critical need of 1).
    need = (3.0, 1, 2.0)
    assert bot._mu(need, 0, True, 0.0) == 4.0
    assert hoarder._mu(need, 0, True, 0.0) == 6.0
    # A goal race still open: worth the competition weight per building, 2.0 and 0.5.
    assert bot._comp_weight(1, [1]) == 2.0
    assert loner._comp_weight(1, [1]) == 0.5


def test_rapa_nui_priorities_reach_their_estimates():
    env = rapa_nui_env(num_players=2)
    bot = RapaNuiHeuristic(env.game, env.observer)
    woodsman = RapaNuiHeuristic(env.game, env.observer,
                                priorities=RapaNuiPriorities(wood_scale=1.6))
    mystic = RapaNuiHeuristic(env.game, env.observer, priorities=RapaNuiPriorities(
        offer_round_value=2.0, prior_kind_value=2.5, stone_trust=4.0))
    stocked = (True, True, True, True)
    # No cards left (stage 0): a wood unit is worth the late floor, 0.25 (woodsman 1.6 x 0.25).
    end = (0, False, (0.0, 0.0, 0.0, 0.0), 0.0, stocked)
    assert bot._estimate(end).wood_value == 0.25
    assert woodsman._estimate(end).wood_value == pytest.approx(0.4)
    # A Moai: its end VP plus its offering round minus its wood.
    assert bot._estimate(end).moai_value == pytest.approx(MOAI_END_VP + 0.7 - MOAI_COST * 0.25)
    assert mystic._estimate(end).moai_value == pytest.approx(MOAI_END_VP + 2.0 - MOAI_COST * 0.25)
    # Whole game ahead (stage 1): wood is worth the early premium, 1.0 in 2 players.
    start = (_FULL_CARDS, False, (2.0, 0.0, 0.0, 0.0), 2.0, stocked)
    assert bot._estimate(start).wood_value == 1.0
    assert woodsman._estimate(start).wood_value == pytest.approx(1.6)
    # Two stone cards: the ranking is trusted 2/10 (the bot) or 2/4 (the mystic), the rest is
    # the prior of an unranked kind (1.5 or 2.5).
    now = bot._dense((2.0, 0.0, 0.0, 0.0))
    assert bot._estimate(start).kind_value == pytest.approx(
        tuple(0.2 * x + 0.8 * 1.5 for x in now))
    assert mystic._estimate(start).kind_value == pytest.approx(
        tuple(0.5 * x + 0.5 * 2.5 for x in now))
