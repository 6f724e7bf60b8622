"""DAgger labelling (agents/training/dagger.py, `klondike dagger`) and cloning its labels."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from agents.evaluation import deal_seed, play_game
from agents.registry import make_agent
from agents.training.dagger import NO_LABEL, label_deals, label_game, write_labelled_games
from klondike_env.game import Game
from klondike_env.rules import Rules

DEALS = [30001, 30002, 30003]


def replay_checking_labels(game):
    """Replay a labelled game; every label must be legal where it was given."""
    position = Game.new(game.deal, Rules())
    for action, label in zip(game.actions, game.labels):
        assert label == NO_LABEL or position.action_mask()[label]
        position.step(action)
    return position


@pytest.mark.parametrize("deal", DEALS)
def test_labels_are_the_teachers_legal_moves_and_replay(deal):
    game = label_game(make_agent("random"), make_agent("greedy"), deal, Rules(), seed=deal_seed(0, deal), beta=0.5,
                      max_moves=150)
    assert len(game.labels) == len(game.actions) > 0
    end = replay_checking_labels(game)
    assert end.is_won == game.won and sum(end.foundations) == game.foundation_cards
    # with beta=0.5 some moves are the learner's (random), some the teacher's
    played_teacher = np.mean([a == b for a, b in zip(game.actions, game.labels)])
    assert 0.0 < played_teacher < 1.0


def test_beta_one_plays_the_teacher_and_beta_zero_the_learner():
    deal, rules = 30004, Rules()
    seed = deal_seed(0, deal)
    alone = play_game(make_agent("greedy"), deal, rules, seed, max_moves=120)
    as_teacher = label_game(make_agent("random"), make_agent("greedy"), deal, rules, seed=seed - 1, beta=1.0,
                            max_moves=120)
    # every move is the teacher's, until it resigns (no label; the learner's move is played)
    assert all(a == b for a, b in zip(as_teacher.actions, as_teacher.labels) if b != NO_LABEL)
    resigned = as_teacher.labels.index(NO_LABEL) if NO_LABEL in as_teacher.labels else len(as_teacher.labels)
    assert resigned > 0 and as_teacher.actions[:resigned] == alone.actions[:resigned]
    as_learner = label_game(make_agent("greedy"), make_agent("random"), deal, rules, seed=seed, beta=0.0,
                            max_moves=120)
    # the learner alone decides: the game is the one greedy plays by itself
    assert as_learner.actions == alone.actions and as_learner.labels != as_learner.actions


def test_workers_give_the_same_games():
    one = label_deals("random", "greedy", DEALS, Rules(), beta=0.5, max_moves=60, workers=1, progress=False)
    two = label_deals("random", "greedy", DEALS, Rules(), beta=0.5, max_moves=60, workers=2, progress=False)
    assert [(g.deal, g.actions, g.labels) for g in one] == [(g.deal, g.actions, g.labels) for g in two]


@pytest.mark.parametrize("beta, message", [(1.5, "bad beta"), (-0.1, "bad beta")])
def test_bad_beta(beta, message):
    with pytest.raises(ValueError, match=message):
        label_deals("random", "greedy", DEALS, Rules(), beta=beta, max_moves=10, progress=False)


def test_script_refuses_evaluation_deals_and_writes_a_file(tmp_path, capsys):
    from conftest import klondike

    def main(argv):
        return klondike("dagger", *argv)

    assert main(["--learner", "random", "--teacher", "greedy", "--deals", "1995-2005", "--out",
                 str(tmp_path / "x.csv"), "--quiet"]) == 2
    assert "deal 1995 of the 'val' set" in capsys.readouterr().err
    out = tmp_path / "labels.csv"
    assert main(["--learner", "random", "--teacher", "greedy", "--deals", "30001-30002", "--max-moves", "50",
                 "--workers", "1", "--out", str(out), "--quiet"]) == 0
    assert out.is_file() and "2 games" in capsys.readouterr().out


@pytest.mark.parametrize("args, message", [
    (["--workers", "0"], "argument --workers: expected an integer >= 1, got 0"),
    (["--seed", "-1"], "argument --seed: expected an integer >= 0, got -1"),
])
def test_script_refuses_bad_numbers_naming_the_flag(args, message, tmp_path, capsys):
    from conftest import klondike

    with pytest.raises(SystemExit) as stop:
        klondike("dagger", *["--learner", "random", "--teacher", "greedy", "--deals", "30001-30002",
                                    "--out", str(tmp_path / "x.csv"), *args])
    assert stop.value.code == 2 and message in capsys.readouterr().err


def test_script_checks_its_out_file_before_labelling(tmp_path, capsys, monkeypatch):
    from conftest import klondike

    import agents.training.dagger

    monkeypatch.setattr(agents.training.dagger, "label_deals", lambda *a, **k: pytest.fail("games were played"))
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert klondike("dagger", "--learner", "random", "--teacher", "greedy", "--deals", "30001-30002",
                    "--out", blocker / "x.csv") == 2
    err = capsys.readouterr().err
    assert err.startswith("klondike dagger: error: bad --out") and err.count("\n") == 1


def test_cloning_fits_the_labels_not_the_moves_played(tmp_path):
    pytest.importorskip("sb3_contrib")
    from agents.training.config import load_config
    from agents.training.pretrain import DemonstrationError, load_demonstrations

    games = label_deals("random", "greedy", DEALS, Rules(), beta=0.3, max_moves=80, progress=False)
    games[0].labels = (NO_LABEL,) + games[0].labels[1:]  # a position the teacher resigned gives no label
    path = write_labelled_games(games, tmp_path / "labels.csv")
    tiny = Path(__file__).resolve().parents[1] / "configs" / "tiny.yaml"
    # the env's episode limits (tiny: short) do not cut a recorded game short
    env = load_config(tiny, ["env.max_episode_steps=20", "env.no_progress_steps=5"])["env"]
    demos = load_demonstrations([str(path)], env, gamma=0.99)
    expected = [label for game in games for label in game.labels if label != NO_LABEL]
    assert demos.actions.tolist() == expected and len(demos.returns) == len(expected)
    assert demos.action_masks[np.arange(len(demos)), demos.actions].all()
    # a labels column that does not match the moves is refused with the deal named
    text = path.read_text().splitlines()
    text[1] = text[1].rsplit(" ", 1)[0]
    path.write_text("\n".join(text) + "\n")
    with pytest.raises(DemonstrationError, match="deal 30001: .* labels for .* actions"):
        load_demonstrations([str(path)], env, gamma=0.99)


def test_the_oracle_labels_from_where_the_game_is():
    """With the learner's moves in between, the oracle solves again: each of its labels at a
    position the solver proves winnable keeps the game winnable."""
    from klondike_env.solver import SolveStatus, solve

    deal, rules = 30005, Rules()
    assert solve(Game.new(deal, rules), node_limit=200_000).status == SolveStatus.SOLVED
    game = label_game(make_agent("random"), make_agent("oracle:nodes=50000"), deal, rules, seed=deal_seed(0, deal),
                      beta=0.7, max_moves=40)
    position, checked = Game.new(deal, rules), 0
    for action, label in zip(game.actions, game.labels):
        if solve(position, node_limit=50_000).status == SolveStatus.SOLVED:
            after = position.copy()
            after.step(label)
            assert solve(after, node_limit=200_000).status != SolveStatus.UNSOLVABLE
            checked += 1
        position.step(action)
    assert checked >= 10 and game.actions != game.labels
