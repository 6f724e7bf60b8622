"""``klondike bench-worlds``: CPU time of the small solves the world-sampling agents make.

    klondike bench-worlds                        # 300 worlds, every configuration
    klondike bench-worlds --dump before.json     # keep every solve's result
    klondike bench-worlds --check before.json    # the same results as a dump? (exit 1 if not)

``determinized`` and ``hop`` call :func:`klondike_env.solver.solve` on thousands of sampled
worlds per game, each on a small node budget, so a world solve's fixed costs (set-up in Python,
turning a class line into actions) weigh as much as its search. The worlds are collected as
those agents see them: the greedy agent plays deals ``--first`` .. ``--first + --deals - 1``
(val deals by default), and at every ``--every``-th move of each game (up to ``--worlds`` in
all) a world is sampled from the player's view with a fixed seed. Each configuration then
solves every world ``--repeat`` times; printed: the CPU milliseconds per solve
(``time.process_time``; the fastest of the repeats, world by world, summed) and the statuses.
The configurations:

* ``class1000``, ``class3000``: ``solve(world, node_limit=1000 / 3000, by_class=True)``
  (hop's call and its budgets);
* ``class1000-status``, ``class3000-status``: the same with ``actions=False`` (the status
  alone, as hop's candidate vote reads it);
* ``det30000``: ``solve(world, node_limit=30000)`` over classes with the determinized agent's
  probe and best-first schedule;
* ``determinized``: the determinized agent's call at its default options.

``--dump FILE.json`` writes every solve's status, nodes and actions (first repeat), so that two
versions of the solver can be checked to give identical results on the same worlds; ``--check
FILE.json`` compares with such a dump. Run it on a quiet core (``taskset -c 1``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

from agents.base import RESIGN, DealInfo, PlayerView
from agents.determinized import SOLVER_BEST_AFTER, SOLVER_PROBE_AFTER, DeterminizedAgent
from agents.greedy import GreedyAgent
from klondike_env import Game, Rules
from klondike_env.solver import prepare, solve

CONFIGS = {
    "class1000": dict(node_limit=1000, by_class=True),
    "class3000": dict(node_limit=3000, by_class=True),
    "class1000-status": dict(node_limit=1000, by_class=True, actions=False),
    "class3000-status": dict(node_limit=3000, by_class=True, actions=False),
    "det30000": dict(node_limit=30000, by_class=True, probe_after=SOLVER_PROBE_AFTER, best_after=SOLVER_BEST_AFTER),
    "determinized": dict(node_limit=DeterminizedAgent.OPTIONS["nodes"][1], by_class=DeterminizedAgent.OPTIONS["by_class"][1],
                         probe_after=SOLVER_PROBE_AFTER, best_after=SOLVER_BEST_AFTER),
}


def sample_worlds(first: int, deals: int, every: int, count: int, seed: int) -> list[tuple[int, int, Game]]:
    """``(deal, move, world)``: worlds sampled along greedy games, round-robin over the deals."""
    rules = Rules()
    games = []
    for deal in range(first, first + deals):
        game = Game.new(deal, rules)
        agent = GreedyAgent()
        agent.reset(DealInfo(seed=deal, rules=rules))
        games.append((deal, game, agent))
    worlds: list[tuple[int, int, Game]] = []
    while len(worlds) < count and games:
        alive = []
        for deal, game, agent in games:
            if len(worlds) >= count:
                break
            if game.move_count % every == 0:
                rng = np.random.default_rng([seed, deal, game.move_count])
                worlds.append((deal, game.move_count, PlayerView(game).sample_world(rng)))
            if game.is_over:
                continue
            action = agent.act(PlayerView(game))
            if action == RESIGN:
                continue
            game.step(action)
            alive.append((deal, game, agent))
        games = alive
    return worlds


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--worlds", type=int, default=300, help="worlds to solve (default 300)")
    parser.add_argument("--first", type=int, default=1001, help="first deal (default 1001, val)")
    parser.add_argument("--deals", type=int, default=20, help="deals played by the greedy agent (default 20)")
    parser.add_argument("--every", type=int, default=4, help="sample a world every this many moves (default 4)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the world samples (default 0)")
    parser.add_argument("--repeat", type=int, default=3, help="solves of each world per configuration; "
                                                            "the fastest counts (default 3)")
    parser.add_argument("--configs", default=",".join(CONFIGS),
                        help=f"comma-separated configurations (default all: {','.join(CONFIGS)})")
    parser.add_argument("--dump", help="write every solve's status, nodes and actions to this JSON file")
    parser.add_argument("--check", help="compare every solve's status, nodes and actions with this JSON dump")


def run(args: argparse.Namespace) -> int:
    names = [name for name in args.configs.split(",") if name]
    for name in names:
        if name not in CONFIGS:
            print(f"klondike bench-worlds: error: unknown configuration {name!r}: choose from {', '.join(CONFIGS)}",
                  file=sys.stderr)
            return 2

    worlds = sample_worlds(args.first, args.deals, args.every, args.worlds, args.seed)
    for limit in sorted({CONFIGS[name]["node_limit"] for name in names}):
        prepare(node_limit=limit)
    results: dict[str, list[dict]] = {}
    print(f"{len(worlds)} worlds from deals {args.first}-{args.first + args.deals - 1} (every {args.every} "
          f"greedy moves), {args.repeat} solves each; CPU ms per solve (fastest of the repeats)")
    print(f"{'configuration':<18} {'ms/solve':>9} {'nodes/solve':>12} {'SOLVED':>7} {'UNSOLVABLE':>11} {'UNKNOWN':>8}")
    for name in names:
        options = CONFIGS[name]
        for _, _, world in worlds[:3]:  # warm the caches of this configuration's table
            solve(world, **options)
        total = 0.0
        rows = []
        for deal, move, world in worlds:
            best = float("inf")
            for attempt in range(args.repeat):
                start = time.process_time()
                result = solve(world, **options)
                best = min(best, time.process_time() - start)
                if attempt == 0:
                    rows.append({"deal": deal, "move": move, "status": result.status.value, "nodes": result.nodes,
                                 "actions": [int(a) for a in result.actions]})
            total += best
        results[name] = rows
        statuses = [row["status"] for row in rows]
        print(f"{name:<18} {1000 * total / len(worlds):>9.3f} {sum(r['nodes'] for r in rows) / len(rows):>12.0f} "
              f"{statuses.count('SOLVED'):>7} {statuses.count('UNSOLVABLE'):>11} {statuses.count('UNKNOWN'):>8}")
    if args.dump:
        with open(args.dump, "w") as handle:
            options = {key: value for key, value in vars(args).items() if key not in ("run", "command_line")}
            json.dump({"args": options, "results": results}, handle)
    if args.check:
        with open(args.check) as handle:
            reference = json.load(handle)["results"]
        differences = 0
        for name, rows in results.items():
            base = name.removesuffix("-status")
            if base not in reference:
                continue
            for row, old in zip(rows, reference[base], strict=True):
                expected = dict(old, actions=[]) if name != base else old
                if row != expected:
                    differences += 1
                    if differences <= 5:
                        print(f"differs: {name} deal {row['deal']} move {row['move']}: {row['status']} "
                              f"{row['nodes']} vs {old['status']} {old['nodes']}")
        print(f"check against {args.check}: {differences} differing solves")
        return 1 if differences else 0
    return 0
