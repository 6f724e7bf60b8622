"""What a position allows the player, shared by the search agents: whether a move can be taken
back, which moves turn up a card one move later, which worlds look alike, how many cards are
unseen, and whether to draw just to look at the stock."""

from __future__ import annotations

from agents.base import UNKNOWN, PlayerView, public_state
from klondike_env import core
from klondike_env.game import Game


def reversible(view: PlayerView, action: int) -> bool:
    """Whether the position before ``action`` can be reached again after it (the count of passes
    aside): it turns no card up, plays no waste card, empties no column that only a king may fill
    again with anything but a king, and a card it sends home may come back down. A draw or a
    recycle needs unlimited passes, and a draw a waste whose size a pass through the talon comes
    back to (a multiple of the draw count: once a waste card has been played, the talon's cards are
    dealt in other groups after the next recycle)."""
    effect = view.effect(action)
    if effect.flips or core.WASTE_TO_FOUNDATION <= action < core.COLUMN_TO_FOUNDATION:
        return False
    if effect.empties and view.rules.empty_column == "king" and core.card_rank(effect.cards[0]) != core.KING:
        return False
    if action == core.RECYCLE:
        return view.rules.max_passes is None
    if action == core.DRAW:
        return view.rules.max_passes is None and len(view.waste) % view.rules.draw_count == 0
    return view.rules.foundation_to_tableau or not effect.to_foundation


def free_reveals(view: PlayerView, world: Game) -> list[tuple[int, int]]:
    """The lines ``(first, second)`` at ``view`` of a move that can be taken back (not a draw or a
    recycle) and then a move that turns up a card; ``world`` is any world of ``view`` (which moves
    are legal and what they turn up is the player's to see)."""
    lines = []
    for first in view.legal_actions:
        if first in (core.DRAW, core.RECYCLE) or not reversible(view, first):
            continue
        child = world.copy()
        child.step(first)
        after = PlayerView(child, stock_visible=view.stock_visible)
        lines += [(first, second) for second in after.legal_actions if after.effect(second).flips]
    return lines


def alike(entries: list[tuple[Game, list[int]]], prefix: list[int],
          see_stock: bool = False) -> list[list[tuple[Game, list[int]]]]:
    """``entries`` (worlds, each with a line) stepped along ``prefix`` on copies, grouped by what
    the player sees then: worlds the player cannot tell apart after ``prefix``."""
    groups: dict[bytes, list[tuple[Game, list[int]]]] = {}
    for world, rest in entries:
        child = world.copy()
        for action in prefix:
            child.step(action)
        groups.setdefault(public_state(child, see_stock).tobytes(), []).append((child, rest))
    return list(groups.values())


def hidden_count(game: Game, see_stock: bool = False) -> int:
    """How many cards the player of ``game`` has not seen (the face-down ones only, with ``see_stock``)."""
    return int(core.hidden_count(game._state, see_stock))


def scouting_draw(view: PlayerView) -> bool:
    """Whether to draw just to see the stock: passes are unlimited and a stock card is unseen.

    Hindsight search never values information (each sampled world already shows every
    card), so it would not look at the stock on its own. With unlimited passes looking is
    free: drawing the stock out leaves every position reachable before still reachable
    (one recycle restores the talon, in the same order), and afterwards the whole talon is
    known, which leaves only the face-down tableau cards to sample.
    """
    return view.rules.max_passes is None and core.DRAW in view.legal_actions and UNKNOWN in view.stock

