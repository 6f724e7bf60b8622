#!/bin/bash
# Two agents' games on the same deals, side by side on the two cores (swapped each round, so that
# both see the machine as it is that minute), and their CPU-seconds. Run from a clone of the
# repository with the project's python first on PATH:
#     bash docs/experiments/2026-12-07-shared-continuation/side_by_side.sh AGENT_A AGENT_B DEALS ROUNDS
set -e
a=$1; b=$2; deals=${3:-50001-50020}; rounds=${4:-2}
out=$(mktemp -d)
# compile (and cache) the kernels first, so that no timed game pays for it
python -m klondike_app.cli bench-worlds --worlds 20 --configs determinized --repeat 1 > /dev/null
for round in $(seq "$rounds"); do
  if [ $((round % 2)) = 1 ]; then ca=0; cb=1; else ca=1; cb=0; fi
  taskset -c $ca python -m klondike_app.cli evaluate --agent "$a" --seeds "$deals" --workers 1 --out "$out/a$round" --quiet &
  taskset -c $cb python -m klondike_app.cli evaluate --agent "$b" --seeds "$deals" --workers 1 --out "$out/b$round" --quiet
  wait
  python - "$out/a$round" "$out/b$round" "$round" "$ca" <<'PY'
import csv, glob, sys
def total(folder):
    rows = list(csv.DictReader(open(glob.glob(folder + "/*.csv")[0])))
    return sum(float(row["cpu_seconds"]) for row in rows), sum(row["won"] == "1" for row in rows), len(rows)
(ta, wa, n), (tb, wb, _) = total(sys.argv[1]), total(sys.argv[2])
print(f"round {sys.argv[3]} (A on core {sys.argv[4]}): A {ta:.1f} CPU-s, {wa} won; B {tb:.1f} CPU-s, {wb} won; "
      f"{n} games each; B/A {tb / ta:.3f}")
PY
done
rm -rf "$out"
