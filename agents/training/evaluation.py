"""Masked play of a model on a fixed list of deals (argmax or sampled).

Used by the periodic validation and the final evaluation of a training run. All
games are played side by side so each decision is one batched forward pass.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.evaluation import wilson_interval


def play_deals(predict, deals, env_kwargs: dict[str, Any]) -> list[dict[str, Any]]:
    """Play every deal once with ``predict(obs_batch, mask_batch) -> actions``.

    Returns one record per deal, in order: deal, won, foundation cards, moves,
    outcome ('won', 'dead', 'truncated').
    """
    from agents.training.callbacks import episode_outcome
    from klondike_env.env import KlondikeEnv

    envs = [KlondikeEnv(**env_kwargs) for _ in deals]
    observations, masks = [], []
    for env, deal in zip(envs, deals):
        observation, info = env.reset(options={"deal": int(deal)})
        observations.append(observation)
        masks.append(info["action_mask"])
    records: list[dict[str, Any] | None] = [None] * len(envs)
    active = list(range(len(envs)))
    steps = np.zeros(len(envs), dtype=np.int64)
    while active:
        actions = predict(
            np.stack([observations[i] for i in active]),
            np.stack([masks[i] for i in active]).astype(bool),
        )
        still_active = []
        for index, action in zip(active, actions):
            observation, _, terminated, truncated, info = envs[index].step(int(action))
            steps[index] += 1
            if terminated or truncated:
                info = dict(info)
                if truncated and not terminated:
                    info["TimeLimit.truncated"] = True
                records[index] = {
                    "deal": int(deals[index]),
                    "won": bool(info.get("won", False)),
                    "foundation_cards": int(info.get("foundation", 0)),
                    "moves": int(steps[index]),
                    "outcome": episode_outcome(info),
                }
            else:
                observations[index] = observation
                masks[index] = info["action_mask"]
                still_active.append(index)
        active = still_active
    return records


def summarize(records: list[dict[str, Any]]) -> dict[str, Any]:
    games = len(records)
    wins = sum(r["won"] for r in records)
    low, high = wilson_interval(wins, games)
    return {
        "games": games,
        "wins": wins,
        "win_rate": wins / games if games else 0.0,
        "win_rate_95ci": [low, high],
        "foundation_cards": float(np.mean([r["foundation_cards"] for r in records])) if games else 0.0,
        "episode_length": float(np.mean([r["moves"] for r in records])) if games else 0.0,
        "dead_rate": sum(r["outcome"] == "dead" for r in records) / games if games else 0.0,
        "truncated_rate": sum(r["outcome"] == "truncated" for r in records) / games if games else 0.0,
    }


def evaluate_model(model, deals, env_kwargs: dict[str, Any], deterministic: bool = True, seed: int = 0) -> dict[str, Any]:
    """Masked play of an SB3 model on ``deals``: per-deal records and a summary.

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
        records = play_deals(predict, deals, env_kwargs)
    return {"records": records, "summary": summarize(records)}
