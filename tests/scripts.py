"""Load a script of the repository (``bench/``, ``tools/``) as a module, for its tests.

The scripts are not modules of the package: they stand in folders without ``__init__.py`` and
are run as ``python bench/<name>.py``. A test loads one from its file under a name of its own,
so no script shadows another module (``bench/search.py`` is not ``tabletop_gym.jax.search``),
and registers it in ``sys.modules`` under that name, which dataclasses and pickling of the
script's own classes look it up by.
"""

from __future__ import annotations

import importlib.util
import pathlib
import sys
from types import ModuleType

ROOT = pathlib.Path(__file__).resolve().parent.parent


def load_script(path: str, name: str) -> ModuleType:
    """The script at ``path`` (relative to the repository root), loaded as module ``name``.

    Args:
        path: The script's path from the repository root, e.g. ``"bench/search.py"``.
        name: The module name to load it under; it must not be a module of the package.

    Returns:
        The loaded module, also in ``sys.modules[name]``.

    Raises:
        FileNotFoundError: No file at ``path``.
    """
    where = ROOT / path
    if not where.is_file():
        raise FileNotFoundError(f"no script at {where} (give a path from the repository root, "
                                f"e.g. bench/search.py)")
    spec = importlib.util.spec_from_file_location(name, where)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
