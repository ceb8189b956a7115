"""Public action strings: what a seat is told about another seat's action never leaks.

The rule (docs/design.md, information; docs/rules/positano.md §3.1 sealed bids,
docs/rules/rapa_nui.md §3.1 face-down offering): the
string shown to a seat is a function of what that seat may know. Two checks in random games of
every configuration, the split turn-based bid included:

* it is identical under ``resample_hidden`` from that seat's view (the other seats' hands,
  holdings, face-down cards and pending sealed bids redrawn);
* two actions the seat cannot tell apart (same observation of that seat afterwards) get the
  same string.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from tabletop_gym.core.game import TERMINAL
from tabletop_gym.envs import positano_v0
from tests.configs import ENGINE_CONFIGS, config_id, raw_env

EPISODES = 3
CONFIGS = [*ENGINE_CONFIGS, ("positano-split", {"num_players": 3})]


def _env(game: str, cfg: dict):
    if game == "positano-split":
        return positano_v0.raw_env(split_bids=True, **cfg)
    return raw_env(game, **cfg)


@pytest.mark.parametrize("item", CONFIGS, ids=config_id)
def test_public_string_is_the_same_under_resampling_and_for_indistinguishable_actions(item):
    game, cfg = item
    env = _env(game, cfg)
    n = env.game.num_players
    rng = random.Random(5)
    hidden_seen = 0
    for episode in range(EPISODES):
        state = env.game.new_initial_state(random.Random(episode))
        steps = 0
        while state.current_player() != TERMINAL and steps < 400:
            actor = state.current_player()
            legal = state.legal_actions()
            action = rng.choice(legal)
            for viewer in range(n):
                shown = state.public_action_string(action, viewer)
                for _ in range(2):
                    other = state.resample_hidden(viewer, rng)
                    assert other.public_action_string(action, viewer, actor) == shown
            hidden = any(
                state.public_action_string(a, v) != state.action_to_string(a)
                for a in legal
                for v in range(n)
                if v != actor
            )
            hidden_seen += hidden
            if hidden or steps % 3 == 0:
                # Actions that leave a viewer's observation equal must read the same to it.
                # One action per distinct outcome (2X doubling 2 blocks equals +2 blocks).
                afters, outcomes = {}, set()
                for a in legal[:50]:
                    nxt = state.clone()
                    nxt.apply_action(a)
                    key = repr(nxt.to_dict())
                    if key not in outcomes:
                        outcomes.add(key)
                        afters[a] = nxt
                for viewer in [v for v in range(n) if v != actor]:
                    by_obs: dict[bytes, set[str]] = {}
                    for a, nxt in afters.items():
                        key = env.observer.encode(nxt, viewer).tobytes()
                        by_obs.setdefault(key, set()).add(state.public_action_string(a, viewer))
                    for strings in by_obs.values():
                        assert len(strings) == 1, strings
            state.apply_action(action)
            steps += 1
    if not (game == "positano" and cfg["num_players"] == 1):
        # A sealed bid or a face-down offering was met (otherwise the test proves nothing).
        assert hidden_seen > 0


def test_positano_sealed_bid_reads_as_committed_to_others_and_in_full_to_the_bidder():
    # docs/rules/positano.md §3.1: bids are secret until all are revealed together
    env = positano_v0.raw_env(num_players=2)
    env.reset(seed=3)
    state = env.game_state
    assert state.current_player() == 0
    bid = state.legal_actions()[0]
    assert env.public_action_string(bid, "player_1") == "commits a sealed bid"
    assert env.public_action_string(bid, None) == "commits a sealed bid"
    assert env.public_action_string(bid, "player_0") == state.action_to_string(bid)
    assert env.public_action_string(bid, "player_0").startswith("bid #")


def test_positano_split_bid_names_only_the_step():
    env = positano_v0.raw_env(num_players=2, split_bids=True)
    env.reset(seed=3)
    card = env.game_state.legal_actions()[0]
    assert env.public_action_string(card, "player_1") == "commits a sealed bid card"
    env.step(card)
    booster = env.game_state.legal_actions()[0]
    assert env.public_action_string(booster, "player_1") == "commits a sealed booster"
    assert env.public_action_string(booster, "player_0").startswith("booster +")


def test_rapa_nui_face_down_offering_is_a_back_to_others():
    # docs/rules/rapa_nui.md §3.1: the active player places one own card face down
    env = raw_env("rapa_nui", num_players=3)
    rng = np.random.default_rng(0)
    for seed in range(40):
        env.reset(seed=seed)
        while not env.game_state.is_terminal():
            s = env.game_state
            cur = s.current_player()
            if s.phase() == "offer":
                own = [a for a in s.legal_actions() if 25 <= a < 29]
                a = own[0]
                name = env.agent_of(cur)
                others = [ag for ag in env.possible_agents if ag != name]
                if cur == s.active_player():
                    for ag in [*others, None]:
                        assert env.public_action_string(a, ag) == "places an offering card face down"
                    assert env.public_action_string(a, name).endswith("face down")
                    assert env.public_action_string(a, name).startswith("offer own ")
                    return
                # another seat's offering goes face up: everyone may read its kind
                assert env.public_action_string(a, others[0]).endswith("face up")
            mask = env.observe(env.agent_selection)["action_mask"]
            env.step(int(rng.choice(np.flatnonzero(mask))))
    pytest.fail("no face-down offering met in 40 games")
