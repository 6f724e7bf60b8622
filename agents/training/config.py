"""Training configuration: the schema, YAML loading, ``--override`` and validation.

A config is a nested mapping with five sections (the run folder's ``config.yaml``
holds the resolved form, every value spelled out):

* ``name``     -- run name; the run folder is ``runs/<name>-<UTC time>/``.
* ``env``      -- keyword arguments of :class:`klondike_env.env.KlondikeEnv`
  (rules, observation, reward, episode limits); checked against its signature.
* ``algo``     -- keyword arguments of ``sb3_contrib.MaskablePPO``; checked against
  its signature. ``learning_rate`` and ``clip_range`` also accept rl-zoo3's
  ``"lin_<value>"`` (linear decay to 0).
* ``policy``   -- the network (see :data:`POLICY_DEFAULTS`).
* ``train``    -- steps, envs, seed, threads, evaluation and checkpoint intervals.
* ``pretrain`` -- optional behaviour cloning of recorded games before PPO
  (:mod:`agents.training.pretrain`; see :data:`PRETRAIN_DEFAULTS`).

A config file may start from another: ``base: ppo_draw3.yaml`` (a path relative to the file)
takes that file's values, and the file's own sections are merged over them.

Unknown or mistyped keys, and values of the wrong type or out of range, raise
:class:`ConfigError` naming the key and what is allowed. What a config names outside itself
(the device's presence, seed files, model files) is checked when a run starts
(:func:`agents.training.run.check_run_inputs`), before its folder is made.
"""

from __future__ import annotations

import copy
import difflib
import inspect
import math
import re
from pathlib import Path
from typing import Any

import yaml

from klondike_env.cli import read_text
from klondike_env.observation import ACTIONS_SUFFIX, FULL_SUFFIX

SECTIONS = ("name", "env", "algo", "policy", "train", "pretrain")

POLICY_DEFAULTS: dict[str, Any] = {
    # "mlp": SB3's flatten + MLP. "cards": per-card embeddings pooled by attention
    # (agents.training.networks.CardAttentionExtractor).
    "features_extractor": "mlp",
    "net_arch": {"pi": [256, 256], "vf": [256, 256]},
    "activation_fn": "relu",
    "ortho_init": True,
    # "linear": SB3's head (the pi MLP, then a linear layer to the 87 logits). "shared": one
    # network scores every action from the position and the action's own features
    # (agents.training.networks.ActionScoringPolicy); needs an observation ending in "+actions"
    "action_scorer": "linear",
    "action_hidden": 16,  # units of the shared scorer's hidden layer
    # only used by features_extractor="cards"
    "card_embedding_dim": 64,
    "attention_heads": 4,
    "attention_layers": 1,  # 0: no attention, a per-card MLP (Deep Sets)
    # back in a position, mask the moves the game already played from it (a memoryless
    # policy's loop breaker, klondike_env.move_memory); used in training, its evaluations
    # and by the policy agent that loads the run
    "no_repeat": False,
}

