"""How often `reveal` fires, and by how little a move turning up a card misses it elsewhere.

Plays a `determinized` agent on the given deals (run seed 0). At every decision where `reveal`
looks (cards are hidden, the vote's move turns none up, a legal move does), it counts, on copies
of the vote's bookkeeping, the kept worlds each card-turning move wins in, and records the vote's
count B and the best such count R. It prints how often R >= B (`reveal` plays that move) and, for
the rest, the shortfall (B - R) / B to one decimal, split by whether the vote's move can be
taken back. The agent plays exactly as it would without the probe: the counts are made on copies.

    python docs/experiments/2026-12-07-fewer-worlds-near-reveals/reveal_near_misses.py determinized 50801-50815
"""

from __future__ import annotations

import sys
from collections import Counter

from agents import determinized
from agents.evaluation import deal_seed, play_game
from agents.positions import reversible
from agents.registry import make_agent
from klondike_env.rules import Rules


def main(spec: str, first: int, last: int) -> None:
    looks = []  # (B, R, the vote's move can be taken back)
    plain = determinized.DeterminizedAgent._revealing_first

    def probed(self, view, playable, found, prefixes):
        best = playable[0]
        if view.hidden_cards and not view.effect(prefixes[best][0]).flips:
            turning = [action for action in view.legal_actions if view.effect(action).flips]
            if turning:
                found_copy, prefixes_copy = dict(found), dict(prefixes)
                most = max(self._credit(action, 1, found_copy, prefixes_copy) for action in turning)
                looks.append((len(found[best]), most, reversible(view, prefixes[best][0])))
        return plain(self, view, playable, found, prefixes)

    determinized.DeterminizedAgent._revealing_first = probed
    agent = make_agent(spec)
    wins = sum(play_game(agent, deal, Rules(), deal_seed(0, deal)).won for deal in range(first, last + 1))
    print(f"{spec} on deals {first}-{last}: {wins} won; {len(looks)} decisions where reveal looks, "
          f"{sum(most >= best for best, most, _ in looks)} where it plays a move turning up a card")
    shortfalls = Counter((back, min(round((best - most) / best, 1), 1.0)) for best, most, back in looks if most < best)
    print("vote's move can be taken back, shortfall: decisions")
    for key in sorted(shortfalls):
        print(*key, shortfalls[key])


if __name__ == "__main__":
    first, last = map(int, sys.argv[2].split("-"))
    main(sys.argv[1], first, last)
