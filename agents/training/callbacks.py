"""SB3 callbacks of the training pipeline.

* :class:`EpisodeStatsCallback` -- Klondike scalars of the training episodes
  (win rate, foundation cards, length, dead / truncated endings, illegal actions,
  env steps per second; with ``train.losing_move_penalty``, the share of episodes
  penalised) into the SB3 logger, hence TensorBoard.
* :class:`ValidationCallback` -- periodic evaluation on a fixed list of validation
  deals with masked actions (argmax by default); keeps ``best_model.zip`` by win rate.
* :class:`CriticWarmupCallback` -- keeps the actor's weights fixed for the first steps,
  while a fresh critic learns (``train.critic_warmup_steps``).
* :class:`RunCheckpointCallback` -- :class:`~stable_baselines3.common.callbacks.CheckpointCallback`
  that saves at rollout boundaries (so no collected experience is ever half-used),
  together with everything ``--resume`` needs (RNG states, the env, callback state),
  and that stops training cleanly on request (Ctrl-C / SIGTERM).

Every callback's state that matters for resuming is a plain dict from ``state_dict()``.
"""

from __future__ import annotations

import csv
import pickle
import random
import time
from collections import deque
from pathlib import Path
from typing import Any

import numpy as np
import torch
from stable_baselines3.common.callbacks import BaseCallback, CheckpointCallback
from stable_baselines3.common.vec_env import VecEnvWrapper

from agents.training.evaluation import episode_outcome, evaluate_model, training_metrics, validation_score
from agents.training.losing_moves import LosingMovePenalty


class InstrumentedVecEnv(VecEnvWrapper):
    """Counts the seconds spent inside the wrapped env's step (the env's share of
    training) and the actions sent that the env's own mask forbids (should stay 0)."""

    def __init__(self, venv):
        super().__init__(venv)
        self.step_seconds = 0.0
        self.steps = 0
        self.illegal_actions = 0

    def reset(self):
        return self.venv.reset()

    def step_async(self, actions):
        masks = np.stack(self.venv.env_method("action_masks"))
        self.illegal_actions += int(np.count_nonzero(~masks[np.arange(self.num_envs), np.asarray(actions).reshape(-1)]))
        self._started = time.perf_counter()
        self.venv.step_async(actions)

    def step_wait(self):
        result = self.venv.step_wait()
        self.step_seconds += time.perf_counter() - self._started
        self.steps += self.num_envs
        return result


_MONITOR_FIELDS = ("episode_returns", "episode_lengths", "episode_count", "t_start")


def training_env_state(env) -> dict[str, Any]:
    """What it takes to rebuild the training env stack exactly: the pickled batched env
    (its games, deals and deal streams) and the wrappers' counters."""
    from stable_baselines3.common.vec_env import VecMonitor

    inner = env
    while hasattr(inner, "venv"):
        inner = inner.venv
    monitor = _find_wrapper(env, VecMonitor)
    instrumented = _find_wrapper(env, InstrumentedVecEnv)
    penalty = _find_wrapper(env, LosingMovePenalty)
    return {
        "venv": pickle.dumps(inner),
        "monitor": {key: getattr(monitor, key) for key in _MONITOR_FIELDS} if monitor else None,
        "illegal_actions": instrumented.illegal_actions if instrumented else 0,
        "losing_moves": penalty.state_dict() if penalty else None,
    }


def restore_training_env(state: dict[str, Any], wrap) -> Any:
    """``wrap(inner_env)`` builds the wrappers; their counters are then restored."""
    from stable_baselines3.common.vec_env import VecMonitor

    env = wrap(pickle.loads(state["venv"]))
    monitor = _find_wrapper(env, VecMonitor)
    if monitor is not None and state["monitor"] is not None:
        for key, value in state["monitor"].items():
            setattr(monitor, key, value)
    instrumented = _find_wrapper(env, InstrumentedVecEnv)
    if instrumented is not None:
        instrumented.illegal_actions = state["illegal_actions"]
    penalty = _find_wrapper(env, LosingMovePenalty)
    if penalty is not None and state.get("losing_moves") is not None:
        penalty.load_state_dict(state["losing_moves"])
    return env


def _find_wrapper(env, wrapper_type):
    while env is not None:
        if isinstance(env, wrapper_type):
            return env
        env = getattr(env, "venv", None)
    return None


