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
played) at the positions where the moves' shares differed.

With --out LABELS.npz the positions are saved as a .npz: ``observations`` (uint8
"information+actions" observations, what a player sees), ``shares`` (per action, -1 when
illegal), ``played``, ``deals`` and ``moves`` (move numbers). Each game's positions are written
as the game is labelled to LABELS.positions.csv beside it (``deal``, ``moves``, ``played``,
``shares``: ``action:share`` of the legal moves, positions separated by ``;``), the run's settings
to LABELS.positions.json; the same command run again resumes (games already in the CSV are
skipped), other settings or other games for the same --out are refused unless --overwrite. The
.npz is assembled from the CSV once every game is labelled.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import os
from collections import Counter
from operator import itemgetter
from pathlib import Path

from klondike_app import backend_options
from klondike_app.cli import fail
from klondike_env.cli import nonnegative_int, positive_int

OBSERVATION_MODE = "information+actions"
#: the columns of the positions CSV beside --out: a row per game
POSITION_FIELDS = ("deal", "moves", "played", "shares")


def _share_text(share) -> str:
    """``action:share`` of each legal move, the share in float32's shortest exact form."""
    import numpy as np

    return " ".join(f"{action}:{np.format_float_positional(share[action], unique=True, trim='-')}"
                    for action in np.flatnonzero(share >= 0))


def _label(job) -> tuple:
    """One game's labelled positions as a row of :data:`POSITION_FIELDS`."""
    from agents.analysis import label_moves
    from klondike_env.rules import Rules

    deal, actions, worlds, nodes = job
    labelled = label_moves(deal, actions, Rules(), worlds=worlds, node_limit=nodes, seed=deal)
    return (deal, " ".join(str(number) for number, _ in labelled), " ".join(str(actions[number]) for number, _ in labelled),
            ";".join(_share_text(share) for _, share in labelled))


def _decode(positions: tuple):
    """``(move numbers, moves played, shares)`` of a row: the shares as a float32 array with a row
    per position and -1 for each illegal action; a ``ValueError`` if the cells do not agree."""
    import numpy as np

    from agents.results import parse_moves
    from klondike_env.core import NUM_ACTIONS

    _, moves, played, shares = positions
    numbers, played = parse_moves(moves), parse_moves(played)
    texts = shares.split(";") if shares else []
    if not len(numbers) == len(played) == len(texts):
        raise ValueError("one played move and one set of shares per move number")
    table = np.full((len(numbers), NUM_ACTIONS), -1.0, np.float32)
    for row, text in zip(table, texts):
        for entry in text.split():
            action, share = entry.split(":")
            row[int(action)] = np.float32(share)
    return numbers, played, table


def _positions_of_row(row: dict[str, str], path, index: int) -> tuple:
    try:
        positions = (int(row["deal"]), row["moves"], row["played"], row["shares"])
        _decode(positions)
    except (ValueError, TypeError, KeyError, IndexError, AttributeError):
        raise ValueError(f"{path} line {index + 2}: bad row: expected the columns {', '.join(POSITION_FIELDS)} "
                         "of klondike label-moves") from None
    return positions


def _position_rows():
    from agents.results import RowFormat

    return RowFormat(POSITION_FIELDS, list, _positions_of_row, itemgetter(0))


def summarize_positions(rows: list[tuple]) -> dict:
    """The summary of labelled games (rows of :data:`POSITION_FIELDS`): positions, where the
    moves' shares differed, the mean regret there and the blunders by kind of move."""
    import numpy as np

    from agents.analysis import BLUNDER_GAP, move_kind
    from klondike_env.core import NUM_ACTIONS

    decoded = [_decode(positions) for positions in rows]
    played = np.array([move for _, moves, _ in decoded for move in moves], dtype=np.int64)
    shares = np.concatenate([table for *_, table in decoded] or [np.zeros((0, NUM_ACTIONS), np.float32)])
    legal = shares >= 0
    best = np.where(legal, shares, -1).max(axis=1, initial=-1)
    worst = np.where(legal, shares, 2).min(axis=1, initial=2)
    told_apart = best > worst  # the moves' shares differ
    regret = best - shares[np.arange(len(played)), played]
    blunders = Counter(move_kind(int(move)) for move in played[regret >= BLUNDER_GAP])
    return {"games": len(rows), "positions": len(played), "told_apart": int(told_apart.sum()),
            "mean_regret": float(regret[told_apart].mean()) if told_apart.any() else None,
            "blunder_gap": BLUNDER_GAP, "blunders": dict(blunders.most_common())}


def _summary_lines(summary: dict) -> list[str]:
    told, positions = summary["told_apart"], summary["positions"]
    lines = [f"{summary['games']} games, {positions} positions with a choice of moves; the moves' shares "
             f"differed at {told} ({told / positions:.1%})"]
    if told:
        blunders = summary["blunders"]
        lines.append(f"there, the move played: mean regret {summary['mean_regret']:.3f}; "
                     f"blunders (share >= {summary['blunder_gap']} below the best) {sum(blunders.values())}"
                     + (": " + ", ".join(f"{kind} {count}" for kind, count in blunders.items()) if blunders else ""))
    return lines


