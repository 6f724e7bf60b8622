"""The browser game in a real browser: Playwright driving Debian's Chromium against a uvicorn
server on a free localhost port. Every test also requires a clean browser console."""

from __future__ import annotations

import os
import shutil

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
sync_api = pytest.importorskip("playwright.sync_api")

from conftest import build_deck  # noqa: E402
from klondike_app.web.app import create_app  # noqa: E402
from klondike_app.web.screenshot import CHROMIUM  # noqa: E402
from klondike_app.web.serve import free_port, post_json, running_server  # noqa: E402
from klondike_env import card_str  # noqa: E402
from web_support import browser, checked_page, nearly_won_deck, stuck_deck  # noqa: E402,F401 (browser: a fixture)

if not shutil.which(CHROMIUM) and not os.path.exists(CHROMIUM):
    # CI installs Debian's chromium (.ci/run), so this skip is for machines without it
    pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium)", allow_module_level=True)

TWO_WAYS = " ".join(card_str(c) for c in build_deck({0: ["9S"], 1: ["9C"], 2: ["8H"], 3: ["TD"], 4: ["KS"], 5: ["KC"], 6: ["QS"]}))


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    app = create_app(tmp_path_factory.mktemp("web") / "play.sqlite3")
    with running_server(app) as url:
        yield url


@pytest.fixture
def page(browser):
    with checked_page(browser, 1000, 760) as page:
        yield page


def open_game(page, server, **body) -> dict:
    game = post_json(f"{server}/api/games", body)
    page.goto(f"{server}/?game={game['id']}")
    page.wait_for_selector("#col6 .card")
    return game


def column(page, index: int) -> list:
    """The column's cards as the page draws them: text, or None for a back."""
    return page.eval_on_selector_all(f"#col{index} .card", "cards => cards.map(c => c.dataset.card ?? null)")


def waste_top(page):
    return page.eval_on_selector_all("#waste .card", "cards => cards.length ? cards[cards.length - 1].dataset.card : null")


def wait_moves(page, moves: int):
    sync_api.expect(page.locator("#status-moves")).to_have_text(f"Moves {moves}")


def test_deal_1_opening_table(page, server):
    open_game(page, server, deal=1)
    assert column(page, 0) == ["7D"]
    assert column(page, 6) == [None] * 6 + ["8S"]
    assert page.text_content("#deal-number") == "1"
    assert page.text_content("#stock .count") == "24"
    assert page.text_content("#status-pass").startswith("Pass 1")


def test_draw_by_click_and_by_space(page, server):
    open_game(page, server, deal=1)
    page.click("#stock")
    wait_moves(page, 1)
    assert waste_top(page) == "6C" and page.text_content("#stock .count") == "21"
    page.locator("body").focus()
    page.evaluate("document.activeElement.blur()")
    page.keyboard.press("Space")
    wait_moves(page, 2)
    assert page.text_content("#stock .count") == "18"
    assert page.locator("#waste .card").count() >= 3  # the last draw fanned


def test_single_click_moves_a_card_with_one_destination_and_u_undoes(page, server):
    open_game(page, server, deal=1)
    page.click("#col0 .card")
    wait_moves(page, 1)
    assert column(page, 0) == [] and column(page, 6)[-2:] == ["8S", "7D"]
    page.keyboard.press("u")
    wait_moves(page, 0)
    assert column(page, 0) == ["7D"] and column(page, 6)[-1] == "8S"


