#!/bin/bash
# Wall time of the 10 s solver sweep of deals 1-500, three ways, in rounds: --backend local,
# --backend ray (the command starts and stops its own Ray), and --backend ray --address auto
# (joining a Ray started once before with `ray start`). Run from a checkout with the [ray]
# extra installed, on an otherwise idle machine: bash overhead.sh [OUT] [ROUNDS]
OUT=${1:-overhead}; ROUNDS=${2:-2}
mkdir -p "$OUT"
run() {  # name, extra args
  local t0=$(date +%s.%N)
  klondike solve --deals 1-500 --time-limit 10 --workers 2 --quiet --csv "$OUT/$1.csv" "${@:2}" > "$OUT/$1.log" 2>&1
  local t1=$(date +%s.%N)
  echo "$1 $(echo "$t1 - $t0" | bc)" | tee -a "$OUT/walls.txt"
  sleep 20
}
git rev-parse --short HEAD > "$OUT/commit.txt"
for round in $(seq 1 "$ROUNDS"); do
  run local$round
  run ray$round --backend ray
  ray start --head --num-cpus 2 --include-dashboard=false > "$OUT/raystart$round.log" 2>&1
  sleep 10
  run joined$round --backend ray --address auto
  ray stop > /dev/null 2>&1
  sleep 10
done
