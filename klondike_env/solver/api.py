"""The solver's entry points: :func:`solve` and :func:`prepare`."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import numpy as np

from klondike_env import core
from klondike_env.cards import check_deal, deal_deck, parse_deck
from klondike_env.core import STATE_SIZE, TALON, TALON_LENGTH
from klondike_env.rules import Rules
from klondike_env.solver.best_first import best_capacity
from klondike_env.solver.control import EXHAUSTED, FULL, RUNNING, WON
from klondike_env.solver.depth_first import DepthFirst
from klondike_env.solver.keys import KEY_CLASSES, KEY_EXACT_TWINS, KEY_LIMITED
from klondike_env.solver.results import SolveResult, SolverInputError, SolveStatus
from klondike_env.solver.schedule import (
    BEST_AFTER,
    BEST_SHARE,
    PROBE_AFTER,
    PROBE_SHARE,
    RACE_CHUNK,
    Helpers,
    Sharer,
    main_nodes,
    next_step,
    probe_capacity,
    spent_budget,
)
from klondike_env.solver.table import ENTRY_BYTES, MAX_FILL, SHARED_EPOCHS, table_capacity, table_for

DEFAULT_MEMORY_MB = 512


def prepare(memory_limit_mb: float = DEFAULT_MEMORY_MB, node_limit: int | None = None) -> None:
    """Compile (or load) the kernels and allocate the table, so no timed solve pays for them."""
    table_for(table_capacity(memory_limit_mb, node_limit))  # a table touches its pages when it is made
    if node_limit is None or node_limit > PROBE_AFTER:
        table_for(probe_capacity(memory_limit_mb), "probe")
    if node_limit is None or node_limit > BEST_AFTER:
        table_for(best_capacity(memory_limit_mb), "best")
    # compile (or load) every search's kernels: deal 1 runs past the point where the probes and
    # the best-first search join, over classes and over positions
    warm_up = 3 * max(PROBE_AFTER, BEST_AFTER) + 1000
    for by_class in (True, False):
        solve(1, node_limit=warm_up, memory_limit_mb=min(memory_limit_mb, 64), by_class=by_class)


def _check_limit(name: str, value, integer: bool):
    if value is None:
        return None
    kinds = (int, np.integer) if integer else (int, float, np.integer, np.floating)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, kinds) or not value > 0:
        what = "a positive integer" if integer else "a positive number of seconds"
        raise SolverInputError(f"bad {name}={value!r}: expected {what} or None")
    return value


def _root_position(game_or_deck, rules) -> tuple[np.ndarray, Rules, np.ndarray]:
    """The root position, its rules and their array."""
    from klondike_env.game import Game

    if rules is not None and not isinstance(rules, Rules):
        raise SolverInputError(f"bad rules {rules!r}: expected a klondike_env.Rules or None")
    if isinstance(game_or_deck, Game):
        if rules is None:  # the game's own rules array (a copy: cheaper than building it again)
            return game_or_deck._state.copy(), game_or_deck.rules, game_or_deck._rules_array.copy()
        return game_or_deck._state.copy(), rules, rules.as_array()
    if isinstance(game_or_deck, (int, np.integer)) and not isinstance(game_or_deck, (bool, np.bool_)):
        deck = deal_deck(check_deal(game_or_deck))
    else:
        deck = parse_deck(game_or_deck)
    state = np.empty(STATE_SIZE, np.int32)
    core.init_state(np.asarray(deck, np.int32), state)
    rules = Rules() if rules is None else rules
    return state, rules, rules.as_array()


def talon_index(root: np.ndarray) -> np.ndarray:
    """Each card's place in ``root``'s talon, ``-1`` for the cards elsewhere."""
    index = np.full(core.NUM_CARDS, -1, np.int32)
    length = int(root[TALON_LENGTH])
    index[root[TALON : TALON + length]] = np.arange(length, dtype=np.int32)
    return index


def solve(
    game_or_deck,
    rules: Rules | None = None,
    *,
    time_limit: float | None = None,
    node_limit: int | None = None,
    memory_limit_mb: float = DEFAULT_MEMORY_MB,
    probe_after: int | None = None,
    best_after: int | None = None,
    exact_twins: bool = False,
    by_class: bool = True,
    threads: int = 1,
    progress: Callable[[int, float], object] | None = None,
    actions: bool = True,
) -> SolveResult:
    """Decide a Thoughtful Klondike position and find a winning line.

    ``game_or_deck`` is a :class:`~klondike_env.Game` (solved from its current position, with
    its own rules unless ``rules`` is given), a deal number, or a deck in any form
    :func:`~klondike_env.parse_deck` accepts (solved from its opening). Budgets: ``time_limit``
    seconds, ``node_limit`` positions expanded, ``memory_limit_mb`` for the transposition
    table (on top of it the probes use up to a quarter of it, the best-first search up to half); when
    one runs out the status is ``UNKNOWN`` and ``stopped_by`` names it. ``probe_after`` and
    ``best_after``: positions the complete search expands alone before the probes, and the
    best-first search (never before the probes), join it (default ``PROBE_AFTER`` and
    ``BEST_AFTER``); they change how soon a verdict comes, and so what a budget decides, never
    what the verdict is. ``exact_twins=True`` keys positions by which twin lies where too (the
    plain key merges positions that differ only by swapping twins in face-up runs: docs/solver.md,
    "Transposition table"): a check of that merge, at about four times the positions. ``by_class``
    (default ``True``): the complete search and the probes search classes of positions
    (``klondike_env.solver.classes``) where the rules allow it (``empty_column="king"``,
    not ``exact_twins``); ``False``: positions. Both are exact.
    ``threads=2`` runs the probes, the best-first search and a partner of the complete search
    (which takes over parts of the class search: docs/solver.md) on a second thread beside the
    complete search (the kernels release the GIL), instead of taking turns with it on one: the
    same verdicts, sooner on a machine with a core to spare (not in a sweep that already runs a
    worker per core), but which search decides, and so the solution and ``nodes``, may vary from
    run to run, and ``node_limit`` may be overrun by one chunk of ``RACE_CHUNK`` nodes per thread.
    ``progress``: called as ``progress(nodes, table_fill)`` between chunks of search (a few times
    a second on a long solve), with the nodes expanded so far and the fraction of the complete
    search's table in use (1.0: full); :class:`~klondike_env.solver.progress.TerminalProgress`
    shows them on a terminal.
    ``actions=False``: leave the result's ``actions`` empty, even when SOLVED, for a caller that
    reads only the status (building the winning line costs about as much as a small solve).
    """
    started = time.perf_counter()
    time_limit = _check_limit("time_limit", time_limit, integer=False)
    node_limit = _check_limit("node_limit", node_limit, integer=True)
    probe_after = PROBE_AFTER if probe_after is None else _check_limit("probe_after", probe_after, integer=True)
    best_after = BEST_AFTER if best_after is None else _check_limit("best_after", best_after, integer=True)
    _check_limit("memory_limit_mb", memory_limit_mb, integer=False)
    root, rules, rules_array = _root_position(game_or_deck, rules)
    if not isinstance(exact_twins, bool):
        raise SolverInputError(f"bad exact_twins {exact_twins!r}: expected True or False")
    if exact_twins and rules.max_passes is not None and rules.max_passes > 64:
        raise SolverInputError(
            f"exact_twins needs max_passes <= 64 or None (the key has 6 bits for recycles), got {rules.max_passes}")
    talon_places = talon_index(root)
    capacity = table_capacity(memory_limit_mb, node_limit)
    key_flags = (KEY_LIMITED if rules.max_passes is not None else 0) | (KEY_EXACT_TWINS if exact_twins else 0)
    if progress is not None and not callable(progress):
        raise SolverInputError(f"bad progress={progress!r}: expected a callable (nodes, table_fill) or None")
    if not isinstance(actions, bool):
        raise SolverInputError(f"bad actions {actions!r}: expected True or False")
    if not isinstance(by_class, bool):
        raise SolverInputError(f"bad by_class {by_class!r}: expected True or False")
    if threads not in (1, 2) or isinstance(threads, bool):
        raise SolverInputError(f"bad threads={threads!r}: expected 1 or 2")
    if by_class and not exact_twins and rules.empty_column == "king":
        key_flags |= KEY_CLASSES  # the depth-first searches (complete and probes) over classes
    table = table_for(capacity)
    # with threads=2 the class search runs on both threads (Sharer)
    shared = (table.next_epoch(SHARED_EPOCHS), 1) if threads == 2 and key_flags & KEY_CLASSES else None
    complete = DepthFirst(root, rules_array, talon_places, key_flags, table, capacity, seed=0, shared=shared)
    helpers = Helpers(root, rules_array, talon_places, key_flags, memory_limit_mb)
    main = None  # the main thread's part of the class search with threads=2
    if shared is not None:
        main, helpers.partner = Sharer(1, complete, complete), Sharer(2, complete)
    deadline = None if time_limit is None else started + time_limit
    helpers_beside = None  # the thread running the helpers beside the complete search (threads=2)
    stop = threading.Event() if threads == 2 else None  # tells the thread beside to end
    chunk = 4096
    stopped_by = None
    decider = complete if complete.result in (WON, EXHAUSTED) else None  # the search that decided
    table_stop = int(capacity * MAX_FILL)  # where the complete search's table counts as full
    try:
        while decider is None:
            used = main_nodes(complete, main) + helpers.nodes
            if progress is not None:
                progress(used, _table_entries(complete, main, helpers) / table_stop)
            stopped_by = spent_budget(used, node_limit, deadline)
            if stopped_by is not None:
                break
            if helpers.decider is not None:  # won or proved by the thread beside
                decider = helpers.decider
                break
            if helpers.error is not None:
                break  # raised below
            step = next_step(chunk, used, node_limit)
            chunk = min(chunk * 2, 1 << 18)
            helpers_join = complete.nodes >= probe_after and memory_limit_mb >= 1
            turn = "complete"
            if helpers_join and threads == 2:
                if helpers_beside is None:
                    helpers_beside = threading.Thread(
                        target=helpers.race, args=(complete, main, stop, node_limit, deadline, best_after),
                        daemon=True)
                    helpers_beside.start()
                step = min(step, RACE_CHUNK)  # notice the helpers' verdict soon
            elif helpers_join:
                # whose turn: the search furthest behind its share (the complete search 1, the
                # best-first search BEST_SHARE from best_after on until its memory is full, the
                # probes PROBE_SHARE together); ties go to the complete search
                shares = [(complete.nodes, 0, "complete", 1.0),
                          (helpers.probes_used / PROBE_SHARE, 2, "probes", PROBE_SHARE)]
                if complete.nodes >= best_after and helpers.best_open:
                    shares.append((helpers.best_used / BEST_SHARE, 1, "best", BEST_SHARE))
                    # with three searches, turns no longer than it takes to catch up with the next
                    # (the doubling chunks would otherwise leave the best-first search no budget)
                    shares.sort()
                    catch_up = (shares[1][0] - shares[0][0]) * shares[0][3]
                    step = min(step, max(4096, int(catch_up) + 1))
                turn = min(shares)[2]
            if turn != "complete":
                helpers.run(turn, step)
                decider = helpers.decider
                continue
            if main is not None:
                partner = helpers.partner
                if not main.run(step, partner):  # waiting for a class from the partner
                    if partner.done and main.done:  # (in this order: Sharer)
                        decider = complete  # exhausted, and so is every search after it
                        break
                    time.sleep(0.001)
                if main.winner is not None:
                    decider = main.winner
                elif main.full or partner.full:
                    stopped_by = "memory"
                    break
                continue
            complete.run(step)
            if complete.result == FULL:
                stopped_by = "memory"
                break
            if complete.result != RUNNING:
                decider = complete
    finally:
        if helpers_beside is not None:
            stop.set()
            helpers_beside.join()
    if helpers.error is not None:
        raise helpers.error
    nodes = main_nodes(complete, main) + helpers.nodes
    cut = main is not None and (main.cut or helpers.partner.cut)

    line: list[int] = []
    if decider is not None and decider.result == WON:
        line = decider.solution() if actions else []
        status = SolveStatus.SOLVED
    elif decider is not None and not decider.cut and not cut:
        status = SolveStatus.UNSOLVABLE
    else:
        status = SolveStatus.UNKNOWN
        if decider is not None:
            stopped_by = "depth"  # exhausted, but with lines cut at the depth cap
    return SolveResult(
        status=status,
        actions=line,
        nodes=nodes,
        seconds=time.perf_counter() - started,
        stopped_by=stopped_by,
        table_mb=_table_entries(complete, main, helpers) * ENTRY_BYTES / 2**20 + helpers.memory_mb,
    )


def _table_entries(complete: DepthFirst, main: Sharer | None, helpers: Helpers) -> int:
    """Entries of the complete search's table in use (with the class search on two threads, by
    both threads' searches)."""
    return (main.entries + helpers.partner.entries) if main is not None else complete.entries
