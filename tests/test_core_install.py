"""What a core install (``pip install tabletop-gym``, no extras) sees: the standard checkers pass.

Gymnasium's ``check_env`` and PettingZoo's ``render_test`` make an env in every declared render
mode, ``"human"`` included, and render it. Without pygame (the ``human`` extra) the human mode
prints the table as text (docs/design.md, "One AEC adapter"). ``make test`` runs this file in
``.venv-core``, which installs the package without extras (``TABLETOP_GYM_CORE_ONLY=1``); in the
other venvs pygame is hidden for each test, so the fallback is checked everywhere.

Regression tests of issue #26 item 1 (26 of 26 ``check_env`` calls raised ``ImportError:
render_mode="human" needs pygame`` on a core install).
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import pathlib
import sys
import sysconfig
import warnings

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env

import tabletop_gym  # registers the ids
from tabletop_gym.envs import positano_v0, rapa_nui_v0

CORE_ONLY = os.environ.get("TABLETOP_GYM_CORE_ONLY") == "1"
EXTRAS = ("pygame", "torch", "jax", "stable_baselines3", "sb3_contrib", "matplotlib", "moviepy",
          "starlette", "ray")


@pytest.fixture
def no_pygame(monkeypatch):
    """``import pygame`` fails, as on a core install."""
    monkeypatch.setitem(sys.modules, "pygame", None)


def test_the_core_venv_has_no_extra_and_the_others_have_the_human_one():
    found = {name: importlib.util.find_spec(name) is not None for name in EXTRAS}
    if CORE_ONLY:
        assert not any(found.values()), f"a core install must not have {found}"
    else:
        assert found["pygame"], "the full venv installs the human extra"


def test_the_core_venv_tests_the_installed_wheel_not_the_checkout():
    # Issue 39 item 8: `make test` runs these tests in .venv-core from an unpacked sdist without
    # the package's source, so `import tabletop_gym` finds the installed wheel (not editable).
    package = pathlib.Path(tabletop_gym.__file__).resolve().parent
    tests_root = pathlib.Path(__file__).resolve().parent.parent
    if not CORE_ONLY:
        assert package.parent == tests_root  # the other venvs test the checkout
        return
    assert package.parent == pathlib.Path(sysconfig.get_paths()["purelib"]).resolve()
    assert not (tests_root / "tabletop_gym").exists()
    # installed from a wheel: its files are the distribution's own (an editable install lists
    # a path hook instead)
    files = {str(f) for f in importlib.metadata.files("tabletop-gym")}
    assert {"tabletop_gym/__init__.py", "tabletop_gym/agents/checkpoints/rapa_nui_2p.zip"} <= files


@pytest.mark.parametrize("seat_mode", ["fixed", "rotate", "random"])
@pytest.mark.parametrize(("env_id", "cfg"), [("Positano-v0", {}), ("Positano-v0", {"num_players": 2}),
                                            ("RapaNui-v0", {}), ("RapaNui-v0", {"num_players": 3})],
                         ids=["positano-solo", "positano-2p", "rapa_nui-2p", "rapa_nui-3p"])
def test_check_env_with_every_render_mode_without_pygame(env_id, cfg, seat_mode, no_pygame,
                                                         capsys):
    env = gymnasium.make(env_id, seat_mode=seat_mode, opponents="random", **cfg)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(env.unwrapped)  # renders in "ansi", "rgb_array" and "human"
    out = capsys.readouterr().out
    assert "pygame is not installed" in out and "showing the table as text" in out


@pytest.mark.parametrize("factory", [rapa_nui_v0.env, positano_v0.env], ids=["rapa_nui", "positano"])
def test_pettingzoo_render_test_without_pygame(factory, no_pygame, capsys):
    from pettingzoo.test import render_test

    render_test(factory)
    out = capsys.readouterr().out
    # one note per human env, then a table per render() call (render_test renders 5 times)
    assert out.count("pygame is not installed") == 1
    assert out.count("showing the table as text") == 1


@pytest.mark.parametrize("factory", [rapa_nui_v0.raw_env, positano_v0.raw_env],
                         ids=["rapa_nui", "positano"])
def test_human_text_is_the_public_ansi_view(factory, no_pygame, capsys):
    human = factory(num_players=2, render_mode="human")
    ansi = factory(num_players=2, render_mode="ansi", render_view="public")
    human.reset(seed=3)
    ansi.reset(seed=3)
    assert human.render() is None
    out = capsys.readouterr().out
    note, _, table = out.partition("\n")
    assert note.startswith(f"[{human.metadata['name']}: pygame is not installed")
    assert 'pip install "tabletop-gym[human]"' in note
    assert table == ansi.render().rstrip("\n") + "\n\n"
    human.render()  # the note is printed once; later frames are the table alone
    assert capsys.readouterr().out == table
