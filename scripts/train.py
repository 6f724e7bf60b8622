#!/usr/bin/env python
"""Train MaskablePPO on Klondike from a YAML config.

    python scripts/train.py --config configs/quick.yaml
    python scripts/train.py --config configs/ppo_draw3.yaml --override train.n_envs=128 algo.ent_coef=0.005
    python scripts/train.py --resume runs/ppo_draw3-20260101-120000 [--override train.total_timesteps=2e7]

Ctrl-C (or SIGTERM) saves a checkpoint at the end of the current rollout and stops;
``--resume`` continues from the latest checkpoint with nothing lost.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--config", help="YAML config (see configs/ppo_draw3.yaml)")
    source.add_argument("--resume", metavar="RUN_DIR", help="continue the run in this folder")
    parser.add_argument("--override", nargs="+", default=[], metavar="KEY=VALUE",
                        help="set config values, e.g. algo.learning_rate=1e-4 (values are YAML)")
    parser.add_argument("--runs-dir", default="runs", help="where new run folders go (default: runs)")
    parser.add_argument("--quiet", action="store_true", help="no per-iteration table on stdout")
    args = parser.parse_args(argv)

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
        print(f"train.py: error: {error}", file=sys.stderr)
        return 2
    print(run_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
