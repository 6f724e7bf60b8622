"""``klondike solve``: solve Thoughtful Klondike deals: one deal with its winning line, or a sweep with a CSV.

    klondike solve --deal 7                      # verdict and the moves, draw-3
    klondike solve --deal 7 --draw 1
    klondike solve --deck "AD AH 6S ..."         # an explicit deck: 52 cards or a 156-digit string
    klondike solve --deal 1 --threads 2          # the second core shares the search
    klondike solve --deals 1-2000 --workers 2 --csv verdicts_draw3.csv
    klondike solve --deals 1-1000000 --time-limit 10 --backend ray --address auto --csv million.csv
    klondike solve --merge sweep.csv unknown_again.csv   # a later file's verdict counts (UNKNOWN never replaces one)
    klondike solve --merge sweep.csv unknown_again.csv --csv merged.csv   # ... written out

A sweep writes each deal's row to its CSV as the deal is solved, and its settings to the JSON
beside it; the same command run again resumes (deals already in the CSV are skipped), other
settings for the same CSV are refused unless --overwrite. --backend ray solves the deals as Ray
tasks (docs/ray.md).

One solve that runs longer than a second or two shows its progress (nodes, nodes per second,
table fill) on stderr when that is a terminal. A sweep prints the winnability estimate with a
95% Wilson interval, counting the UNKNOWN deals first as losses and then as wins (both bounds
shown), as Blake & Gent report it.
"""

from __future__ import annotations

import argparse
import csv
import math
from dataclasses import asdict
from operator import itemgetter
from pathlib import Path

from agents.evaluation import wilson_interval
from agents.jobs import Backend, BackendError, JobStats, run_jobs
from agents.results import RowFormat, resumable_csv, run_resumable
from klondike_app import backend_options
from klondike_app.cli import fail
from klondike_env import Game, Rules
from klondike_env.cli import positive_float, positive_int, prepare_output_file
from klondike_env.solver import VERDICT_FIELDS, SolveStatus, prepare, read_verdict_rows, solve
from klondike_env.solver.progress import TerminalProgress


def parse_deals(text: str) -> list[int]:
    """``"1-1000"``, ``"5"`` or ``"1-10,20,30-32"`` as a list of deal numbers."""
    deals: list[int] = []
    for part in text.split(","):
        bounds = part.strip().split("-")
        try:
            if len(bounds) == 1:
                deals.append(int(bounds[0]))
                continue
            if len(bounds) != 2:
                raise ValueError
            first, last = int(bounds[0]), int(bounds[1])
        except ValueError:
            raise ValueError(f"bad --deals {text!r}: expected ranges such as 1-1000 or 1-10,20,30-32") from None
        if last < first:
            raise ValueError(f"bad --deals range {part!r}: the end is below the start")
        deals.extend(range(first, last + 1))
    if any(deal < 0 or deal >= 2**64 for deal in deals):
        raise ValueError(f"bad --deals {text!r}: deal numbers are integers with 0 <= deal < 2**64")
    return deals


def table_mb(text: str) -> float:
    """An argparse type: a table size in MB, at least 1 (the solver refuses tables under 0.125 MB,
    and its helper searches join only with 1 MB or more)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 1 <= value < math.inf:
        raise argparse.ArgumentTypeError(f"expected a number of MB >= 1, got {text!r}")
    return value


def winnability_lines(statuses: list[str]) -> list[str]:
    total = len(statuses)
    solved = statuses.count(SolveStatus.SOLVED.value)
    unknown = statuses.count(SolveStatus.UNKNOWN.value)
    lines = [f"deals {total}: SOLVED {solved}, UNSOLVABLE {statuses.count(SolveStatus.UNSOLVABLE.value)}, "
             f"UNKNOWN {unknown}"]
    for label, wins in (("UNKNOWN as losses", solved), ("UNKNOWN as wins", solved + unknown)):
        low, high = wilson_interval(wins, total)
        lines.append(f"winnable ({label}): {100 * wins / max(total, 1):.3f}%  "
                     f"95% Wilson interval [{100 * low:.3f}%, {100 * high:.3f}%]")
    return lines


def warm_up(memory_mb: float, node_limit: int | None) -> None:
    """Load the compiled kernels and allocate the table, so that no deal's time includes it."""
    prepare(memory_mb, node_limit)


