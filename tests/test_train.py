"""The training pipeline (agents/training, `klondike train`) on configs/tiny.yaml.

Each tiny run takes a few seconds: 256 env steps, 8 envs, a 32-unit network.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import yaml
from conftest import klondike, klondike_command

pytest.importorskip("sb3_contrib")
pytest.importorskip("tensorboard")

from agents.training.config import (  # noqa: E402
    POLICY_DEFAULTS,
    ConfigError,
    apply_overrides,
    load_config,
    parse_override,
)
from agents.training.run import train  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TINY = ROOT / "configs" / "tiny.yaml"


def tiny_config(*overrides):
    return load_config(TINY, list(overrides))


def scalar_steps(run_dir: Path) -> dict[str, list[int]]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    steps: dict[str, list[int]] = {}
    for events in sorted((run_dir / "tb").glob("events.out.tfevents.*")):
        accumulator = EventAccumulator(str(events))
        accumulator.Reload()
        for tag in accumulator.Tags()["scalars"]:
            steps.setdefault(tag, []).extend(event.step for event in accumulator.Scalars(tag))
    return steps


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    return train(tiny_config(), runs_root=tmp_path_factory.mktemp("runs"), verbose=0)


# --- a run and its folder -------------------------------------------------------------
def test_tiny_run_writes_model_checkpoints_events_and_evaluations(tiny_run):
    assert tiny_run.name.startswith("tiny-")
    for name in ("config.yaml", "model.zip", "best_model.zip", "evaluations.csv", "final_eval.json"):
        assert (tiny_run / name).is_file(), name
    checkpoints = sorted(p.name for p in (tiny_run / "checkpoints").iterdir())
    assert checkpoints == [
        "rl_model_128_steps.zip", "rl_model_256_steps.zip",
        "rl_model_state_128_steps.pkl", "rl_model_state_256_steps.pkl",
    ]
    steps = scalar_steps(tiny_run)
    for tag in ("klondike/illegal_actions", "klondike/env_steps_per_s", "klondike/rollout_steps_per_s",
                "eval/win_rate", "eval/foundation_cards", "train/value_loss"):
        assert tag in steps, tag
    assert max(steps["eval/win_rate"]) == 256


def test_resolved_config_spells_out_every_env_keyword(tiny_run):
    from klondike_env.env import KlondikeEnv

    config = yaml.safe_load((tiny_run / "config.yaml").read_text())
    assert set(config) == {"name", "env", "algo", "policy", "train", "pretrain"}
    assert config["env"]["max_episode_steps"] == 60  # from tiny.yaml
    assert config["env"]["draw_count"] == 3  # a default, written out
    KlondikeEnv(**config["env"])  # the policy agent builds its env from this mapping
    assert load_config(tiny_run / "config.yaml") == config  # resolved configs load back unchanged


def test_no_illegal_action_is_ever_sent(tiny_run):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    values = []
    for events in (tiny_run / "tb").glob("events.out.tfevents.*"):
        accumulator = EventAccumulator(str(events))
        accumulator.Reload()
        values += [event.value for event in accumulator.Scalars("klondike/illegal_actions")]
    assert values and max(values) == 0


def test_saved_model_plays_legal_moves_through_the_policy_agent(tiny_run):
    from agents.evaluation import play_game
    from agents.registry import make_agent
    from klondike_env import Rules

    agent = make_agent(f"policy:path={tiny_run / 'model.zip'}")
    # play_game raises AgentError on an illegal move (some deals are dead from the start)
    records = [play_game(agent, deal, Rules(), seed=0, max_moves=150) for deal in range(1, 6)]
    assert sum(record.moves for record in records) > 100
    checkpoint_agent = make_agent(f"policy:path={tiny_run / 'checkpoints' / 'rl_model_128_steps.zip'}")
    assert checkpoint_agent.mode == "information"  # found config.yaml one folder up


def test_final_evaluation_is_reported_with_an_interval(tiny_run):
    import json

    summary = json.loads((tiny_run / "final_eval.json").read_text())
    assert summary["games"] == 4 and 0 <= summary["win_rate"] <= 1
    low, high = summary["win_rate_ci95"]
    assert low <= summary["win_rate"] <= high


# --- resume ---------------------------------------------------------------------------
@pytest.mark.parametrize("option", ["policy.no_repeat=false", "policy.no_repeat=true", "train.losing_move_penalty=1.0"])
def test_resume_continues_the_same_run_exactly(tmp_path, option):
    """256 steps + resume to 384 gives the very weights of 384 steps straight (the loop
    breaker's memory of the games in progress, and the losing-move checks' state, travel
    with the checkpoint too)."""
    from sb3_contrib import MaskablePPO

    straight = train(tiny_config("train.total_timesteps=384", "train.final_eval_deals=0", option),
                     runs_root=tmp_path / "a", verbose=0)
    first_part = train(tiny_config("train.final_eval_deals=0", option), runs_root=tmp_path / "b", verbose=0)
    resumed = train(load_config(first_part / "config.yaml", ["train.total_timesteps=384"]),
                    resume=first_part, runs_root=tmp_path / "b", verbose=0)
    assert resumed == first_part
    model_a = MaskablePPO.load(straight / "model.zip")
    model_b = MaskablePPO.load(resumed / "model.zip")
    assert model_b.num_timesteps == model_a.num_timesteps == 384
    assert model_b._n_updates == model_a._n_updates
    for name, tensor in model_a.policy.state_dict().items():
        assert np.array_equal(tensor.numpy(), model_b.policy.state_dict()[name].numpy()), name
    # one TensorBoard folder whose curves go on past the resume point
    steps = scalar_steps(resumed)
    assert max(steps["train/value_loss"]) == 384
    assert (resumed / "tb" / "progress-to-256.csv").is_file()
    assert yaml.safe_load((resumed / "config.yaml").read_text())["train"]["total_timesteps"] == 384
    evaluated_at = [line.split(",")[0] for line in (resumed / "evaluations.csv").read_text().splitlines()[1:]]
    assert evaluated_at == ["128", "256", "384"]  # the resumed part does not repeat step 256
    assert ("klondike/losing_move_rate" in steps) == option.startswith("train.losing_move_penalty")


def test_losing_move_penalty_marks_the_move_after_which_the_deal_is_lost():
    """Random play in the wrapped env and the plain one, side by side: the rewards differ only
    at the first move after which the position is not solved (within the budget), when it was
    solved after the game's first move."""
    from agents.analysis import is_solved, position_after
    from agents.training.losing_moves import LosingMovePenalty
    from klondike_env.rules import Rules
    from klondike_env.sb3_vec import KlondikeVecEnv

    options = dict(seed=3, max_episode_steps=60, no_progress_steps=None)
    plain, wrapped = KlondikeVecEnv(4, **options), LosingMovePenalty(KlondikeVecEnv(4, **options), 2.0, 20_000)
    plain.reset(), wrapped.reset()
    rng = np.random.default_rng(0)
    games = [([], []) for _ in range(4)]  # per env: actions so far, (move number, penalty) pairs
    finished = []
    for _ in range(400):
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in plain.action_masks()])
        plain.step_async(actions), wrapped.step_async(actions)
        (_, plain_rewards, dones, infos), (_, rewards, _, wrapped_infos) = plain.step_wait(), wrapped.step_wait()
        for row, (actions_so_far, penalties) in enumerate(games):
            actions_so_far.append(int(actions[row]))
            if rewards[row] != plain_rewards[row]:
                penalties.append((len(actions_so_far), round(float(plain_rewards[row] - rewards[row]), 4)))
            if dones[row]:
                finished.append((infos[row]["deal"], actions_so_far, penalties, wrapped_infos[row]["losing_move"]))
                games[row] = ([], [])
    penalised = 0
    for deal, actions, penalties, losing_move in finished:
        solved = [is_solved(position_after(deal, actions, Rules(), moves), 20_000) for moves in range(1, len(actions) + 1)]
        lost_at = solved.index(False) + 1 if False in solved else None
        expected = [(lost_at, 2.0)] if solved[0] and lost_at is not None else []
        assert penalties == expected, deal
        assert losing_move == bool(expected)
        penalised += bool(expected)
    assert len(finished) >= 20 and penalised >= 5


