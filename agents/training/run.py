"""Training runs: build the env and model from a config, train, checkpoint, resume.

A run folder (``runs/<name>-<UTC time>/``) holds:

* ``config.yaml`` -- the resolved config (every value; ``env`` = KlondikeEnv kwargs),
* ``tb/`` -- TensorBoard events (SB3's scalars, ``klondike/*``, ``eval/*``), plus
  ``progress.csv`` with the same scalars,
* ``checkpoints/`` -- ``rl_model_<steps>_steps.zip`` + ``rl_model_state_<steps>_steps.pkl``,
* ``best_model.zip`` (best validation win rate), ``evaluations.csv``,
* ``model.zip`` (the last weights) and ``final_eval.json`` (the best model on
  ``final_eval_deals`` validation deals).
"""

from __future__ import annotations

import json
import pickle
import signal
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import torch

from agents.training.callbacks import (
    ACTOR_PREFIXES,
    CriticWarmupCallback,
    EpisodeStatsCallback,
    RunCheckpointCallback,
    InstrumentedVecEnv,
    ValidationCallback,
    latest_checkpoint,
    restore_rng_state,
    restore_training_env,
)
from agents.training.config import ConfigError, save_config
from agents.training.evaluation import evaluate_model
from agents.training.losing_moves import LosingMovePenalty
from agents.training.networks import policy_class, policy_kwargs

RUNS_DIR = Path("runs")


def new_run_dir(name: str, root: Path = RUNS_DIR) -> Path:
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    run_dir = Path(root) / f"{name}-{stamp}"
    suffix = 1
    while run_dir.exists():  # two runs started in the same second
        suffix += 1
        run_dir = Path(root) / f"{name}-{stamp}-{suffix}"
    run_dir.mkdir(parents=True)
    return run_dir


def _schedule(value):
    """A number, or rl-zoo3's ``"lin_<v>"``: ``v`` decaying linearly to 0 over the run."""
    if isinstance(value, str):
        initial = float(value[len("lin_"):])
        return lambda progress_remaining: progress_remaining * initial
    return value


def algo_kwargs(algo: dict[str, Any]) -> dict[str, Any]:
    kwargs = dict(algo)
    for key in ("learning_rate", "clip_range", "clip_range_vf"):
        if kwargs.get(key) is not None:
            kwargs[key] = _schedule(kwargs[key])
    return kwargs


def wrap_train_env(env, config: dict[str, Any]):
    """SB3's VecMonitor (episode returns and lengths) over the instrumented batched env (with
    ``train.losing_move_penalty``, over :class:`LosingMovePenalty` first)."""
    from stable_baselines3.common.vec_env import VecMonitor

    train = config["train"]
    if train["losing_move_penalty"]:
        env = LosingMovePenalty(env, train["losing_move_penalty"], train["losing_move_nodes"])
    return VecMonitor(InstrumentedVecEnv(env))


def make_train_env(config: dict[str, Any]):
    """The batched training env: one KlondikeVecEnv (no subprocesses), wrapped."""
    from klondike_env.sb3_vec import KlondikeVecEnv

    train = config["train"]
    try:
        env = KlondikeVecEnv(train["n_envs"], seed=train["seed"], no_repeat=config["policy"]["no_repeat"],
                             num_threads=train["env_threads"], **config["env"])
    except ValueError as error:
        if "num_threads" not in str(error):
            raise
        raise ConfigError(f"train.env_threads: {error}") from None
    return wrap_train_env(env, config)


def _validation_deals(config: dict[str, Any], count: int) -> list[int]:
    from agents.evaluation import load_seed_set

    try:
        _, deals = load_seed_set(config["train"]["eval_seeds"])
    except ValueError as error:
        raise ConfigError(f"train.eval_seeds: {error}") from None
    return deals[:count]


# torch device type -> whether this machine has one (SB3 would quietly train a missing cuda on cpu)
_DEVICE_AVAILABLE = {"cpu": lambda: True, "cuda": lambda: torch.cuda.is_available(),
                     "mps": lambda: torch.backends.mps.is_available()}


