"""The ``klondike`` command: every subcommand loads and explains itself; scripts/ only forwards to it."""

from __future__ import annotations

import argparse
import re
import subprocess
from pathlib import Path

import pytest
from conftest import klondike

from klondike_app.cli import COMMANDS

ROOT = Path(__file__).resolve().parents[1]
HISTORY = re.compile(r"session[ _-]?\d|\bpreviously\b|\bas before\b", re.IGNORECASE)


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_each_subcommand_has_help_without_development_history(command, capsys):
    with pytest.raises(SystemExit) as stop:
        klondike(command, "--help")
    assert stop.value.code == 0
    text = capsys.readouterr().out
    assert text.startswith(f"usage: klondike {command}") and "options:" in text
    assert not HISTORY.search(text), HISTORY.search(text).group()


def test_the_bare_command_lists_the_subcommands_and_fails(capsys):
    assert klondike() == 2
    text = capsys.readouterr().out
    assert all(command in text for command in COMMANDS)


def test_an_unknown_subcommand_is_one_line_naming_the_choices(capsys):
    with pytest.raises(SystemExit) as stop:
        klondike("nope")
    assert stop.value.code == 2
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert error.startswith("klondike: error: argument COMMAND: invalid choice: 'nope'") and "train" in error



def _tracked_python_files() -> list[Path]:
    listed = subprocess.run(["git", "ls-files", "-z", "*.py"], cwd=ROOT, capture_output=True, timeout=60)
    if listed.returncode != 0:
        pytest.skip("not a git checkout")
    return [ROOT / name for name in listed.stdout.decode().split("\0") if name]


def test_no_file_patches_sys_path():
    """Imports resolve through the installed package, never through a path a file adds itself."""
    patching = re.compile(r"sys\.path\s*(\.\s*(insert|append|extend)\b|\[[^\]]*\]\s*=|\s*[+]?=)")
    hits = [f"{path.relative_to(ROOT)}:{number}" for path in _tracked_python_files()
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
            if patching.search(line) and path.name != "test_klondike_command.py"]
    assert hits == []


@pytest.mark.parametrize("script", sorted((ROOT / "scripts").glob("*.py")), ids=lambda path: path.name)
def test_each_script_only_forwards_to_a_subcommand(script):
    text = script.read_text(encoding="utf-8")
    forwarded = re.search(r'main\(\["([a-z-]+)", \*sys\.argv\[1:\]\]\)', text)
    assert forwarded and forwarded.group(1) in COMMANDS
    assert len(text.splitlines()) <= 10


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_subcommand_that_takes_a_deal_takes_a_deck(command):
    """docs/contract.md: wherever a deal number is accepted, a deck may replace it (golden
    playthroughs record a deal number only, and the viewer's --deal picks a recorded game; both
    say so in their help)."""
    from klondike_app.cli import build_parser

    parser = build_parser(only=command)
    sub = next(action for action in parser._actions if isinstance(action, argparse._SubParsersAction))
    options = {flag for action in sub.choices[command]._actions for flag in action.option_strings}
    if command in ("playthrough", "watch"):
        assert "--deck" not in options and "no --deck here" in sub.choices[command].description
    elif "--deal" in options:
        assert "--deck" in options


def test_a_missing_optional_dependency_is_one_line_naming_its_extra(monkeypatch, capsys):
    import klondike_app.summarize as summarize

    def needs_matplotlib(args):
        raise ModuleNotFoundError("No module named 'matplotlib'", name="matplotlib")

    monkeypatch.setattr(summarize, "run", needs_matplotlib)
    assert klondike("summarize", "x.csv") == 2
    assert capsys.readouterr().err.strip() == ("klondike summarize: error: needs matplotlib, which is not installed: "
                                               "pip install 'klondike-env[plot]'")

    def needs_something_else(args):
        raise ModuleNotFoundError("No module named 'nothing_optional'", name="nothing_optional")

    monkeypatch.setattr(summarize, "run", needs_something_else)
    with pytest.raises(ModuleNotFoundError):  # a broken install is not hidden
        klondike("summarize", "x.csv")
