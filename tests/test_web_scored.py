"""A person scored on a seed set through the browser game's API (``klondike play --seeds``):
one try per deal in order, the deal number hidden until a game is over, the protocol enforced,
and each finished game in the results files ``klondike evaluate`` writes."""

from __future__ import annotations

import json
import warnings

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():  # Starlette's test client would rather have httpx2; httpx works
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

from agents.evaluation import evaluate, load_seed_set, read_records, summarize_results  # noqa: E402
from agents.results import ResultsExistError, open_results, run_identity  # noqa: E402
from klondike_app.web.app import create_app  # noqa: E402
from klondike_app.web.protocol import Protocol  # noqa: E402
from klondike_app.web.scored import ScoredPlan  # noqa: E402
from klondike_env import Game, Rules  # noqa: E402
from web_support import FakeClock  # noqa: E402

# greedy wins deal 6 (113 moves), resigns deal 7 and reaches a dead position on deal 38 (22 moves)
DEALS = (6, 7, 38)


@pytest.fixture
def seed_file(tmp_path):
    path = tmp_path / "three.txt"
    path.write_text("# three deals\n" + "\n".join(map(str, DEALS)) + "\n")
    return path


@pytest.fixture
def greedy(seed_file, tmp_path):
    """Greedy's results on the same deals: its games are the moves the person plays here."""
    json_path, _ = evaluate("greedy", str(seed_file), out_dir=tmp_path / "results", progress=False)
    return json_path, {record.deal: record for record in read_records(json_path.with_suffix(".csv"))}


def plan_for(seed_file, tmp_path, **changes) -> ScoredPlan:
    name, deals = load_seed_set(str(seed_file))
    values = dict(player="ada", seeds=name, deals=tuple(deals), out_dir=tmp_path / "results",
                  command=f"klondike play --seeds {seed_file} --player ada")
    return ScoredPlan(**{**values, **changes})


def server(tmp_path, plan):
    return TestClient(create_app(tmp_path / "play.sqlite3", clock=FakeClock(), scored=plan))


class Recorder:
    """Sends requests and keeps every answer's text, to look for deal numbers in them."""

    def __init__(self, client):
        self.client, self.texts = client, []

    def send(self, method: str, url: str, body=None, status: int = 200) -> dict:
        response = self.client.post(url, json=body) if method == "post" else self.client.get(url)
        assert response.status_code == status, response.text
        self.texts.append(response.text)
        return response.json()

    def play(self, game: dict, actions) -> dict:
        for action in actions:
            game = self.send("post", f"/api/games/{game['id']}/actions", {"action": action})
        return game


def assert_hidden(recorder: Recorder, deal: int) -> None:
    for text in recorder.texts:
        data = json.loads(text)
        assert data.get("deal") is None, text[:200]
        assert f'"{deal}"' not in text and f": {deal}," not in text, text[:200]


def test_a_person_plays_a_seed_file_with_a_restart_and_compare_pairs_them_with_greedy(seed_file, tmp_path, greedy,
                                                                                       capsys):
    greedy_json, greedy_games = greedy
    plan = plan_for(seed_file, tmp_path)
    with server(tmp_path, plan) as client:
        web = Recorder(client)
        state = web.send("get", "/api/session")
        assert state["position"] == 1 and state["games"] == 3 and state["finished"] == 0 and not state["complete"]
        assert state["protocol"] == {"undo": True, "hints": False, "auto_finish": True}
        # game 1: greedy's winning line
        game = web.send("post", "/api/session/game")
        assert web.send("post", "/api/session/game")["id"] == game["id"]  # asking again is the same try
        game = web.play(game, greedy_games[6].actions[:-1])
        assert_hidden(web, 6)
        game = web.play(game, greedy_games[6].actions[-1:])
        assert game["status"] == "won" and game["deal"] == "6"  # shown once the game is over
        # game 2: three moves, an undo, then given up
        web.texts.clear()
        game = web.send("post", "/api/session/game")
        assert web.send("get", "/api/session")["position"] == 2
        game = web.play(game, greedy_games[7].actions[:3])
        game = web.send("post", f"/api/games/{game['id']}/undo")
        assert game["undos"] == 1
        assert "hints is off" in web.send("get", f"/api/games/{game['id']}/hint", status=409)["error"]
        assert_hidden(web, 7)
        game = web.send("post", f"/api/games/{game['id']}/resign")
        assert game["status"] == "abandoned" and game["deal"] == "7"
        # one try: no replay, no new deal, no move in a finished game
        for url, body in (("/api/games", {"replay": game["id"]}), ("/api/games", {"deal": 7}), ("/api/games", {})):
            error = web.send("post", url, body, status=409)["error"]
            assert "one try per deal" in error and "\n" not in error
        assert "over" in web.send("post", f"/api/games/{game['id']}/actions", {"action": 0}, status=409)["error"]
        third = web.send("post", "/api/session/game")
        web.play(third, greedy_games[38].actions[:5])
    assert [r.deal for r in read_records(plan.out_dir / "human-ada_three_draw3.csv")] == [6, 7]

    with server(tmp_path, plan) as client:  # the same command again: the third game goes on
        web = Recorder(client)
        state = web.send("get", "/api/session")
        assert state["position"] == 3 and state["finished"] == 2 and state["won"] == 1 and state["game"] == third["id"]
        game = web.send("post", "/api/session/game")
        assert game["id"] == third["id"] and game["moves"] == 5
        game = web.play(game, greedy_games[38].actions[5:])
        assert game["status"] == "playing" and game["can_undo"]  # undo on: a dead end is the player's to give up
        assert_hidden(web, 38)
        game = web.send("post", f"/api/games/{game['id']}/resign")
        assert game["status"] == "lost" and game["deal"] == "38"
        state = web.send("get", "/api/session")
        assert state["complete"] and state["position"] is None and state["finished"] == 3
        assert "the set is done" in web.send("post", "/api/session/game", status=409)["error"]

    csv_path = plan.out_dir / "human-ada_three_draw3.csv"
    records = read_records(csv_path)
    assert [(r.deal, r.won, r.ending) for r in records] == [(6, True, "won"), (7, False, "resigned"), (38, False, "dead")]
    assert records[0].actions == greedy_games[6].actions and records[2].actions == greedy_games[38].actions
    assert records[1].actions == greedy_games[7].actions[:2] and records[1].moves == 2
    for record in records:  # every row replays on Game
        game = Game.new(record.deal)
        for action in record.actions:
            game.step(action)
        assert (game.is_won, game.move_count, sum(game.foundations)) == (record.won, record.moves, record.foundation_cards)
    summary = json.loads(csv_path.with_suffix(".json").read_text())
    assert summary["complete"] and summary["agent"] == "human:ada" and summary["games"] == 3 and summary["wins"] == 1
    assert summary["run"] == run_identity("human:ada", str(seed_file), Rules(), 0, 1000, Protocol().as_dict())
    assert summary["undos"] == 1 and summary["hints"] == 0 and summary["human_games"]["7"]["undos"] == 1
    assert summarize_results(csv_path, write=False)[1]["win_rate"] == summary["win_rate"]
    from klondike_app.web.replays import load_results, position_json

    watched = load_results(csv_path)  # klondike watch replays a person's games as an agent's
    assert watched.agent == "human:ada" and position_json(watched.replays[6], records[0].moves)["won"]

    from klondike_app.cli import main

    assert main(["compare", str(csv_path.with_suffix(".json")), str(greedy_json), "--plot", str(tmp_path / "c.png")]) == 0
    out = capsys.readouterr().out
    assert "human:ada" in out and "greedy" in out and "paired" in out.lower()


