"""``hop``: hindsight optimisation over the moves that commit, worlds shared out by a bandit.

The decision rule of lonelybot (github.com/vuonghy2442/lonelybot), on this project's engine and
solver. A free move -- a draw or recycle that turns up no unseen card, a move between columns
that can be taken back (:func:`~agents.determinized.reversible`) -- decides nothing. So the
candidates at a decision are lines of free moves ending in one move that commits (a waste card
played, a card turned up, a column emptied for good, a draw that turns up unseen cards), one per
position such a line ends in: every talon card that draws bring up and where it can go, every
card that can be turned up. A candidate is judged by the worlds it wins
(:meth:`~agents.base.PlayerView.sample_world`, the line played, then the solver under
``nodes``); worlds are handed out ``batch`` at a time to the candidate of highest upper
confidence bound (UCB1, constant ``explore``), until one has been tried in ``samples`` worlds or
``samples`` times ``spread`` worlds are solved; the candidate with the highest win rate (under a
uniform prior) plays its whole line. Every candidate is tried in the same worlds (the k-th world
it is tried in is the k-th sampled at that decision), so candidates are compared on equal luck.

Unlike the ``determinized`` agent's vote, no judged move is one a world would win by coming
back from (hindsight credits such a move with every world any move wins: moves to and from the
foundations that can be taken back are candidates only when nothing commits), and every such
move is judged, not only the first moves the worlds' own solutions name.

Safe moves home are played at once. With unlimited passes the agent first draws through the
stock once (``scout``), as ``determinized`` does. With no hidden card left it solves the one
world there is under ``nodes * samples`` and follows the line found. It never plays a line back
to a tableau it has left; it resigns when every world it tried is lost, and plays the greedy
agent's choice among the candidates when none won a world but some were undecided. Everything
is seeded by the deal's seed and the budgets are node counts, so a run is reproducible.
"""

from __future__ import annotations

import math

import numpy as np

from agents.base import RESIGN, UNKNOWN, Agent, DealInfo, PlayerView
from agents.positions import reversible, scouting_draw
from agents.greedy import SKIP, is_safe_to_foundation, move_priority
from klondike_env import core
from klondike_env.game import Game
from klondike_env.solver import SolveStatus, solve


class HopAgent(Agent):
    name = "hop"
    OPTIONS = {
        "samples": (int, 30, "worlds the chosen candidate is tried in before it is played"),
        "nodes": (int, 1000, "solver classes of positions per world (a deterministic budget)"),
        "batch": (int, 5, "worlds handed to a candidate at a time"),
        "explore": (float, 1.0, "the UCB1 exploration constant"),
        "spread": (int, 3, "stop once samples times this many worlds are solved at a decision"),
        "positions": (int, 2000, "most positions explored by moves that can be taken back at a decision"),
        "scout": (bool, True, "with unlimited passes, first draw through the stock once to see every talon card"),
        "see_stock": (bool, False, "the stock-visible track: shown the stock's order from the start (face-down "
                                   "tableau cards stay hidden); not the benchmark's protocol"),
    }
    MINIMUM = {"samples": 1, "nodes": 1, "batch": 1, "spread": 1, "positions": 1}

    @property
    def sees_stock(self) -> bool:
        return self.see_stock

    def reset(self, deal: DealInfo) -> None:
        super().reset(deal)
        self._line: list[int] = []  # the rest of the line chosen at the last decision
        self._visited: set[tuple] = set()  # tableaus and foundations played through, as the player sees them
        self.solves = 0  # solver calls this game (for diagnostics)

    def act(self, view: PlayerView) -> int:
        self._visited.add((tuple((column.down, column.face_up) for column in view.tableau), view.foundations))
        if self._line and view.legal_mask[self._line[0]]:
            return self._line.pop(0)
        if self.scout and scouting_draw(view):
            return core.DRAW
        safe = _safe_home(view)
        if safe is not None:
            return safe
        if not view.hidden_cards:
            self._line = self._solved_line(view)
        else:
            self._line = self._best_candidate(view)
        return self._line.pop(0) if self._line else RESIGN

    def _solve(self, world: Game, nodes: int, actions: bool = True):
        """The solver on one world under ``nodes``; ``actions=False``: the status alone (no winning line)."""
        self.solves += 1
        return solve(world, node_limit=nodes, actions=actions)

    def _solved_line(self, view: PlayerView) -> list[int]:
        """Every card is known: the line that wins the one world there is, else the best candidate."""
        result = self._solve(view.sample_world(self.rng), self.nodes * self.samples)
        if result.status == SolveStatus.SOLVED and result.actions:
            return list(result.actions)
        return self._best_candidate(view)

    def _best_candidate(self, view: PlayerView) -> list[int]:
        """The line of the candidate winning the most of its worlds; ``[]`` to resign."""
        candidates = candidate_lines(view, self.positions, self._visited)
        if len(candidates) <= 1:
            return candidates[0] if candidates else []  # none: nothing but going round in circles is left
        worlds: list[Game] = []
        wins = np.zeros(len(candidates))
        undecided = np.zeros(len(candidates))
        tried = np.zeros(len(candidates), int)
        while tried.max() < self.samples and tried.sum() < self.samples * self.spread:
            pick = self._ucb_pick(wins, tried)
            start = int(tried[pick])
            while len(worlds) < start + self.batch:
                worlds.append(view.sample_world(self.rng))
            for world in worlds[start : start + self.batch]:
                child = world.copy()
                for action in candidates[pick]:
                    child.step(action)
                status = SolveStatus.SOLVED if child.is_won else self._solve(child, self.nodes, actions=False).status
                wins[pick] += status == SolveStatus.SOLVED
                undecided[pick] += status == SolveStatus.UNKNOWN
            tried[pick] += self.batch
        if wins.any():
            # the mean of a uniform prior updated by the worlds tried: a lucky few wins do not
            # outrank many; among equals, the greedy agent's choice, then the shorter line
            mean = (wins + 1) / (tried + 2)
            best = np.flatnonzero(mean == mean.max())
            if len(best) == 1:
                return candidates[int(best[0])]
            return max((candidates[index] for index in best),
                       key=lambda line: (_greedy_priority(view, line), -len(line)))
        if not undecided.any():
            return []  # every world tried is lost, whatever the move
        # no world won, some undecided within the budget: the greedy agent's choice, if any
        rank = {index: _greedy_priority(view, line) for index, line in enumerate(candidates)}
        best = max(rank, key=lambda index: (rank[index], -index))
        return candidates[best] if rank[best] != SKIP else []

    def _ucb_pick(self, wins: np.ndarray, tried: np.ndarray) -> int:
        untried = np.flatnonzero(tried == 0)
        if len(untried):
            return int(untried[0])
        bound = wins / tried + self.explore * np.sqrt(math.log(tried.sum()) / tried)
        return int(np.argmax(bound))


