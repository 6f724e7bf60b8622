"""`klondike dagger` and `klondike label-moves --out` resume: each game's row on disk as it ends,
the same command again finishes a killed run with the same files as a run never stopped (no game
twice), other settings for the same output refused in one line unless --overwrite. On
`--backend local`, and on a local Ray (2 CPUs) where Ray is installed."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest
from conftest import kill_part_way, klondike, klondike_command

from agents.evaluation import evaluate

ROOT = Path(__file__).resolve().parents[1]
BACKENDS = ["local", pytest.param("ray", marks=pytest.mark.skipif(importlib.util.find_spec("ray") is None,
                                                                    reason="Ray is not installed"))]
DAGGER = ("dagger", "--learner", "random", "--teacher", "greedy", "--max-moves", "60", "--quiet")
LABEL = ("--worlds", "1", "--nodes", "1000", "--quiet")


def _backend(name: str) -> tuple:
    return ("--workers", "1") if name == "local" else ("--backend", "ray", "--workers", "2", "--chunk-size", "1")


def _lines(path: Path) -> list[bytes]:
    """The complete rows of a CSV (a row a kill cut short is not one)."""
    data = path.read_bytes()
    return data[: data.rfind(b"\n") + 1].splitlines()[1:]


def _killed_and_finished(command: tuple, csv_path: Path, rows: int, total: int) -> list[bytes]:
    """Kill ``command`` once ``csv_path`` holds ``rows`` rows, check it stopped part-way, run it again to the end;
    the rows kept by the kill."""
    kill_part_way(klondike_command(*command), csv_path, rows)
    kept = _lines(csv_path)
    assert rows <= len(kept) < total, "the run was not killed part-way"
    finished = subprocess.run(klondike_command(*command), cwd=ROOT, capture_output=True, text=True, timeout=300,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert finished.returncode == 0, finished.stderr
    assert "resumed" in finished.stdout
    return kept


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_killed_dagger_run_finishes_as_a_run_never_stopped(backend, tmp_path):
    deals = ("--deals", "30001-30100")
    assert klondike(*DAGGER, *deals, "--workers", "1", "--out", tmp_path / "whole.csv") == 0
    out = tmp_path / "resumed.csv"
    kept = _killed_and_finished((*DAGGER, *deals, *_backend(backend), "--out", out), out, 8, 100)
    assert out.read_bytes() == (tmp_path / "whole.csv").read_bytes()  # every deal once, in deal order
    assert set(kept) <= set(_lines(out))  # the rows written before the kill, as they were
    summary = json.loads(out.with_suffix(".json").read_text())
    assert summary["complete"] and summary["games"] == 100 and summary["resumed_games"] >= len(kept)


@pytest.fixture(scope="module")
def games(tmp_path_factory) -> Path:
    """Greedy's games on six deals: a results CSV to label."""
    return Path(evaluate("greedy", "30001-30006", out_dir=tmp_path_factory.mktemp("games"), progress=False)[1]["csv"])


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_killed_label_moves_run_finishes_as_a_run_never_stopped(backend, games, tmp_path):
    assert klondike("label-moves", games, *LABEL, "--workers", "1", "--out", tmp_path / "whole.npz") == 0
    out = tmp_path / "resumed.npz"
    positions = tmp_path / "resumed.positions.csv"
    kept = _killed_and_finished(("label-moves", games, *LABEL, *_backend(backend), "--out", out), positions, 1, 6)
    assert positions.read_bytes() == (tmp_path / "whole.positions.csv").read_bytes()
    assert set(kept) <= set(_lines(positions))
    whole, resumed = np.load(tmp_path / "whole.npz"), np.load(out)
    assert sorted(resumed.files) == ["deals", "moves", "observations", "played", "shares"]
    assert all(np.array_equal(whole[name], resumed[name]) for name in whole.files)


def _refused(capsys, *argv) -> str:
    assert klondike(*argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    return err


def _files(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in folder.iterdir()}


def test_dagger_refuses_other_settings_in_one_line_unless_overwrite(tmp_path, capsys):
    out = tmp_path / "labels.csv"
    run = (*DAGGER, "--deals", "30001-30003", "--workers", "1", "--out", out)
    assert klondike(*run) == 0
    before = _files(tmp_path)
    assert sorted(before) == ["labels.csv", "labels.json"]
    assert "another run (beta 0.5, not 0.3): give another --out, or --overwrite" in _refused(capsys, *run, "--beta", "0.3")
    assert "another run (teacher 'greedy', not 'random')" in _refused(capsys, *run, "--teacher", "random")
    assert "bad --out" in _refused(capsys, *DAGGER, "--deals", "30001-30003", "--out", tmp_path / "labels.txt")
    assert _files(tmp_path) == before
    assert klondike(*run) == 0 and "3 games resumed" in capsys.readouterr().out
    assert _files(tmp_path)["labels.csv"] == before["labels.csv"]
    assert klondike(*run, "--beta", "0.3", "--overwrite") == 0
    assert json.loads(out.with_suffix(".json").read_text())["run"]["beta"] == 0.3
    # a labels CSV without its JSON (written by hand, or by another tool) is not replaced
    bare = tmp_path / "bare.csv"
    bare.write_bytes(before["labels.csv"])
    assert "exists without its bare.json" in _refused(capsys, *DAGGER, "--deals", "30001-30003", "--out", bare)
    assert bare.read_bytes() == before["labels.csv"]


def test_label_moves_refuses_other_settings_or_games_in_one_line_unless_overwrite(games, tmp_path, capsys):
    out = tmp_path / "labels.npz"
    run = ("label-moves", games, *LABEL, "--games", "2", "--workers", "1", "--out", out)
    assert klondike(*run) == 0
    before = _files(tmp_path)
    assert sorted(before) == ["labels.npz", "labels.positions.csv", "labels.positions.json"]
    assert "another run (worlds 1, not 2)" in _refused(capsys, *run, "--worlds", "2")
    assert "another run (games 2, not 3)" in _refused(capsys, *run, "--games", "3")
    assert "the file name ends in .npz" in _refused(capsys, "label-moves", games, "--out", tmp_path / "labels.csv")
    assert _files(tmp_path) == before
    assert klondike(*run) == 0 and "2 games resumed" in capsys.readouterr().out
    assert _files(tmp_path)["labels.positions.csv"] == before["labels.positions.csv"]
    assert klondike(*run, "--games", "3", "--overwrite") == 0
    assert len(set(np.load(out)["deals"].tolist())) == 3
    # a .npz whose positions CSV is not beside it is not replaced
    other = tmp_path / "other.npz"
    other.write_bytes(before["labels.npz"])
    assert "exists without its other.positions.json" in _refused(capsys, *run[:-1], other)
    assert other.read_bytes() == before["labels.npz"]
