#!/bin/bash
# The same work at two commits, side by side on the two cores and swapped each round, so that
# both see the machine as it is that minute (this machine's speed drifts by +-15% over minutes).
# Run from a clone of the repository, with the project's python first on PATH:
#     bash docs/experiments/2026-12-07-solver-hot-spots/side_by_side.sh bench BEFORE AFTER ROUNDS
#     bash docs/experiments/2026-12-07-solver-hot-spots/side_by_side.sh games BEFORE AFTER ROUNDS DEALS
# bench: `klondike bench-worlds --repeat 3`, CPU ms per solve of each configuration.
# games: `klondike evaluate --agent determinized --seeds DEALS --workers 1`, the games' CPU-seconds
# at each commit, and whether both played the same moves.
set -e
mode=$1; before=$2; after=$3; rounds=${4:-6}; deals=${5:-7-18}
root=$(git rev-parse --show-toplevel)
for commit in "$before" "$after"; do
  [ -d "/tmp/ab-$commit" ] || git -C "$root" worktree add -f --detach "/tmp/ab-$commit" "$commit" > /dev/null
  # compile (and cache) the commit's kernels first, so that no timed game pays for it
  (cd "/tmp/ab-$commit" && PYTHONPATH="$PWD" python -m klondike_app.cli bench-worlds --worlds 20 \
     --configs determinized --repeat 1 > /dev/null)
done
work() {  # commit core out
  cd "/tmp/ab-$1"
  if [ "$mode" = bench ]; then
    PYTHONPATH="$PWD" taskset -c "$2" python -m klondike_app.cli bench-worlds \
      --configs class1000,class3000,det30000,determinized --repeat 3 | awk 'NR > 2 {printf "%s=%s ", $1, $2}' > "$3"
  else
    rm -rf "$3.d"
    PYTHONPATH="$PWD" taskset -c "$2" python -m klondike_app.cli evaluate --agent determinized --seeds "$deals" \
      --workers 1 --out "$3.d" > /dev/null 2>&1
    python - "$3.d" > "$3" <<'PY'
import csv, glob, sys
rows = list(csv.DictReader(open(glob.glob(sys.argv[1] + "/*.csv")[0])))
print(f"{sum(float(row['cpu_seconds']) for row in rows):.1f} CPU-s, {len(rows)} games")
PY
  fi
}
for round in $(seq "$rounds"); do
  if [ $((round % 2)) = 1 ]; then a=0; b=1; else a=1; b=0; fi
  work "$before" $a /tmp/ab-before.txt & work "$after" $b /tmp/ab-after.txt; wait
  same=""
  if [ "$mode" = games ]; then
    # every column but the two timings: deal, won, moves, foundation cards, ending, actions
    cmp -s <(cut -d, -f1-4,7- /tmp/ab-before.txt.d/*.csv) <(cut -d, -f1-4,7- /tmp/ab-after.txt.d/*.csv) \
      && same="  same moves" || same="  MOVES DIFFER"
  fi
  echo "round $round  $before (core $a): $(cat /tmp/ab-before.txt)  $after (core $b): $(cat /tmp/ab-after.txt)$same"
done
