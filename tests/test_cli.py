"""klondike_env.cli: the scripts' shared argument types and path checks."""

import argparse

import pytest

from klondike_env.cli import (nonnegative_int, positive_float, positive_int, prepare_output_dir,
                              prepare_output_file, read_text)


def parser():
    p = argparse.ArgumentParser(prog="tool", exit_on_error=False)
    p.add_argument("--workers", type=positive_int)
    p.add_argument("--seed", type=nonnegative_int)
    p.add_argument("--limit", type=positive_float)
    return p


def test_argument_types_accept_what_they_allow():
    args = parser().parse_args(["--workers", "2", "--seed", "0", "--limit", "0.5"])
    assert (args.workers, args.seed, args.limit) == (2, 0, 0.5)


@pytest.mark.parametrize("argv, message", [
    (["--workers", "0"], "argument --workers: expected an integer >= 1, got 0"),
    (["--workers", "two"], "argument --workers: expected an integer >= 1, got 'two'"),
    (["--seed", "-1"], "argument --seed: expected an integer >= 0, got -1"),
    (["--limit", "0"], "argument --limit: expected a number > 0, got 0"),
    (["--limit", "nan"], "argument --limit: expected a number > 0, got nan"),
])
def test_argument_types_name_the_flag_and_the_allowed_values(argv, message):
    with pytest.raises(argparse.ArgumentError, match=message):
        parser().parse_args(argv)


def test_output_file_is_checked_without_touching_it(tmp_path):
    existing = tmp_path / "sweep.csv"
    existing.write_text("kept\n")
    assert prepare_output_file(existing, "--csv") == existing
    assert existing.read_text() == "kept\n"
    assert prepare_output_file(tmp_path / "new" / "out.csv", "--csv").parent.is_dir()
    with pytest.raises(ValueError, match="bad --csv .*: that is a folder; give a file name"):
        prepare_output_file(tmp_path, "--csv")
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(ValueError, match="bad --out .*: cannot create the folder"):
        prepare_output_dir(blocker / "sub", "--out")


def test_read_text_names_the_file_and_what_was_expected(tmp_path):
    binary = tmp_path / "model.zip"
    binary.write_bytes(b"PK\x03\x04\xa3\xff")
    with pytest.raises(ValueError, match=r"'.*model.zip' is not a text file: expected a seed file"):
        read_text(binary, "a seed file")
    with pytest.raises(ValueError, match="not found: expected a seed file"):
        read_text(tmp_path / "missing.txt", "a seed file")
    (tmp_path / "ok.txt").write_text("1\n")
    assert read_text(tmp_path / "ok.txt", "a seed file") == "1\n"
