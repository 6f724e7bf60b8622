"""Solver checks: deals that need a given kind of move, the twin merge of the key, the class search.

    python -m klondike_env.solver_examples --deals 1-400 --node-limit 100000
    python -m klondike_env.solver_examples --twin-check 2000 --node-limit 200000
    python -m klondike_env.solver_examples --class-check 2000 --node-limit 200000

A deal *needs* recycling when the standard rules win it and ``max_passes=1`` is proved
UNSOLVABLE (an exhaustive search); it needs worrying back when ``foundation_to_tableau=False``
is proved UNSOLVABLE. The deals printed here are pinned in ``tests/test_solver.py``.

``--twin-check N`` solves N positions of random play twice, with the position search's plain
key and with ``exact_twins=True`` (which keeps positions apart that differ only by which twin
lies where); ``--class-check N`` with the class search (the default) and the position search
(``by_class=False``). Each stops with an error at the first position where the two decided
verdicts differ, or a solution does not replay.
"""

from __future__ import annotations

import argparse

import numpy as np

from klondike_env import core
from klondike_env.game import Game
from klondike_env.rules import Rules
from klondike_env.solver import SolveStatus, solve


def needs(deal: int, rules: Rules, without: Rules, node_limit: int) -> bool:
    """True when ``rules`` win ``deal`` and ``without`` is proved unable to."""
    return (solve(deal, rules, node_limit=node_limit).status == SolveStatus.SOLVED
            and solve(deal, without, node_limit=node_limit).status == SolveStatus.UNSOLVABLE)


def random_position(rng: np.random.Generator, rules: Rules | None = None) -> Game:
    """A random deal after 10-119 uniformly random legal moves (fewer if it ends first)."""
    game = Game.new(int(rng.integers(0, 2**63)), rules)
    for _ in range(int(rng.integers(10, 120))):
        legal = game.legal_actions()
        if not legal or game.is_won:
            break
        game.step(int(rng.choice(legal)))
    return game


def compare_searches(positions: int, seed: int, node_limit: int, rules: Rules | None, first: dict, second: dict,
                     what: str) -> dict[str, int]:
    """Solve random positions with ``solve(**first)`` and ``solve(**second)``; raise
    ``AssertionError`` (naming the position) if two decided verdicts differ or a solution does
    not replay to a win. Returns counts: decided by both (``won``, ``lost``), ``merged`` (of
    those, the two expanded a different number of positions), ``undecided``."""
    rng = np.random.default_rng(seed)
    counts = {"won": 0, "lost": 0, "merged": 0, "undecided": 0}
    for index in range(positions):
        game = random_position(rng, rules)
        results = [solve(game, node_limit=node_limit, **options) for options in (first, second)]
        for result in results:
            if result.status == SolveStatus.SOLVED:
                replay = game.copy()
                for action in result.actions:
                    replay.step(action)
                assert replay.is_won, f"position {index} (seed {seed}): a solution that does not win"
        if SolveStatus.UNKNOWN in (results[0].status, results[1].status):
            counts["undecided"] += 1
            continue
        if results[0].status != results[1].status:
            raise AssertionError(f"position {index} (seed {seed}): {what} {results[0].status.name} against "
                                 f"{results[1].status.name}; moves {game.move_count} into deck {game.deck_string()}")
        counts["won" if results[0].status == SolveStatus.SOLVED else "lost"] += 1
        counts["merged"] += results[0].nodes != results[1].nodes
    return counts


def twin_check(positions: int, seed: int = 0, node_limit: int = 50_000, rules: Rules | None = None) -> dict[str, int]:
    """The position search with the plain key against ``exact_twins=True`` (:func:`compare_searches`)."""
    return compare_searches(positions, seed, node_limit, rules, {"by_class": False}, {"exact_twins": True},
                            "plain key")


def class_check(positions: int, seed: int = 0, node_limit: int = 50_000, rules: Rules | None = None) -> dict[str, int]:
    """The class search (``klondike_env/solver/classes.py``) against the position search."""
    return compare_searches(positions, seed, node_limit, rules, {"by_class": True}, {"by_class": False},
                            "class search")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", default="1-400", help="range first-last (default 1-400)")
    parser.add_argument("--draw", type=int, default=3)
    parser.add_argument("--node-limit", type=int, default=100_000)
    parser.add_argument("--want", type=int, default=3, help="stop after this many of each kind")
    parser.add_argument("--twin-check", type=int, metavar="N", help="check the twin merge on N random positions")
    parser.add_argument("--class-check", type=int, metavar="N",
                        help="check the class search against the position search on N random positions")
    parser.add_argument("--seed", type=int, default=0, help="--twin-check, --class-check: the positions' seed")
    args = parser.parse_args()
    if args.twin_check or args.class_check:
        check, positions = (twin_check, args.twin_check) if args.twin_check else (class_check, args.class_check)
        counts = check(positions, args.seed, args.node_limit, Rules(draw_count=args.draw))
        print(f"{positions} positions (seed {args.seed}, draw {args.draw}, {args.node_limit} positions a search): "
              f"same verdict in all {counts['won'] + counts['lost']} decided by both ({counts['won']} won, "
              f"{counts['lost']} lost; node counts differ in {counts['merged']}), {counts['undecided']} undecided")
        return
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
