"""Drawing a game for people: text for terminals (``str(game)``, ``render_mode="ansi"``)."""

from __future__ import annotations

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
