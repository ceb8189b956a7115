"""Golden playthroughs: a text record of a whole game through the AEC env, replayable exactly.

A playthrough pins the rules, the observation encoding, the masks and the rewards at once. The
file starts with a header (env, env kwargs, seed) and then, for every step, the agent, the phase,
the legal actions with their names, the acting agent's observation, a digest of every agent's
observation and the action taken. The observation is printed by the named slices of its layout
(after OpenSpiel's named tensors), as changes: an agent's first observation prints the non-zero
entries of every slice, each later one only the slices that changed since that agent's previous
step (``index:old→new``), and a slice the layout declares as a :class:`~.layout.Grid` prints as
a table with labelled rows and columns (its non-zero or changed rows). :func:`observations`
rebuilds every step's full observation from the changes. Replaying reads only the header and
the ``action:`` lines, plays those actions again and compares the regenerated text with the
file, character for character.

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

from tabletop_gym.core.layout import Grid
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


def _num(value: float) -> str:
    """``value`` as text that reads back exactly: whole numbers bare, others by ``repr``."""
    value = float(value)
    return str(int(value)) if value.is_integer() else repr(value)


def _cell(value: float) -> str:
    return "." if value == 0 else _num(value)


def _grid_lines(part: np.ndarray, grid: Grid, rows: list[int]) -> list[str]:
    """The header row of ``grid``'s column labels, then ``rows`` of ``part`` as a table."""
    table = part.reshape(grid.shape)
    cells = [[_cell(v) for v in table[r]] for r in rows]
    widths = [
        max([len(label), *(len(row[c]) for row in cells)])
        for c, label in enumerate(grid.columns)
    ]
    pad = max(len(grid.rows[r]) for r in rows)
    head = " ".join(label.rjust(w) for label, w in zip(grid.columns, widths, strict=True))
    out = [f"      {'':{pad}} {head}"]
    for r, row in zip(rows, cells, strict=True):
        body = " ".join(v.rjust(w) for v, w in zip(row, widths, strict=True))
        out.append(f"      {grid.rows[r]:{pad}} {body}")
    return out