def _solve_one(job: tuple) -> tuple:
    deal, rules, time_limit, node_limit, memory_mb, by_class, threads = job
    result = solve(deal, rules, time_limit=time_limit, node_limit=node_limit, memory_limit_mb=memory_mb,
                   by_class=by_class, threads=threads)
    return (deal, result.status.value, str(len(result.actions)) if result.status == SolveStatus.SOLVED else "",
            str(result.nodes), f"{result.seconds:.4f}", result.stopped_by or "")


def _verdict_of_row(row: dict[str, str], path, index: int) -> tuple:
    try:
        if row["status"] not in {status.value for status in SolveStatus}:
            raise ValueError
        return (int(row["deal"]), *(row[field] or "" for field in VERDICT_FIELDS[1:]))
    except (ValueError, TypeError, KeyError):
        raise ValueError(f"{path} line {index + 2}: bad row {dict(row)!r}: expected the columns "
                         f"{', '.join(VERDICT_FIELDS)}") from None


#: a sweep's rows, as the harness's driver writes them (agents.results.run_resumable)
VERDICT_ROWS = RowFormat(VERDICT_FIELDS, list, _verdict_of_row, itemgetter(0))


def sweep(deals, rules, args, path: Path, backend: Backend, progress: bool = True) -> None:
    """Solve ``deals`` into the CSV at ``path`` (a row per deal as it is solved) and its JSON
    (the sweep's settings, then its summary). The same sweep run again resumes: deals already in
    the CSV are skipped; other settings are refused unless --overwrite."""
    deals = list(dict.fromkeys(deals))
    identity = {"sweep": "solve", "rules": asdict(rules), "time_limit": args.time_limit, "node_limit": args.node_limit,
                "memory_mb": args.memory_mb, "by_class": not args.positions, "threads": args.threads}
    stats = JobStats(backend.name)

    def play(remaining: list[int], on_record) -> None:
        jobs = [(deal, rules, args.time_limit, args.node_limit, args.memory_mb, not args.positions, args.threads)
                for deal in remaining]
        run_jobs(_solve_one, jobs, warm_up, (args.memory_mb, args.node_limit), backend, progress=progress,
                 desc="solve", on_result=on_record, stats=stats, init_here=False)

    def summarize(rows: list[tuple]) -> dict:
        statuses = [row[1] for row in rows]
        return {"rules": asdict(rules), **{status.value: statuses.count(status.value) for status in SolveStatus}}

    header = {"command": getattr(args, "command_line", None), "workers": backend.workers, "backend": backend.name}
    _, summary = run_resumable(play, identity, deals, path.parent, path.stem, summarize, rows=VERDICT_ROWS,
                               option="--csv", overwrite=args.overwrite, header=header, stats=stats)
    rows = read_verdict_rows(path)
    seconds = sorted(float(row["seconds"]) for row in rows.values())
    print(f"rules: {rules}; limits: time {args.time_limit} s, nodes {args.node_limit}, "
          f"table {args.memory_mb} MB per worker; {stats.slots or backend.workers} workers on {backend.name}, "
          f"{args.threads} thread(s) each; search over {'positions' if args.positions else 'classes'}")
    print("\n".join(winnability_lines([row["status"] for row in rows.values()])))
    resumed = f" ({summary['resumed_games']} deals resumed from the CSV)" if summary["resumed_games"] else ""
    print(f"seconds per deal: median {seconds[len(seconds) // 2]:.3f}, mean {sum(seconds) / len(seconds):.3f}, "
          f"max {seconds[-1]:.3f}; wall {summary['wall_seconds']:.0f} s{resumed}; CSV {path}")


def merge(paths: list[str], out: str | None = None) -> None:
    """Print the estimate over sweep CSVs taken together, a deal's row in a later file replacing
    its row in an earlier one (e.g. the UNKNOWN deals of a sweep run again with a larger budget)
    -- except that an UNKNOWN row never replaces a verdict, and two files that decide a deal
    differently are a ``ValueError`` naming both; with ``out``, also write the merged rows there,
    in deal order."""
    rows: dict[int, dict[str, str]] = {}
    source: dict[int, str] = {}
    unknown = SolveStatus.UNKNOWN.value
    for path in paths:
        for deal, row in read_verdict_rows(path).items():
            earlier = rows.get(deal)
            if earlier is not None and earlier["status"] != unknown:
                if row["status"] not in (unknown, earlier["status"]):
                    raise ValueError(f"deal {deal} is {earlier['status']} in {source[deal]} but {row['status']} in {path}")
                if row["status"] == unknown:
                    continue  # a budget that ran out says nothing against a verdict
            rows[deal], source[deal] = row, path
    print(f"{len(paths)} files, deals {min(rows, default=0)}-{max(rows, default=0)}")
    print("\n".join(winnability_lines([row["status"] for row in rows.values()])))
    if out is not None:
        with open(out, "w", newline="") as handle:
            writer = csv.DictWriter(handle, VERDICT_FIELDS, extrasaction="ignore", restval="")
            writer.writeheader()
            writer.writerows(rows[deal] for deal in sorted(rows))
        print(f"merged CSV {out}")


