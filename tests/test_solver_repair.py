"""Line repair (klondike_env.solver.repair): a winning line carried over to a position one
move away wins whenever it is returned, and it is returned where the move only takes one of the
line's own steps early."""

from __future__ import annotations

import numpy as np
import pytest

from klondike_env import Game, Rules, SolveStatus, core, solve
from klondike_env.solver.repair import HOME, ONTO, line_steps, repair


def _solved(deal: int, rules: Rules | None = None) -> tuple[Game, list[int]]:
    game = Game.new(deal, rules or Rules())
    result = solve(game, node_limit=60_000)
    assert result.status == SolveStatus.SOLVED
    return game, result.actions


def _replays_to_a_win(game: Game, actions: list[int]) -> bool:
    game = game.copy()
    for action in actions:
        game.step(action)  # raises on an illegal action
    return game.is_won


def _after(game: Game, actions: list[int]) -> Game:
    child = game.copy()
    for action in actions:
        child.step(action)
    return child


@pytest.mark.parametrize("draw", [3, 1])
def test_a_line_repaired_onto_its_own_position_still_wins(draw):
    rules = Rules(draw_count=draw)
    for deal in (3, 5, 7, 11):
        game, line = _solved(deal, rules)
        repaired = repair(game._state, line, game._state, game._rules_array)
        assert repaired is not None and _replays_to_a_win(game, repaired)


def test_a_card_step_taken_first_leaves_the_rest_of_the_line():
    game, line = _solved(7)
    # the line's first card move, played first with the draws before it: the rest still wins
    first = next(i for i, action in enumerate(line) if action not in (core.DRAW, core.RECYCLE))
    child = _after(game, line[: first + 1])
    repaired = repair(game._state, line, child._state, game._rules_array)
    assert repaired is not None and _replays_to_a_win(child, repaired)
    assert len(repaired) <= len(line) - first - 1 + 2 * core.TALON_SLOTS  # no detour beyond the talon's


def test_steps_name_cards_not_columns():
    game, line = _solved(7)
    steps = np.empty((len(line), 3), np.int32)
    count = line_steps(game._state, game._rules_array, np.asarray(line, np.int32), steps)
    moves = sum(action not in (core.DRAW, core.RECYCLE) for action in line)
    assert count == moves
    assert set(steps[:count, 0]) <= {HOME, ONTO}
    homes = steps[:count][steps[:count, 0] == HOME, 1]
    assert set(homes.tolist()) == set(range(52))  # every card goes home (some twice: worried back)
    onto = steps[:count][steps[:count, 0] == ONTO]
    assert ((onto[:, 1] >= 0) & (onto[:, 1] < 52) & (onto[:, 2] >= -1) & (onto[:, 2] < 52)).all()


def test_property_every_repaired_line_wins_and_lost_positions_get_none():
    """From positions along solved deals' lines, after every other legal move: whatever
    ``repair`` returns replays to a win, it never answers where the solver proves a loss, and
    it answers many of the moves after which the solver finds a win quickly."""
    returned, won_by_solver = _repairs_after_other_moves(Rules(), range(3, 40, 3))
    assert won_by_solver > 20
    assert returned > won_by_solver // 3  # 17 of 38 when written


@pytest.mark.parametrize("rules", [Rules(draw_count=1), Rules(max_passes=3), Rules(foundation_to_tableau=False)],
                         ids=["draw1", "three-passes", "no-worrying-back"])
def test_property_repaired_lines_are_legal_under_other_rules(rules):
    returned, _ = _repairs_after_other_moves(rules, range(4, 30, 5), verdicts=False)
    assert returned > 0


def _repairs_after_other_moves(rules: Rules, deals, verdicts: bool = True) -> tuple[int, int]:
    """``(lines returned, moves after which the solver wins)`` over every legal move other than
    the line's own at a random point of each solved deal's line; a returned line must replay to a
    win, and (``verdicts``: each position solved too) never where the solver proves a loss."""
    rng = np.random.default_rng(11)
    returned = won_by_solver = 0
    for deal in deals:
        game = Game.new(deal, rules)
        result = solve(game, node_limit=30_000)
        if result.status != SolveStatus.SOLVED:
            continue
        line = result.actions
        at = int(rng.integers(0, max(1, len(line) // 2)))
        position = _after(game, line[:at])
        rest = line[at:]
        for action in position.legal_actions():
            if action == rest[0]:
                continue
            child = _after(position, [action])
            repaired = repair(position._state, rest, child._state, position._rules_array)
            verdict = solve(child, node_limit=30_000, actions=False).status if verdicts else None
            if repaired is not None:
                returned += 1
                assert _replays_to_a_win(child, repaired)
                assert verdict != SolveStatus.UNSOLVABLE
            won_by_solver += verdict == SolveStatus.SOLVED
    return returned, won_by_solver


def test_nothing_is_returned_when_the_line_cannot_be_carried_over():
    game, line = _solved(7)
    other, _ = _solved(5)  # another deal: its cards lie elsewhere
    assert repair(game._state, line, other._state, game._rules_array) is None
