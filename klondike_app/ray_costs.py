"""``klondike ray-costs``: what Ray costs here, and what a run would cost on N workers (docs/ray.md).

    klondike ray-costs overhead --tasks 400 --workers 2
    klondike ray-costs scale-out results/determinized_1-100_draw3.json --task-ms 12.5 --price 0.05
    klondike ray-costs scale-out sweep.json --task-ms 12.5 --price 0.05 --wall

overhead: starts a local Ray with --workers CPUs and runs --tasks empty tasks, one job each,
through the suite's Ray backend (the path of --backend ray). A task's cost is the workers' time
it takes: wall time x workers / tasks, the work itself being nothing.

scale-out: reads a run's measured CPU seconds per deal (its JSON's "jobs", from klondike evaluate
or klondike solve --deals) and takes the cost of a task and a price per CPU-hour. A task holds
about 2 s of work (one deal when a deal takes longer), so a deal costs
cpu x (1 + task / max(2 s, cpu)). N workers finish N x 3600 / that deals an hour, if nothing else
binds (the head node, the driver writing rows: not modelled). The cost per million deals is the
same for every N: CPU-hours times the price, plus --head-price per hour of the run.
"""

from __future__ import annotations

import argparse
import csv
import json
import time

from klondike_app.cli import fail
from klondike_env.cli import positive_float, positive_int


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    overhead = actions.add_parser("overhead", help="time a local Ray's start and the cost of one task")
    overhead.add_argument("--tasks", type=positive_int, default=400, help="empty tasks to run (default 400)")
    overhead.add_argument("--workers", type=positive_int, default=2, help="the local Ray's CPUs (default 2)")
    scale = actions.add_parser("scale-out", help="deals per hour and cost per million deals on N workers")
    scale.add_argument("summary", help="a run's JSON with a 'jobs' entry")
    scale.add_argument("--task-ms", type=positive_float, required=True, help="the cost of one Ray task, ms of a worker")
    scale.add_argument("--price", type=positive_float, required=True, help="the price of one CPU-hour (a vCPU), dollars")
    scale.add_argument("--head-price", type=float, default=0.0, help="the head node's price per hour (default 0)")
    scale.add_argument("--workers", default="1,16,64,256,1024", help="worker counts, comma-separated")
    scale.add_argument("--wall", action="store_true",
                       help="take the mean of the CSV's per-deal wall seconds, not the CPU seconds: on a busy "
                            "machine a time-limited search gets less CPU time than its limit")


def run(args: argparse.Namespace) -> int:
    try:
        (overhead if args.action == "overhead" else scale_out)(args)
    except OSError as error:
        return fail(args, f"cannot read {error.filename}: {error.strerror}")
    except (ValueError, KeyError) as error:
        return fail(args, f"{args.summary} is not the JSON of a klondike evaluate or solve --deals run "
                    f"({'no ' + str(error) + ' entry' if isinstance(error, KeyError) else error})")
    return 0


def overhead(args: argparse.Namespace) -> None:
    import ray

    from agents.jobs import Backend, JobStats, run_jobs

    start = time.perf_counter()
    ray.init(num_cpus=args.workers, include_dashboard=False, logging_level="WARNING")
    try:
        started = time.perf_counter() - start
        backend = Backend("ray", args.workers, chunk_size=1)
        first = time.perf_counter()
        run_jobs(abs, [0] * args.workers, int, (), backend, progress=False)  # the workers' processes come up
        warm = time.perf_counter() - first
        stats = JobStats("ray")
        run_jobs(abs, list(range(args.tasks)), int, (), backend, progress=False, stats=stats)
    finally:
        stop = time.perf_counter()
        ray.shutdown()
        stopped = time.perf_counter() - stop
    per_task = stats.wall_seconds * stats.slots / stats.tasks
    print(f"ray.init {started:.1f} s; first tasks (workers starting) {warm:.1f} s; {stats.tasks} empty tasks in "
          f"{stats.wall_seconds:.2f} s on {stats.slots} workers: {1000 * per_task:.1f} ms of a worker per task; "
          f"ray.shutdown {stopped:.1f} s")


TASK_SECONDS = 2.0  # agents/ray_backend.py TARGET_TASK_SECONDS


def scale_out(args: argparse.Namespace) -> None:
    with open(args.summary) as handle:
        summary = json.load(handle)
    jobs = summary["jobs"]
    if args.wall:
        with open(summary["csv"], newline="") as handle:
            seconds = [float(row["seconds"]) for row in csv.DictReader(handle)]
        cpu, what = sum(seconds) / len(seconds), "wall seconds per deal (the mean of the CSV's seconds)"
    else:
        cpu, what = jobs["cpu_seconds_per_job"], "CPU-s per deal"
    per_deal = cpu * (1 + args.task_ms / 1000 / max(TASK_SECONDS, cpu))
    print(f"{args.summary}: {cpu:.3f} {what} measured ({jobs['backend']}, {jobs['jobs']} deals); "
          f"{per_deal:.3f} s of a worker per deal with a {args.task_ms} ms task; ${args.price}/CPU-hour"
          + (f", head ${args.head_price}/hour" if args.head_price else ""))
    print("| workers | deals per hour | hours for 1M deals | cost per 1M deals |")
    print("|---:|---:|---:|---:|")
    for workers in map(int, args.workers.split(",")):
        rate = workers * 3600 / per_deal
        hours = 1e6 / rate
        cost = 1e6 * per_deal / 3600 * args.price + hours * args.head_price
        print(f"| {workers} | {rate:,.0f} | {hours:,.1f} | ${cost:,.2f} |")
