"""Offline RL on a games dataset: discrete CQL with action masks, played back as ``jax:<path>``."""

from __future__ import annotations

import json
import math
import pathlib

import numpy as np
import pytest

from tabletop_gym.agents.base import choose_action
from tabletop_gym.agents.jax_policy import load_policy
from tabletop_gym.agents.kinds import make_agent
from tabletop_gym.arena.envs import raw_env_factory
from tabletop_gym.cli import main
from tabletop_gym.tasks.datasets.cloning import decisions
from tabletop_gym.tasks.datasets.cql import conservative_term, fit_cql, transitions
from tabletop_gym.tasks.datasets.games import GameDataset

torch = pytest.importorskip("torch", reason="CQL trains with torch (the train extra)")

SAMPLE = pathlib.Path(__file__).resolve().parent / "data" / "games" / "rapa_nui_2p"


def test_each_seat_leads_to_its_own_next_decision_and_is_paid_at_its_last():
    # Two games, decisions in file order. Game 0: seats 0, 1, 0, 1 (seat 0 wins 1 to -1);
    # game 1: seats 1, 0 (seat 1 wins). Each decision leads to its seat's next in the same game;
    # the last of each seat in a game ends that seat's episode with its own final return.
    game = np.array([0, 0, 0, 0, 1, 1])
    seat = np.array([0, 1, 0, 1, 1, 0])
    returns = np.array([[1, -1]] * 4 + [[-1, 1]] * 2, np.float32)
    nxt, reward = transitions(game, seat, returns)
    assert nxt.tolist() == [2, 3, -1, -1, -1, -1]
    assert reward.tolist() == [0.0, 0.0, 1.0, -1.0, 1.0, -1.0]


def test_the_conservative_term_pushes_the_datas_move_up_the_other_legal_ones_down():
    # q = (0, 0, 0, 5), the last action illegal, the data took action 0. The term is
    # logsumexp over the legal actions minus q of the taken one = log(3 e^0) - 0 = log 3, and its
    # gradient softmax over the legal actions minus one-hot(taken) = (1/3 - 1, 1/3, 1/3, 0):
    # a descent step raises the taken move, lowers the two unseen legal moves and leaves the
    # illegal one (whose 5 never counts) alone.
    q = torch.tensor([[0.0, 0.0, 0.0, 5.0]], requires_grad=True)
    mask = torch.tensor([[True, True, True, False]])
    term = conservative_term(torch, q, mask, torch.tensor([0]))
    assert term.item() == pytest.approx(math.log(3))
    term.sum().backward()
    assert q.grad[0].tolist() == pytest.approx([1 / 3 - 1, 1 / 3, 1 / 3, 0.0])


def _greedy_q(path: pathlib.Path, ds: GameDataset) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The checkpoint's values of every decision with a choice, their masks and actions."""
    arrays, _meta = load_policy(path)
    data = decisions(ds)
    z = data.raw(slice(0, len(data.rows)))
    hidden = sorted(k for k in arrays if k.startswith("actor/hidden_") and k.endswith("kernel"))
    for k in hidden:
        z = np.maximum(z @ arrays[k] + arrays[k.replace("kernel", "bias")], 0.0)
    z = z @ arrays["actor/out/kernel"] + arrays["actor/out/bias"]
    return z, data.mask, data.action


def test_the_conservative_weight_opens_a_gap_between_seen_and_unseen_moves(tmp_path):
    ds = GameDataset(SAMPLE)
    gaps = {}
    for alpha in (0.0, 2.0):
        out = tmp_path / f"cql-{alpha}.npz"
        fit_cql(ds, out, hidden=(32,), epochs=20, batch_size=32, alpha=alpha, seed=0)
        q, mask, action = _greedy_q(out, ds)
        taken = q[np.arange(len(q)), action]
        others = np.where(mask, q, 0.0)
        others[np.arange(len(q)), action] = 0.0
        unseen = others.sum(axis=1) / (mask.sum(axis=1) - 1)
        gaps[alpha] = float(np.mean(taken - unseen))
    # Without the term only the taken moves are fitted (to returns of +1 and -1, averaging
    # about 0) and the others keep their initial values; with it, the taken moves stand above
    # the legal moves not taken.
    assert gaps[2.0] > 0.3
    assert gaps[2.0] > gaps[0.0] + 0.2, gaps


