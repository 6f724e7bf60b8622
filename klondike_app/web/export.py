"""A recorded game as an animated GIF or MP4 (``klondike watch RESULTS.csv --deal N --export FILE``):
one frame per position, the opening and then each move, drawn by the env's ``rgb_array``
renderer (:func:`klondike_env.render.render_image`) with a caption naming the move just played.

GIF is written by Pillow (a core dependency); MP4 needs ``imageio`` with ``imageio-ffmpeg``
(the ``web`` extra).
"""

from __future__ import annotations

from pathlib import Path

from agents.base import PlayerView
from klondike_env.cli import prepare_output_file
from klondike_env.render import render_image

FORMATS = (".gif", ".mp4")
CAPTION_HEIGHT = 22


def check_export_path(path: str | Path) -> Path:
    """``path`` checked before any work: a .gif or .mp4 in a writable place (ValueError otherwise)."""
    if Path(path).suffix.lower() not in FORMATS:
        raise ValueError(f"bad --export {str(path)!r}: the file name must end in .gif or .mp4")
    if Path(path).suffix.lower() == ".mp4":
        try:
            import imageio.v2  # noqa: F401
            import imageio_ffmpeg  # noqa: F401
        except ImportError as error:
            raise ValueError(f"--export to .mp4 needs {error.name}: pip install 'klondike-env[web]', "
                             "or export a .gif") from None
    return prepare_output_file(path, "--export")


def frames(replay) -> list:
    """The game's positions as images (numpy ``(H, W, 3)`` uint8), the opening first."""
    import numpy as np
    from PIL import Image, ImageDraw

    from klondike_env.render import _font

    game = replay.game_at(0)
    images = []
    total = len(replay.actions)
    for number in range(total + 1):
        if number:
            action = replay.actions[number - 1]
            caption = f"deal {replay.deal}  move {number}/{total}: {PlayerView(game).action_name(action)}"
            game.step(action)
        else:
            caption = f"deal {replay.deal}  opening ({total} moves)"
        table = Image.fromarray(render_image(game))
        image = Image.new("RGB", (table.width, table.height + CAPTION_HEIGHT), (15, 60, 30))
        image.paste(table, (0, CAPTION_HEIGHT))
        ImageDraw.Draw(image).text((6, 4), caption, fill=(240, 240, 240), font=_font(13)[0])
        images.append(np.asarray(image))
    return images


def export_game(replay, path: str | Path, fps: float = 4.0) -> int:
    """Write ``replay`` to ``path`` (.gif or .mp4) at ``fps`` frames a second; returns the frame count."""
    path = Path(path)
    images = frames(replay)
    if path.suffix.lower() == ".gif":
        from PIL import Image

        pictures = [Image.fromarray(image) for image in images]
        # optimize=False and disposal keep one frame per position, even where two look alike
        pictures[0].save(path, save_all=True, append_images=pictures[1:], duration=round(1000 / fps), loop=0,
                         optimize=False, disposal=1)
    else:
        import imageio.v2 as imageio
        import numpy as np

        # H.264 wants even sides: pad with the table's colour rather than rescale
        height, width = images[0].shape[:2]
        padded = [np.pad(image, ((0, height % 2), (0, width % 2), (0, 0)), mode="edge") for image in images]
        imageio.mimwrite(path, padded, fps=fps, macro_block_size=1)
    return len(images)
