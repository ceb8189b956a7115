"""The JAX trainer: who chooses each seat's move, what enters the loss, checkpoints as numpy agents,
and ``tabletop-gym train --backend jax`` on a tiny config.

Rapa Nui's turn order (docs/rules/rapa_nui.md §3) decides which seat is to move; a game ends as
docs/rules/rapa_nui.md §6 says, scored win_loss.
"""

from __future__ import annotations

import contextlib
import csv
import json
import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from tabletop_gym import cli
from tabletop_gym.agents.jax_policy import FORMAT, JaxPolicyAgent, load_policy, save_policy
from tabletop_gym.agents.kinds import make_agent
from tabletop_gym.arena.envs import raw_env_factory
from tabletop_gym.arena.evaluation import evaluate
from tabletop_gym.jax.core import make
from tabletop_gym.jax.train import (
    TrainConfig,
    Trainer,
    policy_logits,
    save_checkpoint,
)
from tests.legal_play import play_legal_game

GAME = make("rapa_nui", num_players=2)
TRAIN, EVAL = 6, 2  # training games and games against random per seed


def biased(params, sign):
    """The network with the actor's output replaced by logits ``sign * 100 * id``: it plays the
    lowest legal id (sign −1) or the highest (+1), whatever it sees."""
    actor = dict(params["params"]["actor"])
    n = actor["out"]["bias"].shape[-1]
    actor["out"] = {"kernel": jnp.zeros_like(actor["out"]["kernel"]),
                    "bias": sign * 100.0 * jnp.arange(n, dtype=jnp.float32)}
    return {"params": {**params["params"], "actor": actor}}


def rollout(mode, steps=40):
    t = Trainer(GAME, TrainConfig(num_envs=TRAIN, num_steps=steps, minibatches=2,
                                  eval_envs=EVAL, opponents=mode))
    r = jax.jit(t.init)(jax.random.PRNGKey(11))
    r = r._replace(params=biased(r.params, -1.0),
                   pool=jax.tree.map(lambda x: jnp.broadcast_to(x, (4, *x.shape)),
                                     biased(r.params, +1.0)))
    _, (traj, _) = jax.jit(lambda r: jax.lax.scan(t._step, r, None, steps))(r)
    traj = jax.device_get(traj)
    mask = traj.action_mask
    lowest = mask.argmax(-1)
    highest = mask.shape[-1] - 1 - mask[..., ::-1].argmax(-1)
    choice = mask.sum(-1) > 1
    return t, r, traj, lowest, highest, choice


@pytest.fixture(scope="module")
def pool_rollout():
    return rollout("pool")


def test_pool_opponents_choose_every_non_learner_move_of_the_training_games(pool_rollout):
    _, _, traj, lowest, highest, choice = pool_rollout
    train = np.zeros(traj.action.shape, bool)
    train[:, :TRAIN] = True
    learner = traj.in_loss
    assert learner.any() and (train & ~learner).any()
    assert not learner[:, TRAIN:].any()  # the games against random never enter the loss
    # Learner decisions: the learner's pick; the other seats: the snapshot's pick.
    assert (traj.action[learner] == lowest[learner]).all()
    other = train & ~learner
    assert (traj.action[other] == highest[other]).all()
    assert (lowest != highest)[other].any()  # the two picks really differ somewhere
    # In each training game one seat is the learner's, and it never changes mid-game.
    for b in range(TRAIN):
        start = 0
        for t in [*np.flatnonzero(traj.done[:, b]), traj.done.shape[0] - 1]:
            seats = set(traj.player[start:t + 1, b][learner[start:t + 1, b]].tolist())
            others = set(traj.player[start:t + 1, b][~learner[start:t + 1, b]].tolist())
            assert len(seats) <= 1 and not seats & others
            start = t + 1
    # The games against random: the learner's seat plays its pick, the other seat is random.
    ev = np.zeros_like(train)
    ev[:, TRAIN:] = True
    random_moves = ev & (traj.action != lowest) & choice
    assert random_moves.any()


