"""The depth-first search, complete or a probe (a restart in a shuffled move order), over
positions or over classes of positions (docs/solver.md, "Depth-first search").

The compiled search runs in chunks of nodes and keeps everything it needs in the arrays of a
:class:`DepthFirst`, so the Python side can interleave it with the other searches.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from klondike_env import core
from klondike_env.core import (
    NUM_CARDS,
    NUM_COLUMNS,
    RULE_DRAW_COUNT,
    STATE_SIZE,
    TALON_LENGTH,
    WASTE_LENGTH,
)

from klondike_env.solver.classes import (
    BOUNDARY_SHIFT,
    BOUNDARY_WORD,
    apply_class_move,
    class_key,
    copy_class,
    generate_class_moves,
    realize,
    root_class,
)
from klondike_env.solver.control import EXHAUSTED, FULL, NO_REFCOUNT, WON, ControlledSearch
from klondike_env.solver.keys import (
    KEY_CLASSES,
    KEY_WORDS,
    POSITION_BOUNDARY_SHIFT,
    POSITION_BOUNDARY_WORD,
    boundary_base,
    boundary_offset,
    key_modes,
    mix_key,
    search_key,
)
from klondike_env.solver.moves import (
    BEFORE_SHIFT,
    COUNT_MASK,
    MAX_MOVES,
    RECYCLE_SHIFT,
    add_move,
    apply_move,
    auto_play,
    generate_moves,
    solution_actions,
)
from klondike_env.solver.stuck import stuck_for_good
from klondike_env.solver.table import MAX_FILL, Table, claim_entry, insert_entry, prefetch_entry

MAX_DEPTH = 2000  # search moves on one line; deeper lines are cut (and the answer is UNKNOWN)

# the ctrl array of a running search
_DEPTH, _NODES, _RESULT, _ENTRIES, _CUT = 0, 1, 2, 3, 4


@njit(**NO_REFCOUNT)
def _shuffle_moves(moves, scores, count, key, seed, spread):
    """Re-rank the moves of a probe: add to each score a pseudo-random amount below ``spread``,
    drawn from the position's key and the probe's seed (reproducible), and sort again."""
    noise = mix_key(key) ^ np.uint64(seed)
    for i in range(count):
        noise ^= noise >> np.uint64(29)
        noise *= np.uint64(0xBF58476D1CE4E5B9)
        noise ^= noise >> np.uint64(32)
        scores[i] += np.int32(noise % np.uint64(spread))
    for i in range(1, count):  # insertion sort: re-insert each move among the ones before it
        add_move(moves, scores, i, moves[i], scores[i])


# The depth-first searches (complete and probes) run one kernel over positions or over classes
# of positions; these three are where the two differ. ``layout`` is a class search's
# (column_cards, down_masks, card_place) from root_class, and None for a
# position search: numba compiles the kernels once for each and drops the other branch.
# (The kernel shared this way runs the class search about 10% slower than a copy of the loop
# of its own, docs/experiments/2026-11-29-speed-log.md; kept for one kernel.)
@njit(cache=True, inline="always")
def _node_key(state, rules, talon_index, limited, exact_twins, layout, key, values, free):
    if layout is None:
        search_key(state, rules, talon_index, limited, exact_twins, key, values, free)
    else:
        class_key(state, rules, limited, key)


@njit(cache=True, inline="always")
def _node_child(parent, child, rules, move, layout, no_record):
    """``child`` = ``parent`` after search move ``move`` and the safe auto-play."""
    if layout is None:
        for i in range(parent.shape[0]):  # (a loop: an array assignment needs numba's refcounts)
            child[i] = parent[i]
        apply_move(child, rules, move, no_record, 0)
        auto_play(child, rules, no_record, 0)
    else:
        copy_class(parent, child)
        apply_class_move(child, rules, layout[0], layout[2], move)


@njit(cache=True, inline="always")
def _node_moves(state, rules, layout, moves, scores, reached):
    if layout is None:
        return generate_moves(state, rules, moves, scores, reached)
    return generate_class_moves(state, rules, layout[0], layout[1], moves, scores, reached)


@njit(cache=True, inline="always")
def _boundary_place(layout):
    """Where a search's keys keep the waste boundary: ``(word, shift)`` of class keys (a
    ``layout``) or of position keys."""
    if layout is None:
        return POSITION_BOUNDARY_WORD, POSITION_BOUNDARY_SHIFT
    return BOUNDARY_WORD, BOUNDARY_SHIFT


@njit(cache=True)
def _insert_root(state, rules, talon_index, key_flags, table, epoch, layout, shared=False):
    """Put a search's root position in its table (empty, or shared: stamped expanded); returns
    the root's key."""
    key = np.empty(KEY_WORDS, np.int64)
    scratch = np.empty(2 * NUM_COLUMNS, np.int64)
    limited, exact_twins = key_modes(key_flags)
    _node_key(state, rules, talon_index, limited, exact_twins, layout, key, scratch[:NUM_COLUMNS],
              scratch[NUM_COLUMNS:])
    word, shift = _boundary_place(layout)
    insert_entry(table, epoch, key, epoch, shared, word, shift)
    return key