def write_npz(positions_csv: Path, games: dict[int, list[int]], out: Path) -> None:
    """Assemble the .npz from the positions CSV (its games in its order), the observations
    replayed from ``games`` (deal: moves); replaced at once, so a kill leaves the old file or the
    new one."""
    import numpy as np

    from agents.base import PlayerView
    from agents.results import read_game_rows
    from klondike_env.game import Game
    from klondike_env.rules import Rules

    parse = _position_rows().parse
    columns: dict[str, list] = {"observations": [], "shares": [], "played": [], "deals": [], "moves": []}
    for index, row in enumerate(read_game_rows(positions_csv, POSITION_FIELDS)):
        positions = parse(row, positions_csv, index)
        numbers, played, table = _decode(positions)
        game, wanted = Game.new(positions[0], Rules()), set(numbers)
        for number, action in enumerate(games[positions[0]][: max(numbers, default=-1) + 1]):
            if number in wanted:
                columns["observations"].append(PlayerView(game).observe(OBSERVATION_MODE, "uint8"))
            game.step(action)
        columns["shares"] += list(table)
        columns["played"] += played
        columns["deals"] += [positions[0]] * len(numbers)
        columns["moves"] += numbers
    partial = out.with_name(out.name + ".partial")
    with open(partial, "wb") as handle:  # a file object: numpy adds no second .npz
        np.savez_compressed(handle, **{name: np.array(values) for name, values in columns.items()})
    os.replace(partial, out)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("results", help="a results CSV of 'klondike evaluate' of draw-3 standard rules")
    parser.add_argument("--games", type=nonnegative_int, default=0, help="the first N games only (default: all)")
    parser.add_argument("--worlds", type=nonnegative_int, default=8,
                        help="sampled worlds where the true deal tells moves apart (default 8)")
    parser.add_argument("--nodes", type=positive_int, default=20_000, help="solver positions per solve (default 20000)")
    parser.add_argument("--workers", type=positive_int, default=2, help="processes (default 2)")
    parser.add_argument("--out", help="save the positions (observations, shares, moves played) to this .npz; each "
                                      "game's positions go to the .positions.csv beside it as it is labelled, and "
                                      "the same command again resumes it")
    parser.add_argument("--overwrite", action="store_true",
                        help="replace an --out of other settings or other games (the same run resumes without it)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    backend_options.add_arguments(parser)


def _no_set_up() -> None:
    """The workers need nothing prepared: each game's solves set up their own tables."""


def _positions_csv(args, games: list) -> Path:
    """The positions CSV beside ``--out``, checked before any game is labelled."""
    from agents.results import ResultsExistError, resumable_csv
    from klondike_env.cli import prepare_output_file

    out = prepare_output_file(args.out, "--out")
    if out.suffix != ".npz":
        raise ValueError(f"bad --out {args.out!r}: the file name ends in .npz")
    path = resumable_csv(out.with_name(out.stem + ".positions.csv"), "--out")
    if path.resolve() == Path(args.results).resolve():
        raise ValueError(f"bad --out {args.out!r}: its positions CSV would be {path}, the games labelled")
    if out.exists() and not path.with_suffix(".json").exists() and not args.overwrite:
        raise ResultsExistError(f"{out} exists without its {path.with_suffix('.json').name}: "
                                "give another --out, or --overwrite to replace it")
    deals = [deal for deal, _ in games]
    if len(set(deals)) != len(deals):
        twice = next(deal for deal, count in Counter(deals).items() if count > 1)
        raise ValueError(f"{args.results} lists deal {twice} twice: --out keeps one game per deal")
    return path


def run(args: argparse.Namespace) -> int:
    from agents.analysis import check_replays
    from agents.evaluation import read_games
    from agents.jobs import BackendError, JobStats, run_jobs
    from agents.results import run_resumable
    from klondike_env.rules import Rules

    # a long game's shares can exceed the csv module's default cell limit (128 KiB)
    csv.field_size_limit(max(csv.field_size_limit(), 1 << 30))
    try:
        games = read_games(args.results)
        games = games[: args.games] if args.games else games
        path = _positions_csv(args, games) if args.out else None  # before labelling: a bad --out must not cost the games
        check_replays(args.results, games, Rules())  # here, not as a traceback from a worker
        backend = backend_options.backend_of(args)
        actions = dict(games)
        stats = JobStats(backend.name)

        def label(some_games: list, on_record=None) -> list[tuple]:
            return run_jobs(_label, [(deal, moves, args.worlds, args.nodes) for deal, moves in some_games], _no_set_up,
                            (), backend, progress=not args.quiet, desc="label-moves", unit="game",
                            on_result=on_record, stats=stats)

        def play(deals: list[int], on_record) -> None:
            label([(deal, actions[deal]) for deal in deals], on_record)

        if path is None:
            summary = summarize_positions(label(games))
        else:
            identity = {"job": "label-moves", "games": len(games), "games_sha256": hashlib.sha256(
                json.dumps(games).encode()).hexdigest(), "worlds": args.worlds, "nodes": args.nodes}
            header = {"command": getattr(args, "command_line", None), "results": str(args.results),
                      "workers": backend.workers, "backend": backend.name}
            _, summary = run_resumable(play, identity, [deal for deal, _ in games], path.parent, path.stem,
                                       summarize_positions, rows=_position_rows(), overwrite=args.overwrite,
                                       header=header, stats=stats)
    except (ValueError, BackendError) as error:
        return fail(args, error)
    if not summary["positions"]:
        return fail(args, "no position with a choice of moves in these games")
    print("\n".join(_summary_lines(summary)))
    if path is not None:
        write_npz(path, actions, Path(args.out))
        resumed = f" ({summary['resumed_games']} games resumed from {path})" if summary["resumed_games"] else ""
        print(f"wrote {args.out}{resumed}")
    return 0