def test_self_play_makes_every_seat_the_learner():
    _, _, traj, lowest, _, _ = rollout("self", steps=20)
    assert traj.in_loss[:, :TRAIN].all() and not traj.in_loss[:, TRAIN:].any()
    assert (traj.action[:, :TRAIN] == lowest[:, :TRAIN]).all()
    assert set(np.unique(traj.player[:, :TRAIN]).tolist()) == {0, 1}


def test_random_opponents_play_uniformly_not_the_learner_or_the_pool():
    _, _, traj, lowest, highest, choice = rollout("random")
    learner = traj.in_loss
    other = np.zeros_like(learner)
    other[:, :TRAIN] = True
    other &= ~learner & choice
    assert (traj.action[learner] == lowest[learner]).all()
    n = other.sum()
    assert n >= 20
    # Uniform among at least 2 legal ids: neither extreme is chosen every time.
    assert (traj.action[other] == lowest[other]).mean() < 0.9
    assert (traj.action[other] == highest[other]).mean() < 0.9


def test_only_learner_decisions_enter_the_loss(pool_rollout):
    t, r, traj, _, _, _ = pool_rollout
    flat = jax.tree.map(lambda x: jnp.asarray(x[:, :TRAIN].reshape((-1, *x.shape[2:]))), traj)
    rng = np.random.default_rng(0)
    adv = jnp.asarray(rng.normal(size=flat.action.shape), jnp.float32)
    targets = jnp.asarray(rng.normal(size=flat.action.shape), jnp.float32)
    params = jax.tree.map(lambda x: x + 0.01, r.params)
    grad = jax.jit(jax.value_and_grad(t._loss, has_aux=True))
    (loss, _), g = grad(params, flat, adv, targets)
    other = ~np.asarray(flat.in_loss)
    # Change everything about the non-learner rows: their actions, old log-probs, values,
    # advantages and targets.
    changed = flat._replace(
        action=jnp.where(other, (flat.action + 1) % GAME.num_actions, flat.action),
        log_prob=jnp.where(other, flat.log_prob - 3.0, flat.log_prob),
        value=jnp.where(other, flat.value + 5.0, flat.value),
    )
    (loss2, _), g2 = grad(params, changed, jnp.where(other, adv * 7 + 1, adv),
                          jnp.where(other, targets - 4, targets))
    assert float(loss) == pytest.approx(float(loss2), abs=1e-6)
    for a, b in zip(jax.tree.leaves(g), jax.tree.leaves(g2), strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), atol=1e-6)
    # ... while changing a learner row does change it.
    mine = np.asarray(flat.in_loss)
    (loss3, _), _ = grad(params, flat, jnp.where(mine, adv + 1.0, adv), targets + 1.0)
    assert float(loss3) != pytest.approx(float(loss), abs=1e-6)


