"""Observation encodings: what an agent sees of a position, as a flat ``float32`` vector
(or, with dtype ``uint8``, the integer numerators of its values: see below).

Three modes share one layout; each richer mode appends planes to the one before, so
``visible`` is a prefix of ``information``, which is a prefix of ``full``:

* ``"visible"`` -- only what is on the table now: face-up tableau cards, foundations,
  the waste's top card and the counts (for agents with memory of their own).
* ``"information"`` (default) -- everything a player who remembers what was shown
  knows (docs/contract.md "Information"): adds the whole waste in order, the stock cards already
  seen and the talon order, and the set of still-hidden cards.
* ``"full"`` -- Thoughtful Klondike: **shows the hidden cards** (face-down cards and
  the undrawn stock, with their order). For curricula and oracles only; it is the one
  mode that leaks hidden information, by design.

Layout (all values in ``[0, 1]``; ``S = NUM_SCALARS = 17``, planes hold 52 entries
indexed by card id ``13 * suit + rank - 1``; plane ``p`` is ``obs[S + 52 p : S + 52 (p + 1)]``):

=====================  ========================================================  ===========
slice                  meaning                                                   modes
=====================  ========================================================  ===========
``0:7``                face-down cards in column c, / 6                          all
``7:11``               cards on the foundation of suit s, / 13                   all
``11``                 stock size, / 24                                          all
``12``                 waste size, / 24                                          all
``13``                 stock cards never seen, / 24                              all
``14``                 1 during the first pass (before any recycle)              all
``15``                 1 when a recycle is still allowed by ``max_passes``       all
``16``                 recycles made so far, capped at 10, / 10                  all
planes 0-6             card is face up in column c (a column's face-up cards     all
                       form one run, so the set fixes their order)
plane 7                card is on its foundation                                 all
plane 8                card is the waste's top (the playable waste card)         all
plane 9                card is in the waste                                      information, full
plane 10               card is in the stock and known (in ``full``: in stock)    information, full
plane 11               card is hidden: face down or an undrawn first-pass stock  information, full
                       card (the set; its place is not shown)
plane 12               known talon card at talon index i (waste bottom first,    information, full
                       then the stock in draw order): (i + 1) / 24
plane 13               known talon card that draws and recycles alone can make   information, full
                       the waste's top (this pass, or the next when allowed)
planes 14-20           card is face down in column c                             full
plane 21               tableau card at depth d of its column: (d + 1) / 19       full
=====================  ========================================================  ===========

Sizes: ``visible`` 485, ``information`` 745, ``full`` 1161 (:func:`observation_size`).

dtype: every value is k / d, a small integer k over the fixed divisor d of its slot (1 for
the 0/1 entries; 6, 13, 24, 10 and 19 as in the table; 13 for "cards moved"). A ``uint8``
observation (the envs' ``observation_dtype="uint8"``) holds k, a quarter of the bytes;
``uint8_obs / observation_divisors(mode)`` in float32 is the float32 observation bit for bit.

Per-action features: each mode with ``"+actions"`` appended (``"information+actions"``, ...)
adds ``87 * ACTION_FEATURES`` entries after its planes: ``obs[n + 8 a + f]`` for action ``a``
(``n`` the base mode's size; all zero when ``a`` is illegal), ``f`` one of the ``F_*``
slots below (legal, goes home, turns a card up, empties its column, onto an empty column,
uncovers a card that fits its foundation, cards moved / 13, the card going home is safe).
They read face-up cards, counts and foundations only, so they hide what the planes hide.
A player mode with ``"+full"`` appended (``"information+actions+full"``, ...) is that mode's
observation followed by the ``"full"`` planes (1161 entries): **it shows the hidden cards**,
for training an actor-critic whose critic may see them (asymmetric actor-critic) while the
actor reads only the player's part (:func:`player_part`; ``agents.training.networks``).
Everything is computed by numba kernels from the state alone: the talon is never
reordered (core.py), so which talon cards are known follows from the pass number and
the waste length, as in :func:`klondike_env.core.hidden_mask`.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from numba import njit, types
from numba.extending import overload

from klondike_env import core

BASE_MODES = ("information", "visible", "full")
ACTIONS_SUFFIX = "+actions"  # e.g. "information+actions": per-action features appended
# e.g. "information+actions+full": a player's observation, then the "full" one for a
# critic that may see the hidden cards while training (agents.training.networks)
FULL_SUFFIX = "+full"
PLAYER_MODES = ("information", "visible")
_WITH_FULL_PART = tuple(mode + suffix for mode in PLAYER_MODES for suffix in ("", ACTIONS_SUFFIX))
OBSERVATION_MODES = (BASE_MODES + tuple(mode + ACTIONS_SUFFIX for mode in BASE_MODES)
                     + tuple(mode + FULL_SUFFIX for mode in _WITH_FULL_PART))
MODE_VISIBLE = 0
MODE_INFORMATION = 1
MODE_FULL = 2
MODE_BASE_BITS = 3  # mode id & 3 is the base mode
WITH_ACTIONS = 4  # mode id bit: per-action features follow the planes
WITH_FULL = 8  # mode id bit: the "full" observation follows
_MODE_IDS = {"visible": MODE_VISIBLE, "information": MODE_INFORMATION, "full": MODE_FULL}
_MODE_IDS.update({mode + ACTIONS_SUFFIX: _MODE_IDS[mode] | WITH_ACTIONS for mode in BASE_MODES})
_MODE_IDS.update({mode + FULL_SUFFIX: _MODE_IDS[mode] | WITH_FULL for mode in _WITH_FULL_PART})

# scalar slots
S_FACE_DOWN = 0
S_FOUNDATION = 7
S_STOCK = 11
S_WASTE = 12
S_UNSEEN_STOCK = 13
S_FIRST_PASS = 14
S_RECYCLE_ALLOWED = 15
S_RECYCLES = 16
NUM_SCALARS = 17
RECYCLES_CAP = 10

# planes (index p: obs[NUM_SCALARS + 52 * p + card])
P_COLUMN_UP = 0
P_FOUNDATION = 7
P_WASTE_TOP = 8
P_WASTE = 9
P_STOCK = 10
P_HIDDEN = 11
P_TALON_ORDER = 12
P_REACHABLE_TOP = 13
P_COLUMN_DOWN = 14
P_DEPTH = 21
PLANES_BY_MODE = (9, 14, 22)  # indexed by base mode id

# per-action features (modes "...+actions"): obs[A + ACTION_FEATURES * a + f] for action a,
# where A = observation_size(base mode); all zero for an illegal action
F_LEGAL = 0  # the action is legal
F_TO_FOUNDATION = 1  # a card goes onto a foundation
F_FLIPS = 2  # a face-down card turns up (which one is not known)
F_EMPTIES = 3  # the source column is left empty
F_TO_EMPTY = 4  # the cards land on an empty column
F_UNCOVERS_HOME = 5  # the card left on top of the source column fits its foundation
F_CARDS = 6  # cards moved / 13
F_SAFE_HOME = 7  # a card goes home that no tableau card could still want (core.is_safe_to_foundation)
ACTION_FEATURES = 8


# the observation's element types: "float32" holds each value, "uint8" its integer
# numerator (a quarter of the bytes to write; the value is numerator / divisor)
OBSERVATION_DTYPES = ("float32", "uint8")


class ObservationModeError(ValueError):
    """An unknown observation mode."""


class ObservationDtypeError(ValueError):
    """An unknown observation dtype."""


def check_dtype(dtype) -> str:
    """``dtype``'s name if it is one of :data:`OBSERVATION_DTYPES`, else :class:`ObservationDtypeError`."""
    try:
        name = np.dtype(dtype).name
    except TypeError:  # not a dtype at all
        name = None
    if name not in OBSERVATION_DTYPES:
        raise ObservationDtypeError(
            f"bad observation_dtype {dtype!r}: allowed are {', '.join(map(repr, OBSERVATION_DTYPES))}"
        )
    return name


