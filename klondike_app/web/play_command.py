"""``klondike play``: serve the browser game on this machine and open it."""

from __future__ import annotations

import argparse
import sys
import threading
import webbrowser
from pathlib import Path

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
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1, this machine only; 0.0.0.0 exposes it)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT}; 0 picks a free one)")
    parser.add_argument("--db", type=Path, default=None, metavar="FILE",
                        help="SQLite file of games and statistics (default: play.sqlite3 in the user data folder)")
    parser.add_argument("--no-open", action="store_true", help="do not open a browser")
    parser.add_argument("--screenshot", type=Path, default=None, metavar="PNG",
                        help="instead of serving, photograph the opening table of deal 1 with Chromium into PNG "
                             "(for the docs: docs/images/play.png)")
    add_rules_arguments(parser)


def run(args) -> int:
    try:
        rules = rules_from_args(args)
        import uvicorn

        from klondike_app.web.app import create_app
    except ValueError as error:
        print(f"klondike play: {error}", file=sys.stderr)
        return 2
    except ImportError as error:
        print(f"klondike play: {error.name} is missing; install the web extra: pip install 'klondike-env[web]'",
              file=sys.stderr)
        return 2
    if not 0 <= args.port <= 65535:
        print(f"klondike play: bad port {args.port}: a port is 0..65535", file=sys.stderr)
        return 2
    if args.screenshot is not None:
        from klondike_app.web.screenshot import take

        print(f"klondike play: wrote {take(args.screenshot, rules=rules)}")
        return 0
    db = args.db or default_db()
    app = create_app(db, rules)
    config = uvicorn.Config(app, host=args.host, port=args.port, log_level="warning")
    server = uvicorn.Server(config)

    def announce():
        # the port is known once the socket is bound (port 0 asks the system for a free one)
        while not server.started:
            if server.should_exit:
                return
            threading.Event().wait(0.05)
        port = server.servers[0].sockets[0].getsockname()[1]
        shown = "127.0.0.1" if args.host in ("0.0.0.0", "::") else args.host
        url = f"http://{shown}:{port}/"
        print(f"klondike play: {url}  (games in {db}; Ctrl+C stops)", flush=True)
        if not args.no_open:
            webbrowser.open(url)

    threading.Thread(target=announce, daemon=True).start()
    server.run()
    return 0 if server.started else 1
