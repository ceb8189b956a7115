"""Build hook: the commit the package is built from is written into the sdist and the wheel.

Everything else about the build is in ``pyproject.toml``. ``tabletop_gym.provenance`` reads the
commit back at run time (``tabletop_gym/_commit.py``), so a results file names the package's own
commit, not that of the repository the user runs it in.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

ROOT = Path(__file__).resolve().parent


def _commit_module() -> Any:
    # Loaded by its path: the package itself imports numpy and gymnasium, absent at build time.
    spec = importlib.util.spec_from_file_location("_tabletop_gym_commit",
                                                  ROOT / "tabletop_gym" / "_commit.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _write_commit(package_dir: Path) -> None:
    """Write the source's commit into ``package_dir`` (nothing when it is unknown)."""
    commit = _commit_module()
    sha = commit.commit_of(ROOT / "tabletop_gym")
    if sha:
        package_dir.mkdir(parents=True, exist_ok=True)
        (package_dir / commit.COMMIT_FILE).write_text(sha + "\n", encoding="utf-8")


class BuildPyWithCommit(build_py):
    """``build_py`` that also writes the commit into the built package.

    Not in editable mode: the package is then the checkout, which asks git itself.
    """

    def run(self) -> None:
        """Build the package, then write the commit beside its ``__init__.py``."""
        super().run()
        if not self.editable_mode:
            _write_commit(Path(self.build_lib) / "tabletop_gym")


class SdistWithCommit(sdist):
    """``sdist`` that writes the commit into the archive, where no git history travels."""

    def make_release_tree(self, base_dir: str, files: list[str]) -> None:
        """Lay out the archive's tree, then write the commit into its package folder."""
        super().make_release_tree(base_dir, files)
        _write_commit(Path(base_dir) / "tabletop_gym")


setup(cmdclass={"build_py": BuildPyWithCommit, "sdist": SdistWithCommit})
