"""How the commands write their lines: at once, also into a log file or a pipe."""

from __future__ import annotations

from typing import Any


def line_buffered(stream: Any) -> None:
    """Write ``stream`` out at every newline, also into a file or a pipe.

    Python block-buffers stdout there, so a long command (``train``, ``league``, ``eval``,
    ``suite train``, ...) logged with ``> run.log`` would show nothing for minutes. A stream that
    cannot be reconfigured (a test's capture) is left as it is.
    """
    reconfigure = getattr(stream, "reconfigure", None)
    if reconfigure is not None:
        reconfigure(line_buffering=True)
