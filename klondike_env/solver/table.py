"""Transposition tables: the open-addressing insert, its atomic variant for a table two
searches share (``solve(..., threads=2)``), the CPU prefetch, and the tables kept between solves.

An entry is the key's words then the epoch stamp that wrote it; an entry of an older epoch is
free, so a table is emptied in O(1) by taking a new epoch.
"""

from __future__ import annotations

import functools

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from klondike_env.solver.control import NO_REFCOUNT
from klondike_env.solver.keys import KEY_WORDS, key_slot
from klondike_env.solver.memory import search_array
from klondike_env.solver.results import SolverInputError

ENTRY_WORDS = 4  # the key words and the epoch stamp, side by side: one cache line per probe
ENTRY_BYTES = ENTRY_WORDS * 8
MAX_FILL = 0.75  # table load at which the search stops with UNKNOWN (memory)


def _entry_pointer(context, builder, signature, args, word=KEY_WORDS):
    """For the intrinsics below (arguments ``table, slot, ...``): a pointer to ``table[slot, word]``,
    by default the entry's epoch word."""
    table_type, slot_type = signature.args[0], signature.args[1]
    array = context.make_array(table_type)(context, builder, args[0])
    row = context.cast(builder, args[1], slot_type, types.intp)
    return cgutils.get_item_pointer(context, builder, table_type, array,
                                    [row, context.get_constant(types.intp, word)])


@intrinsic
def prefetch_entry(typingctx, table, slot):
    """Ask the CPU to load ``table[slot]`` into the cache (no effect on the program's values)."""

    def codegen(context, builder, signature, args):
        pointer = _entry_pointer(context, builder, signature, args, word=0)
        byte_pointer = ir.IntType(8).as_pointer()
        int32 = ir.IntType(32)
        # (llvmlite names the intrinsic for its own pointer types, as numba's llvm.memcpy)
        function = builder.module.declare_intrinsic(
            "llvm.prefetch", [byte_pointer], ir.FunctionType(ir.VoidType(), [byte_pointer, int32, int32, int32]))
        # read access, high temporal locality, data cache
        builder.call(function, [builder.bitcast(pointer, byte_pointer), ir.Constant(int32, 0),
                                ir.Constant(int32, 3), ir.Constant(int32, 1)])
        return context.get_dummy_value()

    return types.void(table, slot), codegen


# Atomic access to an entry's epoch word, for the two depth-first searches that share a table
# (solve's threads=2): an entry is claimed (compare-and-swap) before its key words are written,
# and its epoch word is stored last, so a search that reads an entry's epoch reads its key too.
@intrinsic
def _load_epoch(typingctx, table, slot):
    """``table[slot, KEY_WORDS]``, read atomically (acquire: the key words read after it are
    those written before it)."""

    def codegen(context, builder, signature, args):
        return builder.load_atomic(_entry_pointer(context, builder, signature, args), "acquire", 8)

    return types.int64(table, slot), codegen


@intrinsic
def _store_epoch(typingctx, table, slot, value):
    """``table[slot, KEY_WORDS] = value``, atomically (release: after the key words)."""

    def codegen(context, builder, signature, args):
        builder.store_atomic(args[2], _entry_pointer(context, builder, signature, args), "release", 8)
        return context.get_dummy_value()

    return types.void(table, slot, types.int64), codegen


@intrinsic
def _swap_epoch(typingctx, table, slot, expected, value):
    """Compare-and-swap ``table[slot, KEY_WORDS]`` from ``expected`` to ``value``; returns the
    word found there (``expected`` exactly when the swap took place)."""

    def codegen(context, builder, signature, args):
        pair = builder.cmpxchg(_entry_pointer(context, builder, signature, args), args[2], args[3],
                               "acq_rel", "acquire")
        return builder.extract_value(pair, 0)

    return types.int64(table, slot, types.int64, types.int64), codegen


@njit(**NO_REFCOUNT)
def table_insert(table, epoch, key, word, shift):
    """1 if ``key`` was new (now stored), 0 if present, -1 if no free slot was found.

    An entry is the key's words then the epoch that wrote it; an older epoch's entry is free.
    ``word``, ``shift``: where the key keeps its waste boundary (:func:`key_slot`).
    """
    mask = np.uint64(table.shape[0] - 1)
    index = key_slot(key, word, shift, mask)
    for _ in range(table.shape[0]):
        slot = np.int64(index)
        if table[slot, KEY_WORDS] != epoch:
            table[slot, 0] = key[0]
            table[slot, 1] = key[1]
            table[slot, 2] = key[2]
            table[slot, KEY_WORDS] = epoch
            return 1
        if table[slot, 0] == key[0] and table[slot, 1] == key[1] and table[slot, 2] == key[2]:
            return 0
        index = (index + np.uint64(1)) & mask
    return -1


