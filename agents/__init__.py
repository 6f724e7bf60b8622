"""Baseline agents for hidden-information Klondike and the harness that scores them.

Agents see a :class:`~agents.base.PlayerView` (what a player knows), never the Game.
Build one by name with :func:`agents.registry.make_agent`; score it with
:mod:`agents.evaluation`. Importing this package pulls in no torch or stable-baselines3.
"""

from agents.base import RESIGN, Agent, DealInfo, PlayerView
from agents.registry import AGENTS, make_agent

__all__ = ["AGENTS", "RESIGN", "Agent", "DealInfo", "PlayerView", "make_agent"]
