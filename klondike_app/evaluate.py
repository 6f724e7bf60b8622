"""``klondike evaluate``: score an agent on a fixed seed set; writes a per-deal CSV and a JSON summary.

    klondike evaluate --agent greedy --seeds test
    klondike evaluate --agent determinized:samples=8 --seeds 1-200 --workers 2
    klondike evaluate --agent policy:path=runs/ppo-x/model.zip --seeds test --draw 3
    klondike evaluate --agent my_module:MyAgent:depth=2 --seeds dev     # your own agent class
    klondike evaluate --agent determinized --seeds 1-100000 --backend ray --address auto   # on a Ray cluster

--seeds takes a named set (dev, val, test), a file of deal numbers one per line, or a range
FIRST-LAST. --agent takes a built-in agent or your own class as MODULE:CLASS or FILE.py:CLASS
(docs/agents/custom.md). The summary's path is the last line printed.

Each game's row is written to the CSV as the game ends. Running the same command again resumes
an unfinished run (deals already written are skipped); a different run whose files would have
the same name is refused unless --overwrite is given. --backend ray plays the deals as Ray
tasks (docs/ray.md); the rows are the same as with --backend local.
"""

from __future__ import annotations

import argparse
import os

from klondike_app import backend_options
from klondike_app.cli import fail
from klondike_env.cli import nonnegative_int, positive_int

BUILT_IN_AGENTS = "random, greedy, determinized, oracle, policy, rollout"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--agent", required=True,
                        help=f"NAME[:key=value,...] with NAME one of {BUILT_IN_AGENTS}, or MODULE:CLASS[:key=value,...]")
    parser.add_argument("--seeds", default="test", help="named set, seed file or range FIRST-LAST (default: test)")
    parser.add_argument("--draw", type=int, default=3, help="cards per draw: 3 (default) or 1")
    parser.add_argument("--max-passes", type=int, default=None, help="trips through the stock (default: unlimited)")
    parser.add_argument("--empty-column", default="king", help="king (default) or any")
    parser.add_argument("--workers", type=positive_int, default=os.cpu_count() or 1, help="processes (default: all cores)")
    parser.add_argument("--seed", type=nonnegative_int, default=0, help="run seed; each deal's agent seed derives from it")
    parser.add_argument("--max-moves", type=positive_int, default=1000, help="actions before a game is stopped (default 1000)")
    parser.add_argument("--out", default="results", help="folder for the CSV and JSON (default: results/)")
    parser.add_argument("--overwrite", action="store_true",
                        help="replace results of another run with the same file name (the same run resumes without it)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    backend_options.add_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from agents.evaluation import AgentError, evaluate
    from agents.jobs import BackendError
    from klondike_env.rules import Rules

    try:
        rules = Rules(draw_count=args.draw, max_passes=args.max_passes, empty_column=args.empty_column)
        path, summary = evaluate(args.agent, args.seeds, rules, seed=args.seed, backend=backend_options.backend_of(args),
                                 max_moves=args.max_moves, out_dir=args.out, progress=not args.quiet,
                                 command=args.command_line, overwrite=args.overwrite)
    except (ValueError, AgentError, BackendError) as error:
        return fail(args, error)
    low, high = summary["win_rate_ci95"]
    print(f"agent {summary['agent']}{'  (UPPER BOUND: sees hidden cards)' if summary['sees_hidden_cards'] else ''}"
          f"{'  (STOCK-VISIBLE TRACK: sees the stock order)' if summary['sees_stock'] else ''}")
    deals = summary["seeds"] + (f" ({summary['deals']})" if summary["deals"] != summary["seeds"] else "")
    print(f"deals {deals}, draw {args.draw}: "
          f"won {summary['wins']}/{summary['games']} = {summary['win_rate']:.1%} (95% CI {low:.1%}-{high:.1%})")
    if summary["winnable"] and summary["winnable"]["winnable_deals"]:
        w = summary["winnable"]
        print(f"on solver-winnable deals: {w['wins_on_winnable']}/{w['winnable_deals']} = {w['win_rate_on_winnable']:.1%}")
    moves = summary["moves_per_win"]
    print(f"mean foundation cards {summary['mean_foundation_cards']:.2f}, moves per win "
          f"{'-' if moves is None else f'{moves:.1f}'}, {summary['seconds_per_game']:.3f} s per game "
          f"({summary['cpu_seconds_per_game']:.3f} s CPU)")
    print(path)
    return 0
