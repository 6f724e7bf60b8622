"""Golden playthroughs (OpenSpiel's idea): replay each recorded game and require the same text.

A failure means the env's behaviour changed somewhere (a rule, a reward, an observation entry, an
action name, the board text). If the change is intended, rewrite the files with
``klondike playthrough --regenerate tests/playthroughs/*.txt`` and review ``git diff``.
"""

import difflib
from pathlib import Path

import pytest
from conftest import klondike

from klondike_env.playthrough import FORMAT_LINE, playthrough_text, read_playthrough

PLAYTHROUGHS = Path(__file__).parent / "playthroughs"


def playthrough(*argv) -> int:
    return klondike("playthrough", *argv)


FILES = sorted(PLAYTHROUGHS.glob("*.txt"))


def test_the_playthroughs_are_there():
    assert {path.name for path in FILES} >= {"deal3_draw3_solver.txt", "deal7_variants_random.txt"}


@pytest.mark.parametrize("path", FILES, ids=lambda path: path.stem)
def test_replaying_a_playthrough_gives_the_same_text(path):
    recorded = path.read_text(encoding="utf-8")
    deal, options, actions = read_playthrough(recorded)
    replayed = playthrough_text(deal, actions, **options)
    if replayed != recorded:
        diff = difflib.unified_diff(recorded.splitlines(), replayed.splitlines(), "recorded", "replayed", n=2, lineterm="")
        pytest.fail(f"{path.name} changed (regenerate it only if the change is intended):\n" + "\n".join(list(diff)[:60]))


def test_the_solver_playthrough_ends_in_a_win_with_recycles_on_the_way():
    text = (PLAYTHROUGHS / "deal3_draw3_solver.txt").read_text(encoding="utf-8")
    steps = text.split("\n--- step ")[1:]
    assert "reward 1.1  terminated True  truncated False" in steps[-1]
    assert "foundation 52" in steps[-1] and "won True" in steps[-1]
    assert sum("(recycle)" in step.splitlines()[0] for step in steps) >= 2
    assert all("illegal_action False" in step for step in steps)


def test_the_variants_playthrough_pins_an_illegal_step_and_the_truncation():
    text = (PLAYTHROUGHS / "deal7_variants_random.txt").read_text(encoding="utf-8")
    steps = text.split("\n--- step ")[1:]
    illegal = [step for step in steps if "illegal_action True" in step]
    assert len(illegal) == 1 and illegal[0].startswith("5: action 1 (recycle)")
    assert "reward -0.1" in illegal[0]
    assert "truncated True" in steps[-1] and len(steps) == 60


def test_the_playthrough_text_changes_with_the_behaviour():
    # the check can fail: another reward scheme writes different rewards for the same actions
    text = (PLAYTHROUGHS / "deal3_draw3_solver.txt").read_text(encoding="utf-8")
    deal, options, actions = read_playthrough(text)
    assert playthrough_text(deal, actions[:20], **{**options, "reward": "standard"}) != playthrough_text(
        deal, actions[:20], **options)


@pytest.mark.parametrize("text, message", [
    ("deal: 3\n", "not a playthrough"),
    (FORMAT_LINE + "\ndeal: 3\nmoves: 0 0\n", "bad playthrough header line 'moves: 0 0'"),
    (FORMAT_LINE + "\ndeal: 3\n", "it needs a 'deal: ' and an 'actions: ' line"),
])
def test_a_malformed_file_is_a_clear_error(text, message):
    with pytest.raises(ValueError, match=message):
        read_playthrough(text)


def test_actions_past_the_end_of_the_episode_are_refused():
    with pytest.raises(ValueError, match="the episode ended after action 2; 1 actions are left over"):
        playthrough_text(7, [0, 0, 0], max_episode_steps=2)


def test_the_script_writes_a_file_that_regenerates_unchanged(tmp_path, capsys):
    out = tmp_path / "short.txt"
    assert playthrough(*["--deal", "11", "--play", "random", "--seed", "3", "--steps", "6",
                        "--option", "draw_count=1", "--option", "empty_column=any", "--out", str(out)]) == 0
    written = out.read_text(encoding="utf-8")
    assert read_playthrough(written)[1] == {"draw_count": 1, "empty_column": "any", "observation_dtype": "uint8"}
    assert written.count("\n--- step ") == 6
    assert playthrough(*["--regenerate", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == written
    with pytest.raises(SystemExit):
        playthrough(*["--deal", "11", "--option", "draw_count"])
    assert "bad --option 'draw_count': expected name=value" in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["--regenerate", "no/such/file.txt"], "No such file or directory"),
    (["--deal", "1", "--option", "foo=1"], "unknown Klondike env argument(s) foo"),
    (["--deal", "1", "--option", "draw_count=2"], "bad rules option draw_count=2"),
])
def test_the_script_reports_bad_input_in_one_line(argv, message, capsys):
    assert playthrough(*argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("klondike playthrough: error: ") and message in err and err.count("\n") == 1


@pytest.mark.parametrize("argv, message", [
    (["--seed", "-1"], "argument --seed: expected an integer >= 0, got -1"),
    (["--illegal-at", "0"], "argument --illegal-at: expected an integer >= 1, got 0"),
    (["--illegal-at", "7"], "argument --illegal-at: 7 is never played: give a step from 1 to --steps (6)"),
])
def test_the_script_refuses_random_play_settings_it_would_ignore(argv, message, capsys):
    with pytest.raises(SystemExit) as stop:
        playthrough(*["--deal", "11", "--play", "random", "--steps", "6", *argv])
    assert stop.value.code == 2 and message in capsys.readouterr().err