def test_sigterm_saves_a_checkpoint_and_resume_goes_on(tmp_path):
    command = [sys.executable, "-m", "klondike_app", "train", "--config", str(TINY), "--runs-dir",
               str(tmp_path), "--quiet", "--override", "train.total_timesteps=10000000", "train.eval_freq=0",
               "train.final_eval_deals=0", "train.checkpoint_freq=1000000"]
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.time() + 120
    run_dirs = []
    while time.time() < deadline and not run_dirs:
        time.sleep(0.5)
        run_dirs = [p for p in tmp_path.iterdir() if (p / "tb" / "progress.csv").is_file()
                    and (p / "tb" / "progress.csv").stat().st_size > 0]
    assert run_dirs, "training never logged its first update"
    process.send_signal(signal.SIGTERM)
    output, _ = process.communicate(timeout=120)
    assert process.returncode == 0, output
    run_dir = run_dirs[0]
    checkpoints = list((run_dir / "checkpoints").glob("rl_model_*_steps.zip"))
    assert len(checkpoints) == 1, output
    saved_steps = int(checkpoints[0].name.split("_")[2])
    assert saved_steps > 0 and saved_steps % (8 * 16) == 0  # a rollout boundary (8 envs x 16 steps)

    resumed = train(load_config(run_dir / "config.yaml", [f"train.total_timesteps={saved_steps + 128}"]),
                    resume=run_dir, verbose=0)
    from sb3_contrib import MaskablePPO

    assert MaskablePPO.load(resumed / "model.zip").num_timesteps == saved_steps + 128


def test_resume_without_checkpoint_is_a_clear_error(tmp_path):
    run_dir = tmp_path / "empty-run"
    run_dir.mkdir()
    (run_dir / "config.yaml").write_text(TINY.read_text())
    with pytest.raises(ConfigError, match="no complete checkpoint"):
        train(load_config(run_dir / "config.yaml"), resume=run_dir, verbose=0)