@njit(cache=True)
def _start(root, rules, states, moves, scores, move_counts, move_next, fresh, claims, ctrl, talon_index, key_flags,
           table, epoch, owner, entry_stop, mark_stop, seed, spread, layout, work):
    """Set up a depth-first search from ``root``: a position already auto-played and checked for
    cards stuck for good (``DepthFirst``), or (with a ``layout``) the class of one. ``owner``:
    0 for a table of its own, else the search's number on a shared table (:func:`_search`)."""
    state = states[0]
    state[:] = root
    ctrl[:] = 0
    if core.is_won(state):
        ctrl[_RESULT] = WON
        return
    key = _insert_root(state, rules, talon_index, key_flags, table, epoch, layout, owner != 0)
    ctrl[_ENTRIES] = 1
    ctrl[_NODES] = 1
    move_counts[0] = _node_moves(state, rules, layout, moves[0], scores[0], work[3])
    if seed != 0:
        _shuffle_moves(moves[0], scores[0], move_counts[0], key, seed, spread)
    move_next[0] = 0
    _search(rules, states, moves, scores, move_counts, move_next, fresh, claims, ctrl, talon_index, key_flags, table,
            epoch, owner, 1, entry_stop, mark_stop, seed, spread, layout, work,
            True)  # the root's successors, no expansion


def search_work() -> tuple:
    """Scratch arrays for :func:`_search`, which allocates none itself (``NO_REFCOUNT``): the
    successors' keys, a key and the key's scratch, a position and the successors' talon
    lengths, the talon walk's marks, an empty record of auto-played actions."""
    return (np.empty((MAX_MOVES, KEY_WORDS), np.int64), np.empty(KEY_WORDS + 2 * NUM_COLUMNS, np.int64),
            np.empty(STATE_SIZE + MAX_MOVES, np.int32), np.empty(core.TALON_SLOTS + 1, np.uint8),
            np.empty(0, np.int32))


