"""Tests of the Positano observer: layout, bounds, hand-worked values, ego rotation, hygiene.

Expected values are worked out by hand from the rules reference (``docs/rules/positano.md``); each
test cites the section it relies on.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tabletop_gym.core.game import SIMULTANEOUS
from tabletop_gym.core.turn_based import TurnBasedGame, TurnBasedObserver
from tabletop_gym.envs.positano import PositanoGame, PositanoState, components as C, scoring
from tabletop_gym.envs.positano.observer import BLOCK_KINDS, BUILD_KINDS, PositanoObserver
from tabletop_gym.envs.positano.rules import PHASES
from tests.positano.helpers import load, pos, random_step

CONFIGS = [{"num_players": n} for n in (1, 2, 3, 4, 5, 6)] + [{"num_players": 4, "board_size": 5}]
DOCS = Path(__file__).resolve().parents[2] / "docs" / "envs" / "positano.md"


def _random_positions(game: PositanoGame, count: int, seed: int) -> list[PositanoState]:
    """``count`` positions sampled along random games (every phase, terminal ones included)."""
    rng = random.Random(seed)
    out: list[PositanoState] = []
    game_no = 0
    while len(out) < count:
        state = game.new_initial_state(random.Random(seed * 100 + game_no))
        game_no += 1
        while True:
            if rng.random() < 0.3:
                out.append(state.clone())
            if state.is_terminal():
                break
            random_step(state, rng)
    return out[:count]


def _rotate(doc: dict[str, Any], k: int) -> dict[str, Any]:
    """The same position with colour c renamed (c - k) mod n (seat k becomes seat 0)."""
    n = len(doc["colours"])
    new = dict(doc)
    new["colours"] = [doc["colours"][(c + k) % n] for c in range(n)]
    new["owner"] = [-1 if o < 0 else (o - k) % n for o in doc["owner"]]
    return new


def _load_doc(game: PositanoGame, state: dict[str, Any]) -> PositanoState:
    loaded = game.state_from_json({"schema": 1, "game": "positano", "state": state})
    assert isinstance(loaded, PositanoState)
    return loaded


# --- layout ------------------------------------------------------------------------------------


@pytest.mark.parametrize("cfg", CONFIGS, ids=str)
def test_layout_slices_cover_the_vector_exactly(cfg):
    obs = PositanoObserver(PositanoGame(**cfg))
    layout = obs.layout
    covered = np.zeros(layout.size, dtype=int)
    start = 0
    for s in layout.slices.values():
        assert s.start == start, f"gap or overlap before {s.name}"
        assert s.size > 0 and s.low < s.high and s.doc
        covered[s.start : s.stop] += 1
        start = s.stop
    assert start == layout.size == obs.size
    assert (covered == 1).all()
    assert obs.encode(PositanoGame(**cfg).new_initial_state(random.Random(0)), 0).shape == (
        layout.size,
    )


def test_one_layout_for_every_config():
    # Per-colour blocks padded to 6, cliff always 25 lots, tiles always 25 indices: one policy
    # layout serves every configuration.
    ref = PositanoObserver(PositanoGame(num_players=2)).layout
    for cfg in CONFIGS:
        layout = PositanoObserver(PositanoGame(**cfg)).layout
        assert layout.slices == ref.slices
        np.testing.assert_array_equal(layout.low, ref.low)
        np.testing.assert_array_equal(layout.high, ref.high)


def test_tile_kinds_determine_gelato():
    # rules §1.6/§1.7 tables: the observer's kind histograms of the face-down stacks rely on a
    # block kind (blocks or 2X/3X) and a build kind (roof, bonus, action) fixing the gelato.
    for size in C.BOARD_SIZES:
        for tiles, kind in (
            (C.BLOCK_TILES[size], lambda t: (t.blocks, t.multiplier)),
            (C.BUILD_TILES[size], lambda t: (t.roof, t.bonus, t.action)),
        ):
            gelato: dict[Any, set[int]] = {}
            for t in tiles:
                gelato.setdefault(kind(t), set()).add(t.gelato)
            assert all(len(v) == 1 for v in gelato.values()), gelato
    assert len(BLOCK_KINDS) == 7 and len(BUILD_KINDS) == 27


# --- bounds ------------------------------------------------------------------------------------


@pytest.mark.parametrize("cfg", CONFIGS, ids=str)
def test_values_stay_within_bounds_over_random_positions(cfg):
    game = PositanoGame(**cfg)
    obs = PositanoObserver(game)
    low, high = obs.layout.low, obs.layout.high
    vis = obs.layout["cliff_visible"]
    for state in _random_positions(game, 300, seed=cfg["num_players"]):
        for p in range(game.num_players):
            v = obs.encode(state, p)
            assert v.dtype == np.float32
            bad = np.flatnonzero((v < low) | (v > high))
            if bad.size:
                where = [s.name for s in obs.layout.slices.values() if s.start <= bad[0] < s.stop]
                pytest.fail(f"seat {p}: {where} out of bounds at {bad.tolist()}")
            # rules §5.1: the sea view is the scoring module's own count.
            assert v[vis.start : vis.stop].tolist() == scoring.visible_blocks(
                state.height, game.size
            )
        # The observer's own fast sums agree with the engine's accessors (rules §4, §5.1, §5.2).
        d = obs.describe(obs.encode(state, 0))
        empty = [i for i, x in enumerate(d["lot_empty"]) if x]
        assert empty == state.empty_lots()
        pts = scoring.colour_building_points(
            state.owner, state.height, state.roof, game.num_colours, game.size
        )
        assert d["building_points"][: game.num_colours] == pts
        assert d["gelato"][: game.num_colours] == [state.gelato(c) for c in range(game.num_colours)]


# --- a hand-built position ---------------------------------------------------------------------


def _round3_build_position() -> PositanoState:
    """2 players, round 3, seat 1 about to build on 4C with tile 70 (Gold +1, Add-On).

    P0 drafted lots 1B, 2B, 4A and P1 2C, 3B, 4C; P0 built 1B (1 block, tile 60 Bronze) and 2B
    (3 blocks, tile 65 Silver +1), P1 built 2C (2 blocks, tile 61 Silver) and 3B (4 blocks, tile
    66 Bronze +1). Round 3 bids: P0 #2 +13 → lot 23, block 73, build 63; P1 #7 +21 → lot 41,
    block 51, build 91 (rules §3.1), so the orders are lot P1, P0; block P0, P1; build P1, P0.
    """
    game = PositanoGame(num_players=2)
    return load(
        game,
        round=3,
        phase="build",
        turn=0,
        goals=["piccolo", "solitario", "eccesso"],
        star_sets=[1, 2],
        # cards 0..6 = #1..#7; boosters 0..5 = +5 +6 +13 +14 +21 +22
        cards=[[0, 4, 1], [2, 5, 6]],
        boosters=[[5, 1, 2], [0, 2, 4]],
        lots=[["1B", "2B", "4A"], ["2C", "3B", "4C"]],
        blocks=[[1, 13, 6], [0, 5, 14]],
        builds=[[0, 5], [1, 6, 10]],
        beach_builds=[7],
        removed=["1A", "2D", "3A", "4D"],
        buildings={"1B": (0, 1, 1), "2B": (0, 3, 2), "2C": (1, 2, 2), "3B": (1, 4, 1)},
        personal=[8, 2],
    )


def _slices(obs: PositanoObserver, state: PositanoState, player: int) -> dict[str, list[float]]:
    return obs.describe(obs.encode(state, player))


def test_hand_built_position_encodes_to_hand_worked_values():
    state = _round3_build_position()
    obs = PositanoObserver(state.game)
    v = _slices(obs, state, 0)
    one = pos  # lot name -> position r*5 + c

    def nonzero(name: str) -> dict[int, float]:
        return {i: x for i, x in enumerate(v[name]) if x}

    # rules §1.2: lots by r*5 + c; owners relative to the viewer (seat 0 = 0, seat 1 = 1).
    assert nonzero("cliff_owner") == {
        one("1B") * 6 + 0: 1,
        one("2B") * 6 + 0: 1,
        one("2C") * 6 + 1: 1,
        one("3B") * 6 + 1: 1,
    }
    assert nonzero("cliff_height") == {one("1B"): 1, one("2B"): 3, one("2C"): 2, one("3B"): 4}
    # roof one-hot: Bronze index 0, Silver 1
    assert nonzero("cliff_roof") == {
        one("1B") * 3 + 0: 1,
        one("2B") * 3 + 1: 1,
        one("2C") * 3 + 1: 1,
        one("3B") * 3 + 0: 1,
    }
    # rules §5.1: column B: 1B shows 1; 2B hidden max(1-1) = 0 → 3; 3B hidden max(3-1, 1-2) = 2
    # → 4-2 = 2. Column C: 2C has nothing in front → 2.
    assert nonzero("cliff_visible") == {one("1B"): 1, one("2B"): 3, one("2C"): 2, one("3B"): 2}
    # points: P0 1·Bronze + 3·Silver = 1 + 6 = 7; P1 2·Silver + 2·Bronze = 4 + 2 = 6.
    assert v["building_points"][:3] == [7, 6, 0]
    # rules §2.4: removed lots; the 6 lots still to come are in the stack (none on the beach).
    assert nonzero("lot_removed") == {one(x): 1 for x in ("1A", "2D", "3A", "4D")}
    assert nonzero("lot_open") == {one(x): 1 for x in ("1C", "1D", "2A", "3C", "3D", "4B")}
    assert nonzero("unseen_lots") == nonzero("lot_open")
    assert not nonzero("lot_empty")
    assert nonzero("lot_this_round") == {one("4A"): 1, 25 + one("4C"): 1}
    # own hand: cards #3 #4 #6 #7 (indices 2, 3, 5, 6), boosters +5 +14 +21 (0, 3, 4).
    assert v["own_cards"] == [0, 0, 1, 1, 0, 1, 1]
    assert v["own_boosters"] == [1, 0, 0, 1, 1, 0]
    # supplies: personal [8, 2]; general 16 - personal - on the cliff: P0 16-8-4 = 4,
    # P1 16-2-6 = 8 (rules §1.1).
    assert v["personal"] == [8, 2, 0, 0, 0, 0]
    assert v["general"] == [4, 8, 0, 0, 0, 0]
    # gelato (rules §5.2): P0 cards #1 #5 #2 = 1+0+1, boosters +22 +6 +13 = 0+1+0, block tiles
    # 41 53 46 = 0, build tiles 60 65 = 2+0 → 5. P1 cards #3 #6 #7 = 1, boosters +5 +13 +21 = 2,
    # block tiles 40 45 54 = 1+0+2, build tiles 61 66 70 = 0 → 6.
    assert v["gelato"][:2] == [5, 6]
    # rules §3.1 bid values and draft ranks (lot, block, build).
    assert v["bid_values"][:6] == [23, 73, 63, 41, 51, 91]
    assert v["draft_rank"][:6] == [2, 1, 2, 1, 2, 1]
    assert v["bid_card"][:14] == [*[0, 1, 0, 0, 0, 0, 0], *[0, 0, 0, 0, 0, 0, 1]]
    assert v["bid_booster"][:12] == [*[0, 0, 1, 0, 0, 0], *[0, 0, 0, 0, 1, 0]]
    assert v["star_set"][:12] == [*[1, 0, 0, 0, 0, 0], *[0, 1, 0, 0, 0, 0]]
    assert v["colour_present"] == [1, 1, 0, 0, 0, 0]
    # whose decision: seat 1 builds (relative 1 for seat 0); seat 0 has no decision.
    assert v["phase"] == [float(p == "build") for p in PHASES]
    assert v["own_turn"] == [0]
    assert v["decider"] == [0, 1, 0, 0, 0, 0]
    assert v["acting_colour"] == [0, 1, 0, 0, 0, 0]
    # pending context (rules §4): tile 70 = Gold, +1, Add-On; 4C level 4 + 1 = 5.
    assert v["build_tile"] == [0, 0, 1, 1, 1, 0, 0]
    assert v["build_limit"] == [5]
    assert nonzero("build_lot") == {one("4C"): 1}
    assert v["block_choice"] == [0, 0]
    # beach: only build tile 67 (index 7: Bronze +2 Add-On) is face up.
    assert nonzero("beach_builds") == {7 * 8 + 0: 1, 7 * 8 + 1: 1, 7 * 8 + 4: 2, 7 * 8 + 5: 1}
    assert not nonzero("beach_blocks") and not nonzero("beach_lots")
    # face-down block tiles 42 43 44 47 48 49 50 51 52 55 (rules §1.6): kinds 1, 2, 3, 4, 5,
    # 2X, 3X = 55 | 43 50 51 52 | 48 49 | 42 | 47 | - | 44.
    assert v["unseen_block_kinds"] == [1, 4, 2, 1, 1, 0, 1]
    assert v["roofs_left"] == [4, 4, 6]
    assert v["round"] == [3] and v["rounds_left"] == [3]
    assert v["num_players"] == [0, 1, 0, 0, 0, 0] and v["board_size"] == [1, 0]
    assert v["goals"] == [float(g in ("piccolo", "solitario", "eccesso")) for g in C.GOAL_NAMES]


def test_seat_one_sees_itself_first():
    state = _round3_build_position()
    obs = PositanoObserver(state.game)
    v = _slices(obs, state, 1)
    assert v["personal"][:2] == [2, 8]
    assert v["own_turn"] == [1]
    assert v["decider"] == [1, 0, 0, 0, 0, 0]
    # own hand of seat 1: cards #1 #2 #4 #5 (0, 1, 3, 4), boosters +6 +14 +22 (1, 3, 5).
    assert v["own_cards"] == [1, 1, 0, 1, 1, 0, 0]
    assert v["own_boosters"] == [0, 1, 0, 1, 0, 1]


def test_block_choice_context():
    # Round 1: P0 #3 +6 (56/16/66), P1 #4 +13 (53/53/53); round 2: P0 #1 +5 (65/55/15), P1 #2
    # +5 (15/65/55), so P1 drafts blocks first in round 2 and takes 44 (3X) (rules §3.3).
    game = PositanoGame(num_players=2)
    state = load(
        game,
        round=2,
        phase="block_choice",
        turn=0,
        cards=[[2, 0], [3, 1]],
        boosters=[[1, 0], [2, 0]],
        lots=[["1B", "2B"], ["1C", "2C"]],
        blocks=[[0], [1, 4]],
        builds=[[0], [1]],
        beach_blocks=[9],
        beach_builds=[5, 6],
        removed=["1A", "2D", "3A", "4D"],
        buildings={"1B": (0, 1, 1), "1C": (1, 1, 2)},
        personal=[2, 3],
    )
    assert state.acting_colour() == 1
    obs = PositanoObserver(game)
    v = _slices(obs, state, 0)
    assert v["block_choice"] == [0, 1]
    # rules §1.6: n = 3 in P1's personal supply, g = 16 - 3 - 1 = 12 in its general supply:
    # multiply gains min(3·(3-1), 12) = 6, flat gains min(3, 12) = 3.
    assert v["block_choice_gain"] == [6, 3]
    assert v["decider"] == [0, 1, 0, 0, 0, 0] and v["own_turn"] == [0]


def test_simultaneous_bid_reveals_no_bid():
    # rules §3.1: bids are secret until all are revealed; the engine holds none before that.
    game = PositanoGame(num_players=3)
    state = game.new_initial_state(random.Random(5))
    assert state.current_player() == SIMULTANEOUS
    obs = PositanoObserver(game)
    for p in range(3):
        v = _slices(obs, state, p)
        assert not any(v["bid_card"]) and not any(v["bid_booster"]) and not any(v["bid_values"])
        assert v["own_turn"] == [1] and not any(v["decider"]) and not any(v["acting_colour"])


def test_solo_shows_otto_bid_counts_and_leftmost_tiles():
    # rules §7: Otto's card and booster are revealed before the player bids; his deck's order is
    # hidden (only counts); the leftmost tile of each row goes to the higher bid.
    game = PositanoGame(num_players=1)
    state = game.new_initial_state(random.Random(11))
    obs = PositanoObserver(game)
    v = _slices(obs, state, 0)
    card, booster = state.bid(1)  # type: ignore[misc]
    assert v["bid_card"][7:14] == [float(i == card) for i in range(7)]
    assert v["bid_booster"][6:12] == [float(i == booster) for i in range(6)]
    assert not any(v["bid_card"][:7])
    assert v["otto_deck"] == [6, 5]
    left = v["beach_leftmost"]
    assert left[state.lot_row[0]] == 1 and sum(left[:25]) == 1
    assert left[25 + state.block_row[0]] == 1 and sum(left[25:50]) == 1
    assert left[50 + state.build_row[0]] == 1 and sum(left[50:]) == 1
    assert v["acting_colour"] == [1, 0, 0, 0, 0, 0] and v["decider"][0] == 1


# --- ego-centric rotation ----------------------------------------------------------------------


def test_rotation_of_the_hand_built_position():
    state = _round3_build_position()
    game = state.game
    obs = PositanoObserver(game)
    swapped = _load_doc(game, _rotate(state.to_dict(), 1))
    np.testing.assert_array_equal(obs.encode(state, 1), obs.encode(swapped, 0))
    np.testing.assert_array_equal(obs.encode(state, 0), obs.encode(swapped, 1))


@pytest.mark.parametrize("n", [2, 3, 4, 6])
def test_rotation_over_random_positions(n):
    game = PositanoGame(num_players=n)
    obs = PositanoObserver(game)
    for state in _random_positions(game, 25, seed=40 + n):
        doc = state.to_dict()
        for k in range(1, n):
            rotated = _load_doc(game, _rotate(doc, k))
            np.testing.assert_array_equal(obs.encode(state, k), obs.encode(rotated, 0))


# --- information hygiene -----------------------------------------------------------------------


@pytest.mark.parametrize("cfg", CONFIGS, ids=str)
def test_observation_does_not_depend_on_hidden_orders(cfg):
    # docs/design.md, "Information hygiene": the stack order (and Otto's deck order in solo) are hidden from every seat.
    game = PositanoGame(**cfg)
    obs = PositanoObserver(game)
    rng = random.Random(7)
    moved = 0
    for state in _random_positions(game, 30, seed=70):
        for p in range(game.num_players):
            ref = obs.encode(state, p)
            for _ in range(2):
                other = state.resample_hidden(p, rng)
                moved += other.to_dict() != state.to_dict()
                np.testing.assert_array_equal(obs.encode(other, p), ref)
    assert moved > 0


# --- docs --------------------------------------------------------------------------------------


def test_docs_page_holds_the_generated_table():
    text = DOCS.read_text(encoding="utf-8")
    table = PositanoObserver(PositanoGame(num_players=2)).layout.markdown_table()
    assert table in text
    # The shapes the summary table states: engine observer, AEC (+ bid_round, own_pending) and
    # AEC with split bids (+ own_prefix).
    for n in (1, 2, 6):
        game = PositanoGame(num_players=n)
        assert f"`({PositanoObserver(game).size},)`" in text
        for split in (False, True):
            aec = TurnBasedObserver(TurnBasedGame(game, split=split), PositanoObserver(game))
            assert f"`({aec.size},)`" in text


@pytest.mark.parametrize(
    "cfg",
    [{"num_players": n} for n in (1, 2, 3, 4, 5, 6)] + [{"num_players": 4, "board_size": 5}],
    ids=str,
)
def test_facts_written_in_place_equal_a_fresh_encoding(cfg):
    # The engine writes each change into the facts the observer permutes; at every step of
    # random games every seat's vector must equal the encoding of a fresh copy of the position
    # (which has no facts yet and builds them from scratch).
    from tabletop_gym.envs import positano_v0

    env = positano_v0.raw_env(**cfg)
    rng = np.random.default_rng(1)
    inner = env.observer.inner
    for game in range(6):
        env.reset(seed=game)
        while not env.game_state.is_terminal():
            state = env.game_state.inner
            for seat in range(env.game.num_players):
                np.testing.assert_array_equal(
                    inner.encode(state, seat), inner.encode(state.clone(), seat)
                )
            obs = env.observe(env.agent_selection)
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        state = env.game_state.inner
        for seat in range(env.game.num_players):
            np.testing.assert_array_equal(inner.encode(state, seat), inner.encode(state.clone(), seat))


def test_facts_exist_only_once_observed_and_a_clone_or_a_loaded_state_starts_without():
    # Nobody listens to the engine's events until an observer created the facts, so search
    # (clones) and the engine alone never pay for them; a copy builds its own from scratch
    # when observed.
    game = PositanoGame(num_players=3)
    state = game.new_initial_state(random.Random(4))
    rng = random.Random(4)
    for _ in range(12):
        random_step(state, rng)
    assert state._on is None
    observer = PositanoObserver(game)
    before = observer.encode(state, 1)
    assert state._on is not None
    assert state.clone()._on is None
    loaded = game.state_from_json(state.to_json())
    assert loaded._on is None
    np.testing.assert_array_equal(observer.encode(loaded, 1), before)
    for _ in range(20):
        random_step(state, rng)
        copy = state.clone()
        for seat in range(3):
            np.testing.assert_array_equal(observer.encode(state, seat), observer.encode(copy, seat))


@pytest.mark.parametrize("cfg", CONFIGS, ids=str)
def test_the_trusted_path_plays_exactly_like_the_checked_one(cfg):
    # apply_trusted_action / apply_trusted_joint_action skip only the legality check: on legal
    # actions they reach the same positions (the whole JSON state) as the checked calls.
    game = PositanoGame(**cfg)
    for seed in range(3):
        checked = game.new_initial_state(random.Random(seed))
        trusted = game.new_initial_state(random.Random(seed))
        rng = random.Random(seed)
        while not checked.is_terminal():
            if checked.current_player() == SIMULTANEOUS:
                joint = [rng.choice(checked.legal_actions(p)) for p in range(game.num_players)]
                checked.apply_joint_action(joint)
                trusted.apply_trusted_joint_action(joint)
            else:
                action = rng.choice(checked.legal_actions())
                checked.apply_action(action)
                trusted.apply_trusted_action(action)
            assert trusted.to_dict() == checked.to_dict()


@pytest.mark.parametrize("cfg", [{"num_players": 2}, {"num_players": 4, "board_size": 5}], ids=str)
def test_any_change_of_the_cliff_is_followed_by_the_kept_facts(cfg):
    # Buildings raised, lowered, removed, recoloured and re-roofed anywhere, in any order: a
    # change rewrites the lot and the lots behind it (their sea view, rules §5.1), and every
    # seat's vector equals a fresh encoding after each one.
    game = PositanoGame(**cfg)
    state = game.new_initial_state(random.Random(0))
    observer = PositanoObserver(game)
    observer.encode(state, 0)
    rng = random.Random(1)
    for _ in range(200):
        p = rng.choice(game.positions)
        h = rng.randrange(0, 8)
        state._set_building(p, rng.randrange(game.num_players) if h else -1, h,
                            rng.randrange(1, 4) if h else 0)
        for seat in range(game.num_players):
            np.testing.assert_array_equal(
                observer.encode(state, seat), observer.encode(state.clone(), seat)
            )
