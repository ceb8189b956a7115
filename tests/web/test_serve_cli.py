"""``tabletop-gym serve``: binds to localhost unless told otherwise; bad arguments end cleanly."""

from __future__ import annotations

import pytest

pytest.importorskip("uvicorn", reason="the web app needs the web extra (starlette, uvicorn)")

import uvicorn

from tabletop_gym import cli


def test_serve_binds_to_localhost_by_default(monkeypatch, capsys):
    seen = {}

    def fake_run(app, host, port, **kwargs):
        seen.update(host=host, port=port, hub=app.state.hub)

    monkeypatch.setattr(uvicorn, "run", fake_run)
    assert cli.main(["serve"]) == 0
    assert (seen["host"], seen["port"]) == ("127.0.0.1", 8000)
    assert str(seen["hub"].runs_dir) == "runs" and str(seen["hub"].save_dir) == "runs/web"
    assert "http://127.0.0.1:8000/" in capsys.readouterr().out
    assert cli.main(["serve", "--host", "0.0.0.0", "--port", "8123", "--save", ""]) == 0
    assert (seen["host"], seen["port"], seen["hub"].save_dir) == ("0.0.0.0", 8123, None)


def test_serve_refuses_a_port_out_of_range(capsys):
    assert cli.main(["serve", "--port", "70000"]) == 2
    assert "--port must be 0..65535, got 70000" in capsys.readouterr().err
