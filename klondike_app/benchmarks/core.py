"""Core section: random legal play through the compiled kernels and through ``Game``.

Both paths run on one thread. Each figure is the best of three runs (as ``timeit`` does),
timed two ways: moves per second of CPU time the process used (``time.process_time``: the
speed of one core, whatever else the machine is running) and moves per wall-clock second
(which on a busy machine also counts the time other jobs held the core).
"""

from __future__ import annotations

import time

import numpy as np

from klondike_env import Game, Rules, core

REPEATS = 3


class Rate:
    """Moves per CPU second and per wall second of one timed run."""

    def __init__(self, moves: int, run):
        wall, cpu = time.perf_counter(), time.process_time()
        run()
        self.cpu = moves / (time.process_time() - cpu)
        self.wall = moves / (time.perf_counter() - wall)


def kernel_run(moves: int, rules: np.ndarray):
    """``core.random_playout_moves``: legal mask, uniform choice and apply, all compiled."""
    return lambda: core.random_playout_moves(0, rules, moves, 1)


def game_run(steps: int):
    """``Game.legal_actions`` + ``Game.step`` from Python, uniform random choice."""
    # random numbers drawn up front so the loop times the Game, not the generator
    picks = np.random.default_rng(0).random(steps).tolist()

    def play():
        game, deal = Game.new(0), 0
        for pick in picks:
            legal = game.legal_actions()
            if not legal or game.move_count >= 1000:
                deal += 1
                game = Game.new(deal)
                legal = game.legal_actions()
            game.step(legal[int(pick * len(legal))])

    return play


def best(moves: int, run) -> tuple[float, float]:
    rates = [Rate(moves, run) for _ in range(REPEATS)]
    return max(rate.cpu for rate in rates), max(rate.wall for rate in rates)


def run(quick: bool = False) -> str:
    rules = Rules().as_array()
    core.random_playout_moves(0, rules, 1000, 0)  # compile outside the timing
    Game.new(0).legal_actions()
    moves, steps = (1_000_000, 20_000) if quick else (10_000_000, 200_000)
    kernel_cpu, kernel_wall = best(moves, kernel_run(moves, rules))
    game_cpu, game_wall = best(steps, game_run(steps))
    return "\n".join([
        f"| path (draw-3, uniform random legal moves, one thread; best of {REPEATS}) "
        "| moves per CPU second | moves per wall second | target |",
        "| --- | ---: | ---: | ---: |",
        f"| compiled core: `core.random_playout_moves` ({moves:,} moves; mask + choice + apply) "
        f"| {kernel_cpu:,.0f} | {kernel_wall:,.0f} | 5,000,000 |",
        f"| `Game.legal_actions()` + `Game.step()` from Python ({steps:,} moves) "
        f"| {game_cpu:,.0f} | {game_wall:,.0f} | 200,000 |",
    ])
