"""Where does the determinized agent lose deals it could have won?

For each deal of a results CSV that the agent lost and whose verdict is "solved": the losing
move (``agents.analysis.losing_move``: the first move after which the true deal is not solved),
the moves that would have kept it solved there (the saving moves), what the default agent's vote
saw there (replayed to that decision), and, for every legal move, the worlds won after it among
40 worlds sampled from the player's view (``agents.analysis.action_win_counts``).

    python docs/experiments/2026-12-04-where-games-are-lost/probe_blunders.py ROWS.csv OUT.jsonl [FIRST-LAST]

One JSON line per deal, written as each deal is done (a rerun skips deals already in OUT);
FIRST-LAST limits the deals, to split the work between processes.
"""

import csv
import json
import sys
from pathlib import Path

import agents.determinized as determinized
from agents import make_agent
from agents.analysis import _status_after, action_win_counts, losing_move, position_after
from agents.base import DealInfo, PlayerView
from agents.evaluation import deal_seed, load_verdicts, verdict_file
from klondike_env import Game, Rules

NODES = 2_000_000  # per true-position solve
WORLDS, WORLD_NODES = 40, 30_000  # the 40-world vote over every move


def vote_at(deal: int, actions: list[int], k: int) -> dict:
    """Replay the default agent to decision k (checking it plays the recorded moves) and report its vote there."""
    seen = {}
    ranked = determinized.DeterminizedAgent._ranked

    def record(self, view, found, own, prefixes):
        seen["found"] = {int(prefixes[key][0]): len(entries) for key, entries in found.items()}
        return ranked(self, view, found, own, prefixes)

    agent = make_agent("determinized")
    agent.reset(DealInfo(seed=deal_seed(0, deal), rules=Rules()))
    game = Game.new(deal)
    try:
        for index, action in enumerate(actions[:k]):
            assert agent.act(PlayerView(game)) == action, (deal, index)
            game.step(action)
        determinized.DeterminizedAgent._ranked = record
        assert agent.act(PlayerView(game)) == actions[k], (deal, k)
    finally:
        determinized.DeterminizedAgent._ranked = ranked
    return {"voted": "found" in seen, "found": seen.get("found", {})}


def main(rows_path: str, out_path: str, deals: str = "0-999999999") -> None:
    first, last = (int(part) for part in deals.split("-"))
    rules = Rules()
    verdicts = load_verdicts(verdict_file(rules))
    out = Path(out_path)
    done = {json.loads(line)["deal"] for line in out.read_text().splitlines()} if out.exists() else set()
    for row in csv.DictReader(open(rows_path)):
        deal = int(row["deal"])
        if row["won"] == "1" or verdicts.get(deal) != "solved" or deal in done or not first <= deal <= last:
            continue
        actions = [int(a) for a in row["actions"].split()]
        lost = losing_move(Game.new(deal, rules), actions, NODES)
        if not lost.move:  # the opening itself not solved within NODES (or, were it so, still winnable at the end)
            with out.open("a") as handle:
                handle.write(json.dumps({"deal": deal, "verdict": lost.verdict, "move": lost.move}) + "\n")
            continue
        k = lost.move - 1  # moves played before the losing one
        game = position_after(deal, actions, rules, k)
        saving = [action for action in game.legal_actions() if _status_after(game, action, NODES) is not False]
        counts = action_win_counts(game, WORLDS, WORLD_NODES, seed=deal)
        entry = {"deal": deal, "k": k, "moves": len(actions), "verdict": lost.verdict,
                 "played": actions[k], "played_name": game.action_name(actions[k]),
                 "saving": saving, "saving_names": [game.action_name(a) for a in saving],
                 "hidden": len(game.hidden_cards()), "worlds": WORLDS,
                 "counts": {a: won for a, (won, _) in counts.items()}, **vote_at(deal, actions, k)}
        with out.open("a") as handle:
            handle.write(json.dumps(entry) + "\n")
        print(deal, k, entry["played_name"], "| saving:", entry["saving_names"], "| vote:", entry["found"],
              "| 40 worlds:", entry["counts"], flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:4])
