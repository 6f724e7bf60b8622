"""Cards stuck for good: a proof that a position is lost, checked at the root of a solve
(docs/solver.md, "Cards stuck for good")."""

from __future__ import annotations

import numpy as np
from numba import njit

from klondike_env import core
from klondike_env.core import (
    COLUMN_DOWN,
    COLUMN_LENGTH,
    COLUMN_SLOTS,
    KING,
    NUM_COLUMNS,
    NUM_RANKS,
    RULE_DRAW_COUNT,
    RULE_FOUNDATION_TO_TABLEAU,
    TABLEAU,
    TALON,
    TALON_LENGTH,
)
from klondike_env.solver.control import NO_REFCOUNT

_ON_FOUNDATION = -1
_IN_TALON = -2


@njit(cache=True)
def stuck_for_good(state, rules):
    """True when some card can provably never leave its place (the fixpoint of the module
    docstring's "cards stuck for good")."""
    if rules[core.RULE_EMPTY_ANY] == 1:
        return False
    column_of = np.full(core.NUM_CARDS, _ON_FOUNDATION, np.int64)
    depth_of = np.zeros(core.NUM_CARDS, np.int64)  # for a talon card: its talon index
    stuck = np.zeros(core.NUM_CARDS, np.bool_)
    for col in range(NUM_COLUMNS):
        base = TABLEAU + COLUMN_SLOTS * col
        for depth in range(state[COLUMN_LENGTH + col]):
            card = state[base + depth]
            column_of[card] = col
            depth_of[card] = depth
            # the candidates: face-down cards and the head of the face-up run
            if depth <= state[COLUMN_DOWN + col]:
                stuck[card] = True
    talon_length = state[TALON_LENGTH]
    for index in range(talon_length):
        card = state[TALON + index]
        column_of[card] = _IN_TALON
        depth_of[card] = index
        stuck[card] = True  # every talon card is a candidate too
    reachable = _reachable_talon(state, rules)
    talon_left = 0  # talon cards unmarked so far
    changed = True
    while changed:
        changed = False
        for card in range(core.NUM_CARDS):
            if stuck[card] and _may_leave(state, rules, card, column_of, depth_of, stuck, reachable, talon_left):
                stuck[card] = False
                changed = True
                if column_of[card] == _IN_TALON:
                    talon_left += 1
    for card in range(core.NUM_CARDS):
        if stuck[card]:
            return True
    return False


@njit(cache=True)
def _reachable_talon(state, rules):
    """Which talon indices draws and recycles alone bring to the waste top now."""
    draw_count = rules[RULE_DRAW_COUNT]
    forward, total = core.talon_walk(state, draw_count, core.recycle_allowed(state, rules))
    reachable = np.zeros(core.TALON_SLOTS + 1, np.bool_)
    for step in range(total):
        length = core.talon_walk_length(state, draw_count, forward, step)
        if length > 0:
            reachable[length - 1] = True
    return reachable


@njit(**NO_REFCOUNT)  # called on every card at every round of the fixpoint
def _may_leave(state, rules, card, column_of, depth_of, stuck, reachable, talon_left):
    """Whether ``card`` has a way out that no card currently marked stuck blocks."""
    col = column_of[card]
    depth = depth_of[card]
    in_talon = col == _IN_TALON
    if in_talon:
        # it must reach the waste top: it is there by draws now, or another talon card
        # leaves first (that shifts the draw groups or uncovers it in the waste)
        if not reachable[depth] and talon_left == 0:
            return False
    elif _covered_by_stuck(state, col, depth, stuck):
        return False
    rank = card % NUM_RANKS
    suit = card // NUM_RANKS
    # to its foundation: every lower card of its suit must get home first
    home = True
    for lower in range(NUM_RANKS * suit, card):
        if stuck[lower] or (not in_talon and column_of[lower] == col and depth_of[lower] < depth):
            home = False
            break
    if home:
        return True
    if rank == KING - 1:
        # a king has no holder: it needs an empty column, which only another column whose
        # cards can all leave (none marked) can become
        for other in range(NUM_COLUMNS):
            if other != col and not _covered_by_stuck(state, other, -1, stuck):
                return True
        return False
    # onto a holder (the other colour, one rank up) that can be a column's last card while
    # it is here
    first = 0 if suit == 1 or suit == 2 else 1
    for holder in (NUM_RANKS * first + rank + 1, NUM_RANKS * (3 - first) + rank + 1):
        holder_col = column_of[holder]
        if holder_col == _ON_FOUNDATION:
            if rules[RULE_FOUNDATION_TO_TABLEAU] == 1:
                return True  # on a foundation: it can be worried back
            continue
        if holder_col == _IN_TALON:
            if not stuck[holder]:
                return True  # it can leave the talon for a column
            continue
        if holder_col == col and depth_of[holder] < depth:
            continue
        if not _covered_by_stuck(state, holder_col, depth_of[holder], stuck):
            return True
    return False


@njit(cache=True, inline="always")
def _covered_by_stuck(state, col, depth, stuck):
    base = TABLEAU + COLUMN_SLOTS * col
    for above in range(depth + 1, state[COLUMN_LENGTH + col]):
        if stuck[state[base + above]]:
            return True
    return False
