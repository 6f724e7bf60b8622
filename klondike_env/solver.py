"""An exact solver for Thoughtful Klondike (every card known), on the compiled rules core.

``solve(game_or_deck)`` decides whether a position can be won and, when it can, returns the
env action ids (draws and recycles included) that win it from that position.

The search
----------
**Classes first** (session 17). With the king-only empty-column rule (the default) the complete
depth-first search and the probes below search *classes* of positions, not positions: a class
forgets where the face-up tableau cards lie (which holder each card is on, how the runs are cut)
and keeps only what cannot move without changing it -- each column's face-down count, the
foundations and the talon. Its moves are defined on classes, and ``klondike_env/quotient_search.py``
proves that the won class is reachable exactly when a winning line is (no twin-swap argument
needed) and turns a class line back into env actions. Lost deals shrink most: deal 1, lost,
took 79.4M positions and is proved with 7.6M classes. ``solve(..., by_class=False)`` keeps the
position search described next, which also serves ``empty_column="any"`` (where any card may
start a column, which the classes do not describe), ``exact_twins=True`` and the best-first
search.

Depth-first search over positions, with a transposition table of every position already
generated: when a position is expanded all its successors are built and looked up at once (the
CPU is asked to fetch their table entries first, so the look-ups overlap instead of each
waiting for memory), and those that were new are expanded when the search comes back to them;
every entry is expanded by the position that generated it, so the search stays complete. Every
rule is applied through :mod:`klondike_env.core` (``legal``-style checks
``fits_foundation``/``fits_column``/``run_start`` and ``apply_action``); this module only
chooses which moves to try and in what order.

* **Talon macro moves.** Draws and recycles only move the waste boundary and commute with
  every tableau and foundation move, so a winning line can always be reordered to draw just
  before it plays from the waste. One search move therefore plays any talon card that
  draws (and at most one recycle -- after a recycle the reachable tops are the same set
  whatever came before) can bring to the waste top, and records those draws. When a top can be
  reached with or without a recycle the search takes the way without: with limited passes a
  position with more passes left wins whenever the other does (every line legal from it is
  legal with an extra pass in hand), and with unlimited passes the two are the same position.
* **Transposition table** keyed on an exact canonical encoding (no hashing of the key itself):
  a column that still has face-down cards keeps its index (those cards never move, so the
  index names them); the columns without face-down cards are interchangeable and are sorted.
  A column is (face-down count, head of its face-up run, run length); the talon is the set of
  the root's talon cards still there (its order never changes) plus the waste boundary; then
  the foundation heights, and the recycle count only when passes are limited (with unlimited
  passes it cannot change what is possible). Depth-first search with a global visited set is
  complete for reachability, so an exhaustive search that finds no win proves the position
  lost. One caveat on "exact": a face-up run is fixed by its head and length only up to which
  of two same-colour twins (say 8S and 8C) lies in which run, so the key merges positions that
  differ by swapping twins that both lie in face-up runs, neither of them a head (heads are in
  the key). *Such a swap never changes whether a position can be won* (proved in session 16;
  lonelybot's notes call the general claim the twin-swap theorem). Proof: let ``X``, ``X'`` be
  the twins (rank ``r``). Each lies on a face-up card of rank ``r + 1`` of the other colour,
  and stays so until one of them goes home: a run headed by ``X`` moves only onto such a card
  (``X`` is no king, so a king-only empty column refuses it, and with ``empty_column="any"``
  a move to an empty column takes the column's whole face-up run, the card under ``X`` too).
  Take a line ``L`` that wins from ``P`` and play its moves from ``P'`` (``P`` with ``X`` and
  ``X'`` exchanged). Legality in the tableau reads only ranks and colours, and the
  foundations, talon and face-down cards are the same, so the two stay equal up to the
  exchange -- until ``L`` sends one twin home, say ``X`` from the top of column ``c``, where it
  lies on ``Z``, while ``X'`` lies on ``Z'`` in column ``d`` under a run ``R`` (maybe empty).
  From ``P'`` then: ``R`` onto ``X'`` (the top of ``c``; what fits ``X`` fits its twin), ``X``
  home (same foundation), the run ``X' R`` from ``Z`` onto ``Z'`` (now uncovered): this is
  exactly ``L``'s position, and ``L``'s remaining moves win. Not proved: that a search which
  expands one stored position per key finds a win whenever one exists. Winnability being a
  function of the key does not give that alone: the shape to fear is ``X`` next on its
  foundation but not safe to auto-play, covered in the stored position of its key while ``X'``
  lies uncovered, and the same in the key that moving ``R`` onto ``X'`` leads to (already
  seen, so not expanded); ``X`` then never goes home from a stored position. A lost verdict
  could only be wrong if every other line failed too; the check below never met one. (Heads
  must stay in the key: ``8S`` alone on face-down cards with spades at 7 goes home and turns a
  card up; ``8C`` in its place with clubs at 3 and the clubs 4-7 face down under it may never
  move.) ``solve(..., exact_twins=True)`` keeps such positions apart (a key bit per merged
  pair of twins) so that the merge can be checked: ``tests/test_solver.py`` compares the two
  keys' verdicts on random positions, and ``python -m klondike_env.solver_examples
  --twin-check N`` does so at scale (README "The solver"). Checked before that (session 5, a
  throwaway key of the same kind): the 273 deals of 1-2000 this key proves lost, searched
  again with the twins told apart (four times the nodes, at least 200,000): 251 proved lost
  again, 22 ran out of budget, none won. The table is bounded: when it is full the answer is
  ``UNKNOWN``, never a crash.
* **Safe foundation auto-play** (the only pruning that is not a pure symmetry). A tableau
  card ``x`` of rank ``r`` that fits its foundation is played there at once when both
  foundations of the other colour are at least ``r - 1`` high and the other foundation of
  ``x``'s colour is at least ``r - 2`` high. Proof that this never loses a win: call *low* the
  cards ``x``, the card of ``x``'s suit one rank down, every other-colour card of rank
  ``<= r - 1`` and every same-colour card of rank ``<= r - 2`` (all on foundations after the
  move, so each suit's low cards are a prefix of it). Only a low card can ever be placed on a
  low card, so low cards in the tableau always form the tails of columns. Take any winning line
  ``L`` from the position before the move and map each of its positions to "the same, with
  every low tableau card on its foundation (and a column's new last card face up)". Every move
  of ``L`` that moves a low card maps to no move; every other move of ``L`` maps to the same
  move, still legal: its destination is never a low card, the talon is identical (low cards are
  never in the talon), and a non-low foundation top or next foundation card is unchanged. The
  mapped line ends with every card home, so the position after the auto-play is won too, by a
  line no longer. The rule is applied only to tableau cards: removing a waste card shifts the
  draw-3 groups, so a waste card to its foundation stays an ordinary move.
* **Boundaries off the draw grid** (unlimited passes). The waste boundaries ``0``, multiples
  of the draw count, and the talon's length lead to one another by draws and recycles alone,
  so the key stores them all as ``0``. A position whose boundary ``b`` is off that grid reaches,
  by draws alone, the same position at ``b + draw``, ``b + 2 draw``, ... and then the grid:
  each of those has a subset of its moves (to the same successors), so when it is expanded they
  are marked as seen too. Depth-first search stays complete, since every successor of a marked
  position is a successor of the expanded one. Conversely (session 18), when one of those
  later boundaries ``b'`` was in the table already, the talon moves they share -- the tops at
  ``b'`` and after on this pass, and every top after a recycle -- lead from both to the same
  successors (a successor's boundary is where its card lay), which that entry's expansion (or
  the one that marked it) generates, so the position at ``b`` drops them and keeps its other
  moves. (That expansion may have dropped some of them in turn, but only for an entry inserted
  before it: by induction on the order of insertion, some expansion generates each.)
* **Symmetries skipped** (each yields a position equal to one already generated): of several
  empty columns only the first is a destination, and a whole column without face-down cards is
  never moved onto an empty column (a column permutation). A foundation card that the safe
  auto-play rule would send straight back is never worried back: after the auto-play the child
  is its parent again (the rule reads only the other suits' foundations, and lowering one suit
  makes no other card fit or safe).

* **Cards stuck for good** (checked at the root; with the king-only empty-column rule). Call
  *candidates* the cards that are face down or head their column's face-up run, and (since
  session 13) every talon card. Start with every candidate marked and repeatedly unmark a
  marked card ``x`` that has a way out no marked card blocks: ``x`` can get out of its place --
  in a column, no marked card lies above it; in the talon, draws alone bring it to the waste
  top now, or some talon card is unmarked already -- and either (foundation) no lower card of
  ``x``'s suit is marked or lies beneath ``x``, or (holder) one of the two cards that could hold
  ``x`` (the other colour, one rank up) is on a foundation (unless worrying back is forbidden),
  or unmarked in the talon, or lies in a column, not beneath ``x``, with no marked card above
  it, or (empty column, kings only) another column holds no marked card. If a card stays marked
  the position is lost. Proof: take any line of play and the first move in which a marked card
  ``x`` leaves its place. Until then every marked card is where it was. In a column ``x`` must
  be uncovered, so no marked card was above it; in the talon it must be the waste top, and a
  talon card's index changes only when a talon card below it leaves and the waste top changes
  only by draws, recycles and talon cards leaving -- so if no other talon card left, ``x`` was
  reachable by draws from the start, and one that left was unmarked. It goes to its
  foundation, so every lower card of its suit went home before, none of them marked (they
  would have left first) and none beneath ``x`` (those cannot move while ``x`` covers them);
  or it goes onto a holder, which must be a column's last card then: not beneath ``x``, and
  uncovered, so no marked card above it -- or it came back from a foundation, or it left the
  talon before (so it is unmarked); or, a king, it goes to an empty column, another one, all of
  whose cards have left before it, so none of them was marked. Either way ``x`` has an
  unblocked way out, so it was unmarked: a contradiction. So marked cards never leave, and the
  game is never won. The argument holds at any position, but only the root is checked: asked at
  every new position it pruned almost nothing and doubled the time (sessions 11 and 13,
  docs/speed.md "Solver"). (This generalises a card with a lower card of its suit and both holders
  beneath it, and it also catches deadlocks across columns, e.g. ``QD`` over ``KS`` over
  ``JD`` beside ``QH`` over ``KC`` over ``JH``, kings that wait for an empty column while every
  other column holds a stuck card, and talon cards that draw-3 never reaches because the one
  card it does reach can never be played.)
* **Probes** (restarts; no pruning). Once the complete search has expanded ``PROBE_AFTER``
  positions (``solve``'s ``probe_after``), depth-first searches from the root in a shuffled move
  order (each move's score gets a pseudo-random amount drawn from the position's key and the
  probe's seed, so runs are reproducible) take turns with it, on a table of their own, each with
  a node budget along the Luby sequence, and together at most ``PROBE_SHARE`` times the nodes
  the complete search has used (with ``threads=2`` the probes and the best-first search below
  run on a second thread instead, sharing it in the proportion of their shares with the
  partner of the complete search, below, as long as the complete search runs). Search costs are heavy-tailed: a winnable deal whose win the
  fixed order puts behind a huge lost subtree is often won quickly in another order. Soundness:
  a probe is the same search in a different order, so a win it finds is a legal line (replayed
  like any other), and a probe that exhausts its search has visited every reachable position and
  proves the position lost exactly as the complete search would; a probe stopped by its budget
  proves nothing and is dropped.
* **Best-first search** (no pruning). Once the complete search has expanded ``BEST_AFTER``
  positions (``best_after``), a third search from the root takes turns with it and the probes:
  it keeps every generated position (in a table of its own) and always expands the stored
  position with the smallest sum, as weighted A* does, of an estimate of what is left -- the
  cards not yet home plus twice the tableau cards buried under a higher card of their own suit
  -- and half the search moves that reached it from the root; ties go to the move generator's
  order, then to the newest position. (Ordering by the estimate alone, as before session 9,
  dives into long lines; counting every move, as A* does, spreads too wide for the store:
  docs/speed.md "Solver".) A position reached again by a shorter line is not reopened, so solutions are not
  shortest. Depth-first and best-first orders get stuck in different deals, and search costs are
  heavy-tailed, so running both can cost less than either alone (docs/speed.md, "Solver"). Soundness as
  for the probes: its win is a replayed line, and when its queue empties it has expanded every
  position reachable from the root (each successor is stored unless its key was stored already),
  a proof of loss like the complete search's. It works in ``BEST_MEMORY_SHARE`` of the memory
  limit: a generated position waits in the queue as its parent and the move from it (16 bytes);
  only the positions it expands are stored, packed into ``PACKED_SIZE`` bytes, and each is
  rebuilt from its parent when its turn comes (since session 12: at the default 512 MB it holds
  3.1M generated positions, 1.25M of them expanded, where full copies of each held 0.99M). When
  table, queue or store is full it stops and proves nothing.

* **The class search on two threads** (``threads=2``, session 19). The complete search over
  classes (``klondike_env/quotient_search.py``) runs on the main thread and a *partner* on the
  second one, over the same table (the probes and the best-first search take a share of the
  partner's thread, ``PARTNER_SHARE``). A thread without work asks the other, which hands over
  the shallowest class waiting on its stack to be expanded (``_DepthFirst.hand_over``) and
  forgets it; the receiver claims it and searches from it. Table entries are written with
  atomic operations (a compare-and-swap claims a free slot before its key is written; the
  stamp that makes it visible is written last) and stamped with who still has to expand them:
  a search that meets a class waiting for the other's expansion takes it as new too, and
  whichever comes back to it first claims it (compare-and-swap) and expands it, the other skips
  it. Soundness: a winning line found by either thread is the line to the class it started
  from plus its stack, realized and replayed like any other. Every entry stamped "waiting" is
  on a stack, handed over, or claimed and expanded, so once neither thread has a search or a
  class handed over, every class in the table was expanded (or is a boundary marked for one
  that was): the same closed set a single search leaves, a proof of loss. A thread hands a class
  over only while it searches, so reading the other thread's state first and then its own
  cannot miss one in flight (``_Sharer``). A search stopped by a full table, or a line cut at
  the depth cap, in either thread leaves the verdict ``UNKNOWN``.

Foundation-to-tableau moves ("worrying back") are kept: Blake & Gent (JAIR) show the
Klondike-Solver rule that forbids them right after a foundation move gives wrong "unwinnable"
verdicts. Nothing else is pruned.

Budgets: ``node_limit`` (positions expanded), ``time_limit`` (seconds, checked between chunks
of search) and ``memory_limit_mb`` (the table size; on top of it the probes' table takes up
to a quarter of it and the best-first search up to half). A search stopped by any of them, or by the
depth cap of the stack, answers ``UNKNOWN``; ``UNSOLVABLE`` means the search was exhaustive.
"""

