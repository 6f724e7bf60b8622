"""The evaluation harness: seed sets, reproducibility across workers, statistics, files, errors."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agents.evaluation import (
    GameRecord,
    SeedSetError,
    deal_seed,
    load_seed_set,
    play_deals,
    play_game,
    play_on,
    read_games,
    summarize,
    wilson_interval,
)
from agents.reporting import paired_table, sign_test_p
from klondike_env import Game, Rules

ROOT = Path(__file__).resolve().parents[1]


def _outcomes(records):
    return [(r.deal, r.won, r.moves, r.foundation_cards, r.ending) for r in records]


@pytest.mark.parametrize("spec,deals", [
    ("random", [3, 1, 4, 15, 9, 2]),
    ("greedy", [3, 1, 4, 15, 9, 2]),
    ("determinized:samples=2,nodes=1000", [3, 1, 4]),
])
def test_one_and_two_workers_give_identical_results(spec, deals):
    single = play_deals(spec, deals, Rules(), seed=7, workers=1, max_moves=150, progress=False)
    double = play_deals(spec, deals, Rules(), seed=7, workers=2, max_moves=150, progress=False)
    assert _outcomes(single) == _outcomes(double)
    assert [r.deal for r in single] == deals


def test_play_on_continues_a_game_where_play_game_would():
    import numpy as np

    from agents.base import RESIGN, DealInfo
    from agents.function_policy import FunctionAgent

    def last_legal(observation, mask):  # memoryless: the move depends on the position alone
        return int(np.flatnonzero(mask)[-1])

    whole = play_game(FunctionAgent(last_legal), 5, Rules(), seed=0, max_moves=200)
    agent, game = FunctionAgent(last_legal), Game.new(5, Rules())
    agent.reset(DealInfo(seed=0, rules=Rules()))
    for action in whole.actions[:10]:
        game.step(action)
    ending, actions = play_on(agent, game, max_moves=200)
    assert (ending, game.move_count) == (whole.ending, whole.moves)
    assert list(whole.actions[:10]) + actions == list(whole.actions)

    resigning = FunctionAgent(lambda observation, mask: RESIGN)
    game = Game.new(5, Rules())
    assert play_on(resigning, game) == ("resigned", []) and game.move_count == 0


def test_an_illegal_move_is_named_with_its_game():
    import numpy as np

    from agents.evaluation import AgentError
    from agents.function_policy import FunctionAgent

    illegal = FunctionAgent(lambda observation, mask: int(np.flatnonzero(~mask.astype(bool))[0]))
    game = Game.new(5, Rules())
    with pytest.raises(AgentError, match="illegal move on deal 5: "):
        play_on(illegal, game)
    game = Game.from_deck(Game.new(5, Rules()).deck, Rules())
    with pytest.raises(AgentError, match="illegal move on a game dealt from a deck: "):
        play_on(illegal, game)
    assert game.move_count == 0


def test_the_run_seed_matters_and_deal_seeds_are_stable():
    deals = list(range(1, 6))
    a = play_deals("random", deals, Rules(), seed=1, max_moves=100, progress=False)
    b = play_deals("random", deals, Rules(), seed=2, max_moves=100, progress=False)
    assert _outcomes(a) != _outcomes(b)
    assert deal_seed(0, 1) == deal_seed(0, 1) != deal_seed(0, 2)


def test_wilson_interval_known_values():
    # 13 wins in 100: p = 0.13, z = 1.96 gives centre 0.14369 and half-width 0.06612
    low, high = wilson_interval(13, 100)
    assert low == pytest.approx(0.07757, abs=1e-5) and high == pytest.approx(0.20980, abs=1e-5)
    # the textbook edge cases: no wins in 10 -> [0, 0.2775]; all wins -> upper bound 1
    assert wilson_interval(0, 10) == pytest.approx((0.0, 0.27753), abs=1e-4)
    assert wilson_interval(10, 10)[1] == pytest.approx(1.0)


def test_wilson_interval_matches_scipy():
    stats = pytest.importorskip("scipy.stats")
    for wins, games in [(1, 7), (130, 1000), (401, 1000), (999, 1000)]:
        reference = stats.binomtest(wins, games).proportion_ci(confidence_level=0.95, method="wilson")
        assert wilson_interval(wins, games) == pytest.approx((reference.low, reference.high), abs=1e-9)


def test_seed_sets_by_name_range_and_file(tmp_path):
    name, deals = load_seed_set("test")
    assert name == "test" and deals == list(range(1, 1001))
    assert load_seed_set("dev")[1] == list(range(1, 101))
    assert load_seed_set("5-8") == ("5-8", [5, 6, 7, 8])
    assert load_seed_set("42")[1] == [42]
    seed_file = tmp_path / "mine.txt"
    seed_file.write_text("# my deals\n7\n\n 3  # a comment\n18446744073709551615\n")
    assert load_seed_set(str(seed_file))[1] == [7, 3, 2**64 - 1]


@pytest.mark.parametrize(
    "spec,content,message",
    [
        ("nothing-here", None, "unknown seed set 'nothing-here'"),
        ("9-3", None, "the end is below the start"),
        ("bad.txt", "1\nseven\n", "line 2 is 'seven'"),
        ("big.txt", "18446744073709551616\n", "line 1"),
        ("empty.txt", "# nothing\n", "lists no deal numbers"),
        ("model.zip", b"PK\x03\x04\xa3\xff", r"model.zip' is not a text file: expected a seed file"),
    ],
)
def test_bad_seed_sets_are_one_line_errors(tmp_path, spec, content, message):
    if content is not None:
        path = tmp_path / spec
        path.write_bytes(content) if isinstance(content, bytes) else path.write_text(content)
        spec = str(path)
    with pytest.raises(SeedSetError, match=message) as error:
        load_seed_set(spec)
    assert "\n" not in str(error.value)


def test_summary_metrics_and_winnable_rate(tmp_path):
    records = [
        GameRecord(1, True, 100, 52, 0.5, "won"),
        GameRecord(2, False, 40, 10, 0.1, "dead"),
        GameRecord(3, True, 140, 52, 0.3, "won"),
        GameRecord(4, False, 20, 3, 0.1, "resigned"),
    ]
    verdicts = tmp_path / "verdicts.csv"
    verdicts.write_text(
        "deal,status,length,nodes,seconds\n1,SOLVED,90,10,0.1\n2,SOLVED,80,10,0.1\n3,UNKNOWN,0,10,0.1\n4,UNSOLVABLE,0,5,0.1\n"
    )
    summary = summarize(records, Rules(), verdicts)
    assert summary["wins"] == 2 and summary["win_rate"] == 0.5
    assert summary["win_rate_ci95"] == list(wilson_interval(2, 4))
    assert summary["mean_foundation_cards"] == pytest.approx(29.25)
    assert summary["moves_per_win"] == 120
    assert summary["endings"] == {"won": 2, "dead": 1, "resigned": 1}
    winnable = summary["winnable"]
    assert (winnable["winnable_deals"], winnable["wins_on_winnable"], winnable["deals_unknown"]) == (2, 1, 1)
    assert winnable["win_rate_on_winnable"] == 0.5


def _run(script, *args, cwd=ROOT):
    """``klondike <command>`` of this checkout (``python -m klondike_app``) for ``scripts/<command>.py``."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    return subprocess.run([sys.executable, "-m", "klondike_app", script.removesuffix(".py"), *args],
                          capture_output=True, text=True, cwd=cwd, env=env)


