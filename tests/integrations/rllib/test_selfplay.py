"""Multi-agent self-play on RLlib (docs/scale-out.md): policy mappings, the opponent pool, the
training loop of ``tabletop-gym train --backend rllib`` and ``examples/rllib_selfplay.py``, and
checkpoints. Two short iterations each, with tiny batches, in the driver process (0 env runners).

Runs in ``.venv-rllib`` (``make test``), where Ray is installed.
"""

from __future__ import annotations

import json
import os
import runpy
import types

import numpy as np
import pytest
import torch
from ray.rllib.algorithms.algorithm import Algorithm
from ray.rllib.core.rl_module.rl_module import RLModule

from tabletop_gym import cli
from tabletop_gym.arena.evaluation import evaluate
from tabletop_gym.integrations import make_env
from tabletop_gym.integrations.rllib import (
    RLlibAgent,
    load_agent,
    module_path,
    on_episode_end,
    policy_mapping,
    ppo_config,
    rllib_env,
    selfplay,
)
from tabletop_gym.registry import game_specs

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
TINY = {"train_batch_size_per_learner": 256, "minibatch_size": 128, "num_epochs": 1,
        "hiddens": [32]}


def test_policy_mappings_seat_the_modules():
    seats = ["player_0", "player_1", "player_2"]
    shared = policy_mapping("shared", seats)
    assert shared.modules == shared.trained == ("shared",)
    assert {shared.fn(a, None) for a in seats} == {"shared"}
    per_seat = policy_mapping("per_seat", seats)
    assert [per_seat.fn(a, None) for a in seats] == ["seat_0", "seat_1", "seat_2"]
    assert per_seat.trained == per_seat.modules
    pool = policy_mapping("pool", seats, pool_size=2)
    assert pool.modules == ("learner", "snapshot_0", "snapshot_1")
    assert pool.trained == ("learner",) and pool.snapshots == ("snapshot_0", "snapshot_1")
    learner_seats = set()
    for i in range(30):
        episode = types.SimpleNamespace(id_=f"episode-{i}")
        mapped = [pool.fn(a, episode) for a in seats]
        # Exactly one seat is the learner; the others are frozen snapshots; the same episode
        # maps the same way on every call (so on every env runner).
        assert mapped.count("learner") == 1
        assert set(mapped) - {"learner"} <= set(pool.snapshots)
        assert [pool.fn(a, episode) for a in seats] == mapped
        learner_seats.add(mapped.index("learner"))
    assert learner_seats == {0, 1, 2}
    with pytest.raises(ValueError, match="choose one of"):
        policy_mapping("league", seats)
    with pytest.raises(ValueError, match="at least 1"):
        policy_mapping("pool", seats, pool_size=0)


# Multi-agent: every player count of every registered game from two seats up.
CASES = [(spec.name, n) for spec in game_specs() for n in spec.player_counts if n >= 2]


@pytest.mark.parametrize(("game", "n"), CASES, ids=[f"{g}-{n}p" for g, n in CASES])
def test_every_player_count_plays_out_with_the_final_returns_in_the_infos(game, n):
    env = rllib_env(game, num_players=n, log_scale=True)
    raw = env.get_sub_environments
    obs, _ = env.reset(seed=n)
    rng = np.random.default_rng(n)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    done = False
    while not done:
        (agent,) = obs  # AEC: the one agent to act observes, with a legal move in its mask
        legal = np.flatnonzero(obs[agent]["action_mask"])
        assert legal.tolist() == raw.legal_actions(agent)
        assert env.observation_space[agent].contains(obs[agent])  # log1p keeps the bounds
        obs, rewards, terms, truncs, infos = env.step({agent: int(rng.choice(legal))})
        for a, r in rewards.items():
            totals[a] += r
        done = terms["__all__"]
    # Every seat observes the end once, with its own final return and score in its info.
    assert set(obs) == set(infos) == set(raw.possible_agents)
    returns, scores = raw.game_state.returns(), raw.game_state.scores()
    # RLlib's wrapper lists its agents from a set: the seat order is the raw env's.
    for seat, agent in enumerate(raw.possible_agents):
        assert infos[agent]["final_return"] == returns[seat] == totals[agent]
        assert infos[agent]["final_score"] == scores[seat]