def test_numpy_agent_plays_exactly_the_jax_policys_actions(tmp_path):
    t = Trainer(GAME, TrainConfig(hidden=(32, 16)))
    params = t.init_params(jax.random.PRNGKey(5))
    keys = iter(jax.random.split(jax.random.PRNGKey(6), 16))
    # Larger weights than the init's, so the logits spread and the argmax means something.
    params = jax.tree.map(lambda x: jax.random.normal(next(keys), x.shape) * 0.5, params)
    path = save_checkpoint(tmp_path / "p.npz", t, params, seed=5, learner_steps=0, iterations=0)
    arrays, meta = load_policy(path)
    assert meta["format"] == FORMAT and meta["version"] == 1
    assert meta["game"] == "rapa_nui" and meta["num_players"] == 2
    assert meta["hidden"] == [32, 16] and meta["activation"] == "tanh"
    assert meta["observation_size"] == 213 and meta["num_actions"] == 45
    # The cores it could use: XLA's float rounding, so the weights to the bit, depend on them.
    assert meta["train_cpus"] == len(os.sched_getaffinity(0))
    assert meta["provenance"]["package"] == "tabletop-gym" and "jax" in meta["provenance"][
        "jax_libraries"]
    assert all(a.dtype == np.float32 for a in arrays.values())
    assert "actor/hidden_1/kernel" in arrays and "critic/out/bias" in arrays

    env = raw_env_factory("rapa_nui")(num_players=2)
    agent = make_agent(f"jax:{path}", env.game, env.observer)
    assert isinstance(agent, JaxPolicyAgent)
    logits = jax.jit(lambda o, m: policy_logits(t, params, o, m))
    env.reset(seed=3)
    rng = np.random.default_rng(1)
    chosen = []
    while not env.game_state.is_terminal() and len(chosen) < 120:
        obs = env.observe(env.agent_selection)
        jax_pick = int(jnp.argmax(logits(jnp.asarray(obs["observation"])[None],
                                         jnp.asarray(obs["action_mask"], bool)[None])[0]))
        assert agent.act(obs) == jax_pick
        chosen.append(jax_pick)
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert len(set(chosen)) >= 5
    res = evaluate("rapa_nui", f"jax:{path}", "random", n_games=2, seed=0, num_players=2)
    assert res.n_games == 2 and res.candidate == f"jax:{path}"


def test_jax_agent_spec_errors(tmp_path):
    env3 = raw_env_factory("rapa_nui")(num_players=3)
    t = Trainer(GAME, TrainConfig(hidden=(8,)))
    path = save_checkpoint(tmp_path / "p.npz", t, t.init_params(jax.random.PRNGKey(0)),
                           seed=0, learner_steps=0, iterations=0)
    with pytest.raises(ValueError, match="num_players 2, not 3"):
        make_agent(f"jax:{path}", env3.game, env3.observer)
    with pytest.raises(ValueError, match="not found"):
        make_agent(f"jax:{tmp_path / 'missing.npz'}", env3.game, env3.observer)
    np.savez(tmp_path / "other.npz", w=np.zeros(3))
    with pytest.raises(ValueError, match="metadata"):
        make_agent(f"jax:{tmp_path / 'other.npz'}", env3.game, env3.observer)
    arrays, meta = load_policy(path)
    meta = {k: v for k, v in meta.items() if k not in ("format", "version")}
    with pytest.raises(ValueError, match="own entry"):
        save_policy(tmp_path / "x.npz", {"metadata": np.zeros(1)}, meta)


@pytest.mark.parametrize(("argv", "message"), [
    (["--opponents", "heuristic"], "invalid choice: 'heuristic'"),
    (["--seeds", "0"], "--seeds must be at least 1"),
    (["--minutes", "0"], "--minutes must be positive"),
    (["--minutes", "1", "--timesteps", "5"], "not both"),
    (["--hp", "gamma=2"], "gamma must lie in [0, 1]"),
    (["--hp", "num_envs=6", "minibatches=4", "num_steps=3"], "minibatches=4 must divide"),
    (["--hp", "learning_rate=1"], "unknown PPO setting(s) ['learning_rate']"),
    (["--hp", "hidden=[]"], "hidden must be a non-empty list"),
    (["--game", "chess"], "unknown game 'chess'"),
    (["--players", "9"], "num_players"),
    (["--set", "reward_type=points"], "reward_type"),
    (["--env", "RapaNui-v0"], "--env is not a flag of --backend jax"),
    (["--iterations", "3"], "--iterations is not a flag of --backend jax"),
])
def test_jax_backend_refuses_bad_flags_before_compiling_or_writing(argv, message, tmp_path,
                                                                   capsys):
    out = tmp_path / "runs"
    with pytest.raises(SystemExit) if "invalid choice" in message else contextlib.nullcontext():
        code = cli.main(["train", "--backend", "jax", "--out", str(out), *argv])
        assert code == 2
    assert message in capsys.readouterr().err
    assert not out.exists()


