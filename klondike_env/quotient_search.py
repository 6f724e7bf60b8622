"""The solver's complete search over positions up to the arrangement of face-up cards.

:func:`klondike_env.solve`'s depth-first search (``klondike_env/solver.py``) stores one
position per key, and its key still tells apart positions that differ only in *where* the
face-up tableau cards lie: which of two red nines holds the black eight, how the runs are cut
between columns. Lost deals need every such arrangement searched (session 16 measured 5.7-11.3
arrangements per class in lost proofs). This module searches *classes* instead, with moves
defined on classes, and proves that a class path exists exactly when a winning line does.

The class of a position
-----------------------
For each column ``k``, ``down[k]``: how many of the column's own face-down cards are left, or
``-1`` when the column's own cards have all gone (also when only a king is left at its bottom:
a king on an empty column is a free king, and the columns without cards of their own are
interchangeable); then the foundation heights and the talon (its cards, the waste boundary and,
with limited passes, the recycles). The face-down cards of column ``k`` and its *base* (the card
just above them, at depth ``down[k]``, face up) never move while ``down[k]`` stays: a card can
only be put on a face-up card or into an empty column, and moving the base away turns the next
card up. So the class fixes the set ``F`` of face-up tableau cards (every card not home, not in
the talon, not face down) and which of them are bases. Every other card of ``F`` (``N``, the
*sitters*) lies on a *holder*: a card of ``F`` one rank up of the other colour -- or it is a
king at the bottom of a column without cards of its own.

Group the cards by rank and colour: the two cards of rank ``r`` and colour ``c`` (twins) can lie
only on the two cards of rank ``r + 1`` and the other colour. An arrangement picks, in each group
independently, which holder each sitter of the group lies on (distinct holders, all in ``F``), and
which empty column each free king is in. Hence, in *every* arrangement of a class:

* the number of uncovered holders of a group is ``spare = |F ∩ holders| - |N ∩ sitters|``, the
  same for all arrangements, and the number of empty columns is ``|{k: down[k] = -1}| - |N ∩
  kings|``;
* a given card ``x`` of ``F`` can be uncovered (nothing on it) in some arrangement exactly when
  the group of the cards that may lie on it has ``spare >= 1``; if it is covered in the current
  arrangement, by ``y``, the other holder of that group is then uncovered, and one legal move
  (the run from ``y`` up, onto that holder) uncovers ``x`` without changing the class.

Class moves
-----------
Besides draws and recycles (which move only the waste boundary), a move of the game changes
the class exactly when a card leaves the talon, a foundation, or ``F`` (to a foundation), or a
base leaves its place; every other move -- a run headed by a sitter onto another holder, a free
king's run into another empty column -- re-arranges ``F`` within the class. So the class moves
are (each with the draws and recycle that bring a talon card up, as the position search's talon
macro moves: draws commute with every other move, so a line can always draw just before it
plays from the waste, and nothing is lost):

* the waste top to its foundation; the waste top into the tableau (a king: some empty column;
  any other card: its group has ``spare >= 1``);
* a card ``x`` of ``F`` to its foundation when it fits and can be uncovered (its base column's
  next card turns up when ``x`` is a base);
* a base away (its column's next card turns up, or its column is left without cards of its
  own): a king onto an empty column, any other card onto a holder (``spare >= 1`` of its group);
* a foundation card back to the tableau (when the rules allow it), on the same condition as a
  waste card; one that the safe auto-play would send straight back is skipped, as in the
  position search;

and the position search's safe auto-play, applied to every card of ``F`` (safe means both
other-colour cards one rank down are home, so nothing can lie on it: it is uncovered in every
arrangement, and the position search plays the same cards).

**Why searching classes decides the position.** (1) Every winning line projects onto a line of
class moves: reorder its draws to come just before the waste moves that need them, then drop
the moves within a class; each other move is one of the class moves above, legal from the class
because it was legal from the arrangement the line was in. The auto-play after each class move
loses nothing, by the position search's proof, which also shows that the position after it wins
by a line no longer; so by induction on the length of the shortest winning line, the won class
is reachable from the class of any winnable position. (2) Conversely, every class move can be
played from *every* arrangement of its class: the conditions above are the same for all
arrangements (uncovered holders and empty columns are counted, not placed), save a card to its
foundation that is covered, which one move within the class uncovers first. By induction along
a class line that wins, a real line wins from the root. So the root is winnable exactly when
the won class is reachable in the class graph, and a depth-first search of the class graph with
a table of the classes seen (complete for reachability in any graph) decides it; a probe (the
same search in a shuffled order) too. (No twin-swap argument is needed: the search never stands
for one arrangement by another, it moves between classes only by moves every arrangement has.)
:func:`realize` turns a class line into env actions, playing the uncovering move where needed
and any draws, and the result is replayed like every other solution.

Only the king-only empty-column rule is covered: with ``empty_column="any"`` any card can start a
column, which the counts above do not describe, so ``solve`` uses the position search there.
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
from klondike_env.solver import (
    _AFTER_SHIFT,
    _BEFORE_SHIFT,
    _COUNT_MASK,
    _RECYCLE_SHIFT,
    _add_move,
    _auto_play,
    play_recipe,
    _safe_to_foundation,
    _talon_step,
    _talon_walk_start,
)

# A class move: the talon recipe of solver.py (draws, recycle; bits 7-17), the kind, one argument.
_KIND_SHIFT = 20
_ARG_SHIFT = 23
WASTE_HOME, WASTE_OUT, CARD_HOME, BASE_AWAY, FOUNDATION_OUT = 0, 1, 2, 3, 4
_KIND_MASK = 7
_ARG_MASK = 63
_PLACE = 32  # card_place[card] = column * _PLACE + depth for a column's own cards, else -1
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


@njit(cache=True)
def _class_sets(state, column_cards, down_masks):
    """``(F, N, empty)``: the face-up tableau cards, those that are not bases, and the empty
    columns, as the class determines them (module docstring)."""
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
    if place >= 0 and place % _PLACE < state[COLUMN_DOWN + place // _PLACE]:
        return False
    return (_talon_cards(state) >> card) & 1 == 0


@njit(cache=True)
def _card_home(state, column_cards, card_place, card):
    """Send ``card`` of ``F`` to its foundation; a base's column turns its next card up."""
    state[FOUNDATION + card // NUM_RANKS] += 1
    place = card_place[card]
    if place >= 0 and state[COLUMN_DOWN + place // _PLACE] == place % _PLACE:
        col = place // _PLACE
        state[COLUMN_DOWN + col] -= 1
        _normalise(state, column_cards, col)


@njit(cache=True)
def _class_auto_play(state, column_cards, card_place):
    """The safe auto-play (solver.py's rule) on every card of ``F``."""
    moved = True
    while moved:
        moved = False
        for suit in range(NUM_SUITS):
            height = state[FOUNDATION + suit]
            if height == NUM_RANKS:
                continue
            card = NUM_RANKS * suit + height
            if _safe_to_foundation(state, card) and _in_face_up(state, card_place, card):
                _card_home(state, column_cards, card_place, card)
                moved = True


@njit(cache=True, inline="always")
def copy_class(parent, child):
    """``child`` = ``parent``, copying only what a class state uses (the talon mask and the
    slots from ``COLUMN_DOWN`` on)."""
    child[_TALON_MASK] = parent[_TALON_MASK]
    child[_TALON_MASK + 1] = parent[_TALON_MASK + 1]
    child[COLUMN_DOWN:] = parent[COLUMN_DOWN:]


@njit(cache=True)
def apply_class_move(state, rules, column_cards, card_place, move):
    # the recipe's draws and recycle, in one step (realize plays them one by one)
    draw_count = rules[RULE_DRAW_COUNT]
    if (move >> _RECYCLE_SHIFT) & 1:
        state[RECYCLES] += 1
        boundary = ((move >> _AFTER_SHIFT) & _COUNT_MASK) * draw_count
    else:
        boundary = state[WASTE_LENGTH] + ((move >> _BEFORE_SHIFT) & _COUNT_MASK) * draw_count
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


@njit(cache=True)
def generate_class_moves(state, rules, column_cards, down_masks, moves, scores, reached):
    """All class moves at ``state``, best first (the position search's order). Returns how many."""
    face_up, sitters, empty = _class_sets(state, column_cards, down_masks)
    count = 0
    for suit in range(NUM_SUITS):  # tableau cards home (the safe ones were auto-played)
        height = state[FOUNDATION + suit]
        if height < NUM_RANKS:
            card = NUM_RANKS * suit + height
            if (face_up >> card) & 1 and _can_uncover(card, face_up, sitters):
                count = _add_move(moves, scores, count, (CARD_HOME << _KIND_SHIFT) | (card << _ARG_SHIFT), 300)
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
            count = _add_move(moves, scores, count, (BASE_AWAY << _KIND_SHIFT) | (col << _ARG_SHIFT), score)
    if state[TALON_LENGTH] > 0:  # talon cards, each by its shortest way (as solver._generate_moves)
        draw_count, forward, total = _talon_walk_start(state, rules, reached)
        for step in range(total):
            boundary, recipe, cost = _talon_step(state, draw_count, forward, step, reached)
            if boundary == 0:
                continue
            card = state[TALON + boundary - 1]
            if core.fits_foundation(state, card):
                count = _add_move(moves, scores, count, recipe | (WASTE_HOME << _KIND_SHIFT), 300 - cost)
            if _room_for(card, face_up, sitters, empty):
                count = _add_move(moves, scores, count, recipe | (WASTE_OUT << _KIND_SHIFT), 600 - cost)
    if rules[RULE_FOUNDATION_TO_TABLEAU] == 1:
        for suit in range(NUM_SUITS):
            height = state[FOUNDATION + suit]
            if height == 0:
                continue
            card = NUM_RANKS * suit + height - 1
            if _safe_to_foundation(state, card) or not _room_for(card, face_up, sitters, empty):
                continue
            count = _add_move(moves, scores, count, (FOUNDATION_OUT << _KIND_SHIFT) | (suit << _ARG_SHIFT), 100)
    return count


@njit(cache=True)
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


def root_class(root: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A position's class state (a copy whose ``COLUMN_DOWN`` entries hold ``down``), the
    columns' own cards (``column_cards[k, d]``: depth ``d`` of column ``k``, for ``d <= down[k]``),
    ``down_masks[k, d]`` (the mask of column ``k``'s cards below depth ``d``) and ``card_place``
    (each own card's column and depth, ``-1`` for the other cards)."""
    state = root.copy()
    state[TABLEAU:COLUMN_LENGTH] = -1  # the class reads no tableau slot but the talon mask's two
    _set_talon_cards(state, sum(1 << int(card) for card in root[TALON : TALON + root[TALON_LENGTH]]))
    card_place = np.full(NUM_CARDS, -1, np.int32)
    column_cards = np.full((NUM_COLUMNS, COLUMN_SLOTS), -1, np.int32)
    down_masks = np.zeros((NUM_COLUMNS, COLUMN_SLOTS + 1), np.int64)
    for col in range(NUM_COLUMNS):
        length = int(root[COLUMN_LENGTH + col])
        down = int(root[COLUMN_DOWN + col]) if length > 0 else -1
        for depth in range(down + 1):
            column_cards[col, depth] = root[TABLEAU + COLUMN_SLOTS * col + depth]
            card_place[column_cards[col, depth]] = _PLACE * col + depth
        for depth in range(1, down + 1):
            down_masks[col, depth] = down_masks[col, depth - 1] | (1 << int(column_cards[col, depth - 1]))
        state[COLUMN_DOWN + col] = down
        _normalise(state, column_cards, col)
    return state, column_cards, down_masks, card_place


def realize(root: np.ndarray, rules_array: np.ndarray, class_moves) -> list[int]:
    """Env actions that play ``class_moves`` (a winning class line from ``root``'s class) from the
    real position ``root``: draws and recycle, the card move (onto whichever holder or empty column
    is uncovered), a move within the class first where the card to go home is covered, and the
    safe auto-play after each (module docstring, (2))."""
    state = root.copy()
    out = np.empty(64, np.int32)
    actions: list[int] = []

    def play(action: int) -> None:
        core.apply_action(state, rules_array, action)
        actions.append(action)

    def auto_play() -> None:
        count = _auto_play(state, rules_array, out, 0)
        actions.extend(int(a) for a in out[:count])

    def column_taking(card: int, source: int = -1) -> int:
        for col in range(NUM_COLUMNS):
            if col != source and core.fits_column(state, rules_array, card, col):
                return col
        raise AssertionError(f"no column takes card {card}")  # the class move was checked legal

    auto_play()
    for move in class_moves:
        move = int(move)
        count = play_recipe(state, rules_array, move, out, 0)
        actions.extend(int(a) for a in out[:count])
        kind, arg = (move >> _KIND_SHIFT) & _KIND_MASK, (move >> _ARG_SHIFT) & _ARG_MASK
        if kind == WASTE_HOME:
            play(WASTE_TO_FOUNDATION)
        elif kind == WASTE_OUT:
            play(WASTE_TO_COLUMN + column_taking(int(core.waste_top(state))))
        elif kind == CARD_HOME:
            col, depth = _find(state, arg)
            length = int(state[COLUMN_LENGTH + col])
            if depth < length - 1:  # covered: move what lies on it onto the other holder
                above = int(state[TABLEAU + COLUMN_SLOTS * col + depth + 1])
                play(core.column_action(col, column_taking(above, col)))
            play(COLUMN_TO_FOUNDATION + col)
        elif kind == BASE_AWAY:
            base = int(state[TABLEAU + COLUMN_SLOTS * arg + state[COLUMN_DOWN + arg]])
            play(core.column_action(arg, column_taking(base, arg)))
        else:
            card = NUM_RANKS * arg + int(state[FOUNDATION + arg]) - 1
            play(FOUNDATION_TO_COLUMN + NUM_COLUMNS * arg + column_taking(card))
        auto_play()
    return actions


def _find(state: np.ndarray, card: int) -> tuple[int, int]:
    for col in range(NUM_COLUMNS):
        for depth in range(int(state[COLUMN_LENGTH + col])):
            if state[TABLEAU + COLUMN_SLOTS * col + depth] == card:
                return col, depth
    raise AssertionError(f"card {card} is not in the tableau")
