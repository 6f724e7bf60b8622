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
from dataclasses import dataclass, field

BACKENDS = ("local", "ray")


class BackendError(RuntimeError):
    """The backend could not run the jobs (Ray not reachable, a task lost past its retries)."""


@dataclass(frozen=True)
class Backend:
    """Where jobs run: ``name`` local or ray; ``workers`` processes (local, or a local Ray's
    CPUs); ``address`` a Ray cluster to join (``auto`` or ``HOST:PORT``, None: start a local
    Ray); ``chunk_size`` jobs per Ray task (None: sized from the jobs' measured time)."""

    name: str = "local"
    workers: int = 1
    address: str | None = None
    chunk_size: int | None = None

    def __post_init__(self):
        if self.name not in BACKENDS:
            raise ValueError(f"bad backend {self.name!r}: use {' or '.join(BACKENDS)}")
        if self.workers < 1:
            raise ValueError(f"bad workers {self.workers!r}: use 1 or more processes")
        if self.name == "local" and (self.address is not None or self.chunk_size is not None):
            raise ValueError("--address and --chunk-size are for --backend ray")
        if self.chunk_size is not None and self.chunk_size < 1:
            raise ValueError(f"bad chunk size {self.chunk_size!r}: use 1 or more deals a task")


@dataclass
class JobStats:
    """What a run of jobs cost: the CPU seconds of the processes that ran them (their set-up
    included), the wall time, and on Ray the tasks it took."""

    backend: str
    jobs: int = 0
    wall_seconds: float = 0.0
    cpu_seconds: float = 0.0
    tasks: int = 0
    slots: int = 0
    extra: dict = field(default_factory=dict)

    @property
    def cpu_seconds_per_job(self) -> float:
        return self.cpu_seconds / self.jobs if self.jobs else 0.0

    def line(self, unit: str = "deal") -> str:
        tasks = f", {self.tasks} tasks" if self.tasks else ""
        return (f"backend {self.backend} ({self.slots} workers{tasks}): {self.jobs} {unit}s in {self.wall_seconds:.1f} s "
                f"wall, {self.cpu_seconds_per_job:.3f} CPU-s per {unit}")

    def as_dict(self) -> dict:
        return {"backend": self.backend, "workers": self.slots, "jobs": self.jobs, "tasks": self.tasks,
                "wall_seconds": self.wall_seconds, "cpu_seconds": self.cpu_seconds,
                "cpu_seconds_per_job": self.cpu_seconds_per_job, **self.extra}


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
        return results
    pool = multiprocessing.get_context("fork").Pool(workers, _init_timed, (init, init_args))
    try:
        for index, result, cpu in pool.imap_unordered(_timed, [(work, index, job) for index, job in enumerate(jobs)],
                                                      chunksize=1):
            results[index] = result
            stats.cpu_seconds += cpu
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
    return index, result, cpu
