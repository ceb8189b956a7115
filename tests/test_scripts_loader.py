"""``tests.scripts.load_script``: how the tests load the repository's scripts."""

from __future__ import annotations

import sys

import pytest

from tests.scripts import ROOT, load_script


def test_a_script_loads_under_its_own_name_and_is_registered():
    module = load_script("tools/docs_tables.py", "docs_tables_loader_check")
    try:
        assert module.__file__ == str(ROOT / "tools" / "docs_tables.py")
        assert sys.modules["docs_tables_loader_check"] is module
        assert callable(module.main)
    finally:
        sys.modules.pop("docs_tables_loader_check", None)


def test_a_missing_script_is_named_and_nothing_is_registered():
    with pytest.raises(FileNotFoundError, match=r"no script at .*bench/nope\.py.*bench/search\.py"):
        load_script("bench/nope.py", "nope_loader_check")
    assert "nope_loader_check" not in sys.modules