class _Logger:
    def __init__(self):
        self.values = {}

    def log_value(self, key, value, reduce, **kwargs):
        self.values[key] = (value, reduce)


def _episode(env, infos, totals):
    agents = {a: types.SimpleNamespace(infos=[infos[a]], get_infos=lambda i, a=a: infos[a],
                                       get_return=lambda a=a: totals[a]) for a in infos}
    return types.SimpleNamespace(agent_episodes=agents)


def test_the_episode_callback_counts_illegal_moves_and_return_gaps():
    env = rllib_env("rapa_nui", num_players=2)
    obs, _ = env.reset(seed=0)
    (agent,) = obs
    illegal = int(np.flatnonzero(obs[agent]["action_mask"] == 0)[0])
    with pytest.warns(UserWarning, match="illegal action"):
        obs, rewards, terms, _, infos = env.step({agent: illegal})
    # The game ends on the offence (-1 for the offender, 0 for the other, docs/libraries.md),
    # before its end: no final return to compare with.
    assert terms["__all__"] and rewards[agent] == -1.0
    assert all("final_return" not in i for i in infos.values())
    log = _Logger()
    on_episode_end(episode=_episode(env, infos, rewards), metrics_logger=log)
    assert log.values[("tabletop", "illegal_actions")] == (1, "sum")
    assert log.values[("tabletop", "returns_checked")] == (0, "sum")
    # A finished game whose RLlib returns are off by 2 for one seat (+1 recorded as -1).
    done = {"player_0": {"final_return": 1.0, "final_score": 40.0},
            "player_1": {"final_return": -1.0, "final_score": 30.0}}
    log = _Logger()
    on_episode_end(episode=_episode(env, done, {"player_0": -1.0, "player_1": -1.0}),
                   metrics_logger=log)
    assert log.values[("tabletop", "return_mismatch")] == (2.0, "max")
    assert log.values[("tabletop", "returns_checked")] == (2, "sum")
    assert log.values[("tabletop", "illegal_actions")] == (0, "sum")
    assert log.values[("tabletop", "score")] == (35.0, "mean")


class _Checked:
    """Plays like ``agent`` and records every action against the seat's legal set."""

    def __init__(self, agent: RLlibAgent):
        self.agent, self.name, self.moves, self.illegal = agent, agent.name, 0, 0

    def act_in(self, state, seat):
        action = self.agent.act_in(state, seat)
        self.moves += 1
        self.illegal += action not in state.legal_actions(seat)
        return action

    def act(self, observation):  # the Agent protocol; the harness calls act_in
        raise AssertionError("an agent with act_in is handed the state")


def _state(path, module_id):
    return RLModule.from_checkpoint(module_path(path, module_id)).get_state()


def _same(a, b):
    return all(torch.equal(torch.as_tensor(a[k]), torch.as_tensor(b[k])) for k in a)


def test_selfplay_with_an_opponent_pool_trains_checks_and_evaluates(tmp_path, capsys):
    res = selfplay("rapa_nui", 2, iterations=2, mapping="pool", pool_size=2, refresh_every=1,
                   envs_per_runner=2, out=tmp_path, eval_games=4,
                   hparams={**TINY, "train_batch_size_per_learner": 512})
    out = capsys.readouterr().out
    assert res.iterations == 2 and len(res.progress) == 2
    progress_lines = [line for line in out.splitlines() if line.startswith("iter ")]
    assert len(progress_lines) == 2 and progress_lines[1].startswith("iter   2/2")
    assert all("steps/s" in line and "return" in line and "length" in line
               for line in progress_lines)
    # Every agent of every finished episode was compared with the env's own final return.
    for row in res.progress:
        assert row["illegal_actions"] == 0
        assert row["return_mismatch"] == 0.0
        assert row["returns_checked"] == 2 * row["episodes"]
        assert row["score_mean"] >= 0  # NaN if no game ended (NaN >= 0 is False)
    assert sum(row["episodes"] for row in res.progress) >= 2
    assert res.env_steps >= 1024
    names = {p.name for p in res.run_dir.iterdir()}
    assert {"checkpoint", "progress.csv", "evaluation.csv", "evaluation.json",
            "selfplay.json"} <= names
    saved = json.loads((res.run_dir / "selfplay.json").read_text())
    assert saved["mapping"] == "pool" and saved["iterations"] == 2
    # The table: trained policy vs random and vs heuristic, 4 games each, seats rotated.
    assert [(r.candidate, r.opponent, r.n_games) for r in res.evaluations] == [
        ("rllib-pool", "random", 4), ("rllib-pool", "heuristic", 4)]
    assert "win rate [95% CI]" in out and "heuristic" in out
    assert [g["seat"] for g in res.evaluations[1].per_game] == [0, 1, 0, 1]
    # The same evaluation games, replayed with every action checked against the legal set.
    checked = _Checked(load_agent(res.checkpoint, "rapa_nui", 2))
    again = evaluate("rapa_nui", checked, "heuristic", n_games=4, seed=20_000, num_players=2)
    assert again.per_game == res.evaluations[1].per_game
    assert checked.moves > 40 and checked.illegal == 0
    # The pool after iteration 2 (refresh every iteration, two slots): snapshot_1 is the final
    # learner, snapshot_0 the learner after iteration 1, which training has moved on from.
    learner = _state(res.checkpoint, "learner")
    assert _same(_state(res.checkpoint, "snapshot_1"), learner)
    assert not _same(_state(res.checkpoint, "snapshot_0"), learner)


