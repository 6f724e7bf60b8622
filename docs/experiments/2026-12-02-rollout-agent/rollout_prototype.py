"""Script of the experiment record docs/experiments/2026-12-02-rollout-agent.md (written for the code of commit 690139e): the prototype of agents/rollout.py -- the committed
policy's own rollouts in worlds sampled from the view, scored by the progress rewards plus the
privileged critic's value at the horizon -- used to pick the agent's settings on val deals
1001-1200 before the harness runs (docs/experiments/2026-12-02-rollout-agent/selection_rule.txt).

    python docs/experiments/2026-12-02-rollout-agent/rollout_prototype.py 1001 1201 stall=150 depth=10   # B
    python docs/experiments/2026-12-02-rollout-agent/rollout_prototype.py 1001 1201 confident=0.0         # the policy alone

Prints one line per deal (deal, won, foundation cards, decisions, searched decisions, longest stall,
seconds) and WINS at the end. Differences from the agent: the rewards are written out (the
committed model's progress rewards), the action features of rollout positions are encoded
with the loop breaker's mask instead of the legal mask, and scout=1 is applied before play."""
import sys, time
import numpy as np
import torch
from numba import njit
from klondike_env import core
from klondike_env.game import Game
from klondike_env.rules import Rules
from klondike_env.observation import encode_batch, mode_id, observation_size
from klondike_env.move_memory import MoveMemory
from agents.base import PlayerView
from agents.policy import load_model

MODE = "information+actions+full"

@njit(cache=True)
def advance(states, rules, actions, masks, active, returns, discounts, gamma):
    for row in range(states.shape[0]):
        if not active[row]:
            continue
        state = states[row]
        before = core.foundation_total(state)
        flipped = core.apply_action(state, rules, actions[row])
        after = core.foundation_total(state)
        reward = 0.1 * (after - before) + 0.05 * flipped
        won = after == core.NUM_CARDS
        if won:
            reward += 1.0
        returns[row] += discounts[row] * reward
        discounts[row] *= gamma
        legal = core.legal_mask(state, rules, masks[row])
        if won or core.is_dead_given_mask(state, rules, masks[row], legal):
            active[row] = False

@njit(cache=True)
def masks_of(states, rules, masks):
    for row in range(states.shape[0]):
        core.legal_mask(states[row], rules, masks[row])


