"""The optional extras, and the checks that a command makes before the work that needs one.

A core install (``pip install tabletop-gym``) plays every game with the random, heuristic, ISMCTS
and ``jax:`` agents (the last with numpy alone). Anything else needs an extra, and a command
says which before it plays, trains or writes anything, naming the pip command; a figure that is
only a by-product (a league's heatmap, a report's plot) is skipped with a note instead
(docs/cli.md, "Extras").
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence

EXTRAS: dict[str, tuple[str, ...]] = {
    "train": ("torch", "stable_baselines3", "sb3_contrib", "matplotlib", "tqdm", "rich"),
    "jax": ("jax", "optax", "flax"),
    "llm": ("openai",),
    "verifiers": ("openai", "datasets", "verifiers"),
    "web": ("starlette", "uvicorn"),
    "rllib": ("ray",),
    "bench": ("pyspiel", "pettingzoo.classic"),
    "human": ("pygame",),
    "video": ("moviepy",),
    "openspiel": ("pyspiel",),
    "datasets": ("pyarrow", "minari", "h5py"),
}
"""The modules of each extra of ``pyproject.toml`` that the package imports, in import order
(a library before the ones built on it, so the first missing one is the one to name)."""

PPO_MODULES = ("torch", "stable_baselines3", "sb3_contrib")
"""What loading a MaskablePPO checkpoint imports (the ``train`` extra). What each agent kind
needs is declared with the kind (:mod:`tabletop_gym.agents.kinds`)."""

FIGURE_MODULES = ("matplotlib",)
"""What drawing a figure imports (the ``train`` extra)."""


class MissingExtraError(ImportError):
    """A feature was asked for whose extra is not installed; the message says how to get it."""


def install_command(extra: str) -> str:
    """The pip command that installs ``extra``."""
    return f'pip install "tabletop-gym[{extra}]"'


def missing_module(extra: str, modules: Sequence[str] | None = None) -> str | None:
    """The first of ``modules`` (default: all of ``extra``'s) that cannot be imported, or ``None``.

    Each is imported, not only looked up: a module that is present but broken is missing too.

    Raises:
        KeyError: For an extra the package does not declare.
    """
    for name in EXTRAS[extra] if modules is None else modules:
        try:
            importlib.import_module(name)
        except ImportError:
            return name
    return None


def require(extra: str, what: str, modules: Sequence[str] | None = None) -> None:
    """Raise :class:`MissingExtraError` unless ``modules`` of ``extra`` can be imported.

    Args:
        extra: The extra's name in ``pyproject.toml``.
        what: What needs it, as the message's subject (``"the agent 'ppo'"``).
        modules: The modules to check (default: every module of the extra).
    """
    name = missing_module(extra, modules)
    if name is not None:
        raise MissingExtraError(f"{what} needs the {extra} extra ({name} is not installed): "
                                f"{install_command(extra)}")


def figure_note(figure: str, flag: str) -> str | None:
    """A note that ``figure`` will not be drawn (no matplotlib), or ``None`` when it can be.

    Args:
        figure: What is skipped (``"the heatmap league.png"``).
        flag: The command's flag that skips it (the note says it silences the note).
    """
    name = missing_module("train", FIGURE_MODULES)
    if name is None:
        return None
    return (f"note: {name} is not installed, so {figure} is not drawn (the rest is written); "
            f"{install_command('train')} draws it, {flag} skips it without this note")
