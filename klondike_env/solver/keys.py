"""Position keys: the exact canonical key the transposition tables store (docs/solver.md,
"Transposition table"), and the hashes that place a key in a table."""

from __future__ import annotations

import numpy as np
from numba import njit

from klondike_env import core
from klondike_env.core import (
    COLUMN_DOWN,
    COLUMN_LENGTH,
    COLUMN_SLOTS,
    FOUNDATION,
    NUM_COLUMNS,
    NUM_RANKS,
    RECYCLES,
    RULE_DRAW_COUNT,
    TABLEAU,
    TALON,
    TALON_LENGTH,
    WASTE_LENGTH,
)

KEY_WORDS = 3
# the searches' key flags: limited passes; record which twin lies where (position_key); search
# classes of positions (klondike_env.solver.classes) instead of positions
KEY_LIMITED, KEY_EXACT_TWINS, KEY_CLASSES = 1, 2, 4


@njit(cache=True)
def position_key(state, rules, talon_index, limited, key, values, free):
    """The exact canonical key (docs/solver.md, "Transposition table") in ``key[0:3]`` (``values``, ``free``: scratch).

    The searches call it through :func:`search_key`, which adds the twins' bits when asked.
    """
    free_count = 0
    for col in range(NUM_COLUMNS):
        length = state[COLUMN_LENGTH + col]
        down = state[COLUMN_DOWN + col]
        value = 0
        if length > 0:
            head = state[TABLEAU + COLUMN_SLOTS * col + down]
            value = (down << 10) | ((head + 1) << 4) | (length - down)
        values[col] = value
        if down == 0:
            # insertion sort of the interchangeable columns
            i = free_count
            while i > 0 and free[i - 1] > value:
                free[i] = free[i - 1]
                i -= 1
            free[i] = value
            free_count += 1
    slot = 0
    for col in range(NUM_COLUMNS):
        if state[COLUMN_DOWN + col] == 0:
            values[col] = free[slot]
            slot += 1
    # word 0: columns 0-3 (15 bits each); word 1: columns 4-6, the waste boundary, three
    # foundations; word 2: the talon cards left, the fourth foundation, the recycles
    word0 = values[0] | (values[1] << 15) | (values[2] << 30) | (values[3] << 45)
    boundary = state[WASTE_LENGTH]
    if not limited and (boundary % rules[RULE_DRAW_COUNT] == 0 or boundary == state[TALON_LENGTH]):
        boundary = 0  # draws and recycles alone lead from each of these boundaries to all the others
    word1 = values[4] | (values[5] << 15) | (values[6] << 30) | (np.int64(boundary) << 45)
    word1 |= (np.int64(state[FOUNDATION]) << 50) | (np.int64(state[FOUNDATION + 1]) << 54)
    word1 |= np.int64(state[FOUNDATION + 2]) << 58
    word2 = np.int64(state[FOUNDATION + 3]) << 24
    for i in range(state[TALON_LENGTH]):
        word2 |= np.int64(1) << talon_index[state[TALON + i]]
    if limited:
        word2 |= np.int64(state[RECYCLES]) << 28  # below 64 (solve checks max_passes)
    key[0] = word0
    key[1] = word1
    key[2] = word2


@njit(cache=True, inline="always")
def key_modes(key_flags):
    """``key_flags`` as (limited passes, exact twins); the searches read it once, not per key.
    (``KEY_CLASSES`` is read by ``DepthFirst``, which hands the kernels a class layout.)"""
    return key_flags & KEY_LIMITED != 0, key_flags & KEY_EXACT_TWINS != 0


@njit(cache=True, inline="always")
def search_key(state, rules, talon_index, limited, exact_twins, key, values, free):
    """The key a search stores: :func:`position_key`, plus :func:`_twin_bits` in ``key[2]`` with
    ``solve(..., exact_twins=True)``. (Kept apart so that ``position_key`` stays the small plain
    key; whether that matters for speed is below this VM's run-to-run noise, about 15%.)"""
    position_key(state, rules, talon_index, limited, key, values, free)
    if exact_twins:
        key[2] |= _twin_bits(state) << 34