def _check_device_present(device: str) -> None:
    if device == "auto":  # SB3: cuda if there is one, else cpu
        return
    parsed = torch.device(device)  # the config checked that it parses
    if not _DEVICE_AVAILABLE[parsed.type]():
        raise ConfigError(f"bad train.device {device!r}: this machine has no {parsed.type} device; use cpu or auto")
    if parsed.type == "cuda" and parsed.index is not None and parsed.index >= torch.cuda.device_count():
        raise ConfigError(f"bad train.device {device!r}: this machine has {torch.cuda.device_count()} cuda device(s), "
                          f"cuda:0 to cuda:{torch.cuda.device_count() - 1}")


def check_run_inputs(config: dict[str, Any], resume: str | Path | None = None) -> None:
    """What the config names outside itself: the device, the validation seed set, and for a new
    run the initial model and the demonstrations. Checked before a run folder is made, so a typo
    leaves no empty folder behind (and not in config.validate: they depend on this machine)."""
    train_config = config["train"]
    _check_device_present(train_config["device"])
    _validation_deals(config, 0)
    if resume is None:
        init_model = train_config["init_model"]
        if init_model and not Path(init_model).is_file():
            raise ConfigError(f"train.init_model: model file {init_model!r} not found")
        if config["pretrain"]["demonstrations"]:
            from agents.training.pretrain import expand_paths

            expand_paths(config["pretrain"]["demonstrations"])


def _load_initial_weights(model, path: str, part: str = "all") -> None:
    """Start ``model`` from the weights (and optimizer state) of the model file at ``path``
    (:func:`check_run_inputs` found it); with ``part="actor"`` only the actor's weights
    (``callbacks.ACTOR_PREFIXES``), the rest and the optimizer state as this run made them."""
    try:
        if part == "all":
            model.set_parameters(path, exact_match=True, device=model.device)
            return
        from stable_baselines3.common.save_util import load_from_zip_file

        _, saved, _ = load_from_zip_file(path, device=model.device)
        actor = {name: value for name, value in saved["policy"].items() if name.startswith(ACTOR_PREFIXES)}
        own = model.policy.state_dict()
        if not actor or any(name not in own or own[name].shape != value.shape for name, value in actor.items()):
            raise ValueError("its actor (policy MLP and action layer) has other names or sizes")
        model.policy.load_state_dict(actor, strict=False)
    except (ValueError, RuntimeError, KeyError) as error:  # another network or observation size
        raise ConfigError(f"train.init_model: {path} does not fit this config's network: "
                          f"{str(error).splitlines()[0]}") from None


def _validation_score(model, config: dict[str, Any]):
    """``(win rate, foundation cards)`` of ``model`` on the run's validation deals, played as
    training's validation plays them (``pretrain.select: validation`` keeps the best epoch by it)."""
    from agents.training.evaluation import evaluate_model, validation_score

    train_config = config["train"]
    deals = _validation_deals(config, train_config["eval_deals"])  # eval_deals > 0: the config checks it

    def score() -> tuple[float, float]:
        return validation_score(evaluate_model(model, deals, _eval_env_kwargs(config), train_config["eval_deterministic"],
                                               no_repeat=config["policy"]["no_repeat"])["summary"])

    return score


def _eval_env_kwargs(config: dict[str, Any]) -> dict[str, Any]:
    """The env of validation and the final evaluation: the run's rules and observation under the
    harness's protocol (agents.evaluation), so their win rates are those klondike evaluate and
    klondike evaluate-policy report: a game ends only when won, dead or after 1000 actions. The
    training cuts (no_progress_steps, a shorter max_episode_steps) would end some games that go
    on to win (the committed policy: 162/1000 val deals with no_progress_steps=100, 177 without),
    and the training deal list does not apply (each deal is played once)."""
    from agents.evaluation import DEFAULT_MAX_MOVES

    kwargs = {k: v for k, v in config["env"].items() if k != "deals"}
    return {**kwargs, "max_episode_steps": DEFAULT_MAX_MOVES, "no_progress_steps": None}


def _set_threads(config: dict[str, Any]) -> None:
    torch.set_num_threads(config["train"]["torch_threads"])


