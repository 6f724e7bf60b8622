"""Set-up and search time of the solver's tables with numpy's huge-page request and without.

    python docs/experiments/2026-12-03-table-memory/table_memory.py [REPEATS]

Each variant runs in a fresh process, alternating: ``numpy`` allocates the tables as numpy does
by default (``np.zeros``, which asks Linux for huge pages at once) and touches them; ``ordinary``
is the suite's own allocation (klondike_env.solver.memory). Prints per run: prepare seconds
(klondike_env.solver.prepare at 512 MB), seconds for four 2-million-node solves right after,
and the process's huge pages in MB.
"""

import subprocess
import sys
import time

DEALS = (311, 270, 104, 450)


def one_run(variant: str) -> None:
    import numpy as np

    from klondike_env.solver import prepare, solve, table

    if variant == "numpy":
        def numpy_zeros(shape, dtype, keep=False):
            array = np.zeros(shape, dtype)
            array.fill(0)
            return array

        table.search_array = numpy_zeros
    start = time.perf_counter()
    prepare(512, None)
    prepared = time.perf_counter() - start
    start = time.perf_counter()
    for deal in DEALS:
        solve(deal, node_limit=2_000_000)
    solved = time.perf_counter() - start
    huge = next(line for line in open("/proc/self/smaps_rollup") if line.startswith("AnonHugePages")).split()[1]
    print(f"{variant:8} prepare {prepared:5.2f} s  solves {solved:5.2f} s  huge pages {int(huge) // 1024} MB", flush=True)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] in ("numpy", "ordinary"):
        one_run(sys.argv[1])
    else:
        for _ in range(int(sys.argv[1]) if len(sys.argv) > 1 else 3):
            for variant in ("numpy", "ordinary"):
                subprocess.run([sys.executable, __file__, variant], check=True)