# --- config loading and validation -----------------------------------------------------
@pytest.mark.parametrize(
    "override, message",
    [
        ("env.rewrd=win", r"unknown key env\.rewrd \(did you mean 'reward'\?\); allowed in 'env': deals, draw_count"),
        ("algo.n_step=64", r"unknown key algo\.n_step \(did you mean 'n_steps'\?\)"),
        ("policy.layers=[64]", r"unknown key policy\.layers"),
        ("train.epochs=3", r"unknown key train\.epochs"),
        ("trian.seed=1", r"unknown top-level key 'trian' \(did you mean 'train'\?\)"),
        ("train.n_envs=many", r"train\.n_envs must be int \(like 64\), got 'many'"),
        ("train.n_envs=0", r"train\.n_envs must be at least 1"),
        ("train.env_threads=0", r"train\.env_threads must be at least 1"),
        ("algo.gamma=high", r"algo\.gamma must be float"),
        ("algo.learning_rate=fast", r"algo\.learning_rate must be a number or 'lin_<number>'"),
        ("env.draw_count=2", r"env: bad rules option draw_count=2: allowed values are 1 and 3"),
        ("env.observation=pixels", r"env: .*pixels"),
        ("env.reward=score", r"env: unknown reward 'score'"),
        ("env.observation_dtype=float16", r"env: bad observation_dtype 'float16': allowed are 'float32', 'uint8'"),
        ("env.observation_type=uint8", r"unknown key env\.observation_type \(did you mean 'observation_dtype'\?\)"),
        ("policy.activation_fn=swish", r"policy\.activation_fn must be one of relu, tanh"),
        ("policy.features_extractor=cnn", r"policy\.features_extractor must be one of mlp, cards"),
        ("policy.net_arch=[64, -1]", r"policy\.net_arch must be a list of layer sizes"),
        ("policy.action_scorer=pointer", r"policy\.action_scorer must be one of linear, shared, got 'pointer'"),
        ("policy.action_scorer=shared", r"env\.observation must end in '\+actions' .*got 'information'"),
        ("policy.action_hidden=0", r"policy\.action_hidden must be at least 1"),
        (("env.observation=information+full", "policy.features_extractor=cards"),
         r"env\.observation 'information\+full' \(a critic that sees the hidden cards\) works with"),
        ("train.init_model_part=critic", r"train\.init_model_part must be one of all, actor, got 'critic'"),
        ("train.losing_move_penalty=-1", r"train\.losing_move_penalty must be 0 or more, got -1"),
        ("train.losing_move_nodes=0", r"train\.losing_move_nodes must be at least 1, got 0"),
        ("name=a/b", r"name must be a non-empty string without '/'"),
        ("algo=3", r"'algo' must be a mapping"),
        ("train.total_timesteps=2.5", r"^train\.total_timesteps must be int \(like 1000000\), got 2\.5$"),
        # numbers of the right type that crash mid-run or mean nothing
        ("algo.n_steps=0", r"^bad algo\.n_steps 0: expected an integer >= 1$"),
        ("algo.batch_size=-1", r"^bad algo\.batch_size -1: expected an integer >= 2$"),
        ("algo.n_epochs=0", r"^bad algo\.n_epochs 0: expected an integer >= 1$"),
        ("algo.gamma=2", r"^bad algo\.gamma 2: expected a number in \[0, 1\]$"),
        ("algo.gae_lambda=-0.1", r"^bad algo\.gae_lambda -0\.1: expected a number in \[0, 1\]$"),
        ("algo.gamma=.nan", r"^bad algo\.gamma nan: expected a number in \[0, 1\]$"),
        ("algo.target_kl=abc", r"^bad algo\.target_kl 'abc': expected a number > 0$"),
        ("algo.learning_rate=0", r"^bad algo\.learning_rate 0: expected a number > 0$"),
        ("algo.learning_rate=lin_-1", r"^bad algo\.learning_rate 'lin_-1': expected a number > 0$"),
        ("algo.clip_range=0", r"^bad algo\.clip_range 0: expected a number > 0$"),
        ("algo.clip_range_vf=-1", r"^bad algo\.clip_range_vf -1: expected a number > 0$"),
        ("algo.ent_coef=-0.01", r"^bad algo\.ent_coef -0\.01: expected a number >= 0$"),
        ("train.seed=-1", r"^bad train\.seed -1: expected an integer in \[0, 4294967295\]$"),
        ("train.device=gpu", r"^bad train\.device 'gpu': expected auto, cpu, cuda, cuda:<index> or mps$"),
    ],
)
def test_bad_configs_name_what_is_wrong(override, message):
    with pytest.raises(ConfigError, match=message):
        tiny_config(*override) if isinstance(override, tuple) else tiny_config(override)


def test_whole_floats_stand_for_ints():
    """YAML reads 2e7 as a float; where an int goes, a whole one is that int."""
    config = tiny_config("train.total_timesteps=2e7", "algo.n_steps=1.6e1", "policy.action_hidden=8.0")
    assert config["train"]["total_timesteps"] == 20_000_000 and type(config["train"]["total_timesteps"]) is int
    assert type(config["algo"]["n_steps"]) is int and type(config["policy"]["action_hidden"]) is int
    assert tiny_config("algo.target_kl=null", "algo.ent_coef=0")["algo"]["target_kl"] is None  # edges allowed


