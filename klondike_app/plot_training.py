"""``klondike plot-training``: plot a training run's curves (win rate, foundation cards, endings,
throughput) to a PNG and print a one-line summary (steps, median throughput, validation win rates).

    klondike plot-training runs/ppo_draw3-20260101-120000 [--out training.png]
"""

from __future__ import annotations

import argparse

from klondike_app.cli import fail


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_dir", help="a run folder written by 'klondike train'")
    parser.add_argument("--out", help="PNG path (default: RUN_DIR/training.png)")
    parser.add_argument("--title", help="figure title (default: the run folder's name)")


def run(args: argparse.Namespace) -> int:
    from agents.training.plotting import PlotError, plot_run, run_summary

    try:
        print(run_summary(args.run_dir))
        print(plot_run(args.run_dir, args.out, args.title))
    except PlotError as error:
        return fail(args, error)
    return 0
