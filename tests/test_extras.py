"""Every command that needs an extra says so before it works, naming the pip command
(issue 39 item 5).

Each command runs in a child process in which the extra's modules cannot be imported
(``sys.modules[name] = None``, as on an install without the extra). Before the fix, with the
``llm`` extra only, ``league ... "llm:..."`` played all 40 games and then stopped on
``No module named 'matplotlib'``; ``eval --candidate ppo`` said only ``No module named
'sb3_contrib'`` and ``train --env RapaNui-v0`` only ``No module named 'torch'``.
"""

from __future__ import annotations

import importlib
import os
import pathlib
import re
import subprocess
import sys
from importlib.metadata import metadata

import pytest

from tabletop_gym.agents.kinds import agent_extra
from tabletop_gym.extras import EXTRAS, MissingExtraError, require

ROOT = pathlib.Path(__file__).resolve().parent.parent
LLM = "llm:stub@http://127.0.0.1:9/v1"
CORE_ONLY = os.environ.get("TABLETOP_GYM_CORE_ONLY") == "1"


def run_cli(argv: list[str], blocked: tuple[str, ...], cwd: pathlib.Path,
            merged: bool = False) -> subprocess.CompletedProcess[str]:
    """``tabletop-gym ARGV`` in a child in which the ``blocked`` modules cannot be imported."""
    code = ("import sys\n"
            f"for name in {blocked!r}:\n"
            "    sys.modules[name] = None  # `import name` raises ImportError\n"
            "from tabletop_gym.cli import main\n"
            f"raise SystemExit(main({argv!r}))\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH",
                                                                                  "")])}
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, text=True,
                          capture_output=not merged, timeout=300,
                          **({"stdout": subprocess.PIPE, "stderr": subprocess.STDOUT}
                             if merged else {}))


REFUSED = [
    # (command line, modules made unimportable, the extra the message names)
    (["eval", "--game", "rapa_nui", "--players", "2", "--candidate", "ppo", "--opponent",
      "heuristic", "--games", "20", "--out", "out/eval"], ("sb3_contrib",), "train"),
    (["eval", "--game", "rapa_nui", "--players", "2", "--candidate", "heuristic", "--opponent",
      "ppo", "--games", "2"], ("torch",), "train"),
    (["eval", "--game", "rapa_nui", "--players", "2", "--candidate", LLM, "--games", "2"],
     ("openai",), "llm"),
    (["eval", "--game", "rapa_nui", "--players", "2", "--candidate", "search:jax-ppo?worlds=2",
      "--games", "2", "--out", "out/eval"], ("jax",), "jax"),
    (["league", "--game", "rapa_nui", "--players", "2", "--agents", "heuristic", LLM,
      "--out", "out/league"], ("openai",), "llm"),
    (["league", "--game", "rapa_nui", "--players", "2", "--agents", "random", "heuristic",
      "ppo", "--games", "2", "--out", "out/league"], ("sb3_contrib",), "train"),
    (["play", "--game", "rapa_nui", "--players", "2", "--opponents", "ppo"], ("torch",),
     "train"),
    (["train", "--env", "RapaNui-v0", "--timesteps", "64", "--out", "out/train"], ("torch",),
     "train"),
    (["train", "--backend", "jax", "--game", "rapa_nui", "--opponents", "heuristic-net",
      "--timesteps", "64", "--out", "out/train"], ("jax",), "jax"),
    (["serve", "--port", "0"], ("starlette",), "web"),
    (["suite", "run", "--agent", "ppo", "--task", "RapaNui-2p-vsHeuristic-v0", "--seeds", "1",
      "--out", "out/suite.json"], ("sb3_contrib",), "train"),
    (["suite", "run", "--agent", f"rapa_nui={LLM}", "--agent", "positano=heuristic",
      "--out", "out/suite.json"], ("openai",), "llm"),
    (["suite", "train", "--algo", "sb3-ppo", "--task", "RapaNui-2p-vsHeuristic-v0", "--seeds", "1",
      "--out", "out/suite-train"], ("torch",), "train"),
    (["suite", "train", "--algo", "jax-ppo", "--task", "RapaNui-2p-vsHeuristic-v0", "--seeds", "1",
      "--out", "out/suite-train"], ("jax",), "jax"),
    (["suite", "train", "--algo", "bc", "--task", "RapaNui-2p-vsHeuristic-v0", "--seeds", "1",
      "--out", "out/suite-train"], ("pyarrow",), "datasets"),
    (["suite", "leagues", "--league", "rapa_nui-2p", "--out", "out/leagues"], ("torch",),
     "train"),
    (["dataset", "make", "--task", "RapaNui-2p-vsHeuristic-v0", "--policy", "heuristic",
      "--episodes", "2", "--format", "parquet", "--out", "out/games"], ("pyarrow",), "datasets"),
    (["dataset", "make", "--task", "RapaNui-2p-vsHeuristic-v0", "--policy", "heuristic",
      "--episodes", "2"], ("minari",), "datasets"),
    (["dataset", "verify", "out/games"], ("pyarrow",), "datasets"),
    (["dataset", "merge", "out/a", "out/b", "--out", "out/games"], ("pyarrow",), "datasets"),
    # With the datasets extra there (a core install names that one first, as the case above):
    *([] if CORE_ONLY else [
        (["dataset", "make", "--task", "RapaNui-2p-SelfPlay-v0", "--policy", "heuristic",
          "--episodes", "2", "--format", "parquet", "--annotate", "search:jax-ppo?worlds=2",
          "--annotated-games", "1", "--out", "out/games"], ("jax",), "jax")]),
    (["dataset", "clone", "out/games", "--out", "out/policy.npz"], ("pyarrow",), "datasets"),
    (["dataset", "baseline", "--source-task", "RapaNui-2p-SelfPlay-v0", "--policy", "heuristic",
      "--games", "4", "--task", "RapaNui-2p-vsHeuristic-v0", "--out", "out/bc.json"],
     ("pyarrow",), "datasets"),
    (["dataset", "card", "out/games", "--out", "out/card.json"], ("pyarrow",), "datasets"),
    (["dataset", "card", "--minari", "tabletop_gym/RapaNui-2p-vsHeuristic-v0/heuristic-v0",
      "--out", "out/card.json"], ("minari",), "datasets"),
]


