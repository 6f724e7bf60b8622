"""``greedy``: a rule-based player in the style of the greedy baselines of the literature.

Each legal move gets a priority from what it visibly does; the highest wins (ties broken
at random with the agent's seed). In decreasing priority:

1. a move to a foundation that turns a face-down card up;
2. a safe move to a foundation (no card that could still want to sit on it is out);
3. a tableau move that turns a face-down card up (source with most face-down cards first);
4. waste to tableau, waste to foundation;
5. a move that empties a column when a king is waiting for it; a partial-run move that
   uncovers a card ready for its foundation;
6. other foundation moves; a waste king to an empty column when no tableau king wants it;
7. draw, then recycle.

Moves that do nothing useful (shuffling runs between columns, a king from one empty
column to another, cards back down from the foundations) are never made, and the
reverse of the previous move is never made. The agent resigns after a whole trip
through the stock in which it made no card move: its choices would repeat forever.
Bjarnason, Fern & Tadepalli (ICAPS 2009) report about 13% wins for greedy draw-3 players.
"""

from __future__ import annotations

from agents.base import RESIGN, Agent, DealInfo, MoveEffect, PlayerView
from klondike_env import core

SKIP = -1  # never play


def is_safe_to_foundation(card: int, foundations: tuple[int, ...]) -> bool:
    """No card that could be built on ``card`` in the tableau is still out (:func:`core.is_safe_to_foundation`)."""
    return bool(core.is_safe_to_foundation(card, foundations))


def _king_waiting(view: PlayerView) -> bool:
    """A king heads a face-up run lying on face-down cards, or tops the waste."""
    for column in view.tableau:
        if column.down > 0 and column.face_up and core.card_rank(column.face_up[0]) == core.KING:
            return True
    return view.waste_top >= 0 and core.card_rank(view.waste_top) == core.KING


def _tableau_king_waiting(view: PlayerView) -> bool:
    return any(
        column.down > 0 and column.face_up and core.card_rank(column.face_up[0]) == core.KING
        for column in view.tableau
    )


def move_priority(view: PlayerView, effect: MoveEffect, previous: MoveEffect | None) -> float:
    """The greedy priority of one legal move (higher first; :data:`SKIP` never)."""
    action = effect.action
    if action == core.DRAW:
        return 10
    if action == core.RECYCLE:
        return 5
    if action >= core.FOUNDATION_TO_COLUMN:
        return SKIP
    if previous is not None and _undoes(effect, previous):
        return SKIP
    source_down = view.tableau[effect.source_column].down if effect.source_column >= 0 else 0
    if effect.to_foundation:
        if effect.flips:
            return 100 + source_down
        if is_safe_to_foundation(effect.cards[0], view.foundations):
            return 90
        return 40 if effect.source_column < 0 else 30
    if effect.source_column < 0:  # waste to a column
        if view.tableau[effect.dest_column].top < 0:  # a king onto an empty column
            return 20 if _tableau_king_waiting(view) else 55
        return 60
    # tableau to tableau
    if effect.flips:
        return 80 + source_down
    source = view.tableau[effect.source_column]
    if effect.empties:
        # a column emptied is only worth it when a king can use it, and never by a king itself
        if core.card_rank(effect.cards[0]) != core.KING and _king_waiting(view):
            return 45
        return SKIP
    if len(effect.cards) < len(source.face_up):
        uncovered = source.face_up[-len(effect.cards) - 1]
        if view.fits_foundation(uncovered):
            return 50
    return SKIP


def _undoes(effect: MoveEffect, previous: MoveEffect) -> bool:
    """``effect`` moves the same cards straight back where the previous move took them from."""
    return (
        previous.source_column >= 0
        and effect.source_column == previous.dest_column
        and effect.dest_column == previous.source_column
        and effect.cards == previous.cards
    )


def greedy_action(view: PlayerView, previous: MoveEffect | None = None, rng=None) -> int:
    """The greedy move in ``view`` (ties at random when ``rng`` is given, else the lowest id)."""
    best, best_priority = [], float(SKIP)
    for action in view.legal_actions:
        priority = move_priority(view, view.effect(action), previous)
        if priority > best_priority:
            best, best_priority = [action], priority
        elif priority == best_priority and priority != SKIP:
            best.append(action)
    if not best:
        return RESIGN
    return int(best[0] if rng is None or len(best) == 1 else rng.choice(best))


class GreedyAgent(Agent):
    name = "greedy"

    def reset(self, deal: DealInfo) -> None:
        super().reset(deal)
        self._previous: MoveEffect | None = None
        self._moved_this_pass = False

    def act(self, view: PlayerView) -> int:
        action = self.choose(view)
        self.note(view, action)
        return action

    def choose(self, view: PlayerView) -> int:
        """The greedy move, or :data:`RESIGN` when a trip through the stock would repeat the last."""
        action = greedy_action(view, self._previous, self.rng)
        if action == core.RECYCLE and not self._moved_this_pass:
            return RESIGN  # the next trip through the stock would repeat this one
        return action

    def note(self, view: PlayerView, action: int) -> None:
        """Record a move played in ``view`` (by this agent or by a search using it as fall-back)."""
        if action == core.RECYCLE:
            self._moved_this_pass = False
        elif action not in (core.DRAW, RESIGN):
            self._moved_this_pass = True
            self._previous = view.effect(action)
