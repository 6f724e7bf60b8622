"""Behaviour cloning before PPO (agents/training/pretrain.py) from recorded harness games."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from agents.evaluation import evaluate  # noqa: E402
from agents.training.config import ConfigError  # noqa: E402
from agents.training.pretrain import DemonstrationError, behaviour_clone, load_demonstrations  # noqa: E402
from agents.training.run import train  # noqa: E402
from agents.training.config import load_config  # noqa: E402

TINY = Path(__file__).resolve().parents[1] / "configs" / "tiny.yaml"
GREEDY_DEALS = "5013-5024"  # greedy wins one of them (5024)


def tiny_config(*overrides):
    return load_config(TINY, list(overrides))


@pytest.fixture(scope="module")
def greedy_games(tmp_path_factory):
    out = tmp_path_factory.mktemp("demos")
    path, summary = evaluate("greedy", GREEDY_DEALS, out_dir=out, progress=False)
    return str(path.with_suffix(".csv")), summary


def test_demonstrations_replay_the_recorded_games(greedy_games):
    csv_path, summary = greedy_games
    config = tiny_config("env.max_episode_steps=1000", "env.no_progress_steps=null")
    demos = load_demonstrations([str(Path(csv_path).parent / "*.csv")], config["env"], gamma=0.9)
    assert demos.games == summary["games"] and demos.wins == summary["wins"]
    assert demos.observations.shape == (len(demos), 745)
    # every recorded action is legal where it was played, and returns are discounted sums
    assert demos.action_masks[np.arange(len(demos)), demos.actions].all()
    last_of_game = np.r_[demos.game_index[1:] != demos.game_index[:-1], True]
    # a game's last reward is at most a card home (0.1) plus the win bonus (1.0)
    assert np.all(np.abs(demos.returns[last_of_game]) <= 1.1 + 1e-6)


def test_won_only_keeps_just_the_won_games(greedy_games):
    csv_path, summary = greedy_games
    config = tiny_config("env.max_episode_steps=1000", "env.no_progress_steps=null")
    every = load_demonstrations([csv_path], config["env"], gamma=0.9)
    won = load_demonstrations([csv_path], config["env"], gamma=0.9, won_only=True)
    assert 0 < summary["wins"] < summary["games"]  # the fixture's deals hold both kinds
    assert won.games == won.wins == summary["wins"]
    kept = np.isin(every.game_index, [index for index in range(every.games) if every.returns[
        np.flatnonzero(every.game_index == index)[-1]] > 0.5])  # a win's last reward includes +1
    assert len(won) == kept.sum() and np.array_equal(won.actions, every.actions[kept])
    assert np.array_equal(won.returns, every.returns[kept])


def test_cloning_learns_the_demonstrator(greedy_games):
    from sb3_contrib import MaskablePPO

    from klondike_env.sb3_vec import KlondikeVecEnv

    csv_path, _ = greedy_games
    config = tiny_config("env.max_episode_steps=1000")
    demos = load_demonstrations([csv_path], config["env"], gamma=0.99)
    model = MaskablePPO("MlpPolicy", KlondikeVecEnv(2, seed=0), seed=0, policy_kwargs={"net_arch": [64]})
    first = behaviour_clone(model, demos, epochs=1, batch_size=256, learning_rate=1e-3, value_coef=0.5, holdout=0.0,
                            seed=0, verbose=0)
    last = behaviour_clone(model, demos, epochs=30, batch_size=256, learning_rate=1e-3, value_coef=0.5,
                           holdout=0.0, seed=0, verbose=0)
    # the greedy player is a deterministic function of the position: a network can fit it
    assert last["policy_loss"] < first["policy_loss"] and last["train_accuracy"] > 0.8


def test_training_run_with_pretraining(greedy_games, tmp_path):
    csv_path, _ = greedy_games
    config = tiny_config(f"pretrain.demonstrations=[{csv_path}]", "pretrain.epochs=2")
    run_dir = train(config, runs_root=tmp_path, verbose=0)
    summary = json.loads((run_dir / "pretrain.json").read_text())
    assert summary["games"] == 12 and summary["epoch"] in (1, 2)
    assert (run_dir / "model.zip").is_file()
    # the cloned policy is scored before PPO changes it (step 0), then every eval_freq steps
    steps = [int(line.split(",")[0]) for line in (run_dir / "evaluations.csv").read_text().splitlines()[1:]]
    assert steps[0] == 0 and steps[1:] == sorted(set(steps[1:])) and len(steps) >= 2


def test_select_keeps_the_epoch_that_scores_best(greedy_games, tmp_path):
    from sb3_contrib import MaskablePPO

    from klondike_env.sb3_vec import KlondikeVecEnv

    csv_path, _ = greedy_games
    demos = load_demonstrations([csv_path], tiny_config()["env"], gamma=0.99)
    model = MaskablePPO("MlpPolicy", KlondikeVecEnv(2, seed=0), seed=0, policy_kwargs={"net_arch": [32]})
    scores = iter([(0.1, 5.0), (0.3, 2.0), (0.3, 1.0), (0.2, 9.0)])
    kept = behaviour_clone(model, demos, epochs=4, batch_size=256, learning_rate=1e-3, value_coef=0.5, holdout=0.2,
                           seed=0, verbose=0, score=lambda: next(scores))
    assert kept["epoch"] == 2 and kept["validation_score"] == (0.3, 2.0)
    # end to end: the run scores each epoch on its validation deals
    config = tiny_config(f"pretrain.demonstrations=[{csv_path}]", "pretrain.epochs=2", "pretrain.select=validation",
                         "train.total_timesteps=0", "train.eval_deals=4")
    summary = json.loads((train(config, runs_root=tmp_path, verbose=0) / "pretrain.json").read_text())
    assert summary["epoch"] in (1, 2) and 0.0 <= summary["validation_score"][0] <= 1.0


def test_clone_only_run(greedy_games, tmp_path):
    from sb3_contrib import MaskablePPO

    csv_path, _ = greedy_games
    config = tiny_config(f"pretrain.demonstrations=[{csv_path}]", "pretrain.epochs=2", "train.total_timesteps=0")
    run_dir = train(config, runs_root=tmp_path, verbose=0)
    # no PPO step: the saved model is the clone, scored once at step 0
    assert MaskablePPO.load(run_dir / "model.zip").num_timesteps == 0
    steps = [int(line.split(",")[0]) for line in (run_dir / "evaluations.csv").read_text().splitlines()[1:]]
    assert steps == [0]
    with pytest.raises(ConfigError, match=r"train.total_timesteps must be at least 1 \(0 only with pretrain"):
        tiny_config("train.total_timesteps=0")


def test_evaluation_deals_are_refused(tmp_path):
    path, _ = evaluate("greedy", "999-1000", out_dir=tmp_path, progress=False)
    with pytest.raises(DemonstrationError, match="deal 999, which is in an evaluation set"):
        load_demonstrations([str(path.with_suffix(".csv"))], tiny_config()["env"], gamma=0.99)
    with pytest.raises(DemonstrationError, match="no file matches"):
        load_demonstrations([str(tmp_path / "nothing-*.csv")], tiny_config()["env"], gamma=0.99)
    with pytest.raises(DemonstrationError, match="no results CSV"):
        load_demonstrations([str(tmp_path / "missing.csv")], tiny_config()["env"], gamma=0.99)


@pytest.mark.parametrize("override,message", [
    ("pretrain.epoch=3", "unknown key pretrain.epoch (did you mean 'epochs'?)"),
    ("pretrain.holdout=1.5", "pretrain.holdout must be in [0, 1)"),
    ("pretrain.demonstrations=[3]", "pretrain.demonstrations must be a list of CSV paths"),
    ("pretrain.select=best", "pretrain.select must be one of 'holdout', 'validation', got 'best'"),
    ("pretrain.select=validation train.eval_deals=0", "pretrain.select: validation needs train.eval_deals > 0"),
])
def test_bad_pretrain_config(override, message):
    with pytest.raises(ConfigError, match=re.escape(message)):
        tiny_config(*override.split())
