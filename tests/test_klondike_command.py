"""The ``klondike`` command: every subcommand loads and explains itself; scripts/ only forwards to it."""

from __future__ import annotations

import re

import pytest
from conftest import klondike

from klondike_app.cli import COMMANDS

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

