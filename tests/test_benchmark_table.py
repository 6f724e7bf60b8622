"""BENCHMARK.md's and README.md's results tables are the committed summaries, never edited by hand."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from klondike_app import benchmark_table as bt

ROOT = Path(__file__).resolve().parents[1]


def test_committed_tables_equal_the_generated_ones():
    for path, text in bt.render(ROOT).items():
        assert path.read_text(encoding="utf-8") == text, (
            f"{path.name}'s results table differs from docs/results/*.json: run `klondike benchmark-table`")


def test_every_row_has_its_command_and_commit():
    summaries = bt.load_summaries(ROOT / bt.RESULTS_DIR)
    table = bt.benchmark_table(summaries).splitlines()[2:]
    assert len(table) == len(summaries)
    for row, summary in zip(table, summaries):
        assert f"`{summary['code_version']}`" in row
        assert ("`klondike evaluate " in row or "`python scripts/evaluate.py " in row) and "--seeds" in row


def _copy_repo_part(tmp_path: Path) -> Path:
    for name in ("README.md", "BENCHMARK.md"):
        shutil.copy(ROOT / name, tmp_path / name)
    shutil.copytree(ROOT / bt.RESULTS_DIR, tmp_path / bt.RESULTS_DIR)
    return tmp_path


def test_a_hand_edited_table_is_caught_and_rewritten(tmp_path, capsys):
    root = _copy_repo_part(tmp_path)
    bench = root / "BENCHMARK.md"
    committed = bench.read_text(encoding="utf-8")
    first = next(json.loads(p.read_text()) for p in sorted((root / bt.RESULTS_DIR).glob("*.json")))
    edited = committed.replace(f"{first['wins']}/{first['games']}", f"{first['wins'] + 1}/{first['games']}", 1)
    assert edited != committed
    bench.write_text(edited, encoding="utf-8")
    args = type("Args", (), {"root": root, "check": True})
    assert bt.run(args) == 1
    assert "BENCHMARK.md" in capsys.readouterr().out
    args.check = False
    assert bt.run(args) == 0
    assert bench.read_text(encoding="utf-8") == committed


def test_a_summary_without_its_games_is_refused(tmp_path):
    root = _copy_repo_part(tmp_path)
    next((root / bt.RESULTS_DIR).glob("*.csv")).unlink()
    with pytest.raises(bt.TableError, match="no per-deal CSV"):
        bt.render(root)


def test_a_persons_row_is_labelled_with_its_protocol_and_playing_time(tmp_path):
    root = _copy_repo_part(tmp_path)
    results = root / bt.RESULTS_DIR
    summary = json.loads((results / "greedy_test_draw3.json").read_text())
    summary.update(agent="human:ada", agent_spec="human:ada", seconds_per_game=95.2, cpu_seconds_per_game=0.0,
                   protocol_text="one try per deal; undo allowed and counted; no hints; auto finish on",
                   command="klondike play --seeds test --player ada --no-open --db p.sqlite3 --out docs/results")
    (results / "human-ada_test_draw3.json").write_text(json.dumps(summary))
    shutil.copy(results / "greedy_test_draw3.csv", results / "human-ada_test_draw3.csv")
    rendered = {path.name: text for path, text in bt.render(root).items()}
    rows = [line for line in rendered["BENCHMARK.md"].splitlines() if line.startswith("| `")]
    human = next(index for index, row in enumerate(rows) if row.startswith("| `human:ada`"))
    assert rows[human + 1].startswith("| `oracle`")  # people before the upper bound
    assert "**a person**: one try per deal; undo allowed and counted; no hints" in rows[human]
    assert "| 95 s of play (a person) |" in rows[human]
    assert rows[human].endswith("| `klondike play --seeds test --player ada` |")
    readme = next(line for line in rendered["README.md"].splitlines() if line.startswith("| `human:ada`"))
    assert readme.endswith("| - (a person) |")


def test_a_stock_visible_row_is_labelled_as_that_track(tmp_path):
    root = _copy_repo_part(tmp_path)
    results = root / bt.RESULTS_DIR
    hidden = next(path for path in sorted(results.glob("determinized*_test_draw3.json"))
                  if not json.loads(path.read_text())["sees_stock"])
    summary = json.loads(hidden.read_text())
    summary.update(agent_spec="determinized:see_stock=true", sees_stock=True,
                   command="klondike evaluate --agent determinized:see_stock=true --seeds test --workers 2")
    (results / "determinized-see_stock=true_test_draw3.json").write_text(json.dumps(summary))
    shutil.copy(hidden.with_suffix(".csv"), results / "determinized-see_stock=true_test_draw3.csv")
    rows = [line for line in bt.render(root)[root / "BENCHMARK.md"].splitlines() if line.startswith("| `determinized")]
    labelled = [row for row in rows if "stock-visible track" in row]
    assert len(labelled) == 1 and labelled[0].startswith("| `determinized:see_stock=true` — **stock-visible track")
