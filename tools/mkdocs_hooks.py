"""MkDocs hooks of the documentation site (``mkdocs.yml`` names this file under ``hooks``).

* Every page under ``docs/`` is in the navigation: pages the ``nav`` of ``mkdocs.yml`` does not
  list are appended under "More", so a page added to ``docs/`` is never left out of the site.
* The pictures of both games are drawn by the package itself at build time (``img/*.png``), so
  they always show what the installed renderer draws.
* ``<!-- cli-help: ARGS -->`` in a page becomes the help text of ``tabletop-gym ARGS --help``,
  taken from the command's own argument parser at build time, so it cannot drift from the code.
"""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path
from typing import Any

_CLI_HELP = re.compile(r"^<!-- cli-help:(?P<args>[^>]*)-->$", re.M)

PICTURES = {
    # file in the site: (env module, config, seed, decisions played before the picture)
    "img/positano.png": ("positano_v0", {"num_players": 3}, 3, 40),
    "img/rapa_nui.png": ("rapa_nui_v0", {"num_players": 3}, 5, 60),
}


def _nav_pages(nav: Any) -> set[str]:
    """Every page path the ``nav`` configuration names."""
    found: set[str] = set()
    if isinstance(nav, str):
        found.add(nav)
    elif isinstance(nav, list):
        for item in nav:
            found |= _nav_pages(item)
    elif isinstance(nav, dict):
        for value in nav.values():
            found |= _nav_pages(value)
    return found


def on_config(config: Any, **kwargs: Any) -> Any:
    """Append the pages of ``docs/`` that ``nav`` does not list, in path order, under "More"."""
    nav = config["nav"]
    if nav is None:
        return config
    listed = _nav_pages(nav)
    docs = Path(config["docs_dir"])
    missing = sorted(
        str(p.relative_to(docs).as_posix())
        for p in docs.rglob("*.md")
        if str(p.relative_to(docs).as_posix()) not in listed
    )
    if missing:
        nav.append({"More": missing})
    return config


def draw_picture(module: str, config: dict[str, Any], seed: int, moves: int) -> bytes:
    """A PNG of a game the package plays: random legal moves from a seeded deal, then render."""
    import importlib

    import numpy as np
    from PIL import Image

    env = importlib.import_module(f"tabletop_gym.envs.{module}").env(
        render_mode="rgb_array", **config
    )
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for i, agent in enumerate(env.agent_iter()):
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated or i >= moves:
            break
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        del agent
    frame = env.render()
    env.close()
    out = io.BytesIO()
    Image.fromarray(np.asarray(frame, dtype=np.uint8)).save(out, format="PNG")
    return out.getvalue()


def on_files(files: Any, config: Any, **kwargs: Any) -> Any:
    """Add the pictures of both games, drawn now by the package."""
    from mkdocs.structure.files import File

    for path, (module, cfg, seed, moves) in PICTURES.items():
        files.append(File.generated(config, path, content=draw_picture(module, cfg, seed, moves)))
    return files


def cli_help(args: str) -> str:
    """``tabletop-gym ARGS --help`` as the command prints it (80 columns)."""
    import os

    from tabletop_gym.cli import build_parser

    out = io.StringIO()
    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "80"
    try:
        with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
            build_parser().parse_args([*args.split(), "--help"])
    finally:
        if old is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = old
    return out.getvalue().rstrip()


def on_page_markdown(markdown: str, **kwargs: Any) -> str:
    """Replace each ``<!-- cli-help: ARGS -->`` line with the command's help text."""
    return _CLI_HELP.sub(lambda m: f"```text\n{cli_help(m.group('args').strip())}\n```", markdown)
