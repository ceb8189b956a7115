"""The batched JAX Positano: bit-exact with the reference engine, and its own contract."""

from __future__ import annotations

import random

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from tabletop_gym.envs.positano import batched as P, components as C
from tabletop_gym.envs.positano.actions import A_LOT
from tabletop_gym.envs.positano.observer import PositanoObserver
from tabletop_gym.envs.positano.rules import PositanoConfig, PositanoGame
from tabletop_gym.jax.core import make
from tests.jax.diff import vmapped_deal
from tests.jax.positano_diff import SHAPES, all_configs, compare

# One compiled function per (players, size) shape, shared by every test of this module.
_step = jax.jit(P.step)
_step_joint = jax.jit(P.step_joint)
_init = jax.jit(P.init, static_argnums=1)
_observe = jax.jit(P.observe)


@pytest.mark.parametrize(("num_players", "size"), SHAPES)
def test_random_games_of_every_configuration_match_the_reference(num_players, size):
    # One game per configuration of the covering set: masks and observations of every seat,
    # rewards and termination at every step, then the breakdown, winners and final position.
    configs = all_configs(num_players, size)
    got = compare(num_players, size, games_per_config=1, seed=10 * num_players + size)
    assert got["games"] == len(configs)
    rounds = C.ROUNDS[(size, num_players)]
    # rules §3: every round has a bid, and with several players 3 drafts per colour.
    least = rounds if num_players == 1 else rounds * (1 + 3 * num_players)
    assert got["decisions"] >= len(configs) * least


def test_the_covering_set_names_every_switch_value():
    configs = [c for n, size in SHAPES for c in all_configs(n, size)]
    assert len(set(configs)) == len(configs) == 231
    assert {c.reward_type for c in configs} == {"win_loss", "score_diff", "score"}
    assert {c.solo_goal_set for c in configs} == set(range(7))
    assert {(c.num_players, c.board_size) for c in configs} == {
        (1, 0), (1, 4), (2, 0), (2, 4), (3, 0), (3, 4), (4, 0), (4, 4), (4, 5), (5, 0), (5, 5),
        (6, 0), (6, 5),
    }
    for size in (4, 5):
        faces = {g for c in configs if c.goals and PositanoGame(c).size == size for g in c.goals}
        assert faces == {g for pair in C.GOAL_CARDS[size] for g in pair}


def test_init_deals_the_setup_of_section_2():
    cfg = PositanoConfig(num_players=3)
    s = _init(jax.random.PRNGKey(7), cfg)
    ref = P.to_reference(s, PositanoGame(cfg))  # the JSON loader checks every invariant
    # rules §2: 3 players remove 1 lot; 3 lots, the starting block tiles 40-42 and build tiles
    # 60-62 face up; 1 block in each personal supply, 15 in the general supply; 6 roofs each.
    assert len(ref.removed_lots) == 1 and len(ref.lot_row) == 3 and len(ref.lot_stack) == 12
    assert ref.block_row == [0, 1, 2] and ref.build_row == [0, 1, 2]
    assert ref.personal == [1, 1, 1] and ref.general == [15, 15, 15]
    assert ref.roofs_left == [6, 6, 6]
    assert len({C.goal_card(g) for g in ref.goals}) == 3
    assert len(set(ref.star_sets)) == 3
    back = P.to_reference(P.from_reference(ref), ref.game)
    assert back.to_dict() == ref.to_dict()


def test_solo_init_reveals_ottos_first_bid_and_shuffles_the_starting_rows():
    cfg = PositanoConfig(num_players=1, solo_goal_set=3)
    rows = set()
    for k in range(12):
        s = _init(jax.random.PRNGKey(k), cfg)
        ref = P.to_reference(s, PositanoGame(cfg))
        # rules §7: Otto's top card and booster are face up before the player bids.
        assert len(ref.played_cards[1]) == 1 and len(ref.hand_cards[1]) == 6
        assert ref.goals == ["piccolo", "solitario", "eccesso"]  # set 3, "Tiny Homes"
        assert sorted(ref.block_row) == [0, 1]
        rows.add(tuple(ref.block_row))
    assert rows == {(0, 1), (1, 0)}  # both orders of the two starting tiles occur


def test_different_keys_deal_different_games():
    decks = {tuple(np.asarray(_init(jax.random.PRNGKey(k)).lot_order)) for k in range(20)}
    assert len(decks) == 20