def mode_id(mode: str) -> int:
    """The kernels' integer for a mode name."""
    if mode not in _MODE_IDS:
        raise ObservationModeError(
            f"unknown observation mode {mode!r}: allowed modes are {', '.join(map(repr, OBSERVATION_MODES))}"
        )
    return _MODE_IDS[mode]


def observation_size(mode: str = "information") -> int:
    """Length of the observation vector in ``mode``."""
    return _size(mode_id(mode))


def reveals_hidden_cards(mode: str) -> bool:
    """Whether ``mode`` shows where hidden cards lie (``"full"``, ``"full+actions"`` and the
    ``"...+full"`` modes)."""
    number = mode_id(mode)
    return number & MODE_BASE_BITS == MODE_FULL or bool(number & WITH_FULL)


def pad_player_observation(observation: np.ndarray, mode: str) -> np.ndarray:
    """A player's observation (mode :func:`player_part` of ``mode``; one or a batch of rows)
    made the length of ``mode``'s: the ``"+full"`` entries are zeros (a model trained with a
    ``"+full"`` mode plays from the player's part alone). Other modes: unchanged."""
    missing = observation_size(mode) - observation.shape[-1]
    if missing == 0:
        return observation
    zeros = np.zeros(observation.shape[:-1] + (missing,), observation.dtype)
    return np.concatenate([observation, zeros], axis=-1)


