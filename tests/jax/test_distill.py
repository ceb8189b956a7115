"""The heuristic distilled into a network, and training against it inside the jit.

The labels are the Python heuristic bot's decisions; the trainer plays the distilled network
greedily in the non-learner seats (opponents="heuristic-net"), so every such move must be its
masked argmax.
"""

from __future__ import annotations

import jax
import numpy as np
import pytest

from tabletop_gym.agents.jax_policy import JaxPolicyAgent, load_policy
from tabletop_gym.agents.kinds import make_agent
from tabletop_gym.jax.core import make
from tabletop_gym.jax.distill import (
    Samples,
    _compact,
    _concatenate,
    agreement,
    collect,
    distill,
    distill_to,
    greedy,
)
from tabletop_gym.jax.train import TrainConfig, Trainer
from tests.legal_play import play_legal_game


@pytest.fixture(scope="module")
def net(tmp_path_factory):
    """A small network distilled from three Rapa Nui 2p games, saved as a checkpoint."""
    path = tmp_path_factory.mktemp("net") / "heuristic_net.npz"
    report = distill_to(path, "rapa_nui", 2, games=3, seed=0, hidden=(16,), epochs=2)
    return path, report


def test_collect_records_the_bots_legal_decisions_reproducibly():
    a = collect("rapa_nui", 2, 2, seed=3, explore=0.0)
    b = collect("rapa_nui", 2, 2, seed=3, explore=0.0)
    assert a.games == 2 and a.observation.shape[0] == a.action.shape[0] > 0
    assert np.array_equal(a.observation, b.observation) and np.array_equal(a.action, b.action)
    assert a.action_mask[np.arange(a.action.size), a.action].all()  # every label legal
    # With every move random the positions differ, and the labels are still the bot's (legal).
    c = collect("rapa_nui", 2, 2, seed=3, explore=1.0)
    assert c.action_mask[np.arange(c.action.size), c.action].all()
    assert c.observation.shape != a.observation.shape or not np.array_equal(c.observation,
                                                                              a.observation)


def test_the_first_label_is_the_heuristics_move_on_that_observation():
    from tabletop_gym.envs.rapa_nui.env import raw_env

    s = collect("rapa_nui", 2, 1, seed=11, explore=0.0)
    env = raw_env(num_players=2)
    env.reset(seed=11)
    obs = env.observe(env.agent_selection)
    assert np.array_equal(obs["observation"], s.observation[0])
    bot = make_agent("heuristic", env.game, env.observer, np.random.default_rng(0))
    # The bot's first move in a fresh game has no tie to break here: the same move.
    assert bot.act(obs) == s.action[0]


def test_blocks_are_kept_as_bytes_only_where_that_is_exact():
    whole = np.array([[0.0, 3.0, 255.0]], np.float32)
    assert _compact(whole).dtype == np.uint8 and np.array_equal(_compact(whole), whole)
    for inexact in ([[0.5, 1.0, 2.0]], [[256.0, 0.0, 1.0]], [[-1.0, 0.0, 1.0]]):
        block = np.array(inexact, np.float32)
        assert _compact(block) is block  # a half, past 255, below 0: left as float32
    small = [_compact(whole), _compact(whole * 0 + 7)]
    joined = _concatenate(small)
    assert joined.dtype == np.uint8 and joined.tolist() == [[0, 3, 255], [7, 7, 7]]
    assert small == []  # each block released once copied
    mixed = _concatenate([_compact(whole), np.array([[0.5, 1.0, 2.0]], np.float32)])
    assert mixed.dtype == np.float32 and mixed.tolist() == [[0, 3, 255], [0.5, 1, 2]]


