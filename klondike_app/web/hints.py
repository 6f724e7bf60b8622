"""Hints and auto finish, from the project's agents and solver.

A hint comes from an agent handed only the :class:`~agents.base.PlayerView`: the greedy agent
(instant, the same answer for the same view) or, as the strong hint, the determinized search
(slower; its sampled worlds are drawn with fresh randomness, so they say nothing about
where the hidden cards really lie). Auto finish needs no hidden card left, so the solver may
look at the real position.
"""

from __future__ import annotations

import secrets

from agents.base import RESIGN, DealInfo, PlayerView
from agents.greedy import greedy_action
from klondike_env import core
from klondike_env.game import Game
from klondike_app.web.table import move_json

# Small budgets of the strong hint, so that it answers while the player waits.
STRONG_HINT_OPTIONS = {"samples": 8, "nodes": 4000, "retry": 0}
FINISH_NODE_LIMIT = 2_000_000

NO_PROGRESS = (
    "No move makes real progress from here: what is left only moves cards back and forth or "
    "turns the stock over again. Ways out: undo some moves, replay this deal, or start a new deal."
)


def describe(view: PlayerView, action: int, agent: str) -> dict:
    """A suggested action as the page shows it (or the no-progress note for :data:`RESIGN`)."""
    if action == RESIGN:
        return {"action": None, "name": None, "from": None, "to": None, "cards": [], "agent": agent, "note": NO_PROGRESS}
    return {**move_json(view, action), "agent": agent, "note": None}


def _is_card_move(action: int) -> bool:
    return action not in (core.DRAW, core.RECYCLE)


def greedy_hint(game: Game, actions: list[int]) -> dict:
    """The greedy agent's move, with what it remembers of the game rebuilt from ``actions``: the
    last card move (never simply reversed) and whether this trip through the stock moved a card
    (if not, turning the stock over again would repeat it: no progress)."""
    view = PlayerView(game)
    previous = None
    before = game.copy()
    for action in reversed(actions):
        before.undo()
        if _is_card_move(action):
            previous = PlayerView(before).effect(action)
            break
    since_recycle = actions[len(actions) - actions[::-1].index(core.RECYCLE):] if core.RECYCLE in actions else actions
    moved_this_pass = any(_is_card_move(action) for action in since_recycle)
    action = greedy_action(view, previous)
    if action == core.RECYCLE and not moved_this_pass:
        action = RESIGN
    return describe(view, action, "greedy")


def strong_hint(game: Game, actions: list[int]) -> dict:
    """The determinized agent's move (:data:`STRONG_HINT_OPTIONS`), seeded afresh each time."""
    from agents.determinized import DeterminizedAgent

    view = PlayerView(game)
    agent = DeterminizedAgent(**STRONG_HINT_OPTIONS)
    agent.reset(DealInfo(seed=secrets.randbits(32), rules=game.rules))
    return describe(view, agent.act(view), "determinized")


def finishing_line(game: Game) -> list[int]:
    """A winning line from a position with nothing hidden, or ``ValueError`` saying why not."""
    if game.hidden_cards():
        raise ValueError("auto finish needs every tableau card face up and no unseen card in the stock")
    from klondike_env.solver import SolveStatus, solve

    # a node budget, not seconds: the first call also compiles the solver's kernels
    result = solve(game.copy(), node_limit=FINISH_NODE_LIMIT)
    if result.status != SolveStatus.SOLVED or not result.actions:
        reason = "the game cannot be won from here" if result.status == SolveStatus.UNSOLVABLE else "no winning line was found within the search budget"
        raise ValueError(f"auto finish is not possible: {reason}")
    return [int(action) for action in result.actions]
