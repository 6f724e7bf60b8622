"""Behaviour cloning before PPO: start the policy from a stronger agent's games.

PPO from a random policy learns Klondike slowly: random play almost never wins, so the win
signal is rare and the policy first has to discover what a sensible move is. Cloning a
stronger player first (the ``determinized`` search agent, which sees only what a player
knows) gives PPO a starting policy that already wins some games.

Demonstrations are results CSVs of ``klondike evaluate`` (one row per game, with its
actions), or DAgger files of ``klondike dagger`` (:mod:`agents.training.dagger`: a learner's
games with the teacher's move at each position, which is fit instead of the move played). Each game is replayed in :class:`~klondike_env.env.KlondikeEnv` with the run's own
env settings, so the policy is fit on exactly the observations, masks and rewards it meets in
training. The loss is the cross-entropy of the policy's masked action distribution against the
demonstrator's action, plus ``value_coef`` times the squared error of the value head against
the discounted return of the demonstrator's game from that step (so PPO's first advantages
are not computed against an untrained critic).

Demonstrations must come from deals outside the evaluation sets (the named seed sets: test is
1-1000, val 1001-2000); :func:`load_demonstrations` refuses any that overlap them.
"""

from __future__ import annotations

import copy
import glob
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np
import torch

from agents.evaluation import game_of_row, load_seed_set, parse_moves, read_game_rows
from agents.training.dagger import NO_LABEL

# Seed sets whose deals may not be used for training.
EVALUATION_SETS = ("test", "val")


class DemonstrationError(ValueError):
    """Demonstrations that cannot be used (missing file, an evaluation deal, an illegal action)."""


@dataclass
class Demonstrations:
    observations: np.ndarray  # (steps, observation size) as the env returns them
    action_masks: np.ndarray  # (steps, 87) bool
    actions: np.ndarray  # (steps,) int64
    returns: np.ndarray  # (steps,) float32, discounted return from the step on
    game_index: np.ndarray  # (steps,) which game each step belongs to
    games: int
    wins: int

    def __len__(self) -> int:
        return int(self.actions.shape[0])


def read_labelled_games(path) -> list[tuple[int, list[int], list[int]]]:
    """``(deal, actions, labels)`` of every game in a results CSV: the ``labels`` column of a DAgger
    file (:mod:`agents.training.dagger`), else the moves played (the player is the demonstrator)."""
    games = []
    for index, row in enumerate(read_game_rows(path)):
        deal, actions = game_of_row(row, path, index)
        labels = parse_moves(row["labels"]) if "labels" in row else actions
        if len(labels) != len(actions):
            raise ValueError(f"{path}, deal {deal}: {len(labels)} labels for {len(actions)} actions (one per move)")
        games.append((deal, actions, labels))
    return games


def evaluation_deals() -> dict[int, str]:
    """Every deal of the evaluation sets, with its set's name: no training data may come from them."""
    return {deal: name for name in EVALUATION_SETS for deal in load_seed_set(name)[1]}


def expand_paths(patterns: list[str]) -> list[str]:
    """Each entry as a file path, or the sorted files a glob pattern (``*``, ``?``, ``[``) matches."""
    paths = []
    for pattern in patterns:
        if any(char in pattern for char in "*?["):
            matched = sorted(glob.glob(pattern))
            if not matched:
                raise DemonstrationError(f"pretrain.demonstrations: no file matches {pattern!r}")
            paths.extend(matched)
        elif Path(pattern).is_file():
            paths.append(pattern)
        else:
            raise DemonstrationError(f"pretrain.demonstrations: no results CSV at {pattern}: write one with "
                                     "klondike evaluate or klondike dagger")
    return paths


