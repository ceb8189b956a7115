"""The ``search:`` agent: batched determinised averaging over worlds of the seat's information.

Every test uses ``worlds=2&width=2`` or the same settings, so each game compiles the search once
for the whole module (the compiled function is cached by game config, worlds and width).
"""

from __future__ import annotations

import random

import gymnasium
import numpy as np
import pytest

from tabletop_gym.agents.base import RandomAgent
from tabletop_gym.agents.kinds import make_agent
from tabletop_gym.arena.envs import raw_env_factory
from tabletop_gym.arena.evaluation import evaluate
from tabletop_gym.jax.actor import load_actor
from tabletop_gym.jax.search import (
    SearchAgent,
    SearchSpec,
    expert_iteration,
    finished_value,
    parse_spec,
    resolve_policy,
    resolve_spec,
)
from tests.scripts import load_script

SPEC = "search:heuristic-net?worlds=2&width=2"


def _agent(env: object, seed: int, spec: str = SPEC) -> SearchAgent:
    agent = make_agent(spec, env.game, env.observer, np.random.default_rng(seed))  # type: ignore[attr-defined]
    assert isinstance(agent, SearchAgent)
    return agent


def test_specs_are_read_and_bad_ones_refused_with_what_is_allowed() -> None:
    assert parse_spec("search") == SearchSpec("heuristic-net", 8, 8, 1.0)
    assert parse_spec("search:jax-ppo?worlds=16&z=0.5") == SearchSpec("jax-ppo", 16, 8, 0.5)
    assert parse_spec("search:x.npz?width=4").policy == "x.npz"
    assert parse_spec("search:jax-ppo?worlds=16&z=0.5").name == "search:jax-ppo?worlds=16&z=0.5"
    mixed = parse_spec("search:jax-ppo?worlds=16&z=2&others=heuristic-net")
    assert (mixed.policy, mixed.others) == ("jax-ppo", "heuristic-net")
    assert parse_spec(mixed.name) == mixed
    assert parse_spec("search").others is None
    for bad, says in [("search:jax-ppo?worlds=0", "worlds"), ("search?worlds=x", "worlds"),
                      ("search?width=1", "width"), ("search?z=-1", "z"),
                      ("search?depth=3", "unknown option"), ("search?worlds=2&worlds=3", "twice"),
                      ("search?others=", "others in"), ("searchy", "cannot read")]:
        with pytest.raises(ValueError, match=says):
            parse_spec(bad)
    env = raw_env_factory("rapa_nui")(num_players=2)
    with pytest.raises(ValueError, match="no distilled heuristic"):
        make_agent("search", raw_env_factory("rapa_nui")(num_players=3).game,
                   raw_env_factory("rapa_nui")(num_players=3).observer)
    with pytest.raises(ValueError, match="not found"):
        make_agent("search:missing.npz", env.game, env.observer)


def test_a_finished_game_is_worth_the_win_or_the_seats_finished_above() -> None:
    # Seat 0 of four scores 30 against 20, 25 and 40; seat 3 wins. w = SCORE_WEIGHT = 0.5,
    # scale = MARGIN_SCALE = 10.
    # win: no win, margin over the best other 30 - 40: 0.5 * (0.5 + 0.5 tanh(-1)) = 0.0596.
    # above: above 2 of 3 seats, margins 0.5 + 0.5 tanh(1, 0.5, -1) = 0.8808, 0.7311, 0.1192:
    # 0.5 * 2/3 + 0.5 * (0.8808 + 0.7311 + 0.1192) / 3 = 0.6218.
    scores, won = np.array([30, 20, 25, 40]), np.array([False, False, False, True])
    bounds = (0.0, 100.0)
    assert float(finished_value(scores, won, 0, bounds)) == pytest.approx(0.0596, abs=1e-4)
    assert float(finished_value(scores, won, 0, bounds, "above")) == pytest.approx(0.6218,
                                                                                 abs=1e-4)
    # The winner: win share 1 and the margin over 30; above all three.
    assert float(finished_value(scores, won, 3, bounds)) == pytest.approx(
        0.5 + 0.5 * (0.5 + 0.5 * np.tanh(1.0)), abs=1e-5)
    assert float(finished_value(scores, won, 3, bounds, "above")) == pytest.approx(
        0.5 + 0.5 * (0.5 + 0.5 * (np.tanh(1.0) + np.tanh(1.5) + np.tanh(2.0)) / 3), abs=1e-5)
    # A tie of scores broken by the rules (seat 1 wins at 30 all): the winner's share is whole
    # under win; above counts the tie one half for both seats alike.
    tied, first = np.array([30, 30]), np.array([False, True])
    assert float(finished_value(tied, first, 1, bounds)) == pytest.approx(0.75)
    assert float(finished_value(tied, first, 0, bounds)) == pytest.approx(0.25)
    for seat in (0, 1):
        assert float(finished_value(tied, first, seat, bounds, "above")) == pytest.approx(0.5)
    # Solo: the score scaled into the bounds, whatever the measure.
    for worth in ("win", "above"):
        assert float(finished_value(np.array([60]), np.array([True]), 0, (20.0, 120.0),
                                    worth)) == pytest.approx(0.4)
    spec = parse_spec("search:heuristic-net-v3?worlds=32&value=above")
    assert spec.value == "above" and parse_spec(spec.name) == spec
    assert parse_spec("search").value == "win"
    with pytest.raises(ValueError, match=r"value in .* must be one of \('win', 'above'\)"):
        parse_spec("search?value=rank")