TRAIN_DEFAULTS: dict[str, Any] = {
    "total_timesteps": 1_000_000,
    "n_envs": 64,
    "seed": 0,
    "torch_threads": 1,
    # numba threads stepping the batched training env (klondike_env.vector.KlondikeBatch's
    # num_threads); more than 1 pays only with idle cores and hundreds of envs
    "env_threads": 1,
    "device": "cpu",
    "log_interval": 1,  # PPO iterations between logger dumps
    "checkpoint_freq": 100_000,  # env steps between checkpoints (at rollout boundaries)
    "keep_checkpoints": 3,  # older periodic checkpoints are deleted (0 keeps all)
    "eval_freq": 100_000,  # env steps between validation evaluations (0: never)
    "eval_seeds": "val",  # seed set name (dev, val, test), file, or range "a-b"
    "eval_deals": 100,  # the first N deals of eval_seeds, the same ones every time
    # masked argmax (true) or masked sampling from a fixed seed (false); a deterministic
    # policy over a memoryless observation can cycle forever, sampling cannot
    "eval_deterministic": True,
    "final_eval_deals": 500,  # deals of eval_seeds for the final evaluation (0: skip)
    "stats_window": 200,  # training episodes averaged in the klondike/* scalars
    # a model .zip (e.g. an earlier run's model.zip) whose weights and optimizer state start
    # this run instead of a fresh network: fine-tuning; its spaces must match this config's
    "init_model": "",
    # what init_model gives: "all" (weights and optimizer state) or "actor" (the policy's
    # MLP and action layer only; a "...+full" mode's critic then starts fresh)
    "init_model_part": "all",
    # env steps during which PPO's updates leave the actor's weights as they are and train
    # the critic alone (e.g. a fresh critic beside an actor from init_model); 0: none. A
    # features extractor with weights ("cards") is shared by both and keeps learning
    "critic_warmup_steps": 0,
    # training only: reward lost by a move after which the solver, which sees the hidden cards,
    # no longer solves the true deal (agents/training/losing_moves.py); 0: off
    "losing_move_penalty": 0.0,
    "losing_move_nodes": 20_000,  # the solver's budget for each of those checks
}

INIT_MODEL_PARTS = ("all", "actor")

PRETRAIN_DEFAULTS: dict[str, Any] = {
    # results CSVs of klondike evaluate whose games the policy imitates before PPO starts
    # (empty: no pretraining); paths relative to the working directory
    "demonstrations": [],
    "epochs": 10,
    "batch_size": 512,
    "learning_rate": 1.0e-3,
    "value_coef": 0.5,  # weight of the value head's fit to the demonstrations' returns
    "holdout": 0.05,  # fraction of the games kept out to measure held-out accuracy
    # which epoch's weights are kept: "holdout" (best held-out accuracy) or "validation" (best
    # win rate on the run's validation deals, train.eval_seeds / eval_deals, played as in training's
    # validation): imitation accuracy tells clones that play 13% and 16% apart poorly
    "select": "holdout",
    # fit only the recorded games that were won: self-imitation, cloning the policy's own wins
    # (klondike evaluate-policy with sampled actions writes such games, see docs/training.md)
    "won_only": False,
}

ALGO_DEFAULTS: dict[str, Any] = {
    "learning_rate": 3.0e-4,
    "n_steps": 128,
    "batch_size": 1024,
    "n_epochs": 4,
    "gamma": 0.995,
    "gae_lambda": 0.95,
    "clip_range": 0.2,
    "ent_coef": 0.01,
    "vf_coef": 0.5,
    "max_grad_norm": 0.5,
}

# MaskablePPO arguments the pipeline sets itself.
_ALGO_RESERVED = {
    "self", "policy", "env", "seed", "device", "tensorboard_log", "policy_kwargs",
    "verbose", "_init_setup_model", "rollout_buffer_class", "rollout_buffer_kwargs",
}
# Ranges of the MaskablePPO numbers a config sets: (low, high, low_open). SB3 checks few of
# them (batch_size > 1, clip_range_vf > 0); the rest fail mid-run (n_steps 0) or silently
# make no sense (gamma 2). ent_coef may be 0 (no bonus); a negative coefficient is a typo.
_ALGO_RANGES: dict[str, tuple[float, float, bool]] = {
    "learning_rate": (0, math.inf, True),
    "n_steps": (1, math.inf, False),
    "batch_size": (2, math.inf, False),  # advantage normalisation needs 2 samples (SB3 asserts it)
    "n_epochs": (1, math.inf, False),
    "gamma": (0, 1, False),
    "gae_lambda": (0, 1, False),
    "clip_range": (0, math.inf, True),
    "clip_range_vf": (0, math.inf, True),
    "ent_coef": (0, math.inf, False),
    "vf_coef": (0, math.inf, False),
    "max_grad_norm": (0, math.inf, True),
    "target_kl": (0, math.inf, True),
    "stats_window_size": (1, math.inf, False),
}
_SEED_MAX = 2**32 - 1  # numpy's seed range, which SB3's set_random_seed enforces
_DEVICES = ("cpu", "cuda", "mps")  # torch device types SB3 trains on
_ACTIVATIONS = ("relu", "tanh", "elu", "gelu", "leaky_relu")
_EXTRACTORS = ("mlp", "cards")
_ACTION_SCORERS = ("linear", "shared")


