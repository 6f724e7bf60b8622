"""``policy``: plays a trained stable-baselines3 / sb3-contrib model (MaskablePPO by default).

``policy:path=runs/ppo-.../model.zip`` loads the model; the run's ``config.yaml`` (next to the
zip or one folder up, as ``klondike train`` writes it) tells which observation mode, dtype
(``observation_dtype``; float32 for runs older than the option) and rules it was trained
with, so observations are built the same way. Each turn the agent
calls ``model.predict(obs, action_masks=mask, deterministic=...)``: the masked greedy action,
or a masked sample with ``deterministic=false``. A model trained with a ``"...+full"`` mode
(a critic that saw the hidden cards) gets the player's observation with zeros in place of the
full part, which its actor never reads. torch and sb3 are imported only here.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from agents.base import Agent, AgentOptionError, DealInfo, PlayerView, _convert_option
from klondike_env.move_memory import MoveMemory
from klondike_env.observation import (
    OBSERVATION_MODES, observation_size, pad_player_observation, player_part, reveals_hidden_cards,
)

RULE_KEYS = ("draw_count", "max_passes", "empty_column", "foundation_to_tableau")


def find_run_config(model_path: Path) -> Path | None:
    """``config.yaml`` in the model's folder or its parent (checkpoints live one level down)."""
    for folder in (model_path.parent, model_path.parent.parent):
        if (folder / "config.yaml").is_file():
            return folder / "config.yaml"
    return None


@dataclass(frozen=True)
class RunSettings:
    """How a saved model plays, from its run's ``config.yaml`` (defaults where the run has none,
    or is older than a key)."""

    config_path: Path | None
    rules: dict  # the rules keys (RULE_KEYS) the run set
    observation: str
    observation_dtype: str
    no_repeat: bool
    env: dict  # the run's whole env section (rewards too: agents.rollout scores lookahead with them)
    gamma: float  # the run's discount (SB3's default, 0.99, where it set none)


def read_run_settings(model_path: Path) -> RunSettings:
    """:class:`RunSettings` of the model at ``model_path`` (the policy agent and batched evaluation)."""
    config_path = find_run_config(model_path)
    run_config = {}
    if config_path is not None:
        import yaml

        run_config = yaml.safe_load(config_path.read_text()) or {}
    env = run_config.get("env") or {}
    return RunSettings(
        config_path=config_path,
        rules={key: env[key] for key in RULE_KEYS if key in env},
        observation=env.get("observation", "information"),
        observation_dtype=env.get("observation_dtype", "float32"),  # float32 in runs older than the option
        no_repeat=bool((run_config.get("policy") or {}).get("no_repeat", False)),
        env=dict(env),
        gamma=float((run_config.get("algo") or {}).get("gamma", 0.99)),
    )


def check_observation_size(model, model_path: Path, mode: str, settings: RunSettings, given: bool,
                           option: str | None = "observation=") -> None:
    """Refuse, in one line, a model whose input length is not ``mode``'s: sb3 would fail only at
    the first move, with a shape error that names neither the mode nor the remedy. ``given``: the
    mode was passed explicitly (else it came from ``settings``); ``option``: how a caller passes
    one (None: it cannot)."""
    expected = int(model.observation_space.shape[0])
    if observation_size(mode) == expected:
        return
    fits = [name for name in OBSERVATION_MODES if observation_size(name) == expected]
    if given:
        source = "the given observation mode"
    elif settings.config_path is None:
        source = "no config.yaml was found beside it, and the default mode"
    else:
        source = f"its run config {str(settings.config_path)!r} says observation mode"
    fix = "put the model's own run config.yaml beside it"
    if option and fits:
        fix = f"pass {option}{fits[0]}" if given else f"{fix} or pass {option}{fits[0]}"
    raise AgentOptionError(
        f"model {str(model_path)!r} expects {expected} observation values"
        + (f" (observation mode {fits[0]!r})" if fits else "")
        + f", but {source} {mode!r} gives {observation_size(mode)}: {fix}"
    )