def test_search_best_plays_the_settings_its_game_names_for_the_table() -> None:
    # search:best is the game spec's search for the table size, and the agent goes by that
    # spec's name, so a league or an evaluation record says which settings played.
    from tabletop_gym.registry import game_spec

    named = {(g, n): spec for g in ("positano", "rapa_nui")
             for n, spec in game_spec(g).benchmark.search.items()}
    assert named == {("positano", 1): "search:heuristic-net-v2?worlds=32",
                     ("positano", 2): "search:heuristic-net-v3?worlds=28",
                     ("positano", 4): "search:heuristic-net-v3?worlds=32&value=above",
                     ("rapa_nui", 2): "search:jax-ppo?worlds=16&z=2",
                     ("rapa_nui", 4): "search:heuristic-net-v2?worlds=32"}
    for (game, n), spec in named.items():
        assert n in game_spec(game).player_counts
        assert resolve_spec("search:best", game, n) == parse_spec(spec)
        assert resolve_spec(spec, game, n) == parse_spec(spec)
        env = raw_env_factory(game)(num_players=n)
        agent = _agent(env, 0, "search:best")
        assert agent.name == spec
        assert agent.spec == parse_spec(spec)
        want = load_actor(resolve_policy(parse_spec(spec).policy, game, n), game, n,
                          agent.batched.observation_size)
        assert np.array_equal(agent.net.layers[0][0], want.layers[0][0])
    assert parse_spec("search:best").policy == "best"
    with pytest.raises(ValueError, match="takes no options"):
        parse_spec("search:best?worlds=64")
    with pytest.raises(ValueError, match=r"no settings for rapa_nui with 3 players; it has them "
                       r"for: 2 \(search:jax-ppo\?worlds=16&z=2\), 4 \("):
        make_agent("search:best", raw_env_factory("rapa_nui")(num_players=3).game,
                   raw_env_factory("rapa_nui")(num_players=3).observer)


@pytest.mark.parametrize(("game", "seed"), [("rapa_nui", 3), ("positano", 2)])
def test_decisions_do_not_depend_on_hidden_information(game: str, seed: int) -> None:
    # The agent decides on its information set: re-dealing what the acting seat cannot see
    # (Rapa Nui: the others' hands and offering kinds, the pile; Positano: the face-down stacks
    # and the other seat's committed bid) leaves its move and its values, with the same seed,
    # unchanged.
    env = raw_env_factory(game)(num_players=2)
    rnd = RandomAgent(1)
    shuffle = random.Random(5)
    checked = changed = 0
    env.reset(seed=seed)
    while not env.game_state.is_terminal() and checked < 4:
        state = env.game_state
        seat = state.current_player()
        if len(state.legal_actions()) > 1:
            other = state.resample_hidden(seat, shuffle)
            changed += other.to_dict() != state.to_dict()
            a, b = _agent(env, 7), _agent(env, 7)
            assert a.act_in(state, seat) == b.act_in(other, seat)
            assert a.last_values == b.last_values
            assert set(a.last_values) <= set(state.legal_actions())
            checked += 1
        env.step(rnd.act(env.observe(env.agent_selection)))
    assert checked == 4
    assert changed == 4  # every check really varied the hidden parts


