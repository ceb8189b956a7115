"""Release-ready: the sdist and the wheel hold what they must, the metadata is complete and
consistent, and the README works on a package index page (issue 39 item 8).

``make test`` builds ``dist/`` first (``python -m build``, ``twine check``) and hands it over in
``TABLETOP_GYM_DIST``; run alone, this file builds its own copy without build isolation.
"""

from __future__ import annotations

import email.parser
import os
import pathlib
import re
import subprocess
import sys
import tarfile
import zipfile

import pytest
import yaml

import tabletop_gym
from tabletop_gym._commit import COMMIT_FILE, commit_of
from tests.test_package_data import RUN_TIME_FILES

ROOT = pathlib.Path(__file__).resolve().parent.parent
REPOSITORY = "https://github.com/tabletop-gym/tabletop-gym"
DOCUMENTATION = "https://tabletop-gym.github.io/tabletop-gym/"
RAW = "https://raw.githubusercontent.com/tabletop-gym/tabletop-gym/main/"


def tracked(*folders: str) -> set[str]:
    out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard",
                          *folders], cwd=ROOT, check=True, capture_output=True, text=True).stdout
    return {n for n in out.splitlines() if (ROOT / n).is_file()}


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> tuple[pathlib.Path, pathlib.Path]:
    """The sdist and the wheel of this checkout."""
    given = os.environ.get("TABLETOP_GYM_DIST")
    folder = pathlib.Path(given) if given else tmp_path_factory.mktemp("dist")
    if not given:
        subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(folder),
                        str(ROOT)], check=True, capture_output=True, cwd=ROOT)
    (sdist,) = folder.glob("*.tar.gz")
    (wheel,) = folder.glob("*.whl")
    return sdist, wheel


def test_the_sdist_holds_the_tests_and_everything_they_read(dist):
    sdist, _ = dist
    with tarfile.open(sdist) as tar:
        top = tar.getnames()[0].split("/")[0]
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    # Before: 47 of the 121 files under tests/. Now every file of the repository but CI's.
    wanted = tracked() - {".gitignore", ".ci/run"}
    assert wanted - names == set()
    assert top == f"tabletop_gym-{tabletop_gym.__version__}"


def test_the_wheel_holds_every_data_file_and_the_commit_it_was_built_from(dist):
    sdist, wheel = dist
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        built = zf.read(f"tabletop_gym/{COMMIT_FILE}").decode().strip()
    assert {f"tabletop_gym/{f}" for f in RUN_TIME_FILES} <= names
    # and the list is every data file of the package's source
    assert {f for f in tracked("tabletop_gym") if not f.endswith(".py")} == {
        f"tabletop_gym/{n}" for n in RUN_TIME_FILES}
    # The checkout's commit (this test runs in a checkout), carried by the sdist too.
    assert built == commit_of(ROOT / "tabletop_gym")
    with tarfile.open(sdist) as tar:
        member = next(m for m in tar.getmembers() if m.name.endswith(f"/tabletop_gym/{COMMIT_FILE}"))
        assert tar.extractfile(member).read().decode().strip() == built


def test_project_metadata_is_complete(dist):
    from trove_classifiers import classifiers as known

    _, wheel = dist
    with zipfile.ZipFile(wheel) as zf:
        name = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        meta = email.parser.Parser().parsestr(zf.read(name).decode())
    doc = {"classifier": meta.get_all("Classifier"), "keywords": meta["Keywords"],
           "project_url": meta.get_all("Project-URL")}

    assert set(doc["classifier"]) <= known, set(doc["classifier"]) - known
    for wanted in ("Intended Audience :: Science/Research",
                   "Topic :: Scientific/Engineering :: Artificial Intelligence",
                   "Programming Language :: Python :: 3.10", "Programming Language :: Python :: 3.11"):
        assert wanted in doc["classifier"]
    assert {"reinforcement learning", "pettingzoo", "gymnasium"} <= set(doc["keywords"].split(","))
    urls = dict(u.split(", ", 1) for u in doc["project_url"])
    assert urls == {"Homepage": REPOSITORY, "Documentation": DOCUMENTATION,
                    "Repository": REPOSITORY, "Changelog": f"{REPOSITORY}/blob/main/CHANGELOG.md",
                    "Bug Tracker": f"{REPOSITORY}/issues"}


def test_the_urls_are_the_same_everywhere():
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert (cff["repository-code"], cff["url"]) == (REPOSITORY, DOCUMENTATION)
    mk = (ROOT / "mkdocs.yml").read_text()
    assert re.search(rf"^repo_url: {re.escape(REPOSITORY)}$", mk, re.M)
    assert re.search(rf"^site_url: {re.escape(DOCUMENTATION)}$", mk, re.M)


LINK = re.compile(r"(!?)\[[^\]]*\]\(([^)\s]+)\)")


def test_the_readme_links_are_absolute_and_resolve_to_files_of_the_repository():
    # A package index shows the README without the repository around it: a relative link or
    # image is broken there. Every link points into this repository (blob/tree for pages,
    # raw for images), at a file or folder that exists.
    text = (ROOT / "README.md").read_text()
    found = LINK.findall(text)
    assert len(found) >= 28
    for bang, target in found:
        if bang:
            assert target.startswith(RAW), target
            path = target[len(RAW):]
            assert (ROOT / path).is_file(), target
            continue
        assert target.startswith(f"{REPOSITORY}/"), target
        m = re.fullmatch(rf"{re.escape(REPOSITORY)}/(blob|tree)/main/([^#]+)(#.*)?", target)
        assert m, target
        kind, path = m.group(1), m.group(2)
        assert (ROOT / path).is_file() if kind == "blob" else (ROOT / path).is_dir(), target


def test_the_readme_link_checker_itself():
    assert LINK.findall("see [Design](docs/design.md) and ![pic](docs/images/x.png)") == [
        ("", "docs/design.md"), ("!", "docs/images/x.png")]