def test_overrides_are_yaml_values():
    assert parse_override("algo.learning_rate=1e-4") == (["algo", "learning_rate"], 1e-4)
    assert parse_override("policy.net_arch=[64, 64]") == (["policy", "net_arch"], [64, 64])
    assert parse_override("env.max_passes=null") == (["env", "max_passes"], None)
    assert parse_override("train.total_timesteps=2_000_000")[1] == 2_000_000
    config = tiny_config("policy.net_arch.pi=[16]", "algo.learning_rate=lin_1e-3", "env.max_passes=3")
    assert config["policy"]["net_arch"] == {"pi": [16], "vf": [32]}
    assert config["algo"]["learning_rate"] == "lin_1e-3"
    assert config["env"]["max_passes"] == 3
    with pytest.raises(ConfigError, match="must look like section.key=value"):
        apply_overrides({}, ["algo.gamma"])
    with pytest.raises(ConfigError, match="not valid YAML"):
        parse_override("policy.net_arch=[64,")


def test_linear_schedule_decays_to_zero():
    from agents.training.run import algo_kwargs

    schedule = algo_kwargs({"learning_rate": "lin_0.001"})["learning_rate"]
    assert schedule(1.0) == pytest.approx(0.001) and schedule(0.5) == pytest.approx(0.0005)
    assert schedule(0.0) == 0


