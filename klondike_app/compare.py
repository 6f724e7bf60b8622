"""``klondike compare``: put evaluation summaries side by side: a markdown table and a bar chart
with 95% intervals.

    klondike compare results/*.json [--plot results/compare.png]
    klondike compare results/greedy_test_draw3.csv     # a summary rebuilt from the rows

Agents that played the same deals are also compared deal by deal: the deals only one of them
won, and the exact sign test on those (a second table).
"""

from __future__ import annotations

import argparse

from klondike_app.cli import fail


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("summaries", nargs="+", help="JSON summaries written by 'klondike evaluate', or their per-deal "
                                                     "CSVs (the summary is rebuilt from the rows and written beside them)")
    parser.add_argument("--plot", default="results/compare.png",
                        help="chart to write, PNG or another format by its extension (default results/compare.png)")


def run(args: argparse.Namespace) -> int:
    from agents.reporting import bar_chart, check_chart_path, comparison_text, load_summaries

    try:
        summaries = load_summaries(args.summaries)
        text = comparison_text(summaries)  # reads the per-deal CSVs beside the summaries
        plot = check_chart_path(args.plot, "--plot")
    except ValueError as error:
        return fail(args, error)
    print(text)
    bar_chart(summaries, plot)
    print(f"\nchart: {args.plot}")
    return 0