from __future__ import annotations

import csv
import enum
import threading
import time
from dataclasses import dataclass, field

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from klondike_env import core
from klondike_env.cards import check_deal, deal_deck, parse_deck
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
    KING,
    RECYCLE,
    RECYCLES,
    RULE_DRAW_COUNT,
    RULE_FOUNDATION_TO_TABLEAU,
    STATE_SIZE,
    TABLEAU,
    TALON,
    TALON_LENGTH,
    WASTE_LENGTH,
    WASTE_TO_COLUMN,
    WASTE_TO_FOUNDATION,
)
from klondike_env.rules import Rules

DEFAULT_MEMORY_MB = 512
MAX_DEPTH = 2000  # search moves on one line; deeper lines are cut (and the answer is UNKNOWN)
MAX_MOVES = 192  # moves generated at one position (at most ~150 are possible)
KEY_WORDS = 3
ENTRY_WORDS = 4  # the key words and the epoch stamp, side by side: one cache line per probe
ENTRY_BYTES = ENTRY_WORDS * 8
MAX_FILL = 0.75  # table load at which the search stops with UNKNOWN (memory)
# the searches' key flags: limited passes; record which twin lies where (_position_key); search
# classes of positions (klondike_env/quotient_search.py) instead of positions
KEY_LIMITED, KEY_EXACT_TWINS, KEY_CLASSES = 1, 2, 4

# A search move packs the env action with the draws (and recycle) that bring its card up.
_ACTION_MASK = 127
_BEFORE_SHIFT = 7
_RECYCLE_SHIFT = 12
_AFTER_SHIFT = 13
_COUNT_MASK = 31

# ctrl array of a running search
_DEPTH, _NODES, _RESULT, _ENTRIES, _CUT = 0, 1, 2, 3, 4
_RUNNING, _WON, _EXHAUSTED, _FULL = 0, 1, 2, 3


