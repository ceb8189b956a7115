"""A small OpenAI-compatible chat-completions server on 127.0.0.1, answering from a script.

It stands in for a language model wherever an ``llm:`` spec is read (evaluation, leagues, the
web app's seats), so a pipeline is tried offline and repeatably: the tests serve their scripts
with it, and ``tools/docs_tables.py`` the transcripts of docs/llm.md. The server runs in a
thread of the calling process, listens on a free loopback port and never
reaches the network. It stops itself after ``max_requests`` requests or ``lifetime`` seconds,
whichever comes first, and on leaving its ``with`` block.

A script is a function ``script(messages, k) -> Reply`` (``k``: the request's number, from 0).
A :class:`Reply` is an answer (``content``), optionally after a delay (``sleep``), or a failure:
an HTTP status with an error body (``status``), or a body that is not a chat completion
(``raw``). A ``reasoning`` text is sent as the message's ``reasoning_content`` (as vLLM and
other servers of reasoning models do), its words counted as ``reasoning_tokens`` inside the
completion tokens.
"""

from __future__ import annotations

import dataclasses
import json
import re
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclasses.dataclass
class Reply:
    """What the server sends for one request."""

    content: str | None = None
    sleep: float = 0.0
    status: int = 200
    raw: bytes | None = None
    reasoning: str | None = None


Script = Callable[[list[dict[str, str]], int], Reply]


class ScriptedServer:
    """Serve ``script`` at ``http://127.0.0.1:<port>/v1``.

    Attributes:
        requests: Every request body received (parsed JSON), in order.
        base_url: The API root to give a client.
    """

    def __init__(self, script: Script, max_requests: int = 20000, lifetime: float = 300.0):
        self.script = script
        self.max_requests = max_requests
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                del args

            def do_POST(self) -> None:  # the name http.server calls
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                with server._lock:
                    k = len(server.requests)
                    server.requests.append(body)
                    server.headers.append({k.lower(): v for k, v in self.headers.items()})
                if not self.path.endswith("/chat/completions") or k >= server.max_requests:
                    self._send(404, b'{"error": {"message": "not here"}}')
                    return
                reply = server.script(body.get("messages", []), k)
                if reply.sleep:
                    time.sleep(reply.sleep)
                if reply.raw is not None:
                    self._send(reply.status, reply.raw)
                    return
                if reply.status != 200:
                    err = {"error": {"message": f"scripted failure {reply.status}",
                                     "type": "server_error"}}
                    self._send(reply.status, json.dumps(err).encode())
                    return
                prompt = sum(len(m.get("content", "").split()) for m in body["messages"])
                message: dict[str, Any] = {"role": "assistant", "content": reply.content}
                thought = len((reply.reasoning or "").split())
                completion = len((reply.content or "").split()) + thought
                usage: dict[str, Any] = {"prompt_tokens": prompt,
                                         "completion_tokens": completion,
                                         "total_tokens": prompt + completion}
                if reply.reasoning is not None:
                    message["reasoning_content"] = reply.reasoning
                    usage["completion_tokens_details"] = {"reasoning_tokens": thought}
                out = {
                    "id": f"chatcmpl-{k}", "object": "chat.completion", "created": 0,
                    "model": body.get("model", "scripted"),
                    "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
                    "usage": usage,
                }
                self._send(200, json.dumps(out).encode())

            def _send(self, status: int, data: bytes) -> None:
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout): nothing to answer

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self.port = self._httpd.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._timer = threading.Timer(lifetime, self.stop)
        self._timer.daemon = True

    def start(self) -> ScriptedServer:
        """Start serving (in a thread)."""
        self._thread.start()
        self._timer.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket."""
        self._timer.cancel()
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()


_MOVE = re.compile(r"^(\d+)\. (.+)$", re.MULTILINE)


def listed_moves(messages: list[dict[str, str]]) -> list[str]:
    """The numbered legal moves of the last view among ``messages``."""
    views = [m["content"] for m in messages if m["role"] == "user" and "== Decision ==" in
             m["content"]]
    return [name for _, name in _MOVE.findall(views[-1].rsplit("== Decision ==", 1)[1])]
