"""``klondike evaluate-policy``: score a trained model on a seed set with all games batched (fast
on a small CPU).

    klondike evaluate-policy runs/ppo_draw3-<time>/best_model.zip --seeds test
    klondike evaluate-policy MODEL.zip --seeds dev --deterministic
    klondike evaluate-policy MODEL.zip --seeds 1-100000 --batch 1000 --backend ray --address auto

A backend of the same harness as ``klondike evaluate --agent policy:path=MODEL.zip``, which
plays one game at a time: the same protocol and the same files (a per-deal CSV written as games
end, a JSON summary for ``klondike compare``; a rerun resumes). Every decision of every game is
one batched forward pass. Actions are masked samples by default (a memoryless argmax policy can
cycle). The rules and observation come from the run's config.yaml beside the model.

--batch N plays the deals N at a time, the k-th batch's samples seeded with --seed + k; with
--backend ray each batch is a Ray task (docs/ray.md), and the same --batch gives the same rows on
both backends.
"""

from __future__ import annotations

import argparse

from klondike_app import backend_options
from klondike_app.cli import fail
from klondike_env.cli import nonnegative_int, positive_int


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model", help="a model .zip saved by 'klondike train' (its run's config.yaml beside it)")
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
    parser.add_argument("--batch", type=positive_int, default=None,
                        help="deals played side by side at a time (default: all at once; needed with --backend ray)")
    parser.add_argument("--workers", type=positive_int, default=2, help="with --backend ray and no --address: "
                                                                        "the local Ray's CPUs (default 2)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar (--backend ray)")
    backend_options.add_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from agents.jobs import BackendError
    from agents.training.evaluation import evaluate_policy_file

    try:
        backend = backend_options.backend_of(args)
        if backend.name == "ray" and args.batch is None:
            raise ValueError("--backend ray plays the deals in batches: give --batch N (e.g. 200)")
        path, summary = evaluate_policy_file(
            args.model, args.seeds, deterministic=args.deterministic, max_moves=args.max_moves, seed=args.seed,
            out_dir=args.out, overwrite=args.overwrite, command=args.command_line,
            no_repeat=None if args.no_repeat is None else args.no_repeat == "true",
            batch=args.batch, backend=backend if backend.name == "ray" else None, progress=not args.quiet,
        )
    except (ValueError, BackendError) as error:
        return fail(args, error)
    low, high = summary["win_rate_ci95"]
    print(f"{summary['agent']} on {summary['seeds']} ({summary['games']} deals): won {summary['wins']} = "
          f"{summary['win_rate']:.1%} (95% CI {low:.1%}-{high:.1%}), "
          f"mean foundation cards {summary['mean_foundation_cards']:.2f}, {summary['wall_seconds']:.0f} s")
    print(path)
    return 0
