"""A progress line for long solves on a terminal: nodes expanded, nodes per second, table fill."""

from __future__ import annotations

import sys
from typing import TextIO

from tqdm import tqdm


class TerminalProgress:
    """A ``progress`` callback for :func:`~klondike_env.solver.solve`.

    Once a solve has run ``delay`` seconds it shows, on ``stream`` (stderr by default) and
    updating in place, the nodes expanded, the nodes per second and how full the table is. It
    shows nothing when ``stream`` is not a terminal (a pipe or a file), unless ``always``. The
    line is redrawn at most every ``mininterval`` seconds. Use
    it as a context manager, which clears the line when the solve ends::

        with TerminalProgress() as progress:
            result = solve(1, progress=progress)
    """

    def __init__(self, delay: float = 1.5, stream: TextIO | None = None, always: bool = False,
                 mininterval: float = 0.2):
        stream = sys.stderr if stream is None else stream
        self.bar: tqdm | None = None
        if always or stream.isatty():
            self.bar = tqdm(total=None, unit=" nodes", unit_scale=True, delay=delay, file=stream, leave=False,
                            mininterval=mininterval, bar_format="solving: {n_fmt} nodes, {rate_fmt}{postfix} [{elapsed}]")

    def __call__(self, nodes: int, table_fill: float) -> None:
        if self.bar is None:
            return
        self.bar.set_postfix_str(f"table {100 * table_fill:.0f}% full", refresh=False)
        self.bar.update(nodes - self.bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()

    def __enter__(self) -> TerminalProgress:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()
