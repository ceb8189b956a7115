"""The Starlette app of ``tabletop-gym serve``: pages and a JSON API over a :class:`GameHub`.

API (every answer is JSON; an error is ``{"error": message}`` with a 4xx status and changes
nothing):

* ``GET /api/catalog``: the games, their config switches and the agent names;
* ``POST /api/games`` ``{"game", "config", "seats", "seed"}``: a new game; the answer holds the
  token of each human seat (``seats`` lists ``"human"`` or an agent spec per seat);
* ``GET /api/games``: the games on the server (public facts only);
* ``GET /api/games/{id}``: the game as the holder of the ``X-Seat-Token`` header sees it (no
  token, or one that is not of this game: the public view);
* ``POST /api/games/{id}/move`` ``{"action": id}`` with ``X-Seat-Token``: a human's move;
* ``POST /api/games/{id}/advance``: the agent to act makes its move (the page calls it at the
  chosen speed);
* ``GET /api/games/{id}/record``: the game record, once the game is over;
* ``GET /api/records``: the records under the runs folder; ``POST /api/replays``
  ``{"record": ...}`` or ``{"path": ...}`` opens one; ``GET /api/replays/{id}?step=&view=``
  is the table after that many actions.
"""

from __future__ import annotations

import json
import pathlib
import string
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from tabletop_gym.web.games import GameHub, WebError, catalog

STATIC = pathlib.Path(__file__).resolve().parent / "static"
PAGES = pathlib.Path(__file__).resolve().parent / "pages"
"""The pages: ``frame.html`` (head, header, scripts) around each page's part (``board.html`` around
the side panel of a page that shows the table)."""
MAX_BODY = 4_000_000
"""Largest request body accepted (an uploaded record of a long game is well below it)."""

Handler = Callable[[Request], Awaitable[Response]]


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def _body(request: Request) -> Any:
    raw = await request.body()
    if len(raw) > MAX_BODY:
        raise WebError(413, f"the request body is larger than {MAX_BODY} bytes")
    try:
        return json.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise WebError(400, f"the request body is not valid JSON: {exc}") from None


def _token(request: Request) -> str | None:
    return request.headers.get("x-seat-token") or None


def _api(work: Callable[[Request], Awaitable[Any]]) -> Handler:
    """A JSON endpoint: the hub's :class:`WebError` becomes its status and message."""

    async def endpoint(request: Request) -> Response:
        try:
            return JSONResponse(await work(request))
        except WebError as err:
            return _error(err.status, err.message)

    return endpoint


def _template(name: str) -> string.Template:
    return string.Template((PAGES / name).read_text(encoding="utf-8"))


def render_page(name: str, heading: str, board: bool = False) -> str:
    """The HTML of page ``name``: ``pages/<name>.html`` in the shared frame.

    ``frame.html`` holds what every page shares (head, header, scripts); the page's script is
    ``TG.<name>Page()`` of ``static/app.js``. With ``board``, the page's part is the side panel
    of ``board.html`` (the drawn table on the left, the panel and the log on the right).
    """
    part = (PAGES / f"{name}.html").read_text(encoding="utf-8")
    if board:
        part = _template("board.html").substitute(side=part.rstrip("\n"))
    return _template("frame.html").substitute(
        title="tabletop-gym" if name == "index" else f"tabletop-gym: {name}",
        heading=heading,
        main=part.rstrip("\n"),
        script=f"TG.{name}Page();",
    )


def create_app(runs_dir: str | pathlib.Path | None = "runs",
               save_dir: str | pathlib.Path | None = "runs/web") -> Starlette:
    """The web app, with an empty hub.

    Args:
        runs_dir: The folder whose game records the replay page lists (``None``: none).
        save_dir: Where each finished game is written as a record (``None``: not written).
    """
    hub = GameHub(None if runs_dir is None else pathlib.Path(runs_dir),
                  None if save_dir is None else pathlib.Path(save_dir))

    async def get_catalog(request: Request) -> Any:
        return catalog()

    async def new_game(request: Request) -> Any:
        body = await _body(request)
        return await run_in_threadpool(hub.new_game, body)

    async def list_games(request: Request) -> Any:
        return hub.list_games()

    async def get_game(request: Request) -> Any:
        return await run_in_threadpool(hub.view, request.path_params["gid"], _token(request))

    async def move(request: Request) -> Any:
        body = await _body(request)
        return await run_in_threadpool(hub.move, request.path_params["gid"], _token(request), body)

    async def advance(request: Request) -> Any:
        return await run_in_threadpool(hub.advance, request.path_params["gid"], _token(request))

    async def record(request: Request) -> Any:
        rec = hub.game(request.path_params["gid"]).record()
        return json.loads(rec.to_json())

    async def list_records(request: Request) -> Any:
        return await run_in_threadpool(hub.records)

    async def new_replay(request: Request) -> Any:
        body = await _body(request)
        return await run_in_threadpool(hub.new_replay, body)

    async def get_replay(request: Request) -> Any:
        rep = hub.replay(request.path_params["rid"])
        q = request.query_params
        return await run_in_threadpool(rep.view, q.get("step", "0"), q.get("view", "public"))

    def page(name: str, heading: str, board: bool = False) -> Handler:
        html = render_page(name, heading, board)

        async def serve(request: Request) -> Response:
            return HTMLResponse(html)

        return serve

    routes = [
        Route("/", page("index", "tabletop-gym")),
        Route("/game/{gid}", page("game", "Game", board=True)),
        Route("/replay/{rid}", page("replay", "Replay", board=True)),
        Route("/api/catalog", _api(get_catalog)),
        Route("/api/games", _api(new_game), methods=["POST"]),
        Route("/api/games", _api(list_games), methods=["GET"]),
        Route("/api/games/{gid}", _api(get_game)),
        Route("/api/games/{gid}/move", _api(move), methods=["POST"]),
        Route("/api/games/{gid}/advance", _api(advance), methods=["POST"]),
        Route("/api/games/{gid}/record", _api(record)),
        Route("/api/records", _api(list_records)),
        Route("/api/replays", _api(new_replay), methods=["POST"]),
        Route("/api/replays/{rid}", _api(get_replay)),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes)
    app.state.hub = hub
    return app


def serve(host: str = "127.0.0.1", port: int = 8000, runs_dir: str | None = "runs",
          save_dir: str | None = "runs/web") -> None:
    """Run the app with uvicorn until interrupted (binds to localhost unless told otherwise)."""
    import uvicorn

    print(f"tabletop-gym serve: open http://{host}:{port}/ (Ctrl+C stops the server)")
    uvicorn.run(create_app(runs_dir, save_dir), host=host, port=port, log_level="warning")
