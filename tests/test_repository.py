"""The repository is self-contained: no file points outside it, every rules citation resolves.

Code, tests and docs cite the rules references ``docs/rules/positano.md`` and
``docs/rules/rapa_nui.md`` as ``§N.M``. A citation names its reference explicitly
(``docs/rules/rapa_nui.md §7.4``) or implicitly by the file it is in (a file whose path names one
game cites that game's reference); every cited number must be a numbered heading of that page.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GAMES = ("positano", "rapa_nui")
TEXT_SUFFIXES = {".py", ".md", ".txt", ".toml", ".cfg", ".yml", ".yaml", ".cff", ".json", ".ini"}
TEXT_NAMES = {"Makefile", "LICENSE", "run", ".gitignore"}

# Written in pieces so this file does not match its own patterns.
_OUTSIDE = re.compile(
    "|".join(
        [
            r"\.\./" + "shared",
            r"(?<![\w/])" + "shared/" + r"(?:rules|seeds|reference|hooks|DESIGN)",
            r"(?<![\w.])/" + "work/",
            r"(?<![\w.])/" + r"home/\w",
            r"(?<![\w.])/" + r"Users/\w",
            r"(?<![\w.])/" + r"root/\w",
        ]
    )
)
_CITATION = re.compile(r"§\s?(\d+(?:\.\d+)*)")
_NAMED = re.compile(r"docs/rules/(positano|rapa_nui)\.md")
# An upper-case name before the section sign: a section of a document outside the repository.
_FOREIGN = re.compile(r"\b[A-Z]{3,}\s?§")
_HEADING = re.compile(r"^#{1,6}\s+(\d+(?:\.\d+)*)\.?\s")


def repository_files() -> list[Path]:
    """Tracked files plus new files git does not ignore (the tree a commit would hold)."""
    try:
        out = subprocess.run(
            ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT, capture_output=True, text=True, check=True,
        ).stdout
        names = out.splitlines()
    except (OSError, subprocess.CalledProcessError):  # not a git checkout: walk the tree
        skip = {".git", ".venv", "site", "runs", "build", "__pycache__", ".pytest_cache"}
        names = [
            str(p.relative_to(ROOT)) for p in ROOT.rglob("*")
            if p.is_file() and not skip.intersection(p.relative_to(ROOT).parts)
        ]
    return [ROOT / n for n in sorted(set(names)) if (ROOT / n).is_file()]


def text_files() -> list[Path]:
    return [p for p in repository_files() if p.suffix in TEXT_SUFFIXES or p.name in TEXT_NAMES]


def rules_headings(game: str) -> set[str]:
    text = (ROOT / "docs" / "rules" / f"{game}.md").read_text(encoding="utf-8")
    return {m.group(1) for line in text.splitlines() if (m := _HEADING.match(line))}


def citation_problems(rel: str, text: str, headings: dict[str, set[str]]) -> list[str]:
    """Every § citation in ``text`` (the file ``rel``) that does not resolve, with the reason."""
    implied = [g for g in GAMES if g in rel]
    problems = []
    for lineno, line in enumerate(text.splitlines(), 1):
        if _FOREIGN.search(line):
            problems.append(f"{rel}:{lineno}: cites a document outside the repository: {line.strip()}")
        for m in _CITATION.finditer(line):
            named = [g.group(1) for g in _NAMED.finditer(line, 0, m.start())]
            game = named[-1] if named else (implied[0] if len(implied) == 1 else None)
            if game is None:
                problems.append(f"{rel}:{lineno}: §{m.group(1)} names no rules reference "
                                f"(write docs/rules/<game>.md §N): {line.strip()}")
            elif m.group(1) not in headings[game]:
                problems.append(f"{rel}:{lineno}: §{m.group(1)} is no heading of "
                                f"docs/rules/{game}.md: {line.strip()}")
    return problems


def test_the_rules_references_have_the_numbered_sections_the_code_cites():
    # The references keep the numbering the engines were written against.
    assert {"1.3", "1.8", "2.4", "3.1", "4", "5.1", "5.3", "7", "9"} <= rules_headings("positano")
    assert {"1.4", "2", "3.1", "3.1.4", "4", "6", "7.4"} <= rules_headings("rapa_nui")


def test_no_file_refers_to_a_path_outside_the_repository():
    found = []
    for path in text_files():
        rel = str(path.relative_to(ROOT))
        for lineno, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            if _OUTSIDE.search(line):
                found.append(f"{rel}:{lineno}: {line.strip()}")
    assert not found, "paths outside the repository:\n" + "\n".join(found)


def test_every_rules_citation_resolves_to_a_heading():
    headings = {g: rules_headings(g) for g in GAMES}
    problems = []
    for path in text_files():
        rel = str(path.relative_to(ROOT))
        problems += citation_problems(rel, path.read_text(encoding="utf-8", errors="replace"), headings)
    assert not problems, "unresolved rules citations:\n" + "\n".join(problems)


@pytest.mark.parametrize(
    ("rel", "line", "ok"),
    [
        ("tabletop_gym/envs/positano/rules.py", "# rules {S}4", True),
        ("tabletop_gym/envs/positano/rules.py", "# rules {S}4.9", False),  # no such heading
        ("tests/test_x.py", "# docs/rules/rapa_nui.md {S}7.4", True),
        ("tests/test_x.py", "# rules {S}7.4", False),  # no game implied by the path
        ("tests/positano/test_x.py", "# docs/rules/rapa_nui.md {S}3.1.4", True),  # named wins
        ("tests/positano/test_x.py", "# DESIGN {S}4", False),  # a document outside the repository
    ],
)
def test_the_citation_checker_itself(rel, line, ok):
    # The section sign is spelled out so that these lines do not cite anything themselves.
    headings = {g: rules_headings(g) for g in GAMES}
    line = line.format(S="\N{SECTION SIGN}")
    assert (citation_problems(rel, line, headings) == []) is ok


def test_the_outside_path_pattern_itself():
    assert _OUTSIDE.search("see ../" + "sha" + "red/rules/positano.md")
    assert _OUTSIDE.search("open('/" + "work/main/x')")
    assert not _OUTSIDE.search("docs/rules/positano.md and runs/Positano-v0/model.zip")