def test_evaluate_script_writes_csv_and_json(tmp_path):
    result = _run("evaluate.py", "--agent", "greedy", "--seeds", "1-6", "--workers", "1", "--out", str(tmp_path), "--quiet")
    assert result.returncode == 0, result.stderr
    summary_path = Path(result.stdout.strip().splitlines()[-1])
    assert summary_path.is_file() and summary_path.parent == tmp_path
    summary = json.loads(summary_path.read_text())
    assert summary["games"] == 6 and summary["agent"] == "greedy" and summary["deals"] == "1-6"
    with open(summary["csv"]) as handle:
        rows = list(csv.DictReader(handle))
    assert [int(row["deal"]) for row in rows] == list(range(1, 7))
    assert set(rows[0]) >= {"deal", "won", "moves", "foundation_cards", "seconds"}
    assert sum(int(row["won"]) for row in rows) == summary["wins"]
    # every game is recorded action by action and replays to the same end
    games = read_games(summary["csv"])
    assert [deal for deal, _ in games] == list(range(1, 7))
    for (deal, actions), row in zip(games, rows):
        game = Game.new(deal)
        for action in actions:
            game.step(action)
        assert game.move_count == int(row["moves"]) == len(actions)
        assert game.is_won == bool(int(row["won"])) and sum(game.foundations) == int(row["foundation_cards"])


