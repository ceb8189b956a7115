"""What a caller can see of an env, to check that a call which raised changed nothing."""

from __future__ import annotations

from typing import Any


def _record(raw: Any) -> str:
    try:
        rec = raw.record()
    except (ValueError, RuntimeError) as exc:
        return f"{type(exc).__name__}: {exc}"
    return rec.to_json() if hasattr(rec, "to_json") else repr(rec)


def _rng(raw: Any) -> str:
    gen = getattr(raw, "_np_random_gen", None)
    return repr(gen.bit_generator.state) if gen is not None else "unseeded"


def aec_snapshot(env: Any) -> tuple:
    """State, record, random stream, seats, agent to act and every agent's ``last()`` parts."""
    raw = env.unwrapped
    if raw.state_obj is None:
        return ("no game", _rng(raw))
    lasts = {}
    for agent in raw.agents:
        obs = raw.observe(agent)
        lasts[agent] = (
            obs["observation"].tobytes(), obs["action_mask"].tobytes(),
            raw._cumulative_rewards[agent], raw.rewards[agent], raw.terminations[agent],
            raw.truncations[agent], repr(raw.infos[agent]),
        )
    return (raw.game_state.to_json(), _record(raw), _rng(raw), raw.agent_selection,
            list(raw.agents), [raw.seat_of(a) for a in raw.possible_agents], lasts)


def parallel_snapshot(env: Any) -> tuple:
    """State, record, random stream and live agents of a parallel env."""
    if env.state_obj is None:
        return ("no game", _rng(env))
    return (env.game_state.to_json(), _record(env), _rng(env), list(env.agents))


def single_snapshot(env: Any) -> tuple:
    """The inner AEC env's snapshot plus the wrapper's own episode bookkeeping."""
    rng = repr(env.np_random.bit_generator.state) if env._np_random is not None else "unseeded"
    return (aec_snapshot(env.aec), rng, env._episode, env.learner_seat, env._done)
