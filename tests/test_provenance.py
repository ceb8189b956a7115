"""The provenance block that every reported number carries."""

from __future__ import annotations

import importlib.metadata
import os
import pathlib
import re
import subprocess

import pytest

import tabletop_gym
from tabletop_gym._commit import COMMIT_FILE, commit_of
from tabletop_gym.provenance import (
    UNKNOWN_COMMIT,
    commit_text,
    git_commit,
    library_versions,
    metadata,
)


def test_one_version_source():
    # pyproject reads the version from the package, so the two can never disagree.
    assert importlib.metadata.version("tabletop-gym") == tabletop_gym.__version__


def test_metadata_names_package_commit_and_libraries():
    meta = metadata(seeds=[1, 2])
    assert meta["package_version"] == tabletop_gym.__version__
    assert meta["seeds"] == [1, 2]
    assert meta["libraries"]["numpy"] == importlib.metadata.version("numpy")
    commit = git_commit()
    # Tests run from a git checkout: a 40-hex commit, with +dirty when the tree has changes.
    assert commit is not None and re.fullmatch(r"[0-9a-f]{40}(\+dirty)?", commit)


def test_missing_library_is_left_out():
    assert library_versions(("numpy", "no-such-distribution-xyz")).keys() == {"numpy"}


# Issue 39 item 10: the commit of the package itself, never the repository the user runs in.

def _git(cwd, *args):
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                          text=True).stdout.strip()


@pytest.fixture
def users_repo(tmp_path):
    """A user's own git repository with a commit, and a copy of the package's folder installed in
    a venv inside it (site-packages), as `pip install tabletop-gym` there leaves it."""
    repo = tmp_path / "users-project"
    repo.mkdir()
    env = {"GIT_AUTHOR_NAME": "u", "GIT_AUTHOR_EMAIL": "u@x", "GIT_COMMITTER_NAME": "u",
           "GIT_COMMITTER_EMAIL": "u@x"}
    _git(repo, "init", "-q")
    (repo / "analysis.py").write_text("print(1)\n")
    _git(repo, "add", "analysis.py")
    subprocess.run(["git", "commit", "-q", "-m", "mine"], cwd=repo, check=True,
                   env={**os.environ, **env})
    package = repo / ".venv" / "lib" / "python3.11" / "site-packages" / "tabletop_gym"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text('__version__ = "0.1.0"\n')
    return repo, package, _git(repo, "rev-parse", "HEAD")


def test_an_installed_package_reports_the_commit_it_was_built_from(users_repo):
    repo, package, users_head = users_repo
    built = "0123456789abcdef0123456789abcdef01234567"
    (package / COMMIT_FILE).write_text(built + "\n")
    assert commit_of(package) == built
    assert users_head != built


def test_an_installed_package_without_its_commit_says_unknown_not_the_users_head(users_repo):
    repo, package, users_head = users_repo
    assert re.fullmatch(r"[0-9a-f]{40}", users_head)
    assert commit_of(package) is None  # was the user's HEAD before the fix
    assert commit_text(None) == UNKNOWN_COMMIT


def test_this_copy_reports_its_own_commit():
    package = pathlib.Path(tabletop_gym.__file__).resolve().parent
    built = package / COMMIT_FILE
    if built.is_file():
        # An installed wheel (`make test`'s .venv-core): the commit its build wrote.
        assert git_commit() == built.read_text().strip()
    else:
        # A source checkout: its HEAD.
        assert git_commit().split("+")[0] == _git(package.parent, "rev-parse", "HEAD")
    assert re.fullmatch(r"[0-9a-f]{40}(\+dirty)?", git_commit())


def test_the_suite_report_says_plainly_that_the_commit_is_unknown():
    from tabletop_gym.tasks.report import markdown_table

    run = {"suite": "core", "agent": "random", "tasks": [], "protocol": {"seeds": [0]},
           "metadata": {
        "package_version": "0.1.0", "commit": None},
        "aggregate": {"iqm": None, "iqm_ci": None, "tasks": []}}
    text = markdown_table([run])
    assert "Made by: tabletop-gym 0.1.0 at an unknown commit (built without git history)." in text
    assert "None" not in text


def test_the_usable_cores_are_the_process_affinity_or_every_core_without_one(monkeypatch):
    from tabletop_gym.provenance import usable_cores

    if hasattr(os, "sched_getaffinity"):
        # A process pinned with taskset sees fewer cores than the machine has: that count.
        assert usable_cores() == len(os.sched_getaffinity(0))
        monkeypatch.delattr(os, "sched_getaffinity")
    monkeypatch.setattr(os, "cpu_count", lambda: 7)
    assert usable_cores() == 7
    monkeypatch.setattr(os, "cpu_count", lambda: None)  # unknown: at least the one running
    assert usable_cores() == 1
