"""The game registry: every lookup reads it, and a third game needs one registration."""

from __future__ import annotations

import ast
import pathlib
import re

import pytest

from tabletop_gym.registry import (
    GameSpec,
    default_game,
    game_names,
    game_spec,
    game_specs,
    register_game,
    unregister_game,
)
from tests.toy.spec import SPEC

NIM = SPEC
"""The toy game's spec (``tests/toy/spec.py``)."""


@pytest.fixture
def nim():
    """Nim registered for one test, and forgotten after it."""
    register_game("tests.toy.spec:SPEC")
    try:
        yield NIM
    finally:
        unregister_game(NIM.name)


def test_every_name_of_a_game_resolves_to_its_spec():
    spec = game_spec("positano")
    for alias in ("positano", "positano_v0", "Positano-v0", "tabletop_gym/Positano-v0"):
        assert game_spec(alias) is spec
    assert spec.game_class().name == "positano"
    assert game_names() == ("rapa_nui", "positano")


def test_an_unknown_game_is_refused_with_the_closest_name():
    with pytest.raises(ValueError, match=r"unknown game 'positan' \(did you mean 'positano'\?\)"):
        game_spec("positan")


def test_a_name_is_registered_once():
    taken = GameSpec(**{**NIM.__dict__, "name": "positano"})
    with pytest.raises(ValueError, match=r"\['positano'\] already name a game"):
        register_game(taken)
    assert "nim" not in game_names()


def test_the_registered_heuristic_and_envs_are_the_ones_used():
    from tabletop_gym.agents.heuristic import heuristic_for
    from tabletop_gym.envs import positano_v0
    from tabletop_gym.envs.positano.bot import PositanoHeuristic
    from tabletop_gym.registration import GYM_ENVS, PZ_ENVS

    env = positano_v0.raw_env(num_players=2)
    assert isinstance(heuristic_for(env.game, env.observer), PositanoHeuristic)
    assert GYM_ENVS["Positano-v0"] == ("tabletop_gym.wrappers.single_agent:make_registered", 400,
                                       {"game": "positano"})
    assert PZ_ENVS[("parallel", "tabletop_gym/RapaNui-v0")] == (
        "tabletop_gym.envs.rapa_nui_v0:parallel_env"
    )


def test_a_third_game_is_one_registration(nim):
    """Records, evaluation, the heuristic lookup, the CLI, playthroughs and the single-agent
    view all find Nim through its registration alone."""
    from tabletop_gym.arena.evaluation import evaluate
    from tabletop_gym.cli import build_parser
    from tabletop_gym.core.playthrough import generate, replay
    from tabletop_gym.core.records import GameRecord, make_game
    from tabletop_gym.wrappers.single_agent import make_registered

    game = make_game("nim", {"pile": 5})
    assert game.config.pile == 5
    record = GameRecord(game="nim", config={"pile": 5}, seed=0, actions=[1, 0, 1])
    assert GameRecord.from_json(record.to_json()).replay().to_dict() == {"pile": 0, "turn": 1}

    # Seat rotation: the heuristic moves first in half the games; from 7 stones the first
    # player always wins with the multiple-of-3 rule, so it wins at least those 2 of 4.
    res = evaluate("nim", "heuristic", "random", n_games=4, seed=0)
    assert res.n_games == 4 and res.win_rate >= 0.5

    args = build_parser().parse_args(["eval", "--game", "nim"])
    assert args.game == "nim"

    text = generate("nim_v0", {"pile": 7}, 0)
    assert "env: nim_v0" in text and replay(text) == text
    assert text.count("\naction: ") <= 7  # each action takes at least one of the 7 stones

    env = make_registered("Nim-v0")
    obs, _ = env.reset(seed=0)
    assert env.aec.game.name == "nim"
    # The registered single-agent defaults: 2 seats, the registered heuristic as opponent.
    assert [type(a).__name__ for a in env._opponents.values()] == ["NimHeuristic"]


def test_defaults_and_bad_registrations_are_explained():
    # The shipped specs' default_for: solo Positano trains with SB3, Rapa Nui is the batched
    # runs' and the ladder's game.
    assert default_game("sb3") == "positano" and default_game("ladder") == "rapa_nui"
    with pytest.raises(ValueError, match="no registered game is the default for 'chess'"):
        default_game("chess")
    with pytest.raises(TypeError, match="takes a GameSpec or 'module:attribute' of one, got tuple"):
        register_game("tabletop_gym.registry:GAMES")
    with pytest.raises(ValueError, match="unknown game 'nim'"):
        unregister_game("nim")
    assert game_names() == ("rapa_nui", "positano")


