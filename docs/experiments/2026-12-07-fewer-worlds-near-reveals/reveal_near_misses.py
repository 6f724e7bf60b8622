import sys, collections
from agents.registry import make_agent
from agents.evaluation import play_game, deal_seed
from agents import determinized as D
from klondike_env.rules import Rules
spec = sys.argv[1]; lo, hi = map(int, sys.argv[2].split('-'))
agent = make_agent(spec)
orig = D.DeterminizedAgent._revealing_first
rows = []
def revealing_first(self, view, playable, found, prefixes):
    best = playable[0]
    if view.hidden_cards and not view.effect(prefixes[best][0]).flips:
        flips = [a for a in view.legal_actions if view.effect(a).flips]
        if flips:
            f2, p2 = dict(found), dict(prefixes)
            B = len(found[best])
            R = max(self._credit(a, 1, f2, p2) for a in flips)
            rows.append((len(self._plans), B, R, D.reversible(view, prefixes[best][0])))
    return orig(self, view, playable, found, prefixes)
D.DeterminizedAgent._revealing_first = revealing_first
wins = 0
for deal in range(lo, hi + 1):
    wins += play_game(agent, deal, Rules(), deal_seed(0, deal)).won
print("wins", wins, "eligible", len(rows))
fired = sum(R >= B for n, B, R, rv in rows)
print("fired", fired)
gaps = collections.Counter()
for n, B, R, rv in rows:
    if R < B:
        gaps[(rv, min(round((B - R) / B, 1), 1.0))] += 1
for k in sorted(gaps): print(k, gaps[k])
