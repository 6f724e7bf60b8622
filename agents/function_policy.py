"""Evaluate any policy function ``policy(observation, action_mask) -> action`` with the harness.

    from agents.function_policy import evaluate_function

    json_path, summary = evaluate_function(my_policy, "dev", name="my-policy")

The function sees what an env player sees: the observation of the position (``observation``
mode, as :class:`~klondike_env.env.KlondikeEnv` builds it; modes that show hidden cards are
refused) and the 87-entry legal-action mask. It returns a legal action id (or
:data:`~agents.base.RESIGN`). The games, the CSV and the JSON summary are those of any
built-in agent (``klondike evaluate``), so the same reports and comparisons apply.
"""

from __future__ import annotations

import os
from typing import Callable

import numpy as np

from agents.base import Agent, PlayerView
from agents.registry import register_agent, unregister_agent

Policy = Callable[[np.ndarray, np.ndarray], int]


class FunctionAgent(Agent):
    """An agent that asks ``policy(observation, action_mask)`` for every move."""

    def __init__(self, policy: Policy, observation: str = "information", dtype: str = "float32",
                 name: str = "function"):
        super().__init__()
        if not callable(policy):
            raise TypeError(f"policy must be callable as policy(observation, action_mask), got {policy!r}")
        self.policy, self.observation, self.dtype, self.name = policy, observation, dtype, name

    def act(self, view: PlayerView) -> int:
        return int(self.policy(view.observe(self.observation, self.dtype), view.legal_mask))


def evaluate_function(policy: Policy, seeds: str = "dev", rules=None, *, name: str = "function",
                      observation: str = "information", dtype: str = "float32",
                      out_dir: str | os.PathLike = "results", **harness_options):
    """Play ``policy`` on the seed set through the harness (:func:`agents.evaluation.evaluate`,
    whose keyword options ``harness_options`` take) and write its results files, named after
    ``name``. Returns ``(json_path, summary)``."""
    from agents.evaluation import evaluate

    register_agent(name, lambda: FunctionAgent(policy, observation, dtype, name))
    try:
        return evaluate(name, seeds, rules, out_dir=out_dir, **harness_options)
    finally:
        unregister_agent(name)