@njit(nogil=True, **NO_REFCOUNT)
def _search(rules, states, moves, scores, move_counts, move_next, fresh, claims, ctrl, talon_index, key_flags,
            table, epoch, owner, node_stop, entry_stop, mark_stop, seed, spread, layout, work,
            successors_pending=False):
    """Run the depth-first search until a win, exhaustion, or ``node_stop`` nodes (resumable).
    ``successors_pending``: the position at the current depth is expanded but its successors
    are not looked up yet (the root, from ``_start``). ``work``: :func:`search_work`.

    A position's successors are all built and looked up in the table when it is expanded, and
    those that were new are expanded in turn when the search comes back to them (``fresh``):
    the look-ups of one position's successors then overlap in memory instead of waiting one by
    one (docs/experiments/2026-11-29-speed-log.md). A successor marked as seen that way is
    expanded later by the position that generated it, so the search stays complete.

    Two searches may share a table (``owner`` 1 and 2; 0: a table of its own). A new entry is
    then stamped as waiting for its inserter's expansion; a search that meets an entry waiting
    for the other's takes it as new too, and whichever comes back to it first claims it
    (``claims``: its slot) and expands it, the other skips it. Every entry stamped waiting is
    claimed by one of them, so once both are exhausted every class in the table was expanded or
    marked (``_mark_later_boundaries``), as with one search.
    """
    limited, exact_twins = key_modes(key_flags)
    shared = owner != 0
    word = epoch + owner  # the stamp of this search's new entries
    boundary_word, boundary_shift = _boundary_place(layout)
    draw_count = rules[RULE_DRAW_COUNT]
    keys, words, ints, reached, no_record = work
    key, values, free = words[:KEY_WORDS], words[KEY_WORDS:KEY_WORDS + NUM_COLUMNS], words[KEY_WORDS + NUM_COLUMNS:]
    scratch, talon_lengths = ints[:STATE_SIZE], ints[STATE_SIZE:]
    slot_mask = np.uint64(table.shape[0] - 1)
    max_depth = states.shape[0]
    max_boundary = core.TALON_SLOTS + 1  # above every waste boundary
    depth = ctrl[_DEPTH]
    nodes = ctrl[_NODES]
    entries = ctrl[_ENTRIES]
    while True:
        if not successors_pending:
            if depth < 0:
                ctrl[_RESULT] = EXHAUSTED
                break
            if nodes >= node_stop:
                break
            index = move_next[depth]
            if index >= move_counts[depth]:
                depth -= 1
                continue
            move_next[depth] = index + 1
            if fresh[depth, index] == 0:
                continue
            if shared and not claim_entry(table, epoch, claims[depth, index]):
                continue  # expanded by the other search
            covered_from = fresh[depth, index] - 1
            child = states[depth + 1]
            _node_child(states[depth], child, rules, moves[depth, index], layout, no_record)
            nodes += 1
            depth += 1
            move_counts[depth] = _node_moves(child, rules, layout, moves[depth], scores[depth], reached)
            if covered_from < max_boundary:
                move_counts[depth] = _drop_covered_talon_moves(moves[depth], scores[depth], move_counts[depth],
                                                               child[WASTE_LENGTH], draw_count, covered_from)
            if seed != 0:
                _node_key(child, rules, talon_index, limited, exact_twins, layout, key, values, free)
                _shuffle_moves(moves[depth], scores[depth], move_counts[depth], key, seed, spread)
            move_next[depth] = 0
        successors_pending = False
        # build and look up every successor of the position at ``depth``
        if depth + 1 >= max_depth:
            ctrl[_CUT] = 1
            move_counts[depth] = 0
            continue
        parent = states[depth]
        count = move_counts[depth]
        won = -1
        for index in range(count):
            _node_child(parent, scratch, rules, moves[depth, index], layout, no_record)
            if core.foundation_total(scratch) == NUM_CARDS:  # core.is_won, whose call would count references
                won = index
                break
            _node_key(scratch, rules, talon_index, limited, exact_twins, layout, keys[index], values, free)
            talon_lengths[index] = scratch[TALON_LENGTH]
            # its slot (keys.key_slot), and that of the grid boundary it will mark if new and off
            # the grid (_mark_later_boundaries), a few lines away: one hash for both
            base = boundary_base(keys[index], boundary_word, boundary_shift)
            boundary = (keys[index, boundary_word] >> boundary_shift) & 31
            prefetch_entry(table, np.int64((base + boundary_offset(boundary)) & slot_mask))
            if not limited and boundary != 0:
                prefetch_entry(table, np.int64(base & slot_mask))
        if won >= 0:
            move_next[depth] = won + 1
            depth += 1
            ctrl[_RESULT] = WON
            break
        full = False
        for index in range(count):
            fresh[depth, index] = 0
            if entries >= entry_stop:
                full = True
                break
            inserted, slot = insert_entry(table, epoch, keys[index], word, shared, boundary_word, boundary_shift)
            if inserted < 0:
                full = True
                break
            if inserted == 0:
                continue
            if shared:
                claims[depth, index] = slot
            if inserted == 2:  # waiting for the other search: whichever comes back to it first
                fresh[depth, index] = max_boundary + 1
                continue
            entries += 1
            covered_from = max_boundary
            if not limited:
                for i in range(KEY_WORDS):
                    key[i] = keys[index, i]
                entries, covered_from = _mark_later_boundaries(table, epoch, key, boundary_word, boundary_shift,
                                                               talon_lengths[index], draw_count, entries, mark_stop,
                                                               shared)
            fresh[depth, index] = covered_from + 1
        if full:
            ctrl[_RESULT] = FULL
            break
    ctrl[_DEPTH] = depth
    ctrl[_NODES] = nodes
    ctrl[_ENTRIES] = entries


