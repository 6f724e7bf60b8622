"""The Ray backend of :func:`agents.jobs.run_jobs` (``--backend ray``); imported only when chosen.

Jobs go out in chunks, one Ray task per chunk. A chunk's size is set from the measured time per
job so that a task runs about :data:`TARGET_TASK_SECONDS` (Ray's cost per task, a few
milliseconds, stays well under 1%), but never so large that fewer than two chunks per worker
remain (the last tasks of a run would keep some workers idle while others finish). Each worker
process runs ``init`` once and keeps what it built (an agent, a solver table) for its later
tasks; numba's compiled kernels load from the on-disk cache beside the package, which all
workers of a machine share.

Exactly once: only this process receives results, and it keeps the index of every job already
delivered. Ray runs a task again when its worker dies (up to :data:`MAX_RETRIES` times); the
retried task's results arrive once, and a result for a job already delivered would be dropped.

Two tasks per CPU of the cluster are queued at a time (the CPUs are counted again every
:data:`RECOUNT_SECONDS`, so nodes that join are used), which does not ask an autoscaler for more
nodes: give a cluster its size before the run.
"""

from __future__ import annotations

import logging
import time
from collections import deque

import ray

from agents.backend import Backend, BackendError, JobStats, peak_rss_mb

TARGET_TASK_SECONDS = 2.0
MAX_RETRIES = 3
RECOUNT_SECONDS = 10.0  # how often the cluster's CPUs are counted again


class RayBackendError(BackendError):
    """Ray could not be started or joined, or a task failed past its retries."""


def connect(backend: Backend) -> bool:
    """Start a local Ray with ``backend.workers`` CPUs, or join ``backend.address``; True if this
    call started or joined it (and so should shut it down)."""
    if ray.is_initialized():
        return False
    try:
        if backend.address is None:  # "local": a Ray of its own, even where `ray start` left one running
            ray.init(address="local", num_cpus=backend.workers, include_dashboard=False, logging_level=logging.WARNING)
        else:
            ray.init(address=backend.address, logging_level=logging.WARNING)
    except (ConnectionError, RuntimeError, ValueError) as error:
        raise RayBackendError(f"cannot {'join Ray at ' + backend.address if backend.address else 'start a local Ray'}: "
                              f"{str(error).splitlines()[0] if str(error) else type(error).__name__}") from None
    return True


_ready: tuple | None = None  # the (init, init_args) this worker process has run


def run_chunk(shared: tuple, chunk: list):
    """A Ray task: ``shared`` is ``(work, init, init_args)``; ``init`` runs once per worker
    process, then ``work`` on each ``(index, job)`` of ``chunk``. Returns ``(results,
    cpu_seconds, init_seconds, busy_seconds)``."""
    global _ready
    work, init, init_args = shared
    start, cpu = time.perf_counter(), time.process_time()
    if _ready is None or _ready[0] is not init or _ready[1] != init_args:
        init(*init_args)
        _ready = (init, init_args)
    set_up = time.perf_counter() - start
    results = [(index, work(job)) for index, job in chunk]
    return results, time.process_time() - cpu, set_up, time.perf_counter() - start, peak_rss_mb()


class Chunker:
    """Chunk sizes: ``fixed`` when given, else one job until a task has been timed, then about
    ``target`` seconds of jobs, capped so that at least two chunks per slot remain."""

    def __init__(self, slots: int, fixed: int | None = None, target: float = TARGET_TASK_SECONDS):
        self.slots, self.fixed, self.target = slots, fixed, target
        self.jobs = 0
        self.seconds = 0.0

    def observe(self, jobs: int, seconds: float) -> None:
        self.jobs += jobs
        self.seconds += seconds

    def next_size(self, remaining: int) -> int:
        if self.fixed is not None:
            return self.fixed
        if not self.jobs:
            return 1
        per_job = max(self.seconds / self.jobs, 1e-6)
        return max(1, min(round(self.target / per_job), remaining // (2 * self.slots)))


def run_on_ray(work, jobs: list, init, init_args: tuple, backend: Backend, deliver, stats: JobStats) -> list:
    """:func:`agents.jobs.run_jobs` on Ray: chunks of ``jobs`` as tasks, ``deliver(result)`` once
    per job as its chunk returns; results in job order."""
    started = connect(backend)
    try:
        slots = stats.slots = _cpus()
        counted = time.monotonic()
        task = ray.remote(num_cpus=1, max_retries=MAX_RETRIES)(run_chunk)
        shared = ray.put((work, init, init_args))  # sent to the object store once, not with every task
        chunker = Chunker(slots, backend.chunk_size)
        waiting = deque(range(len(jobs)))
        in_flight: dict = {}
        results: list = [None] * len(jobs)
        delivered: set[int] = set()
        busy = set_up = 0.0
        try:
            while waiting or in_flight:
                if time.monotonic() - counted > RECOUNT_SECONDS:  # nodes that joined since get tasks too
                    slots, counted = _cpus(), time.monotonic()
                    chunker.slots, stats.slots = slots, max(stats.slots, slots)
                while waiting and len(in_flight) < 2 * slots:  # a queued task per worker: none waits on this loop
                    size = chunker.next_size(len(waiting))
                    chunk = [waiting.popleft() for _ in range(min(size, len(waiting)))]
                    in_flight[task.remote(shared, [(index, jobs[index]) for index in chunk])] = chunk
                    stats.tasks += 1
                done, _ = ray.wait(list(in_flight), num_returns=1)
                for ref in done:
                    in_flight.pop(ref)
                    chunk_results, cpu, task_set_up, task_busy, rss = _get(ref)
                    stats.cpu_seconds += cpu
                    stats.note_rss(rss)
                    busy, set_up = busy + task_busy, set_up + task_set_up
                    chunker.observe(len(chunk_results), task_busy - task_set_up)
                    for index, result in chunk_results:
                        if index in delivered:  # a task run twice: its jobs were delivered already
                            continue
                        delivered.add(index)
                        results[index] = result
                        deliver(result)
        finally:
            for ref in in_flight:
                ray.cancel(ref, force=True)
        stats.extra = {"busy_seconds": busy, "set_up_seconds": set_up, "mean_jobs_per_task": len(jobs) / max(stats.tasks, 1)}
        return results
    finally:
        if started:
            ray.shutdown()


def _cpus() -> int:
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


def _get(ref):
    """A task's value; a failure in ``work`` is raised as itself, a worker lost past its retries as
    a one-line :class:`RayBackendError`."""
    try:
        return ray.get(ref)
    except ray.exceptions.RayTaskError as error:
        cause = getattr(error, "cause", None)
        if isinstance(cause, Exception):
            raise cause from None
        raise RayBackendError(f"a Ray task failed: {str(error).splitlines()[0]}") from None
    except ray.exceptions.RayError as error:
        raise RayBackendError(f"a Ray task was lost past {MAX_RETRIES} retries ({type(error).__name__}); rerun the "
                              "same command to resume") from None


__all__ = ["RayBackendError", "connect", "run_chunk", "run_on_ray", "Chunker"]
