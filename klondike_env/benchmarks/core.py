"""Core section: random legal play through the compiled kernels and through ``Game``."""

from __future__ import annotations

import time

import numpy as np

from klondike_env import Game, Rules, core


def run(quick: bool = False) -> str:
    rules = Rules().as_array()
    core.random_playout_moves(0, rules, 1000, 0)  # compile outside the timing
    moves = 1_000_000 if quick else 10_000_000
    start = time.perf_counter()
    core.random_playout_moves(0, rules, moves, 1)
    kernel_rate = moves / (time.perf_counter() - start)

    steps = 20_000 if quick else 200_000
    # random numbers drawn up front so the loop times the Game, not the generator
    picks = np.random.default_rng(0).random(steps).tolist()
    game = Game.new(0)
    game.legal_actions()  # compile outside the timing
    start = time.perf_counter()
    deal = 0
    for pick in picks:
        legal = game.legal_actions()
        if not legal or game.move_count >= 1000:
            deal += 1
            game = Game.new(deal)
            legal = game.legal_actions()
        game.step(legal[int(pick * len(legal))])
    game_rate = steps / (time.perf_counter() - start)
    return "\n".join([
        "| path | moves/s (one core) |",
        "| --- | ---: |",
        f"| compiled core (`core.random_playout_moves`, mask + choice + apply) | {kernel_rate:,.0f} |",
        f"| `Game.legal_actions` + `Game.step` from Python | {game_rate:,.0f} |",
    ])
