"""Paired wins of the rollout agent on deals 1000001-1000500 against session 22's policy and greedy runs there."""
import csv, glob
from agents.reporting import sign_test_p
from agents.evaluation import wilson_interval

def wins(path, deals):
    return {int(r["deal"]): r["won"] in ("1", "True", "true") for r in csv.DictReader(open(path)) if int(r["deal"]) in deals}

deals = set(range(1000001, 1000501))
rollout = wins(glob.glob("/work/scratch/s24/fresh/rollout-*.csv")[0], deals)
others = {"policy alone": wins(glob.glob("/work/scratch/s22/big/policy-batched-*.csv")[0], deals),
          "greedy": wins(glob.glob("/work/scratch/s22/big/greedy_*.csv")[0], deals)}
assert len(rollout) == 500 and all(len(o) == 500 for o in others.values())
for name, won in [("rollout", rollout)] + list(others.items()):
    n = sum(won.values()); lo, hi = wilson_interval(n, 500)
    print(f"{name}: {n}/500 = {n/5:.1f}% ({100*lo:.1f}%-{100*hi:.1f}%)")
for name, other in others.items():
    a = sum(rollout[d] and not other[d] for d in deals); b = sum(other[d] and not rollout[d] for d in deals)
    print(f"rollout vs {name}: only rollout {a}, only {name} {b}, sign test p = {sign_test_p(a, b):.2g}")
