"""Do two runs give the same per-deal rows? Compares a results or sweep CSV with another, order aside.

    python scripts/same_rows.py results/local/greedy_1-2000_draw3.csv results/ray/greedy_1-2000_draw3.csv
    python scripts/same_rows.py sweep_local.csv sweep_ray.csv

The timing columns (seconds, cpu_seconds) are left out: they measure the machine, not the game.
Prints the number of deals, how many rows are identical, and each deal whose row differs with the
columns that differ (and, for a sweep, what stopped each search). Exit status 0 when every deal
is in both files with the same row, 1 otherwise.
"""

from __future__ import annotations

import csv
import sys

TIMING = ("seconds", "cpu_seconds")


def rows_by_deal(path: str) -> dict[str, dict[str, str]]:
    with open(path, newline="") as handle:
        rows = list(csv.DictReader(handle))
    by_deal = {row["deal"]: row for row in rows}
    if len(by_deal) != len(rows):
        sys.exit(f"{path}: a deal has more than one row")
    return by_deal


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        sys.exit("usage: python scripts/same_rows.py FIRST.csv SECOND.csv")
    first, second = (rows_by_deal(path) for path in argv)
    only = sorted(set(first) ^ set(second), key=int)
    differ = []
    for deal in sorted(set(first) & set(second), key=int):
        columns = [key for key in first[deal] if key not in TIMING and first[deal][key] != second[deal].get(key)]
        if columns:
            differ.append((deal, columns))
    same = len(set(first) & set(second)) - len(differ)
    print(f"{len(first)} and {len(second)} deals; {same} rows identical (timing columns aside), {len(differ)} differ, "
          f"{len(only)} in one file only")
    for deal, columns in differ:
        stops = f"; stopped by {first[deal].get('stopped_by') or '-'} / {second[deal].get('stopped_by') or '-'}" \
            if "stopped_by" in first[deal] else ""
        print(f"deal {deal}: " + ", ".join(f"{key} {first[deal][key]!r} / {second[deal][key]!r}" for key in columns) + stops)
    return 0 if not differ and not only else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
