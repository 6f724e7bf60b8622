"""Script of the experiment record docs/experiments/2026-12-02-symmetric-refinement-and-logit-bias.md (written for the code of commit 1aed05b): the refinement of 2026-12-01-solver-labelled-blunders seen through symmetries.

    python docs/experiments/2026-12-02-symmetric-refinement-and-logit-bias/refine_symmetric.py MODEL.zip LABELS.npz OUT.zip EPOCHS

LABELS.npz is ``scripts/label_moves.py``'s output. As in ``refine.py`` (docs/experiments/2026-12-01-solver-labelled-blunders.md,
2026-12-01-solver-labelled-blunders) the actor is fit to pi0(a) * (1[share(a) >= best - 0.25] + 0.001), pi0 the starting
policy, positions where the shares differ weighted x10, a tenth of the deals held out. New: each
row is seen through a random symmetry of the rules (columns permuted, clubs<->spades and/or
diamonds<->hearts; a quarter of the rows as they are), its target the canonical view's target
mapped over, so the network learns to play every view as it plays the canonical one, minus the
labelled blunders. Saves OUT_e<epoch>.zip after every epoch.
"""
import importlib.util
import sys
from pathlib import Path

import numpy as np
import torch
from sb3_contrib import MaskablePPO

from klondike_env import core
from klondike_env.observation import ACTION_FEATURES, observation_divisors, observation_size

# the "information" part's index map, from the script beside the value-network record (loaded by its path)
_FIT_VALUE = Path(__file__).resolve().parent.parent / "2026-12-02-paired-comparison-and-value-network" / "fit_value.py"
_spec = importlib.util.spec_from_file_location("fit_value", _FIT_VALUE)
fit_value = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fit_value)
SUIT_SWAPS, symmetry_index = fit_value.SUIT_SWAPS, fit_value.symmetry_index

MODE = "information+actions"
BASE = observation_size("information")
SIZE = observation_size(MODE)
IDENTITY_SHARE = 0.25
VIEWS = 512


def action_index(columns, suits):
    """``probabilities[index]`` maps an action vector of the original position to the view's
    (column j of the view is column ``columns[j]``); also the per-action feature blocks' order."""
    new_column = np.argsort(columns)
    new_id = np.arange(core.NUM_ACTIONS)  # new_id[a]: the view's id of original action a
    for c in range(core.NUM_COLUMNS):
        new_id[core.WASTE_TO_COLUMN + c] = core.WASTE_TO_COLUMN + new_column[c]
        new_id[core.COLUMN_TO_FOUNDATION + c] = core.COLUMN_TO_FOUNDATION + new_column[c]
        for f in range(core.NUM_SUITS):
            new_id[core.FOUNDATION_TO_COLUMN + core.NUM_COLUMNS * f + c] = (
                core.FOUNDATION_TO_COLUMN + core.NUM_COLUMNS * suits[f] + new_column[c])
        for d in range(core.NUM_COLUMNS):
            if d != c:
                new_id[core.column_action(c, d)] = core.column_action(new_column[c], new_column[d])
    return np.argsort(new_id)


def observation_index(columns, suits):
    actions = action_index(columns, suits)
    features = BASE + ACTION_FEATURES * actions[:, None] + np.arange(ACTION_FEATURES)
    return np.concatenate([symmetry_index(columns, suits), features.ravel()])


if __name__ == "__main__":
    torch.manual_seed(0)
    torch.set_num_threads(2)
    rng = np.random.default_rng(0)
    model_path, labels_path, out, epochs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    model = MaskablePPO.load(model_path, device="cpu")
    policy = model.policy
    labels = np.load(labels_path)
    observations = torch.from_numpy(labels["observations"])  # uint8 numerators
    shares = torch.from_numpy(labels["shares"])
    legal = shares >= 0
    scale = torch.tensor(1.0 / observation_divisors(MODE), dtype=torch.float32)
    width = model.observation_space.shape[0]  # a "+full" model: zeros after the player's part

    def logits_of(raw, legal_rows):
        x = torch.zeros((len(raw), width))
        x[:, :SIZE] = raw.float() * scale
        latent = policy.mlp_extractor.forward_actor(policy.extract_features(x, policy.pi_features_extractor))
        return torch.where(legal_rows, policy.action_net(latent), torch.tensor(-1e8))

    views = [(np.arange(SIZE), np.arange(core.NUM_ACTIONS))]  # view 0: as it is
    for _ in range(VIEWS - 1):
        columns, suits = rng.permutation(core.NUM_COLUMNS), SUIT_SWAPS[rng.integers(4)]
        views.append((observation_index(columns, suits), action_index(columns, suits)))
    observation_views = torch.tensor(np.stack([v[0] for v in views]))
    action_views = torch.tensor(np.stack([v[1] for v in views]))

    with torch.no_grad():
        start = torch.cat([torch.softmax(logits_of(observations[i:i + 4096], legal[i:i + 4096]), -1)
                           for i in range(0, len(observations), 4096)])
    best = torch.where(legal, shares, torch.tensor(-1.0)).max(1, keepdim=True).values
    worst = torch.where(legal, shares, torch.tensor(2.0)).min(1, keepdim=True).values
    target = start * ((shares >= best - 0.25).float() + 0.001) * legal
    target /= target.sum(1, keepdim=True)
    weight = torch.where((best > worst)[:, 0], 10.0, 1.0)
    held_out = torch.from_numpy(labels["deals"] % 10 == 0)

    def seen_through(rows, view):
        """rows' observations, legal masks, targets and shares in the views ``view`` (one per row)"""
        actions = action_views[view]
        return (torch.gather(observations[rows], 1, observation_views[view]),
                *(torch.gather(t[rows], 1, actions) for t in (legal, target, shares)))

    held_rows = torch.nonzero(held_out & (best > worst)[:, 0]).flatten()
    fixed_views = torch.from_numpy(np.random.default_rng(1).integers(1, VIEWS, len(held_rows)))

    def regret(view):  # mean (best share - share of the argmax) on held-out positions where shares differ
        with torch.no_grad():
            raw, legal_rows, _, view_shares = seen_through(held_rows, view)
            chosen = view_shares.gather(1, logits_of(raw, legal_rows).argmax(1, keepdim=True))
            return round(float((best[held_rows] - chosen).mean()), 4)

    def report(tag):
        print(tag, "held-out regret: as it is", regret(torch.zeros_like(fixed_views)), "in other views",
              regret(fixed_views), flush=True)

    report("start")
    train = torch.nonzero(~held_out).flatten()
    optimizer = torch.optim.Adam(list(policy.mlp_extractor.policy_net.parameters())
                                 + list(policy.action_net.parameters()), lr=3e-4)
    for epoch in range(epochs):
        order = train[torch.randperm(len(train))]
        for i in range(0, len(order), 256):
            rows = order[i:i + 256]
            view = torch.randint(1, VIEWS, (len(rows),))
            view[torch.rand(len(rows)) < IDENTITY_SHARE] = 0
            raw, legal_rows, view_target, _ = seen_through(rows, view)
            log_p = torch.log_softmax(logits_of(raw, legal_rows), -1).clamp(min=-30)
            loss = (-(view_target * log_p).sum(1) * weight[rows]).sum() / weight[rows].sum()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        report(f"epoch {epoch + 1}")
        model.save(out.replace(".zip", f"_e{epoch + 1}.zip"))
