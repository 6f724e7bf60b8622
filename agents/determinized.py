"""``determinized``: hindsight optimisation over sampled worlds, solved by the exact solver.

At a decision the agent samples ``samples`` worlds consistent with what it knows
(:meth:`~agents.base.PlayerView.sample_world`), solves each from the current position with
:func:`klondike_env.solver.solve` under ``nodes`` positions (and ``budget`` seconds when
given), and plays the first action that wins in the most worlds. Solutions begin with the
draws that bring a talon card up, so the vote is on the first action, draws included.
A solution names one winning first action per world, not all of them: when the worlds'
first actions disagree, every candidate is also solved in the worlds that chose another
(``check``), so an action is credited in every world where it still wins. Among actions
winning in as many worlds (exact ties are common: every world is solved with all its cards
known), ``tiebreak=greedy`` plays the greedy agent's choice -- a card home or turned up before
a draw -- instead of the move most solutions start with and then the lowest id, which favours
drawing (``tiebreak=solver``).

Plans are reused: after the chosen action the worlds where it wins are stepped along with
their winning lines; at the next decision those still consistent with the view (no newly
seen card contradicts them) vote again on their next action, without solving anything.
Fresh worlds are sampled when fewer than ``keep`` such plans remain. With no hidden cards
left there is one world, the true one, solved once with ``samples * nodes`` positions. When
no world is won within the budget, the undecided worlds are solved again with ``retry``
times the nodes; if still none is won the agent plays the greedy agent's move (fall-back).

With unlimited passes the agent first draws through the stock once (``scout``): looking
costs nothing, since one recycle restores the talon, and afterwards only the face-down
tableau cards are left to sample. Hindsight search would not do this by itself, because every
sampled world already shows the stock.

``see_stock=true`` puts the agent on the stock-visible track: it is shown the stock's order
from the start (face-down tableau cards stay hidden), as the published draw-3 players are; its
results are labelled as that track. With unlimited passes it then has nothing to scout.

Everything is seeded by the deal's seed and node budgets are deterministic, so a run is
reproducible; a ``budget`` in seconds trades that for a bound on time.
"""

from __future__ import annotations

from agents.base import UNKNOWN, Agent, AgentOptionError, DealInfo, PlayerView
from klondike_env import core
from agents.greedy import SKIP, GreedyAgent, move_priority
from klondike_env.game import Game
from klondike_env.solver import SolveStatus, solve

# The agent's own solver schedule (probes after 50,000 positions, the best-first search after
# 150,000: never within the default budgets), with which it was tuned and benchmarked. The
# solver's default (both after 2,000) decides more worlds in the same budget, but takes the agent
# 1.6x the time for no significant gain (docs/experiments/2026-11-29-benchmark-history.md).
SOLVER_PROBE_AFTER = 50_000
SOLVER_BEST_AFTER = 150_000


