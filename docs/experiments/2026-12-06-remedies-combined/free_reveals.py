"""How often, in the greedy agent's games of deals 1-199, a position with hidden cards has no move
turning up a card that a move which can be taken back (not a draw or a recycle) makes possible.

    python docs/experiments/2026-12-06-remedies-combined/free_reveals.py
"""

from agents.base import DealInfo, PlayerView
from agents.determinized import free_reveals
from agents.greedy import GreedyAgent
from klondike_env.game import Game
from klondike_env.rules import Rules

positions = found = 0
for deal in range(1, 200):
    game, greedy = Game.new(deal), GreedyAgent()
    greedy.reset(DealInfo(seed=deal, rules=Rules()))
    for _ in range(300):
        if game.is_over:
            break
        view = PlayerView(game)
        if view.hidden_cards:
            positions += 1
            direct = {a for a in view.legal_actions if view.effect(a).flips}
            found += any(second not in direct for _, second in free_reveals(view, game))
        action = greedy.choose(view)
        if action < 0:  # resigned
            break
        greedy.note(view, action)
        game.step(action)
print(f"{found} of {positions} positions with hidden cards")
