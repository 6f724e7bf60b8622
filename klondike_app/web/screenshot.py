"""Screenshots of the browser game, taken by Chromium through Playwright (for the docs).

    python -m klondike_app play --screenshot docs/images/play.png

serves a fresh table of deal 1 from a temporary database and photographs it.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]


def launch_chromium(playwright):
    """Debian's Chromium (Playwright's own browser download is not needed)."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


def take(path: Path, deal: int = 1, width: int = 1000, height: int = 720, rules=None) -> Path:
    """Photograph the opening table of ``deal`` into ``path`` (PNG)."""
    from playwright.sync_api import sync_playwright

    from klondike_app.web.app import create_app
    from klondike_app.web.serve import post_json, running_server

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        app = create_app(Path(folder) / "play.sqlite3", rules)
        with running_server(app) as url, sync_playwright() as playwright:
            browser = launch_chromium(playwright)
            page = browser.new_page(viewport={"width": width, "height": height})
            game = post_json(f"{url}/api/games", {"deal": deal})
            page.goto(f"{url}/?game={game['id']}")
            page.wait_for_selector("#col6 .card.face")
            page.screenshot(path=str(path))
            browser.close()
    return path
