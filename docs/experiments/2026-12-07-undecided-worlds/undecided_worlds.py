"""What the worlds left undecided at the determinized agent's budget turn out to be.

    python docs/experiments/2026-12-07-undecided-worlds/undecided_worlds.py

Samples 600 worlds along greedy games of deals 1001-1040 (klondike bench-worlds' sampler: a world
every 4 moves, seed 0), solves each under 100,000 classes with the agent's schedule (probes after
50,000, best-first after 150,000) and with the solver's default schedule (both after 2,000), then
solves every world either left UNKNOWN under 2,000,000 classes with the agent's schedule. Prints
the statuses, the CPU seconds of each schedule, and what the undecided worlds became.
"""

from __future__ import annotations

import collections
import time

from agents.determinized import SOLVER_BEST_AFTER, SOLVER_PROBE_AFTER
from klondike_app.bench_worlds import sample_worlds
from klondike_env.solver import SolveStatus, solve

AGENT = dict(probe_after=SOLVER_PROBE_AFTER, best_after=SOLVER_BEST_AFTER)


def timed(world, **options):
    start = time.process_time()
    result = solve(world, by_class=True, **options)
    return result.status, time.process_time() - start


worlds = [world for _, _, world in sample_worlds(1001, 40, 4, 600, 0)]
for world in worlds[:5]:  # compile and warm the tables first
    timed(world, node_limit=1000, **AGENT)
    timed(world, node_limit=1000)
rows = []
for world in worlds:
    agent, agent_cpu = timed(world, node_limit=100_000, **AGENT)
    default, default_cpu = timed(world, node_limit=100_000)
    deep = None
    if SolveStatus.UNKNOWN in (agent, default):
        deep, _ = timed(world, node_limit=2_000_000, **AGENT)
    rows.append((agent, agent_cpu, default, default_cpu, deep))

for name, status, cpu in (("agent's schedule", 0, 1), ("solver's default schedule", 2, 3)):
    counts = collections.Counter(row[status].name for row in rows)
    undecided_cpu = sum(row[cpu] for row in rows if row[status] == SolveStatus.UNKNOWN)
    print(f"{name}, 100,000 classes: {dict(counts)}; CPU {sum(row[cpu] for row in rows):.2f} s, "
          f"of it on UNKNOWN {undecided_cpu:.2f} s")
    later = collections.Counter(row[4].name for row in rows if row[status] == SolveStatus.UNKNOWN)
    print(f"  its UNKNOWN worlds under 2,000,000 classes (agent's schedule): {dict(later)}")
