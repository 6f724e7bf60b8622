"""Where does the determinized agent lose deals it could have won?

For each deal of a results CSV that the agent lost and the solver says is winnable, find the
first action after which the true position can no longer be won (a binary search over the
game: a position after a lost one is lost too), replay the agent to that decision, and report
what its vote saw there: whether it played the greedy fall-back, how many worlds credited the
action it played, and how many credited each action that would have kept the deal winnable.

    python docs/experiments/2026-12-04-where-games-are-lost/probe_blunders.py ROWS.csv OUT.jsonl

One JSON line per deal, written as each deal is done (a rerun skips deals already in OUT).
"""

import csv
import json
import sys
from pathlib import Path

import agents.determinized as determinized
from agents import make_agent
from agents.base import DealInfo, PlayerView
from agents.evaluation import deal_seed, load_verdicts, verdict_file
from klondike_env import Game, Rules
from klondike_env.solver import SolveStatus, solve

NODES = 2_000_000  # per true-position solve; UNKNOWN verdicts are reported, not guessed


def winnable(game: Game) -> bool | None:
    result = solve(game, node_limit=NODES)
    return None if result.status == SolveStatus.UNKNOWN else result.status == SolveStatus.SOLVED


def position(deal: int, actions: list[int]) -> Game:
    game = Game.new(deal)
    for action in actions:
        game.step(action)
    return game


def last_winnable(deal: int, actions: list[int]) -> tuple[int, int]:
    """The largest k whose position (after k actions) is winnable, and how many solves were UNKNOWN
    (counted as winnable: the search then looks later)."""
    low, high, unknown = 0, len(actions), 0  # position low is winnable, high is not (the game was lost)
    while high - low > 1:
        middle = (low + high) // 2
        verdict = winnable(position(deal, actions[:middle]))
        unknown += verdict is None
        if verdict is False:
            high = middle
        else:
            low = middle
    return low, unknown


def vote_at(deal: int, actions: list[int], k: int) -> dict:
    """Replay the default agent to decision k (checking it plays the recorded moves) and report its vote there."""
    seen = {}
    ranked = determinized.DeterminizedAgent._ranked

    def record(self, view, found, own, prefixes):
        seen["found"] = {int(prefixes[key][0]): len(entries) for key, entries in found.items()}
        seen["own"] = {int(prefixes[key][0]): len(entries) for key, entries in own.items()}
        return ranked(self, view, found, own, prefixes)

    agent = make_agent("determinized")
    agent.reset(DealInfo(seed=deal_seed(0, deal), rules=Rules()))
    game = Game.new(deal)
    for index, action in enumerate(actions[: k + 1]):
        seen.clear()
        determinized.DeterminizedAgent._ranked = record if index == k else ranked
        solves = agent.solves
        played = agent.act(PlayerView(game))
        assert played == action, (deal, index, played, action)
        if index == k:
            determinized.DeterminizedAgent._ranked = ranked
            return {"voted": "found" in seen, "found": seen.get("found", {}), "own": seen.get("own", {}),
                    "solved_here": agent.solves - solves, "plans": len(agent._plans)}
        game.step(action)
    raise AssertionError("unreachable")


def main(rows_path: str, out_path: str) -> None:
    verdicts = load_verdicts(verdict_file(Rules()))
    out = Path(out_path)
    done = {json.loads(line)["deal"] for line in out.read_text().splitlines()} if out.exists() else set()
    for row in csv.DictReader(open(rows_path)):
        deal = int(row["deal"])
        if row["won"] == "1" or verdicts.get(deal) != "solved" or deal in done:
            continue
        actions = [int(a) for a in row["actions"].split()]
        k, unknown = last_winnable(deal, actions)
        game = position(deal, actions[:k])
        saving = []
        for action in game.legal_actions():
            child = game.copy()
            child.step(action)
            if winnable(child) is not False:
                saving.append(action)
        vote = vote_at(deal, actions, k)
        entry = {"deal": deal, "k": k, "moves": len(actions), "unknown": unknown,
                 "played": actions[k], "played_name": game.action_name(actions[k]),
                 "saving": saving, "saving_names": [game.action_name(a) for a in saving],
                 "hidden": len(game.hidden_cards()), "foundation": sum(game.foundations), **vote}
        with out.open("a") as handle:
            handle.write(json.dumps(entry) + "\n")
        print(deal, k, entry["played_name"], "| saving:", entry["saving_names"], "| found:", vote["found"], flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:3])
