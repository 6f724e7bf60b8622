"""Which reward trains best? Short MaskablePPO runs, one per reward, scored on the same deals.

    python -m klondike_app.benchmarks.reward_choice --steps 100000 --deals 100

Each run trains ``MaskablePPO("MlpPolicy", KlondikeVecEnv(...))`` with one reward and
the same seed and hyperparameters, then plays the deterministic masked policy on the
first ``--deals`` deals of the ``val`` seed set (draw-3, 500-step limit) and
reports wins and mean cards on the foundations. A markdown table is printed.
"""

from __future__ import annotations

import argparse
import time

from agents.evaluation import load_seed_set
from klondike_env.env import KlondikeEnv


def val_deals(count: int) -> list[int]:
    return load_seed_set("val")[1][:count]


def score(model, deals: list[int]) -> tuple[int, float]:
    env = KlondikeEnv(reward="win")
    wins, foundation = 0, 0
    for deal in deals:
        obs, info = env.reset(options={"deal": deal})
        done = False
        while not done:
            action, _ = model.predict(obs, action_masks=info["action_mask"].astype(bool), deterministic=True)
            obs, _, terminated, truncated, info = env.step(int(action))
            done = terminated or truncated
        wins += info["won"]
        foundation += info["foundation"]
    return wins, foundation / len(deals)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100_000)
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--rewards", default="progress,win,standard")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    import torch
    from sb3_contrib import MaskablePPO

    from klondike_env.sb3_vec import KlondikeVecEnv

    torch.set_num_threads(1)
    deals = val_deals(args.deals)
    rows = [
        f"| reward | training steps | val wins / {len(deals)} | mean foundation cards | minutes |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for reward in args.rewards.split(","):
        start = time.perf_counter()
        envs = KlondikeVecEnv(n_envs=16, seed=args.seed, reward=reward)
        model = MaskablePPO("MlpPolicy", envs, n_steps=256, batch_size=512, seed=args.seed, device="cpu")
        model.learn(total_timesteps=args.steps)
        wins, foundation = score(model, deals)
        minutes = (time.perf_counter() - start) / 60
        rows.append(f"| `{reward}` | {args.steps:,} | {wins} | {foundation:.1f} | {minutes:.1f} |")
        print(rows[-1], flush=True)
    print("\n".join(rows))


if __name__ == "__main__":
    main()