@njit(**NO_REFCOUNT)
def _mark_later_boundaries(table, epoch, key, word, shift, talon_length, draw_count, entries, mark_stop, shared):
    """With unlimited passes, a position whose waste boundary (``key[word]``'s 5 bits at
    ``shift``) is off the draw grid can reach, by draws alone, the same position with each
    later boundary of its grid and then with the grid boundary: those have a subset of its
    moves, so mark them as seen (docs/solver.md, "Boundaries off the draw grid"). Returns the
    entries used and the first of those boundaries that was in the table already
    (``talon_length`` for the grid boundary, ``TALON_SLOTS + 1`` for none). Marking is optional: it stops at ``mark_stop`` entries, which
    leaves at least half the table to expanded positions."""
    covered_from = core.TALON_SLOTS + 1
    boundary = (key[word] >> shift) & 31
    if boundary == 0:
        return entries, covered_from
    cleared = key[word] & ~(np.int64(31) << shift)
    later = boundary + draw_count
    while entries < mark_stop:
        key[word] = cleared | (np.int64(later if later < talon_length else 0) << shift)
        marked, _ = insert_entry(table, epoch, key, epoch, shared, word, shift)  # stamped as needing no expansion
        if marked < 0:
            break
        if marked != 1 and covered_from > talon_length:
            covered_from = min(later, talon_length)
        entries += marked == 1
        if later >= talon_length:
            break
        later += draw_count
    return entries, covered_from


@njit(**NO_REFCOUNT)
def _drop_covered_talon_moves(moves, scores, count, boundary, draw_count, covered_from):
    """Drop the talon moves of a position with waste boundary ``boundary`` (off the grid) that a
    position with the same cards and a later boundary ``covered_from`` of its grid (or the grid
    boundary: ``covered_from`` = the talon's length), already in the table, has too: the plays of
    the tops at ``covered_from`` and after on this pass, and every play after a recycle. They
    lead to the same successors (the waste boundary of the successor is where the played card
    lay), which that position's expansion generates (docs/solver.md, "Boundaries off the draw
    grid"). Returns the moves kept."""
    kept = 0
    for index in range(count):
        move = moves[index]
        reached = boundary + ((move >> BEFORE_SHIFT) & COUNT_MASK) * draw_count
        if (move >> RECYCLE_SHIFT) & 1 or reached >= covered_from:
            continue
        moves[kept] = move
        scores[kept] = scores[index]
        kept += 1
    return kept


