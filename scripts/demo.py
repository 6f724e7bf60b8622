"""Deal a game and play it out with a baseline, printing the board as it goes.

    python scripts/demo.py [--deal N] [--draw 3] [--every 20]
"""

from __future__ import annotations

import argparse

import numpy as np

from klondike_env import Game, Rules


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deal", type=int, default=1, help="deal number (default 1)")
    parser.add_argument("--draw", type=int, default=3, choices=(1, 3), help="cards per draw")
    parser.add_argument("--every", type=int, default=25, help="print the board every N moves")
    parser.add_argument("--max-moves", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    game = Game.new(args.deal, Rules(draw_count=args.draw))
    rng = np.random.default_rng(args.seed)
    print(f"Deal {args.deal}, draw {args.draw}\n{game}\n")
    while not game.is_over and game.move_count < args.max_moves:
        action = int(rng.choice(game.legal_actions()))
        name = game.action_name(action)
        game.step(action)
        if game.move_count % args.every == 0:
            print(f"move {game.move_count}: {name}\n{game}\n")
    outcome = "won" if game.is_won else ("dead" if game.is_dead else "stopped")
    print(f"Final board ({outcome} after {game.move_count} moves, {sum(game.foundations)} cards home):\n{game}")


if __name__ == "__main__":
    main()
