"""The in-process SB3 vector env (``tabletop_gym.integrations.sb3``) against SB3's own.

Every test steps :func:`make_vec_env` side by side with SB3's ``make_vec_env(...,
vec_env_cls=DummyVecEnv)`` over ``gymnasium.make`` (the construction ``train()`` used before),
with the same seeded random masked actions, and compares everything the two hand out.
"""

from __future__ import annotations

import copy
import warnings

import gymnasium
import numpy as np
import pytest
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks
from stable_baselines3.common.env_util import make_vec_env as sb3_make_vec_env
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv

import tabletop_gym  # noqa: F401 - registers the ids
from tabletop_gym.integrations.sb3 import SingleAgentVecEnv, _strip, make_vec_env
from tabletop_gym.wrappers.single_agent import IllegalActionWarning, SingleAgentEnv

CASES = [
    ("Positano-v0", {}),
    ("RapaNui-v0", {"seat_mode": "rotate"}),  # train()'s RapaNui-v0 settings
    ("Positano-3p-vsHeuristic-v0", {}),
    ("RapaNui-v0", {"num_players": 3, "opponents": "random", "seat_mode": "random"}),
    ("Positano-v0", {"info_mode": "stable"}),
]


def both(env_id: str, kwargs: dict, n: int, seed: int | None, **extra):
    """SB3's DummyVecEnv over gymnasium.make, and ours, built the same way."""
    make_kwargs = {**kwargs, **extra}
    ref = sb3_make_vec_env(lambda: gymnasium.make(env_id, **make_kwargs), n_envs=n, seed=seed,
                           vec_env_cls=DummyVecEnv)
    fast = make_vec_env(env_id, n_envs=n, seed=seed, env_kwargs=kwargs, **extra)
    return ref, fast


def assert_same(x, y, path="info"):
    """Equal values, types and (for arrays) dtypes, recursively; ``episode["t"]`` is a clock."""
    assert type(x) is type(y), (path, type(x), type(y))
    if isinstance(x, dict):
        assert list(x) == list(y), (path, list(x), list(y))
        for k in x:
            if path.endswith("['episode']") and k == "t":
                continue
            assert_same(x[k], y[k], f"{path}[{k!r}]")
    elif isinstance(x, list | tuple):
        assert len(x) == len(y), path
        for i, (a, b) in enumerate(zip(x, y, strict=True)):
            assert_same(a, b, f"{path}[{i}]")
    elif isinstance(x, np.ndarray):
        assert x.dtype == y.dtype and x.shape == y.shape, path
        np.testing.assert_array_equal(x, y, err_msg=path)
    else:
        assert x == y, (path, x, y)


def assert_same_step(got_ref, got_fast) -> None:
    for name, a, b in zip(("obs", "rewards", "dones", "infos"), got_ref, got_fast, strict=True):
        assert_same(a, b, name)


def play_side_by_side(ref, fast, steps: int, seed: int) -> int:
    """Step both with the same random masked actions; every output equal. Episodes seen."""
    assert_same(ref.reset(), fast.reset(), "reset obs")
    assert_same(ref.reset_infos, fast.reset_infos, "reset_infos")
    rng = np.random.default_rng(seed)
    episodes = 0
    for _ in range(steps):
        masks = get_action_masks(ref)
        assert_same(masks, get_action_masks(fast), "masks")
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        got_ref, got_fast = ref.step(actions), fast.step(actions)
        assert_same_step(got_ref, got_fast)
        assert_same(ref.reset_infos, fast.reset_infos, "reset_infos")
        for info in got_fast[3]:
            if "episode" in info:
                episodes += 1
                assert info["terminal_observation"].shape == fast.observation_space.shape
    return episodes


@pytest.mark.parametrize("seed", [0, 7, 1234])
@pytest.mark.parametrize(("env_id", "kwargs"), CASES, ids=[f"{e}-{k}" for e, k in CASES])
def test_same_steps_as_dummy_vec_env_over_gymnasium_make(env_id, kwargs, seed):
    ref, fast = both(env_id, kwargs, n=4, seed=seed)
    assert fast.observation_space == ref.observation_space
    assert fast.action_space == ref.action_space
    episodes = play_side_by_side(ref, fast, steps=160, seed=seed)
    # Enough whole games that resets, terminal observations and episode statistics are covered.
    assert episodes >= 4


def test_seed_reseeds_the_next_reset_as_sb3_does():
    ref, fast = both("Positano-v0", {}, n=3, seed=0)
    play_side_by_side(ref, fast, steps=30, seed=0)
    assert ref.seed(99) == fast.seed(99) == [99, 100, 101]
    play_side_by_side(ref, fast, steps=30, seed=1)


