"""``klondike quickstart``: the main job in one command: train the quick config, then score it
next to the baselines.

    klondike quickstart [--config configs/quick.yaml] [--seeds dev] [--workers 2] [--verbose]

Trains MaskablePPO (as ``klondike train --config ...``), evaluates random, greedy and the trained
policy (sampled masked actions) on the seed set with the evaluation harness, and prints the
comparison table and the paired (deal by deal) table; the summaries and a bar chart go to
RUN/<seeds>/. Training shows a progress bar; --verbose prints SB3's tables of training scalars
instead (they are in RUN/tb/ either way).
"""

from __future__ import annotations

import argparse
import os
import shlex
from pathlib import Path

from klondike_app.cli import fail
from klondike_env.cli import positive_int


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", default="configs/quick.yaml", help="training config (default configs/quick.yaml)")
    parser.add_argument("--seeds", default="dev", help="seed set to score on (default dev: deals 1-100)")
    parser.add_argument("--workers", type=positive_int, default=os.cpu_count() or 1, help="evaluation processes")
    parser.add_argument("--runs-dir", default="runs", help="where the run folder goes (default runs/)")
    parser.add_argument("--verbose", action="store_true",
                        help="print SB3's training tables instead of a progress bar (they are in RUN/tb/ either way)")


def run(args: argparse.Namespace) -> int:
    from agents.evaluation import AgentError, evaluate, load_seed_set
    from agents.reporting import bar_chart, comparison_text, load_summaries
    from agents.training.config import ConfigError, load_config
    from agents.training.run import train
    from klondike_env.cli import prepare_output_dir

    try:
        # everything the evaluation needs is checked before training, which takes minutes
        config = load_config(args.config)
        load_seed_set(args.seeds)
        prepare_output_dir(args.runs_dir, "--runs-dir")
        run_dir = train(config, runs_root=Path(args.runs_dir), tables=args.verbose, progress_bar=not args.verbose)
        print(f"trained: {run_dir}")
        agents = ["random", "greedy", f"policy:path={run_dir / 'best_model.zip'},deterministic=false"]
        out_dir = run_dir / args.seeds.replace("/", "_")
        paths = [evaluate(agent, args.seeds, seed=0, workers=args.workers, out_dir=out_dir, progress=True,
                          command=f"klondike evaluate --agent {shlex.quote(agent)} --seeds {shlex.quote(args.seeds)}")[0]
                 for agent in agents]
        summaries = load_summaries([str(path) for path in paths])
    except (ConfigError, ValueError, AgentError) as error:
        return fail(args, error)
    print()
    print(comparison_text(summaries))
    chart = out_dir / "compare.png"
    bar_chart(summaries, chart)
    print(f"\nchart: {chart}")
    return 0
