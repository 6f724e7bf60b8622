"""``klondike train``: train MaskablePPO on Klondike from a YAML config.

    klondike train --config configs/quick.yaml
    klondike train --config configs/ppo_draw3_actions_bc.yaml --override train.n_envs=128 algo.ent_coef=0.005
    klondike train --resume runs/ppo_draw3-20260101-120000 [--override train.total_timesteps=2e7]

Ctrl-C (or SIGTERM) saves a checkpoint at the end of the current rollout and stops;
``--resume`` continues from the latest checkpoint with nothing lost. The run folder is the
last line printed.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from klondike_app.cli import fail


def add_arguments(parser: argparse.ArgumentParser) -> None:
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--config", help="YAML config (see configs/)")
    source.add_argument("--resume", metavar="RUN_DIR", help="continue the run in this folder")
    parser.add_argument("--override", nargs="+", default=[], metavar="KEY=VALUE",
                        help="set config values, e.g. algo.learning_rate=1e-4 (values are YAML)")
    parser.add_argument("--runs-dir", default="runs", help="where new run folders go (default: runs)")
    parser.add_argument("--quiet", action="store_true", help="no per-iteration table on stdout")


def run(args: argparse.Namespace) -> int:
    from agents.training.config import ConfigError, load_config, load_run_config
    from agents.training.pretrain import DemonstrationError

    try:
        if args.resume:
            config = load_run_config(args.resume, args.override)
        else:
            config = load_config(args.config, args.override)
        from agents.training.run import train

        run_dir = train(config, resume=args.resume, runs_root=Path(args.runs_dir), verbose=0 if args.quiet else 1)
    except (ConfigError, DemonstrationError) as error:  # a bad key or value; a missing or unusable demonstrations file
        return fail(args, error)
    print(run_dir)
    return 0
