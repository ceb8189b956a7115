"""The engine modules import one way: no module imports one that imports it back.

``rules`` builds on ``state_json`` (the JSON schema, loader and whole-state checks), which
builds on the components, facts and the action layout; a state_json that needs the rules'
classes names them for the type checker only.
"""

from __future__ import annotations

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "tabletop_gym"


def _runtime_imports(path: pathlib.Path) -> set[str]:
    """Package modules ``path`` imports when run (``if TYPE_CHECKING:`` blocks left out)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            skip.update(id(n) for child in node.body for n in ast.walk(child))
    out = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("tabletop_gym"):
            module = node.module or ""
            names = [a.name for a in node.names]
            # "from pkg import mod" imports the module pkg.mod when mod is one.
            subs = [f"{module}.{n}" for n in names if (PACKAGE.parent / f"{module}.{n}".replace(".", "/")).with_suffix(".py").exists()]
            out.update(subs or [module])
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("tabletop_gym"))
    return out


def _module(path: pathlib.Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts)


ENGINE = sorted(p for game in ("positano", "rapa_nui") for p in (PACKAGE / "envs" / game).glob("*.py"))


@pytest.mark.parametrize("game", ["positano", "rapa_nui"])
def test_rules_and_state_json_do_not_import_each_other(game):
    rules = PACKAGE / "envs" / game / "rules.py"
    state_json = PACKAGE / "envs" / game / "state_json.py"
    assert f"tabletop_gym.envs.{game}.state_json" in _runtime_imports(rules)
    assert f"tabletop_gym.envs.{game}.rules" not in _runtime_imports(state_json)


def test_no_engine_module_is_in_an_import_cycle():
    graph = {_module(p): _runtime_imports(p) for p in ENGINE}
    cycles = []

    def visit(node: str, path: list[str]) -> None:
        for nxt in sorted(graph.get(node, ())):
            if nxt in path:
                cycles.append([*path[path.index(nxt):], nxt])
            elif nxt in graph:
                visit(nxt, [*path, nxt])

    for start in graph:
        visit(start, [start])
    assert not cycles, f"import cycles among the engine modules: {cycles[:3]}"