class SolveStatus(str, enum.Enum):
    SOLVED = "SOLVED"
    UNSOLVABLE = "UNSOLVABLE"
    UNKNOWN = "UNKNOWN"

    def __str__(self) -> str:
        return self.value


@dataclass
class SolveResult:
    """The verdict on one position.

    ``actions`` (only when SOLVED) replay with ``Game.step`` from the solved position to a
    win. ``stopped_by`` names the budget that ran out (``"nodes"``, ``"time"``, ``"memory"``,
    ``"depth"``) when the status is UNKNOWN, else ``None``. ``nodes`` counts what the searches
    expanded: classes of positions for the class searches, positions for the others
    (``solve``'s ``node_limit`` counts the same). ``table_mb`` is the memory the
    transposition tables' used entries take, plus the best-first search's stored positions
    (the peak, since entries are never freed).
    """

    status: SolveStatus
    actions: list[int] = field(default_factory=list)
    nodes: int = 0
    seconds: float = 0.0
    stopped_by: str | None = None
    table_mb: float = 0.0


# The columns of a sweep / verdict CSV (scripts/solve.py --csv; klondike_env/data/verdicts/*.csv).
VERDICT_FIELDS = ("deal", "status", "solution_length", "nodes", "seconds", "stopped_by")


def read_verdict_rows(path) -> dict[int, dict[str, str]]:
    """Each deal's row (a dict by column) of a sweep CSV; a deal's last row counts. A file
    without ``deal`` and ``status`` columns, or with a status other than ``SOLVED``,
    ``UNSOLVABLE`` and ``UNKNOWN``, is a ``ValueError`` naming it."""
    known = {status.value for status in SolveStatus}
    rows: dict[int, dict[str, str]] = {}
    try:
        with open(path, newline="") as handle:
            reader = csv.DictReader(handle)
            if not {"deal", "status"} <= set(reader.fieldnames or ()):
                raise ValueError(f"bad sweep CSV {path}: it needs the columns deal and status "
                                 f"(scripts/solve.py --csv writes {','.join(VERDICT_FIELDS)})")
            for row in reader:
                if row["status"] not in known:
                    raise ValueError(f"bad sweep CSV {path}: status {row['status']!r} for deal {row['deal']} "
                                     f"is not one of SOLVED, UNSOLVABLE, UNKNOWN")
                try:
                    rows[int(row["deal"])] = row
                except ValueError:
                    raise ValueError(f"bad sweep CSV {path} line {reader.line_num}: deal {row['deal']!r} "
                                     "is not a deal number") from None
    except OSError as error:
        raise ValueError(f"cannot read sweep CSV {path}: {error.strerror}") from None
    except UnicodeDecodeError:
        raise ValueError(f"bad sweep CSV {path}: not a text file (scripts/solve.py --csv writes "
                         f"{','.join(VERDICT_FIELDS)})") from None
    return rows


def read_verdicts(path) -> dict[int, str]:
    """Each deal's status (``SOLVED``, ``UNSOLVABLE`` or ``UNKNOWN``) in a sweep CSV
    (:func:`read_verdict_rows`)."""
    return {deal: row["status"] for deal, row in read_verdict_rows(path).items()}


class SolverInputError(ValueError):
    """A bad argument to :func:`solve`."""


# --- compiled search ------------------------------------------------------------
@njit(cache=True, inline="always")
def _safe_to_foundation(state, card):
    """The auto-play rule proved in the module docstring (clubs/spades = suits 0/3)."""
    rank = card % NUM_RANKS + 1
    suit = card // NUM_RANKS
    if suit == 1 or suit == 2:
        other_low = min(state[FOUNDATION + 0], state[FOUNDATION + 3])
    else:
        other_low = min(state[FOUNDATION + 1], state[FOUNDATION + 2])
    return other_low >= rank - 1 and state[FOUNDATION + 3 - suit] >= rank - 2


@njit(cache=True, inline="always")
def _play(state, rules, action, out, count):
    """Apply one env action through the core; append it to ``out`` (when it has room)."""
    core.apply_action(state, rules, action)
    if count < out.shape[0]:
        out[count] = action
    return count + 1


@njit(cache=True)
def _auto_play(state, rules, out, count):
    """Play every safe tableau card to its foundation; append the actions to ``out``."""
    moved = True
    while moved:
        moved = False
        for col in range(NUM_COLUMNS):
            card = core.column_top(state, col)
            if card >= 0 and core.fits_foundation(state, card) and _safe_to_foundation(state, card):
                count = _play(state, rules, COLUMN_TO_FOUNDATION + col, out, count)
                moved = True
    return count


@njit(cache=True)
def play_recipe(state, rules, move, out, count):
    """Play the draws and recycle a search move (of either search) packs; append them to ``out``."""
    for _ in range((move >> _BEFORE_SHIFT) & _COUNT_MASK):
        count = _play(state, rules, DRAW, out, count)
    if (move >> _RECYCLE_SHIFT) & 1:
        count = _play(state, rules, RECYCLE, out, count)
    for _ in range((move >> _AFTER_SHIFT) & _COUNT_MASK):
        count = _play(state, rules, DRAW, out, count)
    return count


@njit(cache=True)
def _apply_move(state, rules, move, out, count):
    """Play one search move (its draws, recycle and card move); append the actions to ``out``."""
    count = play_recipe(state, rules, move, out, count)
    return _play(state, rules, move & _ACTION_MASK, out, count)


@njit(cache=True, inline="always")
def _add_move(moves, scores, count, move, score):
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
def _talon_walk_start(state, rules, reached):
    """``(draw_count, forward, total)`` of :func:`core.talon_walk` from here, ``reached`` cleared."""
    draw_count = rules[RULE_DRAW_COUNT]
    forward, total = core.talon_walk(state, draw_count, core.recycle_allowed(state, rules))
    reached[:] = 0
    return draw_count, forward, total


@njit(cache=True, inline="always")
def _talon_step(state, draw_count, forward, step, reached):
    """Step ``step`` of the talon walk as a search move's recipe: ``(boundary, recipe, cost)``,
    the waste length it reaches (0 when nothing new: an empty waste or a length reached by a
    shorter way), the packed draws and recycle, and their number of actions."""
    boundary = core.talon_walk_length(state, draw_count, forward, step)
    if boundary == 0 or reached[boundary] == 1:
        return 0, 0, 0
    reached[boundary] = 1
    if step < forward:
        return boundary, step << _BEFORE_SHIFT, step
    before, after = forward - 1, step - forward + 1  # to the end of the talon, the recycle, draws again
    return boundary, (before << _BEFORE_SHIFT) | (1 << _RECYCLE_SHIFT) | (after << _AFTER_SHIFT), before + 1 + after


@njit(cache=True)
def _generate_moves(state, rules, moves, scores, reached):
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
            count = _add_move(moves, scores, count, COLUMN_TO_FOUNDATION + col, 300)
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
            count = _add_move(moves, scores, count, core.column_action(source, dest), score)
    # talon cards reachable by draws (and at most one recycle), each by its shortest way
    if state[TALON_LENGTH] > 0:
        draw_count, forward, total = _talon_walk_start(state, rules, reached)
        for step in range(total):
            boundary, recipe, cost = _talon_step(state, draw_count, forward, step, reached)
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
            if (any_accepts >> card) & 1 == 0 or _safe_to_foundation(state, card):
                continue  # nowhere to go, or auto-play would send it straight back
            for col in range(NUM_COLUMNS):
                if state[COLUMN_LENGTH + col] == 0 and col != first_empty:
                    continue
                if (accepts[col] >> card) & 1:
                    count = _add_move(moves, scores, count, FOUNDATION_TO_COLUMN + NUM_COLUMNS * suit + col, 100)
    return count


@njit(cache=True)
def _add_talon_moves(state, rules, moves, scores, count, boundary, first_empty, any_accepts, recipe, cost):
    """Moves of the talon card that ``recipe``'s draws bring to the waste top (boundary)."""
    card = state[TALON + boundary - 1]
    if core.fits_foundation(state, card):
        count = _add_move(moves, scores, count, recipe | WASTE_TO_FOUNDATION, 300 - cost)
    if (any_accepts >> card) & 1 == 0:
        return count
    for col in range(NUM_COLUMNS):
        if state[COLUMN_LENGTH + col] == 0 and col != first_empty:
            continue
        if core.fits_column(state, rules, card, col):
            count = _add_move(moves, scores, count, recipe | (WASTE_TO_COLUMN + col), 600 - cost)
    return count


