"""Batched Klondike: N games stepped by one compiled call, and the Gymnasium ``VectorEnv`` over it.

:class:`KlondikeBatch` owns the arrays (states ``[N, STATE_SIZE]``, masks ``[N, 87]``,
observations ``[N, size]``) and steps all games with :func:`step_batch`, which runs
:func:`klondike_env.env.play_step` -- the single env's step less the observation --
on every row, deals a new game in place for every finished one (same-step
autoreset), then encodes every observation in a second sweep. New deal numbers
come from a SplitMix64 stream per game (seeded from ``reset(seed=...)``) or, with
``deals=[...]``, from that list in order, cycling. With ``num_threads=k`` the sweeps
are shared among k of numba's threads (:func:`step_batch_parallel`), with the same
results. The SB3 ``VecEnv`` in :mod:`klondike_env.sb3_vec` wraps the same batch.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space
import numba
from numba import njit, prange

from klondike_env import core
from klondike_env.cards import check_deal
from klondike_env.env import (
    COUNTERS, I_MODE, OUT_ILLEGAL, OUT_TERMINATED, OUT_TRUNCATED, OUT_WON, EnvConfig, begin_game, play_step,
)
from klondike_env.observation import encode, encode_batch
from klondike_env.game import Game

# final_stats columns: the finished game's foundation count, moves and pass number
STAT_FOUNDATION, STAT_MOVES, STAT_PASSES, NUM_STATS = 0, 1, 2, 3


@njit(cache=True)
def _next_deal(row, deal_list, deal_cursor, streams):
    if deal_list.shape[0] > 0:
        deal = deal_list[deal_cursor[0] % deal_list.shape[0]]
        deal_cursor[0] += 1
        return deal
    streams[row], deal = core.splitmix_next(streams[row])
    return deal


@njit(cache=True, inline="always")
def save_final(state, rules, mask, mode, final_observation, final_stat):
    """What a finished game ends with: its last observation and stats (before it is re-dealt)."""
    encode(state, rules, mask, mode, final_observation)
    final_stat[STAT_FOUNDATION] = core.foundation_total(state)
    final_stat[STAT_MOVES] = state[core.MOVES]
    final_stat[STAT_PASSES] = state[core.RECYCLES] + 1


@njit(cache=True, inline="always")
def redeal(row, states, rules, counters, masks, deal_list, deal_cursor, streams, deals):
    """Deal game ``row`` its next deal (from ``deal_list`` in turn, else its own stream)."""
    deals[row] = _next_deal(row, deal_list, deal_cursor, streams)
    core.init_state_from_deal(deals[row], states[row])
    begin_game(states[row], rules, counters[row], masks[row])


@njit(cache=True)
def reset_batch(states, rules, int_params, counters, masks, observations, deals):
    """Deal ``deals[i]`` into row ``i`` of every array."""
    for row in range(states.shape[0]):
        core.init_state_from_deal(deals[row], states[row])
        begin_game(states[row], rules, counters[row], masks[row])
    encode_batch(states, rules, masks, int_params[I_MODE], observations)


# The per-game loop is written out in both kernels: a shared helper (inlined or not)
# measured 10-20% slower on the whole step.
@njit(cache=True)
def step_batch(states, rules, actions, int_params, float_params, counters, masks, observations,
               deal_list, deal_cursor, streams, deals, rewards, flags, final_observations, final_stats):
    """Step every game once; a finished game's last observation and stats are saved, then it is re-dealt.

    Two sweeps: the single env's step less the observation
    (:func:`klondike_env.env.play_step`) on every game, with a new deal for every game
    that ended; then every game's observation into ``observations`` (a fresh array
    every step). Each sweep's code and branch history stay hot, which is faster than
    one interleaved loop.
    """
    mode = int_params[I_MODE]
    for row in range(states.shape[0]):
        state = states[row]
        rewards[row], flags[row] = play_step(state, rules, actions[row], int_params, float_params, counters[row], masks[row])
        if flags[row] & (OUT_TERMINATED | OUT_TRUNCATED):
            save_final(state, rules, masks[row], mode, final_observations[row], final_stats[row])
            redeal(row, states, rules, counters, masks, deal_list, deal_cursor, streams, deals)
    encode_batch(states, rules, masks, mode, observations)


@njit(cache=True)
def play_batch(states, rules, actions, int_params, float_params, counters, masks, active, rewards, flags):
    """:func:`klondike_env.env.play_step` on the rows where ``active`` is set, and no more: no
    observation, no re-deal, ``active`` cleared where a game ended (won, dead or truncated).
    For lookahead from given positions (``agents.rollout``); other rows keep reward 0."""
    for row in range(states.shape[0]):
        rewards[row] = 0.0
        flags[row] = 0
        if active[row]:
            rewards[row], flags[row] = play_step(states[row], rules, actions[row], int_params, float_params,
                                                 counters[row], masks[row])
            if flags[row] & (OUT_TERMINATED | OUT_TRUNCATED):
                active[row] = False


@njit(cache=True, parallel=True)
def step_batch_parallel(states, rules, actions, int_params, float_params, counters, masks, observations,
                        deal_list, deal_cursor, streams, deals, rewards, flags, final_observations, final_stats):
    """:func:`step_batch` with the games shared among numba's threads: the same results.

    One parallel sweep steps and observes every game (each thread wakes once per step);
    the few games that ended are then re-dealt serially in row order, as
    :func:`step_batch` deals them, so a ``deals=[...]`` list cycles the same way
    whatever the thread count.
    """
    mode = int_params[I_MODE]
    num_games = states.shape[0]
    for row in prange(num_games):
        state = states[row]
        rewards[row], flags[row] = play_step(state, rules, actions[row], int_params, float_params, counters[row], masks[row])
        if flags[row] & (OUT_TERMINATED | OUT_TRUNCATED):
            save_final(state, rules, masks[row], mode, final_observations[row], final_stats[row])
        else:
            encode(state, rules, masks[row], mode, observations[row])
    for row in range(num_games):
        if flags[row] & (OUT_TERMINATED | OUT_TRUNCATED):
            redeal(row, states, rules, counters, masks, deal_list, deal_cursor, streams, deals)
            encode(states[row], rules, masks[row], mode, observations[row])


@njit(cache=True)
def table_counts(states):
    """Per game, as fresh int64 arrays: cards on the foundations, moves made, pass number.

    One compiled pass: numpy's sum over the strided foundation columns cost more than
    a whole batched step's Python work.
    """
    num_games = states.shape[0]
    foundation = np.empty(num_games, np.int64)
    moves = np.empty(num_games, np.int64)
    passes = np.empty(num_games, np.int64)
    for row in range(num_games):
        foundation[row] = core.foundation_total(states[row])
        moves[row] = states[row, core.MOVES]
        passes[row] = states[row, core.RECYCLES] + 1
    return foundation, moves, passes


# How long an idle OpenMP thread of numba's pool spins before it sleeps (libgomp's
# GOMP_SPINCOUNT; about 0.1 ms on this project's VM): long enough to bridge the gap between
# two batched steps (the caller choosing actions), short enough not to hog a busy core.
THREAD_SPIN_COUNT = 5000
# Either set by the user: their choice of how idle threads wait stands.
THREAD_WAIT_VARIABLES = ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")


def start_thread_pool() -> None:
    """Start numba's thread pool with idle threads spinning briefly, then asleep, unless it runs or the user chose.

    By default an OpenMP thread waiting for work spins for milliseconds: on a 2-core VM whose
    cores also ran other jobs, a loop of 1,024 additions then took ~8,000 µs per call under
    numba's OpenMP layer. Asleep at once (``OMP_WAIT_POLICY=PASSIVE``, the earlier choice), the
    worker took tens of µs to wake at every step on the idle VM: a two-thread step of one game
    cost 62-68 µs against ~10 µs when it spins ``THREAD_SPIN_COUNT`` rounds first (5-7 µs on one
    thread; ``klondike_app.benchmarks.env.one_game_step_us``). The price of the
    spin: next to another busy process, two threads step ~40% slower than one (docs/env.md, "Batched envs").
    OpenMP reads the variables once, when numba loads it, so ``GOMP_SPINCOUNT`` is set for that
    moment only (other libraries loaded later keep their defaults), and not at all when the
    user set it or ``OMP_WAIT_POLICY``, or numba's pool already runs (its settings stand).
    """
    try:
        numba.threading_layer()
        return
    except ValueError:  # not started yet
        pass
    if any(name in os.environ for name in THREAD_WAIT_VARIABLES):
        numba.get_num_threads()
        return
    os.environ["GOMP_SPINCOUNT"] = str(THREAD_SPIN_COUNT)
    try:
        numba.get_num_threads()  # starts the pool, loading OpenMP
    finally:
        del os.environ["GOMP_SPINCOUNT"]


class KlondikeBatch:
    """N games in flat arrays, stepped together; the engine of both vector envs.

    Takes the keyword arguments of :class:`~klondike_env.env.KlondikeEnv`, and
    ``num_threads`` (default 1): how many of numba's threads step the games. The results
    are the same for every thread count; more than one pays off only on idle cores. The
    first step with ``num_threads > 1`` starts numba's thread pool (:func:`start_thread_pool`).
    """

    def __init__(self, num_envs: int, num_threads: int = 1, **kwargs):
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"bad number of envs {num_envs!r}: expected a positive integer")
        max_threads = numba.config.NUMBA_NUM_THREADS
        if isinstance(num_threads, bool) or not isinstance(num_threads, (int, np.integer)) or not (
            1 <= num_threads <= max_threads
        ):
            raise ValueError(f"bad num_threads {num_threads!r}: expected an integer from 1 to {max_threads} "
                             "(numba's thread pool on this machine)")
        self.num_threads = int(num_threads)
        self.config = EnvConfig(**kwargs)
        self.num_envs = n = int(num_envs)
        size, dtype = self.config.observation_space.shape[0], self.config.observation_space.dtype
        self.states = np.zeros((n, core.STATE_SIZE), np.int32)
        self.masks = np.zeros((n, core.NUM_ACTIONS), np.int8)
        self.observations = np.zeros((n, size), dtype)
        self.final_observations = np.zeros((n, size), dtype)
        self.final_stats = np.zeros((n, NUM_STATS), np.int64)
        self.counters = np.zeros((n, COUNTERS), np.int64)
        self.deals = np.zeros(n, np.uint64)
        self.streams = np.zeros(n, np.uint64)
        self.deal_cursor = np.zeros(1, np.int64)
        self.rewards = np.zeros(n, np.float64)
        self.flags = np.zeros(n, np.int64)
        self.rng = np.random.default_rng()
        self.started = False

    def reset(self, seed: int | None = None, deals=None) -> None:
        """Deal a game into every slot: ``deals`` (N deal numbers) or the next from the list/streams."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)
            self.deal_cursor[0] = 0
        n, deal_list = self.num_envs, self.config.deals
        self.streams[:] = self.rng.integers(0, 2**64, size=n, dtype=np.uint64)
        if deals is not None:
            deals = [check_deal(deal) for deal in deals]
            if len(deals) != n:
                raise ValueError(f"bad reset deals: got {len(deals)} deal numbers for {n} envs")
            self.deals[:] = np.array(deals, np.uint64)
        elif len(deal_list):
            positions = (self.deal_cursor[0] + np.arange(n)) % len(deal_list)
            self.deals[:] = deal_list[positions]
            self.deal_cursor[0] += n
        else:
            self.deals[:] = self.rng.integers(0, 2**64, size=n, dtype=np.uint64)
        self.observations = np.empty_like(self.observations)
        reset_batch(self.states, self.config.rules_array, self.config.int_params, self.counters, self.masks,
                    self.observations, self.deals)
        self.started = True

    def step(self, actions) -> None:
        if not self.started:
            raise RuntimeError("call reset() before step()")
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or not np.issubdtype(actions.dtype, np.integer):
            raise ValueError(
                f"bad actions of shape {actions.shape} and dtype {actions.dtype}: expected {self.num_envs} integer ids"
            )
        # a new observation array each step: callers may keep the last one without copying it
        self.observations = np.empty_like(self.observations)
        arguments = (self.states, self.config.rules_array, actions.astype(np.int64, copy=False),
                     self.config.int_params, self.config.float_params, self.counters, self.masks,
                     self.observations, self.config.deals, self.deal_cursor, self.streams, self.deals,
                     self.rewards, self.flags, self.final_observations, self.final_stats)
        if self.num_threads == 1:
            step_batch(*arguments)
            return
        start_thread_pool()  # once per process; then a quick check
        # numba's thread count is per calling thread: set it for this call only
        threads_before = numba.get_num_threads()
        numba.set_num_threads(self.num_threads)
        try:
            step_batch_parallel(*arguments)
        finally:
            numba.set_num_threads(threads_before)

    def game(self, index: int) -> Game:
        """A :class:`Game` copy of slot ``index`` (its deck is unknown for autoreset deals: the deal is kept)."""
        game = Game.new(int(self.deals[index]), self.config.rules)
        game._state[:] = self.states[index]
        return game

    def foundation_counts(self) -> np.ndarray:
        return table_counts(self.states)[0]

    @property
    def memory_bytes_per_game(self) -> int:
        """Bytes of per-game arrays (state, mask, observations, counters, stats, deal, stream)."""
        arrays = (self.states, self.masks, self.observations, self.final_observations, self.final_stats,
                  self.counters, self.deals, self.streams, self.rewards, self.flags)
        return sum(array.nbytes for array in arrays) // self.num_envs


