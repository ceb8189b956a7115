"""Render modes shared by the AEC, parallel and single-agent envs.

* ``"ansi"``: the table as text;
* ``"rgb_array"``: the drawn table (each game's ``picture`` module), one fixed frame size per
  configuration for the whole episode, so video writers accept it;
* ``"human"``: the same picture in a window (pygame, from the ``human`` extra); ``render()``
  returns ``None``. Without pygame, or without a screen to open a window on, the table is
  printed as text instead (the same view), with a one-time note, so a core install passes
  Gymnasium's ``check_env`` and PettingZoo's ``render_test`` in every declared mode.

Whose view is drawn is the ``render_view`` option: ``"public"`` (a spectator: public information
only; the default for ``rgb_array`` and ``human``), a seat number (that seat's view, its own hand
included), or the env's own default for text (``"acting"``: the seat to act, as the AEC env's
``ansi`` mode always showed; ``"learner"`` in the single-agent env).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any, TextIO

import numpy as np

from tabletop_gym.core.game import State

RENDER_MODES = ["ansi", "rgb_array", "human"]
"""Render modes every env offers."""


def check_render_view(view: Any, num_players: int, extra: tuple[str, ...] = ()) -> None:
    """Reject a ``render_view`` that is not ``None``, ``"public"``, a seat or one of ``extra``.

    Raises:
        ValueError: Naming the value and what is allowed.
    """
    if view is None or view == "public" or view in extra:
        return
    if isinstance(view, int) and not isinstance(view, bool) and 0 <= view < num_players:
        return
    allowed = ", ".join(repr(v) for v in ("public", *extra))
    raise ValueError(
        f"render_view={view!r} is not allowed; choose {allowed} or a seat 0..{num_players - 1}"
    )


def view_seat(view: Any, render_mode: str, default_seat: int | None) -> int | None:
    """The seat whose view to draw (``None``: public) for ``view`` and ``render_mode``.

    Args:
        view: The env's ``render_view`` (``None``: the mode's default).
        render_mode: ``"ansi"``, ``"rgb_array"`` or ``"human"``.
        default_seat: The seat a named default view (``"acting"``, ``"learner"``) stands for.
    """
    if view is None:
        return default_seat if render_mode == "ansi" else None
    if view == "public":
        return None
    if isinstance(view, int):
        return view
    return default_seat


def render_frame(
    text: Callable[[State, int | None], str],
    picture: Callable[[State, int | None], np.ndarray],
    state: State,
    seat: int | None,
    render_mode: str,
    window: HumanWindow | None = None,
) -> str | np.ndarray | None:
    """The render result of ``state`` seen by ``seat`` in ``render_mode``.

    ``human`` shows the picture in ``window`` and returns ``None``.
    """
    if render_mode == "ansi":
        return text(state, seat)
    if render_mode == "human":
        if window is None:
            raise RuntimeError('render_mode="human" needs the env\'s window; none was made')
        if not window.show(picture(state, seat) if window.graphical else None):
            window.show_text(text(state, seat))
        return None
    return picture(state, seat)


INVISIBLE_DRIVERS = ("offscreen", "dummy")
"""SDL video drivers that draw nowhere a person sees; used only when ``SDL_VIDEODRIVER`` asks."""


def no_display() -> str | None:
    """Why no window can be shown here, or ``None`` when one may be.

    On Linux and the BSDs a window needs an X11 (``DISPLAY``) or Wayland (``WAYLAND_DISPLAY``)
    display; without either, SDL would quietly draw off screen. ``SDL_VIDEODRIVER`` set by the
    user (``dummy`` for tests and servers, ``kmsdrm`` for a console) is taken as asked.
    """
    if os.environ.get("SDL_VIDEODRIVER") or sys.platform in ("darwin", "win32", "cygwin"):
        return None
    if os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
        return None
    return "no display to open a window on (DISPLAY and WAYLAND_DISPLAY are unset)"


class HumanWindow:
    """A pygame window that shows rgb frames (``render_mode="human"``), or text without one.

    pygame is imported on the first frame, so only the window needs the ``human`` extra; with
    ``SDL_VIDEODRIVER=dummy`` it runs headless (tests, servers). Where pygame is missing or no
    window can be opened or seen (no display: :func:`no_display`, or SDL fell back to drawing
    off screen), :meth:`show` says so and the env prints the table as text through
    :meth:`show_text`, after a one-time note that says why.

    Args:
        title: The window caption.
        fps: Frames per second to pace at (the env's ``render_fps``; 0: no pacing).
        out: Where the text fallback is written (default: ``sys.stdout`` at the time).
    """

    def __init__(self, title: str, fps: int = 0, out: TextIO | None = None):
        self.title = title
        self.fps = fps
        self.out = out
        self._screen: Any = None
        self._clock: Any = None
        self._no_window: str | None = None
        self._noted = False

    @property
    def graphical(self) -> bool:
        """Whether frames go to a window (False once pygame or a display proved missing)."""
        return self._no_window is None

    def show(self, frame: np.ndarray | None) -> bool:
        """Draw ``frame`` (``(H, W, 3)`` uint8) and pump the window's events.

        Returns:
            False when there is no window to draw in (pygame missing, no display): the caller
            shows the text view instead.
        """
        if frame is None or self._no_window is not None:
            return False
        try:
            import pygame
        except ImportError:
            self._no_window = 'pygame is not installed (pip install "tabletop-gym[human]")'
            return False
        h, w = frame.shape[:2]
        if self._screen is None:
            self._no_window = no_display()
            if self._no_window is not None:
                return False
            try:
                pygame.init()
                pygame.display.init()
                pygame.display.set_caption(self.title)
                self._screen = pygame.display.set_mode((w, h))
            except pygame.error as err:
                pygame.quit()
                self._no_window = f"no window could be opened ({err})"
                return False
            driver = pygame.display.get_driver()
            if driver in INVISIBLE_DRIVERS and not os.environ.get("SDL_VIDEODRIVER"):
                # SDL falls back to drawing off screen when it finds no display: nobody would
                # see the window.
                pygame.display.quit()
                pygame.quit()
                self._screen = None
                self._no_window = f"no display to open a window on (SDL chose {driver!r})"
                return False
            self._clock = pygame.time.Clock()
        surface = pygame.surfarray.make_surface(np.ascontiguousarray(frame.swapaxes(0, 1)))
        self._screen.blit(surface, (0, 0))
        pygame.event.pump()
        pygame.display.flip()
        if self.fps:
            self._clock.tick(self.fps)
        return True

    def show_text(self, text: str) -> None:
        """Print ``text`` as this frame, after a one-time note on why there is no window."""
        out = self.out if self.out is not None else sys.stdout
        if not self._noted:
            out.write(f"[{self.title}: {self._no_window}; showing the table as text]\n")
            self._noted = True
        out.write(text.rstrip("\n") + "\n\n")
        out.flush()

    def close(self) -> None:
        """Close the window (if one was opened)."""
        if self._screen is not None:
            import pygame

            pygame.display.quit()
            pygame.quit()
            self._screen = None
