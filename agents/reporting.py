"""Reporting evaluation summaries: a markdown table, a bar chart with 95% intervals, and paired
comparisons of agents that played the same deals.

Shared by ``klondike compare`` and ``klondike quickstart``.
"""

from __future__ import annotations

import json
import math
from itertools import combinations
from pathlib import Path

from agents.evaluation import read_game_rows, summarize_results
from klondike_env.cli import prepare_output_file

UPPER_BOUND = " (upper bound: sees hidden cards)"
STOCK_VISIBLE = " (stock-visible track: sees the stock's order)"


def load_summaries(paths: list[str]) -> list[dict]:
    summaries = []
    for name in paths:
        path = Path(name)
        if path.suffix == ".csv" and path.is_file():  # a run cut short, or a summary lost: rebuilt from the rows
            json_path, summary = summarize_results(path, write=False)
            summaries.append({**summary, "summary_path": str(json_path)})
            continue
        if not path.is_file():
            raise ValueError(f"summary file {name!r} not found: give JSON files written by klondike evaluate")
        try:
            summary = json.loads(path.read_text())
            if summary.get("complete") is False and "win_rate" not in summary:
                raise ValueError(f"{name!r} is an unfinished run: rerun its command to finish it, or give its "
                                 f"CSV ({path.with_suffix('.csv').name}) to summarise the games played so far")
            summary["win_rate"], summary["win_rate_ci95"], summary["agent"]  # noqa: B018
        except (json.JSONDecodeError, KeyError, TypeError):
            raise ValueError(f"{name!r} is not an evaluation summary (expected the JSON of klondike evaluate)") from None
        summary["summary_path"] = str(path)
        summaries.append(summary)
    return summaries


def display_name(summary: dict) -> str:
    return (summary["agent"] + (UPPER_BOUND if summary.get("sees_hidden_cards") else "")
            + (STOCK_VISIBLE if summary.get("sees_stock") else ""))


def deal_text(summary: dict) -> str:
    seeds, deals = summary.get("seeds", "?"), summary.get("deals", "?")
    return seeds if seeds == deals else f"{seeds} ({deals})"


def markdown_table(summaries: list[dict]) -> str:
    header = ("| agent | deals | draw | won | win rate | 95% CI | win rate on winnable | "
              "foundation cards | moves per win | s per game | CPU s per game |")
    lines = [header, "|" + "---|" * (header.count("|") - 1)]
    for s in summaries:
        low, high = s["win_rate_ci95"]
        winnable = s.get("winnable") or {}
        on_winnable = winnable.get("win_rate_on_winnable")
        winnable_text = (f"{on_winnable:.1%} ({winnable['wins_on_winnable']}/{winnable['winnable_deals']})"
                         if on_winnable is not None else "-")
        moves = s.get("moves_per_win")
        lines.append(
            f"| {display_name(s)} | {deal_text(s)} | {s.get('rules', {}).get('draw_count', '?')} "
            f"| {s['wins']}/{s['games']} | {s['win_rate']:.1%} | {low:.1%}–{high:.1%} | {winnable_text} "
            f"| {s['mean_foundation_cards']:.1f} | {'-' if moves is None else f'{moves:.0f}'} | {s['seconds_per_game']:.3f} | {s.get('cpu_seconds_per_game', float('nan')):.3f} |"
        )
    return "\n".join(lines)


def check_chart_path(path: str | Path, flag: str) -> Path:
    """``path`` for :func:`bar_chart`, checked before any work: a format matplotlib writes, in a
    writable place (ValueError naming ``flag`` otherwise)."""
    from matplotlib.backend_bases import FigureCanvasBase

    formats = sorted(FigureCanvasBase.get_supported_filetypes())
    if Path(path).suffix.lstrip(".").lower() not in formats:
        raise ValueError(f"bad {flag} {str(path)!r}: the file name must end in a format matplotlib writes "
                         f"({', '.join(formats)})")
    return prepare_output_file(path, flag)