def test_click_click_and_drag(page, server):
    open_game(page, server, deck=TWO_WAYS)
    page.click("#col2 .card.face")  # 8H fits on 9S and on 9C: picked up, both marked
    assert page.locator(".pile.target").count() == 2
    page.click("#col1 .card.face")
    wait_moves(page, 1)
    assert column(page, 1)[-2:] == ["9C", "8H"]
    # drag the 8H on to the 9S
    source = page.locator("#col1 .card.face").last.bounding_box()
    target = page.locator("#col0 .card.face").last.bounding_box()
    page.mouse.move(source["x"] + 20, source["y"] + 20)
    page.mouse.down()
    page.mouse.move(target["x"] + 25, target["y"] + 30, steps=8)
    page.mouse.up()
    wait_moves(page, 2)
    assert column(page, 0)[-2:] == ["9S", "8H"]
    # an illegal drop springs back with the engine's reason
    source = page.locator("#col5 .card.face").last.bounding_box()  # KC onto the TD: refused
    target = page.locator("#col3 .card.face").last.bounding_box()
    page.mouse.move(source["x"] + 20, source["y"] + 20)
    page.mouse.down()
    page.mouse.move(target["x"] + 25, target["y"] + 30, steps=8)
    page.mouse.up()
    sync_api.expect(page.locator("#message")).to_have_class("error")
    assert "illegal action" in page.text_content("#message")
    assert column(page, 5)[-1] == "KC" and column(page, 3)[-1] == "TD"


def test_keyboard_picks_up_puts_down_and_chooses_where_a_run_starts(page, server):
    open_game(page, server, deck=TWO_WAYS)
    page.focus("#col2")
    page.keyboard.press("Enter")  # the 8H has two places to go: picked up
    assert page.locator(".card.selected").count() == 1
    page.keyboard.press("Escape")
    assert page.locator(".card.selected").count() == 0
    page.keyboard.press("Enter")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("Enter")  # put down on the 9C
    wait_moves(page, 1)
    assert column(page, 1)[-2:] == ["9C", "8H"]
    page.keyboard.press("ArrowUp")  # from the 8H up to the 9C: the run 9C 8H
    assert page.eval_on_selector("#col1 .card.cursor", "c => c.dataset.card") == "9C"
    page.keyboard.press("Enter")  # one place takes the run (the TD): it goes there
    wait_moves(page, 2)
    assert column(page, 3)[-3:] == ["TD", "9C", "8H"]


def test_hint_with_h_and_a_new_deal_with_n(page, server):
    open_game(page, server, deal=1)
    page.keyboard.press("h")
    sync_api.expect(page.locator("#message")).to_contain_text("Hint:")
    assert page.locator(".card.hint").count() >= 1
    assert page.text_content("#status-moves") == "Moves 0"  # a hint makes no move
    page.keyboard.press("n")
    sync_api.expect(page.locator("#deal-number")).not_to_have_text("1")
    assert page.text_content("#status-moves") == "Moves 0"


def test_new_deal_dialog_chooses_the_deal_and_the_rules(page, server):
    open_game(page, server, deal=1)
    page.click("#btn-new")
    page.fill("#new-deal", "18446744073709551615")
    page.select_option("#new-draw", "1")
    page.select_option("#new-passes", "2")
    page.click("#new-form button[value='deal']")
    sync_api.expect(page.locator("#deal-number")).to_have_text("18446744073709551615")
    sync_api.expect(page.locator("#status-rules")).to_contain_text("Draw 1, 2 passes")
    page.click("#stock")  # draw 1: one card turned
    wait_moves(page, 1)
    assert page.locator("#waste .card").count() == 1 and page.text_content("#stock .count") == "23"


def test_reload_brings_the_same_position_back(page, server):
    open_game(page, server, deal=1)
    page.click("#col0 .card")
    wait_moves(page, 1)
    page.click("#stock")
    wait_moves(page, 2)
    before = [column(page, i) for i in range(7)], waste_top(page)
    page.goto(server)  # the plain address: the game comes back from this browser's storage
    page.wait_for_selector("#col6 .card")
    wait_moves(page, 2)
    assert ([column(page, i) for i in range(7)], waste_top(page)) == before
    assert page.text_content("#deal-number") == "1"
    page.set_viewport_size({"width": 420, "height": 800})  # a narrow window keeps the game
    wait_moves(page, 2)
    assert ([column(page, i) for i in range(7)], waste_top(page)) == before


