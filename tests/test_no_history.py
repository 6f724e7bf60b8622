"""The product describes itself as it is: no development log in code, docs or file names."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# the word, then an optional space, underscore or hyphen, then a digit: a numbered working session
HISTORY = re.compile(r"session[ _-]?[0-9]", re.IGNORECASE)


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


def test_no_tracked_text_mentions_a_session():
    hits = []
    for name in _tracked_files():
        path = ROOT / name
        if not path.is_file() or path.stat().st_size > 5_000_000:
            continue
        data = path.read_bytes()
        if b"\0" in data[:8192]:  # binary (model zips, images)
            continue
        text = data.decode("utf-8", errors="replace")
        hits += [f"{name}:{text.count(chr(10), 0, m.start()) + 1}" for m in HISTORY.finditer(text)]
    assert hits == [], f"development history in: {hits[:20]}"