@pytest.mark.parametrize(("argv", "blocked", "extra"), REFUSED,
                         ids=[" ".join([*a[:2], b[0]]) + f" {i}"
                              for i, (a, b, _) in enumerate(REFUSED)])
def test_a_command_names_its_missing_extra_before_any_work(argv, blocked, extra, tmp_path):
    done = run_cli(argv, blocked, tmp_path)
    assert done.returncode == 2, done.stderr
    line = done.stderr.strip()
    assert "\n" not in line and "Traceback" not in line  # one line, no traceback
    assert line.startswith(f"tabletop-gym {argv[0]}: error: ")
    # names the blocked module, or on a core install (.venv-core) the extra's first missing one
    assert re.search(rf"needs the {extra} extra \([\w.]+ is not installed\): "
                     rf'pip install "tabletop-gym\[{extra}\]"$', line), line
    if not CORE_ONLY:
        assert f"({blocked[0]} is not installed)" in line
    assert done.stdout == ""  # nothing played, trained or printed
    assert not (tmp_path / "out").exists()  # and nothing written


def test_dataset_baseline_names_torch_before_playing_its_games(tmp_path):
    # The clone needs torch after minutes of games: the command checks it before the first one.
    argv = ["dataset", "baseline", "--source-task", "RapaNui-2p-SelfPlay-v0", "--policy",
            "heuristic", "--games", "4", "--task", "RapaNui-2p-vsHeuristic-v0", "--out",
            "out/bc.json"]
    done = run_cli(argv, ("torch",), tmp_path)
    assert done.returncode == 2, done.stderr
    extra = "datasets" if CORE_ONLY else "train"  # a core install lacks pyarrow, checked first
    assert re.fullmatch(rf"tabletop-gym dataset: error: .* needs the {extra} extra \([\w.]+ is "
                        rf'not installed\): pip install "tabletop-gym\[{extra}\]"',
                        done.stderr.strip()), done.stderr
    assert done.stdout == "" and not (tmp_path / "out").exists()


def test_league_without_matplotlib_says_first_that_it_skips_the_heatmap(tmp_path):
    # The documented league command with the llm extra only: the heatmap is a by-product, so
    # the league is played and saved without it, and the note comes before the first game.
    done = run_cli(["league", "--game", "rapa_nui", "--players", "2", "--agents", "random",
                    "heuristic", "--games", "2", "--bootstrap", "10", "--out", "out"],
                   ("matplotlib",), tmp_path, merged=True)
    assert done.returncode == 0, done.stdout
    lines = done.stdout.splitlines()
    assert lines[0] == ("note: matplotlib is not installed, so the heatmap league.png is not "
                        "drawn (the rest is written); pip install \"tabletop-gym[train]\" draws "
                        "it, --no-heatmap skips it without this note")
    assert re.match(r"\s+random vs heuristic\s+", lines[1])  # then the games
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["league.json", "league.md"]