def test_other_backends_refuse_the_jax_flags(capsys):
    assert cli.main(["train", "--game", "rapa_nui"]) == 2
    assert "--game is a flag of --backend jax" in capsys.readouterr().err
    assert cli.main(["train", "--backend", "rllib", "--seeds", "2"]) == 2
    assert "--seeds is a flag of --backend jax" in capsys.readouterr().err


def test_tiny_training_run_logs_checkpoints_and_evaluates(tmp_path, capsys):
    code = cli.main([
        "train", "--backend", "jax", "--game", "rapa_nui", "--players", "2",
        "--opponents", "pool", "--seeds", "2", "--timesteps", "100", "--eval-games", "2",
        "--out", str(tmp_path), "--hp", "num_envs=8", "num_steps=8", "epochs=1",
        "minibatches=2", "eval_envs=2", "pool_every=1", "pool_size=2", "hidden=[16]",
    ])
    assert code == 0
    printed = capsys.readouterr().out
    run = tmp_path / "jax_rapa_nui_2p_pool_seed0"
    summary = json.loads((run / "run.json").read_text())
    # 8 games × 8 steps: about 32 learner decisions per iteration (one seat of two), so 100
    # learner steps per seed take a few iterations.
    iterations = summary["iterations"]
    assert iterations >= 2 and min(summary["learner_steps_per_seed"]) >= 100
    with (run / "log.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 2 * iterations and {r["seed"] for r in rows} == {"0", "1"}
    assert all(int(r["learner_steps"]) > 0 for r in rows)
    assert len(rows[-1]["pool_win_rates"].split(";")) == 2
    for k in (0, 1):
        _, meta = load_policy(run / f"seed_{k}.npz")
        assert meta["seed_index"] == k and meta["train"]["opponents"] == "pool"
        assert meta["hidden"] == [16] and meta["provenance"]["commit"] is not None
    assert [r["opponent"] for r in summary["evaluation"]] == ["heuristic", "random"]
    assert all(r["games"] == 2 for r in summary["evaluation"])
    assert "win rate [95% CI]" in printed and "learner steps/seed" in printed
    assert (run / "eval.csv").exists()


def test_a_positano_policy_plays_in_the_turn_based_env(tmp_path):
    # Positano's AEC env takes the simultaneous bids one seat at a time and appends the seat's
    # commitment slices to the reference observer's vector; the policy reads the reference part,
    # which is the batched engine's observation.
    game = make("positano", num_players=2)
    trainer = Trainer(game, TrainConfig(hidden=(8,)))
    path = save_checkpoint(tmp_path / "p.npz", trainer, trainer.init_params(jax.random.PRNGKey(0)),
                           seed=0, learner_steps=0, iterations=0)
    env = raw_env_factory("positano")(num_players=2)
    assert env.observer.size > game.observation_size
    agent = make_agent(f"jax:{path}", env.game, env.observer)
    assert agent.input_size == game.observation_size
    moves = play_legal_game(env, agent, seed=3)
    assert moves > 20 and env.game_state.is_terminal()


def test_the_trainers_progress_lines_reach_a_pipe_while_it_trains(tmp_path):
    # Issue 39 item 9: the progress went through a plain print, held in the buffer of a log file
    # or pipe until the run ended. The child is held at its second iteration's log rows, after
    # the first progress line (tests/live_output.py).
    from tests.live_output import first_line_while_running

    first, rest = first_line_while_running(f"""
hold_call("tabletop_gym.jax.train", "_rows", 2)
from tabletop_gym.jax.train import TrainConfig, train
train("rapa_nui", 2, config=TrainConfig(num_envs=8, num_steps=8, epochs=1, minibatches=1,
                                        hidden=(8,)),
      timesteps=100, eval_games=0, out={str(tmp_path)!r})
""")
    assert first.startswith("iter     1 ") and "learner steps/seed" in first
    assert (tmp_path / "jax_rapa_nui_2p_self_seed0" / "policy.npz").is_file()