class Rollout:
    def __init__(self, path, samples=8, top=3, depth=30, min_prob=0.02, confident=0.97, gamma=0.995, seed=0, use_value=True):
        self.model = load_model("MaskablePPO", __import__("pathlib").Path(path))
        self.policy = self.model.policy
        self.samples, self.top, self.depth = samples, top, depth
        self.min_prob, self.confident, self.gamma = min_prob, confident, gamma
        self.use_value = use_value
        self.mode = mode_id(MODE)
        self.size = observation_size(MODE)
        self.rng = np.random.default_rng(seed)

    def forward(self, obs, masks, values=False):
        with torch.no_grad():
            t = torch.as_tensor(obs)
            dist = self.policy.get_distribution(t, action_masks=masks.astype(bool))
            logits = dist.distribution.logits.numpy()
            v = self.policy.predict_values(t).numpy()[:, 0] if values else None
        return logits, v

    def reset(self, seed):
        self.rng = np.random.default_rng(seed)
        self.memory = MoveMemory(1)
        self.decisions = 0
        self.searched = 0

    def act(self, game):
        view = PlayerView(game)
        position = [view.position_hash()]
        mask = self.memory.untried([0], position, view.legal_mask[None])[0]
        action = self.choose(game, view, mask)
        self.memory.played([0], position, [action])
        return action

    def choose(self, game, view, mask):
        legal = np.flatnonzero(mask)
        if len(legal) == 1:
            return int(legal[0])
        obs = np.zeros((1, self.size), np.float32)
        obs[0, : observation_size("information+actions")] = view.observe("information+actions")
        logits, _ = self.forward(obs, mask[None])
        p = np.exp(logits[0] - logits[0].max()); p /= p.sum()
        order = [int(a) for a in np.argsort(-p) if mask[a]]
        best = order[0]
        self.decisions += 1
        if p[best] >= self.confident or not getattr(self, "search_enabled", True):
            return best
        cands = [a for a in order[: self.top] if p[a] >= self.min_prob]
        if len(cands) == 1:
            return best
        self.searched += 1
        worlds = [view.sample_world(self.rng) for _ in range(self.samples)]
        rules = game._rules_array
        n = len(cands) * self.samples
        states = np.empty((n, game._state.shape[0]), game._state.dtype)
        first = np.empty(n, np.int64)
        for i, a in enumerate(cands):
            for j, w in enumerate(worlds):
                states[i * self.samples + j] = w._state
                first[i * self.samples + j] = a
        masks = np.zeros((n, core.NUM_ACTIONS), np.int8)
        masks_of(states, rules, masks)
        active = np.ones(n, np.bool_)
        returns = np.zeros(n); discounts = np.ones(n)
        advance(states, rules, first, masks, active, returns, discounts, self.gamma)
        memory = MoveMemory(n)
        obs = np.zeros((n, self.size), np.float32)
        rows_all = np.arange(n)
        for step in range(self.depth):
            rows = rows_all[active]
            if len(rows) == 0:
                break
            hashes = MoveMemory.hashes(states[rows], rules)
            m = memory.untried(rows, hashes, masks[rows])
            o = obs[: len(rows)]
            encode_batch(states[rows], rules, m, self.mode, o)  # note: encode reads mask for +actions
            logits, _ = self.forward(o, m)
            acts = np.full(n, -1, np.int64)
            acts[rows] = logits.argmax(1)
            memory.played(rows, hashes, acts[rows])
            advance(states, rules, acts, masks, active, returns, discounts, self.gamma)
        if self.use_value:
            rows = rows_all[active]
            if len(rows):
                o = obs[: len(rows)]
                encode_batch(states[rows], rules, masks[rows], self.mode, o)
                _, v = self.forward(o, masks[rows], values=True)
                returns[rows] += discounts[rows] * v
        q = returns.reshape(len(cands), self.samples).mean(1)
        return cands[int(np.argmax(q))]


def progress(game):
    return sum(game.foundations) * 100 - sum(sum(1 for _, up in c if not up) for c in game.tableau)

STALL = 10**9
SCOUT = 0
def play(agent, deal, max_moves=1000):
    game = Game.new(deal, Rules(draw_count=3))
    agent.reset(deal)
    if SCOUT:
        while game.stock:
            game.step(core.DRAW)
        game.step(core.RECYCLE)
    best, since, longest = progress(game), 0, 0
    while not game.is_over and game.move_count < max_moves:
        agent.search_enabled = since < STALL
        game.step(agent.act(game))
        now = progress(game)
        if now > best:
            best, since = now, 0
        else:
            since += 1
            longest = max(longest, since)
    agent.longest = longest
    return game.is_won, sum(game.foundations)

if __name__ == "__main__":
    start, stop = int(sys.argv[1]), int(sys.argv[2])
    kw = dict(a.split("=") for a in sys.argv[3:])
    STALL = int(kw.pop("stall", 10**9))
    SCOUT = int(kw.pop("scout", 0))
    kw = {k: (float(v) if "." in v else (v == "True" if v in ("True", "False") else int(v))) for k, v in kw.items()}
    agent = Rollout("models/ppo_draw3_privileged_critic/model.zip", **kw)
    wins = 0; t0 = time.time()
    for deal in range(start, stop):
        won, f = play(agent, deal)
        wins += won
        print(deal, int(won), f, agent.decisions, agent.searched, agent.longest, f"{time.time()-t0:.0f}s", flush=True)
    print("WINS", wins, stop - start, kw)