def player_part(mode: str) -> str:
    """The player's mode inside ``mode``: ``"information+actions"`` for
    ``"information+actions+full"``; any other mode is its own."""
    mode_id(mode)  # an unknown mode is an error here too
    return mode[: -len(FULL_SUFFIX)] if mode.endswith(FULL_SUFFIX) else mode


@njit(cache=True, inline="always")
def _planes_size(mode):
    return NUM_SCALARS + core.NUM_CARDS * PLANES_BY_MODE[mode & MODE_BASE_BITS]


@njit(cache=True)
def _player_size(mode):
    """The size of the observation before a ``+full`` part."""
    size = _planes_size(mode)
    if mode & WITH_ACTIONS:
        size += core.NUM_ACTIONS * ACTION_FEATURES
    return size


@njit(cache=True)
def _size(mode):
    size = _player_size(mode)
    if mode & WITH_FULL:
        size += _planes_size(MODE_FULL)
    return size


def observation_space(mode: str = "information", dtype="float32") -> spaces.Box:
    """The Gymnasium space of one observation: ``Box(0, 1, (size,), float32)`` or ``Box(0, 255, (size,), uint8)``."""
    if check_dtype(dtype) == "uint8":
        return spaces.Box(0, 255, (observation_size(mode),), np.uint8)
    return spaces.Box(0.0, 1.0, (observation_size(mode),), np.float32)


def observation_divisors(mode: str = "information") -> np.ndarray:
    """Each entry's divisor (float32): ``uint8 observation / divisors == float32 observation``, bit for bit.

    The entries are fractions k / d of small integers (the layout table); a uint8
    observation holds k. IEEE division is correctly rounded, so dividing the uint8
    observation as float32 by d gives exactly the float32 observation's ``np.float32(k / d)``
    (numpy and torch alike). Multiplying by ``1 / d`` instead would miss by one unit in the
    last place for some k (5 * float32(1/6) != float32(5/6)).
    """
    if mode.endswith(FULL_SUFFIX):
        return np.concatenate([observation_divisors(player_part(mode)), observation_divisors("full")])
    divisors = np.ones(observation_size(mode), np.float32)
    divisors[S_FACE_DOWN:S_FACE_DOWN + core.NUM_COLUMNS] = 6
    divisors[S_FOUNDATION:S_FOUNDATION + core.NUM_SUITS] = core.NUM_RANKS
    divisors[[S_STOCK, S_WASTE, S_UNSEEN_STOCK]] = core.TALON_SLOTS
    divisors[S_RECYCLES] = RECYCLES_CAP
    mode_number = mode_id(mode)
    planes = PLANES_BY_MODE[mode_number & MODE_BASE_BITS]
    for plane, divisor in ((P_TALON_ORDER, core.TALON_SLOTS), (P_DEPTH, 19)):
        if plane < planes:
            divisors[_plane_index(plane, 0):_plane_index(plane + 1, 0)] = divisor
    if mode_number & WITH_ACTIONS:
        divisors[_planes_size(mode_number) + F_CARDS::ACTION_FEATURES] = core.NUM_RANKS
    return divisors


@njit(cache=True, inline="always")
def _plane_index(plane, card):
    return NUM_SCALARS + core.NUM_CARDS * plane + card


# :func:`encode` gathers each 0/1 plane as a card set (bit ``c`` for card ``c``, as in core.py)
# and writes it whole, 8 floats per byte of the set from a table: fewer, sequential stores
# than zeroing the planes and then marking cards one by one. The helpers are inlined (a
# call each cost more).

