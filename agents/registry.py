"""Agents by name: ``make_agent("determinized:samples=20,nodes=2000")``.

A spec is a registered name, optionally followed by ``:`` and comma-separated
``key=value`` options. Unknown names, unknown options and bad values raise
:class:`~agents.base.AgentOptionError` (a ``ValueError``) in one line naming what is allowed.
"""

from __future__ import annotations

import importlib

from agents.base import Agent, AgentOptionError

#: name -> "module:Class"; modules are imported on use, so no agent's heavy dependency
#: (torch, stable-baselines3) is loaded until that agent is asked for.
AGENTS = {
    "random": "agents.random:RandomAgent",
    "greedy": "agents.greedy:GreedyAgent",
    "determinized": "agents.determinized:DeterminizedAgent",
    "oracle": "agents.oracle:OracleAgent",
    "policy": "agents.policy:PolicyAgent",
    "rollout": "agents.rollout:RolloutAgent",
}


def agent_class(name: str) -> type[Agent]:
    if name not in AGENTS:
        raise AgentOptionError(f"unknown agent {name!r}: allowed agents are {', '.join(AGENTS)}")
    module_name, class_name = AGENTS[name].split(":")
    return getattr(importlib.import_module(module_name), class_name)


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """``"name:a=1,b=x"`` -> ``("name", {"a": "1", "b": "x"})``."""
    if not isinstance(spec, str) or not spec.strip():
        raise AgentOptionError(f"bad agent spec {spec!r}: expected NAME or NAME:key=value,... with NAME one of {', '.join(AGENTS)}")
    name, _, option_text = spec.strip().partition(":")
    options: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in option_text.split(","))):
        key, equals, value = item.partition("=")
        if not equals or not key.strip():
            raise AgentOptionError(f"bad agent option {item!r} in {spec!r}: expected key=value")
        options[key.strip()] = value.strip()
    return name.strip(), options


def make_agent(spec: str, **options) -> Agent:
    """Build an agent from a spec string; keyword options override those in the spec."""
    name, parsed = parse_spec(spec)
    return agent_class(name)(**{**parsed, **options})
