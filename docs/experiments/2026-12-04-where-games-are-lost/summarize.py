"""Tables of the where-games-are-lost record, from the two probes' JSON lines.

    python docs/experiments/2026-12-04-where-games-are-lost/summarize.py ROWS.csv BLUNDERS.jsonl ALL_ACTIONS.jsonl
"""

import csv
import json
import sys
from collections import Counter

from agents.base import PlayerView
from agents.determinized import reversible
from klondike_env import Game


def kind(name: str) -> str:
    if name.startswith("waste"):
        return "waste card played"
    if name in ("draw", "recycle"):
        return "draw"
    if name.startswith("foundation"):
        return "foundation card brought down"
    return "column move" + (" to foundation" if name.endswith("foundation") else "")


def ranking(entry: dict, counts: dict[int, int], moves: set[int]) -> str:
    """How a vote over ``moves`` only (their counts of worlds won) ranks the saving moves."""
    counts = {a: n for a, n in counts.items() if a in moves}
    saving = set(entry["saving"]) & moves
    best = max(counts.values())
    top = {a for a, n in counts.items() if n == best}
    if top <= saving:
        return "a saving move alone ranks first"
    if top & saving:
        return "a saving move ties first with a losing one"
    return "a losing move ranks first" if saving else "no saving move among them"


def main(rows_path: str, blunders_path: str, all_actions_path: str) -> None:
    rows = {int(row["deal"]): [int(a) for a in row["actions"].split()] for row in csv.DictReader(open(rows_path))}
    blunders = [json.loads(line) for line in open(blunders_path)]
    wide = {entry["deal"]: entry for entry in map(json.loads, open(all_actions_path))}
    table = Counter()
    for entry in blunders:
        vote = "no vote" if not entry["voted"] else "unanimous" if len(entry["found"]) == 1 else "split"
        table[(kind(entry["played_name"]), vote)] += 1
    print("| losing move | unanimous vote | split vote | no vote |\n|---|---:|---:|---:|")
    for name in sorted({k for k, _ in table}):
        print(f"| {name} | {table[(name, 'unanimous')]} | {table[(name, 'split')]} | {table[(name, 'no vote')]} |")
    every, committing = Counter(), Counter()
    for deal, entry in wide.items():
        counts = {int(a): n for a, n in entry["counts"].items()}
        game = Game.new(deal)
        for action in rows[deal][: entry["k"]]:
            game.step(action)
        view = PlayerView(game)
        every[ranking(entry, counts, set(counts))] += 1
        committing[ranking(entry, counts, {a for a in counts if not reversible(view, a)})] += 1
    worlds = next(iter(wide.values()))["worlds"]
    for title, outcome in ((f"every legal move", every), ("the moves that cannot be taken back", committing)):
        print(f"\nover {len(wide)} losing decisions, a vote over {title} in {worlds} fresh worlds:")
        for name, count in outcome.most_common():
            print(f"- {name}: {count}")
    print(f"- saving moves per losing decision: {Counter(len(e['saving']) for e in blunders)}")
    print(f"- saving moves that are draws: {sum(0 in e['saving'] for e in blunders)} of {len(blunders)}")
    print(f"- hidden cards at the losing move: median {sorted(e['hidden'] for e in blunders)[len(blunders) // 2]}")


if __name__ == "__main__":
    main(*sys.argv[1:4])