def test_a_collection_in_bytes_fits_exactly_as_in_float32():
    s = collect("rapa_nui", 2, 2, seed=3)
    # Rapa Nui's observer gives whole numbers below 256: a quarter of float32's memory.
    assert s.observation.dtype == np.uint8
    wide = Samples(s.observation.astype(np.float32), s.action_mask, s.action, s.games)
    fits = [distill("rapa_nui", 2, x, hidden=(8,), epochs=2, batch_size=32)
            for x in (s, wide)]
    assert fits[0][2]["holdout_agreement"] == fits[1][2]["holdout_agreement"]
    for a, b in zip(jax.tree_util.tree_leaves(fits[0][1]), jax.tree_util.tree_leaves(fits[1][1]),
                    strict=True):
        assert np.array_equal(np.asarray(a), np.asarray(b))


def test_bad_collections_and_fits_are_refused():
    with pytest.raises(ValueError, match="games must be at least 1"):
        collect("rapa_nui", 2, 0)
    with pytest.raises(ValueError, match=r"explore must lie in \[0, 1\]"):
        collect("rapa_nui", 2, 1, explore=1.5)
    s = collect("rapa_nui", 2, 1, seed=0)
    with pytest.raises(ValueError, match=r"holdout must lie in \(0, 1\)"):
        distill("rapa_nui", 2, s, holdout=0.0)
    with pytest.raises(ValueError, match="epochs and batch_size must be at least 1"):
        distill("rapa_nui", 2, s, epochs=0)


def test_the_checkpoint_is_an_agent_and_its_agreement_is_the_argmax_match(net):
    path, report = net
    _arrays, meta = load_policy(path)
    assert meta["distilled"]["samples"] == report["samples"]
    assert meta["game"] == "rapa_nui" and meta["num_players"] == 2
    agent = JaxPolicyAgent(path, game_name="rapa_nui", num_players=2)
    # Recompute the agreement on the collected decisions with the numpy agent.
    s = collect("rapa_nui", 2, 3, seed=0, explore=0.1)
    picks = np.array([agent.act({"observation": o, "action_mask": m})
                      for o, m in zip(s.observation, s.action_mask, strict=True)])
    trainer = Trainer(make("rapa_nui", num_players=2), TrainConfig(hidden=(16,)))
    from tabletop_gym.agents.jax_policy import load_policy as load

    arrays, _ = load(path)
    params = {"params": {"actor": {}, "critic": {}}}
    for name, value in arrays.items():
        part, layer, leaf = name.split("/")
        params["params"][part].setdefault(layer, {})[leaf] = value
    rows = np.arange(s.action.size)
    assert agreement(trainer, params, s, rows) == pytest.approx(np.mean(picks == s.action))
    assert 0.0 <= report["holdout_agreement"] <= 1.0
    # In parts of 7 rows (the last one short) the picks are the agent's, in the rows' order.
    some = rows[::-1][:40]
    np.testing.assert_array_equal(greedy(trainer, params, s, some, chunk=7), picks[some])
    with pytest.raises(ValueError, match="at least one row"):
        agreement(trainer, params, s, rows[:0])


def test_training_against_the_net_plays_its_greedy_moves(net):
    path, _ = net
    config = TrainConfig(num_envs=4, num_steps=4, minibatches=2, epochs=1, eval_envs=2,
                         hidden=(8,), opponents="heuristic-net", opponent_net=str(path))
    trainer = Trainer(make("rapa_nui", num_players=2), config)
    runner = trainer.init(jax.random.PRNGKey(0))
    agent = JaxPolicyAgent(path)
    step = jax.jit(trainer._step)
    checked = 0
    for _ in range(6):
        runner, (t, _stats) = step(runner, None)
        for g in range(config.num_envs):  # training games only
            if bool(t.in_loss[g]):
                continue
            obs = {"observation": np.asarray(t.observation[g]),
                   "action_mask": np.asarray(t.action_mask[g])}
            assert int(t.action[g]) == agent.act(obs)
            checked += 1
    assert checked > 0