@njit(cache=True)
def _position_key(state, rules, talon_index, limited, key, values, free):
    """The exact canonical key (module docstring) in ``key[0:3]`` (``values``, ``free``: scratch).

    The searches call it through :func:`_search_key`, which adds the twins' bits when asked.
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
def _key_modes(key_flags):
    """``key_flags`` as (limited passes, exact twins); the searches read it once, not per key.
    (``KEY_CLASSES`` is read by ``_DepthFirst``, which hands the kernels a class layout.)"""
    return key_flags & KEY_LIMITED != 0, key_flags & KEY_EXACT_TWINS != 0


@njit(cache=True, inline="always")
def _search_key(state, rules, talon_index, limited, exact_twins, key, values, free):
    """The key a search stores: :func:`_position_key`, plus :func:`_twin_bits` in ``key[2]`` with
    ``solve(..., exact_twins=True)``. (Kept apart so that ``_position_key`` stays the small plain
    key; whether that matters for speed is below this VM's run-to-run noise, about 15%.)"""
    _position_key(state, rules, talon_index, limited, key, values, free)
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
def _mix(key):
    h = np.uint64(key[0]) * np.uint64(0x9E3779B97F4A7C15)
    h ^= np.uint64(key[1]) + np.uint64(0xBF58476D1CE4E5B9) + (h << np.uint64(6)) + (h >> np.uint64(2))
    h ^= np.uint64(key[2]) + np.uint64(0x94D049BB133111EB) + (h << np.uint64(6)) + (h >> np.uint64(2))
    h ^= h >> np.uint64(31)
    h *= np.uint64(0xD6E8FEB86659FD93)
    h ^= h >> np.uint64(32)
    return h


def _entry_pointer(context, builder, signature, args, word=KEY_WORDS):
    """For the intrinsics below (arguments ``table, slot, ...``): a pointer to ``table[slot, word]``,
    by default the entry's epoch word."""
    table_type, slot_type = signature.args[0], signature.args[1]
    array = context.make_array(table_type)(context, builder, args[0])
    row = context.cast(builder, args[1], slot_type, types.intp)
    return cgutils.get_item_pointer(context, builder, table_type, array,
                                    [row, context.get_constant(types.intp, word)])


@intrinsic
def _prefetch_entry(typingctx, table, slot):
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


@njit(cache=True)
def _table_insert(table, epoch, key):
    """1 if ``key`` was new (now stored), 0 if present, -1 if no free slot was found.

    An entry is the key's words then the epoch that wrote it; an older epoch's entry is free.
    """
    mask = np.uint64(table.shape[0] - 1)
    index = _mix(key) & mask
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
def _shared_insert(table, epoch, key, word):
    """:func:`_table_insert` on a shared table, stamping a new entry ``word``: ``(1, slot)`` if
    ``key`` was new, ``(0, slot)`` if present and stamped ``epoch`` or ``word``, ``(2, slot)`` if
    present and waiting for the other search's expansion, ``(-1, 0)`` if no free slot was found."""
    mask = np.uint64(table.shape[0] - 1)
    index = _mix(key) & mask
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
def _insert(table, epoch, key, word, shared):
    """Insert in a search's table: :func:`_shared_insert` (stamping ``word``) when ``shared``,
    else :func:`_table_insert` (slot -1)."""
    if shared:
        return _shared_insert(table, epoch, key, word)
    return _table_insert(table, epoch, key), np.int64(-1)


@njit(cache=True)
def _claim(table, epoch, slot):
    """Whether this search may expand the shared entry at ``slot`` (it was waiting for an
    expansion, and is now stamped ``epoch``); False when the other search claimed it first."""
    while True:
        found = _load_epoch(table, slot)
        if found == epoch:
            return False
        if _swap_epoch(table, slot, found, epoch) == found:
            return True


# _stuck_for_good's "column" of a card that is not in the tableau
_ON_FOUNDATION = -1
_IN_TALON = -2


@njit(cache=True)
def _stuck_for_good(state, rules):
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


@njit(cache=True)
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


@njit(cache=True)
def _shuffle_moves(moves, scores, count, key, seed, spread):
    """Re-rank the moves of a probe: add to each score a pseudo-random amount below ``spread``,
    drawn from the position's key and the probe's seed (reproducible), and sort again."""
    noise = _mix(key) ^ np.uint64(seed)
    for i in range(count):
        noise ^= noise >> np.uint64(29)
        noise *= np.uint64(0xBF58476D1CE4E5B9)
        noise ^= noise >> np.uint64(32)
        scores[i] += np.int32(noise % np.uint64(spread))
    for i in range(1, count):  # insertion sort: re-insert each move among the ones before it
        _add_move(moves, scores, i, moves[i], scores[i])


# The depth-first searches (complete and probes) run one kernel over positions or over classes
# of positions; these three are where the two differ. ``layout`` is a class search's
# (column_cards, down_masks, card_place) from quotient_search.root_class, and None for a
# position search: numba compiles the kernels once for each and drops the other branch.
# (The kernel shared this way ran the class search ~10% slower than a copy of the loop of its
# own in session 17's interleaved runs, docs/speed.md "Solver"; kept for one kernel.)
@njit(cache=True, inline="always")
def _node_key(state, rules, talon_index, limited, exact_twins, layout, key, values, free):
    if layout is None:
        _search_key(state, rules, talon_index, limited, exact_twins, key, values, free)
    else:
        quotient_search.class_key(state, rules, limited, key)


@njit(cache=True, inline="always")
def _node_child(parent, child, rules, move, layout, no_record):
    """``child`` = ``parent`` after search move ``move`` and the safe auto-play."""
    if layout is None:
        child[:] = parent
        _apply_move(child, rules, move, no_record, 0)
        _auto_play(child, rules, no_record, 0)
    else:
        quotient_search.copy_class(parent, child)
        quotient_search.apply_class_move(child, rules, layout[0], layout[2], move)


@njit(cache=True, inline="always")
def _node_moves(state, rules, layout, moves, scores, reached):
    if layout is None:
        return _generate_moves(state, rules, moves, scores, reached)
    return quotient_search.generate_class_moves(state, rules, layout[0], layout[1], moves, scores, reached)


@njit(cache=True)
def _insert_root(state, rules, talon_index, key_flags, table, epoch, layout, shared=False):
    """Put a search's root position in its table (empty, or shared: stamped expanded); returns
    the root's key."""
    key = np.empty(KEY_WORDS, np.int64)
    scratch = np.empty(2 * NUM_COLUMNS, np.int64)
    limited, exact_twins = _key_modes(key_flags)
    _node_key(state, rules, talon_index, limited, exact_twins, layout, key, scratch[:NUM_COLUMNS],
              scratch[NUM_COLUMNS:])
    _insert(table, epoch, key, epoch, shared)
    return key


@njit(cache=True)
def _start(root, rules, states, moves, scores, move_counts, move_next, fresh, claims, ctrl, talon_index, key_flags,
           table, epoch, owner, entry_stop, mark_stop, seed, spread, layout):
    """Set up a depth-first search from ``root``: a position already auto-played and checked for
    cards stuck for good (``_DepthFirst``), or (with a ``layout``) the class of one. ``owner``:
    0 for a table of its own, else the search's number on a shared table (:func:`_search`)."""
    state = states[0]
    state[:] = root
    ctrl[:] = 0
    if core.is_won(state):
        ctrl[_RESULT] = _WON
        return
    key = _insert_root(state, rules, talon_index, key_flags, table, epoch, layout, owner != 0)
    ctrl[_ENTRIES] = 1
    ctrl[_NODES] = 1
    move_counts[0] = _node_moves(state, rules, layout, moves[0], scores[0], np.empty(core.TALON_SLOTS + 1, np.uint8))
    if seed != 0:
        _shuffle_moves(moves[0], scores[0], move_counts[0], key, seed, spread)
    move_next[0] = 0
    _search(rules, states, moves, scores, move_counts, move_next, fresh, claims, ctrl, talon_index, key_flags, table,
            epoch, owner, 1, entry_stop, mark_stop, seed, spread, layout, True)  # the root's successors, no expansion


@njit(cache=True, nogil=True)
def _search(rules, states, moves, scores, move_counts, move_next, fresh, claims, ctrl, talon_index, key_flags,
            table, epoch, owner, node_stop, entry_stop, mark_stop, seed, spread, layout, successors_pending=False):
    """Run the depth-first search until a win, exhaustion, or ``node_stop`` nodes (resumable).
    ``successors_pending``: the position at the current depth is expanded but its successors
    are not looked up yet (the root, from ``_start``).

    A position's successors are all built and looked up in the table when it is expanded, and
    those that were new are expanded in turn when the search comes back to them (``fresh``):
    the look-ups of one position's successors then overlap in memory instead of waiting one by
    one (docs/speed.md "Solver", session 18). A successor marked as seen that way is expanded
    later by the position that generated it, so the search stays complete.

    Two searches may share a table (``owner`` 1 and 2; 0: a table of its own). A new entry is
    then stamped as waiting for its inserter's expansion; a search that meets an entry waiting
    for the other's takes it as new too, and whichever comes back to it first claims it
    (``claims``: its slot) and expands it, the other skips it. Every entry stamped waiting is
    claimed by one of them, so once both are exhausted every class in the table was expanded or
    marked (``_mark_later_boundaries``), as with one search.
    """
    limited, exact_twins = _key_modes(key_flags)
    shared = owner != 0
    word = epoch + owner  # the stamp of this search's new entries
    boundary_word, boundary_shift = 1, 45  # where the key keeps the waste boundary
    if layout is not None:
        boundary_word, boundary_shift = quotient_search.BOUNDARY_WORD, quotient_search.BOUNDARY_SHIFT
    draw_count = rules[RULE_DRAW_COUNT]
    key = np.empty(KEY_WORDS, np.int64)
    keys = np.empty((moves.shape[1], KEY_WORDS), np.int64)
    talon_lengths = np.empty(moves.shape[1], np.int32)
    values = np.empty(NUM_COLUMNS, np.int64)
    free = np.empty(NUM_COLUMNS, np.int64)
    reached = np.empty(core.TALON_SLOTS + 1, np.uint8)
    no_record = np.empty(0, np.int32)
    scratch = np.empty(states.shape[1], np.int32)
    slot_mask = np.uint64(table.shape[0] - 1)
    max_depth = states.shape[0]
    max_boundary = core.TALON_SLOTS + 1  # above every waste boundary
    depth = ctrl[_DEPTH]
    nodes = ctrl[_NODES]
    entries = ctrl[_ENTRIES]
    while True:
        if not successors_pending:
            if depth < 0:
                ctrl[_RESULT] = _EXHAUSTED
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
            if shared and not _claim(table, epoch, claims[depth, index]):
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
            if core.is_won(scratch):
                won = index
                break
            _node_key(scratch, rules, talon_index, limited, exact_twins, layout, keys[index], values, free)
            talon_lengths[index] = scratch[TALON_LENGTH]
            _prefetch_entry(table, np.int64(_mix(keys[index]) & slot_mask))
        if won >= 0:
            move_next[depth] = won + 1
            depth += 1
            ctrl[_RESULT] = _WON
            break
        full = False
        for index in range(count):
            fresh[depth, index] = 0
            if entries >= entry_stop:
                full = True
                break
            inserted, slot = _insert(table, epoch, keys[index], word, shared)
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
                key[:] = keys[index]
                entries, covered_from = _mark_later_boundaries(table, epoch, key, boundary_word, boundary_shift,
                                                               talon_lengths[index], draw_count, entries, mark_stop,
                                                               shared)
            fresh[depth, index] = covered_from + 1
        if full:
            ctrl[_RESULT] = _FULL
            break
    ctrl[_DEPTH] = depth
    ctrl[_NODES] = nodes
    ctrl[_ENTRIES] = entries


@njit(cache=True)
def _mark_later_boundaries(table, epoch, key, word, shift, talon_length, draw_count, entries, mark_stop, shared):
    """With unlimited passes, a position whose waste boundary (``key[word]``'s 5 bits at
    ``shift``) is off the draw grid can reach, by draws alone, the same position with each
    later boundary of its grid and then with the grid boundary: those have a subset of its
    moves, so mark them as seen (module docstring). Returns the entries used and the first of
    those boundaries that was in the table already (``talon_length`` for the grid boundary,
    ``TALON_SLOTS + 1`` for none). Marking is optional: it stops at ``mark_stop`` entries, which
    leaves at least half the table to expanded positions."""
    covered_from = core.TALON_SLOTS + 1
    boundary = (key[word] >> shift) & 31
    if boundary == 0:
        return entries, covered_from
    cleared = key[word] & ~(np.int64(31) << shift)
    later = boundary + draw_count
    while entries < mark_stop:
        key[word] = cleared | (np.int64(later if later < talon_length else 0) << shift)
        marked, _ = _insert(table, epoch, key, epoch, shared)  # stamped as needing no expansion
        if marked < 0:
            break
        if marked != 1 and covered_from > talon_length:
            covered_from = min(later, talon_length)
        entries += marked == 1
        if later >= talon_length:
            break
        later += draw_count
    return entries, covered_from


@njit(cache=True)
def _drop_covered_talon_moves(moves, scores, count, boundary, draw_count, covered_from):
    """Drop the talon moves of a position with waste boundary ``boundary`` (off the grid) that a
    position with the same cards and a later boundary ``covered_from`` of its grid (or the grid
    boundary: ``covered_from`` = the talon's length), already in the table, has too: the plays of
    the tops at ``covered_from`` and after on this pass, and every play after a recycle. They
    lead to the same successors (the waste boundary of the successor is where the played card
    lay), which that position's expansion generates (module docstring). Returns the moves kept."""
    kept = 0
    for index in range(count):
        move = moves[index]
        reached = boundary + ((move >> _BEFORE_SHIFT) & _COUNT_MASK) * draw_count
        if (move >> _RECYCLE_SHIFT) & 1 or reached >= covered_from:
            continue
        moves[kept] = move
        scores[kept] = scores[index]
        kept += 1
    return kept


@njit(cache=True)
def _solution(root, rules, moves, move_next, depth, out):
    """Expand the winning line (moves chosen on depths ``0..depth-1``) into env actions."""
    state = root.copy()
    count = _auto_play(state, rules, out, 0)
    for level in range(depth):
        count = _apply_move(state, rules, moves[level, move_next[level] - 1], out, count)
        count = _auto_play(state, rules, out, count)
    return count


# --- best-first search (module docstring, "Best-first search") ----------------------
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
    _auto_play(state, rules, np.empty(0, np.int32), 0)
    ctrl[:] = 0
    if core.is_won(state):
        ctrl[_BEST_RESULT] = _WON
        ctrl[_BEST_WON] = -1
        return
    _insert_root(state, rules, talon_index, key_flags, table, epoch, None)
    _pack_position(state, store, 0)
    parent[0] = -1
    via[0] = 0
    depth[0] = 0
    ctrl[_BEST_STORED] = 1
    ctrl[_BEST_HEAP] = _heap_push(heap_key, heap_parent, heap_via, 0, 0, -1, 0)  # parent -1: the root itself
    if _stuck_for_good(state, rules):
        ctrl[_BEST_HEAP] = 0
        ctrl[_BEST_RESULT] = _EXHAUSTED


@njit(cache=True, nogil=True)
def _best_first(rules, talon_index, key_flags, table, epoch, store, parent, via, depth, heap_key, heap_parent,
                heap_via, ctrl, node_stop, entry_stop):
    """Expand the most promising queued position until a win, exhaustion, a full store, heap or
    table, or ``node_stop`` expansions (resumable: everything lives in the arrays and ``ctrl``).

    The queue holds a generated position as its parent's slot and the move from it; only the
    positions expanded are stored (packed), each rebuilt from its parent when its turn comes.
    """
    limited, exact_twins = _key_modes(key_flags)
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
    while ctrl[_BEST_RESULT] == _RUNNING:
        if size == 0:
            ctrl[_BEST_RESULT] = _EXHAUSTED
            break
        if expanded >= node_stop:
            break
        if (expanded + 1 > store.shape[0] or size + MAX_MOVES > heap_key.shape[0]
                or generated + MAX_MOVES > entry_stop):
            ctrl[_BEST_RESULT] = _FULL
            break
        from_slot, move, size = _heap_pop(heap_key, heap_parent, heap_via, size)
        if from_slot < 0:
            slot = 0  # the root, stored by _best_first_start
            _unpack_position(store, 0, state)
        else:
            slot = expanded
            _unpack_position(store, from_slot, state)
            _apply_move(state, rules, move, no_record, 0)
            _auto_play(state, rules, no_record, 0)
            _pack_position(state, store, slot)
            parent[slot] = from_slot
            via[slot] = move
            depth[slot] = depth[from_slot] + 1
        expanded += 1
        count = _generate_moves(state, rules, moves, scores, reached)
        for index in range(count):  # build every successor and prefetch its table entry (as _search)
            child[:] = state
            _apply_move(child, rules, moves[index], no_record, 0)
            _auto_play(child, rules, no_record, 0)
            if core.is_won(child):
                ctrl[_BEST_RESULT] = _WON
                ctrl[_BEST_WON] = slot
                ctrl[_BEST_WON_MOVE] = moves[index]
                break
            _search_key(child, rules, talon_index, limited, exact_twins, child_keys[index], values, free)
            _prefetch_entry(table, np.int64(_mix(child_keys[index]) & slot_mask))
            # weighted A*: the estimate of what is left plus half the search moves from the
            # root, so a position reached the long way waits; the move generator's order
            # breaks ties, then the newer position first (weights measured: docs/speed.md "Solver",
            # session 9)
            priorities[index] = -32 * (2 * _distance_estimate(child) + depth[slot] + 1) + max(scores[index], 0) // 16
        if ctrl[_BEST_RESULT] == _WON:
            break
        for index in range(count):
            inserted = _table_insert(table, epoch, child_keys[index])
            if inserted < 0:
                ctrl[_BEST_RESULT] = _FULL
                break
            if inserted == 0:
                continue
            generated += 1
            size = _heap_push(heap_key, heap_parent, heap_via, size, (np.int64(priorities[index]) << 32) | generated,
                              slot, moves[index])
    ctrl[_BEST_EXPANDED] = expanded
    ctrl[_BEST_STORED] = generated
    ctrl[_BEST_HEAP] = size


# --- Python interface ------------------------------------------------------------
class _Table:
    """A transposition table kept between calls; an epoch stamp empties it in O(1)."""

    def __init__(self, capacity: int):
        self.keys = np.zeros((capacity, ENTRY_WORDS), np.int64)
        self.epoch = 0

    def next_epoch(self, count: int = 1) -> int:
        """A fresh epoch; ``count`` > 1 reserves that many consecutive ones (a shared table's stamps)."""
        if self.epoch + count >= 2**32 - 1:
            self.keys[:, KEY_WORDS] = 0
            self.epoch = 0
        self.epoch += count
        return self.epoch - count + 1


_tables: dict[tuple[int, str], _Table] = {}


def _table_for(capacity: int, role: str = "main") -> _Table:
    """The table of ``capacity`` entries for one role (the complete search, or the probes,
    which run interleaved with it and so need a table of their own)."""
    table = _tables.get((capacity, role))
    if table is None:
        if len(_tables) >= 4:  # keep memory bounded across calls with different budgets
            _tables.pop(next(iter(_tables)))
        table = _tables[(capacity, role)] = _Table(capacity)
    return table


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


def prepare(memory_limit_mb: float = DEFAULT_MEMORY_MB, node_limit: int | None = None) -> None:
    """Compile (or load) the kernels and allocate the table, so no timed solve pays for them."""
    tables = [_table_for(table_capacity(memory_limit_mb, node_limit))]
    if node_limit is None or node_limit > PROBE_AFTER:
        tables.append(_table_for(_probe_capacity(memory_limit_mb), "probe"))
    if node_limit is None or node_limit > BEST_AFTER:
        tables.append(_table_for(_best_capacity(memory_limit_mb), "best"))
    for table in tables:
        table.keys.fill(0)  # touch every page now (the OS hands out zeroed pages lazily)
    # compile (or load) every search's kernels: deal 1 runs past the point where the probes and
    # the best-first search join, over classes and over positions
    warm_up = 3 * max(PROBE_AFTER, BEST_AFTER) + 1000
    for by_class in (True, False):
        solve(1, node_limit=warm_up, memory_limit_mb=min(memory_limit_mb, 64), by_class=by_class)


def _best_capacity(memory_limit_mb: float) -> int:
    """The best-first search's table: half its share of the memory limit."""
    return table_capacity(memory_limit_mb * BEST_MEMORY_SHARE / 2)


def _probe_capacity(memory_limit_mb: float) -> int:
    """The probes' table: a quarter of the memory limit, no more than the largest probe needs."""
    return table_capacity(memory_limit_mb / 4, PROBE_UNIT * PROBE_MAX_LUBY)


def _check_limit(name: str, value, integer: bool):
    if value is None:
        return None
    kinds = (int, np.integer) if integer else (int, float, np.integer, np.floating)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, kinds) or not value > 0:
        what = "a positive integer" if integer else "a positive number of seconds"
        raise SolverInputError(f"bad {name}={value!r}: expected {what} or None")
    return value


