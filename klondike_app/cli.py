"""The ``klondike`` command: one entry point, one subcommand per job.

    klondike --help
    klondike SUBCOMMAND --help

Each subcommand is a module of this package with two functions: ``add_arguments(parser)``
fills its ``argparse`` parser and ``run(args) -> int`` does the work and returns the exit
status. Modules are imported only when their subcommand runs, so ``klondike --help`` stays
fast and a subcommand's heavy dependencies (torch, the web stack) load only when needed.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import shlex
import sys

# subcommand -> (module under klondike_app, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "demo": ("demo", "play one deal with an agent, naming each move and showing the board"),
    "quickstart": ("quickstart", "train the quick config, then score it next to random and greedy"),
    "evaluate": ("evaluate", "score an agent on a seed set: a per-deal CSV and a JSON summary"),
    "solve": ("solve", "solve deals: one deal's winning line, a sweep into a verdict CSV, or merged sweeps"),
    "evaluate-policy": ("evaluate_policy", "score a trained model on a seed set, all games batched"),
    "summarize": ("summarize", "rebuild and print the summary of a per-deal results CSV"),
    "same-rows": ("same_rows", "do two runs give the same per-deal rows (timing aside)?"),
    "compare": ("compare", "put evaluation summaries side by side: a table, a paired test and a chart"),
    "train": ("train", "train MaskablePPO from a YAML config, or resume a run"),
    "plot-training": ("plot_training", "plot a training run's curves to a PNG and summarise it"),
    "dagger": ("dagger", "label a learner's games with a teacher's moves for behaviour cloning"),
    "label-moves": ("label_moves", "score each move of recorded games by whether the deal stayed winnable"),
    "analyse-losses": ("analyse_losses", "find the losing move of lost games on winnable deals"),
    "playthrough": ("playthrough", "write or regenerate golden playthrough files"),
    "ray-costs": ("ray_costs", "Ray's cost per task here, and a run's deals per hour and cost on N workers"),
    "bench": ("bench", "speed and strength benchmarks: core, env, solver"),
    "bench-worlds": ("bench_worlds", "CPU time of the small world solves the determinized and hop agents make"),
    "benchmark-table": ("benchmark_table", "rewrite the results tables of BENCHMARK.md and README.md from the committed summaries"),
    "play": ("web.play_command", "play Klondike in the browser (a web server on this machine)"),
    "watch": ("web.watch_command", "replay recorded games in the browser: step through them, see the losing move"),
}


# optional dependencies -> the extra that installs them (pyproject.toml)
EXTRAS: dict[str, str] = {
    "torch": "train", "stable_baselines3": "train", "sb3_contrib": "train", "tensorboard": "train", "rich": "train",
    "matplotlib": "plot", "starlette": "web", "uvicorn": "web", "platformdirs": "web", "imageio": "web",
    "imageio_ffmpeg": "web", "ray": "ray", "mkdocs": "docs",
}


def fail(args: argparse.Namespace, error: object) -> int:
    """Report a bad input in one line, ``klondike COMMAND: error: ...`` (as argparse does), and
    return the exit status 2."""
    print(f"klondike {args.command}: error: {error}", file=sys.stderr)
    return 2


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The top-level parser; only the module of subcommand ``only`` (if any) is imported."""
    parser = argparse.ArgumentParser(prog="klondike", description="Draw-3 Klondike: play, solve, evaluate and train.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module_name, help_text) in COMMANDS.items():
        command_parser = sub.add_parser(name, help=help_text, description=help_text)
        if name == only:
            module = importlib.import_module(f"klondike_app.{module_name}")
            # the module's docstring (its usage examples) is the subcommand's full help
            command_parser.description = inspect.cleandoc(module.__doc__ or help_text).replace("``", "")
            command_parser.formatter_class = argparse.RawDescriptionHelpFormatter
            module.add_arguments(command_parser)
            command_parser.set_defaults(run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    chosen = next((a for a in argv if a in COMMANDS), None)
    parser = build_parser(only=chosen)
    args = parser.parse_args(argv)
    args.command_line = "klondike " + shlex.join(argv)  # recorded with results
    if getattr(args, "run", None) is None:
        parser.print_help()
        return 2
    try:
        return int(args.run(args) or 0)
    except ModuleNotFoundError as error:  # an optional dependency: say which extra installs it
        extra = EXTRAS.get((error.name or "").split(".")[0])
        if extra is None:
            raise
        return fail(args, f"needs {error.name}, which is not installed: pip install 'klondike-env[{extra}]'")


if __name__ == "__main__":
    raise SystemExit(main())
