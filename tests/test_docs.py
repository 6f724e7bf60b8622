"""The documentation site builds in strict mode: a broken link, anchor or missing page fails."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mkdocs")
pytest.importorskip("mkdocstrings")

ROOT = Path(__file__).resolve().parents[1]


def _build(config: Path, site: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(config),
         "--site-dir", str(site)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )


def test_site_builds_strictly(tmp_path):
    result = _build(ROOT / "mkdocs.yml", tmp_path / "site")
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "site" / "contract" / "index.html").is_file()
    # the API pages are generated from the docstrings, not left empty
    api = (tmp_path / "site" / "reference" / "game" / "index.html").read_text(encoding="utf-8")
    assert "sample_world" in api


def test_a_broken_link_fails_the_build(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("# Home\n\nSee [the rules](no_such_page.md).\n", encoding="utf-8")
    config = tmp_path / "mkdocs.yml"
    config.write_text(
        f"INHERIT: {ROOT / 'mkdocs.yml'}\ndocs_dir: {docs}\nnav:\n  - index.md\n", encoding="utf-8"
    )
    result = _build(config, tmp_path / "site")
    assert result.returncode != 0
    assert "no_such_page.md" in result.stdout + result.stderr


def _local_links(markdown: str) -> list[str]:
    """Targets of the relative links of a markdown text (external links and anchors left out)."""
    targets = re.findall(r"\]\(([^)\s]+)\)", markdown)
    return [t.split("#")[0] for t in targets if not re.match(r"[a-z]+:", t) and not t.startswith("#")]


@pytest.mark.parametrize("name", ["README.md", "BENCHMARK.md", "CHANGELOG.md"])
def test_the_top_level_pages_link_to_files_that_exist(name):
    text = (ROOT / name).read_text(encoding="utf-8")
    missing = [t for t in _local_links(text) if not (ROOT / t).exists()]
    assert not missing, f"{name} links to files that do not exist: {missing}"


def test_the_readme_stays_a_short_how_to():
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= 250