def show_one(game: Game, label: str, args) -> None:
    """Solve ``game``'s opening (``label`` names it: ``"deal 7"``), print the verdict and the
    winning line with each move's cards; progress on stderr while it runs, on a terminal."""
    rules = game.rules
    warm_up(args.memory_mb, args.node_limit)
    with TerminalProgress() as progress:
        result = solve(game, time_limit=args.time_limit, node_limit=args.node_limit, memory_limit_mb=args.memory_mb,
                       by_class=not args.positions, threads=args.threads, progress=progress)
    extra = f", stopped by {result.stopped_by}" if result.stopped_by else ""
    print(f"{label} ({rules}): {result.status.value} in {result.seconds:.3f} s, "
          f"{result.nodes:,} nodes expanded{extra}")
    if result.status != SolveStatus.SOLVED:
        return
    for number, action in enumerate(result.actions, 1):
        print(f"{number:4d}. {game.action_name(action)}")
        game.step(action)
    print(f"won: {game.is_won} after {len(result.actions)} actions")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--deal", type=int, help="solve one deal and print its moves")
    which.add_argument("--deck", help="solve an explicit deck and print its moves: 52 cards (\"AD AH 6S ...\", "
                                      "spaces or commas between them) or a 156-digit deck string")
    which.add_argument("--deals", help="sweep deals, e.g. 1-1000 or 1-10,20")
    which.add_argument("--merge", nargs="+", metavar="CSV",
                       help="print the estimate over sweep CSVs together (a deal's row in a later file wins, "
                            "but UNKNOWN never replaces a verdict); "
                            "with --csv, write the merged rows there")
    parser.add_argument("--draw", type=int, default=3, help="cards per draw: 3 (default) or 1")
    parser.add_argument("--max-passes", type=int, default=None, help="trips through the stock (default unlimited)")
    # bad limits stop here, before the CSV is touched or a pool worker fails in its initializer
    # (the pool would respawn it forever)
    parser.add_argument("--workers", type=positive_int, default=1, help="processes for a sweep (default 1)")
    parser.add_argument("--time-limit", type=positive_float, default=None, help="seconds per deal (default none)")
    parser.add_argument("--node-limit", type=positive_int, default=None, help="positions per deal (default none)")
    parser.add_argument("--memory-mb", type=table_mb, default=512,
                        help="transposition table per worker, at least 1 (default 512)")
    parser.add_argument("--csv", help="sweep output (default solve_draw<N>.csv; its settings and summary go to the "
                                      ".json beside it), or --merge's output")
    parser.add_argument("--overwrite", action="store_true",
                        help="replace a sweep CSV of other settings (the same sweep resumes without it)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--positions", action="store_true",
                        help="search positions, not classes of positions "
                             "(solve's by_class=False: the same verdicts, usually more nodes)")
    parser.add_argument("--threads", type=int, default=1, choices=(1, 2),
                        help="2: a second thread shares the class search and runs the helper searches "
                             "(solve's threads=2; for one deal, or one worker on a 2-core machine)")
    backend_options.add_arguments(parser)


def run(args: argparse.Namespace) -> int:
    try:
        rules = Rules(draw_count=args.draw, max_passes=args.max_passes)
        # the output path is checked (not yet written) before the work that fills it
        if args.deal is not None:
            show_one(Game.new(args.deal, rules), f"deal {args.deal}", args)
        elif args.deck is not None:
            show_one(Game.from_deck(args.deck, rules), "deck", args)
        elif args.merge:
            merge(args.merge, args.csv and prepare_output_file(args.csv, "--csv"))
        else:
            deals = parse_deals(args.deals)
            backend = backend_options.backend_of(args)
            path = resumable_csv(args.csv or f"solve_draw{rules.draw_count}.csv", "--csv")
            sweep(deals, rules, args, path, backend, progress=not args.quiet)
    except (ValueError, BackendError) as error:
        return fail(args, error)
    return 0