class DepthFirst(ControlledSearch):
    """One depth-first search from the root, resumable in chunks of nodes: over positions, or
    over classes of positions with ``KEY_CLASSES`` in ``key_flags`` (klondike_env.solver.classes)."""

    RESULT_SLOT, NODES_SLOT, ENTRIES_SLOT = _RESULT, _NODES, _ENTRIES

    def __init__(self, root, rules_array, talon_index, key_flags: int, table: Table, capacity: int, seed: int,
                 spread: int = 1, budget: int | None = None, shared: tuple[int, int] | None = None,
                 subtree: tuple | None = None):
        """``shared``: (epoch, owner) of a table shared with another search (``_search``); its
        ``entry_stop`` and ``mark_stop`` are then the caller's to keep up to date (``Sharer.run``).
        ``subtree``: (class state, layout, class line from the root) of a class another search
        on the shared table handed over (:meth:`hand_over`), to search from instead of the root."""
        self.root, self.rules_array, self.talon_index, self.key_flags = root, rules_array, talon_index, key_flags
        self.table, self.entry_stop = table, int(capacity * MAX_FILL)
        self.mark_stop = self.entry_stop // 2
        if shared is None:
            self.epoch, self.owner = np.int64(table.next_epoch()), 0
        else:
            self.epoch, self.owner = np.int64(shared[0]), shared[1]
        self.seed, self.spread, self.budget = np.uint64(seed), spread, budget
        self.states = np.empty((MAX_DEPTH, STATE_SIZE), np.int32)
        self.moves = np.empty((MAX_DEPTH, MAX_MOVES), np.int32)
        self.scores = np.empty((MAX_DEPTH, MAX_MOVES), np.int32)
        self.move_counts = np.zeros(MAX_DEPTH, np.int32)
        self.move_next = np.zeros(MAX_DEPTH, np.int32)
        # per generated move: 0 if its successor was seen already, else 1 + the boundary from
        # which its talon moves are covered (_drop_covered_talon_moves)
        self.fresh = np.zeros((MAX_DEPTH, MAX_MOVES), np.int8)
        self.claims = np.empty((MAX_DEPTH, MAX_MOVES) if shared else (1, 1), np.int64)  # slots (shared table)
        self.ctrl = np.zeros(5, np.int64)
        self.layout = None
        self.work = search_work()
        self.line: list[int] = []  # the class moves from the root to where this search starts
        if subtree is not None:
            start, self.layout, self.line = subtree
            self._begin(start)
            return
        # the root's safe auto-play, then its proof of loss (cards stuck for good)
        start = root.copy()
        auto_play(start, rules_array, np.empty(0, np.int32), 0)
        if not core.is_won(start) and stuck_for_good(start, rules_array):
            self.ctrl[_DEPTH] = -1
            self.ctrl[_RESULT] = EXHAUSTED
            self.ctrl[_NODES] = self.ctrl[_ENTRIES] = 1
            return
        if key_flags & KEY_CLASSES:  # the class search starts from the root's class
            start, *layout = root_class(start)
            self.layout = tuple(layout)
        self._begin(start)

    def _begin(self, start) -> None:
        _start(start, self.rules_array, self.states, self.moves, self.scores, self.move_counts, self.move_next,
               self.fresh, self.claims, self.ctrl, self.talon_index, self.key_flags, self.table.keys, self.epoch,
               self.owner, self.entry_stop, self.mark_stop, self.seed, self.spread, self.layout, self.work)

    def hand_over(self) -> tuple | None:
        """Give up the shallowest class on this search's stack that waits for its expansion (a
        class search on a shared table, between runs): ``(class state, class line from the root,
        slot)`` for the other search to claim and search, or None when none waits."""
        depth = int(self.ctrl[_DEPTH])
        for level in range(depth + 1):
            for index in range(int(self.move_next[level]), int(self.move_counts[level])):
                if self.fresh[level, index] != 0:
                    self.fresh[level, index] = 0
                    move = int(self.moves[level, index])
                    state = self.states[level].copy()
                    _node_child(self.states[level], state, self.rules_array, move, self.layout,
                                np.empty(0, np.int32))
                    return state, self._line(level) + [move], int(self.claims[level, index])
        return None

    def _line(self, depth: int) -> list[int]:
        """The class moves from the root to ``depth``: those before this search's start, then its own."""
        levels = np.arange(depth)
        return self.line + self.moves[levels, self.move_next[levels] - 1].tolist()

    @property
    def cut(self) -> bool:
        return bool(self.ctrl[_CUT])

    def run(self, nodes: int) -> None:
        """Search on until a win, exhaustion, a full table or ``nodes`` more expansions."""
        _search(self.rules_array, self.states, self.moves, self.scores, self.move_counts, self.move_next,
                self.fresh, self.claims, self.ctrl, self.talon_index, self.key_flags, self.table.keys, self.epoch,
                self.owner, self.ctrl[_NODES] + nodes, self.entry_stop, self.mark_stop, self.seed, self.spread,
                self.layout, self.work)

    def solution(self) -> list[int]:
        depth = int(self.ctrl[_DEPTH])
        if self.key_flags & KEY_CLASSES:
            return realize(self.root, self.rules_array, self._line(depth))
        out = np.empty(8 * MAX_DEPTH + 64, np.int32)
        count = solution_actions(self.root, self.rules_array, self.moves, self.move_next, depth, out)
        return [int(a) for a in out[:count]]