class KlondikeVectorEnv(VectorEnv):
    """N Klondike games stepped by one compiled call (Gymnasium 1.x ``VectorEnv``).

    ``gymnasium.make_vec("klondike_env/Klondike-v1", num_envs=N,
    vectorization_mode="vector_entry_point", **env_kwargs)``. Same-step autoreset
    (``metadata["autoreset_mode"] = AutoresetMode.SAME_STEP``): a finished game is
    re-dealt inside the step; its last observation is ``infos["final_obs"][i]`` and its
    info ``infos["final_info"]`` (``won``, ``foundation``, ``moves``, ``passes``,
    ``deal``), flagged by ``infos["_final_obs"]``. ``infos["action_mask"]`` holds all
    masks (``[N, 87]`` int8), also returned by :meth:`action_masks`; ``infos["won"][i]``
    is true when env ``i``'s episode ended in a win this step; ``deal``, ``foundation``,
    ``moves`` and ``passes`` describe the game now on the table.
    ``reset(options={"deals": [...]})`` deals the given N deal numbers. Keyword arguments:
    those of :class:`~klondike_env.env.KlondikeEnv` and ``num_threads`` (:class:`KlondikeBatch`).
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": ["ansi", "rgb_array"], "render_fps": 4}

    def __init__(self, num_envs: int = 1, **kwargs):
        self.batch = KlondikeBatch(num_envs, **kwargs)
        self.num_envs = self.batch.num_envs
        self.render_mode = self.batch.config.render_mode
        if self.render_mode is not None and self.render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"bad render_mode {self.render_mode!r}: allowed are None, 'ansi', 'rgb_array'")
        self.single_observation_space = self.batch.config.observation_space
        self.single_action_space = spaces.Discrete(core.NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        options = dict(options or {})
        unknown = sorted(set(options) - {"deals"})
        if unknown:
            raise ValueError(f"bad reset options {unknown}: the only option is 'deals' (one deal number per env)")
        if seed is not None:
            self._np_random, self._np_random_seed = np.random.default_rng(seed), seed
        self.batch.reset(seed=seed, deals=options.get("deals"))
        return self.batch.observations, self._infos()

    def step(self, actions):
        batch = self.batch
        deals_before = batch.deals.copy()
        batch.step(actions)
        flags = batch.flags
        finished = (flags & (OUT_TERMINATED | OUT_TRUNCATED)) != 0
        infos = self._infos(flags)
        if finished.any():
            infos["final_obs"] = np.full(self.num_envs, None, dtype=object)
            for row in np.flatnonzero(finished):
                infos["final_obs"][row] = batch.final_observations[row].copy()
            infos["_final_obs"] = finished
            infos["final_info"] = {
                "won": infos["won"].copy(),
                "foundation": batch.final_stats[:, STAT_FOUNDATION].copy(),
                "moves": batch.final_stats[:, STAT_MOVES].copy(),
                "passes": batch.final_stats[:, STAT_PASSES].copy(),
                "deal": deals_before,
                "_won": finished, "_foundation": finished, "_moves": finished, "_passes": finished,
                "_deal": finished,
            }
            infos["_final_info"] = finished
        return (
            batch.observations,  # fresh every step
            batch.rewards.copy(),
            (flags & OUT_TERMINATED) != 0,
            (flags & OUT_TRUNCATED) != 0,
            infos,
        )

    def _infos(self, flags=None) -> dict[str, Any]:
        batch = self.batch
        foundation, moves, passes = table_counts(batch.states)
        return {
            "action_mask": batch.masks.copy(),
            "deal": batch.deals.copy(),
            "foundation": foundation,
            "moves": moves,
            "passes": passes,
            "won": np.zeros(self.num_envs, bool) if flags is None else (flags & OUT_WON) != 0,
            "illegal_action": np.zeros(self.num_envs, bool) if flags is None else (flags & OUT_ILLEGAL) != 0,
        }

    def action_masks(self) -> np.ndarray:
        """All games' legal-action masks, ``[N, 87]`` bool."""
        return self.batch.masks.astype(bool)

    def render(self):
        if self.render_mode is None:
            return None
        from klondike_env.render import render_image, render_text

        draw = render_text if self.render_mode == "ansi" else render_image
        return tuple(draw(self.batch.game(index)) for index in range(self.num_envs))


def make_vector_env(num_envs: int = 1, **kwargs) -> KlondikeVectorEnv:
    """The ``vector_entry_point`` of ``klondike_env/Klondike-v1``."""
    return KlondikeVectorEnv(num_envs, **kwargs)

