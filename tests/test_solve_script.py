"""`klondike solve`: a sweep writes its CSV and the estimate; --merge combines sweeps; bad input is one line."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import klondike, klondike_command

from klondike_env.solver import read_verdict_rows

ROOT = Path(__file__).resolve().parents[1]
FIELDS = "deal,status,solution_length,nodes,seconds,stopped_by"


class _script:  # noqa: N801 - `klondike solve` in this process
    @staticmethod
    def main(argv):
        return klondike("solve", *argv)


def test_sweep_writes_one_row_a_deal_and_the_estimate(tmp_path):
    out = tmp_path / "sweep.csv"
    run = subprocess.run(klondike_command("solve", "--deals", "1-3,7", "--node-limit", "3000",
                          "--csv", str(out)), capture_output=True, text=True, check=True, cwd=ROOT)
    rows = list(csv.DictReader(out.open()))
    assert [int(row["deal"]) for row in rows] == [1, 2, 3, 7]
    assert all(row["status"] in ("SOLVED", "UNSOLVABLE", "UNKNOWN") for row in rows)
    assert all(int(row["nodes"]) <= 3000 for row in rows)
    solved = sum(row["status"] == "SOLVED" for row in rows)
    assert f"SOLVED {solved}," in run.stdout and "winnable (UNKNOWN as losses)" in run.stdout


def test_a_sweep_resumes_and_refuses_other_settings_in_its_csv(tmp_path, capsys):
    out = tmp_path / "sweep.csv"
    sweep = ["--deals", "1-4", "--node-limit", "2000", "--memory-mb", "8", "--csv", str(out), "--quiet"]
    assert _script().main(sweep) == 0
    complete = out.read_text()

    def verdicts():  # the rows without the seconds, which time the machine
        return [(deal, row["status"], row["nodes"]) for deal, row in read_verdict_rows(out).items()]

    solved = verdicts()
    # a sweep cut short after two deals (its last row cut by the kill): the same command finishes it
    out.write_text("\n".join(complete.splitlines()[:3]) + "\n4,SOL")
    assert _script().main(sweep) == 0
    assert verdicts() == solved and out.read_text().startswith("\n".join(complete.splitlines()[:3]))
    assert "(2 deals resumed from the CSV)" in capsys.readouterr().out
    complete = out.read_text()
    assert _script().main([*sweep[:3], "3000", *sweep[4:]]) == 2
    assert capsys.readouterr().err.strip() == (
        f"klondike solve: error: {out.with_suffix('.json')} holds another run (node_limit 2000, not 3000): "
        "give another --csv, or --overwrite to replace it")
    assert out.read_text() == complete
    assert _script().main([*sweep[:3], "3000", *sweep[4:], "--overwrite"]) == 0


def test_merge_lets_a_later_file_decide_a_deal(tmp_path, capsys):
    first, second = tmp_path / "a.csv", tmp_path / "b.csv"
    first.write_text(f"{FIELDS}\n1,SOLVED,90,10,0.1,\n2,UNKNOWN,,300,0.2,nodes\n3,UNSOLVABLE,,5,0.0,\n4,UNKNOWN,,300,0.2,nodes\n")
    second.write_text(f"{FIELDS}\n2,UNSOLVABLE,,900,0.5,\n")
    assert _script().main(["--merge", str(first), str(second)]) == 0
    out = capsys.readouterr().out
    assert "deals 4: SOLVED 1, UNSOLVABLE 2, UNKNOWN 1" in out
    assert "winnable (UNKNOWN as losses): 25.000%" in out and "winnable (UNKNOWN as wins): 50.000%" in out


def test_merge_writes_the_merged_rows_in_deal_order(tmp_path, capsys):
    first, second, merged = tmp_path / "a.csv", tmp_path / "b.csv", tmp_path / "merged.csv"
    first.write_text(f"{FIELDS}\n3,UNSOLVABLE,,5,0.0,\n1,SOLVED,90,10,0.1,\n2,UNKNOWN,,300,0.2,nodes\n")
    second.write_text(f"{FIELDS}\n2,SOLVED,120,900,0.5,\n")
    assert _script().main(["--merge", str(first), str(second), "--csv", str(merged)]) == 0
    assert f"merged CSV {merged}" in capsys.readouterr().out
    assert merged.read_text().splitlines() == [FIELDS, "1,SOLVED,90,10,0.1,", "2,SOLVED,120,900,0.5,",
                                               "3,UNSOLVABLE,,5,0.0,"]
    # the merged file reads back as a verdict file
    assert read_verdict_rows(merged)[2]["nodes"] == "900"


@pytest.mark.parametrize("argv,message", [
    (["--deals", "9-3"], "bad --deals range '9-3': the end is below the start"),
    (["--deals", "x"], "bad --deals 'x': expected ranges such as 1-1000 or 1-10,20,30-32"),
    (["--merge", "missing.csv"], "cannot read sweep CSV missing.csv: No such file or directory"),
])
def test_bad_input_is_one_line(argv, message, capsys):
    assert _script().main(argv) == 2
    assert capsys.readouterr().err.strip().removeprefix("klondike solve: ") == f"error: {message}"


def test_merge_refuses_a_file_that_is_not_a_sweep(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("deal,won\n1,True\n")
    assert _script().main(["--merge", str(bad)]) == 2
    assert capsys.readouterr().err.strip().removeprefix("klondike solve: ") == (
        f"error: bad sweep CSV {bad}: it needs the columns deal and status (klondike solve --csv writes {FIELDS})")


def test_merge_names_the_line_of_a_bad_deal_cell(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text(f"{FIELDS}\n1,SOLVED,90,10,0.1,\nseven,UNSOLVABLE,,5,0.0,\n")
    assert _script().main(["--merge", str(bad)]) == 2
    assert capsys.readouterr().err.strip().removeprefix("klondike solve: ") == f"error: bad sweep CSV {bad} line 3: deal 'seven' is not a deal number"


def test_merge_keeps_a_verdict_that_a_later_file_left_unknown(tmp_path, capsys):
    first, second = tmp_path / "a.csv", tmp_path / "b.csv"
    first.write_text(f"{FIELDS}\n1,SOLVED,90,10,0.1,\n2,UNSOLVABLE,,5,0.0,\n")
    second.write_text(f"{FIELDS}\n1,UNKNOWN,,300,0.2,nodes\n2,UNSOLVABLE,,7,0.0,\n3,UNKNOWN,,300,0.2,nodes\n")
    assert _script().main(["--merge", str(first), str(second)]) == 0
    assert "deals 3: SOLVED 1, UNSOLVABLE 1, UNKNOWN 1" in capsys.readouterr().out


def test_merge_refuses_files_that_decide_a_deal_differently(tmp_path, capsys):
    first, second = tmp_path / "a.csv", tmp_path / "b.csv"
    first.write_text(f"{FIELDS}\n1,SOLVED,90,10,0.1,\n")
    second.write_text(f"{FIELDS}\n1,UNSOLVABLE,,7,0.0,\n")
    assert _script().main(["--merge", str(first), str(second)]) == 2
    assert capsys.readouterr().err.strip().removeprefix("klondike solve: ") == f"error: deal 1 is SOLVED in {first} but UNSOLVABLE in {second}"


def _error_line(argv, capsys) -> str:
    """The error line of a refused command line (argparse's own after its usage line, or main's)
    from its "error: ", once the exit status is checked to be 2."""
    try:
        status = _script().main(argv)
    except SystemExit as exit:
        status = exit.code
    assert status == 2
    line = capsys.readouterr().err.strip().splitlines()[-1]
    return line[line.index("error: "):]  # argparse starts with the program's name, not solve.py here


@pytest.mark.parametrize("argv,message", [
    (["--time-limit", "-1"], "argument --time-limit: expected a number > 0, got -1"),
    (["--node-limit", "0"], "argument --node-limit: expected an integer >= 1, got 0"),
    (["--memory-mb", "0.5"], "argument --memory-mb: expected a number of MB >= 1, got '0.5'"),
    (["--workers", "0"], "argument --workers: expected an integer >= 1, got 0"),
])
def test_bad_limits_leave_an_existing_csv_as_it_was(argv, message, tmp_path, capsys):
    existing = tmp_path / "existing.csv"
    existing.write_text(f"{FIELDS}\n1,SOLVED,90,10,0.1,\n")
    assert _error_line(["--deals", "1-2", "--csv", str(existing), *argv], capsys) == f"error: {message}"
    assert existing.read_text() == f"{FIELDS}\n1,SOLVED,90,10,0.1,\n"


@pytest.mark.parametrize("limit", [["--memory-mb", "0"], ["--node-limit", "-5"]])
def test_a_bad_limit_stops_a_sweep_before_its_pool(limit, tmp_path):
    # a limit that failed in the pool's initializer had the pool respawn workers forever
    run = subprocess.run(klondike_command("solve", "--deals", "1-2", "--workers", "2",
                          "--csv", str(tmp_path / "out.csv"), *limit), capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert run.stderr.strip().splitlines()[-1].startswith(f"klondike solve: error: argument {limit[0]}: expected ")
    assert not (tmp_path / "out.csv").exists()


def test_one_deal_with_a_bad_node_limit_says_what_is_allowed(capsys):
    assert _error_line(["--deal", "1", "--node-limit", "-5"], capsys) == (
        "error: argument --node-limit: expected an integer >= 1, got -5")


def test_an_unwritable_csv_or_a_binary_merge_input_is_one_line(tmp_path, capsys):
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("")
    line = _error_line(["--deals", "1-2", "--csv", str(not_a_folder / "x.csv")], capsys)
    assert line.startswith(f"error: bad --csv '{not_a_folder / 'x.csv'}': cannot create the folder '{not_a_folder}'")
    binary = tmp_path / "model.zip"
    binary.write_bytes(b"PK\x03\x04\xa3\xff\x00")
    assert _error_line(["--merge", str(binary)], capsys) == (
        f"error: bad sweep CSV {binary}: not a text file (klondike solve --csv writes {FIELDS})")


def test_a_deck_is_solved_and_its_moves_name_their_cards(capsys):
    # deal 3's deck, given as card text and as a 156-digit deck string: the same verdict and line
    from klondike_env import deal_deck, deck_string
    from klondike_env.cards import deck_text

    outputs = []
    for deck in (deck_text(deal_deck(3)), deck_string(deal_deck(3))):
        assert _script().main(["--deck", deck, "--memory-mb", "16", "--node-limit", "100000"]) == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0].split("\n", 1)[1] == outputs[1].split("\n", 1)[1]  # (the first line has the time)
    assert outputs[0].startswith("deck (") and ": SOLVED in " in outputs[0]
    assert outputs[0].rstrip().endswith("won: True after 142 actions")
    assert " 1. col 0 AD -> foundation" in outputs[0]  # the card that moves is named
    dealt = _script().main(["--deal", "3", "--memory-mb", "16", "--node-limit", "100000"])
    assert dealt == 0 and capsys.readouterr().out.split("\n", 1)[1] == outputs[0].split("\n", 1)[1]


@pytest.mark.parametrize("deck, message", [
    ("AD AH 6S", "bad deck: it has 3 cards, a deck has exactly 52"),
    ("123", "bad deck string: it has 3 digits, a Klondike-Solver deck string has 156 (52 x RRS)"),
    (" ".join(["AD"] * 52), "bad deck: card AD appears twice; a deck has 52 distinct cards"),
])
def test_a_bad_deck_is_one_line(deck, message, capsys):
    assert _script().main(["--deck", deck]) == 2
    assert capsys.readouterr().err.strip().removeprefix("klondike solve: ") == f"error: {message}"