def bar_chart(summaries: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [display_name(s).replace(UPPER_BOUND, "\n(upper bound)").replace(STOCK_VISIBLE, "\n(sees the stock)")
             + f"\n{s.get('seeds', '')}" for s in summaries]
    rates = [100 * s["win_rate"] for s in summaries]
    # max(0, ...): at 0 wins the Wilson bound is a rounding error above 0, and matplotlib rejects negative errors
    below = [max(0.0, 100 * (s["win_rate"] - s["win_rate_ci95"][0])) for s in summaries]
    above = [max(0.0, 100 * (s["win_rate_ci95"][1] - s["win_rate"])) for s in summaries]
    colors = ["0.6" if s.get("sees_hidden_cards") else "tab:blue" for s in summaries]
    figure, axes = plt.subplots(figsize=(max(4.0, 1.6 * len(summaries)), 4.0), layout="constrained")
    axes.bar(range(len(summaries)), rates, yerr=[below, above], capsize=5, color=colors)
    axes.set_xticks(range(len(summaries)), names, fontsize=8)
    axes.set_ylabel("win rate (%), 95% Wilson interval")
    axes.set_ylim(0, 100)
    axes.set_title("Klondike agents")
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=120)
    plt.close(figure)


def sign_test_p(only_first: int, only_second: int) -> float:
    """Two-sided exact sign test (McNemar's exact test) on the deals exactly one of two agents won.

    Under "neither agent is better", each such deal is a fair coin: the p-value is the chance of
    a split at least as uneven as ``only_first`` against ``only_second``.
    """
    discordant = only_first + only_second
    if discordant == 0:
        return 1.0
    tail = sum(math.comb(discordant, k) for k in range(min(only_first, only_second) + 1))
    return min(1.0, 2 * tail / 2**discordant)


def deal_wins(summary: dict) -> dict[int, bool] | None:
    """``{deal: won}`` from the per-deal CSV beside a summary loaded by :func:`load_summaries`
    (None when the CSV is gone)."""
    recorded = Path(summary.get("csv", ""))
    beside = Path(summary.get("summary_path", "")).parent / recorded.name
    for path in (beside, recorded):
        if recorded.name and path.is_file():
            return {int(row["deal"]): row["won"] == "1" for row in read_game_rows(path, ("deal", "won"))}
    return None


def paired_table(summaries: list[dict]) -> str | None:
    """A markdown table comparing every two agents that played the same deals under the same rules.

    Paired by deal: the deals each agent won and the other lost, and the sign test on them. On
    a shared seed set this is the sharper test -- two win rates a few points apart can have
    overlapping 95% intervals while the deals they disagree on still favour one of them clearly.
    None when no two summaries share their deals.
    """
    wins = [deal_wins(s) for s in summaries]
    rows = []
    for i, j in combinations(range(len(summaries)), 2):
        first, second = wins[i], wins[j]
        if first is None or second is None or first.keys() != second.keys():
            continue
        if summaries[i].get("rules") != summaries[j].get("rules"):
            continue
        only_first = sum(first[d] and not second[d] for d in first)
        only_second = sum(second[d] and not first[d] for d in first)
        both = sum(first[d] and second[d] for d in first)
        rows.append(f"| {display_name(summaries[i])} | {display_name(summaries[j])} | {deal_text(summaries[i])} "
                    f"| {both} | {only_first} | {only_second} | {sign_test_p(only_first, only_second):.2g} |")
    if not rows:
        return None
    header = "| agent A | agent B | deals | both won | only A won | only B won | sign test p (two-sided) |"
    return "\n".join([header, "|" + "---|" * (header.count("|") - 1), *rows])


def comparison_text(summaries: list[dict]) -> str:
    """The side-by-side table, then the paired table when two summaries share their deals: what
    ``klondike compare`` and ``klondike quickstart`` print."""
    paired = paired_table(summaries)
    text = markdown_table(summaries)
    return text if paired is None else f"{text}\n\nSame deals, paired by deal:\n\n{paired}"
