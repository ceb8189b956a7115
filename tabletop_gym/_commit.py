"""The commit a copy of the package was made from (standard library only).

The build (``setup.py``) loads this file by its path, before the package's dependencies are
installed, and writes the commit into every sdist and wheel as :data:`COMMIT_FILE`; at run time
:func:`tabletop_gym.provenance.git_commit` reads it back. Only a source checkout of this project
asks git, and then only about the checkout the package lies in, never about the folder a user
runs from (an installed package may sit in a venv inside the user's own repository).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

COMMIT_FILE = "BUILD_COMMIT"
"""The file, beside the package's ``__init__.py``, that holds the commit it was built from."""


def _git(root: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True,
                              timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def commit_of(package: Path) -> str | None:
    """The commit the package folder ``package`` was made from, or ``None`` when unknown.

    The commit written into it at build time when there is one; else, when ``package`` lies at
    the top of a git work tree (a source checkout), that tree's ``HEAD`` with ``+dirty`` for
    uncommitted changes, so a number is never attributed to a commit that did not make it.

    Args:
        package: The folder holding the package's ``__init__.py``.
    """
    built = package / COMMIT_FILE
    if built.is_file():
        return built.read_text(encoding="utf-8").strip() or None
    root = package.resolve().parent
    top = _git(root, "rev-parse", "--show-toplevel")
    if top is None or Path(top).resolve() != root:
        # Not a checkout of this project: the repository around it, if any, is someone else's.
        return None
    sha = _git(root, "rev-parse", "HEAD")
    if not sha:
        return None
    dirty = _git(root, "status", "--porcelain", "--untracked-files=no")
    if dirty is None:
        return None
    return sha + ("+dirty" if dirty else "")
