"""The viewer of recorded games (``klondike watch``) in a real browser: Playwright driving
Debian's Chromium against the viewer over a committed results file."""

from __future__ import annotations

import os
import re
import shutil
from concurrent.futures import ThreadPoolExecutor

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
sync_api = pytest.importorskip("playwright.sync_api")

from klondike_app.web.app import create_watch_app  # noqa: E402
from klondike_app.web.replays import load_results  # noqa: E402
from klondike_app.web.screenshot import CHROMIUM  # noqa: E402
from klondike_app.web.serve import running_server  # noqa: E402
from klondike_app.web.watch_analysis import Analyses  # noqa: E402
from klondike_env import card_str  # noqa: E402
from web_support import browser, checked_page  # noqa: E402,F401 (browser: a fixture)
from test_watch_api import GREEDY, LOSING_MOVE, LOST_DEAL, NODES, RANDOM  # noqa: E402

if not shutil.which(CHROMIUM) and not os.path.exists(CHROMIUM):
    pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium)", allow_module_level=True)

expect = sync_api.expect


@pytest.fixture(scope="module")
def greedy():
    return load_results(GREEDY)


@pytest.fixture(scope="module")
def server(greedy):
    app = create_watch_app([greedy], Analyses(None, nodes=NODES, executor=ThreadPoolExecutor(1)))
    with running_server(app) as url:
        yield url


@pytest.fixture
def page(browser):
    with checked_page(browser, 1200, 800) as page:
        yield page


def shown_columns(page, board: int = 0) -> list[list]:
    """Each column as drawn: a face's text, None for a back, ("revealed", text) for a revealed card."""
    return page.evaluate("""board => [...document.querySelectorAll('.board')[board].querySelectorAll('.pile.column')]
        .map(pile => [...pile.querySelectorAll('.card')].map(card =>
            card.classList.contains('revealed') ? ['revealed', card.dataset.card] : (card.dataset.card ?? null)))""",
                         board)


def true_columns(game, reveal: bool) -> list[list]:
    return [[card_str(c) if up else (["revealed", card_str(c)] if reveal else None) for c, up in column]
            for column in game.tableau]


def go_to(page, move: int):
    page.fill("#move-number", str(move))
    page.press("#move-number", "Enter")
    expect(page.locator(".board-status").first).to_contain_text(f"move {move} of")


def test_stepping_shows_the_game_replayed(page, server, greedy):
    replay = greedy.replays[LOST_DEAL]
    page.goto(f"{server}/?deal={LOST_DEAL}")
    expect(page.locator("#deal-rows tr.selected")).to_have_attribute("data-deal", str(LOST_DEAL))
    expect(page.locator(".board-status")).to_contain_text("move 0 of")
    assert shown_columns(page) == true_columns(replay.game_at(0), False)
    for _ in range(3):
        page.click("#btn-forward")
    expect(page.locator(".board-status")).to_contain_text("move 3 of")
    assert shown_columns(page) == true_columns(replay.game_at(3), False)
    page.keyboard.press("ArrowLeft")
    expect(page.locator(".board-status")).to_contain_text("move 2 of")
    go_to(page, 37)
    assert shown_columns(page) == true_columns(replay.game_at(37), False)
    game = replay.game_at(37)
    expect(page.locator("#next-move")).to_contain_text(game.action_name(replay.actions[37]))
    assert page.locator(".board .card.next-card, .board .pile.next-source").count() >= 1


def test_reveal_shows_the_true_hidden_cards_only_when_on(page, server, greedy):
    game = greedy.replays[LOST_DEAL].game_at(20)
    page.goto(f"{server}/?deal={LOST_DEAL}&move=20")
    expect(page.locator(".board-status")).to_contain_text("move 20 of")
    assert shown_columns(page) == true_columns(game, False)
    assert page.locator(".stock-reveal").is_hidden() and page.locator("#reveal-note").is_hidden()
    page.check("#reveal")
    expect(page.locator(".card.revealed").first).to_be_visible()
    assert shown_columns(page) == true_columns(game, True)
    expect(page.locator("#reveal-note")).to_contain_text("did not see")
    stock = page.eval_on_selector_all(".stock-cards .mini", "cards => cards.map(card => card.dataset.card)")
    assert stock == [card_str(card) for card in game.stock]
    page.uncheck("#reveal")
    expect(page.locator(".card.revealed")).to_have_count(0)
    expect(page.locator("#reveal-note")).to_be_hidden()
    assert shown_columns(page) == true_columns(game, False)


def test_the_losing_move_is_marked(page, server):
    page.goto(f"{server}/?deal={LOST_DEAL}")
    mark = page.locator("#losing-mark-0")
    expect(mark).to_have_attribute("data-move", str(LOSING_MOVE), timeout=60_000)
    expect(page.locator("#losing-text")).to_contain_text(f"losing move {LOSING_MOVE}")
    expect(page.locator(f'#deal-rows tr[data-deal="{LOST_DEAL}"]')).to_contain_text(f"✕{LOSING_MOVE}")
    mark.click()
    expect(page.locator(".board-status")).to_contain_text(f"move {LOSING_MOVE - 1} of")
    expect(page.locator("#next-move")).to_have_class(re.compile(r"\blosing\b"))


def test_two_files_side_by_side_in_step(page, greedy):
    app = create_watch_app([greedy, load_results(RANDOM)], Analyses(None, executor=ThreadPoolExecutor(1)))
    with running_server(app) as url:
        page.goto(url)
        first = page.locator("#deal-rows tr").first
        expect(first).to_have_class(re.compile(r"\bonly\b"))  # a deal only one of them won comes first
        expect(page.locator(".board")).to_have_count(2)
        deal = int(first.get_attribute("data-deal"))
        for board in range(2):  # both replays loaded, so a jump is not undone by a load still on its way
            expect(page.locator(".board-status").nth(board)).to_contain_text("move 0 of")
        go_to(page, 5)
        for index, results in enumerate((greedy, load_results(RANDOM))):
            replay = results.replays[deal]
            moves = min(5, len(replay.actions))
            assert shown_columns(page, index) == true_columns(replay.game_at(moves), False)
        expect(page.locator("#paired-table")).to_contain_text("only A won")
        page.goto("about:blank")  # the page stops polling before its server goes