class _Loader(yaml.SafeLoader):
    """PyYAML's safe loader that also reads ``3e-4`` as a float (YAML 1.2 does)."""


_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9][0-9_]*)?(?:\.[0-9_]*)?[eE][-+]?[0-9]+$"),
    list("-+0123456789."),
)


def yaml_load(text: str) -> Any:
    return yaml.load(text, Loader=_Loader)


class ConfigError(ValueError):
    """A training config (file, override or value) that cannot be used."""


def default_config() -> dict[str, Any]:
    """The built-in defaults: what an empty YAML file resolves to."""
    return {
        "name": "ppo",
        "env": {},
        "algo": copy.deepcopy(ALGO_DEFAULTS),
        "policy": copy.deepcopy(POLICY_DEFAULTS),
        "train": copy.deepcopy(TRAIN_DEFAULTS),
        "pretrain": copy.deepcopy(PRETRAIN_DEFAULTS),
    }


# Env keywords that make no sense in a training config.
_ENV_EXCLUDED = ("render_mode",)


def env_keywords() -> tuple[str, ...]:
    """KlondikeEnv's keywords (the env is the single source) minus rendering."""
    from klondike_env.env import EnvConfig

    return tuple(k for k in EnvConfig.KEYWORDS if k not in _ENV_EXCLUDED)


def resolve_env(env: dict[str, Any]) -> dict[str, Any]:
    """Every env keyword with the value the env will use (defaults spelled out).

    The env validates its own arguments; its ValueError becomes a ConfigError.
    """
    from klondike_env.env import EnvConfig

    _check_keys("env", env, env_keywords())
    try:
        resolved = EnvConfig(**env)
    except ValueError as error:
        raise ConfigError(f"env: {error}") from None
    values: dict[str, Any] = {}
    for key in env_keywords():
        if key == "deals":
            if env.get("deals") is not None:
                values["deals"] = [int(d) for d in resolved.deals]
            continue
        value = getattr(resolved, key) if hasattr(resolved, key) else getattr(resolved.rules, key)
        values[key] = value.item() if hasattr(value, "item") else value
    return values


def _algo_parameters() -> dict[str, Any]:
    from sb3_contrib import MaskablePPO

    parameters = inspect.signature(MaskablePPO.__init__).parameters
    return {name: p.default for name, p in parameters.items() if name not in _ALGO_RESERVED}


def _allowed(keys) -> str:
    return ", ".join(sorted(keys))


