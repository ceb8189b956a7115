"""Golden playthroughs: a text record of a whole game through the AEC env, replayable exactly.

A playthrough pins the rules, the observation encoding, the masks and the rewards at once. The
file starts with a header (env, env kwargs, seed) and then, for every step, the agent, the phase,
the legal actions with their names, the acting agent's observation (the non-zero entries of each
named slice of its layout, after OpenSpiel's named tensors), a digest of every agent's
observation, the rewards and the action taken. Replaying reads only the header and the
``action:`` lines, plays those actions again and compares the regenerated text with the file,
character for character.

Generate on purpose only (the rules or the encoding changed, and the env version was bumped):
``make playthroughs``.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from tabletop_gym.core.observer import ObservationLayout
from tabletop_gym.registry import game_spec, game_specs

HEADER = "# tabletop-gym golden playthrough (regenerate on purpose only: make playthroughs)"

def _factory(env_name: str) -> Callable[..., Any]:
    known = [spec.env_name for spec in game_specs()]
    if env_name not in known:
        raise ValueError(f"unknown env {env_name!r}; known: {sorted(known)}")
    factory: Callable[..., Any] = game_spec(env_name).envs().raw_env
    return factory


def _digest(arr: np.ndarray) -> str:
    return hashlib.sha256(arr.tobytes()).hexdigest()[:16]


def _named(vec: np.ndarray, layout: ObservationLayout) -> list[str]:
    """The non-zero entries of ``vec``, one line per named slice that has any.

    A one-entry slice prints its value (``round = 2``); a longer one its non-zero entries as
    ``index:value`` with indices counted from the slice's start (``cliff_height[25] 6:2 11:3``),
    so a golden diff names the part of the observation that changed.
    """
    lines = []
    for name, part in layout.view(vec).items():
        idx = np.flatnonzero(part)
        if not len(idx):
            continue
        if part.size == 1:
            lines.append(f"    {name} = {float(part[0]):g}")
        else:
            values = " ".join(f"{i}:{float(part[i]):g}" for i in idx)
            lines.append(f"    {name}[{part.size}] {values}")
    return lines


def generate(
    env_name: str,
    env_kwargs: dict[str, Any],
    seed: int,
    actions: list[int] | None = None,
) -> str:
    """Play a game and return its playthrough text.

    Args:
        env_name: A registered game's env name (``"rapa_nui_v0"``, ``"positano_v0"``).
        env_kwargs: Keyword arguments of ``raw_env`` (config switches, ``split_bids``).
        seed: ``reset`` seed; with ``actions=None`` it also seeds the uniform random policy
            (``numpy.random.default_rng(seed)``) that picks the actions.
        actions: Actions to replay instead of the random policy.
    """
    env = _factory(env_name)(render_mode="ansi", **env_kwargs)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    lines = [
        HEADER,
        f"env: {env_name}",
        f"env_kwargs: {json.dumps(env_kwargs, sort_keys=True)}",
        f"seed: {seed}",
        f"observation_size: {env.observer.size}",
        f"num_actions: {env.game.num_distinct_actions}",
        "initial table:",
        *("  | " + line for line in env.render().splitlines()),
    ]
    step = 0
    todo = iter(actions) if actions is not None else None
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            lines.append(f"final {agent}: reward={reward:g} info_scores={info.get('scores')}")
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        lines.append(f"step {step}: {agent} phase={info['phase']}")
        lines.append("  legal: " + "; ".join(f"{a}={env.action_to_string(int(a))}" for a in legal))
        lines.append("  observation:")
        lines.extend(_named(obs["observation"], env.observer.layout))
        digests = " ".join(
            f"{a}={_digest(env.observe(a)['observation'])}" for a in env.possible_agents
        )
        lines.append("  digests: " + digests)
        if todo is None:
            action = int(rng.choice(legal))
        else:
            try:
                action = int(next(todo))
            except StopIteration:
                raise ValueError("the playthrough ran out of actions before the end") from None
        lines.append(f"action: {action}  # {env.action_to_string(action)}")
        env.step(action)
        step += 1
    lines.append("final table:")
    lines.extend("  | " + line for line in type(env).renderer(env.game_state, None).splitlines())
    lines.append(f"returns: {env.game_state.returns()}")
    lines.append(f"scores: {env.game_state.scores()}")
    return "\n".join(lines) + "\n"


def parse(text: str) -> tuple[str, dict[str, Any], int, list[int]]:
    """Read the header and the actions of a playthrough."""
    env_name = re.search(r"^env: (.+)$", text, re.M)
    kwargs = re.search(r"^env_kwargs: (.+)$", text, re.M)
    seed = re.search(r"^seed: (-?\d+)$", text, re.M)
    if not (env_name and kwargs and seed):
        raise ValueError("not a playthrough: the env, env_kwargs or seed line is missing")
    actions = [int(m) for m in re.findall(r"^action: (\d+)", text, re.M)]
    return env_name.group(1), json.loads(kwargs.group(1)), int(seed.group(1)), actions


def replay(text: str) -> str:
    """Regenerate a playthrough from its header and actions (compare with the original)."""
    env_name, kwargs, seed, actions = parse(text)
    return generate(env_name, kwargs, seed, actions)


def iter_diff(expected: str, actual: str) -> Iterator[str]:
    """Unified diff lines between two playthrough texts (for readable test failures)."""
    import difflib

    return difflib.unified_diff(
        expected.splitlines(), actual.splitlines(), "golden", "replayed", lineterm="", n=2
    )
