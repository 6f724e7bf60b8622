"""A memoryless policy's loop breaker: the moves each game has already played from each position.

A policy that maps an observation to an action (argmax, or nearly so) plays the same move
every time it comes back to a position, so once a game repeats a position it loops until
the episode is cut. :class:`MoveMemory` remembers, per game, which moves were played from
which positions and masks them out when the game is back there, so the policy's next
choice is its best move *not yet tried* from here. When every legal move has been tried
from a position its record starts afresh (the mask never comes out empty).

This is a choice of the agent, not a rule: the env's own mask stays the contract's legal
moves. It uses only what the player knows -- positions are identified by
:func:`position_hash`, which reads face-up cards, counts, foundations and the talon cards
already seen, never a hidden card -- so a player may do it, and the policy agent
(``agents/policy.py``), training (``policy.no_repeat`` in a config) and the training
evaluation apply the same memory.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from klondike_env import core

_HASH_MULTIPLIER = np.uint64(0x100000001B3)  # FNV-1a's 64-bit prime
_HASH_OFFSET = np.uint64(0xCBF29CE484222325)


@njit(cache=True, inline="always")
def _mix(value_hash, value):
    return (value_hash ^ np.uint64(value + 1)) * _HASH_MULTIPLIER


@njit(cache=True)
def position_hash(state, rules):
    """64-bit hash of the position as the player knows it.

    Face-down cards and unseen stock cards enter only as counts, so two games that differ
    only in where their hidden cards lie hash the same. The move count is left out, and so
    is the recycle count when passes are unlimited (it changes nothing that can happen).
    """
    value_hash = _HASH_OFFSET
    for col in range(core.NUM_COLUMNS):
        length = state[core.COLUMN_LENGTH + col]
        down = state[core.COLUMN_DOWN + col]
        value_hash = _mix(value_hash, length)
        value_hash = _mix(value_hash, down)
        base = core.TABLEAU + core.COLUMN_SLOTS * col
        for depth in range(down, length):
            value_hash = _mix(value_hash, state[base + depth])
    talon_length = state[core.TALON_LENGTH]
    waste_length = state[core.WASTE_LENGTH]
    value_hash = _mix(value_hash, talon_length)
    value_hash = _mix(value_hash, waste_length)
    # before the first recycle the stock below the waste is unseen; after it, all is known
    seen = waste_length if state[core.RECYCLES] == 0 else talon_length
    for index in range(seen):
        value_hash = _mix(value_hash, state[core.TALON + index])
    for suit in range(core.NUM_SUITS):
        value_hash = _mix(value_hash, state[core.FOUNDATION + suit])
    if rules[core.RULE_MAX_PASSES] > 0:
        value_hash = _mix(value_hash, state[core.RECYCLES])
    return value_hash


@njit(cache=True)
def _position_hashes(states, rules, out):
    for row in range(states.shape[0]):
        out[row] = position_hash(states[row], rules)


@njit(cache=True)
def _untried_masks(rows, hashes, masks, keys, played, counts, out):
    """``out[i]``: ``masks[i]`` less the moves game ``rows[i]`` played from position ``hashes[i]``."""
    for i in range(rows.shape[0]):
        row = rows[i]
        position = hashes[i]
        out[i, :] = masks[i, :]
        left = 0
        for action in range(core.NUM_ACTIONS):
            left += out[i, action] != 0
        for entry in range(counts[row]):
            if keys[row, entry] == position and out[i, played[row, entry]] != 0:
                out[i, played[row, entry]] = 0
                left -= 1
        if left == 0:  # every legal move tried from here: forget them and start again
            out[i, :] = masks[i, :]
            kept = 0
            for entry in range(counts[row]):
                if keys[row, entry] != position:
                    keys[row, kept] = keys[row, entry]
                    played[row, kept] = played[row, entry]
                    kept += 1
            counts[row] = kept


@njit(cache=True)
def _record(rows, hashes, actions, keys, played, counts):
    capacity = keys.shape[1]
    for i in range(rows.shape[0]):
        row = rows[i]
        if counts[row] == capacity:  # full (a very long game): drop the oldest half
            half = capacity // 2
            keys[row, : capacity - half] = keys[row, half:].copy()
            played[row, : capacity - half] = played[row, half:].copy()
            counts[row] = capacity - half
        keys[row, counts[row]] = hashes[i]
        played[row, counts[row]] = actions[i]
        counts[row] += 1


class MoveMemory:
    """Per game of a batch, the (position, move) pairs played so far.

    Each decision: ``masks = memory.untried(rows, hashes, legal_masks)``, choose, then
    ``memory.played(rows, hashes, actions)``; ``memory.forget(rows)`` when games restart.
    ``hashes`` come from :meth:`hashes` (state arrays) or, for an agent, from
    ``agents.base.PlayerView.position_hash`` (the same :func:`position_hash`).
    """

    def __init__(self, num_games: int, capacity: int = 2048):
        self.keys = np.zeros((num_games, capacity), np.uint64)
        self.played_actions = np.zeros((num_games, capacity), np.int8)
        self.counts = np.zeros(num_games, np.int64)

    @staticmethod
    def hashes(states: np.ndarray, rules: np.ndarray) -> np.ndarray:
        """:func:`position_hash` of every row of ``states``."""
        out = np.empty(states.shape[0], np.uint64)
        _position_hashes(states, rules, out)
        return out

    def untried(self, rows, hashes, masks) -> np.ndarray:
        """``masks`` (one row per game in ``rows``) less the moves already played from these positions."""
        rows = np.asarray(rows, np.int64)
        masks = np.ascontiguousarray(masks, np.int8)
        out = np.empty_like(masks)
        _untried_masks(rows, np.asarray(hashes, np.uint64), masks, self.keys, self.played_actions, self.counts, out)
        return out

    def played(self, rows, hashes, actions) -> None:
        _record(np.asarray(rows, np.int64), np.asarray(hashes, np.uint64), np.asarray(actions, np.int8),
                self.keys, self.played_actions, self.counts)

    def forget(self, rows) -> None:
        self.counts[np.asarray(rows, np.int64)] = 0
