"""Drawing helpers of the game pictures: the env's frames and the board of the web app.

The pictures serve ``render_mode="rgb_array"`` and ``"human"`` and the board that
``tabletop-gym serve`` shows in the browser.

A picture is first described as a :class:`Scene`: a list of shapes and short labels in drawing
order. The same scene becomes a raster frame (:meth:`Scene.array`, drawn with Pillow's
``ImageDraw``) or an SVG document (:meth:`Scene.svg`), so the env's frames and the board in the
browser can never disagree. Text uses the font Pillow ships inside itself (Aileron Regular, CC0
public domain, embedded in Pillow 10.1 and later and loaded by ``ImageFont.load_default(size)``),
so a frame is drawn the same on every machine and the package carries no font file; labels are
cut to fit with that font's widths, and the SVG names a sans-serif font of similar width. Pillow
is a core dependency; without its FreeType support (every Pillow wheel has it) the fixed bitmap
font is used instead and a warning says so.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Sequence
from typing import Any
from xml.sax.saxutils import escape

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


Shape = tuple[Any, ...]
"""One drawing instruction of a :class:`Scene`: ``(verb, *arguments)``."""

_SVG_ANCHOR_X = {"l": "start", "m": "middle", "r": "end"}
# Pillow's vertical anchors (ascender, top, middle, baseline, bottom, descender) in SVG terms.
_SVG_ANCHOR_Y = {"a": "text-before-edge", "t": "text-before-edge", "m": "central",
                 "s": "alphabetic", "b": "text-after-edge", "d": "text-after-edge"}


def _rgb(colour: Colour | None) -> str:
    return "none" if colour is None else "#{:02x}{:02x}{:02x}".format(*colour)


def _num(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")


class Scene:
    """A fixed-size picture described as shapes, with the drawing verbs the game pictures use.

    The verbs record shapes in order; :meth:`array` draws them with Pillow and :meth:`svg` writes
    them as SVG elements, so both outputs come from one description.

    Args:
        width: Width in pixels.
        height: Height in pixels.
    """

    def __init__(self, width: int, height: int):
        self.width = width
        self.height = height
        self.shapes: list[Shape] = []

    def text(
        self,
        xy: tuple[float, float],
        text: str,
        size: int = 14,
        fill: Colour = INK,
        anchor: str = "la",
    ) -> None:
        """Write ``text`` at ``xy`` (Pillow anchor, default left/ascender)."""
        if text:
            self.shapes.append(("text", (xy[0], xy[1]), text, size, fill, anchor))

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
        self.shapes.append(("rect", tuple(box), fill, outline, width, radius))

    def line(
        self, points: Sequence[tuple[float, float]], fill: Colour = INK, width: int = 1
    ) -> None:
        """A polyline."""
        self.shapes.append(("line", tuple(points), fill, width))

    def polygon(
        self, points: Sequence[tuple[float, float]], fill: Colour, outline: Colour = INK
    ) -> None:
        """A filled polygon."""
        self.shapes.append(("polygon", tuple(points), fill, outline))

    def ellipse(self, box: Sequence[float], fill: Colour, outline: Colour | None = INK) -> None:
        """A filled ellipse in ``box``."""
        self.shapes.append(("ellipse", tuple(box), fill, outline))

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
        """The picture as a fresh ``(H, W, 3)`` uint8 array (drawn with Pillow)."""
        image = Image.new("RGB", (self.width, self.height), BACKGROUND)
        draw = ImageDraw.Draw(image)
        for verb, *args in self.shapes:
            if verb == "text":
                (x, y), text, size, fill, anchor = args
                mask, left, top = _text_mask(text, size, anchor)
                image.paste(fill, (int(x) + left, int(y) + top), mask)
            elif verb == "rect":
                box, fill, outline, width, radius = args
                if radius:
                    draw.rounded_rectangle(box, radius=radius, fill=fill, outline=outline,
                                           width=width)
                else:
                    draw.rectangle(box, fill=fill, outline=outline, width=width)
            elif verb == "line":
                points, fill, width = args
                draw.line(list(points), fill=fill, width=width)
            elif verb == "polygon":
                points, fill, outline = args
                draw.polygon(list(points), fill=fill, outline=outline)
            else:  # ellipse
                box, fill, outline = args
                draw.ellipse(box, fill=fill, outline=outline)
        return np.array(image, dtype=np.uint8)

    def svg(self) -> str:
        """The picture as a standalone SVG document (the same shapes, in the same order)."""
        out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" '
               f'height="{self.height}" viewBox="0 0 {self.width} {self.height}" '
               'font-family="Helvetica, Arial, sans-serif">',
               f'<rect width="{self.width}" height="{self.height}" fill="{_rgb(BACKGROUND)}"/>']
        for verb, *args in self.shapes:
            if verb == "text":
                (x, y), text, size, fill, anchor = args
                out.append(
                    f'<text x="{_num(x)}" y="{_num(y)}" font-size="{size}" fill="{_rgb(fill)}" '
                    f'text-anchor="{_SVG_ANCHOR_X[anchor[0]]}" '
                    f'dominant-baseline="{_SVG_ANCHOR_Y[anchor[1]]}">{escape(text)}</text>')
            elif verb == "rect":
                (x0, y0, x1, y1), fill, outline, width, radius = args
                # Pillow's boxes include both corners and stroke inside them.
                inset = width / 2 if outline is not None else 0
                stroke = (f' stroke="{_rgb(outline)}" stroke-width="{width}"'
                          if outline is not None else "")
                out.append(
                    f'<rect x="{_num(x0 + inset)}" y="{_num(y0 + inset)}" '
                    f'width="{_num(max(0, x1 - x0 + 1 - 2 * inset))}" '
                    f'height="{_num(max(0, y1 - y0 + 1 - 2 * inset))}" rx="{radius}" '
                    f'fill="{_rgb(fill)}"{stroke}/>')
            elif verb == "line":
                points, fill, width = args
                pts = " ".join(f"{_num(x)},{_num(y)}" for x, y in points)
                out.append(f'<polyline points="{pts}" fill="none" stroke="{_rgb(fill)}" '
                           f'stroke-width="{width}"/>')
            elif verb == "polygon":
                points, fill, outline = args
                pts = " ".join(f"{_num(x)},{_num(y)}" for x, y in points)
                out.append(f'<polygon points="{pts}" fill="{_rgb(fill)}" '
                           f'stroke="{_rgb(outline)}"/>')
            else:  # ellipse
                (x0, y0, x1, y1), fill, outline = args
                out.append(
                    f'<ellipse cx="{_num((x0 + x1) / 2)}" cy="{_num((y0 + y1) / 2)}" '
                    f'rx="{_num((x1 - x0) / 2)}" ry="{_num((y1 - y0) / 2)}" fill="{_rgb(fill)}" '
                    f'stroke="{_rgb(outline)}"/>')
        out.append("</svg>")
        return "\n".join(out)
