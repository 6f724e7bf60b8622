#!/usr/bin/env python
"""Score a trained model on a seed set with all games batched (fast on a small CPU).

    python scripts/evaluate_policy.py runs/ppo_draw3-.../best_model.zip --seeds test
    python scripts/evaluate_policy.py MODEL.zip --seeds dev --deterministic

Same protocol and output files (per-deal CSV, JSON summary for scripts/compare.py) as
``scripts/evaluate.py --agent policy:path=MODEL.zip``, which plays one game at a time.
Actions are masked samples by default (a memoryless argmax policy can cycle).
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from klondike_env.cli import nonnegative_int, positive_int  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model", help="a model .zip saved by scripts/train.py")
    parser.add_argument("--seeds", default="test", help="named set, seed file or range FIRST-LAST (default: test)")
    parser.add_argument("--deterministic", action="store_true", help="masked argmax instead of masked samples")
    parser.add_argument("--max-moves", type=positive_int, default=1000, help="actions before a game is stopped (default 1000)")
    parser.add_argument("--seed", type=nonnegative_int, default=0, help="torch seed for sampled actions")
    parser.add_argument("--no-repeat", choices=("true", "false"), default=None,
                        help="mask moves already played from a position (klondike_env.move_memory); "
                             "default: the run's policy.no_repeat")
    parser.add_argument("--out", default="results", help="folder for the CSV and JSON (default: results/)")
    parser.add_argument("--overwrite", action="store_true",
                        help="replace results of another run with the same file name (the same run resumes without it)")
    args = parser.parse_args(argv)
    from agents.training.evaluation import evaluate_policy_file

    try:
        path, summary = evaluate_policy_file(
            args.model, args.seeds, deterministic=args.deterministic, max_moves=args.max_moves, seed=args.seed,
            out_dir=args.out, overwrite=args.overwrite, no_repeat=None if args.no_repeat is None else args.no_repeat == "true", command="python scripts/evaluate_policy.py " + shlex.join(sys.argv[1:] if argv is None else argv),
        )
    except ValueError as error:
        print(f"evaluate_policy.py: error: {error}", file=sys.stderr)
        return 2
    low, high = summary["win_rate_ci95"]
    print(f"{summary['agent']} on {summary['seeds']} ({summary['games']} deals): won {summary['wins']} = "
          f"{summary['win_rate']:.1%} (95% CI {low:.1%}-{high:.1%}), "
          f"mean foundation cards {summary['mean_foundation_cards']:.2f}, {summary['wall_seconds']:.0f} s")
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
