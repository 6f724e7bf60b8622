"""The harness's batched backend: masked play of a model on a list of deals (argmax or sampled).

All games are played side by side so each decision is one batched forward pass. Records and
summaries are the harness's own (:class:`agents.results.GameRecord`,
:func:`agents.evaluation.summarize`); :func:`evaluate_policy_file` writes through its driver
(:func:`agents.evaluation.run_evaluation`). Used by the periodic validation and the final
evaluation of a training run, and by ``klondike evaluate-policy``.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from agents.evaluation import summarize
from agents.results import GameRecord
from klondike_env.rules import Rules


#: how an env episode's end reads as the harness's ending
ENDINGS = {"won": "won", "dead": "dead", "truncated": "move limit"}


def episode_outcome(info: dict[str, Any]) -> str:
    """'won', 'dead' (no move can ever be reached) or 'truncated' for a finished episode."""
    if info.get("won"):
        return "won"
    if info.get("TimeLimit.truncated"):
        return "truncated"
    return "dead"


def play_deals(predict, deals, env_kwargs: dict[str, Any], no_repeat: bool = False,
               on_record=None) -> list[GameRecord]:
    """Play every deal once with ``predict(obs_batch, mask_batch) -> actions``.

    ``no_repeat``: the masks handed to ``predict`` leave out the moves a game already
    played from its current position (:class:`klondike_env.move_memory.MoveMemory`).
    Returns one :class:`GameRecord` per deal, in deal order; ``on_record(record)`` is called
    with each as its game ends. A game's seconds (and CPU seconds) are what the batch spent since
    the previous game ended, so they add up to the batch's time.
    """
    from klondike_env.env import KlondikeEnv
    from klondike_env.move_memory import MoveMemory
    from klondike_env.observation import pad_player_observation, player_part

    # a model trained with a "+full" mode plays from the player's part, the rest zeros
    model_mode = env_kwargs.get("observation", "information")
    envs = [KlondikeEnv(**{**env_kwargs, "observation": player_part(model_mode)}) for _ in deals]
    observations, masks = [], []
    for env, deal in zip(envs, deals):
        observation, info = env.reset(options={"deal": int(deal)})
        observations.append(observation)
        masks.append(info["action_mask"])
    records: list[GameRecord | None] = [None] * len(envs)
    clock = [time.perf_counter(), time.process_time()]
    active = list(range(len(envs)))
    played: list[list[int]] = [[] for _ in envs]
    memory = MoveMemory(len(envs)) if no_repeat else None
    while active:
        active_masks = np.stack([masks[i] for i in active])
        if memory is not None:
            games = [envs[i].unwrapped.game for i in active]
            hashes = MoveMemory.hashes(np.stack([game._state for game in games]), games[0]._rules_array)
            active_masks = memory.untried(active, hashes, active_masks)
        batch = pad_player_observation(np.stack([observations[i] for i in active]), model_mode)
        actions = predict(batch, active_masks.astype(bool))
        if memory is not None:
            memory.played(active, hashes, actions)
        still_active = []
        for index, action in zip(active, actions):
            observation, _, terminated, truncated, info = envs[index].step(int(action))
            played[index].append(int(action))
            if terminated or truncated:
                info = dict(info)
                if truncated and not terminated:
                    info["TimeLimit.truncated"] = True
                now = [time.perf_counter(), time.process_time()]
                records[index] = GameRecord(int(deals[index]), bool(info.get("won", False)), len(played[index]),
                                            int(info.get("foundation", 0)), now[0] - clock[0],
                                            ENDINGS[episode_outcome(info)], now[1] - clock[1], tuple(played[index]))
                clock = now
                if on_record is not None:
                    on_record(records[index])
            else:
                observations[index] = observation
                masks[index] = info["action_mask"]
                still_active.append(index)
        active = still_active
    return records


def env_rules(env_kwargs: dict[str, Any]) -> Rules:
    """The rules an env built from ``env_kwargs`` plays."""
    from dataclasses import fields

    return Rules(**{field.name: env_kwargs[field.name] for field in fields(Rules) if field.name in env_kwargs})


def training_metrics(summary: dict[str, Any]) -> dict[str, float]:
    """The validation scalars a training run logs (``eval/*``), read from the harness's summary."""
    games = summary["games"] or 1
    return {
        "win_rate": summary["win_rate"],
        "foundation_cards": summary["mean_foundation_cards"],
        "episode_length": summary["mean_moves"],
        "dead_rate": summary["endings"].get("dead", 0) / games,
        "truncated_rate": summary["endings"].get("move limit", 0) / games,
    }


def validation_score(summary: dict[str, Any]) -> tuple[float, float]:
    """How validation ranks models (best model, ``pretrain.select``): win rate, then foundation cards."""
    return (summary["win_rate"], summary["mean_foundation_cards"])


def evaluate_model(model, deals, env_kwargs: dict[str, Any], deterministic: bool = True, seed: int = 0,
                   no_repeat: bool = False, on_record=None) -> dict[str, Any]:
    """Masked play of an SB3 model on ``deals``: per-deal records and the harness's summary.

    ``no_repeat``: as :func:`play_deals` (what a run trained with ``policy.no_repeat`` plays with).

    ``deterministic=False`` samples the masked policy from a torch generator seeded with
    ``seed``, inside ``torch.random.fork_rng`` so training's own RNG stream is untouched
    (a resumed run stays identical to an uninterrupted one).
    """
    import torch

    def predict(observations, masks):
        actions, _ = model.predict(observations, action_masks=masks, deterministic=deterministic)
        return actions

    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        records = play_deals(predict, deals, env_kwargs, no_repeat, on_record)
    return {"records": records, "summary": summarize(records, env_rules(env_kwargs))}


_worker_model = None  # a Ray worker's model, loaded once (_load_worker_model)


def _load_worker_model(model_path: str) -> None:
    global _worker_model
    from agents.policy import load_model

    _worker_model = load_model("MaskablePPO", model_path)


def _play_batch(job: tuple) -> list[GameRecord]:
    deals, env_kwargs, deterministic, seed, no_repeat = job
    return evaluate_model(_worker_model, deals, env_kwargs, deterministic=deterministic, seed=seed,
                          no_repeat=no_repeat)["records"]


def play_batches(model, model_path, deals: list[int], env_kwargs: dict[str, Any], *, deterministic: bool, seed: int,
                 no_repeat: bool, batch: int | None, backend, on_record, progress: bool = False) -> None:
    """Play ``deals`` in batches of ``batch`` deals (None: one batch), the ``k``-th batch's sampled
    actions seeded with ``seed + k``; locally one batch after another with ``model``, on Ray one
    task per batch, each worker loading ``model_path`` once. The same batches give the same rows
    on both backends."""
    from agents.jobs import run_jobs

    size = batch or max(len(deals), 1)
    jobs = [(deals[start:start + size], env_kwargs, deterministic, seed + index, no_repeat)
            for index, start in enumerate(range(0, len(deals), size))]
    if backend is None or backend.name == "local":
        for batch_deals, _, _, batch_seed, _ in jobs:
            evaluate_model(model, batch_deals, env_kwargs, deterministic=deterministic, seed=batch_seed,
                           no_repeat=no_repeat, on_record=on_record)
        return
    run_jobs(_play_batch, jobs, _load_worker_model, (str(model_path),), backend, progress=progress, desc="batches",
             unit="batch", on_result=lambda records: [on_record(record) for record in records], init_here=False)


def evaluate_policy_file(model_path, seeds: str = "test", *, deterministic: bool = False, max_moves: int = 1000,
                         seed: int = 0, out_dir="results", command: str | None = None, no_repeat: bool | None = None,
                         overwrite: bool = False, batch: int | None = None, backend=None, progress: bool = False):
    """Score a saved model on a seed set, all deals batched; writes the harness's CSV + JSON.

    The same protocol as ``klondike evaluate --agent policy:...`` (one try per deal,
    a game stops when won, dead or after ``max_moves`` actions; the rules and observation
    come from the run's ``config.yaml``), but every decision of every game is one
    batched forward pass, so the 1000 test deals take a minute instead of an hour on a
    2-core machine. Sampled actions depend on the seed and on the deal batch, so they
    differ game by game from the harness's (which seeds each deal); the rate is the
    same quantity. ``no_repeat`` (None: the run's ``policy.no_repeat``) masks the moves a
    game already played from its position (:mod:`klondike_env.move_memory`).
    Rows are written as games end and a rerun resumes, as in :func:`agents.evaluation.run_evaluation`
    (a resumed sampled run plays its remaining deals as a new batch). Returns ``(json_path, summary)``.
    """
    from dataclasses import asdict
    from pathlib import Path

    from agents.evaluation import code_version, load_seed_set, run_evaluation
    from agents.results import result_stem, run_identity
    from agents.policy import check_observation_size, load_model, read_run_settings
    from agents.training.config import ConfigError
    from klondike_env import Rules
    from klondike_env.observation import player_part, reveals_hidden_cards

    model_path = Path(model_path)
    if not model_path.is_file():
        raise ConfigError(f"model file {model_path} not found")
    settings = read_run_settings(model_path)
    if no_repeat is None:
        no_repeat = settings.no_repeat
    if reveals_hidden_cards(player_part(settings.observation)):
        raise ConfigError(f"{model_path} reads {settings.observation!r} observations, which show hidden cards: not a player")
    rules = Rules(**settings.rules)
    seeds_name, deals = load_seed_set(seeds)
    env_kwargs = {**asdict(rules), "observation": settings.observation, "observation_dtype": settings.observation_dtype,
                  "max_episode_steps": max_moves, "no_progress_steps": None}
    model = load_model("MaskablePPO", model_path)
    check_observation_size(model, model_path, settings.observation, settings, given=False, option=None)
    label = (f"policy-batched:{model_path.parent.name}/{model_path.stem}" + ("" if deterministic else ",sampled")
             + (",no_repeat" if no_repeat else ""))
    header = {
        "agent": label,
        "agent_spec": f"policy:path={model_path},deterministic={str(deterministic).lower()},no_repeat={str(no_repeat).lower()}",
        "sees_hidden_cards": False,
        "seeds": seeds_name,
        "seed": seed,
        "max_moves": max_moves,
        "workers": 1 if backend is None else backend.workers,
        "batch": batch,
        "backend": "local" if backend is None else backend.name,
        "command": command,
        "code_version": code_version(),
        "note": "batched play (agents.training.evaluation); seconds per game are each game's share of the batch's time",
    }
    def play(remaining: list[int], on_record) -> None:
        play_batches(model, model_path, remaining, env_kwargs, deterministic=deterministic, seed=seed,
                     no_repeat=no_repeat, batch=batch, backend=backend, on_record=on_record, progress=progress)

    identity = run_identity(label, seeds_name, rules, seed, max_moves)
    return run_evaluation(play, identity, deals, rules, out_dir, result_stem(label, seeds_name, rules, seed, max_moves),
                          overwrite=overwrite, header=header)