def load_demonstrations(paths: list[str], env_kwargs: dict[str, Any], gamma: float,
                        won_only: bool = False) -> Demonstrations:
    """Replay every game of the results CSVs in ``paths`` (files or glob patterns) in a KlondikeEnv
    built from ``env_kwargs``; with ``won_only``, keep only the games the replay wins."""
    from klondike_env.env import KlondikeEnv

    forbidden = evaluation_deals()
    # every recorded position is fit: the limits that cut training episodes short (no progress
    # for a while, a step count) do not cut a recorded game, whose stuck stretches are where a
    # learner most needs the teacher's move
    env = KlondikeEnv(**{**{k: v for k, v in env_kwargs.items() if k != "deals"},
                         "max_episode_steps": None, "no_progress_steps": None})
    observations, masks, actions, returns, game_index = [], [], [], [], []
    games = wins = 0
    for path in expand_paths(paths):
        try:
            recorded = read_labelled_games(path)
        except (OSError, ValueError) as error:
            raise DemonstrationError(f"pretrain.demonstrations: {error}") from None
        for deal, played, labels in recorded:
            if deal in forbidden:
                raise DemonstrationError(
                    f"pretrain.demonstrations: {path} plays deal {deal}, which is in an evaluation set "
                    f"({'/'.join(EVALUATION_SETS)}: deals 1-2000); record demonstrations on other deals"
                )
            observation, info = env.reset(options={"deal": deal})
            kept_before = len(actions)
            rewards = []
            fitted = []  # steps of this game with a label
            for step, (action, label) in enumerate(zip(played, labels)):
                for name, move in (("action", action), ("label", label)):
                    if move != NO_LABEL and not info["action_mask"][move]:
                        raise DemonstrationError(f"pretrain.demonstrations: {path}, deal {deal}: {name} {move} is "
                                                 f"illegal at step {step} (was the CSV written under other rules?)")
                if label != NO_LABEL:
                    fitted.append(step)
                    observations.append(observation)
                    masks.append(info["action_mask"].astype(bool))
                    actions.append(label)
                observation, reward, terminated, truncated, info = env.step(action)
                rewards.append(reward)
                if terminated or truncated:
                    break
            if won_only and not info.get("won"):
                del observations[kept_before:], masks[kept_before:], actions[kept_before:]
                continue
            discounted, running = np.empty(len(rewards), np.float32), 0.0
            for step in range(len(rewards) - 1, -1, -1):
                running = rewards[step] + gamma * running
                discounted[step] = running
            returns.append(discounted[fitted])
            game_index.extend([games] * len(fitted))
            games += 1
            wins += bool(info.get("won"))
    if not actions:
        raise DemonstrationError("pretrain.demonstrations: the files hold no moves"
                                 + (" of a won game (pretrain.won_only)" if won_only else ""))
    return Demonstrations(
        np.asarray(observations), np.asarray(masks, dtype=bool), np.asarray(actions, dtype=np.int64),
        np.concatenate(returns), np.asarray(game_index, dtype=np.int64), games, wins,
    )


