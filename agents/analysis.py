"""Where a lost game went wrong: the move after which the true deal could no longer be won.

Winnability never grows along a game (every position reachable later was reachable before),
so bisection on the move number finds the first position the solver does not solve. A
position the solver cannot decide within ``node_limit`` counts as not solved, so the move
found can be early, never late. :func:`action_win_counts` then asks, at such a move, how
each legal action fared in worlds sampled from what the player knew. :func:`label_moves`
scores every move of a game that way, up to its losing move (``klondike label-moves``): how
often a player's move was clearly worse than another by what it knew, and training data.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from agents.base import PlayerView
from klondike_env import core
from klondike_env.game import Game, IllegalActionError
from klondike_env.rules import Rules
from klondike_env.solver import DEFAULT_MEMORY_MB, SolveStatus, solve

# each labelling solve is small: a small table is allocated faster than the default
LABEL_TABLE_MB = 64
# a move whose share of winnable worlds (label_moves) is this much below the best move's
BLUNDER_GAP = 0.5
# kinds of move (docs/contract.md "Actions"), by the first action id of each block
_MOVE_KINDS = ((core.FOUNDATION_TO_COLUMN, "foundation to column"), (core.COLUMN_TO_COLUMN, "column to column"),
               (core.COLUMN_TO_FOUNDATION, "column to foundation"), (core.WASTE_TO_FOUNDATION, "waste"),
               (core.RECYCLE, "recycle"), (core.DRAW, "draw"))


def check_replays(path, games, rules: Rules) -> None:
    """A ``ValueError`` naming ``path`` unless every ``(deal, actions, ...)`` of ``games`` replays
    legally under ``rules``: a game recorded under other rules (draw 1, say) would otherwise
    fail deep inside a solver worker."""
    standard = rules == Rules(draw_count=rules.draw_count)
    name = f"draw-{rules.draw_count} standard rules" if standard else f"the rules {rules}"
    for deal, actions, *_ in games:
        game = Game.new(deal, rules)
        for number, action in enumerate(actions, 1):
            if action not in game.legal_actions():
                raise ValueError(f"{path} does not replay under {name}, the only rules analysed here: deal {deal}, "
                                 f"move {number}: action {action} is not legal there")
            game.step(action)


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
    return losing_move(Game.new(deal, rules), actions, node_limit).move


@dataclass(frozen=True)
class LosingMove:
    """Where a game was lost, by the solver (:func:`losing_move`).

    ``verdict``: ``"lost"`` (solved after ``move - 1`` moves, proven unwinnable after ``move``),
    ``"undecided"`` (solved after ``move - 1`` moves, not decided within the budget after
    ``move``: the loss is at ``move`` or later), ``"winnable"`` (still solved at the end:
    ``move`` is None), ``"unwinnable"`` (proven unwinnable from the deal itself: ``move`` 0; an
    opening not decided is ``"undecided"`` at move 0).
    """

    move: int | None
    verdict: str


def losing_move(start: Game, actions: list[int], node_limit: int) -> LosingMove:
    """The first move of ``actions`` from the opening ``start`` after which the true position is
    no longer solved within ``node_limit`` positions per solve (bisection: winnability never
    grows along a game)."""
    def status(moves: int) -> SolveStatus:
        game = start.copy()
        for action in actions[:moves]:
            game.step(action)
        return solve(game, node_limit=node_limit).status

    final = status(len(actions))
    if final == SolveStatus.SOLVED:
        return LosingMove(None, "winnable")
    opening = status(0)
    if opening != SolveStatus.SOLVED:
        return LosingMove(0, "unwinnable" if opening == SolveStatus.UNSOLVABLE else "undecided")
    solved, lost = 0, len(actions)  # invariant: after `solved` moves solved, after `lost` not
    lost_status = final
    while lost - solved > 1:
        middle = (solved + lost) // 2
        middle_status = status(middle)
        if middle_status == SolveStatus.SOLVED:
            solved = middle
        else:
            lost, lost_status = middle, middle_status
    return LosingMove(lost, "lost" if lost_status == SolveStatus.UNSOLVABLE else "undecided")


def action_win_counts(game: Game, worlds: int, node_limit: int, seed: int = 0) -> dict[int, tuple[int, int]]:
    """``{action: (worlds won, worlds undecided)}`` over ``worlds`` worlds sampled from the player view."""
    view = PlayerView(game)
    rng = np.random.default_rng(seed)
    sampled = [view.sample_world(rng) for _ in range(worlds)]
    counts = {}
    for action in view.legal_actions:
        won = undecided = 0
        for world in sampled:
            solved = _status_after(world, action, node_limit, DEFAULT_MEMORY_MB)
            won += solved is True
            undecided += solved is None
        counts[int(action)] = (won, undecided)
    return counts


def world_share(game: Game, action: int, worlds: int, node_limit: int, seed: int = 0) -> tuple[int, int]:
    """``(worlds won, worlds decided)`` after ``action`` among ``worlds`` worlds sampled from the
    player's view of ``game``: how winnable the move looked to the player."""
    view = PlayerView(game)
    rng = np.random.default_rng(seed)
    results = [_status_after(view.sample_world(rng), action, node_limit) for _ in range(worlds)]
    return sum(result is True for result in results), sum(result is not None for result in results)


