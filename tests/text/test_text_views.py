"""Text views (docs/design.md "Text views"): what one seat may know as text, and its moves.

* the text and the move list of a seat do not change when anything it may not see is resampled
  (the information rule of observations), in every configuration and the split Positano bid;
* the moves are numbered, unique and name exactly the legal actions;
* the public history is the public form of each action, so a face-down offering (docs/rules/rapa_nui.md §3.1.2)
  and a sealed bid (docs/rules/positano.md §3.1) read as such to the other seats;
* the end of a Rapa Nui game reveals every face-down offering, the stone's count of each kind,
  each kind's value and every seat's offering points (docs/rules/rapa_nui.md §3.1.5, §7.4).
"""

from __future__ import annotations

import random
import re

import pytest

from tabletop_gym.envs import positano_v0
from tabletop_gym.envs.rapa_nui.rules import KIND_NAMES, NUM_KINDS
from tabletop_gym.text.view import (
    PublicHistory,
    SeatTracker,
    legal_moves,
    seat_view,
    unique_names,
)
from tests.configs import ENGINE_CONFIGS, config_id, raw_env

CONFIGS = [*ENGINE_CONFIGS, ("positano-split", {"num_players": 3})]
STATES_PER_CONFIG = 12


def _env(game: str, cfg: dict):
    if game == "positano-split":
        return positano_v0.raw_env(split_bids=True, **cfg)
    return raw_env(game, **cfg)


def _positions(env, n_states: int, seed: int):
    """Mid-game (state, history lines per seat) pairs of random games."""
    rng = random.Random(seed)
    out = []
    episode = 0
    while len(out) < n_states:
        env.reset(seed=seed * 1000 + episode)
        episode += 1
        stop = rng.randrange(1, 150)
        for _ in range(stop):
            if env.game_state.is_terminal():
                break
            env.step(rng.choice(env.legal_actions()))
        if not env.game_state.is_terminal():
            out.append(env.game_state.clone())
    return out


@pytest.mark.parametrize("item", CONFIGS, ids=config_id)
def test_text_view_and_moves_do_not_change_when_hidden_things_are_resampled(item):
    game, cfg = item
    env = _env(game, cfg)
    renderer = type(env).renderer
    rng = random.Random(1)
    changed = checked = acting = 0
    history = ["seat 0: an earlier move"]
    for state in _positions(env, STATES_PER_CONFIG, seed=2):
        for p in range(env.game.num_players):
            view = seat_view(state, p, renderer, history)
            # the grammar mode (no list) is the same view less the list: covered alike
            bare = seat_view(state, p, renderer, history, mode="grammar")
            acting += bool(view.legal_moves)
            for _ in range(3):
                other = state.resample_hidden(p, rng)
                again = seat_view(other, p, renderer, history)
                assert again.text == view.text
                assert seat_view(other, p, renderer, history, mode="grammar") == bare
                assert again.legal_moves == view.legal_moves
                assert again.legal_actions == view.legal_actions
                changed += other.to_dict() != state.to_dict()
                checked += 1
    # the resampler really moved hidden things, and acting seats were among those checked
    assert changed > checked // 4
    assert acting >= STATES_PER_CONFIG


@pytest.mark.parametrize("item", CONFIGS, ids=config_id)
def test_moves_are_numbered_unique_and_exactly_the_legal_actions(item):
    game, cfg = item
    env = _env(game, cfg)
    for state in _positions(env, 6, seed=3):
        seat = state.current_player()
        view = seat_view(state, seat, type(env).renderer)
        assert view.legal_actions == sorted(state.legal_actions())
        assert len(set(view.legal_moves)) == len(view.legal_moves)
        # the games' own names are already unique in a position: no id had to be appended
        names = [state.action_to_string(a, seat) for a in view.legal_actions]
        assert view.legal_moves == names
        for i, move in enumerate(view.legal_moves, 1):
            assert f"\n{i}. {move}\n" in view.text
        # a seat not to act has no moves
        for other in range(env.game.num_players):
            if other != seat:
                assert legal_moves(state, other) == []
                assert seat_view(state, other, type(env).renderer).legal_moves == []


def test_duplicate_move_names_get_their_action_id():
    assert unique_names(["a", "b", "a"], [3, 4, 9]) == ["a (move id 3)", "b", "a (move id 9)"]
    assert unique_names(["x", "y"], [0, 1]) == ["x", "y"]


def _play_to_first(env, seed, want):
    """Step random moves until ``want(state)`` holds; return the action about to be taken."""
    rng = random.Random(seed)
    while not env.game_state.is_terminal():
        s = env.game_state
        hit = want(s)
        if hit is not None:
            return hit
        env.step(rng.choice(env.legal_actions()))
    return None


def test_face_down_offering_reads_as_a_back_to_the_other_seats_history():
    # docs/rules/rapa_nui.md §3.1.2: the active player places one own card face down
    env = raw_env("rapa_nui", num_players=3)
    for seed in range(30):
        env.reset(seed=seed)
        trackers = [SeatTracker() for _ in range(3)]

        def face_down(s):
            if s.phase() == "offer" and s.current_player() == s.active_player():
                own = [a for a in s.legal_actions() if 25 <= a < 29]
                return own[0] if own else None
            return None

        action = _play_to_first(env, seed, face_down)
        if action is None:
            continue
        actor = env.game_state.current_player()
        env.step(action)
        for seat in range(3):
            lines = trackers[seat].view(env, env.agent_of(seat)).text
            if seat == actor:
                assert "you (seat" in lines and "face down" in lines
            else:
                assert f"seat {actor}: places an offering card face down" in lines
        return
    pytest.fail("no face-down offering met in 30 games")


