"""Script of the experiment record docs/experiments/2026-12-02-paired-comparison-and-value-network.md (written for the code of commit 352b225): one-move lookahead on the learned value.

    python docs/experiments/2026-12-02-paired-comparison-and-value-network/play_value.py V.pt SEEDS WORLDS BETA

Each legal move is scored by the mean V of the positions after it, over WORLDS worlds sampled
from the player's view when the move shows a card the player has not seen (one otherwise: the
observation after it is the same in every world). BETA = 0: V alone; BETA > 0: log V + BETA
log pi with pi the committed policy; BETA < 0: the policy's favourite among the moves whose V is
within -BETA of the best. Loop breaker as the policy agent's; harness move cap.
"""
import sys
from multiprocessing import Pool

import numpy as np
import torch

from agents.base import PlayerView
from agents.evaluation import DEFAULT_MAX_MOVES, load_seed_set
from fit_value import value_network
from klondike_env import core
from klondike_env.game import Game
from klondike_env.move_memory import MoveMemory
from klondike_env.observation import observe, pad_player_observation

MODEL = "models/ppo_draw3_privileged_critic/model.zip"
value = policy = None
WORLDS, BETA = 4, 0.0


def init(path, worlds, beta):
    global value, policy, WORLDS, BETA
    torch.set_num_threads(1)
    value = value_network()
    value.load_state_dict(torch.load(path))
    value.eval()
    WORLDS, BETA = worlds, beta
    if beta:
        from sb3_contrib import MaskablePPO
        policy = MaskablePPO.load(MODEL, device="cpu").policy


def shows_new_card(view, action):
    if action == core.DRAW:
        return view.passes <= 1 and view.stock_count > 0  # first pass: the drawn cards were never seen
    return action != core.RECYCLE and view.effect(action).flips


def choose(view, mask, rng):
    legal = np.flatnonzero(mask)
    if len(legal) == 1:
        return int(legal[0])
    worlds = [view.sample_world(rng) for _ in range(WORLDS)]
    rows, owners, wins = [], [], set()
    for action in legal:
        for world in worlds if shows_new_card(view, action) else worlds[:1]:
            child = world.copy()
            child.step(int(action))
            if child.is_won:
                wins.add(action)
            rows.append(observe(child, "information"))
            owners.append(action)
    with torch.no_grad():
        values = torch.sigmoid(value(torch.tensor(np.stack(rows)))[:, 0]).numpy()
    owners = np.array(owners)
    score = np.full(core.NUM_ACTIONS, -np.inf)
    for action in legal:
        score[action] = 1e9 if action in wins else values[owners == action].mean()
    if BETA:
        observation = pad_player_observation(view.observe("information+actions"), "information+actions+full")
        with torch.no_grad():
            distribution = policy.get_distribution(policy.obs_to_tensor(observation[None])[0], action_masks=mask[None])
            log_pi = torch.log(distribution.distribution.probs[0].clamp(min=1e-9)).numpy()
        if BETA > 0:
            score = np.log(np.clip(score, 1e-6, None)) + BETA * log_pi
        else:
            score = np.where(score >= np.max(score) + BETA, log_pi, -np.inf)
    return int(np.argmax(np.where(mask, score, -np.inf)))


def play(deal):
    game, memory, rng = Game.new(deal), MoveMemory(1), np.random.default_rng(deal)
    while not game.is_won and not game.is_dead and game.move_count < DEFAULT_MAX_MOVES:
        position = [game.position_hash()]
        mask = memory.untried([0], position, game.action_mask()[None])[0].astype(bool)
        action = choose(PlayerView(game), mask, rng)
        memory.played([0], position, [action])
        game.step(action)
    return bool(game.is_won)


if __name__ == "__main__":
    path, seeds, worlds, beta = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    _, deals = load_seed_set(seeds)
    with Pool(2, init, (path, worlds, beta)) as pool:
        won = pool.map(play, deals, chunksize=5)
    print(seeds, path, "worlds", worlds, "beta", beta, "won", sum(won), "/", len(won))
