"""Helpers of the web tests: decks built for a purpose, the browser fixtures, a clock that ticks by rule."""

from __future__ import annotations

from contextlib import contextmanager

import pytest

from conftest import build_deck
from klondike_env import card_str

SUITS = "CDHS"
FACE_UP = ["KC", "KD", "KH", "KS", "2C", "2D", "2H"]  # one per column, accepting only queens and aces


def stuck_deck(extra_stock: tuple[str, ...] = ()) -> str:
    """A deck whose seven face-up cards (kings and twos) take only queens and aces, which all lie
    face down: no card of the stock can ever be played, so once the stock has been drawn
    through the game is dead. ``extra_stock``: queens put third in the stock instead, the top of the first draw
    (a queen drawn can go on a king, and then only shuttle between the kings)."""
    aces = [f"A{s}" for s in SUITS]
    queens = [f"Q{s}" for s in SUITS if f"Q{s}" not in extra_stock]
    # jacks first, so they lie face down: a black jack could go on a red queen
    others = [f"J{s}" for s in SUITS] + [r + s for s in SUITS for r in "3456789T"] + ["2S"]
    down = aces + queens + others[: 21 - len(aces) - len(queens)]
    rest = others[21 - len(aces) - len(queens):]
    stock = rest[:2] + list(extra_stock) + rest[2:]  # an extra card is the first draw's top
    columns = {}
    downs = iter(down)
    for col in range(7):
        columns[col] = [next(downs) for _ in range(col)] + [FACE_UP[col]]
    deck = build_deck(columns, stock)
    return " ".join(card_str(card) for card in deck)


def nearly_won_deck() -> str:
    """A deck won by moving every column home, top card first (each column holds one suit,
    ace on top), then each card the stock turns up (8s to kings in rank order)."""
    ranks = "A23456789TJQK"
    columns = {
        6: [f"{ranks[r]}C" for r in range(6, -1, -1)],
        5: [f"{ranks[r]}D" for r in range(5, -1, -1)],
        4: [f"{ranks[r]}H" for r in range(4, -1, -1)],
        3: [f"{ranks[r]}S" for r in range(3, -1, -1)],
        2: ["7S", "6S", "5S"],
        1: ["7H", "6H"],
        0: ["7D"],
    }
    stock = [rank + suit for rank in "89TJQK" for suit in SUITS]
    return " ".join(card_str(card) for card in build_deck(columns, stock))



# --- browser tests ------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium driven by Playwright, one per test module."""
    from playwright.sync_api import sync_playwright

    from klondike_app.web.screenshot import launch_chromium

    with sync_playwright() as playwright:
        chromium = launch_chromium(playwright)
        yield chromium
        chromium.close()


@contextmanager
def checked_page(browser, width: int, height: int):
    """A page in a fresh context; on leaving, its browser console must have shown no error."""
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    problems = []
    page.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(str(error)))
    yield page
    context.close()
    assert problems == [], f"errors in the browser console: {problems}"


class FakeClock:
    """Seconds that advance by one at every reading: the same in every run."""

    def __init__(self):
        self.now = 1_000_000.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now
