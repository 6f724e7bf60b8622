"""Speed and strength benchmarks, one section per part of the project.

    python scripts/benchmark.py                 # every section
    python scripts/benchmark.py core env        # chosen sections
    python scripts/benchmark.py solver --quick  # smaller workloads

Each section lives in ``klondike_env/benchmarks/<name>.py`` and prints a markdown table.
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sections", nargs="*", type=section, default=list(SECTIONS), metavar="SECTION",
                        help=f"sections to run: {', '.join(SECTIONS)} (default: all)")
    parser.add_argument("--quick", action="store_true", help="smaller workloads, for a fast look")
    args = parser.parse_args()
    for name in args.sections or SECTIONS:
        module = importlib.import_module(f"klondike_env.benchmarks.{name}")
        print(f"## {name}\n")
        print(module.run(quick=args.quick))
        print()


if __name__ == "__main__":
    main()
