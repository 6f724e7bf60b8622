"""Where a lost game went wrong: the move after which the true deal could no longer be won.

Winnability never grows along a game (every position reachable later was reachable before),
so bisection on the move number finds the first position the solver does not solve. A
position the solver cannot decide within ``node_limit`` counts as not solved, so the move
found can be early, never late. :func:`action_win_counts` then asks, at such a move, how
each legal action fared in worlds sampled from what the player knew.
"""

from __future__ import annotations

import numpy as np

from agents.base import PlayerView
from klondike_env.game import Game
from klondike_env.rules import Rules
from klondike_env.solver import SolveStatus, solve


def position_after(deal: int, actions: list[int], rules: Rules, moves: int) -> Game:
    """The true game of ``deal`` after its first ``moves`` actions."""
    game = Game.new(deal, rules)
    for action in actions[:moves]:
        game.step(action)
    return game


def is_solved(game: Game, node_limit: int) -> bool:
    return solve(game, node_limit=node_limit).status == SolveStatus.SOLVED


def first_losing_move(deal: int, actions: list[int], rules: Rules, node_limit: int) -> int | None:
    """The 1-based number of the move after which the deal is no longer solved.

    ``None`` when the final position is still solved (the game was given up while winnable);
    0 when the opening itself is not solved.
    """
    if is_solved(position_after(deal, actions, rules, len(actions)), node_limit):
        return None
    if not is_solved(position_after(deal, actions, rules, 0), node_limit):
        return 0
    solved, lost = 0, len(actions)  # invariant: after `solved` moves solved, after `lost` not
    while lost - solved > 1:
        middle = (solved + lost) // 2
        if is_solved(position_after(deal, actions, rules, middle), node_limit):
            solved = middle
        else:
            lost = middle
    return lost


def action_win_counts(game: Game, worlds: int, node_limit: int, seed: int = 0) -> dict[int, tuple[int, int]]:
    """``{action: (worlds won, worlds undecided)}`` over ``worlds`` worlds sampled from the player view."""
    view = PlayerView(game)
    rng = np.random.default_rng(seed)
    sampled = [view.sample_world(rng) for _ in range(worlds)]
    counts = {}
    for action in view.legal_actions:
        won = undecided = 0
        for world in sampled:
            child = world.copy()
            child.step(action)
            status = solve(child, node_limit=node_limit).status
            won += status == SolveStatus.SOLVED
            undecided += status == SolveStatus.UNKNOWN
        counts[int(action)] = (won, undecided)
    return counts