def _check_keys(section: str, values: dict, allowed) -> None:
    unknown = [key for key in values if key not in allowed]
    if unknown:
        key = unknown[0]
        close = difflib.get_close_matches(str(key), list(allowed), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        where = f"top-level key {key!r}" if section == "config" else f"key {section}.{key}"
        scope = "at the top level" if section == "config" else f"in '{section}'"
        raise ConfigError(f"unknown {where}{hint}; allowed {scope}: {_allowed(allowed)}")


def _type_name(value: Any) -> str:
    return type(value).__name__


def _check_type(path: str, value: Any, default: Any) -> Any:
    """``value``, or an error if its type cannot stand where the default stands. A whole float
    stands for an int (YAML reads ``2e7`` as a float) and comes back as that int."""
    if default is None or default is inspect.Parameter.empty or value is None:
        return value
    if isinstance(default, bool):
        ok = isinstance(value, bool)
    elif isinstance(default, int):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif isinstance(default, float):
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    else:
        ok = isinstance(value, type(default))
    if not ok:
        raise ConfigError(
            f"{path} must be {_type_name(default)} (like {default!r}), got {value!r}"
        )
    return value


def _schedule_start(path: str, value: Any) -> float:
    """The number of a schedule: ``value`` itself or the ``v`` of ``"lin_<v>"``."""
    if isinstance(value, str) and value.startswith("lin_"):
        try:
            return float(value[4:])
        except ValueError:
            pass
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    raise ConfigError(f"{path} must be a number or 'lin_<number>', got {value!r}")


def _check_range(path: str, value: Any, low: float, high: float = math.inf, low_open: bool = False, *,
                 integer: bool = False, shown: Any = None) -> None:
    """One line naming ``path`` and the allowed range unless ``value`` is a number in it (nan is not)."""
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if number and math.isfinite(value) and (value > low if low_open else value >= low) and value <= high:
        return
    if high == math.inf:
        allowed = f"{'>' if low_open else '>='} {low}"
    else:
        allowed = f"in {'(' if low_open else '['}{low}, {high}]"
    kind = "an integer" if integer else "a number"
    raise ConfigError(f"bad {path} {value if shown is None else shown!r}: expected {kind} {allowed}")


def _check_device(device: Any) -> None:
    """The device string must parse; whether this machine has it is checked when a run starts."""
    import torch

    try:
        ok = device == "auto" or torch.device(device).type in _DEVICES
    except (RuntimeError, TypeError):
        ok = False
    if not ok:
        raise ConfigError(f"bad train.device {device!r}: expected auto, cpu, cuda, cuda:<index> or mps")


def validate(config: dict[str, Any]) -> dict[str, Any]:
    """Check every key and value; return ``config`` with the env section resolved, or raise ConfigError."""
    if not isinstance(config, dict):
        raise ConfigError(f"a config must be a mapping with keys {', '.join(SECTIONS)}")
    _check_keys("config", config, SECTIONS)
    if not isinstance(config["name"], str) or not config["name"] or "/" in config["name"]:
        raise ConfigError(f"name must be a non-empty string without '/', got {config['name']!r}")
    for section in SECTIONS[1:]:
        if not isinstance(config[section], dict):
            raise ConfigError(f"'{section}' must be a mapping, got {config[section]!r}")

    config["env"] = resolve_env(config["env"])

    algo_parameters = _algo_parameters()
    _check_keys("algo", config["algo"], algo_parameters)
    algo = config["algo"]
    for key, value in algo.items():
        path = f"algo.{key}"
        if value is None and algo_parameters[key] is None:  # an optional feature left off
            continue
        if key in ("learning_rate", "clip_range", "clip_range_vf"):
            number = _schedule_start(path, value)
        else:
            number = algo[key] = _check_type(path, value, algo_parameters[key])
        if key in _ALGO_RANGES:
            _check_range(path, number, *_ALGO_RANGES[key], integer=type(algo_parameters[key]) is int, shown=value)

    policy = config["policy"]
    _check_keys("policy", policy, POLICY_DEFAULTS)
    for key, value in policy.items():
        if key != "net_arch":
            policy[key] = _check_type(f"policy.{key}", value, POLICY_DEFAULTS[key])
    for key, allowed in (("activation_fn", _ACTIVATIONS), ("features_extractor", _EXTRACTORS),
                         ("action_scorer", _ACTION_SCORERS)):
        if policy[key] not in allowed:
            raise ConfigError(f"policy.{key} must be one of {', '.join(allowed)}, got {policy[key]!r}")
    _check_net_arch(policy["net_arch"])
    if policy["action_scorer"] == "shared":
        observation = config["env"].get("observation", "information")
        if not str(observation).endswith(ACTIONS_SUFFIX):
            raise ConfigError(
                f"policy.action_scorer: shared scores actions from their features: env.observation must end "
                f"in {ACTIONS_SUFFIX!r} (e.g. 'information{ACTIONS_SUFFIX}'), got {observation!r}"
            )
        if policy["features_extractor"] != "mlp":
            raise ConfigError("policy.action_scorer: shared works with features_extractor: mlp only, "
                              f"got {policy['features_extractor']!r}")

    observation = str(config["env"].get("observation", "information"))
    if observation.endswith(FULL_SUFFIX) and (policy["action_scorer"], policy["features_extractor"]) != ("linear", "mlp"):
        raise ConfigError(f"env.observation {observation!r} (a critic that sees the hidden cards) works with "
                          "policy.features_extractor: mlp and policy.action_scorer: linear only")

    train = config["train"]
    _check_keys("train", train, TRAIN_DEFAULTS)
    for key, value in train.items():
        train[key] = _check_type(f"train.{key}", value, TRAIN_DEFAULTS[key])
    clone_only = train["total_timesteps"] == 0 and bool(config["pretrain"]["demonstrations"])
    for key in ("total_timesteps", "n_envs", "torch_threads", "env_threads", "log_interval", "checkpoint_freq",
                "losing_move_nodes"):
        if train[key] < 1 and not (key == "total_timesteps" and clone_only):
            hint = " (0 only with pretrain.demonstrations: clone, then stop)" if key == "total_timesteps" else ""
            raise ConfigError(f"train.{key} must be at least 1{hint}, got {train[key]}")
    _check_range("train.seed", train["seed"], 0, _SEED_MAX, integer=True)
    _check_device(train["device"])
    if train["init_model_part"] not in INIT_MODEL_PARTS:
        raise ConfigError(f"train.init_model_part must be one of {', '.join(INIT_MODEL_PARTS)}, "
                          f"got {train['init_model_part']!r}")
    for key in ("eval_freq", "eval_deals", "final_eval_deals", "keep_checkpoints", "critic_warmup_steps",
                "losing_move_penalty"):
        if train[key] < 0:
            raise ConfigError(f"train.{key} must be 0 or more, got {train[key]}")
    for key in ("card_embedding_dim", "attention_heads", "action_hidden"):
        if policy[key] < 1:
            raise ConfigError(f"policy.{key} must be at least 1, got {policy[key]}")
    if policy["attention_layers"] < 0:
        raise ConfigError(f"policy.attention_layers must be 0 or more, got {policy['attention_layers']}")
    if policy["card_embedding_dim"] % policy["attention_heads"]:
        raise ConfigError(
            f"policy.card_embedding_dim ({policy['card_embedding_dim']}) must be a multiple of "
            f"policy.attention_heads ({policy['attention_heads']})"
        )
    if train["stats_window"] < 1:
        raise ConfigError(f"train.stats_window must be at least 1, got {train['stats_window']}")

    pretrain = config["pretrain"]
    _check_keys("pretrain", pretrain, PRETRAIN_DEFAULTS)
    for key, value in pretrain.items():
        pretrain[key] = _check_type(f"pretrain.{key}", value, PRETRAIN_DEFAULTS[key])
    if not all(isinstance(path, str) and path for path in pretrain["demonstrations"]):
        raise ConfigError(f"pretrain.demonstrations must be a list of CSV paths, got {pretrain['demonstrations']!r}")
    for key in ("epochs", "batch_size"):
        if pretrain[key] < 1:
            raise ConfigError(f"pretrain.{key} must be at least 1, got {pretrain[key]}")
    if not 0 <= pretrain["holdout"] < 1:
        raise ConfigError(f"pretrain.holdout must be in [0, 1), got {pretrain['holdout']}")
    if pretrain["select"] not in ("holdout", "validation"):
        raise ConfigError(f"pretrain.select must be one of 'holdout', 'validation', got {pretrain['select']!r}")
    if pretrain["select"] == "validation" and not train["eval_deals"]:
        raise ConfigError("pretrain.select: validation needs train.eval_deals > 0 (the deals it scores each epoch on)")
    return config


def _check_net_arch(net_arch: Any) -> None:
    def is_layers(value):
        return isinstance(value, list) and all(
            isinstance(n, int) and not isinstance(n, bool) and n > 0 for n in value
        )

    if is_layers(net_arch):
        return
    if isinstance(net_arch, dict) and set(net_arch) == {"pi", "vf"} and all(
        is_layers(v) for v in net_arch.values()
    ):
        return
    raise ConfigError(
        "policy.net_arch must be a list of layer sizes or {pi: [...], vf: [...]}, "
        f"got {net_arch!r}"
    )


def _merge(base: dict, update: dict, path: str = "") -> dict:
    """Deep-merge ``update`` into a copy of ``base`` (mappings merge, other values replace)."""
    merged = copy.deepcopy(base)
    for key, value in update.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict) and key != "net_arch":
            merged[key] = _merge(merged[key], value, f"{path}{key}.")
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def parse_override(text: str) -> tuple[list[str], Any]:
    """``"algo.learning_rate=1e-4"`` -> (["algo", "learning_rate"], 0.0001); values are YAML."""
    key, sep, raw = text.partition("=")
    if not sep or not key.strip():
        raise ConfigError(f"override {text!r} must look like section.key=value")
    try:
        value = yaml_load(raw) if raw.strip() else None
    except yaml.YAMLError as error:
        raise ConfigError(f"override {text!r}: value is not valid YAML ({error.problem})") from None
    return key.strip().split("."), value


