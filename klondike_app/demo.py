"""``klondike demo``: deal a game and play it out with an agent, naming each move and showing the
board as it goes.

    klondike demo                                   # deal 1, draw 3, the greedy baseline
    klondike demo --deal 7 --agent random --every 10
    klondike demo --deck "7D 9C 4D ..." --draw 1

Every move is listed by name (``move 12: col 6 KD -> foundation``); the board is printed every
--every moves and at the end. --deck takes any accepted deck form instead of a deal number.
"""

from __future__ import annotations

import argparse

from klondike_app.cli import fail
from klondike_app.evaluate import BUILT_IN_AGENTS
from klondike_env.cli import nonnegative_int, positive_int


def add_arguments(parser: argparse.ArgumentParser) -> None:
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--deal", type=int, default=1, help="deal number, 0 <= N < 2**64 (default 1)")
    source.add_argument("--deck", help="an explicit deck instead of a deal: 52 cards, or a 156-digit deck string")
    parser.add_argument("--draw", type=int, default=3, help="cards per draw: 3 (default) or 1")
    parser.add_argument("--max-passes", type=int, default=None, help="trips through the stock (default unlimited)")
    parser.add_argument("--agent", default="greedy",
                        help=f"NAME[:key=value,...] with NAME one of {BUILT_IN_AGENTS}, or MODULE:CLASS (default greedy)")
    parser.add_argument("--every", type=positive_int, default=25, help="print the board every N moves (default 25)")
    parser.add_argument("--max-moves", type=positive_int, default=1000, help="moves before the game is stopped (default 1000)")
    parser.add_argument("--seed", type=nonnegative_int, default=0, help="the agent's random seed")


def run(args: argparse.Namespace) -> int:
    from agents.base import RESIGN, DealInfo, choose_action
    from agents.evaluation import AgentError
    from agents.registry import make_agent
    from klondike_env import Game, Rules

    try:
        rules = Rules(draw_count=args.draw, max_passes=args.max_passes)
        game = Game.new(args.deal, rules) if args.deck is None else Game.from_deck(args.deck, rules)
        agent = make_agent(args.agent)
    except (ValueError, AgentError) as error:
        return fail(args, error)
    agent.reset(DealInfo(seed=args.seed, rules=rules))
    where = f"deal {args.deal}" if game.deal is not None else "the given deck"
    print(f"{where}, draw {rules.draw_count}, agent {args.agent}\n{game}\n")
    outcome = "stopped at the move limit"
    while game.move_count < args.max_moves:
        if game.is_won or game.is_dead:
            outcome = "won" if game.is_won else "dead"
            break
        action = choose_action(agent, game)  # the oracle is handed the true game, as in the harness
        if action == RESIGN:
            outcome = "resigned"
            break
        name = game.action_name(action)
        game.step(action)
        print(f"move {game.move_count}: {name}")
        if game.move_count % args.every == 0:
            print(f"\n{game}\n")
    print(f"Final board ({outcome} after {game.move_count} moves, {sum(game.foundations)} cards home):\n{game}")
    return 0
