"""Drawing a game for people: text for terminals (``str(game)``, ``render_mode="ansi"``) and
images for videos (``render_mode="rgb_array"``)."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from klondike_env.cards import SUIT_SYMBOLS, card_str

if TYPE_CHECKING:
    from klondike_env.game import Game

FACE_DOWN = "##"
EMPTY = ".."


def render_text(game: "Game") -> str:
    """A board a person can read: foundations, stock and waste fan, then the columns.

    Face-down cards are ``##``; the waste shows its last three cards, the top last.
    """
    foundations = "  ".join(
        f"{SUIT_SYMBOLS[suit]}:{card_str(13 * suit + height - 1) if height else EMPTY}"
        for suit, height in enumerate(game.foundations)
    )
    waste = game.waste
    fan = " ".join(card_str(c) for c in waste[-3:]) if waste else EMPTY
    hidden_waste = f"({len(waste) - 3} under) " if len(waste) > 3 else ""
    passes = f"{game.passes}" + (f"/{game.rules.max_passes}" if game.rules.max_passes else "")
    status = "  WON" if game.is_won else ("  DEAD" if game.is_dead else "")
    lines = [
        f"Foundations  {foundations}",
        f"Stock {len(game.stock):2d}  Waste {hidden_waste}{fan}  Pass {passes}  Move {game.move_count}{status}",
        "  ".join(f"c{col}" for col in range(7)),
    ]
    columns = game.tableau
    for depth in range(max((len(column) for column in columns), default=0) or 1):
        cells = []
        for column in columns:
            if depth < len(column):
                card, face_up = column[depth]
                cells.append(card_str(card) if face_up else FACE_DOWN)
            else:
                cells.append(EMPTY if depth == 0 else "  ")
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


# --- images (render_mode="rgb_array") ------------------------------------------
CARD_WIDTH, CARD_HEIGHT = 50, 70
GAP = 8
FACE_DOWN_OFFSET, FACE_UP_OFFSET = 8, 20
WASTE_FAN_OFFSET = 16
IMAGE_WIDTH = GAP + 7 * (CARD_WIDTH + GAP)
TABLEAU_TOP = 2 * GAP + CARD_HEIGHT + 14
# the longest column: 6 face-down cards then 13 face-up ones
IMAGE_HEIGHT = TABLEAU_TOP + 6 * FACE_DOWN_OFFSET + 12 * FACE_UP_OFFSET + CARD_HEIGHT + GAP
TABLE_COLOUR = (22, 110, 52)
BACK_COLOUR = (40, 70, 160)
RED, BLACK = (200, 20, 30), (15, 15, 15)


@functools.lru_cache(maxsize=None)
def _font(size: int):
    """DejaVu Sans when the system has it (it draws the suit symbols), else Pillow's own font."""
    from PIL import ImageFont

    try:
        return ImageFont.truetype("DejaVuSans.ttf", size), True
    except OSError:
        pass
    try:
        return ImageFont.load_default(size=size), False
    except TypeError:  # Pillow < 10.1: one bitmap size only
        return ImageFont.load_default(), False


def _suit_mark(suit: int, symbols: bool) -> str:
    return SUIT_SYMBOLS[suit] if symbols else "CDHS"[suit]


def _draw_card(draw, x: int, y: int, card: int | None, font_and_symbols) -> None:
    """A card at ``(x, y)``: its face (``card`` id) or its back (``None``)."""
    box = (x, y, x + CARD_WIDTH - 1, y + CARD_HEIGHT - 1)
    if card is None:
        draw.rounded_rectangle(box, 5, fill=BACK_COLOUR, outline=(230, 230, 230))
        draw.rounded_rectangle((x + 4, y + 4, x + CARD_WIDTH - 5, y + CARD_HEIGHT - 5), 3, outline=(150, 170, 230))
        return
    font, symbols = font_and_symbols
    draw.rounded_rectangle(box, 5, fill=(250, 250, 245), outline=(60, 60, 60))
    suit = card // 13
    colour = RED if suit in (1, 2) else BLACK
    mark = _suit_mark(suit, symbols)
    draw.text((x + 4, y + 2), card_str(card)[0].replace("T", "10") + mark, fill=colour, font=font)
    draw.text((x + CARD_WIDTH // 2, y + CARD_HEIGHT // 2 + 6), mark, fill=colour, font=font, anchor="mm")


def _draw_slot(draw, x: int, y: int) -> None:
    draw.rounded_rectangle((x, y, x + CARD_WIDTH - 1, y + CARD_HEIGHT - 1), 5, outline=(160, 210, 170))


def render_image(game: "Game"):
    """The table as an ``(H, W, 3)`` uint8 image: stock, fanned waste, foundations, columns.

    Fixed size for every position (so videos have one frame shape); face-down cards
    show their back, the waste fans its last three cards with the top on the right.
    """
    import numpy as np
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (IMAGE_WIDTH, IMAGE_HEIGHT), TABLE_COLOUR)
    draw = ImageDraw.Draw(image)
    font, small = _font(15), _font(11)[0]
    column_x = [GAP + col * (CARD_WIDTH + GAP) for col in range(7)]
    # stock (count underneath) and waste fan
    stock = len(game.stock)
    if stock:
        _draw_card(draw, column_x[0], GAP, None, font)
    else:
        _draw_slot(draw, column_x[0], GAP)
    draw.text((column_x[0], GAP + CARD_HEIGHT + 1), f"stock {stock}  pass {game.passes}", fill=(240, 240, 240),
              font=small)
    waste = game.waste
    if not waste:
        _draw_slot(draw, column_x[1], GAP)
    for index, card in enumerate(waste[-3:]):
        _draw_card(draw, column_x[1] + index * WASTE_FAN_OFFSET, GAP, card, font)
    # foundations over columns 3..6
    for suit, height in enumerate(game.foundations):
        x = column_x[3 + suit]
        if height:
            _draw_card(draw, x, GAP, 13 * suit + height - 1, font)
        else:
            _draw_slot(draw, x, GAP)
            draw.text((x + CARD_WIDTH // 2, GAP + CARD_HEIGHT // 2), _suit_mark(suit, font[1]),
                      fill=(160, 210, 170), font=font[0], anchor="mm")
    for col, column in enumerate(game.tableau):
        y = TABLEAU_TOP
        if not column:
            _draw_slot(draw, column_x[col], y)
        for card, face_up in column:
            _draw_card(draw, column_x[col], y, card if face_up else None, font)
            y += FACE_UP_OFFSET if face_up else FACE_DOWN_OFFSET
    return np.asarray(image, dtype=np.uint8)
