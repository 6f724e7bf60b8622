"""Policy networks for the Klondike observation (``policy.features_extractor``).

* ``"mlp"`` -- SB3's default: the flat observation into the ``net_arch`` MLPs.
* ``"cards"`` -- :class:`CardAttentionExtractor`. The observation is 17 scalars then
  per-card planes (``klondike_env.observation``: plane ``p`` holds one value per card
  id), so it is naturally a set of 52 card tokens. Each token is its plane values
  projected, plus a learned embedding of the card's identity; a small transformer
  encoder lets cards attend to each other (which card can go on which); the tokens
  are pooled (mean and max) and joined with the projected scalars. Weights are
  shared across cards, so what is learned about one card transfers to the others.
  ``attention_layers: 0`` replaces the encoder by a per-card MLP (Deep Sets).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import torch
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from klondike_env.core import NUM_CARDS
from klondike_env.observation import NUM_SCALARS

ACTIVATIONS = {
    "relu": nn.ReLU,
    "tanh": nn.Tanh,
    "elu": nn.ELU,
    "gelu": nn.GELU,
    "leaky_relu": nn.LeakyReLU,
}


class CardAttentionExtractor(BaseFeaturesExtractor):
    """52 card tokens -> transformer encoder -> mean/max pool, joined with the scalars."""

    def __init__(self, observation_space: gym.spaces.Box, embedding_dim: int = 64, heads: int = 4, layers: int = 1):
        size = int(observation_space.shape[0])
        planes, remainder = divmod(size - NUM_SCALARS, NUM_CARDS)
        if remainder or planes < 1:
            raise ValueError(
                f"observation of size {size} is not {NUM_SCALARS} scalars + k planes of {NUM_CARDS} cards"
            )
        super().__init__(observation_space, features_dim=3 * embedding_dim)
        self.planes = planes
        self.card_projection = nn.Linear(planes, embedding_dim)
        self.card_identity = nn.Parameter(torch.randn(NUM_CARDS, embedding_dim) * 0.1)
        if layers > 0:
            layer = nn.TransformerEncoderLayer(
                d_model=embedding_dim, nhead=heads, dim_feedforward=2 * embedding_dim,
                dropout=0.0, batch_first=True, norm_first=True,
            )
            self.encoder = nn.TransformerEncoder(layer, num_layers=layers, enable_nested_tensor=False)
        else:
            # no attention: each card token through the same small MLP (Deep Sets),
            # about a tenth of the cost of one attention layer on CPU
            self.encoder = nn.Sequential(nn.ReLU(), nn.Linear(embedding_dim, embedding_dim), nn.ReLU())
        self.scalar_projection = nn.Sequential(nn.Linear(NUM_SCALARS, embedding_dim), nn.ReLU())

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        scalars = observations[:, :NUM_SCALARS]
        # [batch, planes * 52] plane-major -> [batch, 52 cards, planes]
        cards = observations[:, NUM_SCALARS:].reshape(-1, self.planes, NUM_CARDS).transpose(1, 2)
        tokens = self.card_projection(cards) + self.card_identity
        tokens = self.encoder(tokens)
        pooled = torch.cat([tokens.mean(dim=1), tokens.amax(dim=1)], dim=1)
        return torch.cat([pooled, self.scalar_projection(scalars)], dim=1)


def policy_kwargs(policy_config: dict[str, Any]) -> dict[str, Any]:
    """MaskablePPO ``policy_kwargs`` from the ``policy`` config section."""
    kwargs: dict[str, Any] = {
        "net_arch": policy_config["net_arch"],
        "activation_fn": ACTIVATIONS[policy_config["activation_fn"]],
        "ortho_init": policy_config["ortho_init"],
    }
    if policy_config["features_extractor"] == "cards":
        kwargs["features_extractor_class"] = CardAttentionExtractor
        kwargs["features_extractor_kwargs"] = {
            "embedding_dim": policy_config["card_embedding_dim"],
            "heads": policy_config["attention_heads"],
            "layers": policy_config["attention_layers"],
        }
    return kwargs
