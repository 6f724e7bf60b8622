"""Paired wins of the rollout agent against the policy alone and greedy on the same fresh deals.

Script of the experiment record docs/experiments/2026-12-02-rollout-agent.md. It reads three
per-deal CSVs of the evaluation harness (columns ``deal`` and ``won``) and compares them on the
deals 1000001-1000500, which all three must cover:

    python docs/experiments/2026-12-02-rollout-agent/pair_fresh.py ROLLOUT.csv POLICY.csv GREEDY.csv

The record lists the commands that write the three CSVs. Only the standard library is used, so
the script runs from a fresh clone whatever the package's internals become.
"""
import csv
import math
import sys

DEALS = set(range(1000001, 1000501))


def wins(path):
    with open(path, newline="") as handle:
        rows = {int(r["deal"]): r["won"] in ("1", "True", "true") for r in csv.DictReader(handle)}
    missing = DEALS - rows.keys()
    if missing:
        raise SystemExit(f"{path}: {len(missing)} of deals 1000001-1000500 missing (e.g. {min(missing)})")
    return {deal: rows[deal] for deal in DEALS}


def wilson(k, n, z=1.959963984540054):
    centre = (k + z * z / 2) / (n + z * z)
    half = z * math.sqrt(k * (n - k) / n + z * z / 4) / (n + z * z)
    return centre - half, centre + half


def sign_test_p(a, b):
    """Exact two-sided sign test on a deals won only by one side and b only by the other."""
    n = a + b
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(a, b) + 1)) / 2 ** n
    return min(1.0, 2 * tail)


def main(argv):
    if len(argv) != 3:
        raise SystemExit(__doc__)
    results = {"rollout": wins(argv[0]), "policy alone": wins(argv[1]), "greedy": wins(argv[2])}
    for name, won in results.items():
        n = sum(won.values())
        low, high = wilson(n, len(DEALS))
        print(f"{name}: {n}/{len(DEALS)} = {100 * n / len(DEALS):.1f}% ({100 * low:.1f}%-{100 * high:.1f}%)")
    rollout = results["rollout"]
    for name in ("policy alone", "greedy"):
        other = results[name]
        a = sum(rollout[d] and not other[d] for d in DEALS)
        b = sum(other[d] and not rollout[d] for d in DEALS)
        print(f"rollout vs {name}: only rollout {a}, only {name} {b}, sign test p = {sign_test_p(a, b):.2g}")


if __name__ == "__main__":
    main(sys.argv[1:])
