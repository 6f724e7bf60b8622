"""The options that choose where a long job runs: ``--backend local|ray``, ``--address``, ``--chunk-size``.

Shared by ``evaluate``, ``solve --deals``, ``label-moves`` and ``dagger`` (agents/jobs.py). Ray is
imported only when ``--backend ray`` is given, and its absence is a one-line error then.
"""

from __future__ import annotations

import argparse
import importlib.util

from klondike_env.cli import positive_int


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--backend", choices=("local", "ray"), default="local",
                        help="local: --workers processes here (default); ray: Ray tasks, on a local Ray with "
                             "--workers CPUs or on the cluster at --address (pip install 'klondike-env[ray]')")
    parser.add_argument("--address", default=None,
                        help="with --backend ray: the cluster to join, auto or HOST:PORT (default: start a local Ray)")
    parser.add_argument("--chunk-size", type=positive_int, default=None,
                        help="with --backend ray: deals per Ray task (default: about 2 s of work a task, "
                             "from the measured time per deal)")


def backend_of(args: argparse.Namespace):
    """The :class:`agents.jobs.Backend` the options ask for; a ``ValueError`` in one line if they
    do not fit together or Ray is not installed."""
    from agents.jobs import Backend

    if args.backend != "ray" and (args.address is not None or args.chunk_size is not None):
        raise ValueError("--address and --chunk-size need --backend ray")
    if args.backend == "ray" and importlib.util.find_spec("ray") is None:
        raise ValueError("--backend ray needs Ray: pip install 'klondike-env[ray]' (or --backend local)")
    return Backend(args.backend, args.workers, args.address, args.chunk_size)
