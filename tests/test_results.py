"""The harness's results files: rows on disk as games end, resume, no silent overwrite, summaries
rebuilt from the rows, any deal numbers in any order."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import kill_part_way

import agents.evaluation as harness
from agents.evaluation import evaluate, summarize_results
from agents.reporting import load_summaries
from agents.results import CSV_COLUMNS, ResultsExistError, read_game_rows, result_stem
from klondike_env import Rules

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}  # the scripts import this checkout's packages


def _games(csv_path) -> list[tuple]:
    """The rows of a results CSV without the timing columns (which differ run to run)."""
    return [(row["deal"], row["won"], row["moves"], row["foundation_cards"], row["ending"], row["actions"])
            for row in read_game_rows(csv_path, CSV_COLUMNS)]


@pytest.mark.parametrize("order", ["ascending", "descending"])
def test_64_bit_deal_files_in_any_order_evaluate_and_summarise(tmp_path, order):
    deals = [12_345, 9_000_000_000_000_000_000, 7, 2**64 - 1]
    seeds = tmp_path / "big.txt"
    seeds.write_text("\n".join(map(str, sorted(deals, reverse=order == "descending"))) + "\n")
    path, summary = evaluate("greedy", str(seeds), seed=0, max_moves=40, out_dir=tmp_path / "out", progress=False)
    assert summary["games"] == 4 and summary["deals"] == "4 deals"
    assert sorted(int(row["deal"]) for row in read_game_rows(summary["csv"])) == sorted(deals)
    rebuilt = summarize_results(summary["csv"], write=False)[1]
    assert (rebuilt["games"], rebuilt["wins"], rebuilt["deals"]) == (4, summary["wins"], "4 deals")
    # consecutive deals near the top of the range are still told as a range, with no work per deal in between
    seeds.write_text(f"{2**64 - 2}\n{2**64 - 1}\n")
    assert evaluate("random", str(seeds), max_moves=5, out_dir=tmp_path / "top", progress=False)[1]["deals"] == \
        f"{2**64 - 2}-{2**64 - 1}"


def test_a_run_that_fails_after_some_games_keeps_them_and_a_rerun_completes_it(tmp_path, monkeypatch):
    clean = evaluate("random", "1-6", seed=3, max_moves=60, out_dir=tmp_path / "clean", progress=False)[1]
    play_game, played = harness.play_game, []

    def failing_play_game(*args, **kwargs):
        if len(played) == 4:
            raise MemoryError("injected after 4 games")
        played.append(args[1])
        return play_game(*args, **kwargs)

    monkeypatch.setattr(harness, "play_game", failing_play_game)
    out = tmp_path / "out"
    with pytest.raises(MemoryError):
        evaluate("random", "1-6", seed=3, max_moves=60, out_dir=out, progress=False)
    csv_path = out / f"{result_stem('random', '1-6', Rules(), 3, 60)}.csv"
    # the games that ended before the failure are on disk (the first call is the unscored warm-up on deal 0)
    kept = _games(csv_path)
    assert played == [0, 1, 2, 3] and [game[0] for game in kept] == ["1", "2", "3"]
    assert json.loads(csv_path.with_suffix(".json").read_text())["complete"] is False
    # the games played so far summarise from the CSV (compare.py accepts it)
    assert load_summaries([str(csv_path)])[0]["games"] == 3
    with pytest.raises(ValueError, match="unfinished run: rerun its command"):
        load_summaries([str(csv_path.with_suffix(".json"))])
    monkeypatch.setattr(harness, "play_game", play_game)
    path, summary = evaluate("random", "1-6", seed=3, max_moves=60, out_dir=out, progress=False)
    assert summary["resumed_games"] == 3 and summary["games"] == 6
    assert _games(csv_path) == _games(clean["csv"])  # every deal once, in order, the same games
    assert json.loads(path.read_text())["complete"] is True


def test_a_killed_run_keeps_its_rows_and_the_same_command_finishes_it(tmp_path):
    out = tmp_path / "out"
    command = [sys.executable, "-m", "klondike_app", "evaluate", "--agent", "random", "--seeds", "1-400", "--workers", "2",
               "--max-moves", "400", "--out", str(out), "--quiet"]
    csv_path = out / "random_1-400_draw3_max400.csv"
    kill_part_way(command, csv_path, 6)
    kept = _games(csv_path)
    assert 5 <= len(kept) < 400, "the run was not killed part-way"
    finished = subprocess.run(command, cwd=ROOT, env=ENV, capture_output=True, text=True)
    assert finished.returncode == 0, finished.stderr
    games = _games(csv_path)
    assert [int(game[0]) for game in games] == list(range(1, 401))  # each deal once, in order
    assert set(kept) <= set(games)  # the rows written before the kill are kept as they were
    summary = json.loads(csv_path.with_suffix(".json").read_text())
    assert summary["games"] == 400 and summary["resumed_games"] >= len(kept) - 1


def test_another_seed_leaves_the_first_runs_files_and_a_clash_is_refused(tmp_path):
    first, _ = evaluate("random", "1-3", seed=0, max_moves=30, out_dir=tmp_path, progress=False)
    before = {path.name: path.read_bytes() for path in tmp_path.iterdir()}
    second, _ = evaluate("random", "1-3", seed=1, max_moves=30, out_dir=tmp_path, progress=False)
    assert second.name == "random_1-3_draw3_seed1_max30.json" and first.name == "random_1-3_draw3_max30.json"
    assert {name: (tmp_path / name).read_bytes() for name in before} == before
    # the same run again: nothing to play, the same rows
    again = evaluate("random", "1-3", seed=0, max_moves=30, out_dir=tmp_path, progress=False)[1]
    assert again["resumed_games"] == 3 and (tmp_path / "random_1-3_draw3_max30.csv").read_bytes() == before[
        "random_1-3_draw3_max30.csv"]
    # two seed files with the same name are different runs under one file name: refused, one line
    for folder, deals in (("a", "1\n2\n"), ("b", "5\n6\n")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "mine.txt").write_text(deals)
    out = tmp_path / "out"
    evaluate("random", str(tmp_path / "a" / "mine.txt"), max_moves=30, out_dir=out, progress=False)
    kept = {path.name: path.read_bytes() for path in out.iterdir()}
    script = [sys.executable, "-m", "klondike_app", "evaluate", "--agent", "random", "--seeds", str(tmp_path / "b" / "mine.txt"),
              "--max-moves", "30", "--workers", "1", "--out", str(out), "--quiet"]
    refused = subprocess.run(script, cwd=ROOT, env=ENV, capture_output=True, text=True)
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1 and "holds another run (seeds" in refused.stderr
    assert "--overwrite" in refused.stderr and {p.name: p.read_bytes() for p in out.iterdir()} == kept
    replaced = subprocess.run(script + ["--overwrite"], cwd=ROOT, env=ENV, capture_output=True, text=True)
    assert replaced.returncode == 0, replaced.stderr
    assert [game[0] for game in _games(out / "random_mine_draw3_max30.csv")] == ["5", "6"]


def test_a_csv_without_its_json_or_with_foreign_deals_is_not_resumed(tmp_path):
    stem = result_stem("random", "1-3", Rules(), 0, 30)
    (tmp_path / f"{stem}.csv").write_text("deal,won\n")
    with pytest.raises(ResultsExistError, match="exists without its .*json.*--overwrite"):
        evaluate("random", "1-3", max_moves=30, out_dir=tmp_path, progress=False)
    assert (tmp_path / f"{stem}.csv").read_text() == "deal,won\n"
