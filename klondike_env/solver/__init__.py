"""An exact solver for Thoughtful Klondike (every card known), on the compiled rules core.

``solve(game_or_deck)`` decides whether a position can be won and, when it can, returns the
env action ids (draws and recycles included) that win it from that position. How the searches
work, and why each of their shortcuts keeps the verdict exact, is in docs/solver.md.

The modules, by what they hold:

* :mod:`~klondike_env.solver.api`: :func:`solve` and :func:`prepare`;
  :mod:`~klondike_env.solver.results`: :class:`SolveStatus`, :class:`SolveResult`,
  :class:`SolverInputError`; :mod:`~klondike_env.solver.verdicts`: sweep CSVs.
* :mod:`~klondike_env.solver.moves`: search moves and the move generator;
  :mod:`~klondike_env.solver.keys`: position keys; :mod:`~klondike_env.solver.table`:
  transposition tables and their atomics; :mod:`~klondike_env.solver.stuck`: cards stuck for
  good.
* :mod:`~klondike_env.solver.depth_first`, :mod:`~klondike_env.solver.best_first`,
  :mod:`~klondike_env.solver.classes`: the searches; :mod:`~klondike_env.solver.control`: how
  a compiled search reports back; :mod:`~klondike_env.solver.schedule`: which search runs when,
  on one thread or two; :mod:`~klondike_env.solver.progress`: the progress line of a long solve.
"""

from klondike_env.solver.api import DEFAULT_MEMORY_MB, prepare, solve
from klondike_env.solver.results import SolveResult, SolverInputError, SolveStatus
from klondike_env.solver.schedule import BEST_AFTER, PROBE_AFTER
from klondike_env.solver.table import table_capacity
from klondike_env.solver.verdicts import VERDICT_FIELDS, read_verdict_rows, read_verdicts

__all__ = [
    "BEST_AFTER",
    "DEFAULT_MEMORY_MB",
    "PROBE_AFTER",
    "VERDICT_FIELDS",
    "SolveResult",
    "SolveStatus",
    "SolverInputError",
    "prepare",
    "read_verdict_rows",
    "read_verdicts",
    "solve",
    "table_capacity",
]
