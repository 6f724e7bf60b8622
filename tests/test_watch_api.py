"""The viewer of recorded games (``klondike watch``): its JSON API over committed results files,
the hidden cards, the losing move, the comparison of two files and the GIF/MP4 export."""

from __future__ import annotations

import json
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():  # Starlette's test client would rather have httpx2; httpx works
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

from agents.results import read_records  # noqa: E402
from klondike_app.cli import main  # noqa: E402
from klondike_app.web.app import create_watch_app  # noqa: E402
from klondike_app.web.replays import Replay, ResultsFile, load_results  # noqa: E402
from klondike_app.web.watch_analysis import Analyses  # noqa: E402
from klondike_env import Game, card_str  # noqa: E402
from klondike_env.solver import SolveStatus, solve  # noqa: E402

RESULTS = Path(__file__).resolve().parents[1] / "docs" / "results"
GREEDY = RESULTS / "greedy_test_draw3.csv"
RANDOM = RESULTS / "random_test_draw3.csv"
# greedy's game of deal 5 (72 moves, lost): the solver wins the true deal after move 59, and
# proves it lost after move 60 (test_the_losing_move_of_a_known_game checks both)
LOST_DEAL, LOSING_MOVE, NODES = 5, 60, 200_000


@pytest.fixture(scope="module")
def greedy():
    return load_results(GREEDY)


def client_of(files, **options) -> TestClient:
    analyses = Analyses(None, executor=ThreadPoolExecutor(1), **options)
    return TestClient(create_watch_app(files, analyses))


def column_cards(game: Game) -> list[list]:
    return [[card_str(card) if up else None for card, up in column] for column in game.tableau]


def test_a_position_is_the_game_replayed_to_that_move(greedy):
    actions = read_records(GREEDY)[LOST_DEAL - 1].actions
    with client_of([greedy]) as client:
        for move in (0, 1, 37, len(actions)):
            shown = client.get(f"/api/watch/0/{LOST_DEAL}/moves/{move}").json()
            game = Game.new(LOST_DEAL)
            for action in actions[:move]:
                game.step(action)
            assert shown["tableau"] == column_cards(game)
            assert shown["waste"] == [card_str(card) for card in game.waste]
            assert shown["cards_home"] == sum(game.foundations) and len(shown["stock"]) == len(game.stock)
            assert shown["move"] == move and shown["total"] == len(actions)
            if move < len(actions):
                assert shown["next"]["action"] == actions[move]
                assert shown["next"]["name"] == game.action_name(actions[move])
            else:
                assert shown["next"] is None
            if move:
                assert shown["played"]["action"] == actions[move - 1]


def test_hidden_cards_are_sent_only_when_revealed(greedy):
    with client_of([greedy]) as client:
        hidden_view = client.get(f"/api/watch/0/{LOST_DEAL}/moves/10").json()
        revealed = client.get(f"/api/watch/0/{LOST_DEAL}/moves/10?reveal=1").json()
    game = greedy.replays[LOST_DEAL].game_at(10)
    hidden = {card_str(card) for card in game.hidden_cards()}
    assert "revealed" not in hidden_view
    sent = json.dumps(hidden_view)
    assert not [card for card in hidden if f'"{card}"' in sent]
    assert revealed["revealed"]["tableau"] == [[card_str(c) for c, up in column if not up] for column in game.tableau]
    assert revealed["revealed"]["stock"] == [card_str(card) for card in game.stock]
    assert {key: value for key, value in revealed.items() if key != "revealed"} == hidden_view


def test_bad_requests_say_what_is_allowed(greedy):
    with client_of([greedy]) as client:
        assert "moves 0..72" in client.get(f"/api/watch/0/{LOST_DEAL}/moves/73").json()["error"]
        assert client.get("/api/watch/0/123456/moves/0").status_code == 404
        assert client.get("/api/watch/3/5/moves/0").status_code == 404
        assert "allowed values" in client.get(f"/api/watch/0/{LOST_DEAL}/moves/0?reveal=yes").json()["error"]


def wait_done(client, url: str) -> dict:
    deadline = time.monotonic() + 60
    while (answer := client.get(url).json())["state"] == "running":
        assert time.monotonic() < deadline, answer
        time.sleep(0.05)
    return answer


