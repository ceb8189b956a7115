"""One whole game of an AEC env with one agent in every seat, every move checked legal."""

from __future__ import annotations

from typing import Any


def play_legal_game(env: Any, agent: Any, seed: int) -> int:
    """Reset ``env`` with ``seed``, let ``agent`` move for every seat to the end; the moves made.

    Fails (AssertionError) at the first move its observation's mask does not allow.
    """
    env.reset(seed=seed)
    moves = 0
    for _name in env.agent_iter():
        obs, _r, term, trunc, _info = env.last()
        if term or trunc:
            env.step(None)
            continue
        action = agent.act(obs)
        assert obs["action_mask"][action], f"illegal action {action} at move {moves}"
        moves += 1
        env.step(action)
    return moves