class PolicyAgent(Agent):
    name = "policy"
    OPTIONS = {
        "path": (str, "", "the model .zip"),
        "deterministic": (bool, True, "masked greedy action (true) or a masked sample (false)"),
        "algo": (str, "MaskablePPO", "sb3_contrib / stable_baselines3 class the file was saved from"),
        "observation": (str, "", "observation mode; default: the run's config.yaml, else information"),
        "no_repeat": (str, "", "true: back in a position, never replay a move already played from it "
                               "(klondike_env.move_memory); default: the run's policy.no_repeat, else false"),
    }

    def __init__(self, **options):
        super().__init__(**options)
        if not self.path:
            raise AgentOptionError("agent 'policy' needs path=MODEL.zip (a model saved by klondike train)")
        model_path = Path(self.path)
        if not model_path.is_file():
            raise AgentOptionError(f"model file {str(model_path)!r} not found: give path= an existing .zip")
        settings = read_run_settings(model_path)
        self.settings = settings
        self.config_path = settings.config_path
        self.trained_rules = settings.rules
        self.mode = self.observation or settings.observation
        self.observation_dtype = settings.observation_dtype
        # a "+full" model's actor reads only the player's part; it gets zeros for the rest
        self.player_mode = player_part(self.mode)
        if reveals_hidden_cards(self.player_mode):
            raise AgentOptionError(
                f"this model reads {self.mode!r} observations, which show the hidden cards: it cannot be scored as a player"
            )
        self.no_repeat = _convert_option(self.name, "no_repeat", self.no_repeat, bool) if self.no_repeat else settings.no_repeat
        self.model = load_model(self.algo, model_path)
        check_observation_size(self.model, model_path, self.mode, settings, given=bool(self.observation))
        self._warned = False

    def reset(self, deal: DealInfo) -> None:
        super().reset(deal)
        if self.trained_rules.get("draw_count", deal.rules.draw_count) != deal.rules.draw_count and not self._warned:
            warnings.warn(f"model {self.path} was trained with draw_count={self.trained_rules['draw_count']}, "
                          f"evaluated with draw_count={deal.rules.draw_count}", stacklevel=2)
            self._warned = True
        if not self.deterministic:
            import torch

            torch.manual_seed(deal.seed % 2**63)
        self._memory = MoveMemory(1) if self.no_repeat else None

    def act(self, view: PlayerView) -> int:
        mask = self.untried_mask(view)
        action, _ = self.model.predict(self.observe(view), action_masks=mask.astype(bool), deterministic=self.deterministic)
        self.remember(view, int(action))
        return int(action)

    def untried_mask(self, view: PlayerView) -> np.ndarray:
        """The legal moves here, less those the loop breaker (``no_repeat``) has already played from here."""
        if self._memory is None:
            return view.legal_mask
        return self._memory.untried([0], [view.position_hash()], view.legal_mask[None])[0]

    def remember(self, view: PlayerView, action: int) -> None:
        """Tell the loop breaker that ``action`` was played from ``view``'s position."""
        if self._memory is not None:
            self._memory.played([0], [view.position_hash()], [action])

    def probabilities(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The policy's probability of each action, one row per observation, zero where masked."""
        import torch

        policy = self.model.policy
        with torch.no_grad():
            tensor = policy.obs_to_tensor(observations)[0]
            distribution = policy.get_distribution(tensor, action_masks=masks.astype(bool))
            return distribution.distribution.probs.numpy()

    def observe(self, view: PlayerView) -> np.ndarray:
        """The model's input for ``view``: the player's observation, padded with zeros where a
        ``+full`` model's critic would read the hidden cards."""
        return pad_player_observation(view.observe(self.player_mode, self.observation_dtype), self.mode)


def load_model(algo: str, path: Path):
    import torch

    torch.set_num_threads(1)  # one game per process; the harness parallelises over processes
    import sb3_contrib
    import stable_baselines3

    cls = getattr(sb3_contrib, algo, None) or getattr(stable_baselines3, algo, None)
    if cls is None:
        raise AgentOptionError(f"unknown algo {algo!r}: give a class of sb3_contrib or stable_baselines3, e.g. MaskablePPO")
    try:
        return cls.load(str(path), device="cpu")
    except Exception as error:  # a zip that is not a model of this class
        raise AgentOptionError(f"cannot load {str(path)!r} as {algo}: {str(error).splitlines()[0]}") from None
