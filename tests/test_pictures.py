"""Drawn pictures: one frame size per configuration, frames that follow the game, no leaks,
video recording and the ``human`` window.
"""

from __future__ import annotations

import os
import random

import gymnasium
import numpy as np
import pytest

from tabletop_gym.envs import positano_v0, rapa_nui_v0
from tabletop_gym.envs.positano import picture as positano_picture
from tabletop_gym.envs.rapa_nui import picture as rapa_nui_picture
from tests.configs import ENGINE_CONFIGS, config_id, raw_env


def _expected_size(game: str, cfg: dict) -> tuple[int, int, int]:
    if game == "rapa_nui":
        w, h = rapa_nui_picture.frame_size(cfg["num_players"])
    else:
        colours = max(2, cfg["num_players"])  # solo: the player and Otto Amalfi
        board = cfg.get("board_size", 5 if cfg["num_players"] >= 5 else 4)  # docs/rules/positano.md §8
        w, h = positano_picture.frame_size(board, colours)
    return (h, w, 3)


def test_frame_sizes_stated_in_the_env_pages():
    # docs/envs/*.md "Pictures": the sizes a video writer will see
    assert positano_picture.frame_size(4, 3) == (1240, 746)
    assert positano_picture.frame_size(4, 4) == (1240, 776)
    assert positano_picture.frame_size(5, 4) == (1240, 880)
    assert rapa_nui_picture.frame_size(2) == rapa_nui_picture.frame_size(3) == (1240, 526)
    assert rapa_nui_picture.frame_size(4) == (1240, 556)


@pytest.mark.parametrize("item", ENGINE_CONFIGS, ids=config_id)
def test_one_frame_size_per_configuration_and_every_step_changes_the_picture(item):
    game, cfg = item
    env = raw_env(game, render_mode="rgb_array", **cfg)
    env.reset(seed=11)
    rng = np.random.default_rng(11)
    size = _expected_size(game, cfg)
    frame = env.render()
    assert frame.shape == size and frame.dtype == np.uint8
    steps = 0
    while not env.game_state.is_terminal():
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
        new = env.render()
        assert new.shape == size
        # every action changes something public (the decision line at least)
        assert not np.array_equal(new, frame), f"step {steps}: the picture did not change"
        frame = new
        steps += 1
    assert steps > 20


@pytest.mark.parametrize("game,cfg", [("positano", {"num_players": 2, "board_size": 4}),
                                      ("positano", {"num_players": 6}),
                                      ("rapa_nui", {"num_players": 3})])
def test_seat_views_have_the_public_frame_size(game, cfg):
    public = raw_env(game, render_mode="rgb_array", **cfg)
    public.reset(seed=2)
    for seat in range(cfg["num_players"]):
        env = raw_env(game, render_mode="rgb_array", render_view=seat, **cfg)
        env.reset(seed=2)
        img = env.render()
        assert img.shape == public.render().shape
        # a seat view shows that seat's hand, so it differs from the spectator's picture
        assert not np.array_equal(img, public.render())


@pytest.mark.parametrize("item", [ENGINE_CONFIGS[1], ENGINE_CONFIGS[5]], ids=config_id)
def test_picture_is_the_same_under_resampling_of_what_the_viewer_cannot_see(item):
    game, cfg = item
    env = raw_env(game, **cfg)
    painter = type(env).painter
    rng = np.random.default_rng(3)
    shuffle = random.Random(3)
    env.reset(seed=3)
    checked = 0
    for step in range(60):
        if env.game_state.is_terminal():
            break
        if step % 6 == 0:
            state = env.game_state
            for viewer in [None, *range(env.game.num_players)]:
                img = painter(state, viewer)
                seat = 0 if viewer is None else viewer
                # the public view must not change when any seat's hidden parts are redrawn
                other = state.resample_hidden(seat, shuffle)
                np.testing.assert_array_equal(painter(other, viewer), img)
                checked += 1
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
    assert checked >= 10


