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
        assert "python " in row and "--seeds" in row


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
