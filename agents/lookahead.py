"""The player's own next commitment, played out in fresh worlds (the ``determinized`` agent's
``lookahead`` option).

A hindsight vote credits a first move with every world some continuation wins in, each world
choosing its own (strategy fusion). The player chooses its continuation from what it sees: after
a move that turns up a card, from that card and no other. :func:`player_line` plays that choice
forward the way the agent makes it, by a vote over worlds freshly sampled from the player's view,
up to and including the first move that cannot be taken back or turns up a card; a candidate is
then credited only in the worlds where that line still wins.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import numpy as np

from agents.base import PlayerView
from agents.positions import hidden_count, reversible
from klondike_env.game import Game
from klondike_env.solver import SolveResult, SolveStatus

# a line of moves that can all be taken back (draws round the talon) is cut here
LONGEST_LINE = 40


def majority(actions) -> int:
    """The action most often in ``actions`` (ties: the lowest)."""
    counts = Counter(actions)
    return min(counts, key=lambda a: (-counts[a], a))


def player_line(view: PlayerView, rng: np.random.Generator, worlds: int,
                solve: Callable[[Game], SolveResult]) -> list[int]:
    """The moves the player plays from ``view`` up to its next commitment: ``worlds`` worlds are
    sampled from ``view`` and solved (``solve``), and the move most of their winning lines take
    next is played (ties: the lowest action), the lines taking another dropped, until a move that
    cannot be taken back or turns up a card (included). Empty when no world is won."""
    lines = []
    for _ in range(worlds):
        result = solve(view.sample_world(rng))
        if result.status == SolveStatus.SOLVED and result.actions:
            lines.append(list(result.actions))
    if not lines:
        return []
    # any world of the view steps the player's position along: which moves are legal and what
    # they turn up up to the line's last move is the player's to see
    position = view.sample_world(rng)
    played: list[int] = []
    current = view
    while lines and len(played) < LONGEST_LINE:
        action = majority(line[0] for line in lines)
        played.append(action)
        if not reversible(current, action):
            break
        # a draw can turn up a stock card not seen yet, which is no flip of a tableau card
        hidden = hidden_count(position, view.stock_visible)
        position.step(action)
        if hidden_count(position, view.stock_visible) < hidden:
            break
        lines = [line[1:] for line in lines if line[0] == action and len(line) > 1]
        current = PlayerView(position, stock_visible=view.stock_visible)
    return played
