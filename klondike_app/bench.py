"""``klondike bench``: speed and strength benchmarks, one section per part of the project.

    klondike bench                 # every section
    klondike bench core env        # chosen sections
    klondike bench solver --quick  # smaller workloads

Each section is a module of :mod:`klondike_app.benchmarks` with ``run(quick) -> str`` that
returns a markdown table.
"""

from __future__ import annotations

import argparse
import importlib

SECTIONS = ("core", "env", "solver")


def section(name: str) -> str:
    # a type, not choices=: argparse checks a '*' positional's default list against choices too
    if name not in SECTIONS:
        raise argparse.ArgumentTypeError(f"unknown section {name!r}: choose from {', '.join(SECTIONS)}")
    return name


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("sections", nargs="*", type=section, default=list(SECTIONS), metavar="SECTION",
                        help=f"sections to run: {', '.join(SECTIONS)} (default: all)")
    parser.add_argument("--quick", action="store_true", help="smaller workloads, for a fast look")


def run(args: argparse.Namespace) -> int:
    for name in args.sections or SECTIONS:
        module = importlib.import_module(f"klondike_app.benchmarks.{name}")
        print(f"## {name}\n")
        print(module.run(quick=args.quick))
        print()
    return 0