def test_the_net_goes_with_its_opponents_setting_and_its_own_game(net):
    path, _ = net
    with pytest.raises(ValueError, match=r"opponent_net .* goes with opponents='heuristic-net'"):
        TrainConfig(opponents="heuristic-net")
    with pytest.raises(ValueError, match=r"opponent_net .* goes with opponents='heuristic-net'"):
        TrainConfig(opponents="pool", opponent_net=str(path))
    wrong = Trainer(make("positano", num_players=2),
                    TrainConfig(opponents="heuristic-net", opponent_net=str(path)))
    with pytest.raises(ValueError, match="was trained for game 'rapa_nui', not 'positano'"):
        _ = wrong.opponent_net


@pytest.mark.parametrize("game", ["positano", "rapa_nui"])
def test_the_shipped_nets_play_legally_and_name_what_is_shipped(game):
    from tabletop_gym.arena.envs import raw_env_factory
    from tabletop_gym.jax.distill import shipped

    for players in (1, 2, 4) if game == "positano" else (2, 4):
        path = shipped(game, players)
        env = raw_env_factory(game)(num_players=players)
        agent = make_agent(f"jax:{path}", env.game, env.observer)
        assert play_legal_game(env, agent, seed=1) > 0 and env.game_state.is_terminal()
    with pytest.raises(ValueError, match=rf"no distilled heuristic for {game} with 3 players; "
                       r"shipped: \['heuristic_net_positano_1p', 'heuristic_net_positano_2p', "
                       r"'heuristic_net_positano_4p', "
                       r"'heuristic_net_rapa_nui_2p', 'heuristic_net_rapa_nui_4p'\]"):
        shipped(game, 3)


V2_TABLES = [("positano", 1), ("positano", 2), ("positano", 4), ("rapa_nui", 4)]


@pytest.mark.parametrize(("game", "players"), V2_TABLES)
def test_the_second_version_plays_legally_and_agrees_with_the_heuristic_more(game, players):
    from tabletop_gym.arena.envs import raw_env_factory
    from tabletop_gym.jax.distill import shipped

    v1, v2 = shipped(game, players), shipped(game, players, version=2)
    assert v2.name == f"heuristic_net_v2_{game}_{players}p.npz"
    env = raw_env_factory(game)(num_players=players)
    agent = make_agent(f"jax:{v2}", env.game, env.observer)
    assert play_legal_game(env, agent, seed=1) > 0 and env.game_state.is_terminal()
    old, new = load_policy(v1)[1], load_policy(v2)[1]
    assert (new["game"], new["num_players"]) == (game, players)
    # What version 2 is: the same fit on several times the games, agreeing more often on its
    # own held-out decisions.
    assert new["distilled"]["games"] >= 4 * old["distilled"]["games"]
    assert new["distilled"]["holdout_agreement"] > old["distilled"]["holdout_agreement"]


def test_a_version_or_table_not_shipped_is_refused_by_name():
    from tabletop_gym.jax.distill import shipped

    names = sorted(f"heuristic_net_v2_{g}_{n}p" for g, n in V2_TABLES)
    with pytest.raises(ValueError, match=r"no distilled heuristic v2 for rapa_nui with 2 players; "
                       rf"shipped: \[{', '.join(repr(n) for n in names)}\]"):
        shipped("rapa_nui", 2, version=2)
    with pytest.raises(ValueError, match=r"no distilled heuristic version 4; shipped: \(1, 2, 3\)"):
        shipped("rapa_nui", 4, version=4)
    with pytest.raises(ValueError, match=r"no distilled heuristic v3 for rapa_nui with 4 players; "
                       r"shipped: \['heuristic_net_v3_positano_2p', "
                       r"'heuristic_net_v3_positano_4p'\]"):
        shipped("rapa_nui", 4, version=3)


