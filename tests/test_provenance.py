"""The provenance block that every reported number carries."""

from __future__ import annotations

import importlib.metadata
import re

import tabletop_gym
from tabletop_gym.provenance import git_commit, library_versions, metadata


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
