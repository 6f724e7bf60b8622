"""Find deals that need a given kind of move, by solving with a variant that forbids it.

    python -m klondike_env.solver_examples --deals 1-400 --node-limit 100000

A deal *needs* recycling when the standard rules win it and ``max_passes=1`` is proved
UNSOLVABLE (an exhaustive search); it needs worrying back when ``foundation_to_tableau=False``
is proved UNSOLVABLE. The deals printed here are pinned in ``tests/test_solver.py``.
"""

from __future__ import annotations

import argparse

from klondike_env import core
from klondike_env.rules import Rules
from klondike_env.solver import SolveStatus, solve


def needs(deal: int, rules: Rules, without: Rules, node_limit: int) -> bool:
    """True when ``rules`` win ``deal`` and ``without`` is proved unable to."""
    return (solve(deal, rules, node_limit=node_limit).status == SolveStatus.SOLVED
            and solve(deal, without, node_limit=node_limit).status == SolveStatus.UNSOLVABLE)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", default="1-400", help="range first-last (default 1-400)")
    parser.add_argument("--draw", type=int, default=3)
    parser.add_argument("--node-limit", type=int, default=100_000)
    parser.add_argument("--want", type=int, default=3, help="stop after this many of each kind")
    args = parser.parse_args()
    first, last = (int(x) for x in args.deals.split("-"))
    rules = Rules(draw_count=args.draw)
    recycle, worrying = [], []
    for deal in range(first, last + 1):
        result = solve(deal, rules, node_limit=args.node_limit)
        if result.status != SolveStatus.SOLVED:
            continue
        if len(recycle) < args.want and core.RECYCLE in result.actions and needs(
                deal, rules, Rules(draw_count=args.draw, max_passes=1), args.node_limit):
            recycle.append(deal)
            print("needs a recycle:", deal, flush=True)
        if len(worrying) < args.want and any(a >= core.FOUNDATION_TO_COLUMN for a in result.actions) and needs(
                deal, rules, Rules(draw_count=args.draw, foundation_to_tableau=False), args.node_limit):
            worrying.append(deal)
            print("needs worrying back:", deal, flush=True)
        if len(recycle) >= args.want and len(worrying) >= args.want:
            break
    print(f"draw {args.draw}: recycle {recycle}, worrying back {worrying} (searched up to deal {deal})")


if __name__ == "__main__":
    main()
