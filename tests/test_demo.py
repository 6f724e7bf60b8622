"""scripts/demo.py: plays a deal to its end; bad input is one line and exit code 2."""

import subprocess
import sys
from pathlib import Path

import pytest

DEMO = Path(__file__).resolve().parent.parent / "scripts" / "demo.py"


def run_demo(*args):
    return subprocess.run([sys.executable, str(DEMO), *args], capture_output=True, text=True, timeout=300)


def test_demo_plays_a_deal_to_its_end():
    result = run_demo("--deal", "6", "--every", "1000")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("deal 6, draw 3, agent greedy")
    assert "Final board (" in result.stdout and "Foundations" in result.stdout


@pytest.mark.parametrize("args, message", [
    (["--agent", "nobody"], "unknown agent 'nobody'"),
    (["--draw", "2"], "draw_count=2: allowed values are 1 and 3"),
    (["--deal", "-1"], "bad deal number -1"),
    (["--deck", "AS KS"], "bad deck: it has 2 cards"),
])
def test_demo_bad_input_is_one_line(args, message):
    result = run_demo(*args)
    assert result.returncode == 2
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1
