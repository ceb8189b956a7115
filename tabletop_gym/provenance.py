"""Where a result came from: package version, commit and library versions.

Every file that reports a number (evaluation summaries, league tables, suite results, game
records) carries :func:`metadata`, so a reader can tell which code and which libraries made it.
"""

from __future__ import annotations

import functools
import importlib.metadata
import platform
import subprocess
from pathlib import Path
from typing import Any

from tabletop_gym import __version__

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


@functools.lru_cache(maxsize=1)
def git_commit() -> str | None:
    """The commit of the source tree the package was imported from, or ``None`` outside git.

    A ``+dirty`` suffix marks uncommitted changes, so a number is never attributed to a commit
    that did not make it.
    """
    root = Path(__file__).resolve().parent.parent
    try:
        sha = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=10
        )
        if sha.returncode != 0:
            return None
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    commit = sha.stdout.strip()
    return commit + ("+dirty" if dirty.stdout.strip() else "")


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
        "commit": git_commit(),
        "python": platform.python_version(),
        "libraries": library_versions(),
        **extra,
    }
