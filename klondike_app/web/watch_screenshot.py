"""A screenshot of the viewer, taken by Chromium through Playwright (for the docs):

    klondike watch docs/results/greedy_test_draw3.csv --deal 5 --screenshot docs/images/watch.png

shows the deal at the move before its losing move (once the solver has found it), hidden cards
revealed, or at ``--move``.
"""

from __future__ import annotations

from pathlib import Path

from klondike_app.web.screenshot import launch_chromium


def take(path: Path, app, deal: int, move: int | None = None, width: int = 1200, height: int = 860) -> Path:
    from playwright.sync_api import sync_playwright

    from klondike_app.web.serve import running_server

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with running_server(app) as url, sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        page = browser.new_page(viewport={"width": width, "height": height})
        page.goto(f"{url}/?deal={deal}&move={move or 0}&reveal=1")
        page.wait_for_selector(".board .pile[data-pile='col6'] .card")
        if move is None:
            page.wait_for_function("() => !document.getElementById('losing-text').textContent.includes('…')",
                                   timeout=120_000)
            if page.locator(".timeline-marks .mark").count():
                page.click(".timeline-marks .mark")
                page.wait_for_selector("#next-move.losing")
        page.screenshot(path=str(path))
        browser.close()
    return path