def test_a_joint_bid_equals_the_reference_joint_action():
    game = PositanoGame(num_players=2)
    ref = game.new_initial_state(random.Random(3))
    s = P.from_reference(ref)
    # Seat 0 bids card #1 with +22 (id 5), seat 1 card #7 with +5 (id 36): rules §3.1.
    ref.apply_joint_action([5, 36])
    joint = _step_joint(s, jnp.array([5, 36]))
    assert P.to_reference(joint, game).to_dict() == ref.to_dict()
    # The same bids one at a time: the first stays hidden from both seats' observations.
    one = _step(s, 5)
    assert int(P.current_player(one)) == 1 and int(one.pending[0]) == 5
    for p in (0, 1):
        assert (np.asarray(_observe(one, p)) == np.asarray(_observe(s, p))).all()
    two = _step(one, 36)
    assert P.to_reference(two, game).to_dict() == ref.to_dict()
    # rules §3.2: lot bids 82 vs 25, so seat 0 drafts the first lot.
    assert int(P.current_player(two)) == 0
    obs = PositanoObserver(game).encode(ref, 1)
    assert (np.asarray(_observe(two, 1)) == obs).all()


def test_an_illegal_action_ends_the_game_with_minus_one_for_its_seat():
    s = _init(jax.random.PRNGKey(0), PositanoConfig(num_players=2))
    # A lot draft during the bid is illegal.
    assert not bool(P.legal_action_mask(s)[A_LOT])
    s = _step(s, 5)  # seat 0 bids
    s2 = _step(s, A_LOT)  # seat 1 drafts instead
    assert bool(P.terminated(s2))
    assert np.asarray(P.rewards(s2)).tolist() == [0.0, -1.0]
    assert not np.asarray(P.legal_action_mask(s2)).any()
    s3 = _step(s2, 6)
    assert all((np.asarray(a) == np.asarray(b)).all() for a, b in zip(s2, s3, strict=True))


def test_make_binds_a_config_and_vmaps():
    g = make("positano", num_players=2, goals=["grande", "gruppo", "dietro"])
    states, obs, mask = vmapped_deal(g, 5, jax.random.PRNGKey(1))
    assert states.height.shape == (5, 25)
    assert np.asarray(states.goals).tolist() == [[0, 3, 6]] * 5
    assert obs.shape == (5, g.observation_size) == (5, P.OBSERVATION_SIZE)
    assert g.observation_size == PositanoObserver(PositanoGame()).layout.size
    # rules §3.1: seat 0 bids first, any of its 7 cards with any of its 6 boosters.
    assert np.asarray(mask).sum(1).tolist() == [42] * 5


def test_observe_assembles_the_declared_parts_by_name_and_refuses_a_mismatch():
    import jax.numpy as jnp

    from tabletop_gym.core.batched import assemble
    from tabletop_gym.envs.positano import facts as F

    layout = P._LAYOUT
    assert [(sl.name, sl.size) for sl in layout.slices.values()] == [p[:2] for p in F.PARTS]
    parts = {name: jnp.full(size, float(i)) for i, (name, size, *_rest) in enumerate(F.PARTS)}
    # Given in reverse, laid out in the declared order.
    vec = assemble(layout, dict(reversed(list(parts.items()))))
    first, size = F.PARTS[0][0], F.PARTS[0][1]
    assert first == "num_players" and float(vec[0]) == 0.0 and float(vec[size]) == 1.0
    assert vec.shape[0] == sum(p[1] for p in F.PARTS)
    with pytest.raises(ValueError, match=r"parts missing \['build_lot'\], undeclared \['extra'\]"):
        assemble(layout, {**{k: v for k, v in parts.items() if k != "build_lot"},
                          "extra": jnp.zeros(1)})
    with pytest.raises(ValueError, match="part 'round' has 2 entries, the layout declares 1"):
        assemble(layout, {**parts, "round": jnp.zeros(2)})


def test_observe_reads_its_parts_from_the_observer_layout_when_traced(monkeypatch):
    # The layout alone says the parts: a layout whose `round` slice is 2 wide, or that declares
    # a part observe does not compute, is refused while observe is traced (no compile needed).
    from tabletop_gym.core.observer import ObservationLayout

    state = P.init(jax.random.PRNGKey(0), PositanoConfig(num_players=2))
    declared = [sl.part for sl in P._LAYOUT.slices.values()]
    wide = [(p[0], 2, *p[2:]) if p[0] == "round" else p for p in declared]
    monkeypatch.setattr(P, "_LAYOUT", ObservationLayout(wide))
    # A fresh function each time: no trace an earlier test cached is reused.
    with pytest.raises(ValueError, match="part 'round' has 1 entries, the layout declares 2"):
        jax.eval_shape(lambda st: P.observe(st, 0), state)
    monkeypatch.setattr(P, "_LAYOUT", ObservationLayout([*declared, ("extra", 1, 0, 1, "")]))
    with pytest.raises(ValueError, match=r"parts missing \['extra'\]"):
        jax.eval_shape(lambda st: P.observe(st, 0), state)


