"""The browser front end: ``tabletop-gym serve`` (needs the ``web`` extra).

Start a game of either game with any configuration, each seat a human or an agent; play a seat
with the board drawn in the page (the same scene as the ``rgb_array`` picture, as SVG) and only
that seat's information shown; watch agents play at a chosen speed; step through saved game
records. The server holds every game; see :mod:`tabletop_gym.web.app` for the API.
"""

from __future__ import annotations
