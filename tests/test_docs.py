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


def test_the_readme_and_docs_show_the_klondike_command_not_the_scripts():
    """Recorded commands of benchmark rows and dated experiment records keep what ran; the
    how-to pages show the command a user types."""
    pages = [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").glob("*.md")),
             *sorted((ROOT / "docs" / "agents").glob("*.md"))]
    script = re.compile(r"scripts/\w+\.py")
    recorded = ("with the same arguments", "ran as", "scripts/NAME.py")  # what ran at an older commit, or the wrappers
    hits = [f"{page.relative_to(ROOT)}:{number}" for page in pages
            for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1)
            if script.search(line) and not any(words in line for words in recorded)]
    benchmark = (ROOT / "BENCHMARK.md").read_text(encoding="utf-8").splitlines()
    hits += [f"BENCHMARK.md:{number}" for number, line in enumerate(benchmark, 1)  # generated rows: recorded commands
             if script.search(line) and not line.startswith("| `") and "with the same arguments" not in line]
    assert hits == []


def test_the_readme_links_the_main_docs_pages_and_shows_the_browser_game():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    for page in ("docs/solver.md", "docs/web.md", "docs/agents/custom.md", "docs/training.md#training-from-python-the-fast-path",
                 "docs/images/play.png"):
        assert f"]({page})" in text, page
    assert "klondike play" in text


def test_the_docs_index_links_every_page():
    index = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    pages = {str(p.relative_to(ROOT / "docs")) for p in (ROOT / "docs").glob("*.md")} - {"index.md"}
    pages |= {str(p.relative_to(ROOT / "docs")) for p in (ROOT / "docs").glob("*/*.md") if p.parent.name in ("agents", "reference")}
    pages.add("experiments/index.md")
    assert sorted(page for page in pages if f"]({page})" not in index) == []


def test_the_training_page_lists_the_shipped_configs():
    text = (ROOT / "docs" / "training.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"(?<![\w/])configs/([\w.-]+\.yaml)", text))
    shipped = {path.name for path in (ROOT / "configs").glob("*.yaml")}
    assert listed == shipped
