"""Pictures as scenes: one list of shapes drawn as an ``rgb_array`` frame or written as SVG."""

from __future__ import annotations

import random
import re

import numpy as np
import pytest

from tabletop_gym.core.draw import BACKGROUND, Scene
from tabletop_gym.envs import positano_v0, rapa_nui_v0


def test_svg_of_each_verb():
    sc = Scene(40, 30)
    sc.rect((1, 2, 10, 6), fill=(255, 0, 0))
    sc.rect((0, 0, 9, 9), outline=(0, 0, 255), width=2, radius=3)
    sc.text((5, 6), "A<&>", 12, (0, 0, 0), anchor="mm")
    sc.line([(0, 0), (3, 4.5)], (16, 32, 48), 2)
    sc.polygon([(0, 10), (5, 0), (10, 10)], (1, 2, 3))
    sc.ellipse((2, 2, 6, 8), (250, 170, 200), None)
    svg = sc.svg().splitlines()
    assert svg[0].startswith('<svg xmlns="http://www.w3.org/2000/svg" width="40" height="30"')
    assert svg[1] == '<rect width="40" height="30" fill="#faf6ec"/>'
    # Pillow's box (1, 2, 10, 6) covers x 1..10 and y 2..6 inclusive: 10 x 5 pixels
    assert svg[2] == '<rect x="1" y="2" width="10" height="5" rx="0" fill="#ff0000"/>'
    # a 2-pixel outline strokes inside the box, so the stroke's centre line is 1 pixel in
    assert svg[3] == ('<rect x="1" y="1" width="8" height="8" rx="3" fill="none" '
                      'stroke="#0000ff" stroke-width="2"/>')
    assert svg[4] == ('<text x="5" y="6" font-size="12" fill="#000000" text-anchor="middle" '
                      'dominant-baseline="central">A&lt;&amp;&gt;</text>')
    assert svg[5] == '<polyline points="0,0 3,4.5" fill="none" stroke="#102030" stroke-width="2"/>'
    assert svg[6] == '<polygon points="0,10 5,0 10,10" fill="#010203" stroke="#1c2030"/>'
    assert svg[7] == '<ellipse cx="4" cy="5" rx="2" ry="3" fill="#faaac8" stroke="none"/>'
    assert svg[8] == "</svg>"


def test_frame_of_a_scene():
    sc = Scene(4, 3)
    sc.rect((1, 0, 2, 1), fill=(255, 0, 0))
    img = sc.array()
    assert img.shape == (3, 4, 3) and img.dtype == np.uint8
    red = np.zeros((3, 4), dtype=bool)
    red[0:2, 1:3] = True  # rows 0..1, columns 1..2: both corners are inside
    assert (img[red] == (255, 0, 0)).all()
    assert (img[~red] == BACKGROUND).all()


@pytest.mark.parametrize("module,cfg", [(rapa_nui_v0, {"num_players": 3}),
                                        (positano_v0, {"num_players": 2})])
def test_the_frame_and_the_svg_come_from_the_same_shapes(module, cfg):
    env = module.raw_env(**cfg)
    env.reset(seed=1)
    rng = random.Random(1)
    for _ in range(15):  # into the game: hands, bids and buildings on the table
        env.step(rng.choice(env.legal_actions()))
    state = env.game_state
    for viewer in (None, 0):
        sc = type(env).scene(state, viewer)
        np.testing.assert_array_equal(sc.array(), type(env).painter(state, viewer))
        svg = sc.svg()
        # one SVG element per shape, after the background, in drawing order
        elements = re.findall(r"<(rect|text|polyline|polygon|ellipse) ", svg)
        kinds = {"rect": "rect", "text": "text", "line": "polyline", "polygon": "polygon",
                 "ellipse": "ellipse"}
        assert elements == ["rect", *(kinds[s[0]] for s in sc.shapes)]
        texts = re.findall(r">([^<]*)</text>", svg)
        assert texts == [s[2].replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
                         for s in sc.shapes if s[0] == "text"]