def test_it_leaves_the_policy_move_only_for_a_better_mean() -> None:
    # z=0: the move played is the candidate of the highest mean value when that beats the
    # policy's own move (the first candidate), else the policy's move.
    env = raw_env_factory("rapa_nui")(num_players=2)
    rnd = RandomAgent(0)
    env.reset(seed=4)
    seen = 0
    while not env.game_state.is_terminal():
        state = env.game_state
        if len(state.legal_actions()) > 1:
            agent = _agent(env, seen, SPEC + "&z=0")
            move = agent.act_in(state, state.current_player())
            (first, v0), (second, v1) = list(agent.last_values.items())
            assert move == (second if v1 > v0 else first)
            seen += 1
        env.step(rnd.act(env.observe(env.agent_selection)))
    assert seen > 30


def test_the_other_seats_continuations_play_the_opponent_model() -> None:
    # others=P: the searching seat's continuations play its own policy, every other seat's
    # play P. Naming the searcher's own policy as P changes nothing (the same games are played);
    # naming another policy changes the values of the same worlds, and the move still depends
    # on the seat's information only.
    env = raw_env_factory("rapa_nui")(num_players=2)
    rnd = RandomAgent(2)
    shuffle = random.Random(9)
    env.reset(seed=6)
    seen = differ = 0
    while not env.game_state.is_terminal() and seen < 6:
        state = env.game_state
        seat = state.current_player()
        if len(state.legal_actions()) > 1:
            plain, same = _agent(env, seen), _agent(env, seen, SPEC + "&others=heuristic-net")
            assert plain.act_in(state, seat) == same.act_in(state, seat)
            assert plain.last_values == same.last_values
            model = _agent(env, seen, SPEC + "&others=jax-ppo")
            twin = _agent(env, seen, SPEC + "&others=jax-ppo")
            assert (model.act_in(state, seat)
                    == twin.act_in(state.resample_hidden(seat, shuffle), seat))
            assert model.last_values == twin.last_values
            differ += model.last_values != plain.last_values
            seen += 1
        env.step(rnd.act(env.observe(env.agent_selection)))
    assert seen == 6
    assert differ > 0


def test_plays_by_name_in_evaluate_and_as_a_gymnasium_opponent() -> None:
    res = evaluate("rapa_nui", SPEC, "random", n_games=2, seed=0, num_players=2)
    assert res.candidate == SPEC and res.n_games == 2
    g = gymnasium.make("RapaNui-v0", opponents=SPEC)
    obs, info = g.reset(seed=0)
    done = False
    while not done:
        action = int(np.flatnonzero(info["action_mask"])[0])
        obs, reward, term, trunc, info = g.step(action)
        done = term or trunc
    assert reward in (-1.0, 0.0, 1.0)


def test_plays_positanos_solo_game_continued_by_the_shipped_solo_network() -> None:
    from tabletop_gym.agents.base import choose_action
    from tabletop_gym.jax.search import resolve_policy

    assert resolve_policy("heuristic-net", "positano", 1).endswith("heuristic_net_positano_1p.npz")
    assert resolve_policy("heuristic-net-v2", "positano", 4).endswith(
        "heuristic_net_v2_positano_4p.npz")
    with pytest.raises(ValueError, match="no distilled heuristic v2 for rapa_nui with 2 players"):
        resolve_policy("heuristic-net-v2", "rapa_nui", 2)
    assert resolve_policy("heuristic-net-v3", "positano", 2).endswith(
        "heuristic_net_v3_positano_2p.npz")
    with pytest.raises(ValueError, match="no distilled heuristic v3 for positano with 1 players"):
        resolve_policy("heuristic-net-v3", "positano", 1)
    env = raw_env_factory("positano")(num_players=1)
    env.reset(seed=3)
    agent = _agent(env, 0)
    choices = 0
    while not env.game_state.is_terminal():
        choices += len(env.game_state.legal_actions()) > 1
        env.step(choose_action(agent, env, env.agent_selection))
    # One search per decision with a choice; a forced move is played without one.
    assert agent.searches == choices > 0


