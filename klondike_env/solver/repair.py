"""Line repair: a winning line of a position, carried over to a position one move away.

A position's winning line, read card by card ("this card home", "this card onto that card",
"this king onto an empty column"), often still wins after a different first move: the move
takes one of the line's steps early, or one the line does not need. :func:`repair` replays the
steps from the new position, bringing each talon card up by draws (and recycles) when its turn
comes and skipping steps already done or no longer possible, and returns the env actions when
they win. Every action is checked legal before it is played and the end is checked won, so a
line it returns always wins; when it returns ``None`` nothing is known (the solver decides).

The determinized agent checks each candidate move in the worlds won by another one
(docs/agents.md); a world's own line, repaired, answers most of those checks without a search.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from klondike_env import core
from klondike_env.core import COLUMN_TO_COLUMN, COLUMN_TO_FOUNDATION, FOUNDATION, FOUNDATION_TO_COLUMN
from klondike_env.core import NUM_COLUMNS, NUM_RANKS, TALON, TALON_LENGTH, WASTE_LENGTH, WASTE_TO_COLUMN
from klondike_env.core import WASTE_TO_FOUNDATION
from klondike_env.solver.moves import play_action, tableau_place

HOME = 0  # a step: (HOME, card, -1): the card to its foundation
ONTO = 1  # (ONTO, card, target): the card (and what lies on it) onto ``target``, -1: an empty column
# draws and recycles to bring one talon card to the waste top: two passes and a recycle at most
_TALON_STEPS = 2 * (core.TALON_SLOTS + 1) + 1


@njit(cache=True)
def line_steps(state, rules, line, steps):
    """``line`` (env actions legal from ``state``) as card steps into ``steps`` (rows of
    ``(kind, card, target)``); draws and recycles leave none. Returns how many."""
    s = state.copy()
    count = 0
    for i in range(line.shape[0]):
        action = line[i]
        kind, card, target = -1, -1, -1
        if action == WASTE_TO_FOUNDATION:
            kind, card = HOME, core.waste_top(s)
        elif WASTE_TO_COLUMN <= action < COLUMN_TO_FOUNDATION:
            kind, card, target = ONTO, core.waste_top(s), core.column_top(s, action - WASTE_TO_COLUMN)
        elif COLUMN_TO_FOUNDATION <= action < COLUMN_TO_COLUMN:
            kind, card = HOME, core.column_top(s, action - COLUMN_TO_FOUNDATION)
        elif COLUMN_TO_COLUMN <= action < FOUNDATION_TO_COLUMN:
            offset = action - COLUMN_TO_COLUMN
            source = offset // 6
            dest = core.column_action_dest(source, offset % 6)
            start = core.run_start(s, rules, source, dest)
            kind, card, target = ONTO, core.column_card(s, source, start), core.column_top(s, dest)
        elif action >= FOUNDATION_TO_COLUMN:
            offset = action - FOUNDATION_TO_COLUMN
            suit = offset // NUM_COLUMNS
            kind, card = ONTO, NUM_RANKS * suit + s[FOUNDATION + suit] - 1
            target = core.column_top(s, offset % NUM_COLUMNS)
        if kind >= 0:
            steps[count, 0], steps[count, 1], steps[count, 2] = kind, card, target
            count += 1
        core.apply_action(s, rules, action)
    return count


@njit(cache=True)
def _in_talon(state, card):
    for i in range(state[TALON_LENGTH]):
        if state[TALON + i] == card:
            return True
    return False


@njit(cache=True)
def _to_waste_top(state, rules, card, out, count):
    """Draw (and recycle) until ``card`` tops the waste or the talon has gone round; returns the
    count (the caller reads the waste top: the draws stay played either way)."""
    for _ in range(_TALON_STEPS):
        if core.waste_top(state) == card:
            break
        if state[WASTE_LENGTH] < state[TALON_LENGTH]:
            count = play_action(state, rules, core.DRAW, out, count)
        elif state[WASTE_LENGTH] > 0 and core.recycle_allowed(state, rules):
            count = play_action(state, rules, core.RECYCLE, out, count)
        else:
            break
    return count


@njit(cache=True)
def _destination(state, target):
    """The column whose top is ``target`` (the first empty column for ``-1``), or ``-1``."""
    for col in range(NUM_COLUMNS):
        if target < 0 and state[core.COLUMN_LENGTH + col] == 0:
            return col
        if target >= 0 and core.column_top(state, col) == target:
            return col
    return -1


@njit(cache=True)
def _step(state, rules, kind, card, target, out, count):
    """Play one card step when it can be played (as :func:`repair` says); returns the count."""
    col, depth = tableau_place(state, card)
    suit = card // NUM_RANKS
    home = state[FOUNDATION + suit] > card % NUM_RANKS
    if kind == HOME:
        if home or not core.fits_foundation(state, card):
            return count
        if col >= 0:
            if depth == state[core.COLUMN_LENGTH + col] - 1:
                count = play_action(state, rules, COLUMN_TO_FOUNDATION + col, out, count)
            return count
        if _in_talon(state, card):
            count = _to_waste_top(state, rules, card, out, count)
            if core.waste_top(state) == card:
                count = play_action(state, rules, WASTE_TO_FOUNDATION, out, count)
        return count
    dest = _destination(state, target)
    if dest < 0 or not core.fits_column(state, rules, card, dest):
        return count
    if col >= 0:
        down = state[core.COLUMN_DOWN + col]
        if col == dest or depth < down or (target < 0 and depth == 0):
            return count  # already there, face down, or a whole column to an empty one
        if core.run_start(state, rules, col, dest) == depth:
            count = play_action(state, rules, core.column_action(col, dest), out, count)
        return count
    if home:
        if state[FOUNDATION + suit] == card % NUM_RANKS + 1 and rules[core.RULE_FOUNDATION_TO_TABLEAU] == 1:
            count = play_action(state, rules, FOUNDATION_TO_COLUMN + NUM_COLUMNS * suit + dest, out, count)
        return count
    if _in_talon(state, card):
        count = _to_waste_top(state, rules, card, out, count)
        if core.waste_top(state) == card:
            count = play_action(state, rules, WASTE_TO_COLUMN + dest, out, count)
    return count


@njit(cache=True)
def _repair(state, rules, steps, count, out):
    """:func:`repair` into ``out``: the number of actions (more than fit when ``out`` is short),
    ``-1`` when the steps do not win."""
    s = state.copy()
    played = 0
    for i in range(count):
        played = _step(s, rules, steps[i, 0], steps[i, 1], steps[i, 2], out, played)
    moved = True  # a step skipped can leave cards that go home at the end
    while moved and not core.is_won(s):
        moved = False
        for col in range(NUM_COLUMNS):
            card = core.column_top(s, col)
            if card >= 0 and core.fits_foundation(s, card):
                played = play_action(s, rules, COLUMN_TO_FOUNDATION + col, out, played)
                moved = True
    return played if core.is_won(s) else -1


def repair(before: np.ndarray, line, after: np.ndarray, rules: np.ndarray) -> list[int] | None:
    """The env actions that win from ``after``, by ``line``'s card steps (``line`` wins from
    ``before``; both states of the same deal, every card known), or ``None`` when they do not."""
    actions = np.asarray(line, np.int32)
    steps = np.empty((max(len(actions), 1), 3), np.int32)
    count = line_steps(before, rules, actions, steps)
    size = 4 * len(actions) + 64
    while True:
        out = np.empty(size, np.int32)
        played = _repair(after, rules, steps, count, out)
        if played < 0:
            return None
        if played <= size:
            return out[:played].tolist()
        size = played
