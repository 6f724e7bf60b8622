"""``klondike watch``: replay an agent's recorded games in the browser, move by move.

    klondike watch docs/results/greedy_test_draw3.csv
    klondike watch docs/results/greedy_test_draw3.csv --deal 5
    klondike watch A.csv B.csv                      # two agents on the same deals, in step
    klondike watch RESULTS.csv --deal 5 --export game.gif   # or .mp4: one frame per position

RESULTS.csv is a per-deal CSV of ``klondike evaluate`` (its actions column holds each game);
the JSON summary beside it gives the agent's name and the rules. --deal picks one of the file's
games (no --deck here: a recorded game is dealt from its deal number). The page lists the deals,
replays the chosen one (step, jump, play at a speed; the move about to be played is marked),
reveals the hidden cards on request, and marks the losing move of a lost game: the first move
after which the solver no longer wins the true deal (computed on request, kept in --db).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from klondike_app.cli import fail
from klondike_app.web.serve import add_server_arguments, port_error
from klondike_env.cli import positive_int

DEFAULT_PORT = 8734


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from klondike_app.web.watch_analysis import DEFAULT_NODES, DEFAULT_WORLD_NODES, DEFAULT_WORLDS

    parser.add_argument("results", nargs="+", metavar="RESULTS.csv",
                        help="a results CSV of 'klondike evaluate', or two of the same deals to compare")
    parser.add_argument("--deal", type=int, default=None, metavar="N", help="open this deal first")
    add_server_arguments(parser, DEFAULT_PORT)
    parser.add_argument("--db", type=Path, default=None, metavar="FILE",
                        help="SQLite file keeping the solver's analyses (default: the play.sqlite3 of 'klondike play')")
    parser.add_argument("--nodes", type=positive_int, default=None, metavar="N",
                        help=f"solver positions per position when looking for the losing move (default {DEFAULT_NODES})")
    parser.add_argument("--worlds", type=positive_int, default=None, metavar="K",
                        help=f"worlds sampled per move for 'sample worlds' (default {DEFAULT_WORLDS})")
    parser.add_argument("--world-nodes", type=positive_int, default=None, metavar="N",
                        help=f"solver positions per sampled world (default {DEFAULT_WORLD_NODES})")
    out = parser.add_argument_group("instead of serving")
    out.add_argument("--export", type=Path, default=None, metavar="FILE",
                     help="write the game of --deal (of the first file that has it) as an animated .gif or .mp4, one frame "
                          "per position (moves + 1 frames)")
    out.add_argument("--fps", type=float, default=4.0, help="frames per second of --export (default 4)")
    out.add_argument("--screenshot", type=Path, default=None, metavar="PNG",
                     help="photograph the viewer at --deal with Chromium into PNG (for the docs: docs/images/watch.png)")
    out.add_argument("--move", type=int, default=None, metavar="K",
                     help="the move --screenshot shows (default: the one before the losing move, else 0)")


def load(args):
    """The loaded files and the deal verdicts, or a ValueError saying what is wrong."""
    from agents.evaluation import load_verdicts, verdict_file
    from klondike_app.web.replays import check_replay, load_results

    if len(args.results) > 2:
        raise ValueError(f"{len(args.results)} results files given: watch one, or two to compare")
    files = [load_results(path) for path in args.results]
    for results in files:
        for replay in results.replays.values():
            check_replay(replay, str(results.path))
    if len(files) == 2 and files[0].rules != files[1].rules:
        raise ValueError(f"{files[0].path.name} and {files[1].path.name} were played under different rules")
    if args.deal is not None and not any(args.deal in results.replays for results in files):
        raise ValueError(f"deal {args.deal} is not in {', '.join(results.path.name for results in files)}")
    path = verdict_file(files[0].rules)
    verdicts = load_verdicts(path) if path is not None else {}
    return files, verdicts


def analyses_of(args, verdicts, db):
    from klondike_app.web.watch_analysis import Analyses

    budget = {key: value for key, value in (("nodes", args.nodes), ("worlds", args.worlds),
                                             ("world_nodes", args.world_nodes)) if value is not None}
    return Analyses(db, verdicts=verdicts, **budget)


def run(args) -> int:
    try:
        import uvicorn  # noqa: F401  (the web extra's server, checked before anything else)

        from klondike_app.web.app import create_watch_app
    except ImportError as error:
        return fail(args, f"{error.name} is missing; install the web extra: pip install 'klondike-env[web]'")
    if port_error(args.port):
        return fail(args, port_error(args.port))
    if (args.export or args.screenshot) and args.deal is None:
        return fail(args, "--export and --screenshot need --deal N: the game to show")
    if args.fps <= 0:
        return fail(args, f"bad --fps {args.fps}: frames per second must be above 0")
    try:
        if args.export is not None:
            from klondike_app.web.export import check_export_path

            check_export_path(args.export)  # before loading: a bad name must not cost the work
        files, verdicts = load(args)
    except ValueError as error:
        return fail(args, error)
    if args.export is not None:
        from klondike_app.web.export import export_game

        results = next(results for results in files if args.deal in results.replays)
        frames = export_game(results.replays[args.deal], args.export, args.fps)
        print(f"klondike watch: wrote {args.export} ({frames} frames: deal {args.deal}, "
              f"{frames - 1} moves of {results.agent})")
        return 0
    if args.screenshot is not None:
        from klondike_app.web.watch_screenshot import take

        analyses = analyses_of(args, verdicts, None)
        print(f"klondike watch: wrote {take(args.screenshot, create_watch_app(files, analyses), args.deal, args.move)}")
        return 0
    from klondike_app.web.play_command import default_db
    from klondike_app.web.serve import serve

    db = args.db or default_db()
    analyses = analyses_of(args, verdicts, db)
    analyses.warm_up()
    app = create_watch_app(files, analyses)
    deal = args.deal if args.deal is not None else ""
    names = " and ".join(str(results.path) for results in files)
    return serve(app, args.host, args.port, not args.no_open,
                 lambda url: f"klondike watch: {url}{f'?deal={deal}' if deal != '' else ''}  ({names}; Ctrl+C stops)")
