"""Every ```python block of README.md and docs/ runs as written, so a recipe that stops working fails.

Each block runs on its own, in a fresh namespace and an empty temporary working directory. An
HTML comment on the line just above a block's fence adjusts it (several may stand one above the
other):

* ``<!-- docs-test: continue -->``: the block continues the page's previous ```python block and
  runs after it, in the same namespace (the earlier blocks of the chain run again first).
* ``<!-- docs-test: replace "OLD" "NEW" -->``: before running, the text OLD in this block is
  replaced by NEW. This is how a block that trains shows the real budget on the page and runs a
  tiny one here, e.g. ``replace "1_000_000" "2_048"``. OLD and NEW are quoted as in a shell
  (single quotes hold double quotes). OLD must occur in the block, so the directive cannot go
  stale unnoticed.

A block that must not run at all (a shell session, an excerpt) uses another fence, e.g. ```text
or ```bash. There is no way to skip a ```python block.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})\s*(?P<info>[^`\n]*)$")
_DIRECTIVE = re.compile(r"^\s*<!--\s*docs-test:\s*(?P<body>.*?)\s*-->\s*$")
PYTHON = {"python", "py", "python3"}


@dataclass
class Block:
    """One ```python block of a page."""

    path: str
    line: int
    code: str
    directives: list[str] = field(default_factory=list)
    previous: Block | None = None

    @property
    def id(self) -> str:
        return f"{self.path}:{self.line}"


def doc_files() -> list[Path]:
    files = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    return [f for f in files if f.is_file()]


def parse_blocks(path: str, text: str) -> list[Block]:
    """The ```python blocks of one page, with the directives above each."""
    lines = text.splitlines()
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, info = m.group("fence"), m.group("info").strip()
        lang = info.split()[0].strip("{}.").lower() if info else ""
        start = i
        body = []
        i += 1
        while i < len(lines) and not (
            lines[i].strip().startswith(fence) and lines[i].strip().strip(fence[0]) == ""
        ):
            body.append(lines[i][len(m.group("indent")):])
            i += 1
        i += 1
        if lang not in PYTHON:
            continue
        directives = []
        j = start - 1
        while j >= 0 and (d := _DIRECTIVE.match(lines[j])):
            directives.insert(0, d.group("body"))
            j -= 1
        block = Block(path, start + 1, "\n".join(body) + "\n", directives)
        for d in directives:
            if d == "continue":
                if not blocks:
                    raise ValueError(f"{block.id}: 'continue' with no earlier python block")
                block.previous = blocks[-1]
            elif not d.startswith("replace "):
                raise ValueError(f"{block.id}: unknown docs-test directive {d!r}")
        blocks.append(block)
    return blocks


def runnable_code(block: Block) -> str:
    """The block's code with its ``replace`` directives applied."""
    code = block.code
    for d in block.directives:
        if d.startswith("replace "):
            parts = shlex.split(d[len("replace "):])
            if len(parts) != 2:
                raise ValueError(f"{block.id}: replace needs \"OLD\" \"NEW\", got {d!r}")
            old, new = parts
            if old not in code:
                raise ValueError(f"{block.id}: replace: {old!r} does not occur in the block")
            code = code.replace(old, new)
    return code


def all_blocks() -> list[Block]:
    out = []
    for f in doc_files():
        out += parse_blocks(str(f.relative_to(ROOT)), f.read_text(encoding="utf-8"))
    return out


BLOCKS = all_blocks()


@pytest.mark.parametrize("block", BLOCKS, ids=[b.id for b in BLOCKS])
def test_docs_code_block_runs(block: Block, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    chain = []
    b: Block | None = block
    while b is not None:
        chain.insert(0, b)
        b = b.previous
    namespace: dict = {"__name__": "__docs__"}
    for b in chain:
        exec(compile(runnable_code(b), b.id, "exec"), namespace)


def test_the_harness_finds_the_blocks_and_applies_its_directives():
    page = "\n".join([
        "# t",
        "```python",
        "x = 1",
        "```",
        "```text",
        "not python",
        "```",
        '<!-- docs-test: replace "1_000" "2" -->',
        "<!-- docs-test: continue -->",
        "```python",
        "y = x + 1_000",
        "```",
        "```bash",
        "make test",
        "```",
    ])
    blocks = parse_blocks("page.md", page)
    assert [(b.line, b.code) for b in blocks] == [(2, "x = 1\n"), (10, "y = x + 1_000\n")]
    assert blocks[1].previous is blocks[0]
    assert runnable_code(blocks[1]) == "y = x + 2\n"
    with pytest.raises(ValueError, match="does not occur"):
        runnable_code(Block("p.md", 1, "z = 3\n", ['replace "9" "8"']))
    with pytest.raises(ValueError, match="unknown docs-test directive"):
        parse_blocks("p.md", "<!-- docs-test: skip -->\n```python\npass\n```\n")


def test_there_are_blocks_to_run():
    # The README's usage and the env pages hold runnable recipes; an empty collection would
    # mean the parser broke, not that the docs have no code.
    paths = {b.path for b in BLOCKS}
    assert "README.md" in paths and "docs/index.md" in paths
    assert len(BLOCKS) >= 5
