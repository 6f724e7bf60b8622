"""The rules of Klondike as compiled kernels over a flat integer state.

This module is the single place the rules live (docs/contract.md). Everything else -- the
:class:`~klondike_env.game.Game` object, the Gymnasium envs, the batched env and
the solver -- calls these kernels, so a rule is fixed once and holds everywhere.

State layout
------------
One position is a 1-D ``np.int32`` array of :data:`STATE_SIZE` entries (a batch
is a 2-D array, one row per game):

* ``TABLEAU + COLUMN_SLOTS * c + i`` -- card at depth ``i`` of column ``c``
  (``i = 0`` is the bottom card); a column holds at most 6 face-down + 13 = 19.
* ``COLUMN_LENGTH + c`` -- number of cards in column ``c``.
* ``COLUMN_DOWN + c`` -- how many of them (from the bottom) are face down.
* ``TALON + i`` / ``TALON_LENGTH`` / ``WASTE_LENGTH`` -- stock and waste share one
  array in draw order: ``talon[:waste_length]`` is the waste (bottom to top) and
  ``talon[waste_length:talon_length]`` the stock (next card to draw first). A draw
  moves the boundary right, a recycle sets it back to 0, so a recycle keeps the
  order by construction; playing the waste top removes ``talon[waste_length-1]``.
* ``FOUNDATION + s`` -- number of cards on the foundation of suit ``s``.
* ``RECYCLES`` -- recycles made so far (the pass number is ``RECYCLES + 1``).
* ``MOVES`` -- actions taken since the deal.

Because the talon is never reordered, the player has seen ``talon[:waste_length]``
during the first pass and the whole talon after any recycle; nothing else needs
recording to know which stock cards are still hidden.

Rules are a small ``np.int32`` array (``Rules(...).as_array()``): draw count, max
passes (0 = unlimited), empty-column rule (0 king, 1 any), foundation-to-tableau
allowed (1) or not (0).

Legal-move generation
---------------------
Sets of cards are 52-bit masks in an ``int64`` (bit ``c`` for card ``c``). Each
column's *accepted* cards (:func:`column_accepts`: the two cards one rank below its
last card in the other colour; kings, or everything, when empty) and each column's
face-up run (:func:`column_run`) are such masks, so a tableau move ``s -> d`` is
legal exactly when ``column_run(s) & column_accepts(d)`` is not empty: a run holds
at most one card of each rank, so at most one of its tails fits. The same
acceptance sets serve the waste, the foundations' top cards and :func:`run_start`,
so the fitting rule is written once (:func:`_accepts_table`). :func:`legal_mask`
reads each run from a table too (:func:`_run_table`, built from the acceptance
sets) and writes all 87 entries without a branch.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# --- cards -------------------------------------------------------------------
NUM_CARDS = 52
NUM_RANKS = 13
NUM_SUITS = 4
NUM_COLUMNS = 7
KING = 13

# --- state layout ------------------------------------------------------------
COLUMN_SLOTS = 19
TABLEAU = 0
COLUMN_LENGTH = TABLEAU + NUM_COLUMNS * COLUMN_SLOTS  # 133
COLUMN_DOWN = COLUMN_LENGTH + NUM_COLUMNS  # 140
TALON = COLUMN_DOWN + NUM_COLUMNS  # 147
TALON_SLOTS = 24
TALON_LENGTH = TALON + TALON_SLOTS  # 171
WASTE_LENGTH = TALON_LENGTH + 1  # 172
FOUNDATION = WASTE_LENGTH + 1  # 173
RECYCLES = FOUNDATION + NUM_SUITS  # 177
MOVES = RECYCLES + 1  # 178
STATE_SIZE = MOVES + 1  # 179

# --- rules array -------------------------------------------------------------
RULE_DRAW_COUNT = 0
RULE_MAX_PASSES = 1  # 0 means unlimited
RULE_EMPTY_ANY = 2  # 0: king only, 1: any card
RULE_FOUNDATION_TO_TABLEAU = 3  # 1 allowed, 0 forbidden
RULES_SIZE = 4

# --- action table (docs/contract.md "Actions") ------------------------------
NUM_ACTIONS = 87
DRAW = 0
RECYCLE = 1
WASTE_TO_FOUNDATION = 2
WASTE_TO_COLUMN = 3  # + c
COLUMN_TO_FOUNDATION = 10  # + c
COLUMN_TO_COLUMN = 17  # + 6 * s + k
FOUNDATION_TO_COLUMN = 59  # + 7 * f + c

_SPLITMIX_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_SPLITMIX_MUL1 = np.uint64(0xBF58476D1CE4E5B9)
_SPLITMIX_MUL2 = np.uint64(0x94D049BB133111EB)


@njit(cache=True, inline="always")
def card_rank(card):
    """Rank 1 (ace) .. 13 (king)."""
    return card % NUM_RANKS + 1


@njit(cache=True, inline="always")
def card_suit(card):
    return card // NUM_RANKS


@njit(cache=True, inline="always")
def card_is_red(card):
    suit = card // NUM_RANKS
    return suit == 1 or suit == 2


# --- deals -------------------------------------------------------------------
@njit(cache=True)
def splitmix_next(state):
    """One SplitMix64 step: returns ``(new_state, output)`` (all uint64)."""
    state = state + _SPLITMIX_GAMMA
    z = state
    z = (z ^ (z >> np.uint64(30))) * _SPLITMIX_MUL1
    z = (z ^ (z >> np.uint64(27))) * _SPLITMIX_MUL2
    return state, z ^ (z >> np.uint64(31))


@njit(cache=True)
def fill_deal_deck(deal, deck):
    """Write the deck of deal number ``deal`` (uint64) into ``deck`` (52 ints)."""
    for i in range(NUM_CARDS):
        deck[i] = i
    state = np.uint64(deal)
    for i in range(NUM_CARDS - 1, 0, -1):
        state, z = splitmix_next(state)
        j = np.int64(z % np.uint64(i + 1))
        tmp = deck[i]
        deck[i] = deck[j]
        deck[j] = tmp


@njit(cache=True)
def clear_state(state):
    """An empty table: no card anywhere (card slots -1), every count and the move counter 0."""
    state[:] = 0
    state[TABLEAU : TABLEAU + NUM_COLUMNS * COLUMN_SLOTS] = -1
    state[TALON : TALON + TALON_SLOTS] = -1


@njit(cache=True)
def init_state(deck, state):
    """Lay out ``deck`` (52 card ids) as the opening position, row by row."""
    clear_state(state)
    k = 0
    for row in range(NUM_COLUMNS):
        for col in range(row, NUM_COLUMNS):
            state[TABLEAU + COLUMN_SLOTS * col + row] = deck[k]
            k += 1
    for col in range(NUM_COLUMNS):
        state[COLUMN_LENGTH + col] = col + 1
        state[COLUMN_DOWN + col] = col
    for i in range(TALON_SLOTS):
        state[TALON + i] = deck[28 + i]
    state[TALON_LENGTH] = TALON_SLOTS
    state[WASTE_LENGTH] = 0


@njit(cache=True)
def init_state_from_deal(deal, state):
    deck = np.empty(NUM_CARDS, np.int32)
    fill_deal_deck(deal, deck)
    init_state(deck, state)


# --- small queries -----------------------------------------------------------
# Helpers that take arrays are plain kernels, which LLVM inlines: numba's own
# ``inline="always"`` adds reference-count calls for every array argument, and those
# made legal_mask ~40% slower. Scalar-only helpers (card_rank, column_action, ...) keep it.
@njit(cache=True)
def column_card(state, col, depth):
    return state[TABLEAU + COLUMN_SLOTS * col + depth]


@njit(cache=True)
def column_top(state, col):
    """The last (uncovered) card of column ``col``, or -1 when empty."""
    length = state[COLUMN_LENGTH + col]
    if length == 0:
        return -1
    return state[TABLEAU + COLUMN_SLOTS * col + length - 1]


@njit(cache=True)
def waste_top(state):
    waste_length = state[WASTE_LENGTH]
    if waste_length == 0:
        return -1
    return state[TALON + waste_length - 1]


@njit(cache=True)
def fits_foundation(state, card):
    return state[FOUNDATION + card // NUM_RANKS] == card % NUM_RANKS


@njit(cache=True)
def is_safe_to_foundation(card, foundations):
    """No card that could be built on ``card`` in the tableau is still out.

    ``foundations`` holds the four foundation heights in suit order. Aces and twos are
    always safe; otherwise both opposite-colour suits must have their card one rank
    lower already home.
    """
    rank = card % NUM_RANKS + 1
    if rank <= 2:
        return True
    if card_is_red(card):
        return foundations[0] >= rank - 1 and foundations[3] >= rank - 1
    return foundations[1] >= rank - 1 and foundations[2] >= rank - 1


# Card sets as 52-bit masks (bit ``c`` for card ``c``) make "does any card of this
# run fit that column?" a single AND, which keeps legal-move generation cheap.
ALL_CARDS = (1 << NUM_CARDS) - 1
KINGS = (1 << 12) | (1 << 25) | (1 << 38) | (1 << 51)
_BLACK_PAIR = (1 << 0) | (1 << 39)  # the aces of clubs and spades, shifted up by rank
_RED_PAIR = (1 << 13) | (1 << 26)  # the aces of diamonds and hearts


def _accepts_table() -> np.ndarray:
    """The fitting rule as a table of card sets: what a column accepts, by its last card.

    Row ``top + 1``: the two cards one rank below ``top`` in the other colour (none below
    an ace). Row 0: an empty column under the king rule (kings); row 53: an empty column
    under ``empty_column="any"`` (every card).
    """
    table = np.zeros(NUM_CARDS + 2, np.int64)
    table[0] = KINGS
    table[NUM_CARDS + 1] = ALL_CARDS
    for top in range(NUM_CARDS):
        below = top % NUM_RANKS - 1  # rank index of the cards that fit
        if below >= 0:
            table[top + 1] = (_BLACK_PAIR if card_is_red.py_func(top) else _RED_PAIR) << below
    return table


def _run_table(accepts: np.ndarray) -> np.ndarray:
    """Face-up runs as colour-blind card sets, by last card and length.

    Entry ``[top + 1, length]`` holds, for each card of a ``length``-card run ending on
    ``top``, both cards of its colour and rank: each card up the run is one that accepts
    the card below it (``accepts``), so the sets follow from the fitting rule alone.
    """
    table = np.zeros((NUM_CARDS + 1, COLUMN_SLOTS + 1), np.int64)
    for top in range(NUM_CARDS):
        level = (_RED_PAIR if card_is_red.py_func(top) else _BLACK_PAIR) << (top % NUM_RANKS)
        cards = 0
        for length in range(1, COLUMN_SLOTS + 1):
            cards |= level
            table[top + 1, length] = cards
            level = sum(1 << card for card in range(NUM_CARDS) if accepts[card + 1] & level)
    return table


_ACCEPTS_BY_TOP = _accepts_table()
_RUN_BY_TOP_AND_LENGTH = _run_table(_ACCEPTS_BY_TOP)


@njit(cache=True)
def column_accepts(state, rules, col):
    """The set of cards (a 52-bit mask) that may be placed on column ``col``.

    A non-empty column takes the two cards one rank below its last card in the
    other colour; an empty one takes kings, or any card under ``empty_column="any"``
    (:func:`_accepts_table`).
    """
    length = state[COLUMN_LENGTH + col]
    if length == 0:
        return _ACCEPTS_BY_TOP[NUM_CARDS + 1 if rules[RULE_EMPTY_ANY] == 1 else 0]
    return _ACCEPTS_BY_TOP[state[TABLEAU + COLUMN_SLOTS * col + length - 1] + 1]


@njit(cache=True)
def fits_column(state, rules, card, col):
    """Can ``card`` (alone or heading a run) be placed on column ``col``?"""
    return (column_accepts(state, rules, col) >> card) & 1 == 1


@njit(cache=True)
def column_run(state, col):
    """The face-up run of column ``col`` as a colour-blind card set (:func:`_run_table`: both
    cards of each colour and rank in it; 0 when empty). What a column accepts is always such
    pairs, so ``column_run(s) & column_accepts(d)`` is empty exactly when no card of the run
    fits ``d``; one table read instead of a loop over the run."""
    length = state[COLUMN_LENGTH + col]
    if length == 0:
        return np.int64(0)
    top = state[TABLEAU + COLUMN_SLOTS * col + length - 1]
    return _RUN_BY_TOP_AND_LENGTH[top + 1, length - state[COLUMN_DOWN + col]]


@njit(cache=True, inline="always")
def column_action(source, dest):
    """Action id of the tableau move ``source -> dest``."""
    k = dest if dest < source else dest - 1
    return COLUMN_TO_COLUMN + 6 * source + k


@njit(cache=True, inline="always")
def column_action_dest(source, k):
    return k if k < source else k + 1


@njit(cache=True)
def run_start(state, rules, source, dest):
    """Depth in ``source`` of the head of the face-up run that fits ``dest``, or -1.

    Face-up cards of a column always form one run, so at most one of its tails
    can fit a given destination (docs/contract.md, "Actions"); on an empty destination
    under the king rule that is the run headed by the king, and under
    ``empty_column="any"`` the whole face-up run.
    """
    accepts = column_accepts(state, rules, dest)
    base = TABLEAU + COLUMN_SLOTS * source
    for depth in range(state[COLUMN_DOWN + source], state[COLUMN_LENGTH + source]):
        if (accepts >> state[base + depth]) & 1:
            return depth
    return -1


@njit(cache=True, inline="always")
def recycle_allowed_after(recycles, max_passes):
    """May the waste be recycled after ``recycles`` recycles, with ``max_passes`` passes (0: unlimited)?

    :func:`recycle_allowed` from the two numbers: callers that hold them pass no arrays,
    so they pay no reference counting.
    """
    return max_passes == 0 or recycles < max_passes - 1


@njit(cache=True)
def recycle_allowed(state, rules):
    return recycle_allowed_after(state[RECYCLES], rules[RULE_MAX_PASSES])


@njit(cache=True)
def _column_sets(state, rules, col):
    """Column ``col`` for :func:`legal_mask`: what it accepts, its face-up run (colour-blind,
    :func:`_run_table`) and its last card + 1 (0 when empty)."""
    length = state[COLUMN_LENGTH + col]
    top_row = state[TABLEAU + COLUMN_SLOTS * col + max(length - 1, 0)] + 1 if length > 0 else 0
    run = _RUN_BY_TOP_AND_LENGTH[top_row, length - state[COLUMN_DOWN + col]]
    return column_accepts(state, rules, col), run, np.int64(top_row)


@njit(cache=True)
def legal_mask(state, rules, mask):
    """Fill ``mask`` (87 entries, 1 legal / 0 not). Returns the number legal.

    Every entry is written, none by a branch: random positions make such branches
    unpredictable. Each column's face-up run is read from a table by its last card and
    its length, colour-blind (both cards of each rank's colour): every acceptance set is
    colour-blind too (kings, all cards, or both cards of one colour and rank), and a
    face-up run alternates colours, so the run meets a set exactly when the table's
    entry does. Card tests shift sets left by one so that "no card" (-1) tests bit 0,
    which is never set.
    """
    talon_length = state[TALON_LENGTH]
    waste_length = state[WASTE_LENGTH]
    draw = waste_length < talon_length
    recycle = (not draw) and waste_length > 0 and recycle_allowed_after(state[RECYCLES], rules[RULE_MAX_PASSES])
    mask[DRAW] = draw
    mask[RECYCLE] = recycle
    count = np.int64(draw) + np.int64(recycle)
    # the next card of each foundation, shifted up by one (bit c + 1 for card c)
    foundation_next = np.int64(0)
    for suit in range(NUM_SUITS):
        height = state[FOUNDATION + suit]
        foundation_next |= np.int64(height < NUM_RANKS) << (NUM_RANKS * suit + height + 1)
    # what each column accepts and its face-up run; a tuple, not an array: no allocation per call
    columns = (
        _column_sets(state, rules, 0), _column_sets(state, rules, 1), _column_sets(state, rules, 2),
        _column_sets(state, rules, 3), _column_sets(state, rules, 4), _column_sets(state, rules, 5),
        _column_sets(state, rules, 6),
    )
    for col in range(NUM_COLUMNS):  # column to foundation: the last card (its row, 0 when empty)
        legal = (foundation_next >> columns[col][2]) & 1
        mask[COLUMN_TO_FOUNDATION + col] = legal
        count += legal
    waste_row = state[TALON + max(waste_length - 1, 0)] + 1 if waste_length > 0 else 0
    legal = (foundation_next >> waste_row) & 1
    mask[WASTE_TO_FOUNDATION] = legal
    count += legal
    for col in range(NUM_COLUMNS):
        legal = ((columns[col][0] << 1) >> waste_row) & 1
        mask[WASTE_TO_COLUMN + col] = legal
        count += legal
    for source in range(NUM_COLUMNS):
        for k in range(NUM_COLUMNS - 1):
            legal = np.int64(columns[source][1] & columns[column_action_dest(source, k)][0] != 0)
            mask[COLUMN_TO_COLUMN + 6 * source + k] = legal
            count += legal
    allowed = rules[RULE_FOUNDATION_TO_TABLEAU] == 1
    for suit in range(NUM_SUITS):
        height = state[FOUNDATION + suit]
        # the foundation's top card + 1 (its shifted bit), and whether there is one
        shift = NUM_RANKS * suit + height
        present = allowed and height > 0
        for col in range(NUM_COLUMNS):
            legal = ((columns[col][0] << 1) >> shift) & np.int64(present)
            mask[FOUNDATION_TO_COLUMN + NUM_COLUMNS * suit + col] = legal
            count += legal
    return count


@njit(cache=True)
def legal_actions(state, rules, mask, actions):
    """Fill ``mask`` as :func:`legal_mask` does and ``actions[:count]`` with the legal ids, ascending."""
    count = legal_mask(state, rules, mask)
    written = 0
    for action in range(NUM_ACTIONS):
        actions[written] = action
        written += mask[action]  # branch-free compaction
    return count


@njit(cache=True)
def is_legal(state, rules, action):
    if action < 0 or action >= NUM_ACTIONS:
        return False
    mask = np.empty(NUM_ACTIONS, np.uint8)
    legal_mask(state, rules, mask)
    return mask[action] == 1


@njit(cache=True)
def nth_legal(mask, index):
    """The ``index``-th legal action (0-based, ascending ids) of a filled mask."""
    for action in range(NUM_ACTIONS):
        if mask[action]:
            if index == 0:
                return action
            index -= 1
    return -1


# --- applying moves ----------------------------------------------------------
@njit(cache=True)
def _push_column(state, col, card):
    length = state[COLUMN_LENGTH + col]
    state[TABLEAU + COLUMN_SLOTS * col + length] = card
    state[COLUMN_LENGTH + col] = length + 1


@njit(cache=True)
def _shorten_column(state, col, new_length):
    """Cut column ``col`` to ``new_length`` cards; flip the new last card.

    Returns 1 when a face-down card was turned up, else 0.
    """
    base = TABLEAU + COLUMN_SLOTS * col
    for depth in range(new_length, state[COLUMN_LENGTH + col]):
        state[base + depth] = -1
    state[COLUMN_LENGTH + col] = new_length
    if new_length > 0 and state[COLUMN_DOWN + col] >= new_length:
        state[COLUMN_DOWN + col] = new_length - 1
        return 1
    return 0


@njit(cache=True)
def _pop_waste(state):
    waste_length = state[WASTE_LENGTH]
    talon_length = state[TALON_LENGTH]
    card = state[TALON + waste_length - 1]
    for i in range(waste_length - 1, talon_length - 1):
        state[TALON + i] = state[TALON + i + 1]
    state[TALON + talon_length - 1] = -1
    state[TALON_LENGTH] = talon_length - 1
    state[WASTE_LENGTH] = waste_length - 1
    return card


@njit(cache=True)
def apply_action(state, rules, action):
    """Play ``action``, which must be legal. Returns the number of cards flipped (0/1)."""
    state[MOVES] += 1
    if action == DRAW:
        state[WASTE_LENGTH] = min(state[WASTE_LENGTH] + rules[RULE_DRAW_COUNT], state[TALON_LENGTH])
        return 0
    if action == RECYCLE:
        state[WASTE_LENGTH] = 0
        state[RECYCLES] += 1
        return 0
    if action == WASTE_TO_FOUNDATION:
        card = _pop_waste(state)
        state[FOUNDATION + card // NUM_RANKS] += 1
        return 0
    if action < COLUMN_TO_FOUNDATION:
        card = _pop_waste(state)
        _push_column(state, action - WASTE_TO_COLUMN, card)
        return 0
    if action < COLUMN_TO_COLUMN:
        col = action - COLUMN_TO_FOUNDATION
        card = column_top(state, col)
        state[FOUNDATION + card // NUM_RANKS] += 1
        return _shorten_column(state, col, state[COLUMN_LENGTH + col] - 1)
    if action < FOUNDATION_TO_COLUMN:
        offset = action - COLUMN_TO_COLUMN
        source = offset // 6
        dest = column_action_dest(source, offset % 6)
        start = run_start(state, rules, source, dest)
        base = TABLEAU + COLUMN_SLOTS * source
        for depth in range(start, state[COLUMN_LENGTH + source]):
            _push_column(state, dest, state[base + depth])
        return _shorten_column(state, source, start)
    offset = action - FOUNDATION_TO_COLUMN
    suit = offset // NUM_COLUMNS
    col = offset % NUM_COLUMNS
    state[FOUNDATION + suit] -= 1
    _push_column(state, col, NUM_RANKS * suit + state[FOUNDATION + suit])
    return 0


# --- game end ----------------------------------------------------------------
@njit(cache=True)
def foundation_total(state):
    return state[FOUNDATION] + state[FOUNDATION + 1] + state[FOUNDATION + 2] + state[FOUNDATION + 3]


@njit(cache=True)
def is_won(state):
    return foundation_total(state) == NUM_CARDS


@njit(cache=True)
def _card_playable(state, rules, card):
    if fits_foundation(state, card):
        return True
    for col in range(NUM_COLUMNS):
        if fits_column(state, rules, card, col):
            return True
    return False


@njit(cache=True)
def is_dead(state, rules):
    """True when no card move can be reached by draws and recycles alone (docs/contract.md).

    Draws and recycles never change the talon's order, so the waste tops they can
    reach form a fixed set: the current top, the tops after each further draw of
    this pass, and -- when a recycle is still allowed -- the tops of a fresh pass.
    """
    mask = np.empty(NUM_ACTIONS, np.uint8)
    return is_dead_given_mask(state, rules, mask, legal_mask(state, rules, mask))


@njit(cache=True, inline="always")
def talon_walk(state, draw_count, may_recycle):
    """How many waste lengths draws and recycles alone go through from here: ``(forward, total)``.

    Step ``i < forward`` of the walk is ``i`` draws of ``draw_count`` cards from now (step 0,
    the current waste; the last, the whole talon); when ``may_recycle``
    (:func:`recycle_allowed`), steps ``forward`` to ``total - 1`` follow the recycle, step
    ``forward + j`` after ``j + 1`` draws. :func:`talon_walk_length` gives each step's waste
    length ``n``; ``n > 0`` has talon card ``n - 1`` on top. Further recycles reach nothing
    new, as a recycle keeps the talon's order.

    The one walk behind :func:`is_dead`, the observation's reachable-tops plane and the
    solver's talon moves and stuck-card check. (Numbers, not the rules array, are passed, and
    nothing is allocated: the observation encoder calls it every step.)
    """
    talon_length = state[TALON_LENGTH]
    forward = 1 + (talon_length - state[WASTE_LENGTH] + draw_count - 1) // draw_count
    if not may_recycle:
        return forward, forward
    return forward, forward + (talon_length + draw_count - 1) // draw_count


@njit(cache=True, inline="always")
def talon_walk_length(state, draw_count, forward, step):
    """The waste length at ``step`` of :func:`talon_walk` (``forward``: its first number)."""
    if step < forward:
        reached = state[WASTE_LENGTH] + step * draw_count
    else:
        reached = (step - forward + 1) * draw_count
    return min(reached, state[TALON_LENGTH])


@njit(cache=True)
def is_dead_given_mask(state, rules, mask, count):
    """:func:`is_dead` for a position whose legal ``mask`` (and its ``count``) is already filled.

    The env computes the mask after every move anyway; this spares a second one.
    """
    if is_won(state):
        return False
    if count > mask[DRAW] + mask[RECYCLE]:
        return False  # a card move is legal now
    draw_count = rules[RULE_DRAW_COUNT]
    forward, total = talon_walk(state, draw_count, recycle_allowed(state, rules))
    # the current waste top (step 0) has no legal move, or the count would say so
    for step in range(1, total):
        if _card_playable(state, rules, state[TALON + talon_walk_length(state, draw_count, forward, step) - 1]):
            return False
    return True


# --- knowledge -----------------------------------------------------------------
@njit(cache=True)
def hidden_mask(state, hidden):
    """Mark in ``hidden`` (52 entries) the cards the player has never seen."""
    hidden[:] = 0
    for col in range(NUM_COLUMNS):
        base = TABLEAU + COLUMN_SLOTS * col
        for depth in range(state[COLUMN_DOWN + col]):
            hidden[state[base + depth]] = 1
    if state[RECYCLES] == 0:
        for i in range(state[WASTE_LENGTH], state[TALON_LENGTH]):
            hidden[state[TALON + i]] = 1


@njit(cache=True)
def hidden_count(state, stock_visible):
    """How many cards the player has never seen (``hidden_mask``'s, counted: the face-down ones,
    and before the first recycle the talon cards not yet drawn); with ``stock_visible``, only the
    face-down ones."""
    count = 0
    for col in range(NUM_COLUMNS):
        count += state[COLUMN_DOWN + col]
    if not stock_visible and state[RECYCLES] == 0:
        count += state[TALON_LENGTH] - state[WASTE_LENGTH]
    return count


@njit(cache=True)
def public_cards(state, stock_visible, out):
    """Copy ``state`` without its move count into ``out`` (``MOVES`` entries), every card the
    player has never seen replaced by -1 (with ``stock_visible``, only the face-down ones)."""
    hidden = np.empty(NUM_CARDS, np.uint8)
    hidden_mask(state, hidden)
    for i in range(MOVES):
        out[i] = state[i]
    for i in range(TABLEAU, COLUMN_LENGTH):
        if out[i] >= 0 and hidden[out[i]] == 1:
            out[i] = -1
    if not stock_visible:
        for i in range(TALON, TALON_LENGTH):
            if out[i] >= 0 and hidden[out[i]] == 1:
                out[i] = -1


# --- whole-game loops (benchmarks, batched play) -------------------------------
@njit(cache=True)
def random_playout_moves(deal_start, rules, num_moves, seed):
    """Play ``num_moves`` uniformly random legal actions from deal ``deal_start`` on.

    The next deal starts after a win, a position with no legal action, or 1,000 moves.

    The loop used by the core benchmark: legal-move generation, move choice and
    application all happen here. Returns ``(games_finished, games_won)``.
    """
    np.random.seed(seed)
    state = np.empty(STATE_SIZE, np.int32)
    mask = np.empty(NUM_ACTIONS, np.uint8)
    deal = deal_start
    init_state_from_deal(np.uint64(deal), state)
    finished = 0
    won = 0
    for _ in range(num_moves):
        count = legal_mask(state, rules, mask)
        if count > 0:
            apply_action(state, rules, nth_legal(mask, np.random.randint(count)))
        if count == 0 or is_won(state) or state[MOVES] >= 1000:
            finished += 1
            if is_won(state):
                won += 1
            deal += 1
            init_state_from_deal(np.uint64(deal), state)
    return finished, won
