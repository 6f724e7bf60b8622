"""Solver section: our solver on deals 1-200 (draw-3), and pyksolve side by side when installed.

Every SOLVED answer is replayed on ``Game`` before it is counted, and a verdict that the other
solver contradicts is listed; pyksolve (Klondike-Solver) prunes unsafely, so its "Impossible"
is not a proof, while a replayed solution is.
"""

from __future__ import annotations

import resource
import time

from klondike_env import Game, Rules
from klondike_env.solver import SolveStatus, prepare, solve

FULL = {"deals": range(1, 201), "time_limit": 60.0, "pyksolve_closed": 5_000_000}
QUICK = {"deals": range(1, 51), "time_limit": 10.0, "pyksolve_closed": 1_000_000}


def _replays(deal: int, actions: list[int]) -> bool:
    game = Game.new(deal)
    for action in actions:
        game.step(action)
    return game.is_won


def _ours(deals, time_limit: float, threads: int) -> dict:
    prepare()
    verdicts, seconds, nodes, table_mb, bad = {}, [], 0, 0.0, 0
    cpu_started = time.process_time()
    for deal in deals:
        result = solve(deal, Rules(), time_limit=time_limit, threads=threads)
        if result.status == SolveStatus.SOLVED and not _replays(deal, result.actions):
            bad += 1
        verdicts[deal] = result.status.value
        seconds.append(result.seconds)
        nodes += result.nodes
        table_mb = max(table_mb, result.table_mb)
    cpu = time.process_time() - cpu_started  # includes the replays, a small share
    return {"verdicts": verdicts, "seconds": seconds, "nodes": nodes, "table_mb": table_mb, "bad": bad,
            "cpu": cpu}


def _pyksolve(deals, method: str, closed: int) -> dict | None:
    try:
        from pyksolve import solver as pyksolver
    except ImportError:
        return None
    names = {1: "SOLVED", -1: "SOLVED", 0: "UNSOLVABLE", -2: "UNKNOWN"}
    engine = pyksolver.Solitaire()
    verdicts, seconds = {}, []
    cpu_started = time.process_time()
    for deal in deals:
        engine.load_solitaire(Game.new(deal).deck_string())
        engine.reset_game(3)
        started = time.perf_counter()
        outcome = getattr(engine, method)(max_closed_count=closed)
        seconds.append(time.perf_counter() - started)
        verdicts[deal] = names[outcome.value]
    return {"verdicts": verdicts, "seconds": seconds, "cpu": time.process_time() - cpu_started}


def _row(name: str, run: dict, extra: str) -> str:
    seconds = sorted(run["seconds"])
    decided = sum(v != "UNKNOWN" for v in run["verdicts"].values())
    total = len(seconds)
    return (f"| {name} | {decided}/{total} ({100 * decided / total:.1f}%) | "
            f"{sum(v == 'SOLVED' for v in run['verdicts'].values())} | {seconds[total // 2]:.3f} | "
            f"{sum(seconds) / total:.3f} | {seconds[-1]:.2f} | {run['cpu'] / total:.3f} | {extra} |")


def run(quick: bool = False) -> str:
    config = QUICK if quick else FULL
    deals = config["deals"]
    lines = [
        f"Deals {deals.start}-{deals.stop - 1}, draw-3; ours with time_limit={config['time_limit']:g} s a deal, "
        "on one thread and on two (threads=2: the class search shared with a second thread, which runs "
        "the helper searches too); pyksolve on one.",
        "",
        "| solver | decided | solved | median s | mean s | max s | mean CPU s | notes |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    runs = {}
    for threads in (1, 2):
        ours = runs[threads] = _ours(deals, config["time_limit"], threads)
        rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        lines.append(_row(
            "klondike_env.solve" + (" (threads=2)" if threads == 2 else ""), ours,
            f"{ours['nodes'] / sum(ours['seconds']):,.0f} nodes/s ({ours['nodes'] / ours['cpu']:,.0f} per CPU s); "
            f"table peak {ours['table_mb']:.0f} MB, process peak RSS {rss_mb:.0f} MB; "
            f"solutions failing replay: {ours['bad']}"))
    ours = runs[1]
    undecided = {threads: [deal for deal in deals if run["verdicts"][deal] == "UNKNOWN"] for threads, run in runs.items()}
    others = {}
    for method in ("solve_fast", "solve_minimal"):
        other = _pyksolve(deals, method, config["pyksolve_closed"])
        if other is None:
            lines.append(f"| pyksolve.{method} | not installed (`pip install pyksolve`) | | | | | | |")
            continue
        others[method] = other
        ratios = "; ".join(
            f"total time {sum(other['seconds']) / sum(mine['seconds']):.2f}x ours{label} (CPU {other['cpu'] / mine['cpu']:.2f}x)"
            for label, mine in (("", runs[1]), (" with threads=2", runs[2])))
        lines.append(_row(f"pyksolve.{method}", other, f"max_closed_count={config['pyksolve_closed']:,}; {ratios}"))
    others["ours, threads=2"] = runs[2]
    disagreements = [
        (deal, ours["verdicts"][deal], method, other["verdicts"][deal])
        for method, other in others.items() for deal in deals
        if {ours["verdicts"][deal], other["verdicts"][deal]} == {"SOLVED", "UNSOLVABLE"}
    ]
    lines += ["", "Deals ours left UNKNOWN: " + "; ".join(
        f"threads={threads}: {', '.join(map(str, left)) or 'none'}" for threads, left in undecided.items())]
    if others:
        lines += ["", f"Verdicts in conflict (SOLVED vs UNSOLVABLE): {len(disagreements)}"]
        if disagreements:
            lines += ["", "| deal | ours | other | its verdict |", "| ---: | --- | --- | --- |"]
            lines += [f"| {deal} | {mine} | {method} | {theirs} |" for deal, mine, method, theirs in disagreements]
    return "\n".join(lines)
