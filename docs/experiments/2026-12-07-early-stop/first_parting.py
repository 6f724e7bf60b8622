"""Where two runs' games on the same deals first part: the move each played there, and whether it
can be taken back, counted by which run won the deal.

    python docs/experiments/2026-12-07-early-stop/first_parting.py A.csv B.csv
"""
import csv
import sys
from collections import Counter

from agents.base import PlayerView
from agents.determinized import reversible
from klondike_env.game import Game

a = {row["deal"]: row for row in csv.DictReader(open(sys.argv[1]))}
b = {row["deal"]: row for row in csv.DictReader(open(sys.argv[2]))}
counts = Counter()
for deal in b.keys() & a.keys():
    first, second = a[deal]["actions"].split(), b[deal]["actions"].split()
    won = (a[deal]["won"] == "1", b[deal]["won"] == "1")
    outcome = "only A won" if won == (True, False) else "only B won" if won == (False, True) else "same outcome"
    index = next((i for i, (x, y) in enumerate(zip(first, second)) if x != y), None)
    if index is None:
        counts[(outcome, "same moves")] += 1
        continue
    game = Game.new(int(deal))
    for action in first[:index]:
        game.step(int(action))
    view = PlayerView(game)
    kind = lambda action: "can be taken back" if reversible(view, int(action)) else "cannot"  # noqa: E731
    counts[(outcome, f"A's move {kind(first[index])}", f"B's move {kind(second[index])}")] += 1
for key, count in sorted(counts.items()):
    print(", ".join(key), count)
