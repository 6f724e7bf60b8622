"""``random``: a uniformly random legal action each turn (the floor of the benchmark)."""

from __future__ import annotations

from agents.base import Agent, PlayerView


class RandomAgent(Agent):
    name = "random"

    def act(self, view: PlayerView) -> int:
        return int(self.rng.choice(view.legal_actions))
