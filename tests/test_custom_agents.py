"""Bring your own agent: a class from a file outside the repository, and a policy function,
scored by the harness into the same results files as a built-in agent."""

from __future__ import annotations

import csv
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from agents.base import AgentOptionError
from agents.evaluation import evaluate
from agents.function_policy import evaluate_function
from agents.registry import AGENTS, make_agent

ROOT = Path(__file__).resolve().parents[1]
DEALS = "1-3"


def documented_example() -> str:
    """The agent file of docs/agents/custom.md, as printed there."""
    page = (ROOT / "docs" / "agents" / "custom.md").read_text(encoding="utf-8")
    return re.search(r"```python\n(\"\"\"foundation_first\.py.*?)```", page, re.DOTALL).group(1)


@pytest.fixture
def outside(tmp_path) -> Path:
    folder = tmp_path / "my_agents"
    folder.mkdir()
    (folder / "foundation_first.py").write_text(documented_example(), encoding="utf-8")
    assert ROOT not in folder.parents
    return folder


def files_of(json_path: Path) -> tuple[list[str], set[str], list[list[str]]]:
    with open(json_path.with_suffix(".csv"), newline="") as handle:
        rows = list(csv.reader(handle))
    return rows[0], set(json.loads(json_path.read_text())), rows[1:]


def test_the_documented_example_is_twenty_lines_or_so():
    assert len(documented_example().strip().splitlines()) <= 22


def test_a_class_on_the_python_path_evaluates_like_a_built_in_agent(outside, tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(outside))
    mine, _ = evaluate("foundation_first:FoundationFirst", DEALS, out_dir=tmp_path / "mine", progress=False)
    theirs, _ = evaluate("greedy", DEALS, out_dir=tmp_path / "greedy", progress=False)
    header, keys, rows = files_of(mine)
    assert (header, keys) == files_of(theirs)[:2]
    assert mine.name == "foundation-first_1-3_draw3.json" and [row[0] for row in rows] == ["1", "2", "3"]


def test_a_file_path_with_options_and_worker_processes(outside, tmp_path):
    spec = f"{outside / 'foundation_first.py'}:FoundationFirst:flip_first=false"
    one, summary = evaluate(spec, DEALS, out_dir=tmp_path / "one", progress=False)
    two, _ = evaluate(spec, DEALS, out_dir=tmp_path / "two", workers=2, progress=False)
    assert summary["agent"] == "foundation-first:flip_first=false"
    header, _, rows = files_of(one)
    games = [[row[i] for i, column in enumerate(header) if "seconds" not in column] for row in rows]
    assert games == [[row[i] for i, column in enumerate(header) if "seconds" not in column]
                     for row in files_of(two)[2]]  # the same games wherever they are played


def test_the_command_line_takes_the_class_through_pythonpath(outside, tmp_path):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(outside), str(ROOT)]))
    run = subprocess.run([sys.executable, "-m", "klondike_app", "evaluate", "--agent",
                          "foundation_first:FoundationFirst", "--seeds", DEALS, "--workers", "1", "--quiet",
                          "--out", str(tmp_path)], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600)
    assert run.returncode == 0, run.stderr
    assert Path(run.stdout.strip().splitlines()[-1]).name == "foundation-first_1-3_draw3.json"


@pytest.mark.parametrize("spec, message", [
    ("no_such_module:Agent", "cannot import no_such_module"),
    ("agents.greedy:NoSuchClass", "'NoSuchClass' in agents.greedy is not found"),
    ("agents.base:PlayerView", "'PlayerView' in agents.base is not a subclass of agents.base.Agent"),
    ("/no/such/file.py:Agent", "no file /no/such/file.py"),
    ("agents.greedy:GreedyAgent:depth=2", "unknown option 'depth'"),
])
def test_a_bad_class_spec_is_one_line_naming_the_problem(spec, message):
    with pytest.raises(AgentOptionError, match=re.escape(message)) as error:
        make_agent(spec)
    assert "\n" not in str(error.value)


def test_a_policy_function_writes_the_same_files(tmp_path):
    seen = []

    def last_legal(observation, action_mask):
        seen.append(observation.shape)
        return int(np.flatnonzero(action_mask)[-1])

    mine, summary = evaluate_function(last_legal, DEALS, name="last-legal", out_dir=tmp_path, progress=False)
    theirs, _ = evaluate("random", DEALS, out_dir=tmp_path, progress=False)
    assert files_of(mine)[:2] == files_of(theirs)[:2]
    assert summary["agent"] == "last-legal" and summary["games"] == 3 and seen
    assert "last-legal" not in AGENTS  # registered for the run only


def test_a_policy_function_may_not_see_hidden_cards(tmp_path):
    with pytest.raises(ValueError, match="shows hidden cards"):
        evaluate_function(lambda obs, mask: 0, DEALS, observation="full", out_dir=tmp_path, progress=False)