def _greedy_priority(view: PlayerView, line: list[int]) -> float:
    """The greedy agent's priority for the last move of ``line``, where it is played."""
    if len(line) > 1:
        world = view.sample_world(np.random.default_rng(0))
        for action in line[:-1]:
            world.step(action)
        view = PlayerView(world, view.stock_visible)
    return move_priority(view, view.effect(line[-1]), None)


def candidate_lines(view: PlayerView, positions: int, visited: set[tuple] = frozenset()) -> list[list[int]]:
    """The candidates at ``view``'s position: lines of free moves (:func:`_free`) ending in one
    that commits (:func:`_commits`), shortest first (a breadth-first walk over at most
    ``positions`` positions); when no line commits, lines ending in a move to or from a foundation.
    Free moves turn no card up, so the walk is the same in every world; it runs in one sampled
    world. Lines that end in the same position are one candidate; so are lines whose last move is
    not a waste card's and that end alike but for the talon, which free moves turn round again.
    Lines that end with a tableau and foundations in ``visited`` (as the player sees them) are left
    out, so a game never goes round in circles. A line that wins the game on the way is the only
    one returned."""
    start = view.sample_world(np.random.default_rng(0))
    seen = {_key(start)}
    frontier = [(start, [])]
    lines: dict[bytes, list[int]] = {}
    foundation_lines: dict[bytes, list[int]] = {}
    while frontier:
        game, path = frontier.pop(0)
        here = view if not path else PlayerView(game, view.stock_visible)
        for action in here.legal_actions:
            child = game.copy()
            child.step(action)
            if child.is_won:
                return [path + [action]]
            if _free(here, action):
                key = _key(child)
                if key not in seen and len(seen) < positions:
                    seen.add(key)
                    frontier.append((child, path + [action]))
            elif _layout(child) not in visited:
                waste_card = core.WASTE_TO_FOUNDATION <= action < core.COLUMN_TO_FOUNDATION
                found = lines if _commits(here, action) else foundation_lines
                found.setdefault(_key(child, talon=waste_card), path + [action])
    return list((lines or foundation_lines).values())


def _safe_home(view: PlayerView) -> int | None:
    """A legal move home of a card no other card could still want to sit on: it loses nothing."""
    for action in view.legal_actions:
        effect = view.effect(action)
        if effect.to_foundation and is_safe_to_foundation(effect.cards[0], view.foundations):
            return action
    return None


def _free(view: PlayerView, action: int) -> bool:
    """A move that decides nothing: a draw or recycle that turns up no unseen card (what it
    changes, which talon card is up, the lines after it reach again), or a move between columns
    that can be taken back."""
    if action in (core.DRAW, core.RECYCLE):
        return UNKNOWN not in view.stock
    return core.COLUMN_TO_COLUMN <= action < core.FOUNDATION_TO_COLUMN and reversible(view, action)


def _commits(view: PlayerView, action: int) -> bool:
    """A move that cannot be taken back (the draws and recycles that turn up unseen cards among
    them). Moves to and from the foundations that can be taken back are neither free nor
    committing: in hindsight they win wherever another move does (play it, take it back, play
    that one), so they are candidates only when nothing commits."""
    return not reversible(view, action) or (action in (core.DRAW, core.RECYCLE) and not _free(view, action))


def _layout(game: Game) -> tuple:
    """The tableau (face-down counts and face-up cards) and the foundations."""
    return (tuple((sum(not up for _, up in column), tuple(card for card, up in column if up))
                  for column in game.tableau), game.foundations)


def _key(game: Game, talon: bool = True) -> bytes:
    """The position, passes and move count aside (a recycle with unlimited passes comes back);
    without ``talon``, the talon's order and how much of it is drawn aside too."""
    if talon:
        return game._state[: core.RECYCLES].tobytes()
    return game._state[: core.TALON].tobytes() + game._state[core.FOUNDATION : core.RECYCLES].tobytes()
