"""The product describes itself as it is: no development log in code, docs or file names."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# the word, then an optional space, underscore or hyphen, then a digit: a numbered working session
HISTORY = re.compile(r"session[ _-]?[0-9]", re.IGNORECASE)
# the contract lives in the repository (docs/contract.md), not in a file outside it
OUTSIDE_SPEC = re.compile(r"SPEC\.md|shared folder", re.IGNORECASE)


def _tracked_files() -> list[str]:
    try:
        result = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, timeout=60)
    except OSError:
        pytest.skip("git is not available")
    if result.returncode != 0:
        pytest.skip("not a git checkout")
    return [name for name in result.stdout.decode("utf-8").split("\0") if name]


def test_no_tracked_path_names_a_session():
    assert [name for name in _tracked_files() if "session" in name.lower()] == []


def _tracked_texts():
    """(name, text) of every tracked text file (binary files such as model zips and images skipped)."""
    for name in _tracked_files():
        path = ROOT / name
        if not path.is_file() or path.stat().st_size > 5_000_000:
            continue
        data = path.read_bytes()
        if b"\0" not in data[:8192]:
            yield name, data.decode("utf-8", errors="replace")


def _hits(pattern: re.Pattern, skip: str = "") -> list[str]:
    return [f"{name}:{text.count(chr(10), 0, m.start()) + 1}" for name, text in _tracked_texts() if name != skip
            for m in pattern.finditer(text)]


def test_no_tracked_text_mentions_a_session():
    hits = _hits(HISTORY)
    assert hits == [], f"development history in: {hits[:20]}"


def test_no_tracked_text_cites_a_contract_outside_the_repository():
    hits = _hits(OUTSIDE_SPEC, skip="tests/test_no_history.py")
    assert hits == [], f"cites a file outside the repository: {hits[:20]}"
