from agents import make_agent
from agents.evaluation import play_game
from klondike_env import Rules
import agents.determinized as d  # counts how often the shared second action lowers a count or changes the move
calls = []
orig = d.DeterminizedAgent._shared_second_wins
def wrapped(self, prefix, entries):
    v = orig(self, prefix, entries); calls.append((v, len(entries))); return v
d.DeterminizedAgent._shared_second_wins = wrapped
orig_rank = d.DeterminizedAgent._ranked_by_second_action
changed = []
def wrank(self, ranked, *rest):
    r = orig_rank(self, ranked, *rest); changed.append(r[0] != ranked[0]); return r
d.DeterminizedAgent._ranked_by_second_action = wrank
agent = make_agent("determinized:samples=10,nodes=5000,second=3")
for deal in range(1201, 1211):
    rec = play_game(agent, deal, Rules(), seed=deal)
    print(deal, rec.won, rec.moves)
print(len(calls), sum(v < n for v, n in calls), sum(changed), len(changed))
print(calls[:40])
