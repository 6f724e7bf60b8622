"""`klondike ray-costs`: what a local Ray costs here, and a run's measured cost spread over N workers."""

from __future__ import annotations

import json
import re

import pytest

from klondike_app.cli import main


def test_scale_out_divides_the_measured_cost_over_workers(tmp_path, capsys):
    summary = tmp_path / "run.json"
    summary.write_text(json.dumps({"jobs": {"backend": "ray", "jobs": 100, "cpu_seconds_per_job": 3.6}}))
    assert main(["ray-costs", "scale-out", str(summary), "--task-ms", "36", "--price", "0.05", "--workers", "1,10"]) == 0
    rows = capsys.readouterr().out.splitlines()[-2:]
    # 3.6 s a deal plus 1% for the task (36 ms over a 3.6 s task): 990 deals an hour a worker, $0.0505 a deal-hour
    assert rows == ["| 1 | 990 | 1,010.0 | $50.50 |", "| 10 | 9,901 | 101.0 | $50.50 |"]
    assert main(["ray-costs", "scale-out", str(tmp_path / "none.json"), "--task-ms", "1", "--price", "1"]) == 2


def test_overhead_times_a_local_rays_start_its_tasks_and_its_shutdown(capsys):
    pytest.importorskip("ray")
    assert main(["ray-costs", "overhead", "--tasks", "6", "--workers", "1"]) == 0
    line = capsys.readouterr().out.strip().splitlines()[-1]
    assert re.fullmatch(r"ray\.init \d+\.\d s; first tasks \(workers starting\) \d+\.\d s; 6 empty tasks in \d+\.\d\d s "
                        r"on 1 workers: \d+\.\d ms of a worker per task; ray\.shutdown \d+\.\d s", line), line
