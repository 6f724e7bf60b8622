"""Rendering: the text board and the rgb_array image."""

from __future__ import annotations

import numpy as np
import pytest

from klondike_env import Game, core
from klondike_env.env import KlondikeEnv
from klondike_env.render import IMAGE_HEIGHT, IMAGE_WIDTH, render_image, render_text
from klondike_env.vector import KlondikeVectorEnv

from conftest import random_playout


def test_text_board_of_deal_1():
    text = render_text(Game.new(1))
    lines = text.splitlines()
    assert lines[0].startswith("Foundations") and "Stock 24" in lines[1]
    assert lines[3].split()[0] == "7D" and "8S" in lines[-1]
    assert text.count("##") == 21


def test_image_has_one_shape_for_every_position():
    rng = np.random.default_rng(0)
    shapes = set()
    for deal in range(20):
        game = Game.new(deal)
        for _ in random_playout(game, rng, int(rng.integers(0, 200))):
            pass
        image = render_image(game)
        assert image.dtype == np.uint8 and image.ndim == 3
        shapes.add(image.shape)
    assert shapes == {(IMAGE_HEIGHT, IMAGE_WIDTH, 3)}


def test_image_shows_what_changed():
    game = Game.new(1)
    before = render_image(game)
    game.step(core.DRAW)
    after = render_image(game)
    assert not np.array_equal(before, after)
    # the change is in the top row (stock and waste), not in the tableau
    changed_rows = np.flatnonzero((before != after).any(axis=(1, 2)))
    assert changed_rows.max() < 100


def test_image_depends_on_face_down_cards_only_through_their_number():
    """Card backs look alike: a hidden card's identity never reaches the picture."""
    game = Game.new(1)
    world = game.sample_world(rng=3)
    assert world.deck != game.deck
    assert np.array_equal(render_image(game)[100:], render_image(world)[100:])  # the tableau
    assert np.array_equal(render_image(game), render_image(world))  # stock is face down too


def test_vector_env_renders_each_game():
    envs = KlondikeVectorEnv(2, render_mode="ansi")
    envs.reset(options={"deals": [1, 2]})
    boards = envs.render()
    assert boards == (str(Game.new(1)), str(Game.new(2)))


def test_record_video_records_a_game(tmp_path):
    pytest.importorskip("moviepy")
    import gymnasium as gym

    env = gym.wrappers.RecordVideo(KlondikeEnv(render_mode="rgb_array", max_episode_steps=20), str(tmp_path))
    _, info = env.reset(seed=0)
    done = False
    while not done:
        _, _, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        done = terminated or truncated
    env.close()
    assert list(tmp_path.glob("*.mp4"))


def test_image_without_a_system_font(monkeypatch):
    """Without DejaVu Sans the suits are drawn as letters; the image keeps its shape."""
    from PIL import ImageFont

    from klondike_env import render

    truetype = ImageFont.truetype

    def without_dejavu(font=None, *args, **kwargs):
        if font == "DejaVuSans.ttf":
            raise OSError("cannot open resource")
        return truetype(font, *args, **kwargs)

    monkeypatch.setattr(ImageFont, "truetype", without_dejavu)
    render._font.cache_clear()
    try:
        image = render_image(Game.new(1))
        assert image.shape == (IMAGE_HEIGHT, IMAGE_WIDTH, 3)
        assert render._font(15)[1] is False
    finally:
        render._font.cache_clear()