class DeterminizedAgent(Agent):
    name = "determinized"
    OPTIONS = {
        "samples": (int, 20, "worlds sampled per decision"),
        "nodes": (int, 30000, "solver positions per world (a deterministic budget)"),
        "budget": (float, 0.0, "solver seconds per world, 0 for none (timing-dependent when set)"),
        "keep": (int, 5, "re-sample when fewer winning plans than this survive (0: every decision)"),
        "check": (bool, True, "when worlds disagree, try every candidate first action in every world"),
        "retry": (int, 4, "when no world is won, solve the undecided ones again with this many times the nodes (0: off)"),
        "scout": (bool, True, "with unlimited passes, first draw through the stock once to see every talon card"),
        "reveal_margin": (int, 0, "prefer a move that turns a card up if it wins in at least (best - this) worlds (0: off)"),
        "tiebreak": (str, "greedy", "among moves winning in as many worlds: 'greedy' (the greedy agent's priority "
                                    "first) or 'solver' (the move most solutions start with, then the lowest id)"),
        "tie_margin": (int, 0, "with tiebreak=greedy, moves winning in at least (best - this) worlds count as tied"),
        "unit": (str, "action", "what the worlds vote on: 'action' (the next action) or 'reveal' (the whole stretch "
                                "of play up to and including the next move that shows a hidden card)"),
        "candidates": (int, 3, "with unit=reveal, how many of the stretches best on half the worlds are tried in all"),
        "widen": (int, 0, "with unit=reveal, worlds solved after each legal action that no solution starts with (0: off)"),
        "by_class": (bool, False, "solve worlds over classes of positions (the solver's default); "
                                  "off: over positions, as the agent was benchmarked"),
        "batch": (int, 0, "sample and solve worlds this many at a time, up to samples, stopping once at least "
                          "half this many are won and all their lines start alike (0: all samples at once)"),
        "see_stock": (bool, False, "the stock-visible track: shown the stock's order from the start (face-down "
                                   "tableau cards stay hidden); not the benchmark's protocol"),
    }
    MINIMUM = {"samples": 1}

    def __init__(self, **options):
        super().__init__(**options)
        for option, allowed in (("tiebreak", ("solver", "greedy")), ("unit", ("action", "reveal"))):
            if getattr(self, option) not in allowed:
                raise AgentOptionError(f"bad value {getattr(self, option)!r} for option {option!r} of agent "
                                       f"'determinized': allowed values are {', '.join(allowed)}")
        self._fallback = GreedyAgent()

    @property
    def sees_stock(self) -> bool:
        return self.see_stock

    def reset(self, deal: DealInfo) -> None:
        super().reset(deal)
        self._fallback.reset(deal)
        self._plans: list[tuple[Game, list[int]]] = []  # (world, remaining winning line)
        self._visited: set[int] = set()  # position hashes (as the player sees them) already played through
        self.solves = 0  # solver calls this game (for diagnostics)
        self._stretch: list[int] = []  # unit=reveal: the chosen stretch's actions still to play
        self._stretch_world: Game | None = None  # a world stepped along the stretch, to check it still applies
        self._hopeless: tuple[int, int] | None = None  # (hidden cards, passes) when no sampled world was won

    def act(self, view: PlayerView) -> int:
        if self.scout and scouting_draw(view):
            return core.DRAW
        if self.unit == "reveal" and view.hidden_cards:
            action = self._act_by_stretch(view)
            self._fallback.note(view, action)
            return action
        self._plans = [(world, line) for world, line in self._plans if line and view.matches(world)]
        self._visited.add(view.position_hash())
        if len(self._plans) < max(self.keep, 1) or self.keep == 0:
            self._plans = self._solve_worlds(view)
        if self._plans:
            action = self._vote(view)
        else:
            action = self._fallback.choose(view)
        self._fallback.note(view, action)
        return action

    # --- unit=reveal ---------------------------------------------------------------
    def _act_by_stretch(self, view: PlayerView) -> int:
        """Vote on stretches of play that end with the next move showing a hidden card.

        Until a hidden card is shown the player learns nothing, so every move before it can
        be planned now; the choice that matters is which card to show next, and from which
        position. Voting on single actions instead credits a move with every world won by
        *some* continuation, though different worlds may need different reveals that the
        player cannot tell apart when it must choose between them (strategy fusion).

        Candidates: the stretches that begin the sampled worlds' solutions, and, since the
        solver's move order makes most worlds propose the same one, for every legal action
        no solution starts with, the stretch that a world solved after that action proposes.
        Each candidate is replayed in the worlds and solved there; all are scored on the first
        half of the worlds, the ``candidates`` best on all of them (successive halving).
        """
        if self._stretch and self._stretch_world is not None and view.matches(self._stretch_world):
            action = self._stretch.pop(0)
            self._stretch_world.step(action)
            return action
        self._stretch, self._stretch_world = [], None
        hidden = len(view.hidden_cards)
        if self._hopeless == (hidden, view.passes):
            return self._fallback.choose(view)  # nothing learned since no world could be won
        worlds = [view.sample_world(self.rng) for _ in range(self.samples)]
        proposals: dict[tuple[int, int], tuple[list[int], set[int]]] = {}

        def propose(index: int, world: Game, line: list[int], prefix: list[int]) -> None:
            if prefix and unseen(world, self.see_stock) < hidden:  # the prefix's move showed a card
                stretch, key = prefix, (view.position_hash(), prefix[0])
            else:
                stretch, key = first_stretch(world, line, hidden, self.see_stock)
                stretch = prefix + stretch
            proposals.setdefault(key, (stretch, set()))[1].add(index)

        won, lost = self._solve_with_retry(worlds, self.nodes)
        for index, line in won:
            propose(index, worlds[index], line, [])
        if not proposals:
            self._hopeless = (hidden, view.passes)
            return self._fallback.choose(view)
        live = [index for index in range(len(worlds)) if index not in lost]
        firsts = {stretch[0] for stretch, _ in proposals.values()}
        for action in view.legal_actions:
            if action in firsts:
                continue
            for index in live[: self.widen]:
                child = worlds[index].copy()
                child.step(action)
                result = self._solve(child, self.nodes)
                if result.status == SolveStatus.SOLVED:
                    propose(index, child, list(result.actions), [action])
                    break
        wins = {key: set(proposers) for key, (_, proposers) in proposals.items()}

        def score(keys, indices):
            for key in keys:
                stretch = proposals[key][0]
                for index in indices:
                    if index in wins[key]:
                        continue
                    child = worlds[index].copy()
                    for action in stretch:
                        child.step(action)
                    if child.is_won or self._solve(child, self.nodes).status == SolveStatus.SOLVED:
                        wins[key].add(index)

        previous = self._fallback._previous

        def rank(key) -> tuple:
            first = proposals[key][0][0]
            priority = move_priority(view, view.effect(first), previous) if view.legal_mask[first] else SKIP
            return (-len(wins[key]), -len(proposals[key][1]), -priority, len(proposals[key][0]))

        keys = list(proposals)
        if self.check and len(keys) > 1:
            half = live[: (len(live) + 1) // 2]
            score(keys, half)
            keys = sorted(keys, key=rank)[: max(self.candidates, 1)]
            if len(keys) > 1:
                score(keys, live)
        best = min(keys, key=rank)
        stretch = list(proposals[best][0])
        world = view.sample_world(self.rng)  # any world: the stretch's moves are legal in all of them
        action = stretch.pop(0)
        world.step(action)
        self._stretch, self._stretch_world = stretch, world
        return int(action)

    def _solve(self, world: Game, nodes: int):
        """The solver on one world under ``nodes`` (and ``budget`` seconds); counts the call."""
        self.solves += 1
        return solve(world, node_limit=nodes, time_limit=self.budget or None,
                     probe_after=SOLVER_PROBE_AFTER, best_after=SOLVER_BEST_AFTER, by_class=self.by_class)

    # --- helpers ------------------------------------------------------------------
    def _solve_worlds(self, view: PlayerView) -> list[tuple[Game, list[int]]]:
        """Winning lines of freshly sampled worlds (one exact world when nothing is hidden)."""
        if not view.hidden_cards:
            worlds = [view.sample_world(self.rng)]
            won, _ = self._solve_with_retry(worlds, self.nodes * self.samples)
            return [(worlds[index], line) for index, line in won]
        # batch: a decision where half a batch's worth of worlds is won and every win starts
        # alike is settled (the vote is unanimous, nothing to check), so more worlds are spent
        # only on close or hard ones
        step = self.batch if 0 < self.batch < self.samples else self.samples
        worlds: list[Game] = []
        won: list[tuple[int, list[int]]] = []
        undecided: list[int] = []
        while len(worlds) < self.samples:
            fresh = [view.sample_world(self.rng) for _ in range(min(step, self.samples - len(worlds)))]
            batch_won, batch_undecided, _ = self._solve_each(fresh, self.nodes, first=len(worlds))
            worlds += fresh
            won += batch_won
            undecided += batch_undecided
            if 2 * len(won) >= step and len({line[0] for _, line in won}) == 1 and len(worlds) < self.samples:
                break
        if not won:
            won = self._retry(worlds, undecided, self.nodes)
        return [(worlds[index], line) for index, line in won]

    def _vote(self, view: PlayerView) -> int:
        """Play the action that wins in the most worlds, and keep those worlds' lines.

        A world's solution names one winning first action, not all of them. When the
        worlds disagree, each candidate is also tried in the worlds whose line starts
        otherwise (``check``), so an action is credited wherever it wins.
        """
        lines: dict[int, list[tuple[Game, list[int]]]] = {}
        for world, line in self._plans:
            lines.setdefault(line[0], []).append((world, line))
        if self.check and len(lines) > 1:
            found = {action: list(entries) for action, entries in lines.items()}
            for action in lines:
                for world, line in self._plans:
                    if line[0] != action:
                        child = world.copy()
                        child.step(action)
                        result = self._solve(child, self.nodes)
                        if result.status == SolveStatus.SOLVED:
                            found[action].append((world, [action] + list(result.actions)))
        else:
            found = lines
        legal = set(view.legal_actions)
        ranked = self._ranked(view, found, lines)
        # never walk back into a position already played through: different samples can
        # favour opposite moves, and alternating between them would loop forever
        playable = [a for a in ranked if a in legal and not self._repeats(a)]
        if not playable:
            return self._fallback.choose(view)
        action = self._prefer_reveal(view, playable, found) if self.reveal_margin > 0 else playable[0]
        self._plans = []
        for world, line in found[action]:
            world.step(action)
            self._plans.append((world, line[1:]))
        return int(action)

    def _ranked(self, view: PlayerView, found: dict, lines: dict) -> list[int]:
        """Candidate first actions, best first: most worlds won, then the ``tiebreak``."""
        if self.tiebreak == "solver":
            return sorted(found, key=lambda a: (-len(found[a]), -len(lines.get(a, ())), a))
        best = max(len(entries) for entries in found.values())
        previous = self._fallback._previous

        def rank(action: int) -> tuple:
            wins = len(found[action])
            near_best = wins >= best - self.tie_margin  # a tie: greedy's priority decides
            priority = move_priority(view, view.effect(action), previous) if view.legal_mask[action] else SKIP
            return (not near_best, 0 if near_best else -wins, -priority, -wins, -len(lines.get(action, ())), action)

        return sorted(found, key=rank)

    def _prefer_reveal(self, view: PlayerView, playable: list[int], found: dict) -> int:
        """Among moves winning in nearly as many worlds as the best, one that turns a card up.

        Hindsight search sees every world fully, so it puts no value on learning a hidden
        card; when the vote is this close, a move that shows one (from the column hiding
        the most) keeps later decisions better informed.
        """
        best = len(found[playable[0]])
        close = [a for a in playable if len(found[a]) >= best - self.reveal_margin]
        revealing = [a for a in close if a > core.RECYCLE and view.effect(a).flips]
        if not revealing:
            return playable[0]
        return max(revealing, key=lambda a: (len(found[a]), view.tableau[view.effect(a).source_column].down))

    def _repeats(self, action: int) -> bool:
        """``action`` leads to a position already visited (it turns no card up, so this is exact)."""
        child = self._plans[0][0].copy()
        child.step(action)
        return child.position_hash() in self._visited

    def _solve_with_retry(self, worlds: list[Game], nodes: int) -> tuple[list[tuple[int, list[int]]], set[int]]:
        """``(won, lost)``: ``(index, winning line)`` of the worlds won and the indices of the
        worlds proven lost, each solved under ``nodes``. When none is won, the undecided ones
        are solved again with ``retry`` times the nodes: the position may be hard rather than
        lost, so look deeper (``lost`` stays the first pass's)."""
        won, undecided, lost = self._solve_each(worlds, nodes)
        return (won or self._retry(worlds, undecided, nodes)), lost

    def _solve_each(self, worlds: list[Game], nodes: int, first: int = 0):
        """``(won, undecided, lost)`` of ``worlds`` solved under ``nodes``, indexed from ``first``."""
        won, undecided, lost = [], [], set()
        for index, world in enumerate(worlds, start=first):
            result = self._solve(world, nodes)
            if result.status == SolveStatus.SOLVED and result.actions:
                won.append((index, list(result.actions)))
            elif result.status == SolveStatus.UNKNOWN:
                undecided.append(index)
            else:
                lost.add(index)
        return won, undecided, lost

    def _retry(self, worlds: list[Game], undecided: list[int], nodes: int) -> list[tuple[int, list[int]]]:
        """The undecided worlds solved again with ``retry`` times the nodes (none: off)."""
        won = []
        if self.retry > 1:
            for index in undecided:
                result = self._solve(worlds[index], nodes * self.retry)
                if result.status == SolveStatus.SOLVED and result.actions:
                    won.append((index, list(result.actions)))
        return won


def unseen(game: Game, see_stock: bool = False) -> int:
    """How many of ``game``'s cards the player has not been shown: the hidden cards, or with
    the stock shown (``see_stock``) the face-down tableau cards."""
    if see_stock:
        return sum(not up for column in game.tableau for _, up in column)
    return len(game.hidden_cards())


def first_stretch(world: Game, line: list[int], hidden: int,
                  see_stock: bool = False) -> tuple[list[int], tuple[int, int]]:
    """The start of a winning ``line`` up to and including its first move that shows a hidden
    card (of ``hidden`` hidden now, counted by :func:`unseen`), and the stretch's key: the
    public position before that move and the move. Every move before it is legal in every
    world the player cannot tell from ``world`` (legality never depends on a hidden card), so
    the stretch can be replayed in any of them; the key names it whatever the route to that
    position.
    """
    game = world.copy()
    for length, action in enumerate(line, start=1):
        before = game.position_hash()
        game.step(action)
        if unseen(game, see_stock) < hidden:
            return list(line[:length]), (before, int(action))
    return list(line), (game.position_hash(), -1)


def scouting_draw(view: PlayerView) -> bool:
    """Whether to draw just to see the stock: passes are unlimited and a stock card is unseen.

    Hindsight search never values information (each sampled world already shows every
    card), so it would not look at the stock on its own. With unlimited passes looking is
    free: drawing the stock out leaves every position reachable before still reachable
    (one recycle restores the talon, in the same order), and afterwards the whole talon is
    known, which leaves only the face-down tableau cards to sample.
    """
    return view.rules.max_passes is None and core.DRAW in view.legal_actions and UNKNOWN in view.stock

