"""What tells apart the positions of a lost deal's proof (needs proof_anatomy.patch applied).

python docs/solver/experiments/proof_anatomy.py 526 156 198 66

For each deal: the complete search alone (no probes, no best-first search) records every position
it expands; the script counts the distinct values of coarser keys over them.
"""

import sys

import numpy as np

from klondike_env import solve, solver

solver.prepare()
solver.RECORD = np.zeros((10_000_000, 5), np.int64)
for deal in map(int, sys.argv[1:]):
    result = solve(deal, time_limit=120, probe_after=10**12, best_after=10**12)
    expanded = solver.RECORD[1:min(result.nodes, len(solver.RECORD))]  # row 0 is the root, unrecorded

    def distinct(columns):
        return len(np.unique(expanded[:, columns], axis=0))

    classes = distinct([0, 1, 2])
    print(f"deal {deal}: {result.status.name}, {result.nodes:,} positions; "
          f"distinct (face-down counts, foundations, talon left, waste boundary) {classes:,} "
          f"({len(expanded) / classes:.1f} arrangements of the face-up cards each); "
          f"talon sets {distinct([1]):,}; face-down counts + foundations {distinct([0]):,}; "
          f"nonzero boundaries {int((expanded[:, 2] > 0).sum()):,}")
