"""Drawing helpers shared by the game pictures (``render_mode="rgb_array"`` and ``"human"``).

Every picture is made of shapes and short labels drawn with Pillow's ``ImageDraw``. Text uses
the font Pillow ships inside itself (Aileron Regular, CC0 public domain, embedded in Pillow 10.1
and later and loaded by ``ImageFont.load_default(size)``), so a frame is drawn the same on every
machine and the package carries no font file. Pillow is a core dependency; without its FreeType
support (every Pillow wheel has it) the fixed bitmap font is used instead and a warning says so.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Sequence

import numpy as np
from PIL import Image, ImageDraw, ImageFont, features

Colour = tuple[int, int, int]

BACKGROUND: Colour = (250, 246, 236)
INK: Colour = (28, 32, 48)
FAINT: Colour = (120, 120, 130)
PANEL: Colour = (238, 232, 218)
SEA: Colour = (96, 160, 205)

SEAT_COLOURS: tuple[Colour, ...] = (
    (206, 60, 50),  # red
    (50, 110, 200),  # blue
    (60, 160, 80),  # green
    (235, 170, 30),  # yellow
    (150, 80, 180),  # purple
    (40, 40, 40),  # black
)
"""Fill colour of each seat (colour index), the same in both games."""


@functools.lru_cache(maxsize=32)
def font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """The picture font at ``size`` pixels (Pillow's embedded Aileron Regular)."""
    if features.check("freetype2"):
        return ImageFont.load_default(size=size)
    warnings.warn(
        "Pillow was built without FreeType: pictures use the fixed bitmap font", stacklevel=2
    )
    return ImageFont.load_default()


@functools.lru_cache(maxsize=8192)
def _text_mask(text: str, size: int, anchor: str) -> tuple[Image.Image, int, int]:
    """The text drawn once as a coverage mask, with its offset from the anchor point.

    Labels repeat from frame to frame, so drawing each once and pasting it is several times
    faster than asking FreeType again.
    """
    f = font(size)
    left, top, right, bottom = (int(v) for v in f.getbbox(text, anchor=anchor))
    mask = Image.new("L", (max(1, right - left), max(1, bottom - top)), 0)
    ImageDraw.Draw(mask).text((-left, -top), text, fill=255, font=f, anchor=anchor)
    return mask, left, top


@functools.lru_cache(maxsize=8192)
def _text_length(text: str, size: int) -> float:
    return float(font(size).getlength(text))


def shade(colour: Colour, factor: float) -> Colour:
    """``colour`` darkened (``factor`` < 1) or lightened toward white (``factor`` > 1)."""
    if factor <= 1:
        return tuple(int(c * factor) for c in colour)  # type: ignore[return-value]
    t = factor - 1
    return tuple(int(c + (255 - c) * t) for c in colour)  # type: ignore[return-value]


def text_colour(fill: Colour) -> Colour:
    """Black or white, whichever reads better on ``fill``."""
    r, g, b = fill
    return INK if 0.299 * r + 0.587 * g + 0.114 * b > 140 else (255, 255, 255)


class Canvas:
    """A fixed-size picture with the few drawing verbs the game pictures use.

    Args:
        width: Width in pixels.
        height: Height in pixels.
    """

    def __init__(self, width: int, height: int):
        self.image = Image.new("RGB", (width, height), BACKGROUND)
        self.draw = ImageDraw.Draw(self.image)

    def text(
        self,
        xy: tuple[float, float],
        text: str,
        size: int = 14,
        fill: Colour = INK,
        anchor: str = "la",
    ) -> None:
        """Write ``text`` at ``xy`` (Pillow anchor, default left/ascender)."""
        if not text:
            return
        mask, left, top = _text_mask(text, size, anchor)
        self.image.paste(fill, (int(xy[0]) + left, int(xy[1]) + top), mask)

    def text_width(self, text: str, size: int = 14) -> float:
        """Width of ``text`` in pixels at ``size``."""
        return _text_length(text, size)

    def fit(self, text: str, width: float, size: int = 14) -> str:
        """``text`` cut (with "...") to fit ``width`` pixels."""
        if self.text_width(text, size) <= width:
            return text
        while text and self.text_width(text + "...", size) > width:
            text = text[:-1]
        return text + "..."

    def rect(
        self,
        box: Sequence[float],
        fill: Colour | None = None,
        outline: Colour | None = None,
        width: int = 1,
        radius: int = 0,
    ) -> None:
        """A (rounded) rectangle ``(x0, y0, x1, y1)``."""
        if radius:
            self.draw.rounded_rectangle(
                tuple(box), radius=radius, fill=fill, outline=outline, width=width
            )
        else:
            self.draw.rectangle(tuple(box), fill=fill, outline=outline, width=width)

    def line(self, points: Sequence[tuple[float, float]], fill: Colour = INK, width: int = 1):
        """A polyline."""
        self.draw.line(list(points), fill=fill, width=width)

    def polygon(
        self, points: Sequence[tuple[float, float]], fill: Colour, outline: Colour = INK
    ) -> None:
        """A filled polygon."""
        self.draw.polygon(list(points), fill=fill, outline=outline)

    def ellipse(self, box: Sequence[float], fill: Colour, outline: Colour | None = INK) -> None:
        """A filled ellipse in ``box``."""
        self.draw.ellipse(tuple(box), fill=fill, outline=outline)

    def cross(self, box: Sequence[float], fill: Colour = FAINT, width: int = 2) -> None:
        """An X through ``box`` (a removed lot)."""
        x0, y0, x1, y1 = box
        self.line([(x0, y0), (x1, y1)], fill, width)
        self.line([(x0, y1), (x1, y0)], fill, width)

    def hatch(self, box: Sequence[float], fill: Colour, step: int = 5) -> None:
        """Diagonal hatching inside ``box``."""
        x0, y0, x1, y1 = (int(v) for v in box)
        w, h = x1 - x0, y1 - y0
        for k in range(-h, w, step):
            a = (x0 + max(k, 0), y0 + max(-k, 0))
            b = (x0 + min(k + h, w), y0 + min(h, w - k))
            self.line([a, b], fill, 1)

    def panel(self, box: Sequence[float], title: str | None = None) -> None:
        """A light panel with an optional title at its top left."""
        self.rect(box, fill=PANEL, outline=shade(PANEL, 0.8), radius=8)
        if title:
            self.text((box[0] + 10, box[1] + 7), title, 15, INK)

    def array(self) -> np.ndarray:
        """The picture as a fresh ``(H, W, 3)`` uint8 array."""
        return np.array(self.image, dtype=np.uint8)