def test_bad_config_files(tmp_path):
    with pytest.raises(ConfigError, match="missing.yaml' not found: expected a YAML training config$"):
        load_config(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nalgo: [1, 2\n")
    with pytest.raises(ConfigError, match=r"^config file \S*bad\.yaml, line 3, column 1: not valid YAML \(expected "
                                          r"',' or '\]', but got '<stream end>'\); expected a YAML training config$"):
        load_config(bad)
    bad.write_text("- 1\n- 2\n")
    with pytest.raises(ConfigError, match="mapping of name, env, .* got list; expected a YAML training config$"):
        load_config(bad)
    bad.write_bytes(b"PK\x03\x04\xa3\x00")  # a model .zip given as the config
    with pytest.raises(ConfigError, match="bad.yaml' is not a text file: expected a YAML training config$"):
        load_config(bad)
    with pytest.raises(ConfigError, match="not a run folder"):
        train(tiny_config(), resume=tmp_path, verbose=0)


def test_shipped_configs_are_valid():
    from agents.training.pretrain import expand_paths

    configs = sorted((ROOT / "configs").glob("*.yaml"))
    # the configs behind the committed models ship
    assert {path.parent.name for path in (ROOT / "models").glob("*/config.yaml")} <= {path.stem for path in configs}
    for path in configs:
        config = load_config(path)
        assert config["name"]
        # the demonstrations a shipped config names are shipped too (paths relative to the repo root)
        for pattern in config["pretrain"]["demonstrations"]:
            assert expand_paths([str(ROOT / pattern)]), (path.name, pattern)


def test_a_config_starts_from_its_base_and_overrides_what_it_names(tmp_path):
    (tmp_path / "base.yaml").write_text("name: base\nalgo: {n_epochs: 3, gamma: 0.9}\ntrain: {n_envs: 4}\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "child.yaml").write_text("base: ../base.yaml\nname: child\nalgo: {gamma: 0.8}\n")
    config = load_config(tmp_path / "sub" / "child.yaml")
    assert (config["name"], config["algo"]["n_epochs"], config["algo"]["gamma"], config["train"]["n_envs"]) == (
        "child", 3, 0.8, 4)
    (tmp_path / "base.yaml").write_text("base: sub/child.yaml\nname: base\n")
    with pytest.raises(ConfigError, match=r"base sub/child\.yaml leads back to child\.yaml \(a loop of bases\)"):
        load_config(tmp_path / "sub" / "child.yaml")
    (tmp_path / "lost.yaml").write_text("base: nowhere.yaml\n")
    with pytest.raises(ConfigError, match="nowhere.yaml' not found: expected a YAML training config"):
        load_config(tmp_path / "lost.yaml")


def run_train_script_expecting_an_error(runs_dir: Path, *args: str) -> str:
    """`klondike train`'s one-line error for ``args``; no run folder was made."""
    result = subprocess.run(
        [sys.executable, "-m", "klondike_app", "train", "--runs-dir", str(runs_dir), *args],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 2, result.stdout + result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr  # no traceback, no YAML dump
    assert result.stderr.startswith("klondike train: error: ")
    assert not runs_dir.exists() or not any(runs_dir.iterdir())  # no run folder for a config that failed
    return result.stderr


@pytest.mark.parametrize("override, message", [
    ("algo.n_step=64", "unknown key algo.n_step"),
    ("pretrain.demonstrations=[no/such/games.csv]", "pretrain.demonstrations: no results CSV at no/such/games.csv"),
    ("algo.gamma=2", "bad algo.gamma 2: expected a number in [0, 1]"),
    ("train.device=gpu", "bad train.device 'gpu': expected auto, cpu, cuda"),
    ("train.eval_seeds=abc", "train.eval_seeds: unknown seed set 'abc'"),
    ("train.init_model=/nope.zip", "train.init_model: model file '/nope.zip' not found"),
])
def test_train_script_reports_a_bad_override_in_one_line(tmp_path, override, message):
    assert message in run_train_script_expecting_an_error(tmp_path, "--config", str(TINY), "--override", override)


@pytest.mark.parametrize("name, content", [
    ("model.zip", b"PK\x03\x04\x14\x00\x00\x00\x08\x00\xa3\x94"),  # a model given as the config
    ("README.md", b"# Klondike\n\nA suite: draw-3\nsolitaire, for RL\n- and a list\n"),
])
def test_train_script_reports_a_file_that_is_no_yaml_config_in_one_line(tmp_path, name, content):
    path = tmp_path / name
    path.write_bytes(content)
    error = run_train_script_expecting_an_error(tmp_path / "runs", "--config", str(path))
    assert name in error and error.rstrip().endswith("expected a YAML training config")


@pytest.mark.parametrize("override, message", [
    ("train.eval_seeds=abc", r"train\.eval_seeds: unknown seed set 'abc'"),
    ("train.init_model=nowhere/model.zip", r"train\.init_model: model file 'nowhere/model\.zip' not found"),
    ("train.device=cuda", r"^bad train\.device 'cuda': this machine has no cuda device; use cpu or auto$"),
])
def test_what_the_config_names_is_checked_before_the_run_folder_is_made(tmp_path, monkeypatch, override, message):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)  # the same on a machine with a GPU
    with pytest.raises(ConfigError, match=message):
        train(tiny_config(override), runs_root=tmp_path, verbose=0)
    assert not any(tmp_path.iterdir())


def test_a_cuda_index_this_machine_lacks_is_refused(tmp_path, monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    message = r"^bad train\.device 'cuda:3': this machine has 1 cuda device\(s\), cuda:0 to cuda:0$"
    with pytest.raises(ConfigError, match=message):
        train(tiny_config("train.device=cuda:3"), runs_root=tmp_path, verbose=0)
    assert not any(tmp_path.iterdir())


# --- networks ---------------------------------------------------------------------------
@pytest.mark.parametrize("observation", ["visible", "information", "full"])
def test_card_attention_extractor_shapes(observation):
    import torch

    from agents.training.networks import CardAttentionExtractor
    from klondike_env.observation import observation_space

    space = observation_space(observation)
    extractor = CardAttentionExtractor(space, embedding_dim=16, heads=2, layers=1)
    features = extractor(torch.as_tensor(np.stack([space.sample() for _ in range(3)])))
    assert features.shape == (3, extractor.features_dim) == (3, 48)


@pytest.mark.parametrize("observation, extractor_name, kwargs", [
    ("information", "mlp", {}),
    ("visible+actions", "mlp", {}),
    ("full", "cards", {"embedding_dim": 16, "heads": 2, "layers": 1}),
])
def test_uint8_extractors_see_the_float32_observation(observation, extractor_name, kwargs):
    """uint8 numerators through the scaling extractor give the float32 run's features, bit for bit."""
    import torch
    from stable_baselines3.common.preprocessing import preprocess_obs
    from stable_baselines3.common.torch_layers import FlattenExtractor

    from agents.training.networks import CardAttentionExtractor, ScaledFlattenExtractor, policy_kwargs
    from klondike_env import Game
    from klondike_env.observation import observation_space, observe

    games = [Game.new(deal) for deal in range(20)]
    rng = np.random.default_rng(0)
    for game in games:
        for _ in range(int(rng.integers(0, 120))):
            legal = game.legal_actions()
            if not legal:
                break
            game.step(int(rng.choice(legal)))
    spaces = {dtype: observation_space(observation, dtype) for dtype in ("float32", "uint8")}
    batches = {dtype: torch.as_tensor(np.stack([observe(game, observation, dtype) for game in games]))
               for dtype in spaces}
    policy = {**POLICY_DEFAULTS, "features_extractor": extractor_name, "net_arch": [8],
              "card_embedding_dim": 16, "attention_heads": 2, "attention_layers": 1}
    chosen = policy_kwargs(policy, {"observation": observation, "observation_dtype": "uint8"})
    if extractor_name == "mlp":
        assert chosen["features_extractor_class"] is ScaledFlattenExtractor
        assert "features_extractor_class" not in policy_kwargs(policy, {"observation": observation})
        float_extractor = FlattenExtractor(spaces["float32"])
        uint8_extractor = ScaledFlattenExtractor(spaces["uint8"], observation)
    else:
        assert chosen["features_extractor_kwargs"]["observation_mode"] == observation
        torch.manual_seed(0)
        float_extractor = CardAttentionExtractor(spaces["float32"], **kwargs)
        torch.manual_seed(0)
        uint8_extractor = CardAttentionExtractor(spaces["uint8"], **kwargs, observation_mode=observation)
    # as SB3 feeds them: preprocess_obs casts a Box observation to float
    features = {dtype: extractor(preprocess_obs(batches[dtype], spaces[dtype]))
                for dtype, extractor in (("float32", float_extractor), ("uint8", uint8_extractor))}
    assert features["float32"].shape == features["uint8"].shape
    assert torch.equal(features["float32"], features["uint8"])
    with pytest.raises(ValueError, match="not a uint8"):
        ScaledFlattenExtractor(spaces["float32"], observation)


def test_uint8_run_learns_the_float32_runs_weights_and_its_agent_sends_uint8(tmp_path):
    """The network sees the same numbers, so the same seed gives the same weights, bit for bit."""
    import torch
    from sb3_contrib import MaskablePPO

    from agents.evaluation import play_game
    from agents.registry import make_agent
    from agents.training.networks import ScaledFlattenExtractor
    from klondike_env import Rules

    weights, run_dirs = {}, {}
    for dtype in ("float32", "uint8"):
        run_dirs[dtype] = train(tiny_config(f"env.observation_dtype={dtype}", "train.final_eval_deals=0",
                                            "train.eval_freq=0"), runs_root=tmp_path / dtype, verbose=0)
        policy = MaskablePPO.load(run_dirs[dtype] / "model.zip", device="cpu").policy
        weights[dtype] = {name: value for name, value in policy.state_dict().items() if "divisors" not in name}
    assert weights["float32"].keys() == weights["uint8"].keys()
    assert all(torch.equal(value, weights["uint8"][name]) for name, value in weights["float32"].items())
    assert yaml.safe_load((run_dirs["uint8"] / "config.yaml").read_text())["env"]["observation_dtype"] == "uint8"
    agent = make_agent(f"policy:path={run_dirs['uint8'] / 'model.zip'}")
    assert agent.observation_dtype == "uint8"
    assert isinstance(agent.model.policy.features_extractor, ScaledFlattenExtractor)
    assert play_game(agent, 3, Rules(), seed=0, max_moves=40).moves > 0


def test_card_network_trains(tmp_path):
    run_dir = train(tiny_config("policy.features_extractor=cards", "policy.card_embedding_dim=16",
                                "policy.attention_heads=2", "train.total_timesteps=128",
                                "train.final_eval_deals=0", "train.eval_freq=0"),
                    runs_root=tmp_path, verbose=0)
    assert (run_dir / "model.zip").is_file()


def test_shared_action_scorer_trains_and_plays_through_the_policy_agent(tmp_path):
    import torch

    from agents.evaluation import play_game
    from agents.registry import make_agent
    from agents.training.networks import ActionScoringPolicy
    from klondike_env import Rules
    from klondike_env.core import NUM_ACTIONS
    from klondike_env.observation import ACTION_FEATURES

    run_dir = train(tiny_config("env.observation=information+actions", "policy.action_scorer=shared",
                                "policy.action_hidden=16", "train.final_eval_deals=0"),
                    runs_root=tmp_path, verbose=0)
    agent = make_agent(f"policy:path={run_dir / 'model.zip'}")
    policy = agent.model.policy
    assert isinstance(policy, ActionScoringPolicy) and policy.action_hidden == 16
    assert play_game(agent, 3, Rules(), seed=0, max_moves=60).moves > 0
    # with the pi MLP blind to the per-action features, one action's features reach that
    # action's score only (the shared scorer reads action a's features for action a)
    scorer = policy.mlp_extractor
    with torch.no_grad():
        scorer.mlp.policy_net[0].weight[:, scorer.features_start:] = 0.0
    observation = torch.rand(2, policy.observation_space.shape[0])
    changed = observation.clone()
    action = 40
    start = observation.shape[1] - (NUM_ACTIONS - action) * ACTION_FEATURES
    changed[:, start:start + ACTION_FEATURES] += 1.0
    with torch.no_grad():
        scores = policy.action_net(policy.mlp_extractor.forward_actor(policy.extract_features(observation)))
        changed_scores = policy.action_net(policy.mlp_extractor.forward_actor(policy.extract_features(changed)))
    differs = (scores != changed_scores).any(dim=0)
    assert differs[action] and differs.sum() == 1


def test_batched_policy_evaluation_writes_harness_files(tiny_run, tmp_path):
    import json

    from agents.training.evaluation import evaluate_policy_file

    path, summary = evaluate_policy_file(tiny_run / "model.zip", "1-6", max_moves=80, out_dir=tmp_path)
    assert summary["games"] == 6 and summary["max_moves"] == 80
    assert json.loads(path.read_text())["wins"] == summary["wins"]
    rows = path.with_suffix(".csv").read_text().splitlines()
    assert rows[0].startswith("deal,won,moves") and len(rows) == 7
    assert all(int(row.split(",")[2]) <= 80 for row in rows[1:])
    # each row's actions replay the game it records (so the CSV can be a pretrain demonstration)
    from agents.evaluation import read_game_rows, parse_moves
    from klondike_env import Game

    for row in read_game_rows(path.with_suffix(".csv")):
        game = Game.new(int(row["deal"]))
        actions = parse_moves(row["actions"])
        assert len(actions) == int(row["moves"])
        for action in actions:
            game.step(action)
        assert sum(game.foundations) == int(row["foundation_cards"])
    # the same deals and seed give the same games
    _, again = evaluate_policy_file(tiny_run / "model.zip", "1-6", max_moves=80, out_dir=tmp_path / "again")
    assert again["wins"] == summary["wins"] and again["mean_foundation_cards"] == summary["mean_foundation_cards"]
    # the same command into the same folder: the run is complete, nothing is played or rewritten
    rows = path.with_suffix(".csv").read_bytes()
    _, resumed = evaluate_policy_file(tiny_run / "model.zip", "1-6", max_moves=80, out_dir=tmp_path)
    assert resumed["resumed_games"] == 6 and path.with_suffix(".csv").read_bytes() == rows


def test_validation_plays_the_harness_protocol(tiny_run, tmp_path):
    """In-run validation scores a model as klondike evaluate-policy does (no training cuts)."""
    from sb3_contrib import MaskablePPO

    from agents.training.config import load_config
    from agents.training.evaluation import evaluate_model, evaluate_policy_file
    from agents.training.run import _eval_env_kwargs

    config = load_config(tiny_run / "config.yaml", ["env.no_progress_steps=5", "env.max_episode_steps=20"])
    kwargs = _eval_env_kwargs(config)
    assert kwargs["no_progress_steps"] is None and kwargs["max_episode_steps"] == 1000
    model = MaskablePPO.load(tiny_run / "model.zip", device="cpu")
    ours = evaluate_model(model, [1001, 1002, 1003], kwargs, deterministic=True)["summary"]
    _, harness = evaluate_policy_file(tiny_run / "model.zip", "1001-1003", deterministic=True, out_dir=tmp_path)
    assert ours["wins"] == harness["wins"] and ours["mean_foundation_cards"] == harness["mean_foundation_cards"]
    assert ours["mean_moves"] > 20  # played past the config's own cuts


def test_evaluate_policy_command_rejects_a_missing_model(tmp_path):
    result = subprocess.run(klondike_command("evaluate-policy", tmp_path / "no.zip"),
                            cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip() == f"klondike evaluate-policy: error: model file {tmp_path / 'no.zip'} not found"


def test_evaluate_policy_command_scores_a_model_batched(tiny_run, tmp_path, capsys):
    assert klondike("evaluate-policy", tiny_run / "model.zip", "--seeds", "1-3", "--max-moves", "40",
                    "--out", tmp_path) == 0
    summary_path = Path(capsys.readouterr().out.strip().splitlines()[-1])
    summary = json.loads(summary_path.read_text())
    assert summary["games"] == 3 and summary["agent"].startswith("policy-batched:")
    assert summary["command"].startswith("klondike evaluate-policy ")


def test_plot_and_summary_from_tensorboard_events(tiny_run, tmp_path):
    from agents.training.plotting import PlotError, plot_run, run_summary

    png = plot_run(tiny_run, tmp_path / "curves.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert run_summary(tiny_run).startswith("256 env steps; median steps/s")
    with pytest.raises(PlotError, match="no TensorBoard events"):
        plot_run(tmp_path)


# --- fine-tuning and the loop breaker -------------------------------------------------
def test_init_model_starts_a_run_from_saved_weights(tiny_run, tmp_path):
    from sb3_contrib import MaskablePPO

    start = MaskablePPO.load(tiny_run / "model.zip")
    tuned = train(tiny_config(f"train.init_model={tiny_run / 'model.zip'}", "train.total_timesteps=1",
                              "train.eval_freq=0", "train.final_eval_deals=0", "policy.no_repeat=true"),
                  runs_root=tmp_path, verbose=0)
    # one rollout of PPO moved the weights a little from the loaded ones, not from a fresh init
    tuned_model = MaskablePPO.load(tuned / "model.zip")
    distances = [float(np.abs(tensor.numpy() - tuned_model.policy.state_dict()[name].numpy()).max())
                 for name, tensor in start.policy.state_dict().items()]
    fresh = train(tiny_config("train.total_timesteps=1", "train.eval_freq=0", "train.final_eval_deals=0"),
                  runs_root=tmp_path / "fresh", verbose=0)
    fresh_model = MaskablePPO.load(fresh / "model.zip")
    fresh_distances = [float(np.abs(tensor.numpy() - fresh_model.policy.state_dict()[name].numpy()).max())
                       for name, tensor in start.policy.state_dict().items()]
    assert max(distances) < max(fresh_distances)


def test_env_threads_step_the_training_env():
    import numba

    from agents.training.run import make_train_env

    threads = min(2, numba.config.NUMBA_NUM_THREADS)  # a machine (or taskset) with one core has one
    env = make_train_env(tiny_config(f"train.env_threads={threads}"))
    assert env.venv.venv.batch.num_threads == threads  # VecMonitor(InstrumentedVecEnv(KlondikeVecEnv))
    with pytest.raises(ConfigError, match=r"train\.env_threads: bad num_threads 100000"):
        make_train_env(tiny_config("train.env_threads=100000"))


def test_no_repeat_policy_agent_plays_legal_moves(tiny_run):
    from agents.evaluation import play_game
    from agents.registry import make_agent
    from klondike_env import Rules

    agent = make_agent(f"policy:path={tiny_run / 'model.zip'},no_repeat=true")
    assert agent.no_repeat is True
    records = [play_game(agent, deal, Rules(), seed=0, max_moves=150) for deal in range(1, 4)]
    assert sum(record.moves for record in records) > 100
    assert make_agent(f"policy:path={tiny_run / 'model.zip'}").no_repeat is False  # the run's policy.no_repeat


def test_privileged_critic_trains_on_hidden_cards_and_its_actor_plays_without_them(tiny_run, tmp_path):
    import torch

    from agents.evaluation import play_game
    from agents.registry import make_agent
    from agents.training.evaluation import evaluate_policy_file
    from agents.training.networks import PrivilegedCriticPolicy
    from klondike_env import Rules
    from klondike_env.observation import observation_size

    with pytest.raises(ConfigError, match="train.init_model: .* does not fit this config's network"):
        train(tiny_config("env.observation=information+full", f"train.init_model={tiny_run / 'model.zip'}"),
              runs_root=tmp_path / "all", verbose=0)
    # the actor of a run on the player's observation starts one whose critic sees the hidden cards
    # (a warm-up longer than the run: the actor stays as loaded, only the critic learns)
    run_dir = train(tiny_config("env.observation=information+full", f"train.init_model={tiny_run / 'model.zip'}",
                                "train.init_model_part=actor", "train.critic_warmup_steps=1000", "train.final_eval_deals=0"),
                    runs_root=tmp_path / "actor", verbose=0)
    agent = make_agent(f"policy:path={run_dir / 'model.zip'}")
    policy, start = agent.model.policy, make_agent(f"policy:path={tiny_run / 'model.zip'}").model.policy
    assert isinstance(policy, PrivilegedCriticPolicy) and policy.actor_size == observation_size("information")
    assert all(torch.equal(value, start.state_dict()[name]) for name, value in policy.state_dict().items()
               if name.startswith(("mlp_extractor.policy_net.", "action_net.")))
    assert policy.mlp_extractor.value_net[0].in_features == observation_size("full")
    # the actor never reads the full part; the critic does
    observation = torch.rand(3, policy.observation_space.shape[0])
    changed = observation.clone()
    changed[:, policy.actor_size:] = torch.rand(3, observation.shape[1] - policy.actor_size)
    with torch.no_grad():
        logits, changed_logits = (policy.action_net(policy.mlp_extractor.forward_actor(policy.extract_features(o)))
                                  for o in (observation, changed))
        values, changed_values = (policy.predict_values(o) for o in (observation, changed))
    assert torch.equal(logits, changed_logits) and not torch.equal(values, changed_values)
    # it plays as a player: the agent and the batched evaluation feed it the player's part
    assert play_game(agent, 3, Rules(), seed=0, max_moves=60).moves > 0
    assert evaluate_policy_file(run_dir / "model.zip", "1-4", max_moves=60, out_dir=tmp_path)[1]["games"] == 4


@pytest.mark.parametrize("model", sorted((ROOT / "models").glob("*/model.zip")), ids=lambda path: path.parent.name)
def test_committed_models_play_through_the_policy_agent(model):
    from agents.evaluation import play_game
    from agents.registry import make_agent
    from klondike_env import Rules

    agent = make_agent(f"policy:path={model},no_repeat=true")
    assert play_game(agent, 1001, Rules(), seed=0, max_moves=200).moves > 0


@pytest.mark.parametrize("path", sorted((ROOT / "docs" / "experiments" / "configs").glob("*.yaml")), ids=lambda p: p.name)
def test_the_experiment_configs_still_load(path):
    """The experiment records' configs (and the options they use) stay valid, so their runs can
    be repeated on this code."""
    assert load_config(path)["name"]


SMALLER = {"learn(20_000)": "learn(128)", "range(1, 101)": "range(1, 3)",
           "KlondikeVecEnv(64,": "KlondikeVecEnv(4,", "n_steps=64, batch_size=1024": "n_steps=32, batch_size=64",
           "{\"max_episode_steps\": 1000}": "{\"max_episode_steps\": 60}"}


@pytest.mark.parametrize("page", ["README.md", "docs/training.md"])
def test_the_fast_training_example_runs(page, capsys):
    """The Python training example of the page, run with fewer steps and deals (same calls)."""
    import re

    blocks = [b for b in re.findall(r"```python\n(.*?)```", (ROOT / page).read_text(encoding="utf-8"), re.DOTALL)
              if "MaskablePPO(" in b]
    assert len(blocks) == 1
    code = blocks[0]
    for big, small in SMALLER.items():
        code = code.replace(big, small)
    assert "20_000" not in code and "range(1, 101)" not in code and "1000}" not in code
    exec(compile(code, page, "exec"), {})
    assert capsys.readouterr().out.strip().endswith("of 100 dev deals won")