def test_plays_by_name_in_play_league_and_the_web_app(tmp_path, monkeypatch, capsys) -> None:
    import io
    import json
    import sys

    from tabletop_gym import cli
    from tabletop_gym.core.records import GameRecord

    # play: a person at seat 0 (always the first legal move), the search at seat 1.
    monkeypatch.setattr(sys, "stdin", io.StringIO("0\n" * 600))
    record = tmp_path / "game.json"
    assert cli.main(["play", "--game", "rapa_nui", "--players", "2", "--seat", "0", "--seed",
                     "3", "--opponents", SPEC, "--save-record", str(record)]) == 0
    out = capsys.readouterr().out
    assert "player_1: " in out and [s for s in out.splitlines() if s.startswith("scores:")]
    assert GameRecord.from_json(record.read_text()).replay().is_terminal()
    # league: one pair, both seats.
    assert cli.main(["league", "--game", "rapa_nui", "--players", "2", "--agents", SPEC,
                     "random", "--games", "2", "--bootstrap", "10", "--no-heatmap", "--out",
                     str(tmp_path / "league")]) == 0
    assert f"| {SPEC} |" in capsys.readouterr().out.replace("`", "")
    # serve: the web app seats it by name and plays it to the end.
    pytest.importorskip("starlette", reason="the web app needs the web extra")
    pytest.importorskip("httpx", reason="Starlette's TestClient needs httpx")
    from starlette.testclient import TestClient

    from tabletop_gym.web.app import create_app

    app = create_app(runs_dir=tmp_path / "runs", save_dir=tmp_path / "runs" / "web")
    with TestClient(app) as client:
        r = client.post("/api/games", json={"game": "rapa_nui", "config": {"num_players": 2},
                                            "seats": ["human", SPEC], "seed": 4})
        assert r.status_code == 200, r.text
        gid, token = r.json()["id"], r.json()["tokens"]["0"]
        live = app.state.hub.game(gid)
        rng = random.Random(0)
        while (actor := live.to_act()) is not None:
            if actor == 0:
                r = client.post(f"/api/games/{gid}/move",
                                json={"action": rng.choice(live.env.legal_actions())},
                                headers={"X-Seat-Token": token})
            else:
                r = client.post(f"/api/games/{gid}/advance")
            assert r.status_code == 200, r.text
        end = client.get(f"/api/games/{gid}").json()
        assert end["over"] and end["seats"] == ["human", SPEC]
        rec = GameRecord.from_json(json.dumps(client.get(f"/api/games/{gid}/record").json()))
        assert [float(x) for x in rec.replay().scores()] == end["scores"]


def test_act_without_state_and_split_bids_are_refused() -> None:
    env = raw_env_factory("rapa_nui")(num_players=2)
    env.reset(seed=0)
    agent = _agent(env, 0)
    with pytest.raises(TypeError, match="act_in"):
        agent.act(env.observe(env.agent_selection))
    with pytest.raises(ValueError, match="not the one to act"):
        agent.act_in(env.game_state, 1 - env.game_state.current_player())
    split = raw_env_factory("positano")(num_players=2, split_bids=True)
    with pytest.raises(ValueError, match="split_bids=False"):
        make_agent(SPEC, split.game, split.observer)


def test_expert_iteration_distils_the_search_and_resumes(tmp_path) -> None:
    reports = expert_iteration("rapa_nui", 2, tmp_path, iterations=1, games=1, worlds=2,
                               width=2, hidden=(16,), epochs=1)
    (report,) = reports
    assert report["teacher"] == SPEC and report["iteration"] == 1 and report["games"] == 1
    # Every decision of the game is a sample; a Rapa Nui game has at least 60 (MIN_DECISIONS:
    # 36 draws and 12 turns of a purchase and a play).
    assert report["samples"] >= 60
    assert 0.0 <= report["holdout_agreement"] <= 1.0
    env = raw_env_factory("rapa_nui")(num_players=2)
    env.reset(seed=0)
    policy = make_agent(f"jax:{tmp_path / 'iteration_1.npz'}", env.game, env.observer)
    obs = env.observe(env.agent_selection)
    assert obs["action_mask"][policy.act(obs)]
    # Done iterations are read back, not run again.
    assert expert_iteration("rapa_nui", 2, tmp_path, iterations=1, games=1, worlds=2, width=2,
                            hidden=(16,), epochs=1) == reports
    with pytest.raises(ValueError, match="at least 1"):
        expert_iteration("rapa_nui", 2, tmp_path, iterations=0)
    with pytest.raises(ValueError, match="workers and part_games must be at least 1"):
        expert_iteration("rapa_nui", 2, tmp_path, workers=0)
    with pytest.raises(ValueError, match="z must be a number >= 0"):
        expert_iteration("rapa_nui", 2, tmp_path, z=-1.0)