def test_positano_sealed_bid_shows_as_a_back_until_the_reveal():
    env = positano_v0.raw_env(num_players=2, render_mode="rgb_array", render_view=1)
    env.reset(seed=5)
    before = env.render()
    env.step(env.game_state.legal_actions()[0])  # seat 0 commits
    after = env.render()
    assert not np.array_equal(before, after)
    # seat 1's picture is the same whichever bid seat 0 committed
    other = positano_v0.raw_env(num_players=2, render_mode="rgb_array", render_view=1)
    other.reset(seed=5)
    other.step(other.game_state.legal_actions()[-1])
    np.testing.assert_array_equal(other.render(), after)


def test_render_view_is_checked():
    with pytest.raises(ValueError, match="render_view=5 is not allowed"):
        rapa_nui_v0.raw_env(num_players=2, render_view=5)
    with pytest.raises(ValueError, match="render_view='me' is not allowed"):
        positano_v0.raw_env(num_players=2, render_view="me")


def test_record_video_writes_a_whole_episode(tmp_path):
    from gymnasium.wrappers import RecordVideo

    import tabletop_gym  # noqa: F401  (registers the ids)

    env = gymnasium.make("Positano-v0", render_mode="rgb_array")
    env = RecordVideo(env, str(tmp_path / "videos"), episode_trigger=lambda e: True, disable_logger=True)
    env.reset(seed=0)
    done = False
    steps = 0
    while not done:
        mask = env.unwrapped.action_masks()
        action = int(np.flatnonzero(mask)[0])
        _, _, term, trunc, _ = env.step(action)
        done = term or trunc
        steps += 1
    env.close()
    videos = list((tmp_path / "videos").glob("*.mp4"))
    assert len(videos) == 1 and videos[0].stat().st_size > 1000
    assert steps > 10


@pytest.mark.parametrize("factory", [rapa_nui_v0.env, positano_v0.env, positano_v0.parallel_env],
                         ids=["rapa_nui", "positano", "positano_parallel"])
def test_pettingzoo_render_test_with_a_headless_window(factory, monkeypatch):
    from pettingzoo.test import render_test

    monkeypatch.setitem(os.environ, "SDL_VIDEODRIVER", "dummy")
    if factory is positano_v0.parallel_env:
        from pettingzoo.utils.conversions import parallel_to_aec

        def make(**kw):
            return parallel_to_aec(positano_v0.parallel_env(num_players=3, **kw))
        render_test(make)
    else:
        render_test(factory)


def test_human_mode_opens_a_window_and_returns_none(monkeypatch):
    import pygame  # the human extra, installed by make test

    monkeypatch.setitem(os.environ, "SDL_VIDEODRIVER", "dummy")
    env = rapa_nui_v0.raw_env(num_players=2, render_mode="human")
    env.reset(seed=0)
    assert env.render() is None
    surface = pygame.display.get_surface()
    assert surface.get_size() == rapa_nui_picture.frame_size(2)
    env.close()


HEADLESS_RENDER = """
import gymnasium, tabletop_gym
env = gymnasium.make("RapaNui-v0", render_mode="human", num_players=2)
env.reset(seed=3)
assert env.render() is None
"""


@pytest.mark.parametrize("display", [None, ":987654"], ids=["no_display", "unreachable_display"])
def test_human_mode_without_a_display_prints_the_table(display):
    # Issue 39 item 7: with pygame installed and no display, SDL fell back to its off-screen
    # driver and the "window" showed nothing; docs/design.md promises the text table instead.
    # A fresh process: SDL reads the environment once, when pygame first opens a window.
    import subprocess
    import sys

    import pygame  # noqa: F401 - the human extra, installed by make test

    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER", "XDG_RUNTIME_DIR")}
    if display is not None:
        env["DISPLAY"] = display  # an X display nobody serves: SDL fails over to off screen
    out = subprocess.run([sys.executable, "-c", HEADLESS_RENDER], env=env, capture_output=True,
                         text=True, timeout=120, check=True).stdout
    why = ("DISPLAY and WAYLAND_DISPLAY are unset" if display is None
           else "SDL chose 'offscreen'")
    note = f"[rapa_nui_v0: no display to open a window on ({why}); showing the table as text]"
    # the human text view is the public ansi view (human's default view is the spectator's)
    public = gymnasium.make("RapaNui-v0", render_mode="ansi", render_view="public",
                            num_players=2)
    public.reset(seed=3)
    assert out == note + "\n" + public.render().rstrip("\n") + "\n\n"
