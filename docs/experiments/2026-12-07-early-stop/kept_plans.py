"""How many plans vote at each decision of the defaults' games, by whether the move played can be
taken back: "fresh" when the decision sampled worlds, else the count of kept plans that fit the view.

    python docs/experiments/2026-12-07-early-stop/kept_plans.py 50501,50502,50503,50504,50505,50506,50507,50508
"""
import sys
from collections import Counter
from agents.evaluation import deal_seed, choose_action
from agents.base import DealInfo, RESIGN
from agents.registry import make_agent
from agents.determinized import reversible
from klondike_env.game import Game
from klondike_env.rules import Rules
agent = make_agent("determinized"); rules = Rules()
orig = agent._vote
log = []
def vote(view):
    n = len(agent._plans); fresh = agent._fresh
    a = orig(view)
    log.append((fresh, n, reversible(view, a)))
    return a
agent._vote = vote
orig_solve = agent._solve_worlds
def solve_worlds(view):
    agent._fresh = True
    return orig_solve(view)
agent._solve_worlds = solve_worlds
for d in [int(x) for x in sys.argv[1].split(",")]:
    game = Game.new(d, rules); agent.reset(DealInfo(seed=deal_seed(0, d), rules=rules))
    while not game.is_won and not game.is_dead and game.move_count < 1000:
        agent._fresh = False
        a = choose_action(agent, game)
        if a == RESIGN: break
        game.step(a)
    print(d, game.is_won, flush=True)
buckets = Counter()
for fresh, n, rev in log:
    b = "fresh" if fresh else ("kept<10" if n < 10 else "kept10-24" if n < 25 else "kept25+")
    buckets[(("rev" if rev else "irr"), b)] += 1
for k, v in sorted(buckets.items()): print(k, v)
