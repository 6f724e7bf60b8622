"""At each losing decision found by probe_blunders.py, would a vote over every legal action have
saved the deal? Samples worlds from the player's view there and solves the position after each
legal action in each world, with the agent's solver settings (30,000 positions a world).

    python docs/experiments/2026-12-04-where-games-are-lost/probe_all_actions.py ROWS.csv BLUNDERS.jsonl OUT.jsonl [WORLDS]

One JSON line per deal: each legal action's count of worlds won after it, the worlds won at all.
"""

import csv
import json
import sys
from pathlib import Path

import numpy as np

from agents.base import PlayerView
from agents.determinized import SOLVER_BEST_AFTER, SOLVER_PROBE_AFTER
from klondike_env import Game
from klondike_env.solver import SolveStatus, solve


def won_after(world: Game, action: int) -> bool:
    child = world.copy()
    child.step(action)
    result = solve(child, node_limit=30_000, probe_after=SOLVER_PROBE_AFTER, best_after=SOLVER_BEST_AFTER, by_class=False)
    return result.status == SolveStatus.SOLVED


def main(rows_path: str, blunders_path: str, out_path: str, worlds: int = 40) -> None:
    rows = {int(row["deal"]): [int(a) for a in row["actions"].split()] for row in csv.DictReader(open(rows_path))}
    out = Path(out_path)
    done = {json.loads(line)["deal"] for line in out.read_text().splitlines()} if out.exists() else set()
    for line in Path(blunders_path).read_text().splitlines():
        entry = json.loads(line)
        deal, k = entry["deal"], entry["k"]
        if deal in done:
            continue
        game = Game.new(deal)
        for action in rows[deal][:k]:
            game.step(action)
        view = PlayerView(game)
        rng = np.random.default_rng(deal)
        sampled = [view.sample_world(rng) for _ in range(worlds)]
        counts = {int(a): sum(won_after(world, a) for world in sampled) for a in game.legal_actions()}
        result = {"deal": deal, "k": k, "worlds": worlds, "counts": counts, "played": entry["played"],
                  "saving": entry["saving"]}
        with out.open("a") as handle:
            handle.write(json.dumps(result) + "\n")
        best = max(counts.values())
        print(deal, "played", counts[entry["played"]], "best saving", max((counts[a] for a in entry["saving"]), default=None),
              "best", best, flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], *(int(a) for a in sys.argv[4:5]))
