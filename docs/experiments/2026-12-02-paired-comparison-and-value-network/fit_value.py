"""Script of the experiment record docs/experiments/2026-12-02-paired-comparison-and-value-network.md (written for the code of commit 352b225): fit V(observation) = P(true deal still solved).

    python docs/experiments/2026-12-02-paired-comparison-and-value-network/fit_value.py OUT.pt EPOCHS DATA.npz [DATA.npz ...]

An MLP on the "information" observation, binary cross-entropy, every 20th deal held out. Each
batch is split in eight parts, each seen through a random symmetry of the rules (columns
permuted, clubs<->spades and/or diamonds<->hearts swapped): without it the network memorises
the training deals and its held-out loss climbs after a few hundred batches.
"""
import sys
import time

import numpy as np
import torch

from klondike_env.observation import NUM_SCALARS, observation_divisors, observation_size

SIZE = observation_size("information")
LEARNING_RATE = 3e-4
BATCH = 1024
SUIT_SWAPS = [(0, 1, 2, 3), (3, 1, 2, 0), (0, 2, 1, 3), (3, 2, 1, 0)]  # involutions that keep colours


def value_network():
    return torch.nn.Sequential(torch.nn.Linear(SIZE, 512), torch.nn.ReLU(), torch.nn.Linear(512, 512), torch.nn.ReLU(),
                               torch.nn.Linear(512, 256), torch.nn.ReLU(), torch.nn.Linear(256, 1))


def symmetry_index(columns, suits):
    """``obs[index]`` is the observation of the position with column j taken from ``columns[j]``
    and suits mapped by ``suits`` (checked against observing the transformed game itself)."""
    card = np.array([13 * suits[c // 13] + c % 13 for c in range(52)])
    index = np.arange(SIZE)
    index[0:7] = columns  # face-down counts per column
    index[7:11] = [7 + suits[s] for s in range(4)]  # foundation heights
    for plane in range(14):
        old_plane = columns[plane] if plane < 7 else plane  # planes 0-6 are per column
        index[NUM_SCALARS + 52 * plane: NUM_SCALARS + 52 * (plane + 1)] = NUM_SCALARS + 52 * old_plane + card
    return index


if __name__ == "__main__":
    torch.manual_seed(0)
    torch.set_num_threads(2)
    out, epochs, paths = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    data = [np.load(path) for path in paths]
    observations = torch.from_numpy(np.concatenate([d["observations"] for d in data]))
    labels = torch.from_numpy(np.concatenate([d["labels"] for d in data]).astype(np.float32))
    held = np.concatenate([d["deals"] for d in data]) % 20 == 0
    scale = torch.tensor(1.0 / observation_divisors("information"), dtype=torch.float32)
    rng = np.random.default_rng(1)
    symmetries = [torch.tensor(symmetry_index(rng.permutation(7), SUIT_SWAPS[rng.integers(4)])) for _ in range(256)]
    net = value_network()
    optimizer = torch.optim.Adam(net.parameters(), lr=LEARNING_RATE)
    train_rows, held_rows = np.flatnonzero(~held), np.flatnonzero(held)
    print("positions", len(labels), "held out", len(held_rows), "solved share", float(labels.mean()), flush=True)

    def held_out():
        net.eval()
        loss = correct = 0.0
        with torch.no_grad():
            for i in range(0, len(held_rows), 8192):
                rows = held_rows[i:i + 8192]
                logits = net(observations[rows].float() * scale)[:, 0]
                loss += torch.nn.functional.binary_cross_entropy_with_logits(logits, labels[rows], reduction="sum").item()
                correct += ((logits > 0).float() == labels[rows]).sum().item()
        net.train()
        return round(loss / len(held_rows), 4), round(correct / len(held_rows), 4)

    total, step = epochs * (len(train_rows) // BATCH), 0
    for epoch in range(epochs):
        start = time.time()
        order = rng.permutation(train_rows)
        for i in range(0, len(order) - BATCH + 1, BATCH):
            for group in optimizer.param_groups:  # cosine decay
                group["lr"] = LEARNING_RATE * 0.5 * (1 + np.cos(np.pi * step / total))
            parts = np.array_split(order[i:i + BATCH], 8)
            x = torch.cat([(observations[p].float() * scale)[:, symmetries[rng.integers(256)]] for p in parts])
            loss = torch.nn.functional.binary_cross_entropy_with_logits(net(x)[:, 0], labels[np.concatenate(parts)])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            step += 1
        print("epoch", epoch + 1, "held-out loss, accuracy", held_out(), round(time.time() - start), "s", flush=True)
        torch.save(net.state_dict(), out)