def _changes(old: np.ndarray, new: np.ndarray, layout: ObservationLayout) -> list[str]:
    """The slices of ``new`` that differ from ``old``, one block per slice.

    ``old`` all zeros (an agent's first observation) prints the non-zero entries: a one-entry
    slice as ``round = 2``, a list as ``index:value`` with indices counted from the slice's
    start (``unseen_blocks[25] 2:1 3:1``), a :class:`Grid` slice as a table of its non-zero
    rows (``.`` for 0). Otherwise each changed slice prints ``round: 1 → 2``,
    ``general[6] 0:15→14`` (index:old→new), or the table of its changed rows with their new
    values.
    """
    first = not old.any()
    lines = []
    for s in layout.slices.values():
        was, now = old[s.start : s.stop], new[s.start : s.stop]
        idx = np.flatnonzero(was != now)
        if not len(idx):
            continue
        if s.grid is not None:
            rows = sorted({int(i) // s.grid.shape[1] for i in idx})
            lines.append(f"    {s.name}[{s.grid.shape[0]}x{s.grid.shape[1]}]")
            lines.extend(_grid_lines(now, s.grid, rows))
        elif s.size == 1:
            lines.append(
                f"    {s.name} = {_num(now[0])}"
                if first
                else f"    {s.name}: {_num(was[0])} → {_num(now[0])}"
            )
        elif first:
            lines.append(f"    {s.name}[{s.size}] " + " ".join(f"{i}:{_num(now[i])}" for i in idx))
        else:
            lines.append(
                f"    {s.name}[{s.size}] "
                + " ".join(f"{i}:{_num(was[i])}→{_num(now[i])}" for i in idx)
            )
    return lines


def _apply(lines: list[str], old: np.ndarray, layout: ObservationLayout) -> np.ndarray:
    """``old`` with the changes :func:`_changes` printed as ``lines`` (checks every old value)."""
    new = old.copy()
    k = 0
    while k < len(lines):
        head, _, rest = lines[k].strip().partition(" ")
        name = head.split("[")[0].rstrip(":")
        s = layout[name]
        k += 1
        if s.grid is not None:
            if head != f"{name}[{s.grid.shape[0]}x{s.grid.shape[1]}]" or rest:
                raise ValueError(f"bad grid header {lines[k - 1]!r}")
            if lines[k].split() != list(s.grid.columns):
                raise ValueError(f"bad column labels for {name}: {lines[k]!r}")
            k += 1
            width = s.grid.shape[1]
            while k < len(lines) and lines[k].startswith("      "):
                label, *cells = lines[k].split()
                r = s.grid.rows.index(label)
                if len(cells) != width:
                    raise ValueError(f"{name} row {label} has {len(cells)} cells, not {width}")
                at = s.start + r * width
                new[at : at + width] = [0.0 if v == "." else float(v) for v in cells]
                k += 1
        elif rest.startswith("= "):
            if s.size != 1 or old[s.start] != 0:
                raise ValueError(f"{name} = ... is a first value of a one-entry slice")
            new[s.start] = float(rest[2:])
        elif head.endswith(":"):
            was, _, now = rest.partition(" → ")
            if s.size != 1 or float(was) != old[s.start]:
                raise ValueError(f"{lines[k - 1]!r} does not follow the observation before")
            new[s.start] = float(now)
        else:
            if head != f"{name}[{s.size}]":
                raise ValueError(f"bad slice header {head!r}, expected {name}[{s.size}]")
            for item in rest.split():
                i, _, value = item.partition(":")
                was, arrow, now = value.partition("→")
                if arrow and float(was) != old[s.start + int(i)]:
                    raise ValueError(f"{name} {item} does not follow the observation before")
                new[s.start + int(i)] = float(now if arrow else was)
    return new


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
    layout = env.observer.layout
    # Each agent's last printed observation and its step: the next one prints what changed.
    seen: dict[str, tuple[np.ndarray, int]] = {}
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            lines.append(f"final {agent}: reward={reward:g} info_scores={info.get('scores')}")
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        lines.append(f"step {step}: {agent} phase={info['phase']}")
        lines.append("  legal: " + "; ".join(f"{a}={env.action_to_string(int(a))}" for a in legal))
        now = np.asarray(obs["observation"], dtype=np.float64)
        if agent in seen:
            before, when = seen[agent]
            changes = _changes(before, now, layout)
            what = "changes since" if changes else "unchanged since"
            lines.append(f"  observation of {agent} ({what} its step {when}):")
        else:
            changes = _changes(np.zeros_like(now), now, layout)
            lines.append(f"  observation of {agent} (first; its non-zero entries):")
        lines.extend(changes)
        seen[agent] = (now, step)
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


_STEP = re.compile(r"^step (\d+): (\S+) phase=")
_OBS = re.compile(r"^  observation of (\S+) \((first|changes since|unchanged since)")


def observations(text: str) -> list[tuple[int, str, np.ndarray]]:
    """Every step's observation of the acting agent, rebuilt in full from a playthrough's changes.

    Returns:
        ``(step, agent, observation)`` per step, the observation as float64 (exact for every
        observation dtype).

    Raises:
        ValueError: When the text is not a playthrough, or a change does not follow from the
            agent's observation before it.
    """
    env_name, kwargs, _, _ = parse(text)
    layout = _factory(env_name)(**kwargs).observer.layout
    last: dict[str, np.ndarray] = {}
    out: list[tuple[int, str, np.ndarray]] = []
    lines = text.splitlines()
    k = 0
    while k < len(lines):
        step = _STEP.match(lines[k])
        k += 1
        if not step:
            continue
        while not lines[k].startswith("  observation of "):
            k += 1
        head = _OBS.match(lines[k])
        agent = step.group(2)
        if not head or head.group(1) != agent:
            raise ValueError(f"step {step.group(1)}: bad observation line {lines[k]!r}")
        first = head.group(2) == "first"
        if first == (agent in last):
            raise ValueError(f"step {step.group(1)}: {agent}'s first observation is misplaced")
        k += 1
        block = []
        while lines[k].startswith("    "):
            block.append(lines[k])
            k += 1
        before = np.zeros(layout.size) if first else last[agent]
        last[agent] = _apply(block, before, layout)
        out.append((int(step.group(1)), agent, last[agent]))
    return out


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