def test_a_restarted_server_brings_the_game_back(page, tmp_path):
    port = free_port()
    with running_server(create_app(tmp_path / "play.sqlite3"), port=port) as url:
        page.goto(url)  # a first visit deals a game
        page.wait_for_selector("#col6 .card")
        page.click("#stock")
        wait_moves(page, 1)
        before = [column(page, i) for i in range(7)], waste_top(page), page.text_content("#deal-number")
    with running_server(create_app(tmp_path / "play.sqlite3"), port=port) as url:
        page.goto(url)  # same address, so the browser still knows its game
        wait_moves(page, 1)
        assert ([column(page, i) for i in range(7)], waste_top(page), page.text_content("#deal-number")) == before


def test_a_scored_session_shows_game_k_of_n_and_hides_the_deal(page, tmp_path):
    from klondike_app.web.scored import ScoredPlan

    plan = ScoredPlan("ada", "two deals", (38, 7), out_dir=tmp_path / "results")
    with running_server(create_app(tmp_path / "play.sqlite3", scored=plan)) as url:
        page.goto(url)
        page.wait_for_selector("#col6 .card")
        session = page.locator("#session")
        sync_api.expect(session).to_contain_text("game 1 of 2")
        assert "undo allowed and counted" in session.text_content() and "no hints" in session.text_content()
        assert page.text_content("#deal-number") == "hidden until the game is over"
        assert page.is_hidden("#btn-new") and page.is_hidden("#btn-replay") and page.is_disabled("#btn-hint")
        page.keyboard.press("n")  # no new deal: a message, the same game
        sync_api.expect(page.locator("#message")).to_contain_text("One try per deal")
        page.click("#btn-resign")  # asks first: a deal given up has no second try
        page.click("#resign-confirm")
        page.wait_for_selector("#dlg-over[open]")
        assert page.text_content("#over-title") == "Game 1 of 2: given up"
        assert page.text_content("#over-deal") == "38" and page.text_content("#over-result") == "given up"
        sync_api.expect(session).to_contain_text("game 2 of 2")
        page.click("#over-next")
        sync_api.expect(page.locator("#deal-number")).to_have_text("hidden until the game is over")
        wait_moves(page, 0)


def test_dead_position_dialog(page, server):
    open_game(page, server, deck=stuck_deck())
    page.evaluate("document.activeElement.blur()")
    for _ in range(8):
        page.keyboard.press("Space")
    page.wait_for_selector("#dlg-dead[open]")
    assert page.is_visible("#dlg-dead button[data-command='undo']")
    page.click("#dlg-dead button[data-command='undo']")
    wait_moves(page, 7)
    assert not page.is_visible("#dlg-dead")


def test_auto_finish_wins_a_nearly_won_deck(page, server):
    game = post_json(f"{server}/api/games", {"deck": nearly_won_deck()})
    view = game
    while moves := [m for m in view["legal"] if m["from"].startswith("col") and m["to"].startswith("found")]:
        view = post_json(f"{server}/api/games/{game['id']}/actions", {"action": moves[0]["action"]})
    for _ in range(8):
        view = post_json(f"{server}/api/games/{game['id']}/actions", {"action": 0})
    assert view["auto_finish"]
    page.goto(f"{server}/?game={game['id']}")
    page.wait_for_selector("#btn-finish.ready")
    page.keyboard.press("f")
    # generous: on a fresh machine the first auto finish also compiles the solver's kernels
    page.wait_for_selector("#dlg-won[open]", timeout=300_000)
    assert page.text_content("#won-home") == "52 of 52"
    assert page.locator("#found3 .card").get_attribute("data-card") == "KS"


def test_phone_width_shows_every_column(browser, server):
    context = browser.new_context(viewport={"width": 375, "height": 700}, is_mobile=True, has_touch=True)
    page = context.new_page()
    game = post_json(f"{server}/api/games", {"deal": 1})
    page.goto(f"{server}/?game={game['id']}")
    page.wait_for_selector("#col6 .card.face")
    box = page.locator("#col6").bounding_box()
    assert box["x"] + box["width"] <= 375
    context.close()


def test_screenshot_command_writes_the_opening_table(tmp_path):
    import subprocess
    import sys

    # its own process: this module's Playwright session is already running in this thread
    target = tmp_path / "play.png"
    done = subprocess.run([sys.executable, "-m", "klondike_app", "play", "--screenshot", str(target)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and target.stat().st_size > 10_000
