"""How a compiled search reports back: the result codes its kernel writes, and the base of the
Python objects that run a search in chunks."""

from __future__ import annotations

import numpy as np


# Options for the kernels a search calls at every node, which allocate no array: compiled without
# numba's reference counting (``_nrt=False``), as the atomic count updates numba otherwise makes on
# the arrays they are handed and the views they take cost most of a small solve's time
# (docs/experiments/2026-11-29-speed-log.md, "World solves").
NO_REFCOUNT = {"cache": True, "_nrt": False}

# the result of a search (its ctrl array's result slot)
RUNNING, WON, EXHAUSTED, FULL = 0, 1, 2, 3


class ControlledSearch:
    """A search whose kernel reports through ``self.ctrl``: each subclass names its slots."""

    RESULT_SLOT = NODES_SLOT = ENTRIES_SLOT = -1  # set by each subclass
    ctrl: np.ndarray

    @property
    def result(self) -> int:
        return int(self.ctrl[self.RESULT_SLOT])

    @property
    def nodes(self) -> int:
        """Positions expanded."""
        return int(self.ctrl[self.NODES_SLOT])

    @property
    def entries(self) -> int:
        """Table entries used."""
        return int(self.ctrl[self.ENTRIES_SLOT])
