"""``klondike playthrough``: write golden playthroughs (``klondike_env.playthrough``), or rewrite
them after an intended change.

    klondike playthrough --deal 3 --play solver --option observation=information+actions \\
        --out tests/playthroughs/deal3_draw3_solver.txt
    klondike playthrough --deal 7 --play random --seed 0 --steps 80 --illegal-at 5 \\
        --option draw_count=1 --option max_passes=2 --option empty_column=any \\
        --option foundation_to_tableau=False --option observation=visible+actions \\
        --option reward=standard --option max_episode_steps=60 \\
        --out tests/playthroughs/deal7_variants_random.txt
    klondike playthrough --regenerate tests/playthroughs/*.txt   # then review git diff

``tests/test_playthrough.py`` replays every file in ``tests/playthroughs/`` and requires the same text.
A playthrough is of a numbered deal, never of an explicit deck: the file records the deal number,
which replays the same deck on every machine (docs/contract.md), so there is no --deck here.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

from klondike_app.cli import fail
from klondike_env.cli import nonnegative_int, positive_int


def parse_option(text: str) -> tuple[str, object]:
    """``name=value``: a Python literal (``2``, ``None``, ``False``) or else the bare string."""
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"bad --option {text!r}: expected name=value, e.g. draw_count=1")
    try:
        return name, ast.literal_eval(value)
    except (ValueError, SyntaxError):
        return name, value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--deal", type=int, help="the deal number to play (a number, not a deck: the file records "
                                                     "the deal number, and the replay deals it again)")
    parser.add_argument("--play", choices=("solver", "random"), default="solver",
                        help="the solver's winning line, or seeded random legal actions")
    parser.add_argument("--seed", type=nonnegative_int, default=0, help="random play: the generator's seed")
    parser.add_argument("--steps", type=positive_int, default=80, help="random play: at most this many actions")
    parser.add_argument("--illegal-at", type=positive_int, help="random play: step (1-based) that plays an illegal action")
    parser.add_argument("--option", type=parse_option, action="append", default=[], metavar="NAME=VALUE",
                        help="a KlondikeEnv keyword (repeatable)")
    parser.add_argument("--out", type=Path, help="the file to write (default: print)")
    parser.add_argument("--regenerate", type=Path, nargs="+", metavar="FILE",
                        help="replay these files' actions and rewrite them")
    parser.set_defaults(parser=parser)


def run(args: argparse.Namespace) -> int:
    try:
        return _write(args)
    except (ValueError, OSError) as error:  # a bad option, deal or file: one line, no traceback
        return fail(args, error)


def _write(args: argparse.Namespace) -> int:
    from klondike_env.playthrough import playthrough_text, random_actions, read_playthrough, solver_actions

    if args.regenerate:
        for path in args.regenerate:
            deal, options, actions = read_playthrough(path.read_text(encoding="utf-8"))
            path.write_text(playthrough_text(deal, actions, **options), encoding="utf-8")
            print(f"rewrote {path} ({len(actions)} actions)")
        return 0
    if args.deal is None:
        args.parser.error("give --deal N (or --regenerate FILE ...)")
    if args.illegal_at is not None and (args.play != "random" or args.illegal_at > args.steps):
        args.parser.error(f"argument --illegal-at: {args.illegal_at} is never played: "
                          f"give a step from 1 to --steps ({args.steps}), with --play random")
    options = dict(args.option)
    if args.play == "solver":
        actions = solver_actions(args.deal, **options)
    else:
        actions = random_actions(args.deal, args.steps, args.seed, args.illegal_at, **options)
    text = playthrough_text(args.deal, actions, **options)
    if args.out is None:
        sys.stdout.write(text)
    else:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text, encoding="utf-8")
        print(f"wrote {args.out} ({len(actions)} actions)")
    return 0
