"""Where a determinized agent's CPU goes: its solver calls grouped by the agent's method that made
them and by their status, over a range of deals (run seed 0, one process).

    python docs/experiments/2026-12-07-second-action-cost/solver_cpu_by_call.py determinized 50001-50030

Prints each game (deal, won, CPU seconds), then per (caller, status): solves, classes expanded,
CPU seconds and their share of the games' CPU. The agent is the one the harness plays; only
``agents.determinized.solve`` is wrapped, to time each call.
"""

from __future__ import annotations

import collections
import sys
import time

import agents.determinized as determinized
from agents.evaluation import deal_seed, play_game
from agents.registry import make_agent
from klondike_env.rules import Rules

calls: list[tuple[str, str, int, float]] = []  # (caller, status, nodes, CPU seconds)
_solve = determinized.solve


def _caller() -> str:
    """The agent's two innermost methods above its own solve helpers, e.g. ``_vote/act``."""
    names = []
    frame = sys._getframe(2)
    while frame is not None and len(names) < 2:
        code = frame.f_code
        if code.co_filename.endswith("determinized.py") and code.co_name not in ("_solve", "_solve_after"):
            names.append(code.co_name)
        frame = frame.f_back
    return "/".join(names)


def timed_solve(world, **options):
    caller = _caller()
    start = time.process_time()
    result = _solve(world, **options)
    calls.append((caller, result.status.name, result.nodes, time.process_time() - start))
    return result


def main() -> None:
    spec, deals = sys.argv[1], sys.argv[2]
    first, last = map(int, deals.split("-"))
    determinized.solve = timed_solve
    totals = collections.defaultdict(lambda: [0, 0, 0.0])
    game_cpu, wins = 0.0, 0
    for deal in range(first, last + 1):
        calls.clear()
        start = time.process_time()
        record = play_game(make_agent(spec), deal, Rules(), deal_seed(0, deal))
        cpu = time.process_time() - start
        game_cpu += cpu
        wins += record.won
        for caller, status, nodes, seconds in calls:
            entry = totals[(caller, status)]
            entry[0] += 1
            entry[1] += nodes
            entry[2] += seconds
        print(deal, record.won, f"{cpu:.1f}", flush=True)
    solver_cpu = sum(entry[2] for entry in totals.values())
    print(f"games {last - first + 1} wins {wins} cpu {game_cpu:.1f} solver cpu {solver_cpu:.1f}")
    for (caller, status), (count, nodes, seconds) in sorted(totals.items(), key=lambda item: -item[1][2]):
        print(f"  {caller:32s} {status:<10} n={count:6d} nodes={nodes:11d} cpu={seconds:8.1f} "
              f"({seconds / game_cpu * 100:4.1f}%)")


if __name__ == "__main__":
    main()
