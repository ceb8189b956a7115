"""LICENSE, CITATION.cff and CHANGELOG.md exist and agree with the package and pyproject."""

from __future__ import annotations

import datetime
import re
from pathlib import Path

import tomllib
import yaml

import tabletop_gym

ROOT = Path(__file__).resolve().parent.parent


def pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def citation() -> dict:
    return yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))


def test_license_file_is_the_licence_pyproject_names():
    assert pyproject()["project"]["license"] == "MIT"
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License\n")
    assert "Permission is hereby granted, free of charge" in text


def test_citation_file_is_valid_cff_1_2_0():
    cff = citation()
    # The keys CFF 1.2.0 requires, with the types its schema gives them.
    assert cff["cff-version"] == "1.2.0"
    assert isinstance(cff["message"], str) and cff["message"]
    assert isinstance(cff["title"], str) and cff["title"]
    assert isinstance(cff["authors"], list) and cff["authors"]
    for author in cff["authors"]:
        assert author.get("name") or author.get("family-names"), author
    assert cff["type"] in ("software", "dataset")
    # Dates are ISO dates; YAML may already have parsed them.
    released = cff["date-released"]
    if isinstance(released, str):
        released = datetime.date.fromisoformat(released)
    assert isinstance(released, datetime.date)
    known = {
        "cff-version", "message", "title", "authors", "type", "version", "date-released",
        "license", "abstract", "keywords", "repository-code", "url", "doi", "identifiers",
        "preferred-citation", "references", "contact", "commit", "license-url",
    }
    assert set(cff) <= known, set(cff) - known


def test_citation_agrees_with_the_package():
    cff = citation()
    assert str(cff["version"]) == tabletop_gym.__version__
    assert cff["license"] == pyproject()["project"]["license"]


def test_version_has_one_source():
    # pyproject reads the version from the package; it never spells it out.
    project = pyproject()
    assert "version" in project["project"]["dynamic"]
    assert "version" not in project["project"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {
        "attr": "tabletop_gym.version.__version__"
    }


def test_changelog_names_the_version_and_the_env_versions():
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert re.search(rf"^## {re.escape(tabletop_gym.__version__)}\b", text, re.M)
    for env in ("positano_v0", "rapa_nui_v0"):
        assert env in text
    assert "version goes up" in text  # what a bump of an env version means