def test_an_iterations_games_are_saved_in_parts_and_a_resumed_run_keeps_them(
        tmp_path, monkeypatch) -> None:
    import tabletop_gym.jax.search as search
    from tabletop_gym.jax.distill import collect

    (report,) = expert_iteration("rapa_nui", 2, tmp_path, iterations=1, games=2, worlds=2,
                                 width=2, hidden=(16,), epochs=1, seed=7, part_games=1)
    # One part per game, deal seeds 7 and 8, each played as collect plays it alone.
    parts = sorted(tmp_path.glob("iteration_1_deals_*.npz"))
    assert [p.name for p in parts] == ["iteration_1_deals_7.npz", "iteration_1_deals_8.npz"]
    alone = collect("rapa_nui", 2, 1, seed=8, explore=0.0, teacher=SPEC)
    with np.load(parts[1]) as z:
        assert np.array_equal(z["action"], alone.action)
        assert np.array_equal(z["observation"], alone.observation)
        first = int(z["games"]), z["action"].size
    assert first[0] == 1
    with np.load(parts[0]) as z:
        assert report["samples"] == z["action"].size + first[1]
    # Without its checkpoint the iteration is fitted again from the parts, not played again;
    # a part of another size is refused, naming it.
    (tmp_path / "iteration_1.json").unlink()

    def replay(job: object) -> str:
        raise AssertionError(f"a saved part was played again: {job}")

    monkeypatch.setattr(search, "_collect_part", replay)
    again = expert_iteration("rapa_nui", 2, tmp_path, iterations=1, games=2, worlds=2,
                             width=2, hidden=(16,), epochs=1, seed=7, part_games=1)
    assert again[0]["samples"] == report["samples"]
    (tmp_path / "iteration_1.json").unlink()
    with pytest.raises(ValueError, match=r"iteration_1_deals_7.npz holds no gains"):
        expert_iteration("rapa_nui", 2, tmp_path, iterations=1, games=2, worlds=2, width=2,
                         epochs=1, seed=7, warm=True, beta=1.0, part_games=1)
    with pytest.raises(ValueError, match=r"iteration_1_deals_7.npz holds 1 games where this "
                                         r"run plays 2"):
        expert_iteration("rapa_nui", 2, tmp_path, iterations=1, games=2, worlds=2, width=2,
                         hidden=(16,), epochs=1, seed=7, part_games=2)
    # Parts played one by one are not mixed into a batched run: other worlds, other games.
    with pytest.raises(ValueError, match=r"iteration_1_deals_7.npz holds games played one by "
                                         r"one, where this run plays them batched"):
        expert_iteration("rapa_nui", 2, tmp_path, iterations=1, games=2, worlds=2, width=2,
                         hidden=(16,), epochs=1, seed=7, part_games=1, batched=True)
    with pytest.raises(ValueError, match="part_games must be at least 1"):
        expert_iteration("rapa_nui", 2, tmp_path, part_games=0)


def test_a_batched_iteration_saves_the_batched_selfplay_of_each_part(tmp_path) -> None:
    from tabletop_gym.jax.search import selfplay

    (report,) = expert_iteration("rapa_nui", 2, tmp_path, iterations=1, games=3, worlds=2,
                                 width=2, hidden=(16,), epochs=1, seed=9, batched=True,
                                 part_games=2)
    parts = sorted(tmp_path.glob("iteration_1_deals_*.npz"))
    # Deals 9 and 10 in one batch, deal 11 alone (names sort as text).
    assert [p.name for p in parts] == ["iteration_1_deals_11.npz", "iteration_1_deals_9.npz"]
    together = selfplay("rapa_nui", 2, 2, seed=9, teacher=SPEC)
    with np.load(tmp_path / "iteration_1_deals_9.npz") as z:
        assert str(z["play"]) == "batched" and int(z["games"]) == 2
        assert np.array_equal(z["action"], together.action)
        assert np.array_equal(z["observation"], together.observation)
        first = z["action"].size
    with np.load(tmp_path / "iteration_1_deals_11.npz") as z:
        assert int(z["games"]) == 1 and report["samples"] == first + z["action"].size
    (tmp_path / "iteration_1.json").unlink()
    with pytest.raises(ValueError, match=r"iteration_1_deals_9.npz holds games played "
                                         r"batched, where this run plays them one by one"):
        expert_iteration("rapa_nui", 2, tmp_path, iterations=1, games=3, worlds=2, width=2,
                         hidden=(16,), epochs=1, seed=9, part_games=2)





