"""``klondike same-rows``: do two runs give the same per-deal rows? Compares a results or sweep
CSV with another, order aside.

    klondike same-rows results/local/greedy_1-2000_draw3.csv results/ray/greedy_1-2000_draw3.csv
    klondike same-rows sweep_local.csv sweep_ray.csv

The timing columns (seconds, cpu_seconds) are left out: they measure the machine, not the game.
Prints the number of deals, how many rows are identical, and each deal whose row differs with the
columns that differ (and, for a sweep, what stopped each search). Exit status 0 when every deal
is in both files with the same row, 1 otherwise.
"""

from __future__ import annotations

import argparse
import csv

from klondike_app.cli import fail

TIMING = ("seconds", "cpu_seconds")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("first", help="a per-deal CSV (results of 'klondike evaluate', or a sweep of 'klondike solve')")
    parser.add_argument("second", help="the CSV to compare it with")


def rows_by_deal(path: str) -> dict[str, dict[str, str]]:
    try:
        with open(path, newline="") as handle:
            rows = list(csv.DictReader(handle))
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(f"cannot read {path!r} ({getattr(error, 'strerror', None) or error}): give a per-deal CSV") from None
    if rows and "deal" not in rows[0]:
        raise ValueError(f"{path!r} has no 'deal' column: give a per-deal CSV")
    by_deal = {row["deal"]: row for row in rows}
    if len(by_deal) != len(rows):
        raise ValueError(f"{path!r}: a deal has more than one row")
    return by_deal


def run(args: argparse.Namespace) -> int:
    try:
        first, second = rows_by_deal(args.first), rows_by_deal(args.second)
    except ValueError as error:
        return fail(args, error)
    only = sorted(set(first) ^ set(second), key=int)
    differ = []
    for deal in sorted(set(first) & set(second), key=int):
        columns = [key for key in first[deal] if key not in TIMING and first[deal][key] != second[deal].get(key)]
        if columns:
            differ.append((deal, columns))
    same = len(set(first) & set(second)) - len(differ)
    print(f"{len(first)} and {len(second)} deals; {same} rows identical (timing columns aside), {len(differ)} differ, "
          f"{len(only)} in one file only")
    timed = [deal for deal, _ in differ if "time" in (first[deal].get("stopped_by"), second[deal].get("stopped_by"))]
    if timed:
        print(f"{len(timed)} of the {len(differ)} that differ were stopped by the time limit in one file or both "
              "(a time limit depends on the machine's speed and load)")
    for deal, columns in differ:
        stops = f"; stopped by {first[deal].get('stopped_by') or '-'} / {second[deal].get('stopped_by') or '-'}" \
            if "stopped_by" in first[deal] else ""
        print(f"deal {deal}: " + ", ".join(f"{key} {first[deal][key]!r} / {second[deal][key]!r}" for key in columns) + stops)
    return 0 if not differ and not only else 1