class EpisodeStatsCallback(BaseCallback):
    """Logs ``klondike/*`` scalars over the last ``window`` finished training episodes."""

    def __init__(self, window: int = 200, verbose: int = 0):
        super().__init__(verbose)
        self.window = window
        self.episodes: deque = deque(maxlen=window)  # (outcome, foundation cards, length)
        self.losing_moves: deque = deque(maxlen=window)  # penalised or not (train.losing_move_penalty)
        self._rollout_started = 0.0
        self._env_seconds_at_start = 0.0
        self._env_steps_at_start = 0

    def _on_rollout_start(self) -> None:
        self._rollout_started = time.perf_counter()
        timed = _find_wrapper(self.training_env, InstrumentedVecEnv)
        if timed is not None:
            self._env_seconds_at_start = timed.step_seconds
            self._env_steps_at_start = timed.steps

    def _on_step(self) -> bool:
        infos = self.locals["infos"]
        for done, info in zip(self.locals["dones"], infos):
            if done:
                length = info["episode"]["l"] if "episode" in info else info.get("moves", 0)
                self.episodes.append((episode_outcome(info), info.get("foundation", 0), length))
                if "losing_move" in info:
                    self.losing_moves.append(info["losing_move"])
        return True

    def _on_rollout_end(self) -> None:
        record = self.logger.record
        elapsed = time.perf_counter() - self._rollout_started
        timed = _find_wrapper(self.training_env, InstrumentedVecEnv)
        if timed is not None:
            record("klondike/illegal_actions", timed.illegal_actions)
        if elapsed > 0 and timed is not None:
            steps = timed.steps - self._env_steps_at_start
            env_seconds = timed.step_seconds - self._env_seconds_at_start
            record("klondike/rollout_steps_per_s", steps / elapsed)
            if env_seconds > 0:
                record("klondike/env_steps_per_s", steps / env_seconds)
        if not self.episodes:
            return
        outcomes = [e[0] for e in self.episodes]
        count = len(outcomes)
        record("klondike/win_rate", outcomes.count("won") / count)
        record("klondike/dead_rate", outcomes.count("dead") / count)
        record("klondike/truncated_rate", outcomes.count("truncated") / count)
        record("klondike/foundation_cards", float(np.mean([e[1] for e in self.episodes])))
        record("klondike/episode_length", float(np.mean([e[2] for e in self.episodes])))
        if self.losing_moves:
            record("klondike/losing_move_rate", float(np.mean(self.losing_moves)))

    def state_dict(self) -> dict[str, Any]:
        return {"episodes": list(self.episodes), "losing_moves": list(self.losing_moves)}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.episodes.extend(state["episodes"])
        self.losing_moves.extend(state.get("losing_moves", []))  # none in checkpoints older than the option


class ValidationCallback(BaseCallback):
    """Every ``eval_freq`` env steps (at a rollout boundary) plays ``deals`` with masked actions.

    The same deals every time, so evaluations are comparable; the model with the best
    win rate (ties: more foundation cards) is saved as ``best_model.zip``, and every
    evaluation is appended to ``evaluations.csv``.
    """

    def __init__(self, deals, env_kwargs: dict[str, Any], eval_freq: int, run_dir: Path,
                 deterministic: bool = True, verbose: int = 1, evaluate_first: bool = False, no_repeat: bool = False):
        super().__init__(verbose)
        self.no_repeat = no_repeat
        self.evaluate_first = evaluate_first  # also evaluate at step 0 (a pretrained policy)
        self.deterministic = deterministic
        self.deals = list(deals)
        self.env_kwargs = dict(env_kwargs)
        self.eval_freq = eval_freq
        self.run_dir = Path(run_dir)
        self.best = (-1.0, -1.0)
        self.last_eval_step = 0

    def _init_callback(self) -> None:
        self.last_eval_step = max(self.last_eval_step, 0)

    def _on_rollout_start(self) -> None:
        due = self.num_timesteps - self.last_eval_step >= self.eval_freq
        if self.eval_freq and (due or (self.evaluate_first and self.num_timesteps == 0)):
            self.evaluate()

    def _on_step(self) -> bool:
        return True

    def evaluate(self) -> dict[str, float]:
        self.last_eval_step = self.num_timesteps
        full = evaluate_model(self.model, self.deals, self.env_kwargs, self.deterministic,
                              no_repeat=self.no_repeat)["summary"]
        summary = training_metrics(full)
        for key, value in summary.items():
            self.logger.record(f"eval/{key}", value)
        # written now, at the step evaluated (the next regular dump is a rollout later)
        self.logger.dump(self.num_timesteps)
        score = validation_score(full)
        if score > self.best:
            self.best = score
            self.model.save(self.run_dir / "best_model.zip")
        path = self.run_dir / "evaluations.csv"
        new_file = not path.exists()
        with path.open("a", newline="") as handle:
            writer = csv.writer(handle)
            if new_file:
                writer.writerow(["timesteps", "deals", "win_rate", "foundation_cards", "episode_length"])
            writer.writerow([self.num_timesteps, len(self.deals), summary["win_rate"],
                             summary["foundation_cards"], summary["episode_length"]])
        if self.verbose:
            print(
                f"[eval] step {self.num_timesteps}: win rate {summary['win_rate']:.3f} on "
                f"{len(self.deals)} validation deals, foundation cards {summary['foundation_cards']:.1f}"
                f" (best {self.best[0]:.3f})",
                flush=True,
            )
        return summary

    def state_dict(self) -> dict[str, Any]:
        return {"best": self.best, "last_eval_step": self.last_eval_step}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.best = tuple(state["best"])
        self.last_eval_step = state["last_eval_step"]


