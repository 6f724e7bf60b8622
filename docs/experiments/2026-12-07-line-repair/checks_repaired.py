"""How many of the `determinized` agent's checks a repaired line answers, and what they cost the solver.

Plays the defaults (repair off) on the given training deals; at every check whose world has a
known winning line (the vote's, the second action's and the credit's checks) it records the
solver's verdict, the classes it expanded and its CPU, then asks
`klondike_env.solver.repair.repair` the same question, replays every line it returns (legal
moves, a win at the end) and tallies, by the solver's verdict and by how hard the solve was
(under or over 10,000 classes), how many checks the repair answers.

    python docs/experiments/2026-12-07-line-repair/checks_repaired.py 50001-50008
"""

from __future__ import annotations

import sys
import time
from collections import defaultdict

from agents.determinized import DeterminizedAgent
from agents.evaluation import deal_seed, play_game
from agents.registry import make_agent
from klondike_env.rules import Rules
from klondike_env.solver.repair import repair

HARD = 10_000  # classes


def main(first: int, last: int) -> None:
    tally: dict[tuple[str, str], list] = defaultdict(lambda: [0, 0, 0.0])  # checks, repaired, solver CPU
    repair_cpu = [0.0]
    solve_after = DeterminizedAgent._solve_after

    def recorded(agent, world, prefix, actions=True, nodes=0, line=None):
        start = time.process_time()
        result = solve_after(agent, world, prefix, actions, nodes)  # the solver: repair is off
        cpu = time.process_time() - start
        if line:
            child = world.copy()
            for action in prefix:
                child.step(action)
            start = time.process_time()
            repaired = repair(world._state, line, child._state, world._rules_array)
            repair_cpu[0] += time.process_time() - start
            if repaired is not None:
                for action in repaired:
                    child.step(action)  # raises on an illegal move
                assert child.is_won
            row = tally[(result.status.name, "hard" if result.nodes >= HARD else "easy")]
            row[0] += 1
            row[1] += repaired is not None
            row[2] += cpu
        return result

    DeterminizedAgent._solve_after = recorded
    agent = make_agent("determinized")
    game_cpu = 0.0
    for deal in range(first, last + 1):
        record = play_game(agent, deal, Rules(), deal_seed(0, deal))
        game_cpu += record.cpu_seconds
        print(f"deal {deal}: {'won' if record.won else record.ending}", flush=True)
    checks = sum(row[0] for row in tally.values())
    print(f"\n{checks} checks with a known line; games' CPU {game_cpu:.1f} s (repair's own tries included: "
          f"{repair_cpu[0]:.1f} s)")
    print("solver verdict | classes | checks | answered by repair | solver CPU s on them")
    for (status, hard), (count, repaired, cpu) in sorted(tally.items()):
        print(f"{status} | {'>= ' if hard == 'hard' else '< '}{HARD:,} | {count} | {repaired} | {cpu:.1f}")


if __name__ == "__main__":
    first, _, last = sys.argv[1].partition("-")
    main(int(first), int(last or first))
