"""``klondike play``: serve the browser game on this machine and open it."""

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


def run(args) -> int:
    try:
        rules = rules_from_args(args)
        import uvicorn  # noqa: F401  (the web extra's server, checked before anything else)

        from klondike_app.web.app import create_app
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
    return serve(create_app(db, rules), args.host, args.port, not args.no_open,
                 lambda url: f"klondike play: {url}  (games in {db}; Ctrl+C stops)")