def _root_position(game_or_deck, rules) -> tuple[np.ndarray, Rules]:
    from klondike_env.game import Game

    if rules is not None and not isinstance(rules, Rules):
        raise SolverInputError(f"bad rules {rules!r}: expected a klondike_env.Rules or None")
    if isinstance(game_or_deck, Game):
        return game_or_deck._state.copy(), game_or_deck.rules if rules is None else rules
    if isinstance(game_or_deck, (int, np.integer)) and not isinstance(game_or_deck, (bool, np.bool_)):
        deck = deal_deck(check_deal(game_or_deck))
    else:
        deck = parse_deck(game_or_deck)
    state = np.empty(STATE_SIZE, np.int32)
    core.init_state(np.asarray(deck, np.int32), state)
    return state, Rules() if rules is None else rules


# Probes (module docstring): restarts in shuffled move orders, interleaved with the complete
# search once it has expanded PROBE_AFTER positions; budgets PROBE_UNIT times the Luby sequence.
# Since session 10 they start (with the best-first search) after 2,000 positions: most deals the
# fixed order decides are decided by then, and starting the others early decides more positions
# within small budgets (docs/speed.md "Solver", session 10).
PROBE_AFTER = 2_000
PROBE_UNIT = 8_000
PROBE_SPREADS = (300, 2000, 120)
# the probes' nodes, all together, per node of the complete search: a quarter since session 9,
# when the best-first search took over most of what they found (deals 1-200, docs/speed.md "Solver")
PROBE_SHARE = 0.25
PROBE_MAX_LUBY = 128  # no probe expands more than PROBE_UNIT * 128 positions