def test_a_warm_iteration_starts_from_the_policy_the_search_continued_with(tmp_path) -> None:
    from tabletop_gym.agents.jax_policy import load_policy
    from tabletop_gym.jax.distill import shipped

    (report,) = expert_iteration("rapa_nui", 2, tmp_path, iterations=1, games=1, worlds=2,
                                 width=2, epochs=1, warm=True, z=2.0, beta=5.0)
    assert report["teacher"] == "search:heuristic-net?worlds=2&width=2&z=2"
    assert report["beta"] == 5.0
    with np.load(tmp_path / "iteration_1_deals_0.npz") as part:  # the gains are kept
        assert part["gain"].shape == part["action_mask"].shape
    start = shipped("rapa_nui", 2)
    assert report["init"] == "tabletop_gym/agents/checkpoints/" + start.name
    # The fit began at the start's own moves on its held-out decisions: the search keeps the
    # policy's move unless the worlds show a better one, so most labels are that move.
    assert report["init_holdout_agreement"] > 0.5
    # And kept the start's layers, not the default (64, 64).
    assert (load_policy(tmp_path / "iteration_1.npz")[1]["hidden"]
            == load_policy(start)[1]["hidden"])


def test_the_bench_counts_both_agents_steps_and_rotates_seats(tmp_path) -> None:
    # bench/search.py: one deal played from both seats against ismcts:12:guided; no timing is
    # asserted (the bench measures; tests never do).
    import json

    bench = load_script("bench/search.py", "bench_search")
    out = tmp_path / "search"
    assert bench.main(["--search", SPEC, "--games", "2", "--games-heuristic", "0",
                       "--games-list", "rapa_nui", "--out", str(out)]) == 0
    doc = json.loads(out.with_suffix(".json").read_text())
    (row,) = doc["matches"]
    assert row["games"] == 2 and row["opponent"] == "ismcts:12:guided"
    assert row["win_rate"] in (0.0, 0.25, 0.5, 0.75, 1.0)  # a shared win counts one half
    (speed,) = doc["speed"]
    for name in ("search", "ismcts:12:guided"):
        # Each agent decides at least once per turn it has a choice; every search simulates
        # at least one step per candidate and world, every guided round one rollout move.
        assert speed[name]["decisions"] > 20 and speed[name]["steps"] > speed[name]["decisions"]
    assert speed["steps_per_s_ratio"] > 0
    assert "ismcts:12:guided" in out.with_suffix(".md").read_text()


