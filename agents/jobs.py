"""Run one job per deal on a backend: local processes (the default) or a Ray cluster.

:func:`run_jobs` is what every long job of the suite goes through (evaluation, solver sweeps,
move labelling, DAgger labelling): ``work(job)`` on every job, each process set up once by
``init(*init_args)``, the results handed to ``on_result`` in this process as they arrive, under
one progress bar over all jobs. Whatever the backend, a job's result depends on the job alone
(every deal carries its own seed), so the backends give the same results.

``--backend local`` forks ``workers`` processes on this machine. ``--backend ray`` sends chunks
of jobs to Ray tasks (:mod:`agents.ray_backend`, imported only then): a local Ray with
``workers`` CPUs, or the cluster at ``address``. Only this process receives results, so a task
that Ray runs again after its worker died cannot deliver a deal twice.
"""

from __future__ import annotations

import multiprocessing
import sys
import time

from agents.backend import Backend, BackendError, JobStats, peak_rss_mb

__all__ = ["Backend", "BackendError", "JobStats", "run_jobs"]

def progress_bar(total: int, progress: bool, desc: str, unit: str):
    """The one progress bar of a run: count, rate and ETA over all its jobs."""
    from tqdm import tqdm

    return tqdm(total=total, disable=not progress, desc=desc, unit=unit, smoothing=0.05, mininterval=1)


def run_jobs(work, jobs: list, init, init_args: tuple, backend: Backend = Backend(), *, progress: bool = True,
             desc: str = "", unit: str = "deal", on_result=None, stats: JobStats | None = None,
             init_here: bool = True) -> list:
    """``work(job)`` for every job; results come back in job order, and ``on_result(result)`` is
    called in this process as each arrives (in the order they finish), so a caller can keep it
    before anything else can fail. ``init`` runs in this process first (unless ``init_here`` is
    false: a caller that checked its arguments already), so a bad agent spec or a missing model
    file raises here rather than in a worker. ``stats`` (a :class:`JobStats`) is
    filled in; with ``progress`` its line is printed on stderr at the end."""
    stats = stats if stats is not None else JobStats(backend.name)
    if init_here or (backend.name == "local" and backend.workers <= 1):
        init(*init_args)
    started = time.perf_counter()
    with progress_bar(len(jobs), progress, desc, unit) as bar:
        def deliver(result):
            bar.update(1)
            if on_result is not None:
                on_result(result)

        if backend.name == "ray":
            from agents.ray_backend import run_on_ray

            results = run_on_ray(work, jobs, init, init_args, backend, deliver, stats)
        else:
            results = _run_local(work, jobs, init, init_args, backend.workers, deliver, stats)
    stats.jobs = len(jobs)
    stats.wall_seconds = time.perf_counter() - started
    if progress:
        print(stats.line(unit), file=sys.stderr)
    return results


def _run_local(work, jobs, init, init_args, workers, deliver, stats: JobStats) -> list:
    stats.slots = min(workers, max(len(jobs), 1))
    results: list = [None] * len(jobs)
    if workers <= 1:
        cpu = time.process_time()
        try:
            for index, job in enumerate(jobs):
                results[index] = work(job)
                deliver(results[index])
        finally:
            stats.cpu_seconds += time.process_time() - cpu
            stats.note_rss(peak_rss_mb())
        return results
    pool = multiprocessing.get_context("fork").Pool(workers, _init_timed, (init, init_args))
    try:
        for index, result, cpu, rss in pool.imap_unordered(_timed, [(work, index, job) for index, job in enumerate(jobs)],
                                                           chunksize=1):
            results[index] = result
            stats.cpu_seconds += cpu
            stats.note_rss(rss)
            deliver(result)
    finally:
        pool.terminate()
        pool.join()
    return results


_set_up_cpu = 0.0  # a worker's CPU seconds in init, counted with its first job


def _init_timed(init, init_args) -> None:
    global _set_up_cpu
    start = time.process_time()
    init(*init_args)
    _set_up_cpu = time.process_time() - start


def _timed(task):
    global _set_up_cpu
    work, index, job = task
    start = time.process_time()
    result = work(job)
    cpu, _set_up_cpu = time.process_time() - start + _set_up_cpu, 0.0
    return index, result, cpu, peak_rss_mb()

