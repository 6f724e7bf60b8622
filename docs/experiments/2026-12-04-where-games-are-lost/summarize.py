"""Tables of the where-games-are-lost record, from probe_blunders.py's JSON lines.

    python docs/experiments/2026-12-04-where-games-are-lost/summarize.py ROWS.csv LOSING_MOVES.jsonl
"""

import csv
import json
import sys
from collections import Counter

from agents.analysis import move_kind, position_after
from agents.base import PlayerView
from agents.determinized import reversible
from klondike_env import Rules


def ranking(entry: dict, counts: dict[int, int], moves: set[int]) -> str:
    """How a vote over ``moves`` only (their counts of worlds won) ranks the saving moves."""
    counts = {a: n for a, n in counts.items() if a in moves}
    saving = set(entry["saving"]) & moves
    if not saving:
        return "no saving move among them"
    best = max(counts.values())
    top = {a for a, n in counts.items() if n == best}
    if top <= saving:
        return "a saving move alone ranks first"
    return "a saving move ties first with a losing one" if top & saving else "a losing move ranks first"


def main(rows_path: str, losing_path: str) -> None:
    rows = {int(row["deal"]): [int(a) for a in row["actions"].split()] for row in csv.DictReader(open(rows_path))}
    entries = [json.loads(line) for line in open(losing_path)]
    skipped = [entry for entry in entries if "k" not in entry]
    entries = sorted((entry for entry in entries if "k" in entry), key=lambda entry: entry["deal"])
    print(f"{len(entries) + len(skipped)} lost winnable deals; losing move not placed in {len(skipped)}: "
          f"{[(entry['deal'], entry['verdict']) for entry in skipped]}")
    print(f"verdicts after the losing move: {Counter(entry['verdict'] for entry in entries)}")
    table = Counter()
    every, committing = Counter(), Counter()
    reversible_losing = 0
    for entry in entries:
        vote = "no vote" if not entry["voted"] else "unanimous" if len(entry["found"]) == 1 else "split"
        table[(move_kind(entry["played"]), vote)] += 1
        view = PlayerView(position_after(entry["deal"], rows[entry["deal"]], Rules(), entry["k"]))
        reversible_losing += reversible(view, entry["played"])
        counts = {int(a): n for a, n in entry["counts"].items()}
        every[ranking(entry, counts, set(counts))] += 1
        committing[ranking(entry, counts, {a for a in counts if not reversible(view, a)})] += 1
    print("\n| losing move | unanimous vote | split vote | no vote |\n|---|---:|---:|---:|")
    for name in sorted({kind for kind, _ in table}):
        print(f"| {name} | {table[(name, 'unanimous')]} | {table[(name, 'split')]} | {table[(name, 'no vote')]} |")
    print(f"\nlosing moves that can be taken back: {reversible_losing}")
    for title, outcome in (("every legal move", every), ("the moves that cannot be taken back", committing)):
        print(f"\na vote over {title} in {entries[0]['worlds']} fresh worlds at the losing move:")
        for name, count in outcome.most_common():
            print(f"- {name}: {count}")
    print(f"\nsaving moves per losing move: {sorted(Counter(len(e['saving']) for e in entries).items())}")
    print(f"losing moves where a draw saves: {sum(0 in e['saving'] for e in entries)} of {len(entries)}")
    print(f"hidden cards at the losing move: median {sorted(e['hidden'] for e in entries)[len(entries) // 2]}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