def test_read_games_rejects_other_files(tmp_path):
    with pytest.raises(ValueError, match="not found: expected a results CSV"):
        read_games(tmp_path / "missing.csv")
    other = tmp_path / "other.csv"
    other.write_text("deal,won\n1,0\n")
    with pytest.raises(ValueError, match="no 'actions' column"):
        read_games(other)


@pytest.mark.parametrize(
    "args,message",
    [
        (["--agent", "nobody"], "unknown agent 'nobody'"),
        (["--agent", "greedy:fast=1"], "unknown option 'fast'"),
        (["--agent", "policy:path=missing.zip"], "model file 'missing.zip' not found"),
        (["--agent", "greedy", "--seeds", "no-such-set"], "unknown seed set"),
        (["--agent", "greedy", "--draw", "2"], "draw_count=2"),
        (["--agent", "determinized:samples=-1"], "bad value '-1' for option 'samples' of agent 'determinized': must be >= 1"),
        (["--agent", "greedy", "--seeds", "models/ppo_draw3_actions_bc/model.zip"], "is not a text file: expected a seed file"),
    ],
)
def test_evaluate_script_bad_input_is_one_line(args, message, tmp_path):
    result = _run("evaluate.py", *args, "--out", str(tmp_path), "--quiet")
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and message in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize("args", [["--workers", "0"], ["--seed", "-1"], ["--max-moves", "0"]])
def test_evaluate_script_bad_numbers_name_their_flag(args):
    result = _run("evaluate.py", "--agent", "greedy", *args)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert f"error: argument {args[0]}: expected an integer >= " in result.stderr.strip().splitlines()[-1]


def test_an_unwritable_out_folder_is_refused_before_any_game(tmp_path, monkeypatch):
    import agents.evaluation

    def no_games(*args, **kwargs):
        raise AssertionError("games were played before the output folder was checked")

    monkeypatch.setattr(agents.evaluation, "play_deals", no_games)
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(ValueError, match="bad --out .*: cannot create "):
        agents.evaluation.evaluate("greedy", "1-2", out_dir=blocker / "results", progress=False)