def test_a_time_limit_truncates_as_gymnasiums_time_limit():
    ref, fast = both("RapaNui-v0", {}, n=2, seed=5, max_episode_steps=4)
    assert fast.max_episode_steps == 4
    play_side_by_side(ref, fast, steps=12, seed=5)
    ref.reset()
    fast.reset()
    for _ in range(3):
        masks = get_action_masks(fast)
        got = fast.step(np.array([np.flatnonzero(m)[0] for m in masks]))
        assert not got[2].any()
    masks = get_action_masks(fast)
    obs, rewards, dones, infos = fast.step(np.array([np.flatnonzero(m)[0] for m in masks]))
    # The 4th step of a game no game finishes in 4 steps: truncated, not terminated.
    assert dones.tolist() == [True, True]
    assert [i["TimeLimit.truncated"] for i in infos] == [True, True]
    assert [i["episode"]["l"] for i in infos] == [4, 4]
    assert [i["episode"]["r"] for i in infos] == [0.0, 0.0]


def test_an_illegal_action_is_handled_as_the_single_agent_env_handles_it():
    ref, fast = both("RapaNui-v0", {}, n=2, seed=3)
    ref.reset()
    fast.reset()
    masks = get_action_masks(fast)
    illegal = int(np.flatnonzero(~masks[0])[0])
    actions = np.array([illegal, int(np.flatnonzero(masks[1])[0])])
    for vec in (ref, fast):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = vec.step(actions)
        assert [w.category for w in caught] == [IllegalActionWarning]
        vec.result = got  # type: ignore[attr-defined]
    assert_same_step(ref.result, fast.result)  # type: ignore[attr-defined]
    obs, rewards, dones, infos = fast.result  # type: ignore[attr-defined]
    assert rewards[0] == -1.0 and dones[0] and not dones[1]
    assert infos[0]["illegal_action"]["action"] == illegal
    assert infos[0]["episode"] == {"r": -1.0, "l": 1, "t": infos[0]["episode"]["t"]}
    # Auto-reset: the env plays on, and its next batch matches SB3's too.
    play_side_by_side(ref, fast, steps=20, seed=3)


@pytest.mark.parametrize("info_mode", ["full", "stable"])
def test_infos_handed_out_never_change_afterwards(info_mode):
    # Why the per-step deep copy of DummyVecEnv can go: every info (and what is in it) is new
    # for its step or final, or read-only, so one held across later steps and resets stays as
    # it was.
    fast = make_vec_env("RapaNui-v0", n_envs=3, seed=11,
                        env_kwargs={"seat_mode": "rotate", "info_mode": info_mode})
    fast.reset()
    rng = np.random.default_rng(11)
    held: list[tuple[dict, dict]] = []
    ended = 0
    for _ in range(250):
        masks = fast.action_masks()
        _, _, dones, infos = fast.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        ended += int(dones.sum())
        held += [(info, copy.deepcopy(info)) for info in infos]
    assert ended >= 3
    for info, snapshot in held:
        assert_same(info, snapshot)
        for value in info.values():
            if isinstance(value, np.ndarray) and value.flags.writeable:
                # A writable array in an info is that info's own: no other info holds it.
                assert sum(v is value for i, _ in held for v in i.values()) == 1


def test_observations_and_masks_are_fresh_arrays_each_call():
    fast = make_vec_env("Positano-v0", n_envs=2, seed=0)
    obs = fast.reset()
    masks = fast.env_method("action_masks")
    obs[:] = -1
    for m in masks:
        m[:] = False
    # Writing into what was handed out changes nothing inside.
    assert fast.action_masks().any(axis=1).all()
    obs2, *_ = fast.step(np.array([np.flatnonzero(m)[0] for m in fast.action_masks()]))
    assert (obs2 >= 0).all()
    assert obs2 is not fast.step(np.array([np.flatnonzero(m)[0] for m in fast.action_masks()]))[0]


def test_maskable_ppo_learns_identically_on_both():
    # train()'s learner on either vector env, same seed: the same rollouts, so the same weights
    # and the same episode statistics in its info buffer.
    models = []
    for vec in both("Positano-v0", {}, n=4, seed=0):
        model = MaskablePPO("MlpPolicy", vec, n_steps=64, batch_size=64, n_epochs=2, seed=0,
                            device="cpu")
        model.learn(512)
        models.append(model)
    ref, fast = models
    for (name, a), (_, b) in zip(ref.policy.state_dict().items(),
                                 fast.policy.state_dict().items(), strict=True):
        assert np.array_equal(a.numpy(), b.numpy()), name
    assert len(ref.ep_info_buffer) > 0
    assert [(e["r"], e["l"]) for e in ref.ep_info_buffer] == \
        [(e["r"], e["l"]) for e in fast.ep_info_buffer]