def test_gains_are_the_searchs_values_and_a_beta_fit_improves_the_starting_policy(
        tmp_path) -> None:
    from tabletop_gym.jax.distill import collect, distill
    from tabletop_gym.jax.search import resolve_policy

    s = collect("rapa_nui", 2, 1, seed=4, explore=0.0, teacher=SPEC, gains=True)
    assert s.gain is not None and s.gain.shape == s.action_mask.shape
    assert not s.gain[~s.action_mask].any()  # an illegal move is never a candidate
    rows = np.arange(s.action.size)
    # The search leaves its policy's move (gain 0) only for a move that gains more.
    assert (s.gain[rows, s.action] >= 0).all()
    # Gains are differences of mean values in [0, 1], and some decisions found some.
    assert (np.abs(s.gain) <= 1).all() and np.abs(s.gain).sum() > 0
    with pytest.raises(ValueError, match="the teacher 'heuristic' is not a search"):
        collect("rapa_nui", 2, 1, teacher="heuristic", gains=True)

    init = resolve_policy("heuristic-net", "rapa_nui", 2)
    # beta = 0 makes the target the starting network's own policy: a fit that barely moves
    # keeps its favourite move everywhere.
    _, _, report = distill("rapa_nui", 2, s, epochs=1, lr=1e-12, init=init, beta=0.0)
    assert report["beta"] == 0.0 and report["holdout_agreement_with_target"] == 1.0
    assert report["target_agreement_with_labels"] <= 1.0
    # A huge beta makes the move of largest gain the favourite wherever one gained: the
    # searched move there, unless the search kept its policy's move for want of z standard
    # errors; where none gained, the search played its policy's move, the favourite of both.
    _, _, big = distill("rapa_nui", 2, s, epochs=1, lr=1e-12, init=init, beta=1e6)
    gained = s.gain.max(1) > 0
    expected = np.mean(~gained | (s.gain.argmax(1) == s.action))
    assert big["target_agreement_with_labels"] == pytest.approx(expected, abs=1e-4)
    assert expected < 1.0  # this game has decisions where the search kept its move
    for kwargs, says in [({"beta": 1.0}, "needs init"), ({"beta": -1.0, "init": init}, ">= 0")]:
        with pytest.raises(ValueError, match=says):
            distill("rapa_nui", 2, s, **kwargs)
    with pytest.raises(ValueError, match="gains absent"):
        distill("rapa_nui", 2, collect("rapa_nui", 2, 1, seed=4, explore=0.0), init=init,
                beta=1.0)
    with pytest.raises(ValueError, match="goes with warm"):
        expert_iteration("rapa_nui", 2, tmp_path, beta=1.0)


@pytest.mark.parametrize(("game", "seed"), [("rapa_nui", 11), ("positano", 12)])
def test_batched_selfplay_is_the_agents_search_at_every_decision(game: str, seed: int) -> None:
    # Two games played in one batch, then replayed move by move in the Python env: every
    # recorded observation is the seat's own reference observation there, and every searched
    # decision is what the agent's own (narrower, one-position) search chooses from that
    # position with that decision's key, with the same gains over its candidates.
    import jax.numpy as jnp

    from tabletop_gym.agents.base import reference_size
    from tabletop_gym.jax.search import _bucket, decision_key, selfplay

    stats: dict[str, float] = {}
    s = selfplay(game, 2, 2, seed=seed, teacher=SPEC, gains=True, stats=stats)
    assert s.gain is not None and s.games == 2
    env = raw_env_factory(game)(num_players=2)
    agent = _agent(env, 0)
    size = reference_size(env.observer)
    row = searched = candidates = 0
    for g in range(2):
        env.reset(seed=seed + g)
        t = 0
        for name in env.agent_iter():
            obs, _r, term, trunc, _info = env.last()
            if term or trunc:
                env.step(None)
                continue
            np.testing.assert_array_equal(s.observation[row], obs["observation"][:size])
            np.testing.assert_array_equal(s.action_mask[row], obs["action_mask"].astype(bool))
            legal = np.flatnonzero(obs["action_mask"])
            want = np.zeros(s.action_mask.shape[1], np.float32)
            if legal.size > 1:
                state, seat = env.game_state, env.seat_of(name)
                fn = agent._fn(_bucket(legal.size, agent.spec.width))
                action, cands, values, _ = fn(agent.params, agent.module.from_reference(state),
                                              seat, decision_key(seed + g, t),
                                              jnp.float32(agent.spec.z))
                assert int(action) == s.action[row]
                for a, v in zip(np.asarray(cands), np.asarray(values), strict=True):
                    if a >= 0:
                        want[a] = v - np.asarray(values)[0]
                searched += 1
                candidates += int((np.asarray(cands) >= 0).sum())
            else:
                assert s.action[row] == legal[0]
            np.testing.assert_allclose(s.gain[row], want, atol=1e-6)
            env.step(int(s.action[row]))
            row, t = row + 1, t + 1
    assert row == s.action.size  # every recorded decision was replayed, in collect's order
    assert stats["decisions"] == searched and stats["steps"] > 0
    assert (stats["candidates"], stats["width"]) == (candidates, 2)
    with pytest.raises(ValueError, match="at least 1"):
        selfplay(game, 2, 0, teacher=SPEC)
    with pytest.raises(ValueError, match="plays a search: teacher"):
        selfplay(game, 2, 1, teacher="heuristic")
