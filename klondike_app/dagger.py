"""``klondike dagger``: label a learner's games with a teacher's moves (DAgger) for behaviour cloning.

    klondike dagger --learner policy:path=models/ppo_draw3_actions_bc/model.zip,no_repeat=true \\
        --teacher determinized:samples=10 --deals 20001-20500 --beta 0.5 --out data/demos/dagger.csv

The learner plays each deal (with probability --beta a move is the teacher's instead); at every
position the teacher's move is recorded as the label. Add the file to a config's
``pretrain.demonstrations`` to clone the teacher on the positions the learner reaches
(agents/training/dagger.py). Deals of the evaluation sets (test, val: 1-2000) are refused.
--backend ray plays and labels the games as Ray tasks (docs/ray.md); the labels are the same.

Each game's row is written to the CSV as the game ends, and the run's settings to the JSON beside
it; the same command run again resumes (deals already in the CSV are skipped), other settings
for the same CSV are refused unless --overwrite.
"""

from __future__ import annotations

import argparse
import os

from klondike_app import backend_options
from klondike_app.cli import fail
from klondike_env.cli import nonnegative_int, positive_int


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--learner", required=True, help="agent spec whose games are labelled, e.g. policy:path=MODEL.zip")
    parser.add_argument("--teacher", required=True, help="agent spec that labels each position, e.g. determinized:samples=10")
    parser.add_argument("--deals", required=True, help="range FIRST-LAST or seed file (not test/val deals)")
    parser.add_argument("--beta", type=float, default=0.5, help="probability a move played is the teacher's (default 0.5)")
    parser.add_argument("--draw", type=int, default=3, help="cards per draw: 3 (default) or 1")
    parser.add_argument("--max-moves", type=positive_int, default=400, help="moves before a game is stopped (default 400)")
    parser.add_argument("--workers", type=positive_int, default=os.cpu_count() or 1, help="processes (default: all cores)")
    parser.add_argument("--seed", type=nonnegative_int, default=0, help="run seed; each deal's seeds derive from it")
    parser.add_argument("--out", required=True,
                        help="CSV to write, a row per game as it ends (its settings and summary go to the .json "
                             "beside it; the same command again resumes it)")
    parser.add_argument("--overwrite", action="store_true",
                        help="replace a CSV of other settings (the same run resumes without it)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    backend_options.add_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from agents.base import AgentOptionError
    from agents.jobs import BackendError
    from agents.evaluation import SeedSetError, load_seed_set
    from agents.training.dagger import label_deals_into
    from agents.training.pretrain import evaluation_deals
    from klondike_env.rules import Rules

    try:
        _, deals = load_seed_set(args.deals)
        forbidden = evaluation_deals()
        overlap = sorted(set(deals) & set(forbidden))
        if overlap:
            raise SeedSetError(f"--deals {args.deals} includes deal {overlap[0]} of the {forbidden[overlap[0]]!r} set: "
                               "label deals outside the evaluation sets (1-2000)")
        _, summary = label_deals_into(args.out, args.learner, args.teacher, deals, Rules(draw_count=args.draw),
                                      beta=args.beta, max_moves=args.max_moves, seed=args.seed,
                                      backend=backend_options.backend_of(args), overwrite=args.overwrite,
                                      progress=not args.quiet, command=getattr(args, "command_line", None))
    except (ValueError, AgentOptionError, BackendError) as error:
        return fail(args, error)
    resumed = f"; {summary['resumed_games']} games resumed from the CSV" if summary["resumed_games"] else ""
    print(f"{summary['games']} games ({summary['wins']} won), {summary['labels']} labelled positions, "
          f"{summary['teacher_moves_played']:.1%} of moves played are the teacher's label{resumed}")
    print(summary["csv"])
    return 0
