"""How the commands read their ``KEY=VALUE`` items and write their lines at once, to files too."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any


def parse_assignments(items: Sequence[str], flag: str) -> dict[str, Any]:
    """``KEY=VALUE`` items as a dict; a value is read as JSON where it parses, else as a string.

    Args:
        items: The items after ``flag``, e.g. ``["lr=0.001", "hidden=[256,256]", "opponents=x"]``.
        flag: The option they came with (``--set``, ``--hp``), named in the error.

    Raises:
        ValueError: For an item without ``=`` or with an empty key; nothing is returned then.
    """
    out: dict[str, Any] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        if not sep or not key:
            raise ValueError(f"{flag} expects key=value items, e.g. {flag} name=1; got {item!r}")
        try:
            out[key] = json.loads(raw)
        except json.JSONDecodeError:
            out[key] = raw
    return out


def line_buffered(stream: Any) -> None:
    """Write ``stream`` out at every newline, also into a file or a pipe.

    Python block-buffers stdout there, so a long command (``train``, ``league``, ``eval``,
    ``suite train``, ...) logged with ``> run.log`` would show nothing for minutes. A stream that
    cannot be reconfigured (a test's capture) is left as it is.
    """
    reconfigure = getattr(stream, "reconfigure", None)
    if reconfigure is not None:
        reconfigure(line_buffering=True)
