"""How the determinized agent's votes go on a few deals: decisions with one candidate and with
several, and (with a prior) how often the prior's move was added, and played.

    python docs/experiments/2026-12-06-policy-prior/votes.py AGENT FIRST-LAST
"""

import sys
from collections import Counter

from agents.evaluation import deal_seed, play_game
from agents.registry import make_agent
from klondike_env.rules import Rules

agent = make_agent(sys.argv[1])
first, last = map(int, sys.argv[2].split("-"))
counts = Counter()
ranked = agent._ranked


def counting(view, found, own, prefixes, prior=None):
    order = ranked(view, found, own, prefixes, prior)
    counts["votes"] += 1
    counts["one candidate" if len(own) == 1 else "several candidates"] += 1
    if prior is not None:
        added = [key for key, entries in own.items() if not entries]  # the prior's move, added
        counts["prior's move added"] += bool(added)
        counts["prior's move ranked first"] += bool(added) and order[0] == added[0]
    return order


agent._ranked = counting
wins = 0
for deal in range(first, last + 1):
    record = play_game(agent, deal, Rules(), deal_seed(0, deal))
    wins += record.won
print(f"{sys.argv[1]} on deals {first}-{last}: {wins} won;", dict(counts))
