"""Env section: single ``KlondikeEnv.step``, the batched env at several N, and OpenSpiel when installed.

Every path plays uniformly random legal actions and produces an observation and an
action mask each step; the time of choosing the random action is included. The batched
paths run with both observation dtypes (``observation_dtype``: float32 values, or uint8
numerators, a quarter of the bytes).
"""

from __future__ import annotations

import os
import time

import numba
import numpy as np
from numba import njit

from klondike_env import Rules, core
from klondike_env.env import C_STEPS, OUT_TERMINATED, OUT_TRUNCATED, OUT_WON, KlondikeEnv, play_step
from klondike_env.vector import THREAD_SPIN_COUNT, THREAD_WAIT_VARIABLES, KlondikeBatch, KlondikeVectorEnv, redeal

QUOTED_OPENSPIEL_RATE = 36_000  # steps/s, as quoted in issue 3 (not measured here)
DTYPES = ("float32", "uint8")  # the observation dtypes of the batched rows


class Timer:
    """CPU and wall seconds of a block: on a shared machine the CPU figure is the fair one."""

    def __enter__(self):
        self.cpu, self.wall = time.process_time(), time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.cpu = time.process_time() - self.cpu
        self.wall = time.perf_counter() - self.wall

    def rates(self, count: int) -> tuple[float, float]:
        return count / self.cpu, count / self.wall


def single_env_rate(steps: int) -> tuple[float, float]:
    env = KlondikeEnv()
    _, info = env.reset(seed=0)
    picks = np.random.default_rng(0).random(steps).tolist()
    with Timer() as timer:
        for pick in picks:
            legal = np.flatnonzero(info["action_mask"])
            _, _, terminated, truncated, info = env.step(int(legal[int(pick * len(legal))]))
            if terminated or truncated:
                _, info = env.reset()
    return timer.rates(steps)


@njit(cache=True)
def random_legal_actions(masks, uniforms, actions):
    """The random player of the batched rows: legal action number ``floor(u * count)`` of each mask."""
    for row in range(masks.shape[0]):
        mask = masks[row]
        count = 0
        for action in range(mask.shape[0]):  # a loop, not (mask != 0).sum(): no temporary array per row
            count += mask[action]  # masks hold 0 or 1
        remaining = int(uniforms[row] * count)
        for action in range(mask.shape[0]):
            remaining -= mask[action]
            if remaining < 0:
                actions[row] = action
                break


def best_of_each(runs: int, measures) -> list:
    """For each of ``measures`` (functions returning a tuple of rates, or None without a result),
    each column's best over ``runs`` calls; the measures take turns run after run.

    The machine is shared: the best run is the one least slowed by other jobs, and taking
    turns lets compared paths see the same mix of them.
    """
    results = [[] for _ in measures]
    for _ in range(runs):
        for measured, measure in zip(results, measures):
            measured.append(measure())
    return [None if measured[0] is None else tuple(max(column) for column in zip(*measured))
            for measured in results]


def best_of(runs: int, measure):
    """:func:`best_of_each` of one measure."""
    return best_of_each(runs, [measure])[0]


def batch_rate(num_envs: int, batch_steps: int, num_threads: int = 1, dtype: str = "float32") -> tuple[float, float]:
    """``KlondikeBatch.step`` alone: the compiled step without the VectorEnv's info dicts."""
    batch = KlondikeBatch(num_envs, num_threads=num_threads, observation_dtype=dtype)
    batch.reset(seed=0)
    rng = np.random.default_rng(0)
    actions = np.zeros(num_envs, np.int64)
    with Timer() as timer:
        for _ in range(batch_steps):
            random_legal_actions(batch.masks, rng.random(num_envs), actions)
            batch.step(actions)
    return timer.rates(num_envs * batch_steps)


