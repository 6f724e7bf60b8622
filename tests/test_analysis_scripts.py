"""`klondike analyse-losses` and `klondike label-moves`: bad input is one line, before any solving."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import klondike, klondike_command

from agents import make_agent
from agents.evaluation import load_verdicts, play_game, verdict_file, write_results
from klondike_env import Rules

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ("analyse-losses", "label-moves")


def _error_line(script: str, argv, capsys) -> str:
    """The error line of a refused command line (argparse's own after its usage line, or main's)
    from its "error: ", once the exit status is checked to be 2."""
    try:
        status = klondike(script, *argv)
    except SystemExit as exit:
        status = exit.code
    assert status == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    line = err.strip().splitlines()[-1]
    return line[line.index("error: "):]


@pytest.fixture(scope="module")
def draw1_results(tmp_path_factory) -> Path:
    """A results CSV holding a game lost under draw-1 rules on deal 4, a deal draw-3 wins."""
    record = play_game(make_agent("greedy"), 4, Rules(draw_count=1), seed=0)
    assert not record.won and load_verdicts(verdict_file(Rules()))[4] == "solved"  # else analyse_losses skips it
    folder = tmp_path_factory.mktemp("draw1")
    write_results([record], {}, folder, "greedy_draw1")
    return folder / "greedy_draw1.csv"


@pytest.mark.parametrize("script", SCRIPTS)
def test_a_game_of_other_rules_is_refused_before_the_workers(script, draw1_results):
    # a subprocess, as run by hand: a worker used to fail with a RemoteTraceback
    run = subprocess.run(klondike_command(script, draw1_results, "--workers", "1"),
                         capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert run.returncode == 2 and run.stderr.count("\n") == 1, run.stderr
    assert f"error: {draw1_results} does not replay under draw-3 standard rules, the only rules analysed here: " \
           f"deal 4, " in run.stderr


@pytest.mark.parametrize("script", SCRIPTS)
@pytest.mark.parametrize("flag,value,allowed", [
    ("--workers", "0", "an integer >= 1"), ("--nodes", "0", "an integer >= 1"), ("--nodes", "-1", "an integer >= 1"),
    ("--worlds", "-1", "an integer >= 0"),
])
def test_bad_counts_say_what_is_allowed(script, flag, value, allowed, draw1_results, capsys):
    assert _error_line(script, [str(draw1_results), flag, value], capsys) == (
        f"error: argument {flag}: expected {allowed}, got {value}")


@pytest.mark.parametrize("script", SCRIPTS)
def test_a_binary_file_or_a_bad_actions_cell_is_named(script, tmp_path, capsys):
    binary = tmp_path / "model.zip"
    binary.write_bytes(b"PK\x03\x04\xa3\xff\x00")
    assert _error_line(script, [str(binary)], capsys) == (
        f"error: {str(binary)!r} is not a text file: expected a results CSV of klondike evaluate")
    bad = tmp_path / "bad.csv"
    bad.write_text("deal,won,moves,actions\n3,0,1,0\n4,0,2,0 x\n")
    assert _error_line(script, [str(bad)], capsys) == (
        f"error: {bad} line 3: bad row (deal '4', actions '0 x'): expected a deal number and space-separated action ids")


def test_label_moves_checks_out_before_labelling(draw1_results, tmp_path, capsys):
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("")
    # the draw-1 games would be refused too: the --out check comes first
    assert _error_line("label-moves", [str(draw1_results), "--out", str(not_a_folder / "labels.npz")], capsys) == (
        f"error: bad --out '{not_a_folder / 'labels.npz'}': cannot create the folder '{not_a_folder}' (File exists)")


def test_analyse_losses_says_when_there_is_nothing_to_analyse(tmp_path, capsys):
    results = tmp_path / "results.csv"
    results.write_text("deal,won,moves,actions\n1,0,0,\n")  # deal 1 is UNSOLVABLE under draw-3
    assert klondike("analyse-losses", results, "--workers", "1") == 0
    assert capsys.readouterr().out == f"no lost game on a deal the solver wins in {results}: nothing to analyse\n"