def _observations(game, n, seed=0, moves=60):
    env = make_env(game, num_players=n)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    seen = []
    for _ in range(moves):
        agent = env.agent_selection
        obs = env.observe(agent)
        seen.append((obs["observation"], obs["action_mask"], env.possible_agents.index(agent)))
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return seen


def test_per_seat_policies_restore_from_a_checkpoint_and_act_identically(tmp_path):
    config, pm = ppo_config("positano", 3, "per_seat", envs_per_runner=2, hparams=TINY)
    algo = config.build_algo()
    try:
        for _ in range(2):
            result = algo.train()
        assert result["env_runners"]["tabletop"]["illegal_actions"] == 0
        live = RLlibAgent({i: algo.get_module(m) for i, m in enumerate(pm.modules)},
                          "positano", num_players=3)
        path = tmp_path / "checkpoint"
        algo.save_to_path(str(path))
    finally:
        algo.stop()
    (tmp_path / "selfplay.json").write_text(json.dumps({"mapping": "per_seat"}))
    loaded = load_agent(path, "positano", 3)
    restored = Algorithm.from_checkpoint(str(path))
    try:
        again = RLlibAgent({i: restored.get_module(m) for i, m in enumerate(pm.modules)},
                           "positano", num_players=3)
        for obs, mask, seat in _observations("positano", 3):
            want = live.logits(obs, mask, seat)
            assert np.array_equal(loaded.logits(obs, mask, seat), want)
            assert np.array_equal(again.logits(obs, mask, seat), want)
            # The masked logits of illegal actions are ~ -3.4e38: probability exactly 0.
            probs = torch.softmax(torch.as_tensor(want), -1).numpy()
            assert (probs[mask == 0] == 0).all() and probs[mask == 1].sum() > 0.999
    finally:
        restored.stop()


def test_cli_trains_positano_for_three_players_on_rllib(tmp_path, capsys):
    code = cli.main(["train", "--backend", "rllib", "--env", "positano", "--players", "3",
                     "--iterations", "1", "--eval-games", "3", "--out", str(tmp_path),
                     "--envs-per-runner", "2", "--hp", "train_batch_size_per_learner=128",
                     "minibatch_size=64", "num_epochs=1", "hiddens=[16]"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "iter   1/1" in out and "positano   3 rllib-shared" in out
    (run,) = tmp_path.iterdir()
    assert json.loads((run / "selfplay.json").read_text())["num_players"] == 3


def test_example_runs_two_iterations_and_prints_the_table(tmp_path, capsys):
    # In this process, on the session's Ray (a fresh process would start its own, ~30 s).
    example = runpy.run_path(os.path.join(ROOT, "examples", "rllib_selfplay.py"))
    example["main"](["--env", "rapa_nui", "--iterations", "2", "--batch-size", "256",
                     "--envs-per-runner", "2", "--eval-games", "2", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert sum(line.startswith("iter ") for line in out.splitlines()) == 2
    assert "rllib-shared" in out and "heuristic" in out