def test_the_ppo_agent_names_its_extra_when_made_from_the_library(monkeypatch):
    from tabletop_gym.agents.kinds import make_agent
    from tabletop_gym.envs.rapa_nui_v0 import raw_env

    env = raw_env(num_players=2)
    # The extra is checked before the checkpoint is loaded (or found among the loaded ones).
    monkeypatch.setitem(sys.modules, "sb3_contrib", None)
    with pytest.raises(MissingExtraError, match=r"the agent 'ppo' \(a MaskablePPO checkpoint\) "
                       r'needs the train extra \((sb3_contrib|torch) is not installed\): pip '
                       r'install "tabletop-gym\[train\]"'):
        make_agent("ppo", env.game, env.observer)


def test_every_extra_named_is_declared_and_holds_its_modules():
    declared = metadata("tabletop-gym").get_all("Provides-Extra")
    assert set(EXTRAS) <= set(declared)
    # the agents: ppo and checkpoints need train, llm: needs llm, the rest the core install
    assert agent_extra("ppo")[0] == agent_extra("model.zip")[0] == "train"
    assert agent_extra(LLM)[0] == "llm"
    assert agent_extra("search:jax-ppo?worlds=4")[0] == agent_extra("search")[0] == "jax"
    for spec in ("random", "heuristic", "heuristic:woodsman", "ismcts:12:guided", "jax-ppo",
                 "jax:policy.npz"):
        assert agent_extra(spec) is None, spec
    with pytest.raises(MissingExtraError, match=r'^bench needs the train extra \(no_such_module_'
                       r'xyz is not installed\): pip install "tabletop-gym\[train\]"$'):
        require("train", "bench", ("no_such_module_xyz",))


@pytest.mark.parametrize(("argv", "blocked", "extra"), [
    (["bench", "--quick"], ("pyspiel",), "bench"),
    (["bench", "--reps", "1"], ("torch",), "train"),  # its PPO rows; --quick skips them
])
def test_bench_names_its_extras_before_it_measures(argv, blocked, extra):
    done = run_cli(argv, blocked, ROOT)  # bench runs bench/run.py of a source checkout
    assert done.returncode == 2, done.stderr
    if CORE_ONLY:
        extra = "bench"  # a core install lacks it too, and it is checked first
    assert re.fullmatch(rf"tabletop-gym bench: error: .* needs the {extra} extra \([\w.]+ is not "
                        rf'installed\): pip install "tabletop-gym\[{extra}\]"', done.stderr.strip())
    assert done.stdout == ""


def test_the_verifiers_environment_names_its_extra(monkeypatch):
    # The module checks its extra before importing verifiers (docs/llm.md, "verifiers").
    monkeypatch.setitem(sys.modules, "verifiers", None)
    monkeypatch.delitem(sys.modules, "tabletop_gym.integrations.verifiers_env", raising=False)
    first = "openai" if CORE_ONLY else "verifiers"  # a core install lacks openai, checked first
    with pytest.raises(MissingExtraError, match=rf"^tabletop_gym.integrations.verifiers_env needs "
                       rf"the verifiers extra \({first} is not installed\): pip install "
                       r'"tabletop-gym\[verifiers\]"$'):
        importlib.import_module("tabletop_gym.integrations.verifiers_env")


def test_the_bench_flag_reader():
    from tabletop_gym.cli import _flag_is

    assert _flag_is(["--ppo-steps", "0"], "--ppo-steps", "0")
    assert _flag_is(["--reps", "2", "--ppo-steps=0"], "--ppo-steps", "0")
    assert not _flag_is(["--ppo-steps", "10"], "--ppo-steps", "0")
    assert not _flag_is(["--ppo-steps"], "--ppo-steps", "0")


def test_suite_results_without_matplotlib_says_first_that_it_skips_the_figure(tmp_path):
    done = run_cli(["suite", "results", "--root", str(ROOT / "benchmarks"), "--out",
                    str(tmp_path / "results.md"), "--figure", str(tmp_path / "results.png")],
                   ("matplotlib",), tmp_path, merged=True)
    assert done.returncode == 0, done.stdout
    note, saved = done.stdout.splitlines()
    assert note == (f"note: matplotlib is not installed, so the figure {tmp_path / 'results.png'} "
                    "is not drawn (the rest is written); pip install \"tabletop-gym[train]\" "
                    "draws it, --no-figure skips it without this note")
    assert saved == f"saved {tmp_path / 'results.md'}"
    assert (tmp_path / "results.md").read_text().startswith("# ")
    assert not (tmp_path / "results.png").exists()