def one_game_step_us(num_threads: int, steps: int = 20_000) -> float:
    """Wall µs per ``KlondikeBatch.step`` of a single game (its first legal action each step):
    almost nothing but the fixed cost of a call, which with ``num_threads > 1`` includes
    waking numba's idle threads (see :func:`klondike_env.vector.start_thread_pool`)."""
    batch = KlondikeBatch(1, num_threads=num_threads)
    batch.reset(seed=0)
    for repeat in (100, steps):  # warm up, then time
        start = time.perf_counter()
        for _ in range(repeat):
            batch.step(np.flatnonzero(batch.masks[0])[:1])
    return (time.perf_counter() - start) / steps * 1e6


def batched_rate(num_envs: int, batch_steps: int, num_threads: int = 1,
                 dtype: str = "float32") -> tuple[float, float, int]:
    envs = KlondikeVectorEnv(num_envs, num_threads=num_threads, observation_dtype=dtype)
    _, info = envs.reset(seed=0)
    masks = info["action_mask"]
    rng = np.random.default_rng(0)
    actions = np.zeros(num_envs, np.int64)
    with Timer() as timer:
        for _ in range(batch_steps):
            random_legal_actions(masks, rng.random(num_envs), actions)
            _, _, _, _, info = envs.step(actions)
            masks = info["action_mask"]
    return (*timer.rates(num_envs * batch_steps), envs.batch.memory_bytes_per_game)


def sb3_rate(num_envs: int, batch_steps: int, dtype: str = "float32") -> tuple[float, float] | None:
    """The SB3 ``KlondikeVecEnv`` (per-game info dicts, as SB3 wants them)."""
    try:
        from klondike_env.sb3_vec import KlondikeVecEnv
    except ImportError:
        return None
    envs = KlondikeVecEnv(num_envs, seed=0, observation_dtype=dtype)
    envs.reset()
    rng = np.random.default_rng(0)
    actions = np.zeros(num_envs, np.int64)
    with Timer() as timer:
        for _ in range(batch_steps):
            random_legal_actions(envs.batch.masks, rng.random(num_envs), actions)
            envs.step(actions)
    return timer.rates(num_envs * batch_steps)


def openspiel_rate(steps: int) -> tuple[float, float] | None:
    """OpenSpiel's ``solitaire`` from Python: legal actions, a random one, ``observation_tensor()``."""
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("solitaire")
    rng = np.random.default_rng(0)
    picks = rng.random(steps * 4).tolist()
    state, decisions, index = game.new_initial_state(), 0, 0
    with Timer() as timer:
        while decisions < steps:
            if state.is_terminal():
                state = game.new_initial_state()
            elif state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[int(picks[index % len(picks)] * len(outcomes))][0])
                index += 1
            else:
                state.observation_tensor()  # what the agent sees at this decision
                legal = state.legal_actions()
                state.apply_action(legal[int(picks[index % len(picks)] * len(legal))])
                index += 1
                decisions += 1
    return timer.rates(steps)


def threading_layer() -> str:
    try:
        return numba.threading_layer()
    except ValueError:  # no parallel kernel has run (one core)
        return "none started"