def test_sealed_bid_reads_as_committed_to_the_later_bidders():
    # docs/rules/positano.md §3.1: bids are secret until all are revealed together
    env = raw_env("positano", num_players=3)
    env.reset(seed=4)
    tracker = SeatTracker()
    bid = env.legal_actions()[0]
    env.step(bid)
    view = tracker.view(env, "player_1")
    assert "- seat 0: commits a sealed bid\n" in view.text
    history = view.text.split("== Since")[1].split("== Decision ==")[0]
    assert env.game_state.action_to_string(bid) not in history


def test_history_since_last_decision_starts_after_the_seats_own_move():
    env = raw_env("rapa_nui", num_players=2)
    env.reset(seed=0)
    tracker = SeatTracker()
    first = tracker.view(env, "player_0")
    assert "- nothing" in first.text
    tracker.decided()
    env.step(first.legal_actions[0])
    assert env.agent_selection == "player_0"  # docs/rules/rapa_nui.md §3: buy, then play is followed by the play phase
    second = tracker.view(env, "player_0")
    assert f"- you (seat 0): {first.legal_moves[0]}\n" in second.text
    tracker.decided()
    env.step(second.legal_actions[0])
    third = tracker.view(env, "player_0")
    # once decided again, the first move is no longer "since the last decision"
    assert f"- you (seat 0): {first.legal_moves[0]}\n" not in third.text
    assert f"- you (seat 0): {second.legal_moves[0]}\n" in third.text
    # a new episode starts a new history
    env.reset(seed=1)
    assert "- nothing" in tracker.view(env, "player_0").text


def test_public_history_refuses_actions_of_another_episode():
    env = raw_env("rapa_nui", num_players=2)
    env.reset(seed=0)
    hist = PublicHistory(env.episode_start(), 0, type(env).narrator)
    a = env.legal_actions()[0]
    hist.advance([a])
    with pytest.raises(ValueError, match="not a continuation"):
        hist.advance([a + 1, a])
    assert hist.actions == [a]


def _dense_values(totals):
    # docs/rules/rapa_nui.md §7.4, default zero_count_kind_value="zero": a kind with no card is
    # worth 0; the others are worth 3 minus the number of distinct counts above theirs
    present = sorted({t for t in totals if t > 0}, reverse=True)
    return [0 if t == 0 else max(0, 3 - present.index(t)) for t in totals]


@pytest.mark.parametrize("n", [2, 3, 4])
def test_end_of_game_text_reveals_the_final_scoring_to_every_seat(n):
    env = raw_env("rapa_nui", num_players=n)
    rng = random.Random(n)
    hidden_before = False
    seed = 10
    while not hidden_before:
        seed += 1
        env.reset(seed=seed)
        trackers = {a: SeatTracker() for a in env.possible_agents}
        while not env.game_state.is_terminal():
            s = env.game_state
            for q in range(n):
                if s.face_down_count(q):
                    a = env.agent_of((q + 1) % n)
                    # before the end another seat sees only how many cards q placed face down
                    assert f"seat {q} placed face down" not in trackers[a].view(env, a).text
                    hidden_before = True
            env.step(rng.choice(env.legal_actions()))
    s = env.game_state
    totals = s.stone_totals()
    values = _dense_values(totals)
    down = [sum(s.face_down(q)[k] for q in range(n)) for k in range(NUM_KINDS)]
    for agent in env.possible_agents:
        text = trackers[agent].view(env, agent).text
        # the table's own text ends with the final scoring; the decision part with the scores
        final = text.split("== Table ==")[1]
        assert "Game over. Final scores: " in text.split("== Decision ==")[1]
        for q in range(n):
            fd = s.face_down(q)
            shown = ", ".join(f"{KIND_NAMES[k]}×{c}" for k, c in enumerate(fd) if c) or "-"
            assert f"seat {q} placed face down: {shown}\n" in final
            held = s.holdings(q)
            points = sum(h * v for h, v in zip(held, values, strict=True))
            assert f"= {points}\n" in final.split(f"seat {q} holds")[1]
        for k in range(NUM_KINDS):
            up = totals[k] - down[k]
            assert (f"{KIND_NAMES[k]}: {up} + {down[k]} = {totals[k]} -> worth {values[k]} "
                    "per card") in final


def test_every_kind_has_one_name_in_a_rapa_nui_view():
    # The rules' names (docs/rules/rapa_nui.md §0, §1.2): "Paper mulberry", "Sweet potato"; an H&G
    # card is "H&G <kind>" in the columns, the hand and the display alike.
    env = raw_env("rapa_nui", num_players=2)
    env.reset(seed=3)
    rng = random.Random(3)
    tracker = SeatTracker()
    seen_hg_in_display = False
    while not env.game_state.is_terminal():
        text = tracker.view(env, "player_0").text
        assert "SweetPotato" not in text and "Sweet Potato" not in text
        assert re.search(r"(?<!Paper )[Mm]ulberry", text) is None, text
        for line in text.splitlines():
            if line.startswith("  display: "):
                kinds = [k for k in KIND_NAMES if k in line]
                assert all(f"H&G {k}×" in line for k in kinds), line
                seen_hg_in_display |= bool(kinds)
        env.step(rng.choice(env.legal_actions()))
    assert seen_hg_in_display  # the check above met an H&G card in a display
