"""``train.losing_move_penalty``: a training reward from the solver, which sees the hidden cards.

After every move of a training game whose position the solver had solved, the true position
(hidden cards included) is solved again within ``train.losing_move_nodes`` expanded nodes; when it
is no longer solved, that step's reward loses ``train.losing_move_penalty`` and the game is not
checked again. The first position checked is the one after the game's first move; a game not
solved there is never penalised. A move that follows the last solution found keeps the game
solved without a new search. Draws are checked too: in draw-3, passing cards shifts which cards
later draws reach.

The verdict reaches the agent only through the reward: the observation is the player's as
before, so what a policy can learn from it is to avoid the moves that lose in most deals
consistent with what it sees (the share of winnable worlds that ``agents.analysis.label_moves``
measures). Evaluation never uses it. "Not solved within the budget" counts as lost, as in
``agents.analysis.first_losing_move``: a hard but winnable position can be penalised.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from stable_baselines3.common.vec_env import VecEnvWrapper

from klondike_env.solver import SolveStatus, solve

# a small transposition table: each check is a small search, and allocating is per check
TABLE_MB = 64
# per game: first position not checked yet / last check solved / penalised, no more checks /
# not solved at its first check, never checked again
NEW, SOLVED, LOST, UNCHECKED = 0, 1, 2, 3


class LosingMovePenalty(VecEnvWrapper):
    """Wraps :class:`~klondike_env.sb3_vec.KlondikeVecEnv` (it reads the true positions of
    ``venv.batch``). Each finished episode's info has ``losing_move``: whether it was penalised."""

    def __init__(self, venv, penalty: float, node_limit: int):
        super().__init__(venv)
        self.penalty = penalty
        self.node_limit = node_limit
        self.status = np.full(self.num_envs, NEW, np.int8)
        # per game: the rest of the last solution found, next move last
        self.lines: list[list[int]] = [[] for _ in range(self.num_envs)]
        self._actions = np.zeros(self.num_envs, np.int64)

    def reset(self):
        self.status[:] = NEW
        self.lines = [[] for _ in range(self.num_envs)]
        return self.venv.reset()

    def step_async(self, actions) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs)
        self.venv.step_async(actions)

    def step_wait(self):
        observations, rewards, dones, infos = self.venv.step_wait()
        for row in range(self.num_envs):
            if dones[row]:
                infos[row]["losing_move"] = bool(self.status[row] == LOST)
                self.status[row], self.lines[row] = NEW, []
                continue
            if self.status[row] in (LOST, UNCHECKED):
                continue
            line = self.lines[row]
            if line and line[-1] == self._actions[row]:
                line.pop()  # the game follows its last solution: still solved
                continue
            if self._solved(row):
                self.status[row] = SOLVED
            elif self.status[row] == SOLVED:
                rewards[row] -= self.penalty
                self.status[row] = LOST
            else:
                self.status[row] = UNCHECKED
        return observations, rewards, dones, infos

    def _solved(self, row: int) -> bool:
        result = solve(self.venv.batch.game(row), node_limit=self.node_limit, memory_limit_mb=TABLE_MB)
        solved = result.status == SolveStatus.SOLVED
        self.lines[row] = result.actions[::-1] if solved else []
        return solved

    def state_dict(self) -> dict[str, Any]:
        """What a resumed run needs to go on checking the same games."""
        return {"status": self.status.copy(), "lines": [list(line) for line in self.lines]}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.status[:] = state["status"]
        self.lines = [list(line) for line in state["lines"]]