def apply_overrides(config: dict[str, Any], overrides: list[str]) -> dict[str, Any]:
    """Set each ``key.sub=value`` in a copy of ``config``; unknown keys are caught by validate."""
    config = copy.deepcopy(config)
    for text in overrides:
        path, value = parse_override(text)
        node = config
        for depth, key in enumerate(path[:-1]):
            child = node.get(key)
            if key not in node:
                child = node[key] = {}  # an unknown section: validate names it
            if not isinstance(child, dict):
                raise ConfigError(f"override {text!r}: {'.'.join(path[:depth + 1])} is not a section")
            node = child
        node[path[-1]] = value
    return config


_CONFIG_FILE = "a YAML training config"


def _read_yaml(path: Path) -> dict[str, Any]:
    try:
        text = read_text(path, _CONFIG_FILE)
    except ValueError as error:  # missing, or not text (a model .zip passed by mistake)
        raise ConfigError(str(error)) from None
    try:
        data = yaml_load(text)
    except yaml.YAMLError as error:
        # PyYAML's message spans lines (context, snippet); keep the problem and its place
        mark = getattr(error, "problem_mark", None)
        where = f", line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise ConfigError(f"config file {path}{where}: not valid YAML ({problem}); expected {_CONFIG_FILE}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"config file {path} must hold a mapping of {', '.join(SECTIONS)}, "
                          f"got {_type_name(data)}; expected {_CONFIG_FILE}")
    return data