def test_protocol_off_switches_and_the_move_cap(seed_file, tmp_path):
    plan = plan_for(seed_file, tmp_path, protocol=Protocol(undo=False, auto_finish=False), max_moves=4)
    with server(tmp_path, plan) as client:
        web = Recorder(client)
        game = web.send("post", "/api/session/game")
        game = web.play(game, [0, 0])
        assert not game["can_undo"] and not game["auto_finish"]
        assert "undo is off" in web.send("post", f"/api/games/{game['id']}/undo", status=409)["error"]
        assert "auto finish is off" in web.send("post", f"/api/games/{game['id']}/finish", status=409)["error"]
        game = web.play(game, [0, 0])
        assert game["status"] == "lost" and game["deal"] == "6"  # the move cap ends it
    csv_path = plan.out_dir / "human-ada_three_draw3_max4_undo-off_autofinish-off.csv"
    assert [(r.deal, r.ending, r.moves) for r in read_records(csv_path)] == [(6, "move limit", 4)]


def test_a_game_that_ended_but_missed_the_csv_is_recorded_on_the_next_start(seed_file, tmp_path):
    plan = plan_for(seed_file, tmp_path)
    with server(tmp_path, plan) as client:
        game = client.post("/api/session/game").json()
        client.app.state.rounds.on_end = None  # as if the server died between the two writes
        assert client.post(f"/api/games/{game['id']}/resign").status_code == 200
    csv_path = plan.out_dir / "human-ada_three_draw3.csv"
    assert read_records(csv_path) == []
    with server(tmp_path, plan) as client:
        assert [r.ending for r in read_records(csv_path)] == ["resigned"]
        assert client.get("/api/session").json()["position"] == 2


def test_results_of_another_protocol_are_refused(tmp_path):
    identity = run_identity("human:ada", "dev", Rules(), 0, 1000, Protocol().as_dict())
    open_results(tmp_path, "x", identity, [1, 2])
    other = run_identity("human:ada", "dev", Rules(), 0, 1000, Protocol(hints=True).as_dict())
    with pytest.raises(ResultsExistError, match="protocol"):
        open_results(tmp_path, "x", other, [1, 2])


@pytest.mark.parametrize("argv, words", [
    (["--seeds", "nosuchset", "--player", "ada"], "unknown seed set 'nosuchset'"),
    (["--seeds", "dev"], "--seeds needs --player"),
    (["--player", "ada"], "--player needs --seeds"),
    (["--seeds", "dev", "--player", "a b"], "bad --player 'a b'"),
    (["--seeds", "dev", "--player", "ada", "--max-moves", "0"], "bad --max-moves 0"),
])
def test_bad_scoring_options_are_one_line_errors(capsys, tmp_path, argv, words):
    from klondike_app.cli import main

    assert main(["play", "--no-open", "--db", str(tmp_path / "p.sqlite3"), "--out", str(tmp_path), *argv]) == 2
    error = capsys.readouterr().err
    assert words in error and error.count("\n") == 1
    assert list(tmp_path.iterdir()) == []  # nothing written
