"""Where a result came from: package version, commit and library versions.

Every file that reports a number (evaluation summaries, league tables, suite results, game
records) carries :func:`metadata`, so a reader can tell which code and which libraries made it.
"""

from __future__ import annotations

import functools
import importlib.metadata
import os
import platform
from pathlib import Path
from typing import Any

from tabletop_gym._commit import commit_of
from tabletop_gym.version import __version__

LIBRARIES = (
    "numpy",
    "gymnasium",
    "pettingzoo",
    "torch",
    "stable-baselines3",
    "sb3-contrib",
    "jax",
    "jaxlib",
    "optax",
    "flax",
    "pyarrow",
    "minari",
)
"""Distributions whose versions are reported (those not installed are left out)."""


def usable_cores() -> int:
    """The CPU cores this process may run on: its affinity where the system reports one.

    A JAX training's networks are the same to the bit on as many cores, not across counts (XLA
    splits some operations over the cores it sees), so its checkpoints record this number.
    """
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # no affinity on this system: every core
        return os.cpu_count() or 1


@functools.lru_cache(maxsize=1)
def git_commit() -> str | None:
    """The commit this copy of the package was made from, or ``None`` when it is unknown.

    An installed package (wheel or sdist) carries the commit it was built from, written by the
    build; a source checkout of this project reports its ``HEAD`` (``+dirty`` for uncommitted
    changes). Never the repository of the folder the user runs in: a package installed in a venv
    inside someone's repository is not that repository's commit. Text for people says
    :data:`UNKNOWN_COMMIT` where this is ``None`` (:func:`commit_text`).
    """
    return commit_of(Path(__file__).resolve().parent)


UNKNOWN_COMMIT = "an unknown commit (built without git history)"
"""What a reader is shown for a result whose package commit is unknown."""


def commit_text(commit: str | None) -> str:
    """``commit`` for a reader: the commit itself, or :data:`UNKNOWN_COMMIT` for ``None``."""
    return UNKNOWN_COMMIT if commit is None else commit


def library_versions(names: tuple[str, ...] = LIBRARIES) -> dict[str, str]:
    """Installed versions of ``names`` (missing distributions are left out)."""
    out: dict[str, str] = {}
    for name in names:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return out


def metadata(**extra: Any) -> dict[str, Any]:
    """The provenance block: package version, commit, Python and library versions, plus ``extra``.

    Args:
        **extra: Run-specific facts (seeds, budgets, env ids) added to the block.
    """
    return {
        "package": "tabletop-gym",
        "package_version": __version__,
        "commit": git_commit(),  # None: unknown (see git_commit)
        "python": platform.python_version(),
        "libraries": library_versions(),
        **extra,
    }