def behaviour_clone(model, demonstrations: Demonstrations, *, epochs: int, batch_size: int, learning_rate: float,
                    value_coef: float, holdout: float, seed: int, logger=None, verbose: int = 1,
                    score: Callable[[], tuple] | None = None) -> dict[str, float]:
    """Fit ``model.policy`` (a MaskablePPO policy) to the demonstrations; return the kept epoch's metrics.

    A fraction ``holdout`` of the games (not of the steps: steps of one game are alike) is kept
    out of training to report how well the imitation generalises; the weights of the epoch with
    the best held-out accuracy are kept (with ``holdout=0``, those of the last epoch) -- or, given
    ``score`` (called after each epoch, e.g. validation ``(win rate, foundation cards)``), those
    of the epoch that scores highest.
    """
    policy = model.policy
    device = policy.device
    rng = np.random.default_rng(seed)
    held_games = rng.random(demonstrations.games) < holdout
    held = held_games[demonstrations.game_index]
    train_idx, held_idx = np.flatnonzero(~held), np.flatnonzero(held)
    tensors = [
        torch.as_tensor(demonstrations.observations, device=device),
        torch.as_tensor(demonstrations.action_masks, device=device),
        torch.as_tensor(demonstrations.actions, device=device),
        torch.as_tensor(demonstrations.returns, device=device),
    ]
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    metrics: dict[str, float] = {}

    def batch_loss(index):
        obs, mask, action, target = (t[index] for t in tensors)
        values, log_prob, _ = policy.evaluate_actions(obs, action, action_masks=mask)
        policy_loss = -log_prob.mean()
        value_loss = torch.nn.functional.mse_loss(values.flatten(), target)
        return policy_loss, value_loss

    def accuracy(index) -> float:
        if len(index) == 0:
            return float("nan")
        hits = 0
        with torch.no_grad():
            for start in range(0, len(index), 4096):
                part = torch.as_tensor(index[start:start + 4096], device=device)
                distribution = policy.get_distribution(tensors[0][part], action_masks=tensors[1][part])
                chosen = distribution.distribution.probs.argmax(dim=1)
                hits += int((chosen == tensors[2][part]).sum())
        return hits / len(index)

    best_measure, best_weights, best_metrics = None, None, {}
    policy.set_training_mode(True)
    for epoch in range(1, epochs + 1):
        order = rng.permutation(train_idx)
        totals = np.zeros(2)
        for start in range(0, len(order), batch_size):
            index = torch.as_tensor(order[start:start + batch_size], device=device)
            policy_loss, value_loss = batch_loss(index)
            loss = policy_loss + value_coef * value_loss
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            optimizer.step()
            totals += [policy_loss.item() * len(index), value_loss.item() * len(index)]
        policy.set_training_mode(False)
        metrics = {
            "epoch": epoch,
            "policy_loss": totals[0] / len(order),
            "value_loss": totals[1] / len(order),
            "train_accuracy": accuracy(train_idx[:20000]),
            "holdout_accuracy": accuracy(held_idx),
        }
        if score is not None:
            metrics["validation_score"] = score()
        policy.set_training_mode(True)
        measure = metrics["validation_score"] if score is not None else metrics["holdout_accuracy"]
        if (score is not None or len(held_idx)) and (best_measure is None or measure > best_measure):
            # early stopping: keep the epoch that imitates unseen games best (more epochs overfit),
            # or the one that plays the validation deals best
            best_measure, best_metrics = measure, dict(metrics)
            best_weights = copy.deepcopy(policy.state_dict())
        if logger is not None:
            for key, value in metrics.items():
                if key == "validation_score":
                    logger.record("pretrain/validation_win_rate", value[0])
                elif key != "epoch":
                    logger.record(f"pretrain/{key}", value)
            logger.dump(step=epoch)
        if verbose:
            print(f"[pretrain] epoch {epoch}/{epochs}: policy loss {metrics['policy_loss']:.3f}, "
                  f"value loss {metrics['value_loss']:.3f}, accuracy {metrics['train_accuracy']:.1%} "
                  f"(held-out games {metrics['holdout_accuracy']:.1%})"
                  + (f", validation win rate {metrics['validation_score'][0]:.1%}" if score is not None else ""),
                  flush=True)
    policy.set_training_mode(False)
    if best_weights is not None:
        policy.load_state_dict(best_weights)
        if verbose and best_metrics["epoch"] != epochs:
            print(f"[pretrain] kept epoch {best_metrics['epoch']} (best "
                  f"{'validation win rate' if score is not None else 'held-out accuracy'})", flush=True)
        return best_metrics
    return metrics


def pretrain(model, config: dict[str, Any], logger=None, verbose: int = 1,
             score: Callable[[], tuple] | None = None) -> dict[str, Any] | None:
    """Run the config's ``pretrain`` section on ``model``; ``None`` when it names no demonstrations.
    ``score``: with ``pretrain.select: validation``, what the best epoch is kept by (see :func:`behaviour_clone`)."""
    section = config["pretrain"]
    if not section["demonstrations"]:
        return None
    demonstrations = load_demonstrations(section["demonstrations"], config["env"], config["algo"]["gamma"],
                                         won_only=section["won_only"])
    if verbose:
        print(f"[pretrain] {demonstrations.games} demonstration games ({demonstrations.wins} won), "
              f"{len(demonstrations)} moves", flush=True)
    metrics = behaviour_clone(
        model, demonstrations, epochs=section["epochs"], batch_size=section["batch_size"],
        learning_rate=section["learning_rate"], value_coef=section["value_coef"], holdout=section["holdout"],
        seed=config["train"]["seed"], logger=logger, verbose=verbose,
        score=score,
    )
    return {"games": demonstrations.games, "wins": demonstrations.wins, "moves": len(demonstrations), **metrics}