def label_moves(deal: int, actions: list[int], rules: Rules, *, worlds: int, node_limit: int,
                seed: int = 0, observation_mode: str | None = None) -> list[tuple]:
    """Score every legal move along a recorded game by whether the deal stays winnable after it.

    Returns ``(move number, share)`` for each position with more than one legal move, from the
    opening up to the first move after which the true deal is lost (or undecided): ``share[a]``
    is, for a legal action ``a``, the fraction of worlds still solved after it (``-1`` for an
    illegal one). Where every legal move keeps the true deal winnable, or every one loses it,
    the true deal alone decides (1 or 0): a player could not tell the moves apart by it anyway.
    Where the true deal tells them apart, ``worlds`` more worlds sampled from what the player
    knew join it, so that ``share`` estimates what the player's information says about the
    move, not the luck of where the hidden cards lay. Undecided solves (``node_limit``) are
    left out of a share; a move with none decided gets 0.5. With ``observation_mode`` each entry
    is ``(move number, share, observation)``: the player's uint8 observation of the position.
    """
    game = Game.new(deal, rules)
    rng = np.random.default_rng(seed)
    labelled = []
    for number, played in enumerate(actions):
        legal = game.legal_actions()
        if played not in legal:
            raise IllegalActionError(f"deal {deal}, move {number + 1}: action {played} is not legal there")
        if len(legal) > 1:
            true_status = {action: _status_after(game, action, node_limit) for action in legal}
            outcomes = {action: [status] for action, status in true_status.items()}
            decided = {status for status in true_status.values() if status is not None}
            if decided == {True, False} and worlds:
                view = PlayerView(game)
                sampled = [view.sample_world(rng) for _ in range(worlds)]
                for action in legal:
                    outcomes[action] += [_status_after(world, action, node_limit) for world in sampled]
            share = np.full(core.NUM_ACTIONS, -1.0, np.float32)
            for action, results in outcomes.items():
                known = [result for result in results if result is not None]
                share[action] = np.mean(known) if known else 0.5
            if observation_mode is None:
                labelled.append((number, share))
            else:
                labelled.append((number, share, PlayerView(game).observe(observation_mode, "uint8")))
            if true_status[played] is not True:
                break  # lost (or undecided) from here on: nothing left to tell apart
        game.step(played)
        if game.is_won:
            break
    return labelled


def _status_after(game: Game, action: int, node_limit: int, memory_limit_mb: float = LABEL_TABLE_MB) -> bool | None:
    """Whether ``game`` after ``action`` is solved (None: undecided within ``node_limit``)."""
    child = game.copy()
    child.step(action)
    status = solve(child, node_limit=node_limit, memory_limit_mb=memory_limit_mb).status
    return None if status == SolveStatus.UNKNOWN else status == SolveStatus.SOLVED


def move_kind(action: int) -> str:
    """The kind of an action id: draw, recycle, waste (to a foundation or a column), column to
    foundation, column to column, foundation to column."""
    return next(kind for first, kind in _MOVE_KINDS if action >= first)
