#!/usr/bin/env python
"""Plot a training run's curves (win rate, foundation cards, endings, throughput) to a PNG
and print a one-line summary (steps, median throughput, validation win rates).

    python scripts/plot_training.py runs/ppo_draw3-20260101-120000 [--out docs/training.png]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run_dir", help="a run folder written by scripts/train.py")
    parser.add_argument("--out", help="PNG path (default: RUN_DIR/training.png)")
    parser.add_argument("--title", help="figure title (default: the run folder's name)")
    args = parser.parse_args(argv)
    from agents.training.plotting import PlotError, plot_run, run_summary

    try:
        print(run_summary(args.run_dir))
        print(plot_run(args.run_dir, args.out, args.title))
    except PlotError as error:
        print(f"plot_training.py: error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
