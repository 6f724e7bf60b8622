#!/bin/bash
# CPU of `klondike bench-worlds` at two commits, side by side on two cores and swapped each
# round, so that both see the same machine at the same time (this machine's speed drifts by
# +-15% over minutes). Run from a clone of the repository:
#     bash docs/experiments/2026-12-07-table-slots/ab_bench_worlds.sh BEFORE AFTER ROUNDS [CONFIGS]
# Prints, per round, each commit's CPU ms per solve for each configuration.
set -e
before=$1; after=$2; rounds=${3:-6}; configs=${4:-class1000,class3000,det30000,determinized}
root=$(git rev-parse --show-toplevel)
for commit in "$before" "$after"; do
  [ -d "/tmp/ab-$commit" ] || git -C "$root" worktree add -f --detach "/tmp/ab-$commit" "$commit" > /dev/null
done
bench() {  # worktree core out
  (cd "$1" && PYTHONPATH="$1" taskset -c "$2" python -m klondike_app.cli bench-worlds --configs "$configs" \
     --repeat 3 | awk 'NR > 2 {printf "%s=%s ", $1, $2}' > "$3")
}
for round in $(seq "$rounds"); do
  if [ $((round % 2)) = 1 ]; then a=0; b=1; else a=1; b=0; fi
  bench "/tmp/ab-$before" $a /tmp/ab-before.txt & bench "/tmp/ab-$after" $b /tmp/ab-after.txt; wait
  echo "round $round  $before (core $a): $(cat /tmp/ab-before.txt)  $after (core $b): $(cat /tmp/ab-after.txt)"
done
