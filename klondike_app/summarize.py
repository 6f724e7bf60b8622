"""``klondike summarize``: rebuild the summary of a results CSV (a finished run, or one cut short)
and print it; the JSON beside the CSV is rewritten from the rows.

    klondike summarize results/greedy_test_draw3.csv
    klondike summarize results/greedy_test_draw3.csv --no-write     # print only

Every game's row is on disk as soon as the game ends, so a run stopped after its games (or
during them) keeps what it played; this command turns those rows into the summary that
``klondike evaluate`` would have written. The run's identity (agent, seeds, rules) comes from
the JSON beside the CSV when it is there; otherwise --draw, --max-passes and --empty-column
give the rules. ``klondike compare`` also takes such CSVs directly.
"""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("csv", help="a per-deal results CSV written by 'klondike evaluate' or 'klondike evaluate-policy'")
    parser.add_argument("--no-write", action="store_true", help="print the summary only; leave the JSON as it is")
    parser.add_argument("--draw", type=int, default=None,
                        help="cards per draw, 3 or 1, when the CSV has no JSON beside it (default: the JSON's, else 3)")
    parser.add_argument("--max-passes", type=int, default=None, help="trips through the stock, when the CSV has no JSON beside it")
    parser.add_argument("--empty-column", default=None, help="king or any, when the CSV has no JSON beside it")


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from agents.evaluation import summarize_results
    from agents.reporting import comparison_text
    from klondike_app.cli import fail
    from klondike_env.rules import Rules

    path = Path(args.csv)
    try:
        if path.suffix != ".csv" or not path.is_file():
            raise ValueError(f"{args.csv!r} is not a results CSV: give the .csv file that 'klondike evaluate' wrote")
        given = {key: value for key, value in (("draw_count", args.draw), ("max_passes", args.max_passes),
                                               ("empty_column", args.empty_column)) if value is not None}
        rules = Rules(**given) if given else None
        json_path, summary = summarize_results(path, rules=rules, write=not args.no_write)
        text = comparison_text([{**summary, "summary_path": str(json_path)}])
    except ValueError as error:
        return fail(args, error)
    print(text)
    print(json_path if not args.no_write else "(the JSON beside the CSV is left as it was: --no-write)")
    return 0
