"""``klondike analyse-losses``: find the losing move of each lost game on a solver-winnable deal
in a results CSV.

    klondike analyse-losses results/determinized_test_draw3.csv --games 75
    klondike analyse-losses results/determinized_test_draw3.csv --games 6 --worlds 40

For each game the agent lost on a deal the verdict file calls winnable, prints the move after
which the true deal could no longer be won (solver bisection, agents/analysis.py). With
--worlds K it also scores every legal action at that move in K worlds sampled from what the
player knew: near-equal counts mean no sample could tell the moves apart.
"""

from __future__ import annotations

import argparse
import statistics
from multiprocessing import Pool

from klondike_app.cli import fail
from klondike_env.cli import nonnegative_int, positive_int


def _analyse(job):
    from agents.analysis import action_win_counts, first_losing_move, position_after

    deal, actions, rules, nodes, worlds, world_nodes = job
    move = first_losing_move(deal, actions, rules, nodes)
    counts = None
    if worlds and move:
        game = position_after(deal, actions, rules, move - 1)
        counts = (game.action_name(actions[move - 1]),
                  {game.action_name(a): c for a, c in action_win_counts(game, worlds, world_nodes).items()})
    return deal, len(actions), move, counts


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("results", help="a results CSV of 'klondike evaluate' (draw-3 standard rules)")
    parser.add_argument("--games", type=positive_int, default=50, help="lost games to analyse, in deal order (default 50)")
    parser.add_argument("--nodes", type=positive_int, default=200_000, help="solver positions per position tested")
    parser.add_argument("--worlds", type=nonnegative_int, default=0,
                        help="also score each action at the losing move in K worlds")
    parser.add_argument("--world-nodes", type=positive_int, default=50_000, help="solver positions per world and action")
    parser.add_argument("--workers", type=positive_int, default=2, help="processes (default 2)")


def run(args: argparse.Namespace) -> int:
    from agents.analysis import check_replays
    from agents.evaluation import game_of_row, load_verdicts, read_game_rows, verdict_file
    from klondike_env.rules import Rules

    rules = Rules()
    try:
        verdicts = load_verdicts(verdict_file(rules))
        rows = read_game_rows(args.results, ("deal", "won", "actions"))
        games = [game_of_row(row, args.results, index) for index, row in enumerate(rows)]
        lost = [game for game, row in zip(games, rows) if row["won"] == "0" and verdicts.get(game[0]) == "solved"]
        lost = lost[: args.games]
        check_replays(args.results, lost, rules)  # here, not as a traceback from a worker
    except ValueError as error:
        return fail(args, error)
    if not lost:
        print(f"no lost game on a deal the solver wins in {args.results}: nothing to analyse")
        return 0
    jobs = [(deal, actions, rules, args.nodes, args.worlds, args.world_nodes) for deal, actions in lost]
    moves = []
    with Pool(args.workers) as pool:
        for deal, length, move, counts in pool.imap(_analyse, jobs):
            where = "end still winnable" if move is None else f"losing move {move} of {length}"
            print(f"deal {deal}: {where}", flush=True)
            if move is not None:
                moves.append(move)
            if counts:
                played_name, table = counts
                print(f"  played {played_name}; wins / undecided in {args.worlds} worlds:")
                for name, (won, undecided) in table.items():
                    print(f"    {name:32s} {won:3d} / {undecided}{'   <- played' if name == played_name else ''}")
    if moves:
        print(f"{len(lost)} lost games on winnable deals: {len(lost) - len(moves)} ended still winnable; "
              f"losing move median {statistics.median(moves):g}, range {min(moves)}-{max(moves)}")
    return 0
