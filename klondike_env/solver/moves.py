"""Search moves: how a move is packed, and the move generator of the position search.

A search move packs the env action with the draws (and recycle) that bring its card up, so one
search move plays any talon card that draws can reach (docs/solver.md, "Talon macro moves").
The class search (:mod:`klondike_env.solver.classes`) packs its moves the same way in the same bits.
Every rule is applied through :mod:`klondike_env.core`; this module only chooses which moves to
try and in what order.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from klondike_env import core
from klondike_env.core import (
    COLUMN_DOWN,
    COLUMN_LENGTH,
    COLUMN_SLOTS,
    COLUMN_TO_FOUNDATION,
    DRAW,
    FOUNDATION,
    FOUNDATION_TO_COLUMN,
    NUM_COLUMNS,
    NUM_RANKS,
    NUM_SUITS,
    RECYCLE,
    RULE_DRAW_COUNT,
    RULE_FOUNDATION_TO_TABLEAU,
    TABLEAU,
    TALON,
    TALON_LENGTH,
    WASTE_TO_COLUMN,
    WASTE_TO_FOUNDATION,
)

MAX_MOVES = 192  # moves generated at one position (at most ~150 are possible)

# A search move packs the env action (bits 0-6) with the draws before a recycle (bits 7-11), the
# recycle (bit 12) and the draws after it (bits 13-17) that bring its card up.
ACTION_MASK = 127
BEFORE_SHIFT = 7
RECYCLE_SHIFT = 12
AFTER_SHIFT = 13
COUNT_MASK = 31


@njit(cache=True, inline="always")
def safe_to_foundation(state, card):
    """The safe auto-play rule (docs/solver.md, "Safe foundation auto-play") (clubs/spades = suits 0/3)."""
    return safe_home(state, card // NUM_RANKS, card % NUM_RANKS)


@njit(cache=True, inline="always")
def safe_home(state, suit, height):
    """:func:`safe_to_foundation` of the card of ``suit`` one above a foundation of ``height``
    (for a caller that has the two numbers, with no division of a card by the ranks)."""
    if suit == 1 or suit == 2:
        other_low = min(state[FOUNDATION + 0], state[FOUNDATION + 3])
    else:
        other_low = min(state[FOUNDATION + 1], state[FOUNDATION + 2])
    return other_low >= height and state[FOUNDATION + 3 - suit] >= height - 1


@njit(cache=True, inline="always")
def play_action(state, rules, action, out, count):
    """Apply one env action through the core; append it to ``out`` (when it has room)."""
    core.apply_action(state, rules, action)
    if count < out.shape[0]:
        out[count] = action
    return count + 1


@njit(cache=True)
def tableau_place(state, card):
    """``(column, depth)`` of ``card`` in the tableau, ``(-1, -1)`` when it is not there."""
    for col in range(NUM_COLUMNS):
        for depth in range(state[COLUMN_LENGTH + col]):
            if state[TABLEAU + COLUMN_SLOTS * col + depth] == card:
                return col, depth
    return -1, -1


@njit(cache=True)
def auto_play(state, rules, out, count):
    """Play every safe tableau card to its foundation; append the actions to ``out``."""
    moved = True
    while moved:
        moved = False
        for col in range(NUM_COLUMNS):
            card = core.column_top(state, col)
            if card >= 0 and core.fits_foundation(state, card) and safe_to_foundation(state, card):
                count = play_action(state, rules, COLUMN_TO_FOUNDATION + col, out, count)
                moved = True
    return count


@njit(cache=True)
def play_recipe(state, rules, move, out, count):
    """Play the draws and recycle a search move (of either search) packs; append them to ``out``."""
    for _ in range((move >> BEFORE_SHIFT) & COUNT_MASK):
        count = play_action(state, rules, DRAW, out, count)
    if (move >> RECYCLE_SHIFT) & 1:
        count = play_action(state, rules, RECYCLE, out, count)
    for _ in range((move >> AFTER_SHIFT) & COUNT_MASK):
        count = play_action(state, rules, DRAW, out, count)
    return count


@njit(cache=True)
def apply_move(state, rules, move, out, count):
    """Play one search move (its draws, recycle and card move); append the actions to ``out``."""
    count = play_recipe(state, rules, move, out, count)
    return play_action(state, rules, move & ACTION_MASK, out, count)


@njit(cache=True, inline="always")
def add_move(moves, scores, count, move, score):
    """Insert keeping ``scores`` descending (stable: equal scores keep generation order)."""
    i = count
    while i > 0 and scores[i - 1] < score:
        moves[i] = moves[i - 1]
        scores[i] = scores[i - 1]
        i -= 1
    moves[i] = move
    scores[i] = score
    return count + 1


@njit(cache=True, inline="always")
def talon_walk_start(state, rules, reached):
    """``(draw_count, forward, total)`` of :func:`core.talon_walk` from here, ``reached`` cleared."""
    draw_count = rules[RULE_DRAW_COUNT]
    forward, total = core.talon_walk(state, draw_count, core.recycle_allowed(state, rules))
    reached[:] = 0
    return draw_count, forward, total


@njit(cache=True, inline="always")
def talon_step(state, draw_count, forward, step, reached):
    """Step ``step`` of the talon walk as a search move's recipe: ``(boundary, recipe, cost)``,
    the waste length it reaches (0 when nothing new: an empty waste or a length reached by a
    shorter way), the packed draws and recycle, and their number of actions."""
    boundary = core.talon_walk_length(state, draw_count, forward, step)
    if boundary == 0 or reached[boundary] == 1:
        return 0, 0, 0
    reached[boundary] = 1
    if step < forward:
        return boundary, step << BEFORE_SHIFT, step
    before, after = forward - 1, step - forward + 1  # to the end of the talon, the recycle, draws again
    return boundary, (before << BEFORE_SHIFT) | (1 << RECYCLE_SHIFT) | (after << AFTER_SHIFT), before + 1 + after


@njit(cache=True)
def generate_moves(state, rules, moves, scores, reached):
    """All search moves at ``state``, best first. Returns how many (``reached``: scratch)."""
    count = 0
    first_empty = -1
    for col in range(NUM_COLUMNS):
        if state[COLUMN_LENGTH + col] == 0:
            first_empty = col
            break
    # tableau -> foundation (the safe ones were auto-played already); tried late: a card
    # played up early often is needed later to hold a run (measured on deals 1-60)
    for col in range(NUM_COLUMNS):
        card = core.column_top(state, col)
        if card >= 0 and core.fits_foundation(state, card):
            count = add_move(moves, scores, count, COLUMN_TO_FOUNDATION + col, 300)
    # tableau -> tableau; the card sets (core.column_run/column_accepts) rule out most pairs
    # at once, so run_start runs only where some card fits
    accepts = (
        core.column_accepts(state, rules, 0), core.column_accepts(state, rules, 1),
        core.column_accepts(state, rules, 2), core.column_accepts(state, rules, 3),
        core.column_accepts(state, rules, 4), core.column_accepts(state, rules, 5),
        core.column_accepts(state, rules, 6),
    )
    # the cards some column takes (an empty column other than the first counts as none: only
    # the first empty one is a destination), so most talon and foundation cards are ruled out
    # with one test instead of seven
    any_accepts = np.int64(0)
    for col in range(NUM_COLUMNS):
        if state[COLUMN_LENGTH + col] > 0 or col == first_empty:
            any_accepts |= accepts[col]
    for source in range(NUM_COLUMNS):
        length = state[COLUMN_LENGTH + source]
        if length == 0:
            continue
        down = state[COLUMN_DOWN + source]
        run = core.column_run(state, source)
        for dest in range(NUM_COLUMNS):
            if dest == source or run & accepts[dest] == 0:
                continue
            dest_empty = state[COLUMN_LENGTH + dest] == 0
            if dest_empty and dest != first_empty:
                continue
            start = core.run_start(state, rules, source, dest)
            if start < 0:
                continue
            if start == 0 and dest_empty:
                continue  # a whole column onto an empty one: a column permutation
            if start == down and down > 0:
                score = 700 + 10 * down  # turns a card up; deeper columns first
            elif start == 0:
                score = 450  # empties a column
            else:
                score = 200  # splits a run
            count = add_move(moves, scores, count, core.column_action(source, dest), score)
    # talon cards reachable by draws (and at most one recycle), each by its shortest way
    if state[TALON_LENGTH] > 0:
        draw_count, forward, total = talon_walk_start(state, rules, reached)
        for step in range(total):
            boundary, recipe, cost = talon_step(state, draw_count, forward, step, reached)
            if boundary == 0:
                continue
            count = _add_talon_moves(state, rules, moves, scores, count, boundary, first_empty, any_accepts,
                                     recipe, cost)
    # foundation -> tableau ("worrying back")
    if rules[RULE_FOUNDATION_TO_TABLEAU] == 1:
        for suit in range(NUM_SUITS):
            height = state[FOUNDATION + suit]
            if height == 0:
                continue
            card = NUM_RANKS * suit + height - 1
            if (any_accepts >> card) & 1 == 0 or safe_to_foundation(state, card):
                continue  # nowhere to go, or auto-play would send it straight back
            for col in range(NUM_COLUMNS):
                if state[COLUMN_LENGTH + col] == 0 and col != first_empty:
                    continue
                if (accepts[col] >> card) & 1:
                    count = add_move(moves, scores, count, FOUNDATION_TO_COLUMN + NUM_COLUMNS * suit + col, 100)
    return count


@njit(cache=True)
def _add_talon_moves(state, rules, moves, scores, count, boundary, first_empty, any_accepts, recipe, cost):
    """Moves of the talon card that ``recipe``'s draws bring to the waste top (boundary)."""
    card = state[TALON + boundary - 1]
    if core.fits_foundation(state, card):
        count = add_move(moves, scores, count, recipe | WASTE_TO_FOUNDATION, 300 - cost)
    if (any_accepts >> card) & 1 == 0:
        return count
    for col in range(NUM_COLUMNS):
        if state[COLUMN_LENGTH + col] == 0 and col != first_empty:
            continue
        if core.fits_column(state, rules, card, col):
            count = add_move(moves, scores, count, recipe | (WASTE_TO_COLUMN + col), 600 - cost)
    return count


@njit(cache=True)
def solution_actions(root, rules, moves, move_next, depth, out):
    """Expand the winning line (moves chosen on depths ``0..depth-1``) into env actions."""
    state = root.copy()
    count = auto_play(state, rules, out, 0)
    for level in range(depth):
        count = apply_move(state, rules, moves[level, move_next[level] - 1], out, count)
        count = auto_play(state, rules, out, count)
    return count