class _StopOnSignal:
    """First Ctrl-C / SIGTERM: checkpoint at the next rollout boundary and stop.
    A second one stops at once (the last checkpoint stays the resume point)."""

    def __init__(self, checkpoint: RunCheckpointCallback):
        self.checkpoint = checkpoint
        self.previous = {}

    def __enter__(self):
        for sig in (signal.SIGINT, signal.SIGTERM):
            self.previous[sig] = signal.signal(sig, self._handle)
        return self

    def _handle(self, signum, frame):
        if self.checkpoint.stop_requested:
            raise KeyboardInterrupt
        print(
            f"\n[train] {signal.Signals(signum).name}: saving a checkpoint at the end of this rollout, "
            "then stopping (send it again to stop now)",
            flush=True,
        )
        self.checkpoint.request_stop()

    def __exit__(self, *exc):
        for sig, handler in self.previous.items():
            signal.signal(sig, handler)
        return False


def train(config: dict[str, Any], *, resume: str | Path | None = None, runs_root: Path = RUNS_DIR,
          verbose: int = 1, tables: bool = True, progress_bar: bool = False) -> Path:
    """Train (or, with ``resume``, continue) a run; return its folder.

    ``tables``: print SB3's tables of training scalars (with ``verbose``; they always go to
    ``tb/``); ``progress_bar``: SB3's progress bar over the env steps instead.
    """
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import configure

    check_run_inputs(config, resume)
    _set_threads(config)
    train_config = config["train"]
    if resume is None:
        run_dir = new_run_dir(config["name"], runs_root)
        save_config(config, run_dir / "config.yaml")
    else:
        run_dir = Path(resume)
        if not (run_dir / "config.yaml").is_file():
            raise ConfigError(f"{run_dir} is not a run folder (no config.yaml)")

    stats = EpisodeStatsCallback(window=train_config["stats_window"])
    validation = None
    callbacks = []
    if train_config["eval_freq"] and train_config["eval_deals"]:
        validation = ValidationCallback(
            _validation_deals(config, train_config["eval_deals"]), _eval_env_kwargs(config),
            train_config["eval_freq"], run_dir, deterministic=train_config["eval_deterministic"], verbose=verbose,
            evaluate_first=bool(config["pretrain"]["demonstrations"]),  # score the cloned policy before PPO
            no_repeat=config["policy"]["no_repeat"],
        )
        callbacks.append(validation)
    stateful = {"stats": stats}
    if validation is not None:
        stateful["validation"] = validation
    checkpoint = RunCheckpointCallback(
        train_config["checkpoint_freq"], str(run_dir / "checkpoints"),
        keep=train_config["keep_checkpoints"], stateful_callbacks=stateful, verbose=verbose,
    )
    stateful["checkpoint"] = checkpoint
    if train_config["critic_warmup_steps"]:
        callbacks.append(CriticWarmupCallback(train_config["critic_warmup_steps"]))
    callbacks = [stats, *callbacks, checkpoint]  # checkpoint last: it saves the others' state

    if resume is None:
        env = make_train_env(config)
        model = MaskablePPO(
            policy_class(config["policy"], config["env"]), env, seed=train_config["seed"], device=train_config["device"],
            policy_kwargs=policy_kwargs(config["policy"], config["env"]), verbose=0, **algo_kwargs(config["algo"]),
        )
        if train_config["init_model"]:
            _load_initial_weights(model, train_config["init_model"], train_config["init_model_part"])
    else:
        model, env = _restore(run_dir, config, stateful)
        save_config(config, run_dir / "config.yaml")  # overrides (e.g. more steps) are kept
    if resume is not None and (run_dir / "tb" / "progress.csv").is_file():
        # SB3's CSV writer truncates its file; keep the earlier part of the run beside it.
        (run_dir / "tb" / "progress.csv").rename(run_dir / "tb" / f"progress-to-{model.num_timesteps}.csv")
    model.set_logger(configure(str(run_dir / "tb"), ["stdout", "csv", "tensorboard"] if verbose and tables else ["csv", "tensorboard"]))
    if resume is None and config["pretrain"]["demonstrations"]:
        from agents.training.pretrain import pretrain

        # before the first PPO update; the first checkpoint then holds the cloned policy
        select_by_validation = config["pretrain"]["select"] == "validation"
        summary = pretrain(model, config, logger=model.logger, verbose=verbose,
                           score=_validation_score(model, config) if select_by_validation else None)
        (run_dir / "pretrain.json").write_text(json.dumps(summary, indent=2))

    remaining = train_config["total_timesteps"] - model.num_timesteps
    started = time.perf_counter()
    steps_before = model.num_timesteps
    interrupted = False
    if remaining > 0:
        with _StopOnSignal(checkpoint):
            try:
                model.learn(remaining, callback=callbacks, log_interval=train_config["log_interval"],
                            reset_num_timesteps=False, progress_bar=progress_bar)
            except KeyboardInterrupt:
                interrupted = True
                print(f"[train] stopped at once; resume point: step {checkpoint.last_save_step}", flush=True)
    elapsed = time.perf_counter() - started
    if verbose:
        done = model.num_timesteps - steps_before
        print(f"[train] {done} env steps in {elapsed:.0f} s ({done / max(elapsed, 1e-9):.0f} steps/s overall)",
              flush=True)
    if interrupted or checkpoint.stopped:
        print(f"[train] stopped; resume with --resume {run_dir} (from step {checkpoint.last_save_step})", flush=True)
        model.logger.close()
        return run_dir
    # validation first, so the final checkpoint records it and a resumed run does not repeat it
    if validation is not None and resume is None and model.num_timesteps == 0:
        validation.init_callback(model)  # clone only (total_timesteps 0): learn() never set it up
        validation.evaluate()
    elif validation is not None and model.num_timesteps != validation.last_eval_step:
        validation.evaluate()
    if model.num_timesteps != checkpoint.last_save_step:
        checkpoint.save_checkpoint(periodic=False)
    model.save(run_dir / "model.zip")
    model.logger.close()
    if train_config["final_eval_deals"]:
        final_evaluation(run_dir, config, verbose=verbose)
    return run_dir