@pytest.mark.parametrize("players", [2, 4])
def test_the_third_version_is_a_relu_net_fitted_on_more_games_and_agrees_more(players):
    from tabletop_gym.arena.envs import raw_env_factory
    from tabletop_gym.jax.distill import shipped

    v2, v3 = shipped("positano", players, version=2), shipped("positano", players, version=3)
    assert v3.name == f"heuristic_net_v3_positano_{players}p.npz"
    env = raw_env_factory("positano")(num_players=players)
    agent = make_agent(f"jax:{v3}", env.game, env.observer)
    assert play_legal_game(env, agent, seed=1) > 0 and env.game_state.is_terminal()
    old, new = load_policy(v2)[1], load_policy(v3)[1]
    assert (new["game"], new["num_players"]) == ("positano", players)
    # Same layer sizes, so the search's time per move stays where it was; ReLU units and more
    # games are what changed.
    assert list(new["hidden"]) == list(old["hidden"]) == [128, 128]
    assert (old["activation"], new["activation"]) == ("tanh", "relu")
    assert new["distilled"]["games"] >= 2.5 * old["distilled"]["games"]
    assert new["distilled"]["holdout_agreement"] > old["distilled"]["holdout_agreement"]


def test_a_shipped_net_is_recorded_by_its_package_path():
    from tabletop_gym.jax.distill import shipped
    from tabletop_gym.jax.train import portable_settings

    config = TrainConfig(opponents="heuristic-net", opponent_net=str(shipped("rapa_nui", 2)))
    got = portable_settings(config)
    assert got["opponent_net"] == "tabletop_gym/agents/checkpoints/heuristic_net_rapa_nui_2p.npz"
    assert got["hidden"] == [64, 64]  # tuples as JSON lists


def test_a_warm_fit_starts_from_the_checkpoint_and_a_foreign_one_is_refused(net):
    from tabletop_gym.jax.train import flat_params, load_params

    path, _ = net
    arrays, _ = load_policy(path)
    trainer = Trainer(make("rapa_nui", num_players=2), TrainConfig(hidden=(16,)))
    loaded = flat_params(load_params(trainer, path))
    assert loaded.keys() == arrays.keys()
    assert all(np.array_equal(loaded[k], arrays[k]) for k in arrays)
    # A fit that barely moves keeps the checkpoint's moves: its agreement is the start's.
    s = collect("rapa_nui", 2, 2, seed=5, explore=0.0)
    _, params, report = distill("rapa_nui", 2, s, epochs=1, lr=1e-12, init=str(path),
                                hidden=(99,))  # hidden is the checkpoint's, not this
    assert report["init"] == str(path)
    assert report["holdout_agreement"] == report["init_holdout_agreement"]
    assert flat_params(params)["actor/hidden_0/kernel"].shape == (arrays["actor/hidden_0/kernel"]
                                                                  .shape)
    for trainer, says in [
        (Trainer(make("rapa_nui", num_players=2), TrainConfig(hidden=(8,))), r"\(8,\)"),
        (Trainer(make("rapa_nui", num_players=2), TrainConfig(hidden=(16,), activation="relu")),
         "'relu'"),
        (Trainer(make("positano", num_players=2), TrainConfig(hidden=(16,))), "'positano'"),
    ]:
        with pytest.raises(ValueError, match=rf"holds a network for .*; this fit needs .*{says}"):
            load_params(trainer, path)


def test_the_command_line_fits_the_activation_it_is_given(tmp_path, capsys):
    from tabletop_gym.jax.distill import main

    out = tmp_path / "relu.npz"
    assert main(["--game", "rapa_nui", "--players", "2", "--games", "2", "--epochs", "1",
                 "--hidden", "8", "--activation", "relu", "--out", str(out)]) == 0
    meta = load_policy(out)[1]
    assert meta["activation"] == "relu" and list(meta["hidden"]) == [8]
    assert f"saved {out}" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["--game", "rapa_nui", "--activation", "sigmoid", "--out", str(tmp_path / "x")])
    err = capsys.readouterr().err
    assert "invalid choice: 'sigmoid'" in err and "relu" in err and "tanh" in err
    assert not (tmp_path / "x").exists()