def test_a_registry_view_follows_registrations(nim):
    from tabletop_gym.registry import RegistryView

    view = RegistryView(lambda: {spec.name: spec.title for spec in game_specs()})
    assert view["nim"] == "Nim" and len(view) == 3
    unregister_game("nim")
    try:
        assert dict(view) == {"rapa_nui": "Rapa Nui", "positano": "Positano"}
    finally:
        register_game(NIM)


# --- no module outside a game's package names a game ---------------------------------------

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "tabletop_gym"

PROSE_WORDS = 4
"""A string of at least this many words is prose written for people."""


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def _prose_and_docstrings(tree: ast.AST) -> set[int]:
    skip: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        for i, stmt in enumerate(body):
            # A module's, class's or function's docstring, or an attribute's (after its
            # assignment).
            if (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
                    and isinstance(stmt.value.value, str)
                    and (i == 0 or isinstance(body[i - 1], ast.Assign | ast.AnnAssign))):
                skip.add(id(stmt.value))
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            text = "".join(str(v.value) if isinstance(v, ast.Constant) else "X"
                           for v in node.values)
            if len(text.split()) >= PROSE_WORDS:
                skip.update(id(v) for v in ast.walk(node))
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str)
              and len(node.value.split()) >= PROSE_WORDS):
            skip.add(id(node))
    return skip


def _names_in_code(tree: ast.AST) -> list[tuple[int, str]]:
    skip = _prose_and_docstrings(tree)
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            words = [node.value]
        elif isinstance(node, ast.Name):
            words = [node.id]
        elif isinstance(node, ast.Attribute):
            words = [node.attr]
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            words = [node.name]
        elif isinstance(node, ast.alias):
            words = [node.name, node.asname or ""]
        elif isinstance(node, ast.ImportFrom):
            words = [node.module or ""]
        elif isinstance(node, ast.arg | ast.keyword):
            words = [node.arg or ""]
        else:
            continue
        out.extend((getattr(node, "lineno", 0), w) for w in words)
    return out


def _game_files(spec: GameSpec) -> tuple[str, str]:
    """A game's own files: its package folder and its versioned env module."""
    module = spec.env_module.removeprefix("tabletop_gym.").replace(".", "/")
    return f"envs/{spec.name}/", f"{module}.py"


def test_no_module_outside_a_games_package_names_a_game():
    """No module of the package outside ``envs/<game>/`` and ``registry.py`` names a game.

    The rule: a game's own files are its package ``envs/<game>/`` and its versioned PettingZoo
    module ``envs/<game>_v<N>.py`` (PettingZoo's naming puts it beside the package);
    ``registry.py`` lists every game by one line. In every other module no **code** may name
    a registered game: no identifier (variable, attribute, function, class, argument, keyword,
    imported module) and no string constant whose letters and digits, lower-cased, contain a
    game's name or title with its separators dropped (``positano``, ``rapanui``: that covers
    ``"rapa_nui"``, ``"RapaNui-v0"``, task ids, ``envs.rapa_nui`` module paths and names such
    as ``POSITANO_STANDARD``). Prose may use a game as an example: docstrings, comments, and
    strings written for people (help texts, messages, page templates), which are the string
    constants or f-strings of at least :data:`PROSE_WORDS` words.
    """
    specs = game_specs()
    tokens = {_norm(t) for spec in specs for t in (spec.name, spec.title)}
    own = [p for spec in specs for p in _game_files(spec)]
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel == "registry.py" or any(rel.startswith(o) for o in own):
            continue
        for line, word in _names_in_code(ast.parse(path.read_text(), rel)):
            if any(t in _norm(word) for t in tokens):
                found.append(f"{rel}:{line}: {word!r}")
    assert found == []


def test_the_names_rule_catches_code_and_spares_prose():
    """The scanner of the test above: what it reports in a snippet, worked out by hand."""
    src = '''
"""A docstring about Positano."""
GAME = "positano"
POSITANO_STANDARD = {}
x = f"RapaNui-{n}p"
msg = "see the Rapa Nui rules for more"
from tabletop_gym.envs.rapa_nui import rules
def f(game="rapa_nui"):
    """Positano example."""
'''
    tokens = {"positano", "rapanui"}
    hits = [(line, w) for line, w in _names_in_code(ast.parse(src))
            if any(t in _norm(w) for t in tokens)]
    assert sorted(hits) == [(3, "positano"), (4, "POSITANO_STANDARD"), (5, "RapaNui-"),
                            (7, "tabletop_gym.envs.rapa_nui"), (8, "rapa_nui")]