@njit(cache=True)
def _twin_bits(state):
    """For the exact-twins key: for each pair of twins that both lie in face-up runs, neither a
    head (the pairs the plain key merges), one bit, set when the lower card id lies first in the
    key's column order (columns with face-down cards by index, then the others by head card)."""
    place = np.full(core.NUM_CARDS, -1, np.int64)
    for col in range(NUM_COLUMNS):
        down = state[COLUMN_DOWN + col]
        length = state[COLUMN_LENGTH + col]
        if length - down < 2:
            continue
        order = col
        if down == 0:
            head = state[TABLEAU + COLUMN_SLOTS * col]
            order = NUM_COLUMNS
            for other in range(NUM_COLUMNS):
                if (state[COLUMN_DOWN + other] == 0 and state[COLUMN_LENGTH + other] > 0
                        and state[TABLEAU + COLUMN_SLOTS * other] < head):
                    order += 1
        for depth in range(down + 1, length):
            place[state[TABLEAU + COLUMN_SLOTS * col + depth]] = order * COLUMN_SLOTS + depth
    bits = np.int64(0)
    for rank in range(NUM_RANKS):
        for colour in range(2):  # the suit pairs clubs/spades (0, 3) and diamonds/hearts (1, 2)
            low = place[NUM_RANKS * colour + rank]
            high = place[NUM_RANKS * (3 - colour) + rank]
            if low >= 0 and high >= 0 and low < high:
                bits |= np.int64(1) << (2 * rank + colour)
    return bits


@njit(cache=True, inline="always")
def _mix_words(word0, word1, word2):
    h = np.uint64(word0) * np.uint64(0x9E3779B97F4A7C15)
    h ^= np.uint64(word1) + np.uint64(0xBF58476D1CE4E5B9) + (h << np.uint64(6)) + (h >> np.uint64(2))
    h ^= np.uint64(word2) + np.uint64(0x94D049BB133111EB) + (h << np.uint64(6)) + (h >> np.uint64(2))
    h ^= h >> np.uint64(31)
    h *= np.uint64(0xD6E8FEB86659FD93)
    h ^= h >> np.uint64(32)
    return h


@njit(cache=True, inline="always")
def mix_key(key):
    return _mix_words(key[0], key[1], key[2])


# where position_key keeps the waste boundary (5 bits of word 1); class keys keep it elsewhere
# (klondike_env.solver.classes.BOUNDARY_WORD and BOUNDARY_SHIFT)
POSITION_BOUNDARY_WORD, POSITION_BOUNDARY_SHIFT = 1, 45


@njit(cache=True, inline="always")
def key_slot(key, word, shift, mask):
    """The table slot of ``key`` (``mask``: the table's size - 1): the hash of the key without its
    waste boundary (5 bits at ``shift`` of ``key[word]``), plus an offset for the boundary. Keys
    that differ only in the boundary (a position and the later boundaries it marks as seen) so lie
    within 27 neighbouring slots, a few cache lines, instead of a cache miss each; boundaries three
    apart (one draw of three) are next to each other."""
    return (boundary_base(key, word, shift) + boundary_offset((key[word] >> shift) & 31)) & mask


@njit(cache=True, inline="always")
def boundary_offset(boundary):
    """What :func:`key_slot` adds to :func:`boundary_base` for a waste boundary (0 for the grid)."""
    return np.uint64(boundary % 3 * 9 + boundary // 3)


@njit(cache=True, inline="always")
def boundary_base(key, word, shift):
    """The hash of ``key`` without its waste boundary: :func:`key_slot` of the key with boundary 0."""
    cleared = ~(np.int64(31) << shift)
    word0, word1, word2 = key[0], key[1], key[2]
    if word == 0:
        word0 &= cleared
    elif word == 1:
        word1 &= cleared
    else:
        word2 &= cleared
    return _mix_words(word0, word1, word2)