def test_the_losing_move_of_a_known_game(greedy):
    replay = greedy.replays[LOST_DEAL]
    # the solver, asked directly: winnable after move 59, proven lost after move 60
    assert solve(replay.game_at(LOSING_MOVE - 1), node_limit=NODES).status == SolveStatus.SOLVED
    assert solve(replay.game_at(LOSING_MOVE), node_limit=NODES).status == SolveStatus.UNSOLVABLE
    with client_of([greedy], nodes=NODES) as client:
        found = wait_done(client, f"/api/watch/0/{LOST_DEAL}/losing-move")
        assert (found["state"], found["move"], found["verdict"]) == ("done", LOSING_MOVE, "lost")
        assert client.get(f"/api/watch/0/{LOST_DEAL}/losing-move").json() == found  # kept
        won = next(deal for deal, replay in greedy.replays.items() if replay.won)
        assert client.get(f"/api/watch/0/{won}/losing-move").json()["verdict"] == "won"


def test_every_losing_move_of_a_file_in_the_background(greedy):
    games = {deal: greedy.replays[deal] for deal in (4, LOST_DEAL, 6)}  # 6: won
    files = [ResultsFile(GREEDY, "greedy", games[LOST_DEAL].rules, games)]
    with client_of(files, nodes=NODES) as client:
        lost = ("4", str(LOST_DEAL))
        before = client.get("/api/watch/0/losing-moves").json()
        assert before["pending"] == 0 and not any(deal in before["found"] for deal in lost)  # a GET starts nothing
        # a POST starts both lost games (a fast solve may finish one before the answer is written)
        started = client.post("/api/watch/0/losing-moves").json()
        assert started["pending"] + sum(deal in started["found"] for deal in lost) == 2
        deadline = time.monotonic() + 60
        while (answer := client.get("/api/watch/0/losing-moves").json())["pending"]:
            assert time.monotonic() < deadline, answer
            time.sleep(0.05)
        found = answer["found"]
        assert found[str(LOST_DEAL)] == {"move": LOSING_MOVE, "verdict": "lost"}
        assert found["6"]["verdict"] == "won" and found["4"]["verdict"] in ("lost", "undecided")
        assert client.get("/api/watch/0/4/losing-move").json()["move"] == found["4"]["move"]


def test_an_undecided_losing_move_is_not_called_lost(greedy):
    with client_of([greedy], nodes=1) as client:  # one position per solve: nothing is decided
        found = wait_done(client, f"/api/watch/0/{LOST_DEAL}/losing-move")
    assert found["verdict"] == "undecided"


def test_analyses_are_kept_in_the_sqlite_file(greedy, tmp_path):
    replay = greedy.replays[LOST_DEAL]
    first = Analyses(tmp_path / "watch.sqlite3", executor=ThreadPoolExecutor(1))
    while first.losing_move(replay)["state"] == "running":
        time.sleep(0.05)
    first.close()
    again = Analyses(tmp_path / "watch.sqlite3", executor=ThreadPoolExecutor(1))
    again._submit = None  # a second solve would fail: the answer must come from the file
    assert again.losing_move(replay)["move"] == LOSING_MOVE


def test_world_shares_start_on_request(greedy):
    replay = greedy.replays[21]  # a short game: 18 moves
    with client_of([greedy], worlds=2, world_nodes=2000) as client:
        assert client.get("/api/watch/0/21/worlds").json()["state"] == "idle"
        assert client.post("/api/watch/0/21/worlds").json()["state"] in ("running", "done")
        shares = wait_done(client, "/api/watch/0/21/worlds")["shares"]
    assert len(shares) == len(replay.actions)
    assert all(0 <= won <= decided <= 2 for won, decided in shares)


def test_two_files_pair_their_deals(greedy):
    other = load_results(RANDOM)
    with client_of([greedy, other]) as client:
        overview = client.get("/api/watch").json()
    assert [file["agent"] for file in overview["files"]] == ["greedy", "random"]
    only = [sum(entry["only"] == index for entry in overview["deals"]) for index in (0, 1)]
    expected = [sum(greedy.replays[d].won and not other.replays[d].won for d in greedy.replays),
                sum(other.replays[d].won and not greedy.replays[d].won for d in greedy.replays)]
    assert only == expected and only[0] > 0
    assert f"| {only[0]} | {only[1]} |" in overview["paired"]  # klondike compare's paired table


