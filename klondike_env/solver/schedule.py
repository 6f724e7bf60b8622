"""Who searches when: the probes, the best-first search and (with ``threads=2``) the partner of
the class search, beside the complete search (docs/solver.md, "Probes", "The class search on
two threads")."""

from __future__ import annotations

import threading
import time

from klondike_env.solver.best_first import BestFirst
from klondike_env.solver.control import EXHAUSTED, FULL, RUNNING, WON, ControlledSearch
from klondike_env.solver.depth_first import DepthFirst
from klondike_env.solver.keys import KEY_CLASSES
from klondike_env.solver.table import ENTRY_BYTES, MAX_FILL, claim_entry, table_capacity, table_for

# Probes (docs/solver.md, "Probes"): restarts in shuffled move orders, interleaved with the
# complete search once it has expanded PROBE_AFTER positions; budgets PROBE_UNIT times the Luby
# sequence. They start (with the best-first search) after 2,000 positions: most deals the fixed
# order decides are decided by then, and starting the others early decides more positions
# within small budgets (docs/experiments/2026-11-29-speed-log.md).
PROBE_AFTER = 2_000
PROBE_UNIT = 8_000
PROBE_SPREADS = (300, 2000, 120)
# the probes' nodes, all together, per node of the complete search: a quarter, as the best-first
# search finds most of what they would (deals 1-200, docs/experiments/2026-11-29-speed-log.md)
PROBE_SHARE = 0.25
PROBE_MAX_LUBY = 128  # no probe expands more than PROBE_UNIT * 128 positions
# The best-first search (docs/solver.md, "Best-first search") joins once the complete search has
# expanded BEST_AFTER positions and expands BEST_SHARE positions per position of the complete
# search (docs/experiments/2026-11-29-speed-log.md).
BEST_AFTER = 2_000
BEST_SHARE = 0.25


def probe_capacity(memory_limit_mb: float) -> int:
    """The probes' table: a quarter of the memory limit, no more than the largest probe needs."""
    return table_capacity(memory_limit_mb / 4, PROBE_UNIT * PROBE_MAX_LUBY)


def luby(index: int) -> int:
    """The Luby sequence 1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8, ... (1-based ``index``)."""
    power = 1
    while (1 << power) - 1 < index:
        power += 1
    while True:
        if index == (1 << power) - 1:
            return 1 << (power - 1)
        index -= (1 << (power - 1)) - 1
        power = 1
        while (1 << power) - 1 < index:
            power += 1


RACE_CHUNK = 1 << 15  # nodes between checks while the helpers run on a thread of their own (~0.05 s)
# With threads=2 the class search runs on both threads over one table (_search's owners 1 and
# 2, one Sharer each): the complete search on the main thread, a partner on the helpers' thread.
# A thread without work asks the other, which hands over the shallowest class waiting on its
# stack (DepthFirst.hand_over) and searches on; the partner takes PARTNER_SHARE positions per
# position of the probes and the best-first search together, and every turn once the complete
# search is exhausted.
PARTNER_SHARE = 4.0


def main_nodes(complete: DepthFirst, main: Sharer | None) -> int:
    """Nodes expanded by the complete search, and with the class search on two threads by every
    search of the main thread."""
    return main.nodes if main is not None else complete.nodes