def test_vec_env_methods_reach_the_envs():
    fast = make_vec_env("RapaNui-v0", n_envs=3, seed=0)
    assert all(isinstance(e, SingleAgentEnv) for e in fast.envs)
    assert fast.env_is_wrapped(Monitor) == [True, True, True]
    assert fast.env_is_wrapped(gymnasium.wrappers.TimeLimit, indices=[1]) == [True]
    assert fast.env_is_wrapped(gymnasium.wrappers.RecordEpisodeStatistics) == [False] * 3
    assert fast.has_attr("action_masks")
    fast.env_method("set_opponents", "random", indices=[0, 2])
    assert fast.get_attr("_opponent_specs") == [["random"], ["heuristic"], ["random"]]
    fast.set_attr("seat_mode", "rotate", indices=1)
    assert fast.get_attr("seat_mode") == ["fixed", "rotate", "fixed"]
    fast.reset()
    assert fast.env_method("action_masks", indices=[2])[0].dtype == bool
    assert fast.get_images() == [None, None, None]


@pytest.mark.parametrize("shape", [(3,), (2, 2), (2, 1, 1), ()])
def test_a_wrong_action_batch_shape_is_refused_naming_the_shape(shape):
    fast = make_vec_env("Positano-v0", n_envs=2, seed=0)
    fast.reset()
    with pytest.raises(ValueError, match=r"actions must have shape \(2,\).*got shape"):
        fast.step_async(np.zeros(shape, dtype=np.int64))
    # Nothing was stored: there is no pending step.
    with pytest.raises(RuntimeError, match="call step_async"):
        fast.step_wait()
    # A column of actions, as some callers pass, is accepted.
    fast.step(np.array([[int(np.flatnonzero(m)[0])] for m in fast.action_masks()]))


def test_non_integer_actions_are_refused_by_the_env_as_always():
    fast = make_vec_env("Positano-v0", n_envs=2, seed=0)
    fast.reset()
    with pytest.raises(ValueError, match="outside the action space"):
        fast.step(np.array([0.5, 1.0]))


def test_stepping_before_reset_says_reset_first():
    fast = make_vec_env("Positano-v0", n_envs=2, seed=0)
    with pytest.raises(RuntimeError, match=r"call reset\(\) before stepping"):
        fast.step(np.array([0, 0]))


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"n_envs": 0}, ValueError, "n_envs must be a positive int"),
    ({"n_envs": 2.0}, ValueError, "n_envs must be a positive int"),
    ({"seed": "0"}, ValueError, "seed must be an int or None"),
    ({"env_kwargs": {"observation_type": "dict"}}, ValueError, "flat Box observation only"),
    ({"env_kwargs": {"oponents": "random"}}, TypeError, "opponents"),
])
def test_bad_arguments_are_refused_with_a_reason(kwargs, error, match):
    with pytest.raises(error, match=match):
        make_vec_env("RapaNui-v0", **{"n_envs": 2, **kwargs})


def test_only_our_single_agent_envs_are_accepted():
    with pytest.raises(TypeError, match="not a tabletop_gym SingleAgentEnv"):
        make_vec_env("CartPole-v1", n_envs=2)
    with pytest.raises(TypeError, match="RecordEpisodeStatistics, whose behaviour"):
        # A wrapper other than gymnasium.make's own would be dropped: refused.
        _strip(gymnasium.wrappers.RecordEpisodeStatistics(gymnasium.make("Positano-v0")),
               "Positano-v0")
    env = make_vec_env("Positano-v0", n_envs=1).envs[0]
    with pytest.raises(ValueError, match="more than once"):
        SingleAgentVecEnv([env, env])
    with pytest.raises(ValueError, match="at least one env"):
        SingleAgentVecEnv([])
    with pytest.raises(TypeError, match="must be a tabletop_gym SingleAgentEnv"):
        SingleAgentVecEnv([gymnasium.make("Positano-v0")])
    with pytest.raises(ValueError, match="max_episode_steps must be a positive int"):
        SingleAgentVecEnv([env], max_episode_steps=0)
    other = make_vec_env("RapaNui-v0", n_envs=1).envs[0]
    with pytest.raises(ValueError, match="same observation and action spaces"):
        SingleAgentVecEnv([env, other])



def test_masks_follow_every_change_of_an_env_however_it_is_made():
    # The batch keeps each env's last (read-only) mask array and converts a row only when the
    # env hands out another one: asked twice per step (MaskablePPO and a hint wrapper), after
    # an env is stepped or reset directly, and at an episode's end, every row equals that
    # env's own action_masks().
    fast = make_vec_env("RapaNui-v0", n_envs=3, seed=2, env_kwargs={"seat_mode": "rotate"})
    fast.reset()
    rng = np.random.default_rng(2)

    def check():
        got = fast.action_masks()
        for i, env in enumerate(fast.envs):
            np.testing.assert_array_equal(got[i], env.action_masks())
        return got

    ended = 0
    for step in range(300):
        check()
        masks = check()
        if step % 50 == 25:
            # Stepped outside the vector env: the next batch still follows it.
            env = fast.envs[1]
            _, _, done, _, _ = env.step(int(rng.choice(np.flatnonzero(masks[1]))))
            if done:
                env.reset()
            masks = check()
        if step % 70 == 35:
            fast.envs[2].reset(seed=step)
            masks = check()
        _, _, dones, _ = fast.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        ended += int(dones.sum())
    assert ended >= 3
