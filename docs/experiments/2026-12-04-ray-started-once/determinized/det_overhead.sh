#!/bin/bash
# Wall time of the determinized evaluation of deals 1-100: local, a Ray started by the command, a Ray started once.
. ${VENV:-.venv}/bin/activate  # a venv with the [ray] extra
cd "$(git rev-parse --show-toplevel)"
OUT=${1:-det_overhead}; mkdir -p $OUT
run() {  # name, extra args
  local t0=$(date +%s.%N)
  klondike evaluate --agent determinized --seeds 1-100 --workers 2 --quiet --out $OUT/$1 "${@:2}" > $OUT/$1.log 2>&1
  local t1=$(date +%s.%N)
  echo "$1 $(echo "$t1 - $t0" | bc)" | tee -a $OUT/walls.txt
  sleep 20
}
run local1
run ray1 --backend ray
ray start --head --num-cpus 2 --include-dashboard=false > $OUT/raystart1.log 2>&1
sleep 10
run joined1 --backend ray --address auto
ray stop > /dev/null 2>&1
