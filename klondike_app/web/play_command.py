"""``klondike play``: serve the browser game on this machine and open it.

    klondike play                                  # free play: any deal, replays, hints
    klondike play --seeds dev --player alice       # score yourself on the benchmark's dev set
    klondike play --seeds dev --player alice --undo off --hints on

With --seeds and --player the server deals the set's deals in order, one try each, the deal
number hidden until each game is over, under the protocol the options declare (undo allowed
and counted, hints off, auto finish on by default). Each finished game is appended to the
results CSV and JSON summary that 'klondike evaluate' writes (agent human:NAME, in --out,
default results/), so 'klondike compare' puts you beside the agents. The same command again
resumes the set where it stopped.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from klondike_app.web.serve import add_server_arguments, port_error, serve

DEFAULT_PORT = 8733


def default_db() -> Path:
    """The per-user storage file (the platform's user data folder)."""
    from platformdirs import user_data_path

    return user_data_path("klondike", appauthor=False) / "play.sqlite3"


def add_rules_arguments(parser: argparse.ArgumentParser) -> None:
    rules = parser.add_argument_group("rules of a new deal (the page can change them)")
    rules.add_argument("--draw", type=int, choices=(1, 3), default=3, help="cards turned per draw (default 3)")
    rules.add_argument("--max-passes", type=int, default=None, metavar="N",
                       help="trips through the stock, N >= 1 (default unlimited)")
    rules.add_argument("--empty-column", choices=("king", "any"), default="king",
                       help="what an empty column takes (default king)")
    rules.add_argument("--no-recall", action="store_true",
                       help="forbid moving a foundation card back down to the tableau")


def rules_from_args(args):
    from klondike_env.rules import Rules

    return Rules(draw_count=args.draw, max_passes=args.max_passes, empty_column=args.empty_column,
                 foundation_to_tableau=not args.no_recall)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_server_arguments(parser, DEFAULT_PORT)
    parser.add_argument("--db", type=Path, default=None, metavar="FILE",
                        help="SQLite file of games and statistics (default: play.sqlite3 in the user data folder)")
    parser.add_argument("--screenshot", type=Path, default=None, metavar="PNG",
                        help="instead of serving, photograph the opening table of deal 1 with Chromium into PNG "
                             "(for the docs: docs/images/play.png)")
    add_rules_arguments(parser)
    scored = parser.add_argument_group("scoring yourself on a seed set (docs/web.md)")
    scored.add_argument("--seeds", default=None, metavar="SET",
                        help="play this seed set's deals in order, one try each: a named set (dev, val, test), "
                             "a file of deal numbers or a range FIRST-LAST, as in 'klondike evaluate'")
    scored.add_argument("--player", default=None, metavar="NAME",
                        help="your name with --seeds; the results' agent is human:NAME")
    scored.add_argument("--undo", default="on", choices=("on", "off"), help="undo allowed and counted (default on)")
    scored.add_argument("--hints", default="off", choices=("on", "off"), help="hints allowed and counted (default off)")
    scored.add_argument("--auto-finish", default="on", choices=("on", "off"),
                        help="auto finish once no card is hidden (default on)")
    scored.add_argument("--max-moves", type=int, default=None, metavar="N",
                        help="actions after which a game is lost (default 1000, as in 'klondike evaluate')")
    scored.add_argument("--out", type=Path, default=Path("results"), help="folder for the CSV and JSON (default results/)")
    scored.add_argument("--overwrite", action="store_true",
                        help="replace results of another run with the same file name (the same run resumes without it)")


def scored_plan(args, rules):
    """The scored run the options ask for, or None for free play; a one-line ``ValueError``
    for a bad seed set, name or option."""
    from agents.evaluation import load_seed_set
    from agents.results import DEFAULT_MAX_MOVES
    from klondike_app.web.protocol import Protocol, check_player_name
    from klondike_app.web.scored import ScoredPlan

    if args.seeds is None:
        for option, value in (("--player", args.player), ("--max-moves", args.max_moves)):
            if value is not None:
                raise ValueError(f"{option} needs --seeds SET (the deals to be scored on)")
        return None
    if args.player is None:
        raise ValueError("--seeds needs --player NAME (whose results these are)")
    check_player_name(args.player)
    max_moves = DEFAULT_MAX_MOVES if args.max_moves is None else args.max_moves
    if max_moves < 1:
        raise ValueError(f"bad --max-moves {max_moves}: give 1 or more")
    seeds, deals = load_seed_set(args.seeds)
    return ScoredPlan(args.player, seeds, tuple(deals), rules, Protocol.from_switches(args.undo, args.hints, args.auto_finish),
                      max_moves, args.out, args.overwrite, getattr(args, "command_line", None))


def run(args) -> int:
    try:
        rules = rules_from_args(args)
        import uvicorn  # noqa: F401  (the web extra's server, checked before anything else)

        from klondike_app.web.app import create_app

        plan = scored_plan(args, rules)
    except ValueError as error:
        print(f"klondike play: {error}", file=sys.stderr)
        return 2
    except ImportError as error:
        print(f"klondike play: {error.name} is missing; install the web extra: pip install 'klondike-env[web]'",
              file=sys.stderr)
        return 2
    if port_error(args.port):
        print(f"klondike play: {port_error(args.port)}", file=sys.stderr)
        return 2
    if args.screenshot is not None:
        from klondike_app.web.screenshot import take

        print(f"klondike play: wrote {take(args.screenshot, rules=rules)}")
        return 0
    db = args.db or default_db()
    try:
        app = create_app(db, rules, scored=plan)
    except ValueError as error:
        print(f"klondike play: {error}", file=sys.stderr)
        return 2
    if plan is not None:
        print(f"klondike play: {app.state.scored.describe()}", flush=True)
    return serve(app, args.host, args.port, not args.no_open,
                 lambda url: f"klondike play: {url}  (games in {db}; Ctrl+C stops)")