def _luby(index: int) -> int:
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


class _ControlledSearch:
    """A search whose kernel reports through ``self.ctrl``: each subclass names its slots."""

    RESULT_SLOT = NODES_SLOT = ENTRIES_SLOT = -1  # set by each subclass
    ctrl: np.ndarray

    @property
    def result(self) -> int:
        return int(self.ctrl[self.RESULT_SLOT])

    @property
    def nodes(self) -> int:
        """Positions expanded."""
        return int(self.ctrl[self.NODES_SLOT])

    @property
    def entries(self) -> int:
        """Table entries used."""
        return int(self.ctrl[self.ENTRIES_SLOT])


class _DepthFirst(_ControlledSearch):
    """One depth-first search from the root, resumable in chunks of nodes: over positions, or
    over classes of positions with ``KEY_CLASSES`` in ``key_flags`` (klondike_env/quotient_search.py)."""

    RESULT_SLOT, NODES_SLOT, ENTRIES_SLOT = _RESULT, _NODES, _ENTRIES

    def __init__(self, root, rules_array, talon_index, key_flags: int, table: _Table, capacity: int, seed: int,
                 spread: int = 1, budget: int | None = None, shared: tuple[int, int] | None = None,
                 subtree: tuple | None = None):
        """``shared``: (epoch, owner) of a table shared with another search (``_search``); its
        ``entry_stop`` and ``mark_stop`` are then the caller's to keep up to date (``_Sharer.run``).
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
        self.line: list[int] = []  # the class moves from the root to where this search starts
        if subtree is not None:
            start, self.layout, self.line = subtree
            self._begin(start)
            return
        # the root's safe auto-play, then its proof of loss (cards stuck for good)
        start = root.copy()
        _auto_play(start, rules_array, np.empty(0, np.int32), 0)
        if not core.is_won(start) and _stuck_for_good(start, rules_array):
            self.ctrl[_DEPTH] = -1
            self.ctrl[_RESULT] = _EXHAUSTED
            self.ctrl[_NODES] = self.ctrl[_ENTRIES] = 1
            return
        if key_flags & KEY_CLASSES:  # the class search starts from the root's class
            start, *layout = quotient_search.root_class(start)
            self.layout = tuple(layout)
        self._begin(start)

    def _begin(self, start) -> None:
        _start(start, self.rules_array, self.states, self.moves, self.scores, self.move_counts, self.move_next,
               self.fresh, self.claims, self.ctrl, self.talon_index, self.key_flags, self.table.keys, self.epoch,
               self.owner, self.entry_stop, self.mark_stop, self.seed, self.spread, self.layout)

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
        return self.line + [int(self.moves[level, self.move_next[level] - 1]) for level in range(depth)]

    @property
    def cut(self) -> bool:
        return bool(self.ctrl[_CUT])

    def run(self, nodes: int) -> None:
        """Search on until a win, exhaustion, a full table or ``nodes`` more expansions."""
        _search(self.rules_array, self.states, self.moves, self.scores, self.move_counts, self.move_next,
                self.fresh, self.claims, self.ctrl, self.talon_index, self.key_flags, self.table.keys, self.epoch,
                self.owner, self.ctrl[_NODES] + nodes, self.entry_stop, self.mark_stop, self.seed, self.spread,
                self.layout)

    def solution(self) -> list[int]:
        depth = int(self.ctrl[_DEPTH])
        if self.key_flags & KEY_CLASSES:
            return quotient_search.realize(self.root, self.rules_array, self._line(depth))
        out = np.empty(8 * MAX_DEPTH + 64, np.int32)
        count = _solution(self.root, self.rules_array, self.moves, self.move_next, depth, out)
        return [int(a) for a in out[:count]]


# Best-first search (module docstring): one per solve, started once the complete search has
# expanded BEST_AFTER positions (150,000 before session 10, above the determinized agent's
# solves), expanding BEST_SHARE positions per position of the complete search, in
# BEST_MEMORY_SHARE of the memory limit: half of that for its table, the rest for the queue and
# the expanded positions, in the proportion one expansion needs of each (BEST_QUEUE_BYTES and
# BEST_SLOT_BYTES; deal 104 expanded 1.2M positions and queued 1.5M to win, docs/speed.md "Solver",
# session 12).
BEST_AFTER = 2_000
BEST_SHARE = 0.25  # a quarter since session 17, when the complete search went over classes (docs/speed.md "Solver")
BEST_MEMORY_SHARE = 0.5
BEST_QUEUE_BYTES = 8 + 4 + 4  # a queued position: heap key, parent's slot, move
BEST_SLOT_BYTES = PACKED_SIZE + 4 + 4 + 4  # an expanded position: packed, parent's slot, move, depth
BEST_QUEUE_PER_SLOT = 1.4  # queue entries allotted per expanded position


class _BestFirst(_ControlledSearch):
    """The best-first search from the root, resumable in chunks of expansions."""

    RESULT_SLOT, NODES_SLOT, ENTRIES_SLOT = _BEST_RESULT, _BEST_EXPANDED, _BEST_STORED

    def __init__(self, root, rules_array, talon_index, key_flags: int, memory_limit_mb: float):
        self.root, self.rules_array, self.talon_index, self.key_flags = root, rules_array, talon_index, key_flags
        memory_bytes = memory_limit_mb * BEST_MEMORY_SHARE * 2**20
        capacity = _best_capacity(memory_limit_mb)
        self.table = _table_for(capacity, "best")
        self.entry_stop = int(capacity * MAX_FILL)
        self.epoch = np.int64(self.table.next_epoch())
        rest = max(0.0, memory_bytes - capacity * ENTRY_BYTES)
        slots = max(2, int(rest / (BEST_SLOT_BYTES + BEST_QUEUE_PER_SLOT * BEST_QUEUE_BYTES)))
        queue = max(2 * MAX_MOVES, int(slots * BEST_QUEUE_PER_SLOT))
        self.store = np.empty((slots, PACKED_SIZE), np.int8)
        self.parent = np.empty(slots, np.int32)
        self.via = np.empty(slots, np.int32)
        self.depth = np.empty(slots, np.int32)  # search moves from the root
        self.heap_key = np.empty(queue, np.int64)
        self.heap_parent = np.empty(queue, np.int32)
        self.heap_via = np.empty(queue, np.int32)
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
        count = _solution(self.root, self.rules_array, moves, np.ones(len(moves), np.int32), len(path), out)
        return [int(a) for a in out[:count]]


RACE_CHUNK = 1 << 15  # nodes between checks while the helpers run on a thread of their own (~0.05 s)
# With threads=2 the class search runs on both threads over one table (_search's owners 1 and
# 2, one _Sharer each): the complete search on the main thread, a partner on the helpers' thread.
# A thread without work asks the other, which hands over the shallowest class waiting on its
# stack (_DepthFirst.hand_over) and searches on; the partner takes PARTNER_SHARE positions per
# position of the probes and the best-first search together, and every turn once the complete
# search is exhausted.
PARTNER_SHARE = 4.0


def _main_nodes(complete: _DepthFirst, main: _Sharer | None) -> int:
    """Nodes expanded by the complete search, and with the class search on two threads by every
    search of the main thread."""
    return main.nodes if main is not None else complete.nodes


class _Sharer:
    """One thread's part of the class search on a table shared by two threads: the searches it
    runs one after the other (the complete search from the root, on the main thread; then
    searches from classes the other thread handed over) and the class handed to it.

    The position is lost once neither thread has a search or a class handed over (read the
    other thread's :attr:`done` first: a thread hands a class over only while it searches) and
    no search filled the table: every class in the table was then expanded (``_search``)."""

    def __init__(self, owner: int, complete: _DepthFirst, first: _DepthFirst | None = None):
        self.owner, self.complete, self.search = owner, complete, first
        self.handed: tuple | None = None  # (class state, line, slot) from the other thread
        self.wants = False  # asks the other thread for a class
        self.ended_nodes = self.ended_entries = 0
        self.cut = self.full = False
        self.winner: _DepthFirst | None = None

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

    def run(self, step: int, other: _Sharer) -> bool:
        """Up to ``step`` more nodes of this thread's search (claiming a class handed over to
        start one), then a class for ``other`` if it asks; False when idle (asking)."""
        search = self.search
        if search is None:
            if self.handed is None:
                self.wants = True
                return False
            state, line, slot = self.handed
            complete = self.complete
            if _claim(complete.table.keys, complete.epoch, slot):  # (else expanded already)
                search = self.search = _DepthFirst(
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
        if search.result == _RUNNING:
            if other.wants and other.handed is None:
                other.handed = search.hand_over()
                other.wants = False
        elif search.result == _WON:
            self.winner = search
        else:
            self.cut |= search.cut
            self.full |= search.result == _FULL
            self.ended_nodes += search.nodes
            self.ended_entries += search.entries
            self.search = None
        return True


class _Helpers:
    """The probes and the best-first search, which join the complete search once it has
    expanded ``probe_after`` positions: they take turns with it (``threads=1``) or run on a
    thread of their own beside it (``threads=2``, :meth:`race`), there with the partner of the
    class search (``partner``, a :class:`_Sharer`). ``decider`` is the one that won or proved the
    position lost, if any."""

    def __init__(self, root, rules_array, talon_index, key_flags: int, memory_limit_mb: float):
        self.root, self.rules_array, self.talon_index = root, rules_array, talon_index
        self.key_flags, self.memory_limit_mb = key_flags, memory_limit_mb
        self.probe: _DepthFirst | None = None
        self.probes_started = 0
        self.probes_ended_nodes = 0  # expanded by the probes that have ended
        self.probe_entries = 0  # the most table entries one probe used
        self.best: _BestFirst | None = None  # started on its first turn
        self.partner: _Sharer | None = None  # threads=2, classes: the class search on this thread
        self.decider: _ControlledSearch | None = None
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
        return self.best is None or self.best.result == _RUNNING

    @property
    def memory_mb(self) -> float:
        return self.probe_entries * ENTRY_BYTES / 2**20 + (self.best.memory_mb if self.best is not None else 0.0)

    def run(self, turn: str, step: int) -> None:
        """Up to ``step`` more nodes of the best-first search (``turn == "best"``) or the probes."""
        if turn == "best":
            if self.best is None:  # the best-first search keeps to positions (module docstring)
                self.best = _BestFirst(self.root, self.rules_array, self.talon_index, self.key_flags & ~KEY_CLASSES,
                                       self.memory_limit_mb)
            self.best.run(step)
            if self.best.result in (_WON, _EXHAUSTED):
                self.decider = self.best  # an exhausted best-first search has expanded every reachable position
            return
        if self.probe is None:
            self.probes_started += 1
            capacity = _probe_capacity(self.memory_limit_mb)
            self.probe = _DepthFirst(self.root, self.rules_array, self.talon_index, self.key_flags,
                                     _table_for(capacity, "probe"), capacity, seed=self.probes_started,
                                     spread=PROBE_SPREADS[self.probes_started % len(PROBE_SPREADS)],
                                     budget=PROBE_UNIT * min(_luby(self.probes_started), PROBE_MAX_LUBY))
        probe = self.probe
        probe.run(min(step, probe.budget - probe.nodes))
        self.probe_entries = max(self.probe_entries, probe.entries)
        if probe.result == _WON or (probe.result == _EXHAUSTED and not probe.cut):
            self.decider = probe  # a probe's exhaustive search is as good a proof as the complete one
        elif probe.result != _RUNNING or probe.nodes >= probe.budget:
            self.probes_ended_nodes += probe.nodes
            self.probe = None

    def race(self, complete: _DepthFirst, main: _Sharer | None, stop: threading.Event, node_limit: int | None,
             deadline: float | None, best_after: int) -> None:
        """Run beside ``complete`` (on a thread of its own; the kernels release the GIL) until one of
        them decides, ``stop`` is set or a budget runs out: the probes, the best-first search and,
        when the class search runs on both threads (``main``: the main thread's part), the
        partner share this thread in the proportion PROBE_SHARE : BEST_SHARE : PARTNER_SHARE
        (the partner alone while the main thread waits for a class). An exception is kept in
        ``error`` for ``solve`` to raise."""
        try:
            while not stop.is_set() and self.decider is None:
                used = _main_nodes(complete, main) + self.nodes
                if _spent_budget(used, node_limit, deadline) is not None:
                    return
                step = _next_step(RACE_CHUNK, used, node_limit)
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


def _spent_budget(used: int, node_limit: int | None, deadline: float | None) -> str | None:
    """``"nodes"`` or ``"time"`` when that budget of a solve is spent (``used`` nodes so far), else
    ``None``: the main loop's check and the helper thread's."""
    if node_limit is not None and used >= node_limit:
        return "nodes"
    if deadline is not None and time.perf_counter() >= deadline:
        return "time"
    return None


def _next_step(chunk: int, used: int, node_limit: int | None) -> int:
    """Nodes for the next turn of a search: ``chunk``, or what is left of ``node_limit``."""
    return chunk if node_limit is None else min(chunk, node_limit - used)


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
    plain key merges positions that differ only by swapping twins in face-up runs: module
    docstring): a check of that merge, at about four times the positions. ``by_class``
    (default ``True``): the complete search and the probes search classes of positions
    (``klondike_env/quotient_search.py``) where the rules allow it (``empty_column="king"``,
    not ``exact_twins``); ``False``: positions, as before session 17. Both are exact.
    ``threads=2`` runs the probes, the best-first search and a partner of the complete search
    (which takes over parts of the class search: module docstring) on a second thread beside the
    complete search (the kernels release the GIL), instead of taking turns with it on one: the
    same verdicts, sooner on a machine with a core to spare (not in a sweep that already runs a
    worker per core), but which search decides, and so the solution and ``nodes``, may vary from
    run to run, and ``node_limit`` may be overrun by one chunk of ``RACE_CHUNK`` nodes per thread.
    """
    started = time.perf_counter()
    time_limit = _check_limit("time_limit", time_limit, integer=False)
    node_limit = _check_limit("node_limit", node_limit, integer=True)
    probe_after = PROBE_AFTER if probe_after is None else _check_limit("probe_after", probe_after, integer=True)
    best_after = BEST_AFTER if best_after is None else _check_limit("best_after", best_after, integer=True)
    _check_limit("memory_limit_mb", memory_limit_mb, integer=False)
    root, rules = _root_position(game_or_deck, rules)
    if not isinstance(exact_twins, bool):
        raise SolverInputError(f"bad exact_twins {exact_twins!r}: expected True or False")
    if exact_twins and rules.max_passes is not None and rules.max_passes > 64:
        raise SolverInputError(
            f"exact_twins needs max_passes <= 64 or None (the key has 6 bits for recycles), got {rules.max_passes}")
    rules_array = rules.as_array()
    talon_index = np.full(core.NUM_CARDS, -1, np.int32)
    for i in range(int(root[TALON_LENGTH])):
        talon_index[root[TALON + i]] = i
    capacity = table_capacity(memory_limit_mb, node_limit)
    key_flags = (KEY_LIMITED if rules.max_passes is not None else 0) | (KEY_EXACT_TWINS if exact_twins else 0)
    if not isinstance(by_class, bool):
        raise SolverInputError(f"bad by_class {by_class!r}: expected True or False")
    if threads not in (1, 2) or isinstance(threads, bool):
        raise SolverInputError(f"bad threads={threads!r}: expected 1 or 2")
    if by_class and not exact_twins and rules.empty_column == "king":
        key_flags |= KEY_CLASSES  # the depth-first searches (complete and probes) over classes
    table = _table_for(capacity)
    # with threads=2 the class search runs on both threads (_Sharer)
    shared = (table.next_epoch(SHARED_EPOCHS), 1) if threads == 2 and key_flags & KEY_CLASSES else None
    complete = _DepthFirst(root, rules_array, talon_index, key_flags, table, capacity, seed=0, shared=shared)
    helpers = _Helpers(root, rules_array, talon_index, key_flags, memory_limit_mb)
    main = None  # the main thread's part of the class search with threads=2
    if shared is not None:
        main, helpers.partner = _Sharer(1, complete, complete), _Sharer(2, complete)
    deadline = None if time_limit is None else started + time_limit
    helpers_beside = None  # the thread running the helpers beside the complete search (threads=2)
    stop = threading.Event()
    chunk = 4096
    stopped_by = None
    decider = complete if complete.result in (_WON, _EXHAUSTED) else None  # the search that decided
    try:
        while decider is None:
            used = _main_nodes(complete, main) + helpers.nodes
            stopped_by = _spent_budget(used, node_limit, deadline)
            if stopped_by is not None:
                break
            if helpers.decider is not None:  # won or proved by the thread beside
                decider = helpers.decider
                break
            if helpers.error is not None:
                break  # raised below
            step = _next_step(chunk, used, node_limit)
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
                    if partner.done and main.done:  # (in this order: _Sharer)
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
            if complete.result == _FULL:
                stopped_by = "memory"
                break
            if complete.result != _RUNNING:
                decider = complete
    finally:
        stop.set()
        if helpers_beside is not None:
            helpers_beside.join()
    if helpers.error is not None:
        raise helpers.error
    nodes = _main_nodes(complete, main) + helpers.nodes
    cut = main is not None and (main.cut or helpers.partner.cut)

    actions: list[int] = []
    if decider is not None and decider.result == _WON:
        actions = decider.solution()
        status = SolveStatus.SOLVED
    elif decider is not None and not decider.cut and not cut:
        status = SolveStatus.UNSOLVABLE
    else:
        status = SolveStatus.UNKNOWN
        if decider is not None:
            stopped_by = "depth"  # exhausted, but with lines cut at the depth cap
    return SolveResult(
        status=status,
        actions=actions,
        nodes=nodes,
        seconds=time.perf_counter() - started,
        stopped_by=stopped_by,
        table_mb=((main.entries + helpers.partner.entries) if main is not None else complete.entries) * ENTRY_BYTES
        / 2**20 + helpers.memory_mb,
    )


# Imported last: quotient_search builds on this module's helpers, and the kernels above call it
# (numba looks the name up when it compiles them, after both modules are loaded).
from klondike_env import quotient_search  # noqa: E402