def capture_rng_state() -> dict[str, Any]:
    return {"python": random.getstate(), "numpy": np.random.get_state(), "torch": torch.get_rng_state()}


def restore_rng_state(state: dict[str, Any]) -> None:
    random.setstate(state["python"])
    np.random.set_state(state["numpy"])
    torch.set_rng_state(state["torch"])


# the policy's parameters that make up the actor (SB3's names; SplitMlpExtractor keeps them)
ACTOR_PREFIXES = ("mlp_extractor.policy_net.", "action_net.")


class CriticWarmupCallback(BaseCallback):
    """No gradient reaches the actor until ``until_step`` env steps: PPO's updates train the
    critic alone. A critic that starts fresh (``train.init_model_part: actor``) would otherwise
    hand the loaded actor advantages that are noise. Decided from the step count before each
    update, so a resumed run freezes exactly as an uninterrupted one."""

    def __init__(self, until_step: int, verbose: int = 0):
        super().__init__(verbose)
        self.until_step = until_step

    def _on_rollout_end(self) -> None:
        frozen = self.num_timesteps < self.until_step
        for name, parameter in self.model.policy.named_parameters():
            if name.startswith(ACTOR_PREFIXES):
                parameter.requires_grad_(not frozen)

    def _on_step(self) -> bool:
        return True


class RunCheckpointCallback(CheckpointCallback):
    """Checkpoints at the first rollout boundary after every ``save_freq`` env steps.

    Each checkpoint is ``rl_model_<steps>_steps.zip`` (SB3's model file: weights,
    optimizer, step count, last observations) plus ``rl_model_state_<steps>_steps.pkl``
    (python/numpy/torch RNG states, the pickled training env with its games and deal
    generator, and the other callbacks' state). :meth:`request_stop` makes the next
    boundary save a checkpoint and end training, so Ctrl-C loses nothing.
    """

    def __init__(self, save_freq: int, save_path: str, keep: int = 3, stateful_callbacks=(), verbose: int = 1):
        super().__init__(save_freq=save_freq, save_path=save_path, verbose=verbose)
        self.keep = keep
        self.stateful_callbacks = dict(stateful_callbacks)
        self.last_save_step = 0
        self.stop_requested = False
        self.stopped = False
        self._saved: list[int] = []

    def _init_callback(self) -> None:
        super()._init_callback()
        self.last_save_step = max(self.last_save_step, self.num_timesteps)

    def request_stop(self) -> None:
        self.stop_requested = True

    def _on_rollout_start(self) -> None:
        due = self.num_timesteps - self.last_save_step >= self.save_freq
        if due or self.stop_requested:
            self.save_checkpoint(periodic=due and not self.stop_requested)
        if self.stop_requested:
            self.stopped = True

    def _on_step(self) -> bool:
        return not self.stopped

    def save_checkpoint(self, periodic: bool = True) -> Path:
        """Save model + resume state at the current (rollout-boundary) step; return the zip path."""
        model_path = Path(self._checkpoint_path(extension="zip"))
        self.model.save(model_path)
        if periodic:
            self._saved.append(self.num_timesteps)
        state = {
            "num_timesteps": self.model.num_timesteps,
            "rng": capture_rng_state(),
            "env": training_env_state(self.model.get_env()),
            "callbacks": {name: cb.state_dict() for name, cb in self.stateful_callbacks.items()},
        }
        state_path = Path(self._checkpoint_path("state_", extension="pkl"))
        with state_path.open("wb") as handle:
            pickle.dump(state, handle)
        self.last_save_step = self.num_timesteps
        if self.verbose:
            print(f"[checkpoint] step {self.num_timesteps}: {model_path}", flush=True)
        if periodic:
            while self.keep and len(self._saved) > self.keep:
                old = self._saved.pop(0)
                for path in checkpoint_files(Path(self.save_path), self.name_prefix, old):
                    path.unlink(missing_ok=True)
        return model_path

    def state_dict(self) -> dict[str, Any]:
        return {"saved": list(self._saved)}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self._saved = list(state["saved"])


def checkpoint_files(folder: Path, prefix: str, steps: int) -> list[Path]:
    return [folder / f"{prefix}_{steps}_steps.zip", folder / f"{prefix}_state_{steps}_steps.pkl"]


def latest_checkpoint(folder: Path, prefix: str = "rl_model") -> tuple[Path, Path] | None:
    """The (model zip, state pkl) pair with the most steps that has both files, or None."""
    steps = []
    for path in Path(folder).glob(f"{prefix}_state_*_steps.pkl"):
        count = path.name[len(prefix) + len("_state_"):-len("_steps.pkl")]
        if count.isdigit():
            zip_path, state_path = checkpoint_files(Path(folder), prefix, int(count))
            if zip_path.is_file():
                steps.append(int(count))
    if not steps:
        return None
    best = max(steps)
    zip_path, state_path = checkpoint_files(Path(folder), prefix, best)
    return zip_path, state_path
