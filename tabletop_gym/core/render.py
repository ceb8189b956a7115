"""Pictures of the table for ``render_mode="rgb_array"``.

The picture is the same text the ``ansi`` mode returns, drawn with Pillow's default font on a
light background, so both modes show exactly the same information (and never more). That font
is proportional where Pillow has FreeType (the usual case), so columns of the text do not line
up exactly in the picture; each line is placed below the previous one.
"""

from __future__ import annotations

import numpy as np


def text_to_rgb(text: str, scale: int = 1) -> np.ndarray:
    """Draw ``text`` into an ``(H, W, 3)`` uint8 array.

    Args:
        text: Multi-line text.
        scale: Integer magnification of the whole picture (nearest neighbour).

    Returns:
        The picture as a fresh array.
    """
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.load_default()
    lines = text.splitlines() or [""]
    left, top, right, bottom = font.getbbox("M")
    cw, ch = max(1, right - left), max(1, bottom - top) + 4
    width = 8 + cw * max(len(line) for line in lines)
    height = 8 + ch * len(lines)
    img = Image.new("RGB", (width, height), (250, 246, 236))
    draw = ImageDraw.Draw(img)
    for i, line in enumerate(lines):
        draw.text((4, 4 + i * ch), line, fill=(20, 30, 60), font=font)
    if scale > 1:
        img = img.resize((width * scale, height * scale), Image.NEAREST)
    return np.asarray(img, dtype=np.uint8).copy()


def frame(text: str, render_mode: str) -> str | np.ndarray:
    """The render result of ``text`` for ``render_mode`` (``"ansi"``: the text itself)."""
    return text if render_mode == "ansi" else text_to_rgb(text)
