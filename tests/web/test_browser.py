"""The web app in a real browser: headless Chromium plays whole games by clicking.

The browser is the system's Chromium (Debian's ``chromium`` package, which ``make test`` installs
with apt-get when it can), driven by Playwright with ``executable_path``; Playwright never
downloads a browser here. Where no Chromium can be had the tests skip and say what is missing.

``TABLETOP_GYM_SCREENSHOTS=docs/images`` makes the play tests save their screenshot of each game
there (``make screenshots``); otherwise the screenshots go to the test's temporary folder.
"""

from __future__ import annotations

import json
import os
import pathlib
import random
import shutil
import socket
import threading
import time

import pytest

pytest.importorskip("starlette", reason="the web app needs the web extra (starlette, uvicorn)")
uvicorn = pytest.importorskip("uvicorn", reason="the web app needs the web extra (uvicorn)")
sync_api = pytest.importorskip(
    "playwright.sync_api", reason="the browser tests need playwright (the web-test extra)")

from tabletop_gym.core.records import GameRecord  # noqa: E402
from tabletop_gym.web.app import create_app  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The app served by uvicorn on a free localhost port, in a thread."""
    runs = tmp_path_factory.mktemp("runs")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    app = create_app(runs_dir=runs, save_dir=runs / "web")
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not srv.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}", app.state.hub
    srv.should_exit = True
    thread.join(timeout=30)


@pytest.fixture(scope="module")
def browser():
    if CHROMIUM is None:
        pytest.skip("no Chromium found (neither 'chromium' nor 'chromium-browser' is on PATH): "
                    "install Debian's chromium package (apt-get install chromium; make test does "
                    "this when it runs as root)")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


def _screenshot_path(tmp_path: pathlib.Path, name: str) -> pathlib.Path:
    folder = os.environ.get("TABLETOP_GYM_SCREENSHOTS")
    out = pathlib.Path(folder) if folder else tmp_path
    out.mkdir(parents=True, exist_ok=True)
    return out / name


def _start(page, base: str, game: str, seats: list[str], seed: int) -> None:
    """Fill in the new-game form and start."""
    page.goto(base + "/")
    page.select_option("#game", game)
    page.fill("#cfg-num_players", str(len(seats)))
    page.dispatch_event("#cfg-num_players", "input")
    for q, kind in enumerate(seats):
        page.fill(f"#seat-{q}", kind)
    page.fill("#seed", str(seed))
    page.click("#start")
    page.wait_for_url("**/game/**")


READY = """() => {
  const st = document.getElementById('status');
  return st.dataset.busy === 'false' && (st.dataset.over === 'true' ||
    document.querySelectorAll('#moves button').length > 0);
}"""


@pytest.mark.parametrize("game", ["positano", "rapa_nui"])
def test_play_a_whole_game_by_clicking_against_the_heuristic(server, browser, game, tmp_path):
    base, hub = server
    page = browser.new_page(viewport={"width": 1500, "height": 1000})
    _start(page, base, game, ["human", "heuristic"], seed=11)
    assert "#token=" in page.url  # the seat's private link
    page.select_option("#speed", "0")
    rng = random.Random(11)
    clicks = 0
    shot = _screenshot_path(tmp_path, f"web_{game}.png")
    while True:
        page.wait_for_function(READY, timeout=60_000)
        if page.get_attribute("#status", "data-over") == "true":
            break
        buttons = page.locator("#moves button")
        n = buttons.count()
        done = int(page.get_attribute("#status", "data-actions"))
        if clicks == 6:
            # mid-game, with the moves to choose from: the picture for the docs
            page.screenshot(path=str(shot), full_page=True)
        buttons.nth(rng.randrange(n)).click()
        clicks += 1
        page.wait_for_function(
            f"() => Number(document.getElementById('status').dataset.actions) > {done}",
            timeout=60_000)
        assert clicks < 400, "the game did not end"
    assert clicks >= 10
    shown = json.loads(page.get_attribute("#scores", "data-scores"))
    # the record the page offers, replayed in the engine, gives the scores the page shows
    href = page.get_attribute("#record", "href")
    rec = GameRecord.from_json(page.request.get(base + href).text())
    assert rec.game == game and rec.provenance["seats"] == ["human", "heuristic"]
    state = rec.replay()
    assert state.is_terminal()
    assert [float(s) for s in state.scores()] == shown
    # and the log lists every action
    assert page.locator("#log li").count() == len(rec.actions)
    assert shot.stat().st_size > 10_000
    page.close()


def test_watch_agents_then_step_back_and_forth_through_the_record(server, browser):
    base, hub = server
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    _start(page, base, "rapa_nui", ["random", "heuristic"], seed=4)
    assert "#token=" not in page.url  # no human seat: the public view
    page.select_option("#speed", "0")
    page.wait_for_function(
        "() => document.getElementById('status').dataset.over === 'true'", timeout=120_000)
    assert page.locator("#moves button").count() == 0
    shown = json.loads(page.get_attribute("#scores", "data-scores"))
    rec = GameRecord.from_json(page.request.get(base + page.get_attribute("#record", "href"))
                               .text())
    # the saved record is listed on the start page and opens in the replay page
    page.goto(base + "/")
    page.locator("#records button").first.click()
    page.wait_for_url("**/replay/**")
    page.wait_for_selector("#status[data-step='0']")
    page.click("#next")
    page.wait_for_selector("#status[data-step='1']")
    assert page.locator("#log li").count() == 1
    page.click("#last")
    page.wait_for_selector(f"#status[data-step='{len(rec.actions)}']")
    assert json.loads(page.get_attribute("#scores", "data-scores")) == shown
    page.click("#prev")
    page.wait_for_selector(f"#status[data-step='{len(rec.actions) - 1}']")
    assert page.locator("#scores").count() == 0
    page.close()
