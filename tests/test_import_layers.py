"""The package imports one way: floors (docs/design.md "Floors"), and no engine circles.

Each part of the package (a subpackage or a module at the root) imports only the parts its row of
the floors table in ``docs/design.md`` allows; the lower floors never reach up to the wrappers,
the arena or the tasks whatever the table says. Within a game, ``rules`` builds on ``state_json`` (the
JSON schema, loader and whole-state checks), which builds on the components, facts and the
action layout; a state_json that needs the rules' classes names them for the type checker only.
"""

from __future__ import annotations

import ast
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "tabletop_gym"
HERE = pathlib.Path(__file__).resolve()


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


# --- floors -------------------------------------------------------------------------------------

DESIGN = ROOT / "docs" / "design.md"


def _part(module: str) -> str:
    """The part of the package ``module`` (dotted) belongs to: ``core/``, ``cli.py``, ..."""
    parts = module.split(".")
    if len(parts) == 1:
        return "__init__.py"
    if (PACKAGE / parts[1]).is_dir():
        return f"{parts[1]}/"
    return f"{parts[1]}.py"


def _floors() -> dict[str, set[str]]:
    """The floors table of docs/design.md: each part and the parts it may import."""
    text = DESIGN.read_text(encoding="utf-8")
    table = re.search(r"<!-- floors -->\n(.*?)<!-- /floors -->", text, re.S)
    assert table, "docs/design.md has no <!-- floors --> table"
    rows = {}
    for line in table.group(1).splitlines()[2:]:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        assert len(cells) == 3, f"a floors row has three cells: {line!r}"
        name = cells[0].strip("`")
        assert name not in rows, f"{name} has two rows"
        rows[name] = set(re.findall(r"`([^`]+)`", cells[2]))
    return rows


def _package_imports() -> dict[str, dict[str, set[str]]]:
    """For every part: each of its modules and the other parts it imports."""
    out: dict[str, dict[str, set[str]]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        module = _module(path)
        if path.name == "__init__.py":
            module = module.removesuffix(".__init__")
        part = _part(module)
        used = {_part(m) for m in _runtime_imports(path)} - {part}
        out.setdefault(part, {})[module] = used
    return out


def test_every_part_of_the_package_stands_on_a_floor():
    floors = _floors()
    parts = set(_package_imports())
    assert parts - set(floors) == set(), "parts of the package the floors table does not place"
    assert set(floors) - parts == set(), "rows of the floors table for parts that do not exist"
    for name, allowed in floors.items():
        assert allowed <= set(floors), f"{name} may import parts that do not exist: {allowed}"


def test_every_part_imports_only_what_its_floor_allows():
    floors = _floors()
    wrong = [f"{module} imports {sorted(used - floors[part])}"
             for part, modules in _package_imports().items()
             for module, used in modules.items() if used - floors[part]]
    assert not wrong, "imports the floors table (docs/design.md) does not allow: " + "; ".join(wrong)


LOWER = {"core/": {"wrappers/", "arena/", "tasks/"}, "envs/": {"wrappers/", "arena/", "tasks/"},
         "agents/": {"arena/", "tasks/"}}


@pytest.mark.parametrize("part", sorted(LOWER))
def test_the_lower_floors_never_reach_up_to_the_arena_or_the_tasks(part):
    # Whatever the table allows: the turn-based transform is core's (envs and records build on
    # it), and nothing the envs or the agents need lives in the arena or among the tasks.
    floors = _floors()
    assert not floors[part] & LOWER[part], f"docs/design.md lets {part} import {LOWER[part]}"
    imports = _package_imports()[part]
    wrong = {m: used & LOWER[part] for m, used in imports.items() if used & LOWER[part]}
    assert not wrong, f"{part} reaches up: {wrong}"


def test_the_arena_and_the_recipes_live_in_their_floors():
    assert not (PACKAGE / "experiments").exists()
    assert not (PACKAGE / "datasets").exists()
    for name in ("envs", "evaluation", "stats", "league", "ladder"):
        assert (PACKAGE / "arena" / f"{name}.py").exists()
    for name in ("recipes", "baselines", "datasets/__init__"):
        assert (PACKAGE / "tasks" / f"{name}.py").exists()
    assert (PACKAGE / "core" / "turn_based.py").exists()


ARENA = ("integrations/", "jax/", "tasks/")


def test_the_arena_stands_below_what_trains_and_reports():
    # The arena is a library: what trains (integrations/, jax/) and what reports (tasks/) evaluate
    # with it, so it imports none of them, and no folder above it is imported back by one below.
    floors = _floors()
    assert "arena/" in floors["integrations/"] and "arena/" in floors["jax/"]
    assert not floors["arena/"] & {*ARENA, "cli.py", "web/"}
    for lower in ("integrations/", "jax/"):
        assert "tasks/" not in floors[lower], f"{lower} may import tasks/, the floor above it"


REMOVED = {"tabletop_gym.evaluation": "tabletop_gym.arena.evaluation",
           "tabletop_gym.training": "tabletop_gym.tasks.recipes",
           "tabletop_gym.wrappers.turn_based": "tabletop_gym.core.turn_based",
           "tabletop_gym.experiments": "tabletop_gym.arena",
           "tabletop_gym.datasets": "tabletop_gym.tasks.datasets"}


def _mentions(old: str) -> list[str]:
    """Files of the repository (CHANGELOG.md aside: it records the moves) naming ``old``."""
    word = re.compile(re.escape(old) + r"(?!\w)")
    out = []
    for folder in ("tabletop_gym", "tests", "tools", "bench", "examples", "docs"):
        for path in (ROOT / folder).rglob("*"):
            if path.suffix not in {".py", ".md"} or path == HERE:
                continue
            if word.search(path.read_text(encoding="utf-8")):
                out.append(str(path.relative_to(ROOT)))
    return out


@pytest.mark.parametrize("old", sorted(REMOVED))
def test_a_removed_path_is_gone_and_its_new_home_imports(old):
    # The deprecated shims and the old folders are removed (CHANGELOG names the new homes): no
    # module or folder of the old path is left, nothing names it, and the new home imports.
    relative = pathlib.Path(*old.split(".")[1:])
    assert not (PACKAGE / relative).with_suffix(".py").exists()
    assert not (PACKAGE / relative).exists()
    assert _mentions(old) == []
    done = subprocess.run([sys.executable, "-c", f"import {REMOVED[old]}"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
