"""``tabletop-gym train --backend rllib``: without Ray, one clear line that names the extra and
the venv recipe; flags of one backend are refused by the other. (Training on RLlib itself is
tested in ``.venv-rllib``: tests/integrations/rllib/test_selfplay.py.)"""

from __future__ import annotations

import sys

import pytest

from tabletop_gym import cli


def test_rllib_backend_without_ray_names_the_extra_and_the_venv(monkeypatch, capsys):
    # None in sys.modules makes `import ray` fail, as in a venv without the extra.
    for name in ("ray", "ray.rllib"):
        monkeypatch.setitem(sys.modules, name, None)
    code = cli.main(["train", "--backend", "rllib", "--env", "positano", "--players", "3",
                     "--iterations", "1"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("tabletop-gym train: error: the RLlib backend needs Ray RLlib")
    assert 'pip install "tabletop-gym[rllib]"' in err and ".venv-rllib" in err
    assert "Traceback" not in err and err.count("\n") == 1


@pytest.mark.parametrize(("argv", "message"), [
    (["--iterations", "3"], "--iterations is a flag of --backend rllib"),
    (["--num-env-runners", "2"], "--num-env-runners is a flag of --backend rllib"),
    (["--mapping", "pool"], "--mapping is a flag of --backend rllib"),
    (["--backend", "rllib", "--timesteps", "10"], "--timesteps and --n-envs are flags of"),
    (["--backend", "rllib", "--env", "rapa-nui"],
     "unknown game 'rapa-nui' (did you mean 'rapa_nui'?); known games: ['rapa_nui', "
     "'positano']"),
])
def test_each_backend_refuses_the_others_flags(argv, message, capsys):
    assert cli.main(["train", *argv]) == 2
    assert message in capsys.readouterr().err
