"""The package imports one way: floors (docs/design.md "Floors"), and no engine circles.

Each part of the package (a subpackage or a module at the root) imports only the parts its row of
the floors table in ``docs/design.md`` allows; the lower floors never reach up to the wrappers or
the experiments whatever the table says. Within a game, ``rules`` builds on ``state_json`` (the
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


LOWER = {"core/": {"wrappers/", "experiments/"}, "envs/": {"wrappers/", "experiments/"},
         "agents/": {"experiments/"}}


@pytest.mark.parametrize("part", sorted(LOWER))
def test_the_lower_floors_never_reach_up_to_the_wrappers_or_the_experiments(part):
    # Whatever the table allows: the turn-based transform is core's (envs and records build on
    # it), and nothing the envs or the agents need lives among the experiments.
    floors = _floors()
    assert not floors[part] & LOWER[part], f"docs/design.md lets {part} import {LOWER[part]}"
    imports = _package_imports()[part]
    wrong = {m: used & LOWER[part] for m, used in imports.items() if used & LOWER[part]}
    assert not wrong, f"{part} reaches up: {wrong}"


def test_the_experiments_live_in_their_own_subpackage():
    root = {p.name for p in PACKAGE.glob("*.py")}
    assert not root & {"baselines.py", "league.py"}
    for name in ("evaluation", "training", "league", "baselines"):
        assert (PACKAGE / "experiments" / f"{name}.py").exists()
    assert (PACKAGE / "core" / "turn_based.py").exists()


ALIASES = {"tabletop_gym.evaluation": "tabletop_gym.experiments.evaluation",
           "tabletop_gym.training": "tabletop_gym.experiments.training",
           "tabletop_gym.wrappers.turn_based": "tabletop_gym.core.turn_based"}


@pytest.mark.parametrize("old", sorted(ALIASES))
def test_an_old_path_only_re_exports_its_new_home_and_warns(old):
    new = ALIASES[old]
    path = (PACKAGE.parent / old.replace(".", "/")).with_suffix(".py")
    assert _runtime_imports(path) == {new}
    # In a fresh process: importing the old path warns once and gives the new module's objects.
    code = (f"import warnings, {new} as new\n"
            "with warnings.catch_warnings(record=True) as seen:\n"
            "    warnings.simplefilter('always')\n"
            f"    import {old} as old\n"
            "assert [w.category for w in seen] == [DeprecationWarning], seen\n"
            f"assert {new!r} in str(seen[0].message)\n"
            "names = [n for n in vars(new) if not n.startswith('_')]\n"
            "assert names and all(getattr(old, n) is getattr(new, n) for n in names)\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
