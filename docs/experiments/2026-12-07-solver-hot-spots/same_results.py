"""Solve deals 1-40 three ways and write every result (status, nodes, line) to a JSON file, so
that two versions of the solver can be compared with ``cmp``:

    python docs/experiments/2026-12-07-solver-hot-spots/same_results.py before.json   # at one commit
    python docs/experiments/2026-12-07-solver-hot-spots/same_results.py after.json    # at the other
    cmp before.json after.json

The three ways: positions under 150,000; classes under 300,000 (the solver's defaults); positions
under 300,000 with the probes and the best-first search from 2,000 positions.
"""

from __future__ import annotations

import json
import sys

from klondike_env.solver import solve

WAYS = (dict(by_class=False, node_limit=150_000), dict(node_limit=300_000),
        dict(by_class=False, node_limit=300_000, probe_after=2000, best_after=2000))

results = []
for deal in range(1, 41):
    for options in WAYS:
        result = solve(deal, **options)
        results.append([deal, sorted(options.items()), result.status.name, result.nodes,
                        [int(action) for action in result.actions or []]])
with open(sys.argv[1], "w") as out:
    json.dump(results, out)
