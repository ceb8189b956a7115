"""Every file the package reads at run time is in the installed package (issue 39 item 8).

``make test`` runs this file twice: in ``.venv`` against the checkout, and in ``.venv-core``
against the installed wheel (``TABLETOP_GYM_CORE_ONLY=1``), from an unpacked sdist without the
package's source, so a data file that the wheel leaves out fails there.
"""

from __future__ import annotations

import pathlib

import numpy as np

import tabletop_gym
from tabletop_gym._commit import COMMIT_FILE

PACKAGE = pathlib.Path(tabletop_gym.__file__).resolve().parent

RUN_TIME_FILES = {
    # The reference scores and the results schema of the task suite (tasks/runner.py).
    "tasks/reference_scores.json",
    "tasks/results.schema.json",
    # The frozen reference ladder's members and ratings (tabletop-gym ladder).
    "arena/ladder.json",
    # The shipped checkpoints: MaskablePPO (`ppo`), jax-ppo policies, distilled heuristics.
    "agents/checkpoints/positano_1p.zip",
    "agents/checkpoints/rapa_nui_2p.zip",
    "agents/checkpoints/jax_ppo_positano_2p.npz",
    "agents/checkpoints/jax_ppo_rapa_nui_2p.npz",
    "agents/checkpoints/heuristic_net_positano_2p.npz",
    "agents/checkpoints/heuristic_net_rapa_nui_2p.npz",
    "agents/checkpoints/heuristic_net_positano_4p.npz",
    "agents/checkpoints/heuristic_net_rapa_nui_4p.npz",
    "agents/checkpoints/heuristic_net_positano_1p.npz",
    # The distilled heuristics' second version (heuristic-net-v2, the search's continuation).
    "agents/checkpoints/heuristic_net_v2_positano_1p.npz",
    "agents/checkpoints/heuristic_net_v2_positano_2p.npz",
    "agents/checkpoints/heuristic_net_v2_positano_4p.npz",
    "agents/checkpoints/heuristic_net_v2_rapa_nui_4p.npz",
    # Its third version (heuristic-net-v3, Positano's search at 2 and 4 players).
    "agents/checkpoints/heuristic_net_v3_positano_2p.npz",
    "agents/checkpoints/heuristic_net_v3_positano_4p.npz",
    # The web app's pages and static files (web/app.py).
    "web/pages/index.html",
    "web/pages/game.html",
    "web/pages/replay.html",
    "web/pages/board.html",
    "web/pages/frame.html",
    "web/static/app.js",
    "web/static/style.css",
    # PEP 561: the package is typed.
    "py.typed",
}
"""Every file of the package that is not Python; the rules summaries are Python modules."""


def data_files(package: pathlib.Path) -> set[str]:
    """The files under ``package`` that are not Python (nor the build's commit)."""
    return {str(p.relative_to(package)) for p in package.rglob("*")
            if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts
            and p.name != COMMIT_FILE}


def test_every_data_file_of_the_package_is_listed_and_present():
    # In the checkout: a new data file must be listed here. In the wheel's venv: every listed
    # file must have been installed.
    assert data_files(PACKAGE) == RUN_TIME_FILES


def test_the_packages_file_paths_point_into_the_package_and_load():
    from tabletop_gym.agents.base import (
        CHECKPOINTS,
        checkpoint_path,
        jax_checkpoint_path,
        shipped_file,
    )
    from tabletop_gym.agents.kinds import make_agent
    from tabletop_gym.envs import positano_v0, rapa_nui_v0
    from tabletop_gym.tasks.runner import REFERENCE_FILE, SCHEMA_FILE, load_references

    raw_envs = {"positano": positano_v0.raw_env, "rapa_nui": rapa_nui_v0.raw_env}
    assert CHECKPOINTS == PACKAGE / "agents" / "checkpoints"
    assert {REFERENCE_FILE, SCHEMA_FILE} == {PACKAGE / "tasks" / "reference_scores.json",
                                             PACKAGE / "tasks" / "results.schema.json"}
    assert "RapaNui-2p-vsHeuristic-v0" in load_references()["tasks"]
    from tabletop_gym.arena.ladder import LADDER_FILE, MEMBERS, load_ladder

    assert LADDER_FILE == PACKAGE / "arena" / "ladder.json"
    assert list(load_ladder()["ratings"]) == list(MEMBERS)
    for game, players, zip_name in (("positano", 1, "positano_1p.zip"),
                                    ("rapa_nui", 2, "rapa_nui_2p.zip")):
        env = raw_envs[game](num_players=players)
        assert checkpoint_path(env.game) == CHECKPOINTS / zip_name
    for game in ("positano", "rapa_nui"):
        assert jax_checkpoint_path(game, 2).is_file()
        for players in (1, 2, 4) if game == "positano" else (2, 4):
            assert shipped_file(f"heuristic_net_{game}_{players}p.npz", "*.npz",
                                "missing").is_file()
        # jax-ppo plays with numpy alone: its policy is read from the installed package.
        env = raw_envs[game](num_players=2)
        env.reset(seed=0)
        agent = make_agent("jax-ppo", env.game, env.observer, np.random.default_rng(0))
        obs = env.observe(env.agent_selection)
        assert obs["action_mask"][agent.act(obs)] == 1
