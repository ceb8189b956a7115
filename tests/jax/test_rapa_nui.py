"""The batched JAX Rapa Nui: bit-exact with the reference engine, and its own contract."""

from __future__ import annotations

import random

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from tabletop_gym.core.batched import exact_ratio
from tabletop_gym.envs.rapa_nui import batched as R
from tabletop_gym.envs.rapa_nui.observer import RapaNuiObserver
from tabletop_gym.envs.rapa_nui.rules import (
    DECK_COUNTS,
    NO_BUY,
    PLAY_MOAI,
    RapaNuiConfig,
    RapaNuiGame,
)
from tabletop_gym.jax.core import make
from tests.jax.diff import vmapped_deal
from tests.jax.rapa_nui_diff import all_configs, compare


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_random_games_of_every_configuration_match_the_reference(num_players):
    # One game per switch combination (192 per player count, 576 in all): masks, every seat's
    # observation and the rewards at every step, the breakdown, winners and final state.
    got = compare(num_players, games_per_config=1, seed=num_players)
    assert got["games"] == 192
    assert got["decisions"] > 192 * 60  # a game is at least 36 draws plus two decisions a turn


def test_every_switch_combination_is_distinct():
    configs = [c for n in (2, 3, 4) for c in all_configs(n)]
    assert len(set(configs)) == 576


def test_init_deals_the_setup_of_section_2():
    s = jax.jit(R.init, static_argnums=1)(jax.random.PRNGKey(7), RapaNuiConfig(num_players=4))
    # rules §2: the 50-card deck, seat i holds the H&G of every kind but i, has 2 + i wood, one
    # offering card of each kind and its Woodcutter; 4 columns of 4, 34 cards in the pile.
    assert np.bincount(np.asarray(s.deck), minlength=7).tolist() == list(DECK_COUNTS)
    assert np.asarray(s.wood).tolist() == [2, 3, 4, 5]
    assert np.asarray(s.hands)[2].tolist() == [0, 0, 0, 1, 1, 0, 1]
    assert np.asarray(s.holdings).tolist() == [[1, 1, 1, 1]] * 4
    assert np.asarray(s.supply).tolist() == [21] * 4
    ref = R.to_reference(s)  # the JSON loader checks conservation and the phase
    assert ref.draw_pile_size() == 34
    assert ref.columns()[1] == np.asarray(s.deck)[4:8].tolist()
    assert ref.to_dict() == R.to_reference(R.from_reference(ref)).to_dict()


def test_different_keys_deal_different_games():
    init = jax.jit(R.init)
    decks = {tuple(np.asarray(init(jax.random.PRNGKey(k)).deck)) for k in range(20)}
    assert len(decks) == 20


def test_conversion_round_trips_mid_game_positions():
    game = RapaNuiGame(num_players=3, offering_supply_limited=False)
    ref = game.new_initial_state(random.Random(5))
    rng = random.Random(6)
    step = jax.jit(R.step)
    observe = jax.jit(R.observe)
    s = R.from_reference(ref)
    for _ in range(60):
        if ref.is_terminal():
            break
        a = rng.choice(ref.legal_actions())
        ref.apply_action(a)
        s = step(s, a)
        back = R.to_reference(s, game)
        assert back.to_dict() == ref.to_dict()
        again = R.from_reference(back)
        # The deck layout may differ (windows are re-packed), the position may not.
        assert R.to_reference(again, game).to_dict() == ref.to_dict()
        assert (np.asarray(observe(again, 1)) == RapaNuiObserver(game).encode(ref, 1)).all()


def test_an_illegal_action_ends_the_game_with_minus_one_for_its_seat():
    s = jax.jit(R.init, static_argnums=1)(jax.random.PRNGKey(0), RapaNuiConfig(num_players=3))
    step = jax.jit(R.step)
    # Seat 0 has 2 wood and no Moai: building one is illegal in the buy phase.
    assert not bool(R.legal_action_mask(s)[PLAY_MOAI])
    s2 = step(s, PLAY_MOAI)
    assert bool(R.terminated(s2))
    assert np.asarray(R.rewards(s2)).tolist() == [-1.0, 0.0, 0.0]
    assert not np.asarray(R.legal_action_mask(s2)).any()
    # A finished game does not move any more.
    s3 = step(s2, NO_BUY)
    assert all((np.asarray(a) == np.asarray(b)).all() for a, b in zip(s2, s3, strict=True))


def test_exact_ratio_is_the_correctly_rounded_quotient():
    nums = jnp.arange(-4000, 4001)
    for d in (2, 3, 4, 5):
        got = np.asarray(jax.jit(lambda x, d=d: exact_ratio(x, d, 4000))(nums))
        want = (np.arange(-4000, 4001) / d).astype(np.float32)
        assert (got == want).all()
    # 17 / 3 rounds down in float32 (5.6666665), which plain vectorised division misses.
    assert float(exact_ratio(jnp.array([17]), 3, 100)[0]) == float(np.float32(17 / 3))


def test_make_binds_a_config_and_vmaps():
    g = make("rapa_nui", num_players=2, moai_choice="all_same")
    states, obs, mask = vmapped_deal(g, 5, jax.random.PRNGKey(1))
    assert states.hands.shape == (5, 2, 7)
    assert bool(states.all_same.all())
    assert obs.shape == (5, g.observation_size)
    assert g.observation_size == RapaNuiObserver(RapaNuiGame()).layout.size
    # rules §3 phase 1: seat 0 (2 wood, no H&G in the display) can only pass.
    assert np.asarray(mask).sum(1).tolist() == [1] * 5


def test_observe_reads_its_parts_from_the_observer_layout_when_traced(monkeypatch):
    # The observer's layout alone says the parts, their order and sizes: observe lays its parts
    # out by name in that order, and a layout it does not match is refused while it is traced.
    from tabletop_gym.core.observer import ObservationLayout

    config = RapaNuiConfig(num_players=3)
    state = R.init(jax.random.PRNGKey(0), config)
    declared = [sl.part for sl in R._observation_layout(config).slices.values()]
    assert R.OBSERVATION_SIZE == sum(p[1] for p in declared) == 213
    # The same parts declared in another order come out in that order.
    swapped = [declared[1], declared[0], *declared[2:]]
    monkeypatch.setattr(R, "_observation_layout", lambda cfg: ObservationLayout(swapped))
    obs = np.asarray(R.observe(state, 1))
    assert obs[:4].tolist() == [0, 1, 0, 0]  # seat 1 of 4 one-hot first
    assert obs[4:7].tolist() == [0, 1, 0]  # then the player count 2, 3, 4: three
    wide = [(p[0], 2, *p[2:]) if p[0] == "removed_moai" else p for p in declared]
    monkeypatch.setattr(R, "_observation_layout", lambda cfg: ObservationLayout(wide))
    # A fresh function each time: no trace an earlier test cached is reused.
    with pytest.raises(ValueError, match="part 'removed_moai' has 1 entries, the layout declares 2"):
        jax.eval_shape(lambda st: R.observe(st, 0), state)
    extra = [*declared, ("extra", 1, 0, 1, "")]
    monkeypatch.setattr(R, "_observation_layout", lambda cfg: ObservationLayout(extra))
    with pytest.raises(ValueError, match=r"parts missing \['extra'\]"):
        jax.eval_shape(lambda st: R.observe(st, 0), state)
