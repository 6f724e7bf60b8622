"""klondike same-rows: two runs' per-deal rows compared, timing aside; bad input is one line."""

from __future__ import annotations

import pytest
from conftest import klondike

HEADER = "deal,won,moves,seconds,cpu_seconds\n"


def test_the_same_rows_in_another_order_and_timing_match(tmp_path, capsys):
    (tmp_path / "a.csv").write_text(HEADER + "1,1,90,0.5,0.4\n2,0,40,0.1,0.1\n")
    (tmp_path / "b.csv").write_text(HEADER + "2,0,40,0.3,0.2\n1,1,90,0.7,0.6\n")
    assert klondike("same-rows", tmp_path / "a.csv", tmp_path / "b.csv") == 0
    assert capsys.readouterr().out.startswith("2 and 2 deals; 2 rows identical (timing columns aside), 0 differ")


def test_a_differing_row_and_a_missing_deal_are_named(tmp_path, capsys):
    (tmp_path / "a.csv").write_text(HEADER + "1,1,90,0.5,0.4\n2,0,40,0.1,0.1\n3,0,7,0,0\n")
    (tmp_path / "b.csv").write_text(HEADER + "1,1,91,0.5,0.4\n2,0,40,0.1,0.1\n")
    assert klondike("same-rows", tmp_path / "a.csv", tmp_path / "b.csv") == 1
    out = capsys.readouterr().out.splitlines()
    assert out == ["3 and 2 deals; 1 rows identical (timing columns aside), 1 differ, 1 in one file only",
                   "deal 1: moves '90' / '91'"]


def test_sweep_rows_that_a_time_limit_stopped_are_counted(tmp_path, capsys):
    sweep = "deal,status,solution_length,nodes,seconds,stopped_by\n"
    (tmp_path / "a.csv").write_text(sweep + "1,SOLVED,90,10,0.1,\n2,UNKNOWN,,500,10.0,time\n")
    (tmp_path / "b.csv").write_text(sweep + "2,UNKNOWN,,400,10.2,time\n1,SOLVED,90,10,0.3,\n")
    assert klondike("same-rows", tmp_path / "a.csv", tmp_path / "b.csv") == 1
    assert capsys.readouterr().out.splitlines()[1:] == [
        "1 of the 1 that differ were stopped by the time limit in one file or both "
        "(a time limit depends on the machine's speed and load)",
        "deal 2: nodes '500' / '400'; stopped by time / time"]


@pytest.mark.parametrize("content, message", [
    (None, "cannot read"),
    ("name,won\nx,1\n", "has no 'deal' column"),
    (HEADER + "1,1,90,0,0\n1,1,90,0,0\n", "a deal has more than one row"),
])
def test_bad_input_is_one_line(content, message, tmp_path, capsys):
    good = tmp_path / "good.csv"
    good.write_text(HEADER + "1,1,90,0,0\n")
    bad = tmp_path / "bad.csv"
    if content is not None:
        bad.write_text(content)
    assert klondike("same-rows", good, bad) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("klondike same-rows: error:") and message in err and "\n" not in err