def _restore(run_dir: Path, config: dict[str, Any], stateful: dict[str, Any]):
    """Model, env, RNG and callback state of the latest checkpoint of ``run_dir``."""
    from sb3_contrib import MaskablePPO

    found = latest_checkpoint(run_dir / "checkpoints")
    if found is None:
        raise ConfigError(f"{run_dir} has no complete checkpoint to resume from")
    model_path, state_path = found
    with state_path.open("rb") as handle:
        state = pickle.load(handle)
    env = restore_training_env(state["env"], lambda inner: wrap_train_env(inner, config))
    # Loading without an env keeps SB3 from reseeding and resetting it; set_env keeps
    # the saved last observation, so the games continue where they were.
    model = MaskablePPO.load(model_path, env=None, device=config["train"]["device"])
    model.set_env(env, force_reset=False)
    for name, callback in stateful.items():
        if name in state["callbacks"]:
            callback.load_state_dict(state["callbacks"][name])
    restore_rng_state(state["rng"])
    print(f"[train] resuming {run_dir} from step {model.num_timesteps} ({model_path.name})", flush=True)
    return model, env


def final_evaluation(run_dir: Path, config: dict[str, Any], verbose: int = 1) -> dict[str, Any]:
    """The best model (or the last one) on ``final_eval_deals`` validation deals -> final_eval.json."""
    from sb3_contrib import MaskablePPO

    model_path = run_dir / "best_model.zip"
    if not model_path.is_file():
        model_path = run_dir / "model.zip"
    model = MaskablePPO.load(model_path, device=config["train"]["device"])
    deals = _validation_deals(config, config["train"]["final_eval_deals"])
    started = time.perf_counter()
    deterministic = config["train"]["eval_deterministic"]
    result = evaluate_model(model, deals, _eval_env_kwargs(config), deterministic,
                            no_repeat=config["policy"]["no_repeat"])
    summary = {
        "model": str(model_path),
        "actions": "masked argmax" if deterministic else "masked samples (seed 0)",
        "seeds": config["train"]["eval_seeds"],
        "deals": f"first {len(deals)} ({deals[0]}-{deals[-1]})",
        "seconds": time.perf_counter() - started,
        **result["summary"],
    }
    (run_dir / "final_eval.json").write_text(json.dumps(summary, indent=2))
    if verbose:
        low, high = summary["win_rate_ci95"]
        print(
            f"[final] {model_path.name}: won {summary['wins']}/{summary['games']} validation deals "
            f"({summary['win_rate']:.1%}, 95% CI {low:.1%}-{high:.1%}), "
            f"{summary['mean_foundation_cards']:.1f} foundation cards on average -> {run_dir / 'final_eval.json'}",
            flush=True,
        )
    return summary
