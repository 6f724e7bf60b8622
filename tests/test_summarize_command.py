"""klondike summarize: a summary rebuilt from a per-deal results CSV, printed and written beside it;
bad input is one line."""

from __future__ import annotations

import json

import pytest
from conftest import klondike

from agents.evaluation import evaluate


@pytest.fixture(scope="module")
def greedy_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("results")
    json_path, summary = evaluate("greedy", "1-5", max_moves=60, out_dir=out, progress=False)
    return json_path, summary


def test_summarize_rebuilds_the_json_from_the_rows(greedy_run, capsys):
    json_path, summary = greedy_run
    json_path.unlink()  # the summary is lost; the rows are on disk
    assert klondike("summarize", summary["csv"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out[-1] == str(json_path)
    assert any(line.startswith("| greedy |") or line.startswith(f"| {json_path.with_suffix('').name} |") for line in out)
    rebuilt = json.loads(json_path.read_text())
    assert (rebuilt["games"], rebuilt["wins"], rebuilt["deals"]) == (5, summary["wins"], "1-5")
    assert rebuilt["win_rate_ci95"] == summary["win_rate_ci95"]


def test_summarize_no_write_leaves_the_json_as_it_was(greedy_run, capsys):
    json_path, summary = greedy_run
    json_path.write_text(json.dumps({**summary, "note": "kept"}))
    before = json_path.read_text()
    assert klondike("summarize", summary["csv"], "--no-write") == 0
    assert json_path.read_text() == before
    assert "| greedy |" in capsys.readouterr().out


@pytest.mark.parametrize("make, message", [
    (lambda tmp: tmp / "missing.csv", "is not a results CSV: give the .csv file"),
    (lambda tmp: tmp / "summary.json", "is not a results CSV: give the .csv file"),
    (lambda tmp: tmp / "other.csv", "has no 'moves' column"),
])
def test_summarize_bad_input_is_one_line(make, message, tmp_path, capsys):
    (tmp_path / "summary.json").write_text("{}")
    (tmp_path / "other.csv").write_text("deal,won\n1,0\n")
    assert klondike("summarize", make(tmp_path)) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("klondike summarize: error:") and message in err and "\n" not in err


def test_summarize_bad_rules_are_one_line(greedy_run, capsys):
    assert klondike("summarize", greedy_run[1]["csv"], "--draw", "2", "--no-write") == 2
    err = capsys.readouterr().err.strip()
    assert err == "klondike summarize: error: bad rules option draw_count=2: allowed values are 1 and 3"
