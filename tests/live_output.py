"""Run a command in a child process and read its stdout line by line while it runs.

The child is held after its first line: it waits for a line on stdin, either where its code says
``hold()`` or at a later call of a function wrapped by ``hold_call``. While the child waits it cannot exit,
so a line read before the test answers was written out while the command ran, not at its end.
Nothing here depends on timing: without a flush the line stays in the child's buffer and the read
times out.
"""

from __future__ import annotations

import os
import pathlib
import queue
import subprocess
import sys
import threading

ROOT = pathlib.Path(__file__).resolve().parent.parent

PRELUDE = """
import importlib, sys

def hold():
    sys.stdin.readline()  # the test answers once it has read the first line

def hold_call(module, name, at):
    mod = importlib.import_module(module)
    real = getattr(mod, name)
    calls = [0]
    def held(*args, **kwargs):
        calls[0] += 1
        if calls[0] == at:
            hold()
        return real(*args, **kwargs)
    setattr(mod, name, held)

"""


def first_line_while_running(body: str, timeout: float = 120.0) -> tuple[str, str]:
    """Run the Python code ``body`` in a child; it calls ``hold()`` (or wraps a function with
    ``hold_call(module, name, at)``) to wait for the test after its first line.

    Returns:
        The first stdout line (read while the child is held) and everything after it.

    Raises:
        AssertionError: When no line comes while the child is held, or the child fails.
    """
    code = PRELUDE + body
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH",
                                                                                  "")])}
    env.pop("PYTHONUNBUFFERED", None)  # the child must buffer as a user's shell would
    child = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                             cwd=ROOT)
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        for line in child.stdout:
            lines.put(line)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        try:
            first = lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no line on stdout within {timeout:g} s while the command "
                                 "ran: its output is held in a buffer") from None
        assert child.poll() is None, "the child ended before it was answered"
        child.stdin.write("go\n")
        child.stdin.flush()
        child.stdin.close()
        rc = child.wait(timeout=timeout)
        reader.join(timeout=10)
        rest = "".join(lines.queue)
        assert rc == 0, child.stderr.read()
        return first, rest
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        reader.join(timeout=10)
        for pipe in (child.stdin, child.stdout, child.stderr):
            pipe.close()