def thread_table(runs: int, batch_steps: int, reference: float, wall_reference: float) -> str:
    """N=1024 with ``num_threads=1`` and ``num_threads=2``, float32 and uint8 observations, side by
    side: steps per wall second and per CPU second (the CPU time of all threads), each against
    OpenSpiel's figure of the same kind.

    The configurations take turns run after run, so each sees the same mix of other jobs;
    each column is the best of ``runs``.
    """
    thread_counts = (1, 2) if numba.config.NUMBA_NUM_THREADS >= 2 else (1,)
    paths = (("`KlondikeBatch.step` (compiled step only)", batch_rate),
             ("`KlondikeVectorEnv.step` (with its info dict)", lambda *args: batched_rate(*args)[:2]))
    results = {(name, dtype, threads): [] for name, _ in paths for dtype in DTYPES for threads in thread_counts}
    for _ in range(runs):
        for name, measure in paths:
            for dtype in DTYPES:
                for threads in thread_counts:
                    results[name, dtype, threads].append(measure(1024, batch_steps, threads, dtype))
    rows = [
        f"| N=1024, random legal actions (best of {runs}, taking turns) | observation | `num_threads` "
        "| steps per wall second | × OpenSpiel (wall) | µs per step of 1,024 games (wall) "
        "| steps per CPU second (all threads) | × OpenSpiel (CPU) |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for (name, dtype, threads), measured in results.items():
        cpu = max(rate for rate, _ in measured)
        wall = max(rate for _, rate in measured)
        rows.append(f"| {name} | {dtype} | {threads} | {wall:,.0f} | {wall / wall_reference:.1f} "
                    f"| {1024 / wall * 1e6:,.0f} | {cpu:,.0f} | {cpu / reference:.1f} |")
    if len(thread_counts) == 1:
        rows.append("\nnumba sees one core here: no `num_threads=2` row.")
    return "\n".join(rows)


@njit(cache=True)
def rules_sweep(states, rules, actions, int_params, float_params, counters, masks, deal_list, deal_cursor, streams,
                deals, rewards, flags):
    """The batch step less every observation write (an ablation, for :func:`step_cost_breakdown`)."""
    for row in range(states.shape[0]):
        state = states[row]
        rewards[row], flags[row] = play_step(state, rules, actions[row], int_params, float_params, counters[row], masks[row])
        if flags[row] & (OUT_TERMINATED | OUT_TRUNCATED):
            redeal(row, states, rules, counters, masks, deal_list, deal_cursor, streams, deals)


@njit(cache=True)
def legal_mask_sweep(states, rules, masks):
    """``core.legal_mask`` of every game into scratch masks (an ablation)."""
    for row in range(states.shape[0]):
        core.legal_mask(states[row], rules, masks[row])


def step_cost_breakdown(num_envs: int, batch_steps: int, dtype: str = "float32") -> list[tuple[str, float]]:
    """Where a one-thread batched step's CPU time goes: microseconds per step of ``num_envs`` games.

    Two batches play the same random actions from the same deals (so they see the same
    positions): ``KlondikeBatch.step`` on one (``dtype`` observations), the same step less
    the observations (:func:`rules_sweep`) on the other; ``core.legal_mask`` is timed on the
    first one's positions.
    """
    batch, shadow = KlondikeBatch(num_envs, observation_dtype=dtype), KlondikeBatch(num_envs)
    batch.reset(seed=0)
    shadow.reset(seed=0)
    config = batch.config
    rng = np.random.default_rng(0)
    actions = np.zeros(num_envs, np.int64)
    scratch_masks = np.zeros_like(batch.masks)
    parts = {name: 0.0 for name in ("choice", "step", "rules", "legal_mask")}

    def timed(name, function, *args):
        start = time.process_time()
        function(*args)
        parts[name] += time.process_time() - start

    for _ in range(batch_steps):
        timed("choice", lambda: random_legal_actions(batch.masks, rng.random(num_envs), actions))
        timed("legal_mask", legal_mask_sweep, batch.states, config.rules_array, scratch_masks)
        timed("step", batch.step, actions)
        timed("rules", rules_sweep, shadow.states, config.rules_array, actions, config.int_params,
              config.float_params, shadow.counters, shadow.masks, config.deals, shadow.deal_cursor, shadow.streams,
              shadow.deals, shadow.rewards, shadow.flags)
    if not np.array_equal(batch.states, shadow.states):
        raise AssertionError("the ablation batch drifted from the real one")
    per_step = {name: seconds / batch_steps * 1e6 for name, seconds in parts.items()}
    return [
        ("the benchmark's random player (choice of the actions)", per_step["choice"]),
        ("`KlondikeBatch.step`, all of it", per_step["step"]),
        ("  rules: `env.play_step` for every game (move, legal mask, end checks, rewards) and re-deals",
         per_step["rules"]),
        ("    of which `core.legal_mask` for every game", per_step["legal_mask"]),
        ("  observations (the rest: step - rules)", per_step["step"] - per_step["rules"]),
    ]


def breakdown_table(breakdowns: dict[str, list[tuple[str, float]]]) -> str:
    """:func:`step_cost_breakdown` of each observation dtype as one table, a column each."""
    dtypes = list(breakdowns)
    rows = ["| part | " + " | ".join(f"µs per step of 1,024 games, {dtype} obs" for dtype in dtypes) + " |",
            "| --- |" + " ---: |" * len(dtypes)]
    for index, (name, _) in enumerate(breakdowns[dtypes[0]]):
        rows.append(f"| {name} | " + " | ".join(f"{breakdowns[dtype][index][1]:,.0f}" for dtype in dtypes) + " |")
    return "\n".join(rows)


def random_episode_lengths(num_envs: int, batch_steps: int, cap: int) -> tuple[np.ndarray, int, int]:
    """Random masked play with a step cap: lengths of the episodes that ended by themselves
    (won or dead), the number cut at ``cap``, and the wins."""
    batch = KlondikeBatch(num_envs, max_episode_steps=cap)
    batch.reset(seed=0)
    rng = np.random.default_rng(0)
    actions = np.zeros(num_envs, np.int64)
    lengths, truncated, won = [], 0, 0
    for _ in range(batch_steps):
        random_legal_actions(batch.masks, rng.random(num_envs), actions)
        steps = batch.counters[:, C_STEPS] + 1
        batch.step(actions)
        ended = (batch.flags & OUT_TERMINATED) != 0
        lengths.extend(steps[ended].tolist())
        won += int(((batch.flags & OUT_WON) != 0).sum())
        truncated += int(((batch.flags & OUT_TRUNCATED) != 0).sum())
    return np.array(lengths), truncated, won


def greedy_episode_lengths(deals: int) -> tuple[np.ndarray, dict[str, int]]:
    """Moves per game of the rule-based ``greedy`` agent (agents/greedy.py), and how games ended."""
    from agents.evaluation import play_game
    from agents.registry import make_agent

    agent = make_agent("greedy")
    records = [play_game(agent, deal, Rules(), seed=deal, max_moves=100_000) for deal in range(deals)]
    endings: dict[str, int] = {}
    for record in records:
        endings[record.ending] = endings.get(record.ending, 0) + 1
    return np.array([record.moves for record in records]), endings


def episode_length_table(quick: bool) -> str:
    cap = 2_000
    lengths, truncated, won = random_episode_lengths(64 if quick else 256, 2_500 if quick else 10_000, cap)
    greedy, endings = greedy_episode_lengths(50 if quick else 300)
    percentiles = (50, 90, 99, 100)
    rows = [
        "| player (draw-3, unlimited passes) | games | ended by themselves | moves p50 / p90 / p99 / max of those |",
        "| --- | ---: | --- | --- |",
        f"| uniformly random legal | {len(lengths) + truncated} | {len(lengths)} (won {won}); "
        f"{truncated} still going at {cap:,} steps | "
        + " / ".join(f"{value:.0f}" for value in np.percentile(lengths, percentiles)) + " |",
        f"| `greedy` agent (deals 0..{len(greedy) - 1}) | {len(greedy)} | "
        + ", ".join(f"{name} {count}" for name, count in sorted(endings.items())) + " | "
        + " / ".join(f"{value:.0f}" for value in np.percentile(greedy, percentiles)) + " |",
    ]
    return "\n".join(rows)


def run(quick: bool = False) -> str:
    runs = 3  # every row is the best of three runs, column by column
    # OpenMP's waiting policy as KlondikeBatch starts numba's pool (vector.start_thread_pool)
    user_set = [f"{name}={os.environ[name]}" for name in THREAD_WAIT_VARIABLES if name in os.environ]
    wait_policy = (f"as the user set them ({', '.join(user_set)})" if user_set else
                   f"spinning {THREAD_SPIN_COUNT:,} rounds, then asleep (GOMP_SPINCOUNT while numba's pool starts)")
    load_before = os.getloadavg()[0]
    single_env_rate(2000)  # compile and warm up outside the timing
    for dtype in DTYPES:
        batched_rate(8, 10, 1, dtype)
        batch_rate(8, 10, 1, dtype)
        batch_rate(8, 10, min(2, numba.config.NUMBA_NUM_THREADS), dtype)
        step_cost_breakdown(8, 2, dtype)
    openspiel = best_of(runs, lambda: openspiel_rate(5_000 if quick else 50_000))
    if openspiel is not None:
        reference, wall_reference = openspiel
        label = "measured in this run"
    else:
        reference = wall_reference = QUOTED_OPENSPIEL_RATE
        label = "36,000 steps/s quoted in issue 3, NOT measured (open_spiel not installed)"
    rows = [
        f"| path (random legal actions; obs + mask every step; best of {runs}) | steps per CPU second "
        "| steps per wall second | × OpenSpiel (CPU) | × OpenSpiel (wall) | memory per game |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]

    def row(name, cpu, wall, memory=""):
        rows.append(f"| {name} | {cpu:,.0f} | {wall:,.0f} | {cpu / reference:.1f} | {wall / wall_reference:.1f} | "
                    f"{memory} |")

    if openspiel is not None:
        row("OpenSpiel `solitaire` + `observation_tensor()` from Python", *openspiel)
    row("`KlondikeEnv.step` (obs + mask + info dict)", *best_of(runs, lambda: single_env_rate(
        20_000 if quick else 200_000)))
    total_steps = 200_000 if quick else 2_000_000
    for num_envs in (64, 256, 1024):  # the dtypes taking turns
        steps = max(total_steps // num_envs, 20)
        measured = best_of_each(runs, [lambda dtype=dtype: batched_rate(num_envs, steps, 1, dtype) for dtype in DTYPES])
        for dtype, (cpu, wall, memory) in zip(DTYPES, measured):
            row(f"`KlondikeVectorEnv` N={num_envs}, {dtype} obs", cpu, wall, f"{memory:,} B")
    steps = max(total_steps // 256, 20)
    for dtype, sb3 in zip(DTYPES, best_of_each(runs, [lambda dtype=dtype: sb3_rate(256, steps, dtype)
                                                      for dtype in DTYPES])):
        if sb3 is not None:
            row(f"SB3 `KlondikeVecEnv` N=256 (info dicts), {dtype} obs", *sb3)
    threads = thread_table(runs, max(total_steps // 1024, 20), reference, wall_reference)
    breakdown_steps = 200 if quick else 2_000
    breakdowns = {dtype: step_cost_breakdown(1024, breakdown_steps, dtype) for dtype in DTYPES}
    load_after = os.getloadavg()[0]
    return ("\n".join(rows) + f"\n\nOpenSpiel reference: {label}. Load average (1 min) {load_before:.1f} before, "
            f"{load_after:.1f} after: with other jobs on the cores the CPU-second columns are the fair ones.\n\n"
            "The batched env at N=1024 on one and two of numba's threads (the same games and actions; "
            f"numba's threading layer: {threading_layer()}, idle threads {wait_policy}). The wall columns are "
            "what a training loop waits; the CPU columns count every thread's CPU time, so two threads pay "
            "off only when the cores are otherwise idle:\n\n" + threads + "\n\nWhere a one-thread batched step's CPU time goes (N=1024, "
            f"mean over {breakdown_steps} steps; parts timed separately, so they need not add up exactly):\n\n"
            + breakdown_table(breakdowns) + "\n\nEpisode lengths (what `max_episode_steps` is chosen from):\n\n" + episode_length_table(quick))