# Every value is a fraction k / d with a small integer k and a fixed divisor d (1 for the
# 0/1 entries): the float32 observation holds the value, the uint8 one holds k. The kernels
# read both from tables of the observation's dtype, picked while compiling (:func:`_tables`),
# so one kernel writes either: ``fractions[d, k]`` is k / d, ``byte_bits[b, i]`` bit i of byte b.
# The float32 tables round k / d from float64 (as ``np.float32(k / d)``), and a table look-up
# costs less than the division.
_MAX_NUMERATOR = 24  # the largest k and d: a talon index + 1, a stock or waste size (TALON_SLOTS)
_NUMERATORS = np.arange(_MAX_NUMERATOR + 1)
with np.errstate(divide="ignore", invalid="ignore"):  # row 0 (no divisor 0) is never read
    _FRACTIONS = {
        "float32": (_NUMERATORS[None, :] / _NUMERATORS[:, None]).astype(np.float32),
        "uint8": np.repeat(_NUMERATORS[None, :], _MAX_NUMERATOR + 1, axis=0).astype(np.uint8),
    }
_BYTE_BITS = {
    name: np.array([[(byte >> bit) & 1 for bit in range(8)] for byte in range(256)], name)
    for name in OBSERVATION_DTYPES
}


def _tables(obs):
    """``(fractions, byte_bits)`` in the dtype of ``obs`` (compiled code only, see :func:`_tables_of`)."""
    raise NotImplementedError("_tables is called from compiled code only")


@overload(_tables, inline="always")
def _tables_of(obs):
    # runs while numba compiles: the tables of obs's dtype become constants of the kernel
    if not isinstance(obs, types.Array) or str(obs.dtype) not in OBSERVATION_DTYPES:
        return None
    fractions, byte_bits = _FRACTIONS[str(obs.dtype)], _BYTE_BITS[str(obs.dtype)]
    return lambda obs: (fractions, byte_bits)


@njit(cache=True, inline="always")
def _write_scalars(state, recycle_allowed, obs):
    fractions = _tables(obs)[0]
    talon_length = state[core.TALON_LENGTH]
    waste_length = state[core.WASTE_LENGTH]
    recycles = state[core.RECYCLES]
    for col in range(core.NUM_COLUMNS):
        obs[S_FACE_DOWN + col] = fractions[6, state[core.COLUMN_DOWN + col]]
    for suit in range(core.NUM_SUITS):
        obs[S_FOUNDATION + suit] = fractions[13, state[core.FOUNDATION + suit]]
    obs[S_STOCK] = fractions[24, talon_length - waste_length]
    obs[S_WASTE] = fractions[24, waste_length]
    # before the first recycle the stock beyond the waste is unseen (core.hidden_mask)
    obs[S_UNSEEN_STOCK] = fractions[24, talon_length - waste_length if recycles == 0 else 0]
    obs[S_FIRST_PASS] = 1 if recycles == 0 else 0
    obs[S_RECYCLE_ALLOWED] = 1 if recycle_allowed else 0
    obs[S_RECYCLES] = fractions[RECYCLES_CAP, min(recycles, RECYCLES_CAP)]


@njit(cache=True, inline="always")
def _column_sets(state, base, down, length):
    """A column's face-down and face-up cards as card sets.

    One loop over the column with selects rather than one loop per set: fewer loop exits
    that differ game by game (likely branch misses); measured 5-12% off ``encode_batch`` on
    varied positions.
    """
    face_down = np.int64(0)
    face_up = np.int64(0)
    for depth in range(length):
        bit = np.int64(1) << state[base + depth]
        face_down |= bit if depth < down else np.int64(0)
        face_up |= bit if depth >= down else np.int64(0)
    return face_down, face_up


@njit(cache=True, inline="always")
def _zero(obs, start, stop):
    """``obs[start:stop] = 0`` as a loop: a slice would be an array view, with reference counting."""
    for index in range(start, stop):
        obs[index] = 0


