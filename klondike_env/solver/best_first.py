"""The best-first search (weighted A*) from the root, with positions stored packed and
rebuilt from their parents (docs/solver.md, "Best-first search")."""

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
    NUM_SUITS,
    RECYCLES,
    STATE_SIZE,
    TABLEAU,
    TALON,
    TALON_LENGTH,
    WASTE_LENGTH,
)

from klondike_env.solver.control import EXHAUSTED, FULL, RUNNING, WON, ControlledSearch
from klondike_env.solver.keys import (
    KEY_WORDS,
    POSITION_BOUNDARY_SHIFT,
    POSITION_BOUNDARY_WORD,
    key_modes,
    key_slot,
    search_key,
)
from klondike_env.solver.memory import search_array
from klondike_env.solver.moves import MAX_MOVES, apply_move, auto_play, generate_moves, solution_actions
from klondike_env.solver.stuck import stuck_for_good
from klondike_env.solver.table import ENTRY_BYTES, MAX_FILL, prefetch_entry, table_capacity, table_for, table_insert

_BEST_EXPANDED, _BEST_STORED, _BEST_HEAP, _BEST_RESULT, _BEST_WON, _BEST_WON_MOVE = 0, 1, 2, 3, 4, 5


@njit(cache=True)
def _distance_estimate(state):
    """Cards not yet home, plus twice the tableau cards buried under a higher card of their
    own suit (that card must move out of the way before this one can go home)."""
    home = 0
    for suit in range(NUM_SUITS):
        home += state[FOUNDATION + suit]
    blocked = 0
    for col in range(NUM_COLUMNS):
        base = TABLEAU + COLUMN_SLOTS * col
        # one pass from the top of the column down, keeping per suit (a byte each, card + 1, so
        # no allocation in this hot path) the highest card seen above the current one
        highest_above = 0
        for index in range(state[COLUMN_LENGTH + col] - 1, -1, -1):
            card = np.int64(state[base + index])
            shift = 8 * (card // NUM_RANKS)
            if ((highest_above >> shift) & 0xFF) > card + 1:
                blocked += 1
            else:
                highest_above = (highest_above & ~(np.int64(0xFF) << shift)) | ((card + 1) << shift)
    return core.NUM_CARDS - home + 2 * blocked


@njit(cache=True)
def _heap_push(heap_key, heap_parent, heap_via, size, key, parent, via):
    """Add an entry to the max-heap on ``heap_key``; returns the new size."""
    i = size
    while i > 0:
        up = (i - 1) >> 1
        if heap_key[up] >= key:
            break
        heap_key[i], heap_parent[i], heap_via[i] = heap_key[up], heap_parent[up], heap_via[up]
        i = up
    heap_key[i], heap_parent[i], heap_via[i] = key, parent, via
    return size + 1


@njit(cache=True)
def _heap_pop(heap_key, heap_parent, heap_via, size):
    """Remove the entry with the largest key; returns its parent, its move and the new size."""
    parent, via = heap_parent[0], heap_via[0]
    size -= 1
    key, last_parent, last_via = heap_key[size], heap_parent[size], heap_via[size]
    i = 0
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        if child + 1 < size and heap_key[child + 1] > heap_key[child]:
            child += 1
        if heap_key[child] <= key:
            break
        heap_key[i], heap_parent[i], heap_via[i] = heap_key[child], heap_parent[child], heap_via[child]
        i = child
    heap_key[i], heap_parent[i], heap_via[i] = key, last_parent, last_via
    return parent, via, size


# A stored (expanded) position, in int8: the column lengths, face-down counts, talon length,
# waste boundary, foundation heights and recycle count, then every tableau card column by
# column and the talon cards -- at most 52 cards between them. The recycle count could pass
# 127 only with unlimited passes, where no rule reads its value; the move counter is not kept.
_PACKED_CARDS = 2 * NUM_COLUMNS + 2 + NUM_SUITS + 1
PACKED_SIZE = _PACKED_CARDS + core.NUM_CARDS


@njit(cache=True)
def _pack_position(state, store, slot):
    row = store[slot]
    for col in range(NUM_COLUMNS):
        row[col] = state[COLUMN_LENGTH + col]
        row[NUM_COLUMNS + col] = state[COLUMN_DOWN + col]
    row[2 * NUM_COLUMNS] = state[TALON_LENGTH]
    row[2 * NUM_COLUMNS + 1] = state[WASTE_LENGTH]
    for suit in range(NUM_SUITS):
        row[2 * NUM_COLUMNS + 2 + suit] = state[FOUNDATION + suit]
    row[_PACKED_CARDS - 1] = state[RECYCLES]
    at = _PACKED_CARDS
    for col in range(NUM_COLUMNS):
        base = TABLEAU + COLUMN_SLOTS * col
        for i in range(state[COLUMN_LENGTH + col]):
            row[at] = state[base + i]
            at += 1
    for i in range(state[TALON_LENGTH]):
        row[at] = state[TALON + i]
        at += 1


@njit(cache=True)
def _unpack_position(store, slot, state):
    """The inverse of ``_pack_position`` (empty slots -1 and the move counter 0, as in a deal)."""
    row = store[slot]
    core.clear_state(state)
    for col in range(NUM_COLUMNS):
        state[COLUMN_LENGTH + col] = row[col]
        state[COLUMN_DOWN + col] = row[NUM_COLUMNS + col]
    state[TALON_LENGTH] = row[2 * NUM_COLUMNS]
    state[WASTE_LENGTH] = row[2 * NUM_COLUMNS + 1]
    for suit in range(NUM_SUITS):
        state[FOUNDATION + suit] = row[2 * NUM_COLUMNS + 2 + suit]
    state[RECYCLES] = row[_PACKED_CARDS - 1]
    at = _PACKED_CARDS
    for col in range(NUM_COLUMNS):
        base = TABLEAU + COLUMN_SLOTS * col
        for i in range(state[COLUMN_LENGTH + col]):
            state[base + i] = row[at]
            at += 1
    for i in range(state[TALON_LENGTH]):
        state[TALON + i] = row[at]
        at += 1


@njit(cache=True)
def _best_first_start(root, rules, talon_index, key_flags, table, epoch, store, parent, via, depth,
                      heap_key, heap_parent, heap_via, ctrl):
    """Store the root (after auto-play) as expanded slot 0's position and queue its expansion."""
    state = root.copy()
    auto_play(state, rules, np.empty(0, np.int32), 0)
    ctrl[:] = 0
    if core.is_won(state):
        ctrl[_BEST_RESULT] = WON
        ctrl[_BEST_WON] = -1
        return
    limited, exact_twins = key_modes(key_flags)
    key = np.empty(KEY_WORDS, np.int64)
    search_key(state, rules, talon_index, limited, exact_twins, key, np.empty(NUM_COLUMNS, np.int64),
               np.empty(NUM_COLUMNS, np.int64))
    table_insert(table, epoch, key, POSITION_BOUNDARY_WORD, POSITION_BOUNDARY_SHIFT)
    _pack_position(state, store, 0)
    parent[0] = -1
    via[0] = 0
    depth[0] = 0
    ctrl[_BEST_STORED] = 1
    ctrl[_BEST_HEAP] = _heap_push(heap_key, heap_parent, heap_via, 0, 0, -1, 0)  # parent -1: the root itself
    if stuck_for_good(state, rules):
        ctrl[_BEST_HEAP] = 0
        ctrl[_BEST_RESULT] = EXHAUSTED


@njit(cache=True, nogil=True)
def _best_first(rules, talon_index, key_flags, table, epoch, store, parent, via, depth, heap_key, heap_parent,
                heap_via, ctrl, node_stop, entry_stop):
    """Expand the most promising queued position until a win, exhaustion, a full store, heap or
    table, or ``node_stop`` expansions (resumable: everything lives in the arrays and ``ctrl``).

    The queue holds a generated position as its parent's slot and the move from it; only the
    positions expanded are stored (packed), each rebuilt from its parent when its turn comes.
    """
    limited, exact_twins = key_modes(key_flags)
    child_keys = np.empty((MAX_MOVES, KEY_WORDS), np.int64)
    priorities = np.empty(MAX_MOVES, np.int64)
    slot_mask = np.uint64(table.shape[0] - 1)
    values = np.empty(NUM_COLUMNS, np.int64)
    free = np.empty(NUM_COLUMNS, np.int64)
    reached = np.empty(core.TALON_SLOTS + 1, np.uint8)
    moves = np.empty(MAX_MOVES, np.int32)
    scores = np.empty(MAX_MOVES, np.int32)
    no_record = np.empty(0, np.int32)
    state = np.empty(STATE_SIZE, np.int32)
    child = np.empty(STATE_SIZE, np.int32)
    expanded = ctrl[_BEST_EXPANDED]
    generated = ctrl[_BEST_STORED]
    size = ctrl[_BEST_HEAP]
    while ctrl[_BEST_RESULT] == RUNNING:
        if size == 0:
            ctrl[_BEST_RESULT] = EXHAUSTED
            break
        if expanded >= node_stop:
            break
        if (expanded + 1 > store.shape[0] or size + MAX_MOVES > heap_key.shape[0]
                or generated + MAX_MOVES > entry_stop):
            ctrl[_BEST_RESULT] = FULL
            break
        from_slot, move, size = _heap_pop(heap_key, heap_parent, heap_via, size)
        if from_slot < 0:
            slot = 0  # the root, stored by _best_first_start
            _unpack_position(store, 0, state)
        else:
            slot = expanded
            _unpack_position(store, from_slot, state)
            apply_move(state, rules, move, no_record, 0)
            auto_play(state, rules, no_record, 0)
            _pack_position(state, store, slot)
            parent[slot] = from_slot
            via[slot] = move
            depth[slot] = depth[from_slot] + 1
        expanded += 1
        count = generate_moves(state, rules, moves, scores, reached)
        for index in range(count):  # build every successor and prefetch its table entry (as _search)
            child[:] = state
            apply_move(child, rules, moves[index], no_record, 0)
            auto_play(child, rules, no_record, 0)
            if core.is_won(child):
                ctrl[_BEST_RESULT] = WON
                ctrl[_BEST_WON] = slot
                ctrl[_BEST_WON_MOVE] = moves[index]
                break
            search_key(child, rules, talon_index, limited, exact_twins, child_keys[index], values, free)
            prefetch_entry(table, np.int64(key_slot(child_keys[index], POSITION_BOUNDARY_WORD, POSITION_BOUNDARY_SHIFT,
                                                    slot_mask)))
            # weighted A*: the estimate of what is left plus half the search moves from the
            # root, so a position reached the long way waits; the move generator's order
            # breaks ties, then the newer position first (weights measured in the speed log,
            # docs/experiments/2026-11-29-speed-log.md)
            priorities[index] = -32 * (2 * _distance_estimate(child) + depth[slot] + 1) + max(scores[index], 0) // 16
        if ctrl[_BEST_RESULT] == WON:
            break
        for index in range(count):
            inserted = table_insert(table, epoch, child_keys[index], POSITION_BOUNDARY_WORD, POSITION_BOUNDARY_SHIFT)
            if inserted < 0:
                ctrl[_BEST_RESULT] = FULL
                break
            if inserted == 0:
                continue
            generated += 1
            size = _heap_push(heap_key, heap_parent, heap_via, size, (np.int64(priorities[index]) << 32) | generated,
                              slot, moves[index])
    ctrl[_BEST_EXPANDED] = expanded
    ctrl[_BEST_STORED] = generated
    ctrl[_BEST_HEAP] = size


# One best-first search per solve, in BEST_MEMORY_SHARE of the memory limit: half of that for
# its table, the rest for the queue and the expanded positions, in the proportion one expansion
# needs of each (BEST_QUEUE_BYTES and BEST_SLOT_BYTES; deal 104 expanded 1.2M positions and
# queued 1.5M to win, docs/experiments/2026-11-29-speed-log.md).
BEST_MEMORY_SHARE = 0.5
BEST_QUEUE_BYTES = 8 + 4 + 4  # a queued position: heap key, parent's slot, move
BEST_SLOT_BYTES = PACKED_SIZE + 4 + 4 + 4  # an expanded position: packed, parent's slot, move, depth
BEST_QUEUE_PER_SLOT = 1.4  # queue entries allotted per expanded position


def best_capacity(memory_limit_mb: float) -> int:
    """The best-first search's table: half its share of the memory limit."""
    return table_capacity(memory_limit_mb * BEST_MEMORY_SHARE / 2)


class BestFirst(ControlledSearch):
    """The best-first search from the root, resumable in chunks of expansions."""

    RESULT_SLOT, NODES_SLOT, ENTRIES_SLOT = _BEST_RESULT, _BEST_EXPANDED, _BEST_STORED

    def __init__(self, root, rules_array, talon_index, key_flags: int, memory_limit_mb: float):
        self.root, self.rules_array, self.talon_index, self.key_flags = root, rules_array, talon_index, key_flags
        memory_bytes = memory_limit_mb * BEST_MEMORY_SHARE * 2**20
        capacity = best_capacity(memory_limit_mb)
        self.table = table_for(capacity, "best")
        self.entry_stop = int(capacity * MAX_FILL)
        self.epoch = np.int64(self.table.next_epoch())
        rest = max(0.0, memory_bytes - capacity * ENTRY_BYTES)
        slots = max(2, int(rest / (BEST_SLOT_BYTES + BEST_QUEUE_PER_SLOT * BEST_QUEUE_BYTES)))
        queue = max(2 * MAX_MOVES, int(slots * BEST_QUEUE_PER_SLOT))
        self.store = search_array((slots, PACKED_SIZE), np.int8)
        self.parent = search_array(slots, np.int32)
        self.via = search_array(slots, np.int32)
        self.depth = search_array(slots, np.int32)  # search moves from the root
        self.heap_key = search_array(queue, np.int64)
        self.heap_parent = search_array(queue, np.int32)
        self.heap_via = search_array(queue, np.int32)
        self.ctrl = np.zeros(6, np.int64)
        _best_first_start(root, rules_array, talon_index, key_flags, self.table.keys, self.epoch, self.store,
                          self.parent, self.via, self.depth, self.heap_key, self.heap_parent, self.heap_via,
                          self.ctrl)

    @property
    def memory_mb(self) -> float:
        """The table's used entries, the queue's peak (at most every entry) and the stored positions."""
        used = self.entries * (ENTRY_BYTES + BEST_QUEUE_BYTES) + self.nodes * BEST_SLOT_BYTES
        return used / 2**20

    cut = False  # no depth cap: an exhausted best-first search is a proof

    def run(self, nodes: int) -> None:
        _best_first(self.rules_array, self.talon_index, self.key_flags, self.table.keys, self.epoch, self.store,
                    self.parent, self.via, self.depth, self.heap_key, self.heap_parent, self.heap_via, self.ctrl,
                    self.ctrl[_BEST_EXPANDED] + nodes, self.entry_stop)

    def solution(self) -> list[int]:
        path = []
        slot = int(self.ctrl[_BEST_WON])
        if slot >= 0:
            path.append(int(self.ctrl[_BEST_WON_MOVE]))
        while slot > 0:
            path.append(int(self.via[slot]))
            slot = int(self.parent[slot])
        moves = np.array(path[::-1] or [0], np.int32).reshape(-1, 1)
        out = np.empty(40 * len(path) + 64, np.int32)
        count = solution_actions(self.root, self.rules_array, moves, np.ones(len(moves), np.int32), len(path), out)
        return [int(a) for a in out[:count]]
