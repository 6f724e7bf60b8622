"""``oracle``: an UPPER BOUND, not a player -- it sees the hidden cards.

The oracle is the only agent handed the real game: the harness calls :meth:`OracleAgent.reveal`
with a copy of it (a separate channel no other agent receives). It solves the true deal
with the exact solver and plays the solution (solving again if it finds the game elsewhere than
its plan led: another player moved); when the solver finds no win within its budget it plays the
greedy agent's moves. Its win rate bounds what any player could
reach on the same deals with the same solver budget; report it as such.
"""

from __future__ import annotations

from agents.base import Agent, DealInfo, PlayerView
from agents.greedy import GreedyAgent
from klondike_env.game import Game
from klondike_env.solver import SolveStatus, solve


class OracleAgent(Agent):
    name = "oracle"
    sees_hidden_cards = True
    OPTIONS = {
        "nodes": (int, 1_000_000, "solver positions for the true deal (deterministic budget)"),
        "budget": (float, 0.0, "solver seconds, 0 for none (timing-dependent when set)"),
    }

    def __init__(self, **options):
        super().__init__(**options)
        self._fallback = GreedyAgent()

    def reset(self, deal: DealInfo) -> None:
        super().reset(deal)
        self._fallback.reset(deal)
        self._game: Game | None = None
        self._plan: list[int] | None = None
        self._expected = 0  # position hash the plan's last move led to
        self.status: SolveStatus | None = None

    def reveal(self, game: Game) -> None:
        """The true game, before each decision (only the harness calls this)."""
        self._game = game

    def act(self, view: PlayerView) -> int:
        if self._game is None:
            raise RuntimeError("the oracle needs the true game: the harness calls reveal() before act()")
        if self._plan is None or (self._plan and self._game.position_hash() != self._expected):
            # first move, or another player moved (DAgger labelling, agents/training/dagger.py):
            # the plan no longer starts here, solve again
            result = solve(self._game, node_limit=self.nodes or None, time_limit=self.budget or None)
            self.status = result.status
            self._plan = list(result.actions) if result.status == SolveStatus.SOLVED else []
        if self._plan:
            action = self._plan.pop(0)
            after = self._game.copy()
            after.step(action)
            self._expected = after.position_hash()
            return action
        return self._fallback.act(view)
