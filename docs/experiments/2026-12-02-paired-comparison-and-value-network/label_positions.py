"""Script of the experiment record docs/experiments/2026-12-02-paired-comparison-and-value-network.md (written for the code of commit 352b225): sampled games of the committed policy, every distinct
position labelled by whether the true deal is still solved.

    python docs/experiments/2026-12-02-paired-comparison-and-value-network/label_positions.py FIRST LAST OUT.npz   (from the repository root)

Writes observations ("information", uint8), labels (1 solved, 0 not), deals and move numbers.
Winnability never grows along a game, so one bisection per lost game
(agents.analysis.first_losing_move) labels all its positions.
"""
import sys
import time
from multiprocessing import Pool

import numpy as np
import torch
from sb3_contrib import MaskablePPO

from agents.analysis import first_losing_move
from agents.training.config import load_config
from agents.training.evaluation import play_deals
from klondike_env.game import Game
from klondike_env.observation import observe
from klondike_env.rules import Rules

MODEL = "models/ppo_draw3_privileged_critic/model.zip"
NODES = 50000  # solver budget of each bisection step; undecided counts as not solved
RANDOM_SHARE = 0.05  # share of uniformly random legal moves mixed into the policy's samples


def play(deals, seed):
    torch.set_num_threads(2)
    model = MaskablePPO.load(MODEL, device="cpu")
    env = load_config("models/ppo_draw3_privileged_critic/config.yaml", [])["env"]
    rng = np.random.default_rng(seed)

    def predict(observations, masks):
        with torch.no_grad():
            tensor = model.policy.obs_to_tensor(observations)[0]
            probs = model.policy.get_distribution(tensor, action_masks=masks).distribution.probs.numpy()
        probs = np.where(masks, probs, 0.0)
        probs = (1 - RANDOM_SHARE) * probs / probs.sum(1, keepdims=True) + RANDOM_SHARE * masks / masks.sum(1, keepdims=True)
        return np.array([rng.choice(len(p), p=p / p.sum()) for p in probs])

    return play_deals(predict, deals, env, no_repeat=True)


def label(record):
    deal, actions = record.deal, list(record.actions)
    lost = None if record.won else first_losing_move(deal, actions, Rules(), NODES)
    lost = len(actions) + 1 if lost is None else lost
    game = Game.new(deal)
    seen, observations, labels, moves = set(), [], [], []
    for number in range(len(actions) + 1):
        if game.position_hash() not in seen and not game.is_won:
            seen.add(game.position_hash())
            observations.append(observe(game, "information", "uint8"))
            labels.append(number < lost)
            moves.append(number)
        if number < len(actions):
            game.step(actions[number])
    return deal, np.array(observations), np.array(labels, np.uint8), np.array(moves, np.int16)


if __name__ == "__main__":
    first, last, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    start = time.time()
    records = play(np.arange(first, last + 1), first)
    print("played", len(records), "won", sum(r.won for r in records), round(time.time() - start), "s", flush=True)
    with Pool(2) as pool:
        results = pool.map(label, records, chunksize=4)
    labels = np.concatenate([r[2] for r in results])
    np.savez_compressed(out, observations=np.concatenate([r[1] for r in results]), labels=labels,
                        deals=np.concatenate([np.full(len(r[2]), r[0], np.int32) for r in results]),
                        moves=np.concatenate([r[3] for r in results]))
    print("positions", len(labels), "solved share", labels.mean(), round(time.time() - start), "s")