def _read_with_base(path: Path, chain: tuple[Path, ...] = ()) -> dict[str, Any]:
    """The YAML file merged over the file its ``base:`` key names (a path relative to this
    file's folder), which may name its own base."""
    data = _read_yaml(path)
    base = data.pop("base", None)
    if base is None:
        return data
    if not isinstance(base, str) or not base.strip():
        raise ConfigError(f"config file {path}: base must be the path of another config file, got {base!r}")
    base_path = (path.parent / base).resolve()
    if base_path in chain or base_path == path.resolve():
        raise ConfigError(f"config file {path}: base {base} leads back to {base_path.name} (a loop of bases)")
    return _merge(_read_with_base(base_path, (*chain, path.resolve())), data)


def load_config(path: str | Path | None, overrides: list[str] = ()) -> dict[str, Any]:
    """Defaults, then the YAML file (over the file its ``base:`` key names, if any), then the
    overrides; validated."""
    config = default_config()
    if path is not None:
        data = _read_with_base(Path(path))
        _check_keys("config", data, SECTIONS)
        config = _merge(config, data)
    config = apply_overrides(config, list(overrides))
    return validate(config)


def load_run_config(run_dir: str | Path, overrides: list[str] = ()) -> dict[str, Any]:
    """The resolved config a run folder was started with (for ``--resume``)."""
    path = Path(run_dir) / "config.yaml"
    if not path.is_file():
        raise ConfigError(f"{run_dir} is not a run folder (no config.yaml)")
    return load_config(path, overrides)


def save_config(config: dict[str, Any], path: str | Path) -> None:
    Path(path).write_text(yaml.safe_dump(config, sort_keys=False))