@njit(cache=True, inline="always")
def _write_plane(plane, cards, obs):
    """Plane ``plane`` := the card set ``cards`` (1 for a card in it, else 0), all 52 entries."""
    byte_bits = _tables(obs)[1]
    base = _plane_index(plane, 0)
    for byte in range(core.NUM_CARDS // 8 + 1):
        bits = (cards >> (8 * byte)) & 255
        for bit in range(min(8, core.NUM_CARDS - 8 * byte)):
            obs[base + 8 * byte + bit] = byte_bits[bits, bit]


@njit(cache=True, inline="always")
def _write_tableau(state, mode, obs):
    """Each column's face-up cards; face-down ones as hidden (returned); in ``full`` their places."""
    full = mode == MODE_FULL
    fractions = _tables(obs)[0]
    if full:
        _zero(obs, _plane_index(P_DEPTH, 0), _plane_index(P_DEPTH + 1, 0))
    hidden = np.int64(0)
    for col in range(core.NUM_COLUMNS):
        base = core.TABLEAU + core.COLUMN_SLOTS * col
        down = state[core.COLUMN_DOWN + col]
        length = state[core.COLUMN_LENGTH + col]
        face_down, face_up = _column_sets(state, base, down, length)
        _write_plane(P_COLUMN_UP + col, face_up, obs)
        hidden |= face_down
        if full:
            _write_plane(P_COLUMN_DOWN + col, face_down, obs)
            for depth in range(length):
                obs[_plane_index(P_DEPTH, state[base + depth])] = fractions[19, depth + 1]
    return hidden


@njit(cache=True, inline="always")
def _foundation_cards(state):
    cards = np.int64(0)
    for suit in range(core.NUM_SUITS):
        cards |= ((np.int64(1) << state[core.FOUNDATION + suit]) - 1) << (core.NUM_RANKS * suit)
    return cards


@njit(cache=True, inline="always")
def _write_talon(state, draw_count, recycle_allowed, mode, hidden, obs):
    """Waste top; with memory: waste, known stock, talon order, reachable tops, and the hidden
    plane (``hidden``: the face-down cards, to which the unseen stock is added)."""
    talon_length = state[core.TALON_LENGTH]
    waste_length = state[core.WASTE_LENGTH]
    waste_top = np.int64(0)
    if waste_length > 0:
        waste_top = np.int64(1) << state[core.TALON + waste_length - 1]
    _write_plane(P_WASTE_TOP, waste_top, obs)
    if mode == MODE_VISIBLE:
        return
    # talon cards from index ``unseen_from`` on are still hidden (core.hidden_mask): the
    # undrawn stock of the first pass; after a recycle the whole talon has been seen
    unseen_from = waste_length if state[core.RECYCLES] == 0 else talon_length
    shown_to = talon_length if mode == MODE_FULL else unseen_from
    # one pass with selects, as in _column_sets
    waste, stock = np.int64(0), np.int64(0)
    for i in range(talon_length):
        bit = np.int64(1) << state[core.TALON + i]
        waste |= bit if i < waste_length else np.int64(0)
        stock |= bit if waste_length <= i < shown_to else np.int64(0)
        hidden |= bit if i >= unseen_from else np.int64(0)
    _write_plane(P_WASTE, waste, obs)
    _write_plane(P_STOCK, stock, obs)
    _write_plane(P_HIDDEN, hidden, obs)
    order = _plane_index(P_TALON_ORDER, 0)
    _zero(obs, order, order + core.NUM_CARDS)
    fractions = _tables(obs)[0]
    for i in range(shown_to):
        obs[order + state[core.TALON + i]] = fractions[24, i + 1]
    # waste tops reachable by draws (and one recycle) alone, as in core.is_dead: those after
    # one draw or more; only those at talon indices below ``shown_to`` are shown
    forward, total = core.talon_walk(state, draw_count, recycle_allowed)
    reachable = np.int64(0)
    for step in range(1, total):
        length = core.talon_walk_length(state, draw_count, forward, step)
        reachable |= (np.int64(1) << state[core.TALON + length - 1]) if length <= shown_to else np.int64(0)
    _write_plane(P_REACHABLE_TOP, reachable, obs)


@njit(cache=True)
def _write_action_features(state, rules, mask, obs, offset):
    """What each legal action visibly does (the ``F_*`` slots), from ``offset`` on.

    Only face-up cards, counts and foundations are read, as a player sees them, so
    the features hide what the planes hide. They spell out what an MLP would otherwise
    have to learn to read off the card planes: which moves turn a card up, go home, etc.
    """
    fractions = _tables(obs)[0]
    for action in range(core.NUM_ACTIONS):
        if mask[action] == 0:
            continue
        base = offset + ACTION_FEATURES * action
        obs[base + F_LEGAL] = 1
        if action <= core.RECYCLE:
            continue
        source, dest, start = -1, -1, -1  # source/dest columns, depth of the moving head
        card = -1
        if action == core.WASTE_TO_FOUNDATION:
            card = core.waste_top(state)
        elif action < core.COLUMN_TO_FOUNDATION:
            card, dest = core.waste_top(state), action - core.WASTE_TO_COLUMN
        elif action < core.COLUMN_TO_COLUMN:
            source = action - core.COLUMN_TO_FOUNDATION
            start = state[core.COLUMN_LENGTH + source] - 1
        elif action < core.FOUNDATION_TO_COLUMN:
            offset_in_block = action - core.COLUMN_TO_COLUMN
            source = offset_in_block // 6
            dest = core.column_action_dest(source, offset_in_block % 6)
            start = core.run_start(state, rules, source, dest)
        else:
            suit = (action - core.FOUNDATION_TO_COLUMN) // core.NUM_COLUMNS
            dest = (action - core.FOUNDATION_TO_COLUMN) % core.NUM_COLUMNS
            card = core.NUM_RANKS * suit + state[core.FOUNDATION + suit] - 1
        if source >= 0:
            card = core.column_card(state, source, start)
            down = state[core.COLUMN_DOWN + source]
            obs[base + F_CARDS] = fractions[13, state[core.COLUMN_LENGTH + source] - start]
            if start == 0:
                obs[base + F_EMPTIES] = 1
            elif start == down:
                obs[base + F_FLIPS] = 1
            elif core.fits_foundation(state, core.column_card(state, source, start - 1)):
                obs[base + F_UNCOVERS_HOME] = 1
        else:
            obs[base + F_CARDS] = fractions[13, 1]
        if dest < 0:  # onto a foundation
            obs[base + F_TO_FOUNDATION] = 1
            if core.is_safe_to_foundation(card, state[core.FOUNDATION : core.FOUNDATION + core.NUM_SUITS]):
                obs[base + F_SAFE_HOME] = 1
        elif state[core.COLUMN_LENGTH + dest] == 0:
            obs[base + F_TO_EMPTY] = 1


@njit(cache=True)
def encode(state, rules, mask, mode, obs):
    """Write the observation of ``state`` in mode ``mode`` (an int) into ``obs`` (float32 or uint8:
    the values or their numerators, :func:`observation_divisors`).

    ``mask`` is the legal mask of ``state`` (core.legal_mask), which every caller holds; the
    "+actions" modes read it (computing it again cost about a third of their encoding).
    """
    # the rules' one verdict the planes need, asked once, from numbers (no array passed:
    # no reference counting)
    recycle_allowed = core.recycle_allowed_after(state[core.RECYCLES], rules[core.RULE_MAX_PASSES])
    _write_planes(state, rules, recycle_allowed, mode, obs)
    if mode & WITH_ACTIONS:
        offset = _planes_size(mode)
        _zero(obs, offset, _player_size(mode))
        _write_action_features(state, rules, mask, obs, offset)
    if mode & WITH_FULL:
        _write_planes(state, rules, recycle_allowed, MODE_FULL, obs[_player_size(mode):])


@njit(cache=True)
def _write_planes(state, rules, recycle_allowed, mode, obs):
    """The scalars and card planes of ``mode`` from ``obs[0]`` on. A call, not inlined: inlined
    twice into :func:`encode` (the player's planes and a ``+full`` part) it doubled the kernels'
    compile time (82 s against 40 s to the first batched step of a fresh clone, 46 s so)."""
    _write_scalars(state, recycle_allowed, obs)
    hidden = _write_tableau(state, mode & MODE_BASE_BITS, obs)
    _write_plane(P_FOUNDATION, _foundation_cards(state), obs)
    _write_talon(state, rules[core.RULE_DRAW_COUNT], recycle_allowed, mode & MODE_BASE_BITS, hidden, obs)


@njit(cache=True)
def encode_batch(states, rules, masks, mode, observations):
    """:func:`encode` for every row of ``states`` (legal masks ``masks``) into the rows of ``observations``."""
    for row in range(states.shape[0]):
        encode(states[row], rules, masks[row], mode, observations[row])


def observe(game, mode: str = "information", dtype="float32") -> np.ndarray:
    """The observation of a :class:`~klondike_env.game.Game`, as the env returns it (``dtype``: float32 or uint8)."""
    obs = np.empty(observation_size(mode), check_dtype(dtype))
    game._update_legal()  # the cached mask, for the "+actions" modes
    encode(game._state, game._rules_array, game._mask, mode_id(mode), obs)
    return obs
