"""Observer, render and information-hygiene tests of Rapa Nui (docs/design.md "Information"; rules §2 and §3.1).

Hidden from a seat: the other seats' hands, the kinds of their offering cards and of the
face-down stone cards they placed, the order of the draw pile. Everything else is public.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from tabletop_gym.core.game import ConfigError
from tabletop_gym.envs.rapa_nui import RapaNuiGame, RapaNuiObserver, RapaNuiState
from tabletop_gym.envs.rapa_nui.facts import CH_PHASE, parts
from tabletop_gym.envs.rapa_nui.observer import observation_layout
from tabletop_gym.envs.rapa_nui.render import render_text
from tabletop_gym.envs.rapa_nui.rules import NUM_ACTIONS, PHASES, RapaNuiConfig
from tests.rapa_nui.helpers import FISH, GRAIN, MULB, SWEET, M, P, W, disp, load, position

DOCS = Path(__file__).resolve().parents[2] / "docs" / "envs" / "rapa_nui.md"

CONFIGS = [
    {},
    {
        "allow_voluntary_moai_discard": True,
        "active_supply_offering_optional": True,
        "moai_choice": "all_same",
        "offering_supply_limited": False,
        "zero_count_kind_value": "ranked",
        "hunter_gatherer_majority_bonus": False,
    },
]


def sample_states(n: int, config: dict, games: int = 2, every: int = 7) -> list[RapaNuiState]:
    """States met in seeded random games (every ``every``-th decision, plus the end)."""
    g = RapaNuiGame(num_players=n, **config)
    out = []
    for seed in range(games):
        s = g.new_initial_state(random.Random(seed))
        rng = random.Random(50 + seed)
        step = 0
        while not s.is_terminal():
            if step % every == 0:
                out.append(s.clone())
            legal = s.legal_actions()
            s.apply_action(legal[rng.randrange(len(legal))])
            step += 1
        out.append(s)
    return out


def test_docs_page_holds_the_generated_layout_table() -> None:
    # The observation table in the docs is pasted from the layout (2 players, default switches).
    table = RapaNuiObserver(RapaNuiGame()).layout.markdown_table()
    assert table in DOCS.read_text(encoding="utf-8")


def test_layout_is_the_same_for_every_player_count() -> None:
    sizes = {RapaNuiObserver(RapaNuiGame(num_players=n)).size for n in (2, 3, 4)}
    assert len(sizes) == 1


def test_the_layout_is_declared_at_module_level_for_each_config() -> None:
    # envs/rapa_nui/facts.py declares the slices per config (what a batched twin reads without
    # an observer); only offering_supply_limited moves a bound. Limited (§1.4): 25 cards per
    # kind, 100 in all. Unlimited: a seat gains at most one card of a kind at set-up, one per
    # turn's purchase (48 turns) and two per H&G scoring with the majority bonus (47 scorings),
    # so 1 + 48 + 94 = 143 of one kind, and 4 + 48 + 94 = 146 in all.
    assert observation_layout().size == 213
    for config in CONFIGS:
        layout = observation_layout(RapaNuiConfig(**config))
        observer = RapaNuiObserver(RapaNuiGame(**config))
        assert layout.markdown_table() == observer.layout.markdown_table()
    limited = observation_layout({"offering_supply_limited": True})
    unlimited = observation_layout({"num_players": 4, "offering_supply_limited": False})
    assert (limited["own_holdings"].high, limited["holding_counts"].high) == (25, 100)
    assert (unlimited["own_holdings"].high, unlimited["holding_counts"].high) == (143, 146)
    assert [p[0] for p in parts()] == list(limited.slices)
    with pytest.raises(ConfigError, match="moai_choice"):
        parts({"moai_choice": "some"})


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("n", [2, 3, 4])
def test_observations_stay_in_bounds_and_masks_match(n: int, config: dict) -> None:
    g = RapaNuiGame(num_players=n, **config)
    obs = RapaNuiObserver(g)
    low, high = obs.layout.low, obs.layout.high
    for s in sample_states(n, config, every=3):
        for p in range(n):
            v = obs.encode(s, p)
            assert v.dtype == np.float32 and v.shape == (obs.size,)
            assert np.all(v >= low) and np.all(v <= high), obs.describe(v)
            mask = obs.action_mask(s, p)
            assert mask.dtype == np.int8 and mask.shape == (NUM_ACTIONS,)
            legal = s.legal_actions(p)
            assert sorted(np.flatnonzero(mask).tolist()) == legal
            if p != s.current_player():
                assert not mask.any()


def test_ego_centric_order_and_padding() -> None:
    # 3 players seen by seat 1: blocks are seats 1, 2, 0, then a zero pad.
    s = load(
        RapaNuiGame(num_players=3),
        position(3, displays=[disp(P=1), disp(M=2), disp(W=3)], wood=[2, 9, 4], vp=[5, 6, 7]),
    )
    obs = RapaNuiObserver(s.game)
    view = obs.layout.view(obs.encode(s, 1))
    assert view["displays"].reshape(4, 7).tolist() == [
        disp(M=2),
        disp(W=3),
        disp(P=1),
        [0] * 7,
    ]
    assert view["wood"].tolist() == [9, 4, 2, 0]
    assert view["vp"].tolist() == [6, 7, 5, 0]
    assert view["hand_sizes"].tolist() == [3, 3, 3, 0]
    assert view["seat"].tolist() == [0, 1, 0, 0]
    assert view["num_players"].tolist() == [0, 1, 0]
    # Seat 0 is on turn: two seats after seat 1.
    assert view["active_player"].tolist() == [0, 0, 1, 0]
    assert view["decider"].tolist() == [0, 0, 1, 0]
    assert view["phase"].tolist() == [1.0 if p == "buy" else 0.0 for p in PHASES]
    # Own private parts: seat 1 starts with Fish, Mulberry, Sweet potato H&G.
    assert view["own_hand"].tolist() == [0, 0, 0, 1, 0, 1, 1]
    assert view["own_holdings"].tolist() == [1, 1, 1, 1]
    # Column 1 (default position) is four Woodcutters: one-hot card id 0 at each position.
    assert view["columns"].reshape(4, 4, 7)[0].tolist() == [[1, 0, 0, 0, 0, 0, 0]] * 4


def test_offering_round_observation_e7() -> None:
    # rules §3.1 / E7 from B's side (seat 1): public Fish 1, Grain 2 and 1 face-down card whose
    # kind B does not see.
    s = load(
        RapaNuiGame(num_players=3),
        position(
            3,
            phase="draw",
            draws_left=1,
            hands=[[P, W], [FISH, MULB, SWEET], [FISH, GRAIN, SWEET]],
            displays=[disp(M=1), disp(), disp()],
            holdings=[[0, 0, 1, 0], [0, 1, 0, 0], [0, 0, 0, 1]],
            stone_face_up=[1, 2, 0, 0],
            stone_face_down=[[0, 0, 0, 1], [0, 0, 0, 0], [0, 0, 0, 0]],
        ),
    )
    obs = RapaNuiObserver(s.game)
    b = obs.layout.view(obs.encode(s, 1))
    assert b["stone_face_up"].tolist() == [1, 2, 0, 0]
    assert b["stone_face_down"].tolist() == [1]
    assert b["own_face_down"].tolist() == [0, 0, 0, 0]
    assert b["face_down_counts"].tolist() == [0, 0, 1, 0]
    a = obs.layout.view(obs.encode(s, 0))
    assert a["own_face_down"].tolist() == [0, 0, 0, 1]


def variants() -> list[tuple[dict, dict]]:
    """Pairs of 3-player positions that differ only in what seat 0 cannot see."""
    base = {"num_players": 3, "displays": [disp(M=1), disp(M=1), disp()]}
    return [
        # Seat 1's hand (the swapped cards come from the draw pile).
        (position(**base), position(**base, hands=[[GRAIN, MULB, SWEET], [P, W, M], [FISH] * 3])),
        # Kinds of seat 1's and seat 2's offering cards (same counts, same totals per kind).
        (
            position(**base, holdings=[[1, 1, 1, 1], [2, 0, 1, 1], [0, 2, 1, 1]]),
            position(**base, holdings=[[1, 1, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1]]),
        ),
        # Kind of the face-down card seat 1 placed.
        (
            position(
                **base,
                holdings=[[1, 1, 1, 1], [0, 1, 1, 1], [1, 1, 1, 1]],
                stone_face_down=[[0] * 4, [1, 0, 0, 0], [0] * 4],
            ),
            position(
                **base,
                holdings=[[1, 1, 1, 1], [1, 0, 1, 1], [1, 1, 1, 1]],
                stone_face_down=[[0] * 4, [0, 1, 0, 0], [0] * 4],
            ),
        ),
        # Order of the draw pile.
        (position(**base), {**position(**base), "draw_pile": position(**base)["draw_pile"][::-1]}),
    ]


@pytest.mark.parametrize("pair", variants())
def test_no_leak_of_hidden_parts(pair: tuple[dict, dict]) -> None:
    g = RapaNuiGame(num_players=3)
    a, b = load(g, pair[0]), load(g, pair[1])
    assert a.to_dict() != b.to_dict()
    obs = RapaNuiObserver(g)
    assert np.array_equal(obs.encode(a, 0), obs.encode(b, 0))
    assert np.array_equal(obs.action_mask(a, 0), obs.action_mask(b, 0))
    assert render_text(a, 0) == render_text(b, 0)
    assert render_text(a, None) == render_text(b, None)


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("n", [2, 3, 4])
def test_resample_hidden_keeps_the_view_and_changes_the_rest(n: int, config: dict) -> None:
    g = RapaNuiGame(num_players=n, **config)
    obs = RapaNuiObserver(g)
    rng = random.Random(9)
    changed = 0
    for s in sample_states(n, config, games=1, every=11):
        for p in range(n):
            r = s.resample_hidden(p, rng)
            fresh = g.state_from_json(r.to_json())
            assert fresh == r
            assert fresh.legal_actions() == r.legal_actions()
            assert np.array_equal(obs.encode(r, p), obs.encode(s, p))
            assert np.array_equal(obs.action_mask(r, p), obs.action_mask(s, p))
            assert render_text(r, p) == render_text(s, p)
            assert render_text(r, None) == render_text(s, None)
            d, e = s.to_dict(), r.to_dict()
            for key in ("displays", "columns", "stone_face_up", "supply", "wood", "vp"):
                assert d[key] == e[key], key
            assert d["hands"][p] == e["hands"][p] and d["holdings"][p] == e["holdings"][p]
            changed += d != e
    assert changed > 0


def test_resample_hidden_changes_something_from_the_start() -> None:
    s = RapaNuiGame(num_players=2).new_initial_state(random.Random(4))
    rng = random.Random(0)
    draws = [s.resample_hidden(0, rng).to_dict() for _ in range(5)]
    assert any(d != s.to_dict() for d in draws)
    assert any(d["hands"][1] != s.to_dict()["hands"][1] for d in draws)


def test_render_shows_own_private_cards_only() -> None:
    s = load(
        RapaNuiGame(num_players=2),
        position(2, hands=[[M, M, P], [FISH, MULB, SWEET]], holdings=[[3, 0, 0, 0], [0, 0, 2, 0]]),
    )
    mine = render_text(s, 0)
    assert "Your hand: Priest, Moai, Moai" in mine
    assert "Your offering cards: Fish×3" in mine
    assert "H&G Sweet potato" not in mine  # seat 1's hand (columns hold no such card)
    public = render_text(s, None)
    assert "Your hand" not in public and "Priest, Moai" not in public
    assert "offering cards 3" in public and "offering cards 2" in public
    assert "column 1: Woodcutter < Woodcutter" in public


def test_docs_json_example_loads() -> None:
    # The hand-written example of the docs page follows the schema.
    text = DOCS.read_text(encoding="utf-8")
    example = text.split("```json\n", 1)[1].split("```", 1)[0]
    s = RapaNuiGame().state_from_json(example)
    assert s.phase() == "buy" and s.legal_actions() == [4]


def test_a_shared_vector_not_kept_by_the_observer_is_rewritten_whole() -> None:
    # The kept vector is written through the array under it; a plain numpy vector handed to
    # _write_shared gets every group from a fresh encoding, whatever the mask names.
    game = RapaNuiGame(num_players=3)
    observer = RapaNuiObserver(game)
    state = game.new_initial_state(random.Random(4))
    rng = random.Random(4)
    for _ in range(30):
        state.apply_action(rng.choice(state.legal_actions()))
    plain = np.full(observer.shared_size, 9, dtype=np.float32)
    observer._write_shared(state, plain, CH_PHASE)
    np.testing.assert_array_equal(plain, observer._new_shared(state))
    for seat in range(3):
        np.testing.assert_array_equal(plain.take(observer.gather[seat]),
                                      observer.encode(state.clone(), seat))
