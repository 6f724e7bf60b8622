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

The policy head (``policy.action_scorer``):

* ``"linear"`` -- SB3's: the ``pi`` MLP, then one linear layer to the 87 logits.
* ``"shared"`` -- :class:`ActionScoringPolicy`, for observations with per-action features
  (``"…+actions"``). SB3's head plus one small network that scores every action from the
  position (a query from the ``pi`` MLP), the action's 8 features and a learned embedding
  of the action id. The same weights score every action, so "a move that turns a card up
  is good" is learned once, not 87 times, as it must be when a flat MLP reads feature
  ``f`` of action ``a`` through its own weights.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor, MlpExtractor
from torch import nn

from klondike_env.core import NUM_ACTIONS, NUM_CARDS
from klondike_env.observation import (
    ACTION_FEATURES, FULL_SUFFIX, NUM_SCALARS, observation_divisors, observation_size, player_part,
)

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


class ActionScorer(nn.Module):
    """SB3's ``mlp_extractor`` slot for :class:`ActionScoringPolicy`.

    ``forward_actor`` returns the 87 logits themselves (``latent_dim_pi`` = 87; the policy's
    ``action_net`` is the identity): SB3's head -- the ``pi`` MLP over the whole observation
    and a linear layer, one logit per action id -- plus a shared score of each action: one
    hidden layer of ``hidden`` units over a query from the ``pi`` MLP's output, the action's
    8 features and a learned embedding of its id. The sum can express everything SB3's head
    can, and the shared term reads every action's features through the same weights.
    ``forward_critic`` is SB3's value MLP.
    """

    def __init__(self, features_dim: int, net_arch: list[int] | dict[str, list[int]],
                 activation_fn: type[nn.Module], hidden: int):
        super().__init__()
        self.features_start = features_dim - NUM_ACTIONS * ACTION_FEATURES
        if self.features_start <= 0:
            raise ValueError(f"features of size {features_dim} hold no {NUM_ACTIONS} x {ACTION_FEATURES} "
                             "per-action features: use an observation mode ending in '+actions'")
        self.mlp = MlpExtractor(features_dim, net_arch, activation_fn)
        self.per_action_id = nn.Linear(self.mlp.latent_dim_pi, NUM_ACTIONS)
        self.query = nn.Linear(self.mlp.latent_dim_pi, hidden)
        self.action_features = nn.Linear(ACTION_FEATURES, hidden)
        self.action_id = nn.Embedding(NUM_ACTIONS, hidden)
        self.score = nn.Sequential(activation_fn(), nn.Linear(hidden, 1))
        self.latent_dim_pi = NUM_ACTIONS
        self.latent_dim_vf = self.mlp.latent_dim_vf

    def output_layers(self) -> tuple[nn.Linear, nn.Linear]:
        return self.per_action_id, self.score[-1]

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        latent = self.mlp.forward_actor(features)
        per_action = features[:, self.features_start:].reshape(-1, NUM_ACTIONS, ACTION_FEATURES)
        hidden = self.query(latent).unsqueeze(1) + self.action_features(per_action) + self.action_id.weight
        return self.per_action_id(latent) + self.score(hidden).squeeze(-1)

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return self.mlp.forward_critic(features)


class ActionScoringPolicy(MaskableActorCriticPolicy):
    """MaskablePPO's policy with :class:`ActionScorer` heads (``policy.action_scorer: shared``)."""

    def __init__(self, *args, action_hidden: int = 16, **kwargs):
        self.action_hidden = action_hidden
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = ActionScorer(self.features_dim, self.net_arch, self.activation_fn, self.action_hidden)

    def _build(self, lr_schedule) -> None:
        super()._build(lr_schedule)
        # the scorer's outputs are the logits already
        self.action_net = nn.Identity()
        if self.ortho_init:
            # small output layers, as SB3 gives its action_net: a near-uniform first policy
            for layer in self.mlp_extractor.output_layers():
                self.init_weights(layer, gain=0.01)
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        return {**super()._get_constructor_parameters(), "action_hidden": self.action_hidden}


class SplitMlpExtractor(nn.Module):
    """SB3's two MLPs on two parts of the features: the ``pi`` MLP reads the first
    ``actor_size`` entries (the player's observation), the ``vf`` MLP the rest (the
    ``"full"`` planes of a ``"...+full"`` observation mode, hidden cards included).

    The parameter names are MlpExtractor's (``policy_net``, ``value_net``), so an actor
    trained on the player's mode alone loads into this one (``train.init_model_part: actor``).
    """

    def __init__(self, features_dim: int, actor_size: int, net_arch: dict[str, list[int]],
                 activation_fn: type[nn.Module]):
        super().__init__()
        if not 0 < actor_size < features_dim:
            raise ValueError(f"actor_size {actor_size} must split the {features_dim} features in two")
        self.actor_size = actor_size
        actor = MlpExtractor(actor_size, {"pi": net_arch["pi"], "vf": []}, activation_fn)
        critic = MlpExtractor(features_dim - actor_size, {"pi": [], "vf": net_arch["vf"]}, activation_fn)
        self.policy_net, self.value_net = actor.policy_net, critic.value_net
        self.latent_dim_pi, self.latent_dim_vf = actor.latent_dim_pi, critic.latent_dim_vf

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return self.policy_net(features[:, :self.actor_size])

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return self.value_net(features[:, self.actor_size:])


class PrivilegedCriticPolicy(MaskableActorCriticPolicy):
    """MaskablePPO's policy for a ``"...+full"`` observation mode (asymmetric actor-critic):
    the actor sees the player's observation only, the critic the full one
    (:class:`SplitMlpExtractor`). Playing needs only the actor, so the policy agent feeds it
    the player's observation with the full part zeroed (it is never read)."""

    def __init__(self, *args, actor_size: int, **kwargs):
        self.actor_size = actor_size
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        net_arch = self.net_arch if isinstance(self.net_arch, dict) else {"pi": self.net_arch, "vf": self.net_arch}
        self.mlp_extractor = SplitMlpExtractor(self.features_dim, self.actor_size, net_arch, self.activation_fn)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        return {**super()._get_constructor_parameters(), "actor_size": self.actor_size}


def policy_class(policy_config: dict[str, Any], env_config: dict[str, Any]):
    """What MaskablePPO is given as its policy for the ``policy`` and (resolved) ``env`` config sections."""
    if env_config.get("observation", "information").endswith(FULL_SUFFIX):
        return PrivilegedCriticPolicy
    return ActionScoringPolicy if policy_config["action_scorer"] == "shared" else "MlpPolicy"


def policy_kwargs(policy_config: dict[str, Any], env_config: dict[str, Any]) -> dict[str, Any]:
    """MaskablePPO ``policy_kwargs`` from the ``policy`` and (resolved) ``env`` config sections."""
    kwargs: dict[str, Any] = {
        "net_arch": policy_config["net_arch"],
        "activation_fn": ACTIVATIONS[policy_config["activation_fn"]],
        "ortho_init": policy_config["ortho_init"],
    }
    if policy_config["action_scorer"] == "shared":
        kwargs["action_hidden"] = policy_config["action_hidden"]
    mode = env_config.get("observation", "information")
    if mode.endswith(FULL_SUFFIX):
        kwargs["actor_size"] = observation_size(player_part(mode))
    # the extractor divides uint8 observations back to the float32 values (ObservationScale)
    uint8 = env_config.get("observation_dtype", "float32") == "uint8"
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
