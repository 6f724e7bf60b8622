"""The class search: the complete depth-first search over classes of positions, which forget
where the face-up tableau cards lie and keep only what cannot move without changing the class
(each column's face-down count, the foundations, the talon).

Class moves are defined on classes, and the won class is reachable exactly when a winning line
is; :func:`realize` turns a class line back into env actions. The definitions and the proof
are in docs/solver.md, "The class search". Only the king-only empty-column rule is covered.
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
    FOUNDATION,
    FOUNDATION_TO_COLUMN,
    KINGS,
    NUM_CARDS,
    NUM_COLUMNS,
    NUM_RANKS,
    NUM_SUITS,
    RECYCLES,
    RULE_DRAW_COUNT,
    RULE_FOUNDATION_TO_TABLEAU,
    TABLEAU,
    TALON,
    TALON_LENGTH,
    WASTE_LENGTH,
    WASTE_TO_COLUMN,
    WASTE_TO_FOUNDATION,
)
from klondike_env.solver.control import NO_REFCOUNT
from klondike_env.solver.moves import (
    AFTER_SHIFT,
    BEFORE_SHIFT,
    COUNT_MASK,
    RECYCLE_SHIFT,
    add_move,
    auto_play,
    play_action,
    play_recipe,
    safe_home,
    safe_to_foundation,
    tableau_place,
    talon_step,
    talon_walk_start,
)

# A class move: the talon recipe of klondike_env.solver.moves (draws, recycle; bits 7-17), the kind, one argument.
_KIND_SHIFT = 20
_ARG_SHIFT = 23
WASTE_HOME, WASTE_OUT, CARD_HOME, BASE_AWAY, FOUNDATION_OUT = 0, 1, 2, 3, 4
_KIND_MASK = 7
_ARG_MASK = 63
_PLACE_SHIFT = 5
_PLACE = 1 << _PLACE_SHIFT  # card_place[card] = column * _PLACE + depth for a column's own cards, else -1
# A class state keeps the talon's cards as a 52-bit mask too, in two of the tableau slots it
# does not otherwise use (26 bits each), so membership and the key cost no loop over the talon.
_TALON_MASK = TABLEAU
_HALF = 26
BOUNDARY_WORD, BOUNDARY_SHIFT = 0, 51  # where class_key keeps the waste boundary


def _card_tables():
    """Per card: its twin pair (same rank and colour), the two cards it may lie on (one rank
    up, other colour) and the two that may lie on it (one rank down, other colour)."""
    twins = np.zeros(NUM_CARDS, np.int64)
    holders = np.zeros(NUM_CARDS, np.int64)
    lying_on = np.zeros(NUM_CARDS, np.int64)
    for card in range(NUM_CARDS):
        suit, rank = divmod(card, NUM_RANKS)
        twins[card] = (1 << card) | (1 << (NUM_RANKS * (3 - suit) + rank))
        others = (1, 2) if suit in (0, 3) else (0, 3)
        if rank + 1 < NUM_RANKS:
            holders[card] = sum(1 << (NUM_RANKS * s + rank + 1) for s in others)
        if rank > 0:
            lying_on[card] = sum(1 << (NUM_RANKS * s + rank - 1) for s in others)
    return twins, holders, lying_on


_TWINS, _HOLDERS, _LYING_ON = _card_tables()
_SUIT_HOME = np.array([[((1 << h) - 1) << (NUM_RANKS * s) for h in range(NUM_RANKS + 1)] for s in range(NUM_SUITS)],
                      np.int64)  # the cards of suit s on a foundation of height h


@njit(cache=True, inline="always")
def _count2(mask):
    """Bits set in a mask of at most two."""
    return (mask != 0) + ((mask & (mask - 1)) != 0)


@njit(cache=True, inline="always")
def _count4(mask):
    count = 0
    while mask != 0:
        mask &= mask - 1
        count += 1
    return count


@njit(cache=True, inline="always")
def _normalise(state, column_cards, col):
    """A column whose only own card left is a king at its bottom holds a free king: down -1."""
    if state[COLUMN_DOWN + col] == 0 and column_cards[col, 0] % NUM_RANKS == NUM_RANKS - 1:
        state[COLUMN_DOWN + col] = -1


@njit(cache=True, inline="always")
def _talon_cards(state):
    return np.int64(state[_TALON_MASK]) | (np.int64(state[_TALON_MASK + 1]) << _HALF)


@njit(cache=True, inline="always")
def _set_talon_cards(state, cards):
    state[_TALON_MASK] = cards & ((1 << _HALF) - 1)
    state[_TALON_MASK + 1] = cards >> _HALF


@njit(**NO_REFCOUNT)
def _class_sets(state, column_cards, down_masks):
    """``(F, N, empty)``: the face-up tableau cards, those that are not bases, and the empty
    columns, as the class determines them (docs/solver.md)."""
    out = np.int64(0)  # cards home, in the talon or face down
    for suit in range(NUM_SUITS):
        out |= _SUIT_HOME[suit, state[FOUNDATION + suit]]
    out |= _talon_cards(state)
    bases = np.int64(0)
    free_columns = 0
    for col in range(NUM_COLUMNS):
        down = state[COLUMN_DOWN + col]
        if down < 0:
            free_columns += 1
            continue
        out |= down_masks[col, down]
        bases |= np.int64(1) << column_cards[col, down]
    face_up = np.int64(core.ALL_CARDS) & ~out
    sitters = face_up & ~bases
    return face_up, sitters, free_columns - _count4(sitters & np.int64(KINGS))


@njit(cache=True, inline="always")
def _room_for(card, face_up, sitters, empty):
    """Whether ``card``, arriving in the tableau, has an uncovered holder (a king: an empty column)."""
    if card % NUM_RANKS == NUM_RANKS - 1:
        return empty >= 1
    return _count2(face_up & _HOLDERS[card]) - _count2(sitters & _TWINS[card]) >= 1


@njit(cache=True, inline="always")
def _can_uncover(card, face_up, sitters):
    """Whether ``card`` (in ``F``) is uncovered in some arrangement of the class."""
    if _LYING_ON[card] == 0:
        return True
    return _count2(face_up & _TWINS[card]) - _count2(sitters & _LYING_ON[card]) >= 1


@njit(cache=True, inline="always")
def _in_face_up(state, card_place, card):
    """Whether ``card``, not home, is a face-up tableau card: not face down, not in the talon."""
    place = card_place[card]
    if place >= 0 and place & (_PLACE - 1) < state[COLUMN_DOWN + (place >> _PLACE_SHIFT)]:
        return False
    return (_talon_cards(state) >> card) & 1 == 0


@njit(**NO_REFCOUNT)
def _card_home(state, column_cards, card_place, card):
    """Send ``card`` of ``F`` to its foundation; a base's column turns its next card up."""
    state[FOUNDATION + card // NUM_RANKS] += 1
    place = card_place[card]
    if place >= 0 and state[COLUMN_DOWN + place // _PLACE] == place % _PLACE:
        col = place // _PLACE
        state[COLUMN_DOWN + col] -= 1
        _normalise(state, column_cards, col)


@njit(**NO_REFCOUNT)
def _class_auto_play(state, column_cards, card_place):
    """The safe auto-play (klondike_env.solver.moves.safe_to_foundation) on every card of ``F``."""
    moved = True
    while moved:
        moved = False
        for suit in range(NUM_SUITS):
            height = state[FOUNDATION + suit]
            if height == NUM_RANKS or not safe_home(state, suit, height):
                continue
            card = NUM_RANKS * suit + height
            if _in_face_up(state, card_place, card):
                _card_home(state, column_cards, card_place, card)
                moved = True


@njit(cache=True, inline="always")
def copy_class(parent, child):
    """``child`` = ``parent``, copying only what a class state uses (the talon mask and the
    slots from ``COLUMN_DOWN`` on)."""
    child[_TALON_MASK] = parent[_TALON_MASK]
    child[_TALON_MASK + 1] = parent[_TALON_MASK + 1]
    for i in range(COLUMN_DOWN, parent.shape[0]):  # (a loop: an array assignment needs numba's refcounts)
        child[i] = parent[i]


@njit(**NO_REFCOUNT)
def apply_class_move(state, rules, column_cards, card_place, move):
    # the recipe's draws and recycle, in one step (realize plays them one by one)
    draw_count = rules[RULE_DRAW_COUNT]
    if (move >> RECYCLE_SHIFT) & 1:
        state[RECYCLES] += 1
        boundary = ((move >> AFTER_SHIFT) & COUNT_MASK) * draw_count
    else:
        boundary = state[WASTE_LENGTH] + ((move >> BEFORE_SHIFT) & COUNT_MASK) * draw_count
    state[WASTE_LENGTH] = min(boundary, state[TALON_LENGTH])
    kind = (move >> _KIND_SHIFT) & _KIND_MASK
    arg = (move >> _ARG_SHIFT) & _ARG_MASK
    if kind == WASTE_HOME or kind == WASTE_OUT:
        card = core._pop_waste(state)
        _set_talon_cards(state, _talon_cards(state) & ~(np.int64(1) << card))
        if kind == WASTE_HOME:
            state[FOUNDATION + card // NUM_RANKS] += 1
    elif kind == CARD_HOME:
        _card_home(state, column_cards, card_place, arg)
    elif kind == BASE_AWAY:
        state[COLUMN_DOWN + arg] -= 1
        _normalise(state, column_cards, arg)
    else:
        state[FOUNDATION + arg] -= 1
    _class_auto_play(state, column_cards, card_place)


@njit(**NO_REFCOUNT)
def generate_class_moves(state, rules, column_cards, down_masks, moves, scores, reached):
    """All class moves at ``state``, best first (the position search's order). Returns how many."""
    face_up, sitters, empty = _class_sets(state, column_cards, down_masks)
    count = 0
    for suit in range(NUM_SUITS):  # tableau cards home (the safe ones were auto-played)
        height = state[FOUNDATION + suit]
        if height < NUM_RANKS:
            card = NUM_RANKS * suit + height
            if (face_up >> card) & 1 and _can_uncover(card, face_up, sitters):
                count = add_move(moves, scores, count, (CARD_HOME << _KIND_SHIFT) | (card << _ARG_SHIFT), 300)
    for col in range(NUM_COLUMNS):  # bases away
        down = state[COLUMN_DOWN + col]
        if down < 0:
            continue
        base = column_cards[col, down]
        if base % NUM_RANKS == NUM_RANKS - 1:
            fits = empty >= 1  # (down > 0 here: a king left alone is a free king)
        else:
            fits = _count2(face_up & _HOLDERS[base]) - _count2(sitters & _TWINS[base]) >= 1
        if fits:
            score = 700 + 10 * down if down > 0 else 450
            count = add_move(moves, scores, count, (BASE_AWAY << _KIND_SHIFT) | (col << _ARG_SHIFT), score)
    if state[TALON_LENGTH] > 0:  # talon cards, each by its shortest way (as moves.generate_moves)
        draw_count, forward, total = talon_walk_start(state, rules, reached)
        for step in range(total):
            boundary, recipe, cost = talon_step(state, draw_count, forward, step, reached)
            if boundary == 0:
                continue
            card = state[TALON + boundary - 1]
            if core.fits_foundation(state, card):
                count = add_move(moves, scores, count, recipe | (WASTE_HOME << _KIND_SHIFT), 300 - cost)
            if _room_for(card, face_up, sitters, empty):
                count = add_move(moves, scores, count, recipe | (WASTE_OUT << _KIND_SHIFT), 600 - cost)
    if rules[RULE_FOUNDATION_TO_TABLEAU] == 1:
        for suit in range(NUM_SUITS):
            height = state[FOUNDATION + suit]
            if height == 0:
                continue
            card = NUM_RANKS * suit + height - 1
            if safe_to_foundation(state, card) or not _room_for(card, face_up, sitters, empty):
                continue
            count = add_move(moves, scores, count, (FOUNDATION_OUT << _KIND_SHIFT) | (suit << _ARG_SHIFT), 100)
    return count


@njit(**NO_REFCOUNT)
def class_key(state, rules, limited, key):
    """The class as three words: the columns' ``down`` and the foundations and waste boundary;
    the talon cards left (as a card mask); the recycles (limited passes only)."""
    word0 = np.int64(0)
    for col in range(NUM_COLUMNS):
        word0 |= np.int64(state[COLUMN_DOWN + col] + 1) << (5 * col)  # hand-built columns: up to 18 down
    for suit in range(NUM_SUITS):
        word0 |= np.int64(state[FOUNDATION + suit]) << (35 + 4 * suit)
    boundary = state[WASTE_LENGTH]
    if not limited and (boundary % rules[RULE_DRAW_COUNT] == 0 or boundary == state[TALON_LENGTH]):
        boundary = 0  # draws and recycles alone lead from each of these to all the others
    word0 |= np.int64(boundary) << BOUNDARY_SHIFT
    key[0] = word0
    key[1] = _talon_cards(state)
    key[2] = state[RECYCLES] if limited else 0


@njit(cache=True)
def root_class(root):
    """A position's class state (a copy whose ``COLUMN_DOWN`` entries hold ``down``), the
    columns' own cards (``column_cards[k, d]``: depth ``d`` of column ``k``, for ``d <= down[k]``),
    ``down_masks[k, d]`` (the mask of column ``k``'s cards below depth ``d``) and ``card_place``
    (each own card's column and depth, ``-1`` for the other cards)."""
    state = root.copy()
    state[TABLEAU:COLUMN_LENGTH] = -1  # the class reads no tableau slot but the talon mask's two
    talon = np.int64(0)
    for i in range(root[TALON_LENGTH]):
        talon |= np.int64(1) << root[TALON + i]
    _set_talon_cards(state, talon)
    card_place = np.full(NUM_CARDS, -1, np.int32)
    column_cards = np.full((NUM_COLUMNS, COLUMN_SLOTS), -1, np.int32)
    down_masks = np.zeros((NUM_COLUMNS, COLUMN_SLOTS + 1), np.int64)
    for col in range(NUM_COLUMNS):
        down = root[COLUMN_DOWN + col] if root[COLUMN_LENGTH + col] > 0 else -1
        for depth in range(down + 1):
            column_cards[col, depth] = root[TABLEAU + COLUMN_SLOTS * col + depth]
            card_place[column_cards[col, depth]] = _PLACE * col + depth
        for depth in range(1, down + 1):
            down_masks[col, depth] = down_masks[col, depth - 1] | (np.int64(1) << column_cards[col, depth - 1])
        state[COLUMN_DOWN + col] = down
        _normalise(state, column_cards, col)
    return state, column_cards, down_masks, card_place


def realize(root: np.ndarray, rules_array: np.ndarray, class_moves) -> list[int]:
    """Env actions that play ``class_moves`` (a winning class line from ``root``'s class) from the
    real position ``root``: draws and recycle, the card move (onto whichever holder or empty column
    is uncovered), a move within the class first where the card to go home is covered, and the
    safe auto-play after each (docs/solver.md, "The class search", (2))."""
    line = np.asarray(class_moves, np.int32)
    size = 16 * len(line) + 64  # room for most lines; a longer one is played again with room for it
    while True:
        out = np.empty(size, np.int32)
        count = _realize(root, rules_array, line, out)
        if count <= size:
            return out[:count].tolist()
        size = count


@njit(cache=True)
def _realize(root, rules, line, out):
    """:func:`realize` into ``out``; returns how many actions (more than fit when ``out`` is short)."""
    state = root.copy()
    count = auto_play(state, rules, out, 0)
    for i in range(line.shape[0]):
        move = line[i]
        count = play_recipe(state, rules, move, out, count)
        kind, arg = (move >> _KIND_SHIFT) & _KIND_MASK, (move >> _ARG_SHIFT) & _ARG_MASK
        if kind == WASTE_HOME:
            action = WASTE_TO_FOUNDATION
        elif kind == WASTE_OUT:
            action = WASTE_TO_COLUMN + _column_taking(state, rules, core.waste_top(state), -1)
        elif kind == CARD_HOME:
            col, depth = _find(state, arg)
            if depth < state[COLUMN_LENGTH + col] - 1:  # covered: move what lies on it onto the other holder
                above = state[TABLEAU + COLUMN_SLOTS * col + depth + 1]
                onto = _column_taking(state, rules, above, col)
                count = play_action(state, rules, core.column_action(col, onto), out, count)
            action = COLUMN_TO_FOUNDATION + col
        elif kind == BASE_AWAY:
            base = state[TABLEAU + COLUMN_SLOTS * arg + state[COLUMN_DOWN + arg]]
            action = core.column_action(arg, _column_taking(state, rules, base, arg))
        else:
            card = NUM_RANKS * arg + state[FOUNDATION + arg] - 1
            action = FOUNDATION_TO_COLUMN + NUM_COLUMNS * arg + _column_taking(state, rules, card, -1)
        count = play_action(state, rules, action, out, count)
        count = auto_play(state, rules, out, count)
    return count


@njit(cache=True)
def _column_taking(state, rules, card, source):
    for col in range(NUM_COLUMNS):
        if col != source and core.fits_column(state, rules, card, col):
            return col
    raise AssertionError("no column takes the card")  # the class move was checked legal


@njit(cache=True)
def _find(state, card):
    col, depth = tableau_place(state, card)
    if col < 0:
        raise AssertionError("the card is not in the tableau")
    return col, depth
