"""``--backend ray``: the same rows as ``--backend local``, and nothing lost or written twice
when a Ray worker or the driver is killed part-way (a small local Ray, 2 CPUs). Skipped only where
Ray is not installed (``pip install 'klondike-env[ray]'``; CI installs it with ``.[all]``)."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

ray = pytest.importorskip("ray")

from agents.evaluation import evaluate  # noqa: E402
from agents.jobs import Backend, run_jobs  # noqa: E402
from klondike_app.cli import main  # noqa: E402
from tests.conftest import kill_part_way, klondike_command  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
TIMING = {"seconds", "cpu_seconds"}  # measure the machine, not the game
RAY = Backend("ray", workers=2)


@pytest.fixture(scope="module")
def local_ray():
    """One local Ray for the module's in-process runs (the backend joins a Ray already started)."""
    ray.init(num_cpus=2, include_dashboard=False, logging_level="WARNING")
    yield
    ray.shutdown()


def _rows(path) -> list[tuple]:
    """A CSV's rows without the timing columns, in deal order; a deal twice fails."""
    with open(path, newline="") as handle:
        rows = [tuple(value for key, value in row.items() if key not in TIMING) for row in csv.DictReader(handle)]
    deals = [int(row[0]) for row in rows]
    assert len(set(deals)) == len(deals), f"{path} lists a deal twice"
    return sorted(rows, key=lambda row: int(row[0]))


def test_greedy_and_a_solver_sweep_give_the_same_rows_on_both_backends(local_ray, tmp_path):
    local = evaluate("greedy", "1-36", workers=1, out_dir=tmp_path / "local", progress=False)[1]
    on_ray = evaluate("greedy", "1-36", backend=RAY, out_dir=tmp_path / "ray", progress=False)[1]
    assert on_ray["jobs"]["backend"] == "ray" and on_ray["jobs"]["tasks"] >= 2
    assert _rows(on_ray["csv"]) == _rows(local["csv"]) and len(_rows(local["csv"])) == 36
    sweep = ["solve", "--deals", "1-12", "--node-limit", "3000", "--memory-mb", "16", "--quiet"]
    assert main([*sweep, "--csv", str(tmp_path / "local.csv")]) == 0
    assert main([*sweep, "--csv", str(tmp_path / "ray.csv"), "--backend", "ray", "--workers", "2"]) == 0
    assert _rows(tmp_path / "ray.csv") == _rows(tmp_path / "local.csv") and len(_rows(tmp_path / "local.csv")) == 12
    assert json.loads((tmp_path / "ray.json").read_text())["jobs"]["backend"] == "ray"


def test_batched_policy_play_gives_the_same_rows_for_the_same_batches(local_ray, tmp_path):
    pytest.importorskip("sb3_contrib")
    from agents.training.evaluation import evaluate_policy_file

    model = ROOT / "models" / "ppo_draw3_actions_bc" / "model.zip"
    runs = [evaluate_policy_file(model, "1-12", batch=4, backend=backend, out_dir=tmp_path / name, max_moves=200)[1]
            for name, backend in (("local", None), ("ray", RAY))]
    assert _rows(runs[1]["csv"]) == _rows(runs[0]["csv"]) and len(_rows(runs[0]["csv"])) == 12


def _descendants(pid: int) -> set[int]:
    parents = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(stat.parent.name)] = int(fields[1])
    found, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def _running_task(pid: int) -> int | None:
    """A worker of this process's Ray that is running a chunk (its title is ray::run_chunk)."""
    for child in _descendants(pid):
        try:
            if Path(f"/proc/{child}/cmdline").read_bytes().startswith(b"ray::run_chunk"):
                return child
        except OSError:
            continue
    return None


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="finds Ray's worker processes through /proc")
def test_a_killed_worker_loses_nothing_and_writes_nothing_twice(local_ray, tmp_path):
    killed: list[int] = []

    def kill_one_worker():  # SIGKILL the first worker seen running a chunk
        deadline = time.monotonic() + 60
        while not killed and time.monotonic() < deadline:
            worker = _running_task(os.getpid())
            if worker is not None:
                os.kill(worker, signal.SIGKILL)
                killed.append(worker)
            time.sleep(0.01)

    killer = threading.Thread(target=kill_one_worker, daemon=True)
    killer.start()
    on_ray = evaluate("greedy", "1-48", backend=Backend("ray", 2, chunk_size=4), out_dir=tmp_path / "ray",
                      progress=False)[1]
    killer.join()
    assert killed, "no Ray worker was caught running a chunk"
    local = evaluate("greedy", "1-48", workers=1, out_dir=tmp_path / "local", progress=False)[1]
    assert _rows(on_ray["csv"]) == _rows(local["csv"]) and len(_rows(on_ray["csv"])) == 48


def test_results_arrive_once_each_in_job_order(local_ray):
    seen = []
    results = run_jobs(abs, list(range(-20, 0)), int, (), Backend("ray", 2, chunk_size=3), progress=False,
                       on_result=seen.append)
    assert results == list(range(20, 0, -1)) and sorted(seen) == sorted(results)


def test_a_killed_driver_resumes_with_the_same_rows(local_ray, tmp_path):
    """Without --address the command starts a Ray of its own, even with one running (RAY_ADDRESS
    names the module's: a Ray that `ray start` left running is found the same way)."""
    env = {**ENV, "RAY_ADDRESS": ray.get_runtime_context().gcs_address}
    out = tmp_path / "ray"
    command = klondike_command("evaluate", "--agent", "greedy", "--seeds", "1-80", "--backend", "ray", "--workers", "2",
                               "--chunk-size", "2", "--out", out, "--quiet")
    csv_path = out / "greedy_1-80_draw3.csv"
    kill_part_way(command, csv_path, 7, timeout=120, env=env)
    kept = _rows(csv_path)
    assert 5 <= len(kept) < 80, "the run was not killed part-way"
    finished = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert finished.returncode == 0, finished.stderr
    local = evaluate("greedy", "1-80", workers=1, out_dir=tmp_path / "local", progress=False)[1]
    rows = _rows(csv_path)
    assert rows == _rows(local["csv"]) and set(kept) <= set(rows)
    assert json.loads(csv_path.with_suffix(".json").read_text())["resumed_games"] >= len(kept)


def test_backend_options_that_do_not_fit_are_one_line(tmp_path, capsys):
    assert main(["evaluate", "--agent", "greedy", "--seeds", "1-2", "--address", "auto", "--out", str(tmp_path)]) == 2
    assert capsys.readouterr().err.strip() == "klondike evaluate: error: --address and --chunk-size need --backend ray"
    assert not any(tmp_path.iterdir())