# --- the leak test -----------------------------------------------------------------------------------
@pytest.mark.slow
def test_leak_permuting_hidden_cards_leaves_every_position_byte_identical(greedy):
    """Positions up to a cut do not change when the cards hidden all along are permuted among
    their places (the play API's leak test, for the viewer)."""
    rng = np.random.default_rng(34)
    compared = 0
    lost = [replay for replay in greedy.replays.values() if len(replay.actions) > 20][:10]
    for replay in lost:
        cut = int(rng.integers(1, len(replay.actions) + 1))
        hidden = set(range(52))
        game = replay.game_at(0)
        for action in [None, *replay.actions[:cut]]:
            if action is not None:
                game.step(action)
            hidden &= set(game.hidden_cards())
        hidden = sorted(hidden)
        if len(hidden) < 2:
            continue
        relabel = np.arange(52)
        while np.array_equal(relabel[hidden], hidden):
            relabel[hidden] = rng.permutation(hidden)
        other = Replay(replay.deal, tuple(int(relabel[card]) for card in replay.deck), replay.rules, replay.actions,
                       replay.won, replay.cards_home, replay.ending)
        files = [ResultsFile(GREEDY, "greedy", replay.rules, {replay.deal: replay})]
        permuted = [ResultsFile(GREEDY, "greedy", replay.rules, {replay.deal: other})]
        with client_of(files) as client, client_of(permuted) as permuted_client:
            for move in range(cut + 1):
                url = f"/api/watch/0/{replay.deal}/moves/{move}"
                assert client.get(url).content == permuted_client.get(url).content, (replay.deal, move)
                compared += 1
            assert client.get("/api/watch").content == permuted_client.get("/api/watch").content
            revealed = f"/api/watch/0/{replay.deal}/moves/0?reveal=1"
            assert client.get(revealed).content != permuted_client.get(revealed).content  # the test can tell
    assert compared >= 200, compared


# --- the command -------------------------------------------------------------------------------------
def test_export_has_one_frame_per_position(tmp_path):
    from PIL import Image

    moves = len(load_results(GREEDY).replays[21].actions)
    assert main(["watch", str(GREEDY), "--deal", "21", "--export", str(tmp_path / "game.gif")]) == 0
    assert Image.open(tmp_path / "game.gif").n_frames == moves + 1
    imageio = pytest.importorskip("imageio.v2")
    pytest.importorskip("imageio_ffmpeg")
    assert main(["watch", str(GREEDY), "--deal", "21", "--export", str(tmp_path / "game.mp4"), "--fps", "8"]) == 0
    assert imageio.get_reader(tmp_path / "game.mp4").count_frames() == moves + 1


@pytest.mark.parametrize("argv, words", [
    (["--deal", "123456"], "deal 123456 is not in"),
    (["--export", "x.gif"], "need --deal"),
    (["--deal", "5", "--export", "x.png"], "must end in .gif or .mp4"),
    (["--port", "70000"], "bad port"),
    (["--deal", "5", "--export", "x.gif", "--fps", "0"], "bad --fps"),
])
def test_watch_refuses_bad_options_in_one_line(capsys, tmp_path, monkeypatch, argv, words):
    monkeypatch.chdir(tmp_path)
    assert main(["watch", str(GREEDY), "--no-open", *argv]) == 2
    error = capsys.readouterr().err
    assert words in error and error.count("\n") == 1
    assert not (tmp_path / "x.gif").exists()


def test_watch_refuses_three_files_and_a_file_that_is_not_results(capsys, tmp_path):
    assert main(["watch", str(GREEDY), str(GREEDY), str(GREEDY), "--no-open"]) == 2
    assert "watch one, or two" in capsys.readouterr().err
    bad = tmp_path / "bad.csv"
    bad.write_text("deal,won\n1,0\n")
    assert main(["watch", str(bad), "--no-open"]) == 2
    assert "bad.csv" in capsys.readouterr().err
    assert main(["watch", str(tmp_path / "missing.csv"), "--no-open"]) == 2
    assert "missing.csv" in capsys.readouterr().err
    illegal = tmp_path / "illegal.csv"  # deal 1 opens with no card for the waste to play
    illegal.write_text("deal,won,moves,foundation_cards,seconds,cpu_seconds,ending,actions\n1,0,1,0,0,0,dead,2\n")
    assert main(["watch", str(illegal), "--no-open"]) == 2
    error = capsys.readouterr().err
    assert "illegal.csv: deal 1, move 1: action 2 is not legal" in error and error.count("\n") == 1