class Sharer:
    """One thread's part of the class search on a table shared by two threads: the searches it
    runs one after the other (the complete search from the root, on the main thread; then
    searches from classes the other thread handed over) and the class handed to it.

    The position is lost once neither thread has a search or a class handed over (read the
    other thread's :attr:`done` first: a thread hands a class over only while it searches) and
    no search filled the table: every class in the table was then expanded (``_search``)."""

    def __init__(self, owner: int, complete: DepthFirst, first: DepthFirst | None = None):
        self.owner, self.complete, self.search = owner, complete, first
        self.handed: tuple | None = None  # (class state, line, slot) from the other thread
        self.wants = False  # asks the other thread for a class
        self.ended_nodes = self.ended_entries = 0
        self.cut = self.full = False
        self.winner: DepthFirst | None = None

    @property
    def nodes(self) -> int:
        return self.ended_nodes + (self.search.nodes if self.search is not None else 0)

    @property
    def entries(self) -> int:
        return self.ended_entries + (self.search.entries if self.search is not None else 0)

    @property
    def done(self) -> bool:
        """No search and no class to start one (the search is set before ``handed`` is cleared)."""
        return self.search is None and self.handed is None

    def run(self, step: int, other: Sharer) -> bool:
        """Up to ``step`` more nodes of this thread's search (claiming a class handed over to
        start one), then a class for ``other`` if it asks; False when idle (asking)."""
        search = self.search
        if search is None:
            if self.handed is None:
                self.wants = True
                return False
            state, line, slot = self.handed
            complete = self.complete
            if claim_entry(complete.table.keys, complete.epoch, slot):  # (else expanded already)
                search = self.search = DepthFirst(
                    complete.root, complete.rules_array, complete.talon_index, complete.key_flags, complete.table,
                    len(complete.table.keys), seed=0, shared=(int(complete.epoch), self.owner),
                    subtree=(state, complete.layout, line))
            self.handed = None
            if search is None:
                return True
        # half of the table's free entries (half of those for marked boundaries)
        stop = int(len(search.table.keys) * MAX_FILL)
        used = search.entries + self.ended_entries + other.entries
        search.entry_stop = search.entries + max(0, stop - used) // 2
        search.mark_stop = search.entries + max(0, stop // 2 - used) // 2
        search.run(step)
        if search.result == RUNNING:
            if other.wants and other.handed is None:
                other.handed = search.hand_over()
                other.wants = False
        elif search.result == WON:
            self.winner = search
        else:
            self.cut |= search.cut
            self.full |= search.result == FULL
            self.ended_nodes += search.nodes
            self.ended_entries += search.entries
            self.search = None
        return True


class Helpers:
    """The probes and the best-first search, which join the complete search once it has
    expanded ``probe_after`` positions: they take turns with it (``threads=1``) or run on a
    thread of their own beside it (``threads=2``, :meth:`race`), there with the partner of the
    class search (``partner``, a :class:`Sharer`). ``decider`` is the one that won or proved the
    position lost, if any."""

    def __init__(self, root, rules_array, talon_index, key_flags: int, memory_limit_mb: float):
        self.root, self.rules_array, self.talon_index = root, rules_array, talon_index
        self.key_flags, self.memory_limit_mb = key_flags, memory_limit_mb
        self.probe: DepthFirst | None = None
        self.probes_started = 0
        self.probes_ended_nodes = 0  # expanded by the probes that have ended
        self.probe_entries = 0  # the most table entries one probe used
        self.best: BestFirst | None = None  # started on its first turn
        self.partner: Sharer | None = None  # threads=2, classes: the class search on this thread
        self.decider: ControlledSearch | None = None
        self.error: BaseException | None = None  # raised on the thread beside (threads=2)

    @property
    def probes_used(self) -> int:
        return self.probes_ended_nodes + (self.probe.nodes if self.probe is not None else 0)

    @property
    def best_used(self) -> int:
        return self.best.nodes if self.best is not None else 0

    @property
    def partner_used(self) -> int:
        return self.partner.nodes if self.partner is not None else 0

    @property
    def nodes(self) -> int:
        return self.probes_used + self.best_used + self.partner_used

    @property
    def best_open(self) -> bool:
        """Whether the best-first search may still take turns (its memory is not full)."""
        return self.best is None or self.best.result == RUNNING

    @property
    def memory_mb(self) -> float:
        return self.probe_entries * ENTRY_BYTES / 2**20 + (self.best.memory_mb if self.best is not None else 0.0)

    def run(self, turn: str, step: int) -> None:
        """Up to ``step`` more nodes of the best-first search (``turn == "best"``) or the probes."""
        if turn == "best":
            if self.best is None:  # the best-first search keeps to positions (docs/solver.md, "Best-first search")
                self.best = BestFirst(self.root, self.rules_array, self.talon_index, self.key_flags & ~KEY_CLASSES,
                                       self.memory_limit_mb)
            self.best.run(step)
            if self.best.result in (WON, EXHAUSTED):
                self.decider = self.best  # an exhausted best-first search has expanded every reachable position
            return
        if self.probe is None:
            self.probes_started += 1
            capacity = probe_capacity(self.memory_limit_mb)
            self.probe = DepthFirst(self.root, self.rules_array, self.talon_index, self.key_flags,
                                     table_for(capacity, "probe"), capacity, seed=self.probes_started,
                                     spread=PROBE_SPREADS[self.probes_started % len(PROBE_SPREADS)],
                                     budget=PROBE_UNIT * min(luby(self.probes_started), PROBE_MAX_LUBY))
        probe = self.probe
        probe.run(min(step, probe.budget - probe.nodes))
        self.probe_entries = max(self.probe_entries, probe.entries)
        if probe.result == WON or (probe.result == EXHAUSTED and not probe.cut):
            self.decider = probe  # a probe's exhaustive search is as good a proof as the complete one
        elif probe.result != RUNNING or probe.nodes >= probe.budget:
            self.probes_ended_nodes += probe.nodes
            self.probe = None

    def race(self, complete: DepthFirst, main: Sharer | None, stop: threading.Event, node_limit: int | None,
             deadline: float | None, best_after: int) -> None:
        """Run beside ``complete`` (on a thread of its own; the kernels release the GIL) until one of
        them decides, ``stop`` is set or a budget runs out: the probes, the best-first search and,
        when the class search runs on both threads (``main``: the main thread's part), the
        partner share this thread in the proportion PROBE_SHARE : BEST_SHARE : PARTNER_SHARE
        (the partner alone while the main thread waits for a class). An exception is kept in
        ``error`` for ``solve`` to raise."""
        try:
            while not stop.is_set() and self.decider is None:
                used = main_nodes(complete, main) + self.nodes
                if spent_budget(used, node_limit, deadline) is not None:
                    return
                step = next_step(RACE_CHUNK, used, node_limit)
                shares = [(self.probes_used / PROBE_SHARE, "probes")]
                if complete.nodes >= best_after and self.best_open:
                    shares.append((self.best_used / BEST_SHARE, "best"))
                partner = self.partner
                if partner is not None and not partner.done:
                    shares.append((partner.nodes / PARTNER_SHARE, "partner"))
                    if main.wants:
                        shares = shares[-1:]
                elif partner is not None and not main.done:
                    partner.wants = True
                turn = min(shares)[1]
                if turn == "partner":
                    partner.run(step, main)
                    if partner.winner is not None:
                        self.decider = partner.winner
                else:
                    self.run(turn, step)
        except BaseException as error:  # noqa: BLE001 -- handed to the main thread
            self.error = error


def spent_budget(used: int, node_limit: int | None, deadline: float | None) -> str | None:
    """``"nodes"`` or ``"time"`` when that budget of a solve is spent (``used`` nodes so far), else
    ``None``: the main loop's check and the helper thread's."""
    if node_limit is not None and used >= node_limit:
        return "nodes"
    if deadline is not None and time.perf_counter() >= deadline:
        return "time"
    return None


def next_step(chunk: int, used: int, node_limit: int | None) -> int:
    """Nodes for the next turn of a search: ``chunk``, or what is left of ``node_limit``."""
    return chunk if node_limit is None else min(chunk, node_limit - used)
