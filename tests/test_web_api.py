"""The browser game's JSON API, through Starlette's test client (klondike_app.web)."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():  # Starlette's test client would rather have httpx2; httpx works
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

from klondike_app.web.app import create_app  # noqa: E402
from klondike_app.web.table import dead_as_seen  # noqa: E402
from klondike_env import Game, Rules, card_str, core  # noqa: E402
from web_support import FakeClock, nearly_won_deck, stuck_deck  # noqa: E402


@pytest.fixture
def client(tmp_path):
    with TestClient(create_app(tmp_path / "play.sqlite3", clock=FakeClock())) as test_client:
        yield test_client


def new_game(client, **body) -> dict:
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.text
    return response.json()


def act(client, game: dict, body: dict, status: int = 200) -> dict:
    response = client.post(f"/api/games/{game['id']}/actions", json=body)
    assert response.status_code == status, response.text
    return response.json()


def legal(view: dict, **match) -> list[dict]:
    return [move for move in view["legal"] if all(move[key] == value for key, value in match.items())]


# --- the table ---------------------------------------------------------------------------
def test_deal_1_opens_as_the_contract_says(client):
    view = new_game(client, deal=1)
    assert view["deal"] == "1"
    assert view["tableau"][0] == ["7D"]
    assert view["tableau"][6] == [None] * 6 + ["8S"]
    assert view["stock"] == [None] * 24 and view["waste"] == [] and view["foundations"] == [None] * 4
    assert view["rules"] == {"draw_count": 3, "max_passes": None, "empty_column": "king", "foundation_to_tableau": True}
    assert view["passes"] == 1 and view["moves"] == 0 and not view["can_undo"] and view["status"] == "playing"
    name = Game.new(1).action_name(22)  # the engine's name of the move
    assert {move["action"]: move["name"] for move in view["legal"]} == {0: "draw", 22: name}
    assert legal(view, action=22) == [{"action": 22, "name": name, "from": "col0", "to": "col6", "cards": ["7D"]}]
    assert client.get(f"/api/games/{view['id']}").json() == view


def test_rules_and_deal_forms(client):
    view = new_game(client, deal="18446744073709551615", draw_count=1, max_passes=2, empty_column="any",
                    foundation_to_tableau=False)
    assert view["deal"] == "18446744073709551615"
    assert view["rules"] == {"draw_count": 1, "max_passes": 2, "empty_column": "any", "foundation_to_tableau": False}
    deck_game = new_game(client, deck=" ".join(card_str(c) for c in Game.new(1).deck))
    assert deck_game["deal"] is None and deck_game["tableau"] == new_game(client, deal=1)["tableau"]
    random_deal = new_game(client)
    assert 0 <= int(random_deal["deal"]) < 2**32


def test_ids_are_long_random_and_private(client):
    first, second = new_game(client, deal=1), new_game(client, deal=1)
    assert first["id"] != second["id"] and len(first["id"]) >= 22
    assert client.get("/api/games/" + first["id"][:-1] + "x").status_code == 404


# --- moves ---------------------------------------------------------------------------------
def test_three_card_draw_is_one_undo(client):
    view = new_game(client, deal=1)
    drawn = act(client, view, {"action": 0})
    assert drawn["waste"] == ["QC", "4S", "6C"] and drawn["waste_fan"] == 3 and drawn["stock"] == [None] * 21
    assert [m["cards"] for m in legal(drawn, **{"from": "waste"})] == [["6C"]]  # only the top plays
    undone = client.post(f"/api/games/{view['id']}/undo").json()
    assert {k: v for k, v in undone.items() if k not in ("undos", "elapsed_ms", "clock_running")} == \
        {k: v for k, v in view.items() if k not in ("undos", "elapsed_ms", "clock_running")}
    assert undone["undos"] == 1
    refused = client.post(f"/api/games/{view['id']}/undo")
    assert refused.status_code == 409 and "nothing to undo" in refused.json()["error"]


def test_click_on_stock_draws_then_recycles_and_the_stock_order_becomes_known(client):
    view = new_game(client, deal=1)
    for _ in range(8):
        view = act(client, view, {"from": "stock", "to": "waste"})
    assert view["stock"] == [] and len(view["waste"]) == 24 and view["passes"] == 1
    recycled = act(client, view, {"from": "stock", "to": "waste"})  # a click on the empty stock recycles
    assert recycled["passes"] == 2 and recycled["recycles"] == 1 and recycled["waste"] == []
    assert recycled["stock"] == view["waste"]  # seen once, in drawing order
    assert client.post(f"/api/games/{view['id']}/undo").json()["waste"] == view["waste"]


def test_stock_and_waste_both_empty_refuses_a_draw(client):
    view = play_home_from_columns(client, new_game(client, deck=nearly_won_deck()))
    while True:  # every king the waste turns up goes to an empty column, every other card home
        kings = [m for m in legal(view, **{"from": "waste"}) if m["cards"] and m["cards"][0][0] == "K" and m["to"].startswith("col")]
        home = legal(view, **{"from": "waste", "to": f"found{'CDHS'.index(view['waste'][-1][1])}"}) if view["waste"] else []
        moves = kings or home or legal(view, action=0)
        if not moves:
            break
        view = act(client, view, {"action": moves[0]["action"]})
    assert view["stock"] == [] and view["waste"] == [] and view["status"] == "playing" and view["cards_home"] == 48
    response = client.post(f"/api/games/{view['id']}/actions", json={"from": "stock", "to": "waste"})
    assert response.status_code == 409 and "both empty" in response.json()["error"]
    assert client.get(f"/api/games/{view['id']}").json() == view


def play_home_from_columns(client, view: dict) -> dict:
    while moves := [m for m in view["legal"] if m["from"].startswith("col") and m["to"].startswith("found")]:
        view = act(client, view, {"action": moves[0]["action"]})
    return view


def test_click_click_intents_and_a_named_card(client):
    view = new_game(client, deal=1)
    moved = act(client, view, {"from": "col0", "to": "col6", "card": "7D"})
    assert moved["tableau"][0] == [] and moved["tableau"][6][-2:] == ["8S", "7D"]
    response = client.post(f"/api/games/{view['id']}/actions", json={"from": "col6", "to": "col0", "card": "8S"})
    assert response.status_code == 409  # the engine's reason: only a king starts an empty column
    assert client.get(f"/api/games/{view['id']}").json() == moved
    check = client.post(f"/api/games/{view['id']}/check", json={"from": "col6", "to": "col0", "card": "8S"})
    assert check.status_code == 200 and not check.json()["legal"] and "fits the destination" in check.json()["reason"]
    check = client.post(f"/api/games/{view['id']}/check", json={"from": "stock", "to": "waste"}).json()
    assert check == {"legal": True, "action": 0, "reason": None}
    assert client.get(f"/api/games/{view['id']}").json() == moved


def test_a_foundation_card_comes_back_down(client):
    # deal search: random play until a foundation card may come back (seeded, so always the same)
    rng = np.random.default_rng(5)
    for deal in range(1, 40):
        game = Game.new(deal)
        actions = []
        while len(actions) < 300 and not [a for a in game.legal_actions() if a >= core.FOUNDATION_TO_COLUMN]:
            choices = [a for a in game.legal_actions() if a < core.FOUNDATION_TO_COLUMN]
            home = [a for a in choices if a in (core.WASTE_TO_FOUNDATION,) or core.COLUMN_TO_FOUNDATION <= a < core.COLUMN_TO_COLUMN]
            action = int(rng.choice(home or choices))
            game.step(action)
            actions.append(action)
        if [a for a in game.legal_actions() if a >= core.FOUNDATION_TO_COLUMN]:
            break
    view = new_game(client, deal=deal)
    for action in actions:
        view = act(client, view, {"action": action})
    back = legal(view)[-1]
    assert back["from"].startswith("found") and back["action"] >= core.FOUNDATION_TO_COLUMN
    after = act(client, view, {"action": back["action"]})
    assert after["cards_home"] == view["cards_home"] - 1
    assert after["tableau"][int(back["to"][3:])][-1] == back["cards"][0]
    assert client.post(f"/api/games/{view['id']}/undo").json()["cards_home"] == view["cards_home"]
    no_recall = new_game(client, deal=deal, foundation_to_tableau=False)
    for action in actions:
        no_recall = act(client, no_recall, {"action": action})
    response = client.post(f"/api/games/{no_recall['id']}/actions", json={"action": back["action"]})
    assert response.status_code == 409 and "forbid" in response.json()["error"]


# --- bad input changes nothing ----------------------------------------------------------------
@pytest.mark.parametrize("body, status, words", [
    ({"action": 87}, 400, "0..86"),
    ({"action": -1}, 400, "0..86"),
    ({"action": "0"}, 400, "integer"),
    ({"action": True}, 400, "integer"),
    ({"action": 1.5}, 400, "integer"),
    ({"action": 1}, 409, "stock is not empty"),
    ({"action": 2}, 409, "waste is empty"),
    ({"from": "col0", "to": "col0"}, 400, "no move"),
    ({"from": "col9", "to": "col0"}, 400, "bad pile"),
    ({"from": "col0"}, 400, "expected"),
    ({"action": 0, "from": "stock"}, 400, "either"),
    ({"move": 0}, 400, "unknown field"),
    ({"from": "col0", "to": "col6", "card": "ZZ"}, 400, "bad card"),
    ({"from": "col0", "to": "col6", "card": "8S"}, 409, "start at 7D"),
])
def test_bad_actions_are_refused_and_change_nothing(client, body, status, words):
    view = new_game(client, deal=1)
    response = client.post(f"/api/games/{view['id']}/actions", json=body)
    assert response.status_code == status and words in response.json()["error"], response.text
    assert "\n" not in response.json()["error"]
    assert client.get(f"/api/games/{view['id']}").json() == view


@pytest.mark.parametrize("content, status, words", [
    (b"{", 400, "malformed JSON"),
    (b"[1, 2]", 400, "JSON object"),
    (b"\xff\xfe", 400, "malformed JSON"),
    (b'{"deal": ' + b"1" * 20000 + b"}", 413, "too large"),
])
def test_malformed_bodies(client, content, status, words):
    view = new_game(client, deal=1)
    for url in ("/api/games", f"/api/games/{view['id']}/actions"):
        response = client.post(url, content=content, headers={"Content-Type": "application/json"})
        assert response.status_code == status and words in response.json()["error"], response.text
    assert client.get(f"/api/games/{view['id']}").json() == view


@pytest.mark.parametrize("body, words", [
    ({"deal": 2**64}, "bad deal"), ({"deal": -1}, "bad deal"), ({"deal": "x1"}, "bad deal"), ({"deal": 1.0}, "bad deal"),
    ({"deck": "AS KS"}, "52"), ({"deck": "AS " * 52}, "twice"), ({"deck": 5}, "bad deck"),
    ({"draw_count": 2}, "draw_count"), ({"max_passes": 0}, "max_passes"), ({"empty_column": "queen"}, "empty_column"),
    ({"deal": 1, "deck": "x"}, "at most one"), ({"seed": 1}, "unknown field"), ({"replay": "nope"}, "unknown game"),
])
def test_bad_new_games_are_refused(client, body, words):
    response = client.post("/api/games", json=body)
    assert response.status_code in (400, 404) and words in response.json()["error"], response.text


def test_unknown_game_and_paths(client):
    for method, url in (("get", "/api/games/nope"), ("post", "/api/games/nope/actions"), ("post", "/api/games/nope/undo"),
                        ("get", "/api/games/nope/hint"), ("post", "/api/games/nope/finish")):
        response = getattr(client, method)(url, **({"json": {"action": 0}} if url.endswith("actions") else {}))
        assert response.status_code == 404 and "unknown game" in response.json()["error"]
    assert client.get("/api/nothing").status_code == 404
    assert client.delete("/api/games").status_code == 405


# --- hints, dead positions, auto finish --------------------------------------------------------
def test_hint_is_a_legal_move_and_changes_nothing(client):
    view = new_game(client, deal=1)
    hint = client.get(f"/api/games/{view['id']}/hint").json()
    assert hint["agent"] == "greedy" and hint["note"] is None
    assert {k: hint[k] for k in ("action", "name", "from", "to", "cards")} in view["legal"]
    assert client.get(f"/api/games/{view['id']}").json()["tableau"] == view["tableau"]
    strong = client.get(f"/api/games/{view['id']}/hint", params={"strength": "strong"}).json()
    assert strong["agent"] == "determinized" and strong["action"] in [m["action"] for m in view["legal"]]
    assert client.get(f"/api/games/{view['id']}/hint", params={"strength": "max"}).status_code == 400


def test_dead_position_is_announced_once_the_player_can_know_it(client):
    view = new_game(client, deck=stuck_deck())
    assert Game.from_deck(stuck_deck()).is_dead  # dead from the deal, but only the stock would tell
    assert not view["dead"]
    for draw in range(8):
        view = act(client, view, {"action": 0})
        assert view["dead"] == (draw == 7), draw
    assert view["status"] == "playing" and view["can_undo"]
    undone = client.post(f"/api/games/{view['id']}/undo").json()
    assert not undone["dead"]
    # leaving a dead round for a new deal counts it lost, a round part-way abandoned
    act(client, undone, {"action": 0})
    act(client, new_game(client, deal=1), {"action": 0})  # a new deal part-way: abandoned
    new_game(client, deal=2)  # not played yet: not counted
    stats = client.get("/api/stats").json()["statistics"]
    assert [(s["played"], s["lost"], s["abandoned"]) for s in stats] == [(2, 1, 1)]


def test_dead_as_seen_agrees_with_the_engine_when_nothing_is_hidden():
    rng = np.random.default_rng(3)
    seen_dead = 0
    for deal in range(60):
        game = Game.new(deal, Rules(max_passes=int(rng.integers(1, 4))))
        for _ in range(400):
            if game.is_over:
                break
            game.step(int(rng.choice(game.legal_actions())))
            if dead_as_seen(game):
                assert game.is_dead
                seen_dead += 1
            stock_seen = game.passes > 1 or not game.stock
            if stock_seen:
                assert dead_as_seen(game) == game.is_dead
    assert seen_dead > 0


def test_no_progress_hint_note(client):
    view = new_game(client, deck=stuck_deck(("QH",)))
    view = act(client, view, {"action": 0})
    assert view["waste"][-1] == "QH"
    view = act(client, view, {"from": "waste", "to": "col3", "card": "QH"})  # onto KS
    while view["stock"]:
        view = act(client, view, {"action": 0})
    view = act(client, view, {"action": 1})
    while view["stock"]:
        assert client.get(f"/api/games/{view['id']}/hint").json()["note"] is None
        view = act(client, view, {"action": 0})
    assert not view["dead"] and legal(view, **{"from": "col3"})  # the queen may shuttle between kings
    hint = client.get(f"/api/games/{view['id']}/hint").json()
    assert hint["action"] is None and "No move makes real progress" in hint["note"]
    assert "new deal" in hint["note"] and "undo" in hint["note"]


def test_auto_finish_wins_a_nearly_won_deck(client):
    view = new_game(client, deck=nearly_won_deck())
    refused = client.post(f"/api/games/{view['id']}/finish")
    assert refused.status_code == 409 and "face up" in refused.json()["error"]
    view = play_home_from_columns(client, view)
    assert all(column == [] for column in view["tableau"]) and view["cards_home"] == 28
    assert not view["auto_finish"]  # the stock is still unseen
    for _ in range(8):
        view = act(client, view, {"action": 0})
    assert view["auto_finish"] and not view["won"]
    steps = 0
    while not view["won"]:
        response = client.post(f"/api/games/{view['id']}/finish")
        assert response.status_code == 200, response.text
        before, view = view, response.json()
        assert view["moves"] == before["moves"] + 1
        steps += 1
    assert view["status"] == "won" and view["cards_home"] == 52 and steps >= 24
    assert client.post(f"/api/games/{view['id']}/undo").status_code == 409  # a won round is over
    stats = client.get("/api/stats").json()["statistics"]
    assert stats[0]["won"] == 1 and stats[0]["fewest_moves"] == view["moves"] and stats[0]["best_time_ms"] > 0


# --- storage ---------------------------------------------------------------------------------------
def test_rounds_and_statistics_survive_a_new_server(tmp_path):
    path = tmp_path / "play.sqlite3"
    with TestClient(create_app(path, clock=FakeClock())) as client:
        view = new_game(client, deal=1)
        view = act(client, view, {"action": 0})
        view = act(client, view, {"action": 22})
        view = client.post(f"/api/games/{view['id']}/undo").json()
        cookies = dict(client.cookies)
        stats = client.get("/api/stats").json()
    with TestClient(create_app(path, clock=FakeClock()), cookies=cookies) as client:
        assert client.get(f"/api/games/{view['id']}").json() == view
        assert client.get("/api/stats").json() == stats
        replayed = client.post("/api/games", json={"replay": view["id"]}).json()
        assert replayed["deal"] == "1" and replayed["moves"] == 0
        assert client.get(f"/api/games/{view['id']}").json()["status"] == "abandoned"


def test_every_accepted_action_is_on_disk(tmp_path):
    import sqlite3

    path = tmp_path / "play.sqlite3"
    with TestClient(create_app(path)) as client:
        view = new_game(client, deal=7)
        for _ in range(5):
            view = act(client, view, {"action": view["legal"][0]["action"]})
        log = json.loads(sqlite3.connect(path).execute("SELECT log FROM rounds WHERE id=?", (view["id"],)).fetchone()[0])
        assert len(log) == 5 and view["moves"] == 5


# --- the leak test -----------------------------------------------------------------------------------
def random_requests(client, view: dict, rng: np.random.Generator, count: int, hidden_after: list):
    """Play ``count`` random requests (moves by id and by piles, undos, hints, illegal moves, bad
    cards); returns them with their raw answers. ``hidden_after`` gets the hidden cards after each."""
    live = client.app.state.rounds
    requests, answers = [], []
    game_id = view["id"]
    for _ in range(count):
        roll = rng.random()
        moves = view["legal"]
        if roll < 0.6:
            request = ("post", "actions", {"action": moves[rng.integers(len(moves))]["action"]})
        elif roll < 0.7:
            move = moves[rng.integers(len(moves))]
            body = {"from": move["from"], "to": move["to"]}
            if move["cards"]:
                body["card"] = move["cards"][0]
            request = ("post", "actions", body)
        elif roll < 0.78:
            request = ("post", "undo", None)
        elif roll < 0.84:
            request = ("get", "hint", None)
        elif roll < 0.9:
            request = ("post", "actions", {"action": int(rng.integers(core.NUM_ACTIONS))})
        elif roll < 0.95:  # name any card, hidden ones included
            move = moves[rng.integers(len(moves))]
            request = ("post", "actions", {"from": move["from"], "to": move["to"], "card": card_str(int(rng.integers(52)))})
        else:
            request = ("get", "", None)
        answer = send(client, game_id, request)
        requests.append(request)
        answers.append(answer)
        if answer[0] == 200 and request[1] != "hint":
            view = json.loads(answer[1])
        hidden_after.append(set(live.get(game_id).game.hidden_cards()))
        if view["status"] != "playing":
            break
    return requests, answers


def send(client, game_id: str, request) -> tuple[int, bytes]:
    method, path, body = request
    url = f"/api/games/{game_id}" + (f"/{path}" if path else "")
    response = client.post(url, json=body) if method == "post" else client.get(url)
    return response.status_code, response.content.replace(game_id.encode(), b"<id>")


@pytest.mark.slow
def test_leak_permuting_hidden_cards_leaves_every_answer_byte_identical(tmp_path):
    """Deals x hundreds of random requests: the answers up to a cut do not change when the cards
    hidden all along are permuted among their places (the env's leak test, through HTTP)."""
    rng = np.random.default_rng(33)
    compared = moved = 0
    # random deals, and a deck dead from the deal where only the unseen stock shows it (under draw 1
    # every stock card comes up, so almost any permutation brings up a playable one)
    cases = [(Game.new(deal).deck, {"draw_count": (3, 1)[deal % 2], "max_passes": (None, 2, None)[deal % 3]})
             for deal in range(100, 112)]
    cases += [(Game.from_deck(stuck_deck(extra)).deck, {"draw_count": draw}) for extra, draw in (((), 1), ((), 3), (("QH",), 3))]
    for deal, (deck, rules) in enumerate(cases):
        deck_text = " ".join(card_str(c) for c in deck)
        with TestClient(create_app(tmp_path / f"{deal}.sqlite3", clock=FakeClock())) as client:
            created = client.post("/api/games", json={"deck": deck_text, **rules})
            start = created.content.replace(created.json()["id"].encode(), b"<id>")
            hidden_after = [set(client.app.state.rounds.get(created.json()["id"]).game.hidden_cards())]
            requests, answers = random_requests(client, created.json(), rng, 250, hidden_after)
        # early cuts permute many cards (the stock among them), late ones check long games
        cuts = {0, int(rng.integers(1, 12)), int(rng.integers(1, len(requests) + 1)), len(requests)}
        for cut in sorted(cut for cut in cuts if cut <= len(requests)):
            hidden = sorted(set.intersection(*hidden_after[: cut + 1]))
            if len(hidden) < 2:
                continue
            relabel = np.arange(52)
            while np.array_equal(relabel[hidden], hidden):
                relabel[hidden] = rng.permutation(hidden)
            other_deck = " ".join(card_str(int(relabel[c])) for c in deck)
            with TestClient(create_app(tmp_path / f"{deal}-{cut}.sqlite3", clock=FakeClock())) as client:
                created = client.post("/api/games", json={"deck": other_deck, **rules})
                assert created.content.replace(created.json()["id"].encode(), b"<id>") == start
                for step, request in enumerate(requests[:cut]):
                    assert send(client, created.json()["id"], request) == answers[step], f"deal {deal} step {step}: {request}"
                    compared += 1
            moved += 1
    assert moved >= 45 and compared >= 1500, (moved, compared)


# --- the command ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("argv, words", [
    (["--max-passes", "0"], "max_passes"),
    (["--port", "70000"], "bad port"),
])
def test_play_command_refuses_bad_options_in_one_line(capsys, argv, words):
    from klondike_app.cli import main

    assert main(["play", "--no-open", *argv]) == 2
    error = capsys.readouterr().err
    assert words in error and error.count("\n") == 1