def test_compare_script_table_and_chart(tmp_path):
    for spec in ("random", "greedy"):
        result = _run("evaluate.py", "--agent", spec, "--seeds", "1-4", "--workers", "1", "--max-moves", "100",
                      "--out", str(tmp_path), "--quiet")
        assert result.returncode == 0, result.stderr
    chart = tmp_path / "chart.png"
    result = _run("compare.py", *sorted(str(p) for p in tmp_path.glob("*.json")), "--plot", str(chart))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("| agent") and any(line.startswith("| greedy") for line in lines)
    # both played deals 1-4 under the same rules: the paired table follows, one row for the pair
    paired = lines[lines.index("Same deals, paired by deal:") + 2:]
    assert paired[0].startswith("| agent A") and paired[2].startswith("| greedy | random |") and paired[3] == ""
    assert chart.is_file() and chart.read_bytes()[:4] == b"\x89PNG"
    bad = _run("compare.py", str(tmp_path / "missing.json"))
    assert bad.returncode == 2 and "missing.json" in bad.stderr and "Traceback" not in bad.stderr
    # the chart's path is checked before anything is plotted
    summaries = sorted(str(p) for p in tmp_path.glob("*.json"))
    for plot, message in ((tmp_path / "chart.txt", "chart.txt': the file name must end in a format matplotlib writes ("),
                          (chart / "c.png", "c.png': cannot create ")):
        bad = _run("compare.py", *summaries, "--plot", str(plot))
        assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and message in bad.stderr and "png" in bad.stderr
        assert not bad.stdout and not plot.exists()


@pytest.mark.parametrize(
    "only_first, only_second, expected",
    [(0, 0, 1.0), (3, 3, 1.0), (5, 0, 2 / 2**5), (0, 5, 2 / 2**5), (9, 1, 2 * (1 + 10) / 2**10), (1, 2, 1.0)],
)
def test_sign_test_p(only_first, only_second, expected):
    assert sign_test_p(only_first, only_second) == pytest.approx(expected)


def test_paired_table_counts_deals_and_skips_other_deal_sets(tmp_path):
    def summary(name, wins, rules=None):
        path = tmp_path / f"{name}.csv"
        with open(path, "w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(["deal", "won", "actions"])
            writer.writerows([deal, int(won), "0"] for deal, won in wins.items())
        # the CSV is found beside the summary even when the recorded path is elsewhere
        return {"agent": name, "seeds": "x", "deals": "x", "rules": rules or {"draw_count": 3},
                "csv": f"/elsewhere/{name}.csv", "summary_path": str(tmp_path / f"{name}.json")}

    first = summary("first", {1: True, 2: True, 3: False, 4: True, 5: False})
    second = summary("second", {1: True, 2: False, 3: True, 4: False, 5: False})
    other_deals = summary("other", {1: True, 2: True})
    other_rules = summary("draw1", {1: True, 2: True, 3: False, 4: True, 5: False}, {"draw_count": 1})
    table = paired_table([first, second, other_deals, other_rules]).splitlines()
    assert len(table) == 3  # header, rule, the one pair with the same deals and rules
    assert table[2] == f"| first | second | x | 1 | 2 | 1 | {sign_test_p(2, 1):.2g} |"
    assert paired_table([first, other_deals]) is None


def test_paired_sign_test_leaves_the_tied_deals_out(tmp_path):
    """20 deals only A won, 8 only B won, 170 ties: the sign test reads the 28 split deals alone.

    Counting the ties half to each side would print p = 0.43 instead of 0.036 and hide the
    difference; the two countings print different values here, so the table tells them apart.
    """
    results = {"A": [], "B": []}
    outcomes = [(1, 0)] * 20 + [(0, 1)] * 8 + [(1, 1)] * 100 + [(0, 0)] * 70
    summaries = []
    for index, name in enumerate(results):
        path = tmp_path / f"{name}.csv"
        with open(path, "w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(["deal", "won", "actions"])
            writer.writerows([deal, won[index], "0"] for deal, won in enumerate(outcomes, 1))
        summaries.append({"agent": name, "seeds": "x", "deals": "x", "rules": {"draw_count": 3}, "csv": str(path),
                          "summary_path": str(tmp_path / f"{name}.json")})
    row = paired_table(summaries).splitlines()[2]
    assert row == f"| A | B | x | 100 | 20 | 8 | {sign_test_p(20, 8):.2g} |"
    assert f"{sign_test_p(20, 8):.2g}" == "0.036"
    assert f"{sign_test_p(20 + 85, 8 + 85):.2g}" not in row  # what counting the ties would print
