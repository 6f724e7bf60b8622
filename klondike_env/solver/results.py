"""What a solve answers: its status and result, and the error for a bad argument."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field


class SolveStatus(str, enum.Enum):
    SOLVED = "SOLVED"
    UNSOLVABLE = "UNSOLVABLE"
    UNKNOWN = "UNKNOWN"

    def __str__(self) -> str:
        return self.value


@dataclass
class SolveResult:
    """The verdict on one position.

    ``actions`` (only when SOLVED, and not with ``solve(..., actions=False)``) replay with
    ``Game.step`` from the solved position to a win. ``stopped_by`` names the budget that ran out
    (``"nodes"``, ``"time"``, ``"memory"``, ``"depth"``) when the status is UNKNOWN, else ``None``. ``nodes`` counts what the searches
    expanded: classes of positions for the class searches, positions for the others
    (``solve``'s ``node_limit`` counts the same). ``table_mb`` is the memory the
    transposition tables' used entries take, plus the best-first search's stored positions
    (the peak, since entries are never freed).
    """

    status: SolveStatus
    actions: list[int] = field(default_factory=list)
    nodes: int = 0
    seconds: float = 0.0
    stopped_by: str | None = None
    table_mb: float = 0.0


class SolverInputError(ValueError):
    """A bad argument to :func:`solve`."""
