"""``klondike label-moves``: score each move of recorded games by whether the deal stayed
winnable, given what was known.

    klondike label-moves results/policy-..._val_draw3.csv --games 200
    klondike label-moves GAMES.csv --worlds 8 --out labels.npz
    klondike label-moves GAMES.csv --backend ray --address auto      # the games as Ray tasks (docs/ray.md)

For every position of each game with a choice of moves, up to the move after which the true deal
was lost, each legal move is scored by the solver (agents/analysis.py, label_moves): the share
of worlds still winnable after it -- the true deal alone where it does not tell the moves apart,
the true deal and --worlds worlds sampled from the player's knowledge where it does. The summary
reports how often the player's own move was clearly worse than the best (a *blunder*: a share at
least 0.5 lower), by kind of move, and the mean regret (best share minus the share of the move
played) at the positions where the moves' shares differed. With --out the positions are
saved as a .npz: ``observations`` (uint8 "information+actions" observations, what a player sees),
``shares`` (per action, -1 when illegal), ``played``, ``deals`` and ``moves`` (move numbers).
"""

from __future__ import annotations

import argparse
from collections import Counter

from klondike_app import backend_options
from klondike_app.cli import fail
from klondike_env.cli import nonnegative_int, positive_int

OBSERVATION_MODE = "information+actions"


def _label(job):
    from agents.analysis import label_moves
    from klondike_env.rules import Rules

    deal, actions, worlds, nodes, keep_observations = job
    labelled = label_moves(deal, actions, Rules(), worlds=worlds, node_limit=nodes, seed=deal,
                           observation_mode=OBSERVATION_MODE if keep_observations else None)
    observations = [entry[2] for entry in labelled] if keep_observations else []
    return deal, [(entry[0], actions[entry[0]], entry[1]) for entry in labelled], observations


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("results", help="a results CSV of 'klondike evaluate' of draw-3 standard rules")
    parser.add_argument("--games", type=nonnegative_int, default=0, help="the first N games only (default: all)")
    parser.add_argument("--worlds", type=nonnegative_int, default=8,
                        help="sampled worlds where the true deal tells moves apart (default 8)")
    parser.add_argument("--nodes", type=positive_int, default=20_000, help="solver positions per solve (default 20000)")
    parser.add_argument("--workers", type=positive_int, default=2, help="processes (default 2)")
    parser.add_argument("--out", help="save the positions (observations, shares, moves played) to this .npz")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    backend_options.add_arguments(parser)


def _no_set_up() -> None:
    """The workers need nothing prepared: each game's solves set up their own tables."""


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from agents.analysis import BLUNDER_GAP, check_replays, move_kind
    from agents.evaluation import read_games
    from agents.jobs import BackendError, run_jobs
    from klondike_env.cli import prepare_output_file
    from klondike_env.rules import Rules

    try:
        if args.out:
            prepare_output_file(args.out, "--out")  # before labelling: a bad path must not cost the games
        games = read_games(args.results)
        games = games[: args.games] if args.games else games
        check_replays(args.results, games, Rules())  # here, not as a traceback from a worker
        backend = backend_options.backend_of(args)
        jobs = [(deal, actions, args.worlds, args.nodes, bool(args.out)) for deal, actions in games]
        labelled_games = run_jobs(_label, jobs, _no_set_up, (), backend, progress=not args.quiet, desc="label-moves",
                                  unit="game")
    except (ValueError, BackendError) as error:
        return fail(args, error)
    records, observations = [], []
    for deal, labelled, game_observations in labelled_games:
        records += [(deal, number, played, shares) for number, played, shares in labelled]
        observations += game_observations
    if not records:
        return fail(args, "no position with a choice of moves in these games")
    shares = np.array([record[3] for record in records])
    played = np.array([record[2] for record in records])
    legal = shares >= 0
    best = np.where(legal, shares, -1).max(axis=1)
    worst = np.where(legal, shares, 2).min(axis=1)
    told_apart = best > worst  # the moves' shares differ
    regret = best - shares[np.arange(len(records)), played]
    blunders = Counter(move_kind(int(move)) for move in played[regret >= BLUNDER_GAP])
    print(f"{len(games)} games, {len(records)} positions with a choice of moves; the moves' shares "
          f"differed at {told_apart.sum()} ({told_apart.mean():.1%})")
    if told_apart.any():
        print(f"there, the move played: mean regret {regret[told_apart].mean():.3f}; "
              f"blunders (share >= {BLUNDER_GAP} below the best) {sum(blunders.values())}"
              + (": " + ", ".join(f"{kind} {count}" for kind, count in blunders.most_common()) if blunders else ""))
    if args.out:
        np.savez_compressed(args.out, observations=np.array(observations), shares=shares, played=played,
                            deals=np.array([record[0] for record in records]),
                            moves=np.array([record[1] for record in records]))
        print(f"wrote {args.out}")
    return 0
