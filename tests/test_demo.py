"""klondike demo: plays a deal to its end; bad input is one line and exit code 2."""

import subprocess

import pytest
from conftest import klondike_command


def run_demo(*args):
    return subprocess.run(klondike_command("demo", *args), capture_output=True, text=True, timeout=300)


def test_demo_plays_a_deal_to_its_end():
    result = run_demo("--deal", "6", "--every", "1000")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("deal 6, draw 3, agent greedy")
    assert "Final board (" in result.stdout and "Foundations" in result.stdout


def test_demo_names_every_move_and_shows_the_board_at_the_interval():
    result = run_demo("--deal", "6", "--every", "10", "--max-moves", "25")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    moves = [line for line in lines if line.startswith("move ")]
    assert [line.split(":")[0] for line in moves] == [f"move {n}" for n in range(1, 26)]
    assert moves[0] == "move 1: col 6 AD -> foundation"  # the move's name, with the card that moves
    assert sum(line.startswith("Foundations") for line in lines) == 1 + 2 + 1  # the deal, moves 10 and 20, the end
    assert "Final board (stopped at the move limit after 25 moves" in result.stdout


@pytest.mark.parametrize("args, message", [
    (["--agent", "nobody"], "unknown agent 'nobody'"),
    (["--draw", "2"], "draw_count=2: allowed values are 1 and 3"),
    (["--deal", "-1"], "bad deal number -1"),
    (["--deck", "AS KS"], "bad deck: it has 2 cards"),
    (["--deck", ""], "bad deck: it has 0 cards"),
    (["--agent", "nowhere.py:Agent"], "no file nowhere.py"),
    (["--deal", "3", "--deck", "AS KS"], "argument --deck: not allowed with argument --deal"),
    # argparse's own errors: its usage, then the error line
    (["--every", "0"], "argument --every: expected an integer >= 1, got 0"),
    (["--seed", "-1"], "argument --seed: expected an integer >= 0, got -1"),
    (["--max-moves", "-1"], "argument --max-moves: expected an integer >= 1, got -1"),
])
def test_demo_bad_input_is_one_line(args, message):
    result = run_demo(*args)
    assert result.returncode == 2 and not result.stdout
    lines = result.stderr.strip().splitlines()
    assert message in lines[-1] and "Traceback" not in result.stderr
    assert lines[-1].startswith("klondike demo: error:")
    assert message.startswith("argument") or len(lines) == 1


def test_demo_hands_the_oracle_the_true_game_as_the_harness_does():
    result = run_demo("--deal", "3", "--agent", "oracle:nodes=100000", "--every", "1000")
    assert result.returncode == 0, result.stderr
    assert "Final board (won after" in result.stdout


def test_demo_plays_a_deck_as_the_deal_it_comes_from():
    from klondike_env import deal_deck, deck_string

    by_deal = run_demo("--deal", "6", "--max-moves", "30", "--every", "1000")
    by_deck = run_demo("--deck", deck_string(deal_deck(6)), "--max-moves", "30", "--every", "1000")
    assert by_deck.returncode == 0, by_deck.stderr
    assert by_deck.stdout.startswith("the given deck, draw 3, agent greedy")
    assert by_deck.stdout.splitlines()[1:] == by_deal.stdout.splitlines()[1:]
