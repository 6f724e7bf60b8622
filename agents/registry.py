"""Agents by name: ``make_agent("determinized:samples=20,nodes=2000")``.

A spec is a registered name, optionally followed by ``:`` and comma-separated
``key=value`` options. A user's own agent class is named by where it lives instead of a
registered name, ``MODULE:CLASS`` or ``FILE.py:CLASS`` (then ``:key=value,...``), e.g.
``my_agents.cautious:CautiousAgent:depth=2`` (the module importable, e.g. through
``PYTHONPATH``) or ``/home/me/cautious.py:CautiousAgent``; the class subclasses
:class:`~agents.base.Agent` (docs/agents/custom.md). Unknown names, unknown options and bad
values raise :class:`~agents.base.AgentOptionError` (a ``ValueError``) in one line naming what
is allowed.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import sys
from pathlib import Path

from agents.base import Agent, AgentOptionError

CLASS_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

#: name -> "module:Class" (or a factory added by :func:`register_agent`); modules are imported
#: on use, so no agent's heavy dependency (torch, stable-baselines3) is loaded until asked for.
AGENTS = {
    "random": "agents.random:RandomAgent",
    "greedy": "agents.greedy:GreedyAgent",
    "determinized": "agents.determinized:DeterminizedAgent",
    "oracle": "agents.oracle:OracleAgent",
    "policy": "agents.policy:PolicyAgent",
    "rollout": "agents.rollout:RolloutAgent",
    "hop": "agents.hop:HopAgent",
}


BUILT_IN = tuple(AGENTS)


def register_agent(name: str, factory) -> None:
    """Make ``name`` build agents in this process (and in the worker processes it forks):
    ``factory(**options)`` returns an :class:`~agents.base.Agent`. Built-in names are refused."""
    if name in BUILT_IN or not CLASS_NAME.fullmatch(name.replace("-", "_")):
        raise AgentOptionError(f"bad agent name {name!r}: use letters, digits, '_' or '-', and none of "
                               f"the built-in names {', '.join(BUILT_IN)}")
    AGENTS[name] = factory


def unregister_agent(name: str) -> None:
    if name not in BUILT_IN:
        AGENTS.pop(name, None)


def agent_class(name: str) -> type[Agent]:
    """The class (or factory) of a registered agent, or of a user's agent named ``MODULE:CLASS``
    / ``FILE.py:CLASS``."""
    if name in AGENTS:
        if not isinstance(AGENTS[name], str):
            return AGENTS[name]
        module_name, class_name = AGENTS[name].split(":")
        return getattr(importlib.import_module(module_name), class_name)
    where, colon, class_name = name.rpartition(":")
    if not colon:
        raise AgentOptionError(f"unknown agent {name!r}: allowed agents are {', '.join(AGENTS)}, "
                               "or your own class as MODULE:CLASS or FILE.py:CLASS")
    module = _user_module(where, name)
    found = getattr(module, class_name, None)
    if not (isinstance(found, type) and issubclass(found, Agent)):
        what = "not found" if found is None else "not a subclass of agents.base.Agent"
        raise AgentOptionError(f"bad agent {name!r}: {class_name!r} in {where} is {what}")
    return found


def _user_module(where: str, name: str):
    """The module ``where`` names: a ``.py`` file (loaded once per process) or an importable module."""
    if where.endswith(".py"):
        path = Path(where).expanduser().resolve()
        module_name = "_user_agent" + re.sub(r"\W", "_", str(path))
        if module_name in sys.modules:
            return sys.modules[module_name]
        if not path.is_file():
            raise AgentOptionError(f"bad agent {name!r}: no file {where}")
        spec = importlib.util.spec_from_file_location(module_name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module  # before running it: dataclasses and pickling look it up
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[module_name]
            raise
        return module
    try:
        return importlib.import_module(where)
    except ModuleNotFoundError as error:
        raise AgentOptionError(f"bad agent {name!r}: cannot import {where} ({error}); put its folder on "
                               "PYTHONPATH, or give the file as FILE.py:CLASS") from None


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """``"name:a=1,b=x"`` -> ``("name", {"a": "1", "b": "x"})``; a user's class keeps its
    location in the name: ``"pkg.mod:Cls:a=1"`` -> ``("pkg.mod:Cls", {"a": "1"})``."""
    if not isinstance(spec, str) or not spec.strip():
        raise AgentOptionError(f"bad agent spec {spec!r}: expected NAME or NAME:key=value,... with NAME one of "
                               f"{', '.join(AGENTS)}, or MODULE:CLASS[:key=value,...]")
    name, _, option_text = spec.strip().partition(":")
    head, _, rest = option_text.partition(":")
    if name not in AGENTS and CLASS_NAME.fullmatch(head.strip()):  # MODULE:CLASS[:options]
        name, option_text = f"{name}:{head.strip()}", rest
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