# A table shared by two searches (threads=2) stamps an entry with one of three epoch words: the
# epoch itself once the entry needs no expansion (expanded, or a marked boundary), the epoch + 1
# or + 2 while the search of that number (1: solve's complete search, 2: its partner) has yet to
# expand it. _BUSY marks an entry whose key is being written.
SHARED_EPOCHS = 3
_BUSY = -1


@njit(cache=True)
def shared_insert(table, epoch, key, word, boundary_word, boundary_shift):
    """:func:`table_insert` on a shared table, stamping a new entry ``word``: ``(1, slot)`` if
    ``key`` was new, ``(0, slot)`` if present and stamped ``epoch`` or ``word``, ``(2, slot)`` if
    present and waiting for the other search's expansion, ``(-1, 0)`` if no free slot was found."""
    mask = np.uint64(table.shape[0] - 1)
    index = key_slot(key, boundary_word, boundary_shift, mask)
    looked = 0
    while looked < table.shape[0]:
        slot = np.int64(index)
        found = _load_epoch(table, slot)
        if found == _BUSY:
            continue  # the other search is writing this entry: read it again
        if np.uint64(found - epoch) >= np.uint64(SHARED_EPOCHS):  # free
            if _swap_epoch(table, slot, found, _BUSY) != found:
                continue  # taken meanwhile: read it again
            table[slot, 0] = key[0]
            table[slot, 1] = key[1]
            table[slot, 2] = key[2]
            _store_epoch(table, slot, word)
            return 1, slot
        if table[slot, 0] == key[0] and table[slot, 1] == key[1] and table[slot, 2] == key[2]:
            return (0 if found == epoch or found == word else 2), slot
        index = (index + np.uint64(1)) & mask
        looked += 1
    return -1, np.int64(0)


@njit(cache=True, inline="always")
def insert_entry(table, epoch, key, word, shared, boundary_word, boundary_shift):
    """Insert in a search's table: :func:`shared_insert` (stamping ``word``) when ``shared``,
    else :func:`table_insert` (slot -1)."""
    if shared:
        return shared_insert(table, epoch, key, word, boundary_word, boundary_shift)
    return table_insert(table, epoch, key, boundary_word, boundary_shift), np.int64(-1)


@njit(cache=True)
def claim_entry(table, epoch, slot):
    """Whether this search may expand the shared entry at ``slot`` (it was waiting for an
    expansion, and is now stamped ``epoch``); False when the other search claimed it first."""
    while True:
        found = _load_epoch(table, slot)
        if found == epoch:
            return False
        if _swap_epoch(table, slot, found, epoch) == found:
            return True


class Table:
    """A transposition table kept between calls; an epoch stamp empties it in O(1)."""

    def __init__(self, capacity: int):
        self.keys = search_array((capacity, ENTRY_WORDS), np.int64, keep=True)
        self.epoch = 0

    def next_epoch(self, count: int = 1) -> int:
        """A fresh epoch; ``count`` > 1 reserves that many consecutive ones (a shared table's stamps)."""
        if self.epoch + count >= 2**32 - 1:
            self.keys[:, KEY_WORDS] = 0
            self.epoch = 0
        self.epoch += count
        return self.epoch - count + 1


_tables: dict[tuple[int, str], Table] = {}


def table_for(capacity: int, role: str = "main") -> Table:
    """The table of ``capacity`` entries for one role (the complete search, or the probes,
    which run interleaved with it and so need a table of their own)."""
    table = _tables.get((capacity, role))
    if table is None:
        if len(_tables) >= 4:  # keep memory bounded across calls with different budgets
            _tables.pop(next(iter(_tables)))
        table = _tables[(capacity, role)] = Table(capacity)
    return table


@functools.lru_cache(maxsize=64)  # a pure function, asked on every solve
def table_capacity(memory_limit_mb: float, node_limit: int | None = None) -> int:
    """Entries of the table a search gets: a power of two within the memory limit, and no
    larger than the node budget needs (small budgets get small, cache-friendly tables)."""
    capacity = 1 << max(10, int(np.log2(max(memory_limit_mb, 0.001) * 2**20 / ENTRY_BYTES)))
    if capacity * ENTRY_BYTES > memory_limit_mb * 2**20:
        capacity >>= 1
    if capacity < 1024:
        raise SolverInputError(f"bad memory_limit_mb={memory_limit_mb!r}: at least 0.03 MB is needed")
    if node_limit is not None:
        # room for the node budget twice over (grid marks take slots too)
        capacity = min(capacity, 1 << max(10, int(np.ceil(np.log2(2 * node_limit / MAX_FILL + 1)))))
    return capacity
