"""Core section: random legal play through the compiled kernels and through ``Game``.

Each figure is the best of three timed runs (as ``timeit`` does): on a shared machine the
slower runs measure the other jobs, not this code.
"""

from __future__ import annotations

import time

import numpy as np

from klondike_env import Game, Rules, core

REPEATS = 3


def kernel_rate(moves: int, rules: np.ndarray) -> float:
    """Moves/s of ``core.random_playout_moves``: legal mask, uniform choice and apply, all compiled."""
    start = time.perf_counter()
    core.random_playout_moves(0, rules, moves, 1)
    return moves / (time.perf_counter() - start)


def game_rate(steps: int) -> float:
    """Moves/s of ``Game.legal_actions`` + ``Game.step`` from Python, uniform random choice."""
    # random numbers drawn up front so the loop times the Game, not the generator
    picks = np.random.default_rng(0).random(steps).tolist()
    game, deal = Game.new(0), 0
    start = time.perf_counter()
    for pick in picks:
        legal = game.legal_actions()
        if not legal or game.move_count >= 1000:
            deal += 1
            game = Game.new(deal)
            legal = game.legal_actions()
        game.step(legal[int(pick * len(legal))])
    return steps / (time.perf_counter() - start)


def run(quick: bool = False) -> str:
    rules = Rules().as_array()
    core.random_playout_moves(0, rules, 1000, 0)  # compile outside the timing
    Game.new(0).legal_actions()
    moves, steps = (1_000_000, 20_000) if quick else (10_000_000, 200_000)
    kernel = max(kernel_rate(moves, rules) for _ in range(REPEATS))
    python = max(game_rate(steps) for _ in range(REPEATS))
    return "\n".join([
        f"| path (draw-3, uniform random legal moves; best of {REPEATS}) | moves/s (one core) | target |",
        "| --- | ---: | ---: |",
        f"| compiled core: `core.random_playout_moves` ({moves:,} moves; mask + choice + apply) "
        f"| {kernel:,.0f} | 5,000,000 |",
        f"| `Game.legal_actions()` + `Game.step()` from Python ({steps:,} moves) | {python:,.0f} | 200,000 |",
    ])
