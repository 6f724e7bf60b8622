"""Where a run's jobs go (:class:`Backend`) and what they cost (:class:`JobStats`); see :mod:`agents.jobs`."""

from __future__ import annotations

import sys
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
    worker_peak_rss_mb: float = 0.0  # the largest peak resident memory of a worker process
    extra: dict = field(default_factory=dict)

    def note_rss(self, megabytes: float) -> None:
        self.worker_peak_rss_mb = max(self.worker_peak_rss_mb, megabytes)

    @property
    def cpu_seconds_per_job(self) -> float:
        return self.cpu_seconds / self.jobs if self.jobs else 0.0

    def line(self, unit: str = "deal") -> str:
        units = unit + ("es" if unit.endswith("ch") else "s")
        tasks = f", {self.tasks} tasks" if self.tasks else ""
        return (f"backend {self.backend} ({self.slots} workers{tasks}): {self.jobs} {units} in {self.wall_seconds:.1f} s "
                f"wall, {self.cpu_seconds_per_job:.3f} CPU-s per {unit}, worker peak memory {self.worker_peak_rss_mb:.0f} MB")

    def as_dict(self) -> dict:
        return {"backend": self.backend, "workers": self.slots, "jobs": self.jobs, "tasks": self.tasks,
                "wall_seconds": self.wall_seconds, "cpu_seconds": self.cpu_seconds,
                "cpu_seconds_per_job": self.cpu_seconds_per_job, "worker_peak_rss_mb": self.worker_peak_rss_mb, **self.extra}


def peak_rss_mb() -> float:
    """This process's peak resident memory in MB (Linux and macOS; 0 where unknown)."""
    try:
        import resource
    except ImportError:  # Windows
        return 0.0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 2**10
