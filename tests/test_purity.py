"""Rules engines stay pure: standard library only, no global RNG (docs/design.md, "The engine contract")."""

from __future__ import annotations

import ast
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1] / "tabletop_gym"
PURE = sorted(
    [*ROOT.glob("envs/*/rules.py"), *ROOT.glob("envs/*/components.py"),
     *ROOT.glob("envs/*/scoring.py"), *ROOT.glob("envs/*/automa.py"),
     *ROOT.glob("envs/*/state_json.py"), *ROOT.glob("envs/*/facts.py"),
     *ROOT.glob("envs/*/actions.py"), *ROOT.glob("envs/*/events.py"),
     ROOT / "core" / "game.py", ROOT / "core" / "layout.py", ROOT / "core" / "events.py"]
)
STDLIB = set(sys.stdlib_module_names)


def test_there_are_engines_to_check():
    names = {p.parent.name for p in PURE}
    assert {"rapa_nui", "positano", "core"} <= names


@pytest.mark.parametrize("path", PURE, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_engine_imports_only_stdlib_and_package_engine_modules(path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            mods = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            mods = [node.module or ""]
        else:
            continue
        for mod in mods:
            top = mod.split(".")[0]
            if top == "tabletop_gym":
                assert mod.startswith(
                    ("tabletop_gym.core.game", "tabletop_gym.core.layout",
                     "tabletop_gym.core.events", "tabletop_gym.envs.")
                ), mod
                assert not mod.endswith(("observer", "env", "render", "facts")), mod
            else:
                assert top in STDLIB, f"{path.name} imports non-stdlib module {mod}"


@pytest.mark.parametrize("path", PURE, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_engine_never_uses_the_global_random_functions(path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "random"
            and node.attr not in {"Random"}
        ):
            raise AssertionError(f"{path.name}:{node.lineno} uses random.{node.attr}")