def test_the_saved_policy_plays_its_greedy_legal_moves(tmp_path):
    ds = GameDataset(SAMPLE)
    out = tmp_path / "cql.npz"
    report = fit_cql(ds, out, hidden=(64,), epochs=30, batch_size=64, seed=0)
    arr = ds.arrays()
    choice = arr["action_mask"].sum(axis=1) > 1
    # 3 games: the first two are fitted, the last held out.
    assert report.train_decisions == int((choice & (arr["game_index"] < 2)).sum())
    assert report.valid_decisions == int((choice & (arr["game_index"] == 2)).sum())
    q, mask, _ = _greedy_q(out, ds)
    greedy = np.argmax(np.where(mask, q, -np.inf), axis=1)
    assert mask[np.arange(len(q)), greedy].all()  # the masked argmax is a legal move
    # jax:<path> plays exactly that argmax on the raw observations: its agreement with the
    # recorded moves on the fitted rows is the report's, to the last decision.
    env = raw_env_factory("rapa_nui")(num_players=2)
    agent = make_agent(f"jax:{out}", env.game, env.observer)
    rows = np.flatnonzero(choice)
    played = np.array([agent.act({"observation": arr["observation"][i],
                                  "action_mask": arr["action_mask"][i]}) for i in rows])
    assert (played == greedy).all()
    n = report.train_decisions
    assert np.mean(played[:n] == arr["action"][rows[:n]]) == report.train_accuracy
    _arrays, meta = load_policy(out)
    assert meta["train"]["alpha"] == 1.0 and meta["train"]["gamma"] == 1.0
    env.reset(seed=5)
    while not env.game_state.is_terminal():  # a whole game of legal moves
        env.step(choose_action(agent, env, env.agent_selection))


@pytest.mark.parametrize("kwargs, message", [
    ({"alpha": -1.0}, "alpha at least 0"),
    ({"gamma": 1.5}, r"gamma in \[0, 1\]"),
    ({"target_every": 0}, "target_every"),
    ({"hidden": ()}, "every hidden width"),
])
def test_bad_settings_are_refused_before_anything_is_written(tmp_path, kwargs, message):
    out = tmp_path / "cql.npz"
    with pytest.raises(ValueError, match=message):
        fit_cql(GameDataset(SAMPLE), out, **kwargs)
    assert not out.exists()


def test_the_baseline_command_names_cql_and_refuses_a_bad_method(tmp_path, capsys):
    from tabletop_gym.tasks.datasets.offline import offline_baseline

    res = offline_baseline("RapaNui-2p-SelfPlay-v0", "heuristic", 3, "RapaNui-2p-vsHeuristic-v0",
                           epochs=1, hidden=(8,), work=tmp_path, seeds=1, deals_per_seed=1,
                           method="cql", alpha=0.5, gamma=0.99)
    assert res["method"] == "discrete CQL" and "clone" not in res
    assert res["learner"]["alpha"] == 0.5 and res["learner"]["gamma"] == 0.99
    assert res["command"].endswith("--method cql --alpha 0.5 --gamma 0.99")
    assert res["score"]["task"]["games"] == 2  # 1 seed x 1 deal, from both seats
    assert (tmp_path / "cql.npz").is_file()
    with pytest.raises(ValueError, match="unknown method 'dqn'"):
        offline_baseline("RapaNui-2p-SelfPlay-v0", "heuristic", 3, "RapaNui-2p-vsHeuristic-v0",
                         work=tmp_path / "x", method="dqn")
    assert not (tmp_path / "x").exists()
    out = tmp_path / "r.json"
    assert main(["dataset", "baseline", "--source-task", "RapaNui-2p-SelfPlay-v0", "--policy",
                 "heuristic", "--games", "3", "--task", "RapaNui-2p-vsHeuristic-v0",
                 "--method", "cql", "--gamma", "2", "--out", str(out)]) == 2
    assert "gamma in [0, 1]" in capsys.readouterr().err
    assert not out.exists()
    json.dumps(res)  # the result is a JSON document
