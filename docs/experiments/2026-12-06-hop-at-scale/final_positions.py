"""Endings of a run's games, and whether each lost game's final position was still winnable in
the true deal (every card known, the solver under 2,000,000 nodes).

    python docs/experiments/2026-12-06-hop-at-scale/final_positions.py RUN.csv
"""

import csv
import sys
from collections import Counter

from klondike_env.game import Game
from klondike_env.solver import solve

rows = list(csv.DictReader(open(sys.argv[1])))
print(Counter(row["ending"] for row in rows))
verdicts = Counter()
for row in rows:
    if row["won"] == "1":
        continue
    game = Game.new(int(row["deal"]))
    for action in row["actions"].split():
        game.step(int(action))
    verdicts[(row["ending"], str(solve(game, node_limit=2_000_000).status))] += 1
print(verdicts)
