"""How many candidates the `hop` agent weighs at a decision, how many worlds the one it plays
was tried in, and what a solver call costs: deals as given, the agent's seed the deal number.

    python docs/experiments/2026-12-05-lonelybot-rule/decisions.py hop 1201-1220
"""

from __future__ import annotations

import statistics
import sys
import time

import numpy as np

from agents import RESIGN, make_agent
from agents.base import DealInfo, PlayerView
from agents.hop import HopAgent
from klondike_env import Game


def main(spec: str, deals: str) -> None:
    first, last = (int(part) for part in deals.split("-"))
    agent = make_agent(spec)
    weighed, played_worlds = [], []
    pick = HopAgent._ucb_pick

    def noting(self, wins: np.ndarray, tried: np.ndarray) -> int:
        self._tried = tried  # the array the agent updates in place
        return pick(self, wins, tried)

    HopAgent._ucb_pick = noting
    choose = HopAgent._best_candidate

    def best(self, view: PlayerView) -> list[int]:
        self._tried = None
        line = choose(self, view)
        if self._tried is not None:
            weighed.append(len(self._tried))
            played_worlds.append(int(self._tried.max()))
        return line

    HopAgent._best_candidate = best
    solve = HopAgent._solve
    solver_seconds = []

    def timed(self, world, nodes):
        started = time.process_time()
        result = solve(self, world, nodes)
        solver_seconds.append(time.process_time() - started)
        return result

    HopAgent._solve = timed
    for deal in range(first, last + 1):
        game = Game.new(deal)
        agent.reset(DealInfo(seed=deal, rules=game.rules))
        while not game.is_over and game.move_count < 1000:
            action = agent.act(PlayerView(game))
            if action == RESIGN:
                break
            game.step(action)
    print(f"{len(weighed)} decisions with more than one candidate over deals {deals}")
    print(f"candidates weighed: median {statistics.median(weighed)}, mean {statistics.mean(weighed):.1f}, "
          f"max {max(weighed)}")
    print(f"worlds of the most-tried candidate: median {statistics.median(played_worlds)}, "
          f"mean {statistics.mean(played_worlds):.1f}; "
          f"{sum(w < agent.samples for w in played_worlds)} decisions stopped by spread before any "
          f"candidate reached samples={agent.samples}")
    print(f"{len(solver_seconds)} solver calls, {1000 * statistics.mean(solver_seconds):.2f} CPU-ms each on average")


if __name__ == "__main__":
    main(*sys.argv[1:3])
