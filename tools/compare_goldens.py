"""Check the golden playthroughs against an earlier revision's, value by value.

``python tools/compare_goldens.py [REV]`` (``REV`` defaults to ``main``) reads every golden file
of ``tests/playthroughs/`` as it is now and as ``git show REV:...`` has it, decodes both and
compares everything they record: the header, the initial and final tables, and per step the
agent, the phase, the legal actions with their names, the acting agent's full observation, every
agent's digest and the action; then the final lines, returns and scores. The current files are
decoded with :func:`tabletop_gym.core.playthrough.observations` (each step's observation rebuilt
from the printed changes). ``REV``'s files may be in either format: the whole-dump format (every
step prints the non-zero entries of every slice, ``name[size] index:value``) or the current one.
It exits 1 and names the first difference of each file that differs.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script from a source checkout
    sys.path.insert(0, str(ROOT))

from tabletop_gym.core.playthrough import _factory, observations, parse  # noqa: E402

GOLDENS = ROOT / "tests" / "playthroughs"
_STEP = re.compile(r"^step (\d+): (\S+) phase=")


def _dump_observations(text: str) -> list[tuple[int, str, np.ndarray]]:
    """Each step's observation from the whole-dump format (non-zero entries of every slice)."""
    env_name, kwargs, _, _ = parse(text)
    layout = _factory(env_name)(**kwargs).observer.layout
    out = []
    lines = text.splitlines()
    for k, line in enumerate(lines):
        step = _STEP.match(line)
        if not step:
            continue
        j = k + 1
        while lines[j] != "  observation:":
            j += 1
        vec = np.zeros(layout.size)
        j += 1
        while lines[j].startswith("    "):
            head, _, rest = lines[j].strip().partition(" ")
            part = layout[head.split("[")[0]]
            if rest.startswith("= "):
                vec[part.start] = float(rest[2:])
            else:
                if head != f"{part.name}[{part.size}]":
                    raise ValueError(f"bad slice header {head!r}")
                for item in rest.split():
                    i, v = item.split(":")
                    vec[part.start + int(i)] = float(v)
            j += 1
        out.append((int(step.group(1)), step.group(2), vec))
    return out


def _other_lines(text: str) -> list[str]:
    """Every line that is not part of an observation block (the rest is compared as text)."""
    keep = []
    in_obs = False
    for line in text.splitlines():
        if line.startswith("  observation"):
            in_obs = True
            continue
        if in_obs and line.startswith("    "):
            continue
        in_obs = False
        keep.append(line)
    return keep


def decode(text: str) -> tuple[list[str], list[tuple[int, str, np.ndarray]]]:
    """The non-observation lines and every step's full observation, from either format."""
    dump = "\n  observation:\n" in text
    return _other_lines(text), (_dump_observations(text) if dump else observations(text))


def compare(old: str, new: str) -> str | None:
    """The first difference between two playthroughs of the same game, or ``None``."""
    old_lines, old_obs = decode(old)
    new_lines, new_obs = decode(new)
    if len(old_lines) != len(new_lines):
        return f"{len(old_lines)} lines outside the observations, now {len(new_lines)}"
    for k, (was, now) in enumerate(zip(old_lines, new_lines, strict=True)):
        if was != now:
            return f"line {k} outside the observations: {was!r} is now {now!r}"
    if len(old_obs) != len(new_obs):
        return f"{len(old_obs)} observed steps, now {len(new_obs)}"
    for (step, agent, a), (step2, agent2, b) in zip(old_obs, new_obs, strict=True):
        if (step, agent) != (step2, agent2):
            return f"step {step} of {agent} is now step {step2} of {agent2}"
        bad = np.flatnonzero(a != b)
        if len(bad):
            i = int(bad[0])
            return f"step {step} ({agent}): entry {i} was {a[i]:g}, now {b[i]:g}"
    return None


def main(argv: list[str] | None = None) -> int:
    """Compare every golden file with its version at the given revision; 1 when any differs."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rev", nargs="?", default="main", help="git revision (default: main)")
    args = parser.parse_args(argv)
    failed = 0
    for path in sorted(GOLDENS.glob("*.txt")):
        rel = path.relative_to(ROOT).as_posix()
        old = subprocess.run(
            ["git", "show", f"{args.rev}:{rel}"],
            cwd=ROOT, capture_output=True, text=True, check=True,
        ).stdout
        new = path.read_text()
        steps = len(decode(new)[1])
        problem = compare(old, new)
        size = f"{len(old.encode())} -> {len(new.encode())} bytes"
        if problem:
            failed += 1
            print(f"{path.name}: DIFFERS ({size}): {problem}")
        else:
            print(f"{path.name}: same values, {steps} steps ({size})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
