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

With ``env.observation_dtype: uint8`` the env sends each entry's integer numerator
(a quarter of the bytes of float32); both extractors then start by dividing by the
entries' divisors (:class:`ObservationScale`), so the network sees exactly the float32
observation and a uint8 run and a float32 run train the same network on the same numbers.
``"mlp"`` becomes :class:`ScaledFlattenExtractor` (SB3's flatten after the division).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import torch
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from klondike_env.core import NUM_CARDS
from klondike_env.observation import NUM_SCALARS, observation_divisors

ACTIVATIONS = {
    "relu": nn.ReLU,
    "tanh": nn.Tanh,
    "elu": nn.ELU,
    "gelu": nn.GELU,
    "leaky_relu": nn.LeakyReLU,
}


class ObservationScale(nn.Module):
    """uint8 observation numerators -> the float32 observation, bit for bit.

    Divides by ``klondike_env.observation.observation_divisors(mode)``, a buffer (saved
    with the weights, moved with the module); IEEE division is correctly rounded, so
    the result equals the env's float32 observation exactly.
    """

    def __init__(self, observation_space: gym.spaces.Box, observation_mode: str):
        super().__init__()
        divisors = observation_divisors(observation_mode)
        # a float32 observation divided again would be wrong, silently
        if observation_space.dtype != np.uint8 or observation_space.shape != divisors.shape:
            raise ValueError(f"observation space {observation_space} is not a uint8 {observation_mode!r} "
                             f"observation ({divisors.shape[0]} entries)")
        self.register_buffer("divisors", torch.as_tensor(divisors))

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return observations / self.divisors


class ScaledFlattenExtractor(BaseFeaturesExtractor):
    """SB3's flatten extractor behind :class:`ObservationScale`: for uint8 observations."""

    def __init__(self, observation_space: gym.spaces.Box, observation_mode: str = "information"):
        super().__init__(observation_space, features_dim=int(observation_space.shape[0]))
        self.scale = ObservationScale(observation_space, observation_mode)

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return self.scale(observations).flatten(1)


class CardAttentionExtractor(BaseFeaturesExtractor):
    """52 card tokens -> transformer encoder -> mean/max pool, joined with the scalars."""

    def __init__(self, observation_space: gym.spaces.Box, embedding_dim: int = 64, heads: int = 4, layers: int = 1,
                 observation_mode: str | None = None):
        size = int(observation_space.shape[0])
        planes, remainder = divmod(size - NUM_SCALARS, NUM_CARDS)
        if remainder or planes < 1:
            raise ValueError(
                f"observation of size {size} is not {NUM_SCALARS} scalars + k planes of {NUM_CARDS} cards"
            )
        super().__init__(observation_space, features_dim=3 * embedding_dim)
        # no mode: float32 observations, used as they are
        self.scale = nn.Identity() if observation_mode is None else ObservationScale(observation_space, observation_mode)
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
        observations = self.scale(observations)
        scalars = observations[:, :NUM_SCALARS]
        # [batch, planes * 52] plane-major -> [batch, 52 cards, planes]
        cards = observations[:, NUM_SCALARS:].reshape(-1, self.planes, NUM_CARDS).transpose(1, 2)
        tokens = self.card_projection(cards) + self.card_identity
        tokens = self.encoder(tokens)
        pooled = torch.cat([tokens.mean(dim=1), tokens.amax(dim=1)], dim=1)
        return torch.cat([pooled, self.scalar_projection(scalars)], dim=1)


def policy_kwargs(policy_config: dict[str, Any], env_config: dict[str, Any]) -> dict[str, Any]:
    """MaskablePPO ``policy_kwargs`` from the ``policy`` and (resolved) ``env`` config sections."""
    kwargs: dict[str, Any] = {
        "net_arch": policy_config["net_arch"],
        "activation_fn": ACTIVATIONS[policy_config["activation_fn"]],
        "ortho_init": policy_config["ortho_init"],
    }
    # the extractor divides uint8 observations back to the float32 values (ObservationScale)
    uint8 = env_config.get("observation_dtype", "float32") == "uint8"
    mode = env_config.get("observation", "information")
    if policy_config["features_extractor"] == "cards":
        kwargs["features_extractor_class"] = CardAttentionExtractor
        kwargs["features_extractor_kwargs"] = {
            "embedding_dim": policy_config["card_embedding_dim"],
            "heads": policy_config["attention_heads"],
            "layers": policy_config["attention_layers"],
            **({"observation_mode": mode} if uint8 else {}),
        }
    elif uint8:
        kwargs["features_extractor_class"] = ScaledFlattenExtractor
        kwargs["features_extractor_kwargs"] = {"observation_mode": mode}
    return kwargs
