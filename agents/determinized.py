"""``determinized``: hindsight optimisation over sampled worlds, solved by the exact solver.

At a decision the agent samples ``samples`` worlds consistent with what it knows
(:meth:`~agents.base.PlayerView.sample_world`), solves each from the current position with
:func:`klondike_env.solver.solve` under ``nodes`` classes of positions (positions with
``by_class=false``; and ``budget`` seconds when given), and plays the first action that wins in
the most worlds. Solutions begin with the draws that bring a talon card up, so the vote is on the
first action, draws included.
A solution names one winning first action per world, not all of them: when the worlds'
first actions disagree, every candidate is also solved in the worlds that chose another
(``check``), so an action is credited in every world where it still wins. Among actions
winning in as many worlds (exact ties are common: every world is solved with all its cards
known), it plays the greedy agent's choice -- a card home or turned up before a draw -- rather
than the move most solutions start with, which favours drawing.

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

``second=K`` is a remedy for strategy fusion: a vote credits a first action with every world
it wins in, each by its own continuation, though the player, who cannot tell those worlds
apart until a card is turned up, must follow it the same way in all of them. When the worlds
disagree, the K best first actions are ranked again by the worlds each wins with a second
action shared by the worlds it leaves looking alike. ``second_depth=D`` asks the same of D
actions: after each shared action the worlds kept are grouped again by what the player sees
(a card turned up parts them), and each group must share its next action.
``lookahead=K`` ranks ``second``'s candidates by the player's own next commitment instead:
after a candidate, for each card it may turn up, K fresh worlds sampled from what the player then
sees vote on the moves up to the next one that cannot be taken back, and the candidate is credited
only in the worlds where that line still wins.
``contest=true`` gives ``second`` something to weigh on a unanimous vote for a move that cannot
be taken back: every other legal move that cannot either is tried in the kept worlds too.

``commit=true`` is another: the vote is on commitments, not first actions. A commitment is a
winning line up to and including its first action that turns up a hidden card; before that
card is seen the player can follow the line in every world alike, so a commitment is a plan the
player can carry out, and each is credited (with ``check``) in every world where it still wins.

``wide=N`` widens the vote before a move that cannot be taken back: every legal move that
cannot be taken back is tried in N fresh worlds, and the one winning in the most is played.

``refresh=true`` follows kept plans only through moves that can be taken back: when a kept plan
goes on with one that cannot, the worlds are sampled and solved afresh before the vote, since
the kept worlds are those where the moves played so far win, not a fresh sample of the view.

``prior=MODEL.zip`` brings a trained policy (agent ``policy``'s model) into the vote: its likeliest
move that does not walk back into a position is a candidate at every decision, solved in every
world whose line starts otherwise, and among candidates winning in as many worlds the policy's
likelier move is played (before the greedy agent's choice). Hindsight then vets the policy's
moves instead of the solver's move order, which names most votes' single candidate.

``free_own=true`` stops crediting a move that can be taken back in every world any move wins:
hindsight credits it there by coming back, so a draw outvotes the waste card most worlds' own
lines play now, and following draws round the talon leads back to a position already played
through, where the agent would give up. Such a move is credited only in the worlds whose own
line starts with it; and when every candidate walks back into a position played through, the
legal move that does not and wins in the most kept worlds is played.

``followable=true`` credits a candidate only with the lines the agent would follow, those never
walking back into a position it has played through; when that takes credit away, every other
legal move is tried in the kept worlds too. Hindsight credits a draw in nearly every world by
going round the talon and back, which the agent, never walking back into a position, will not do.

``retry_all=true`` solves the undecided worlds again with ``retry`` times the nodes even when
others are won, and tries candidates in the worlds so won with as many: early in a game a
third or more of the worlds can be left undecided, and without it the vote is among the easy
ones alone.

``reveal=true`` looks before it commits: when the vote's move turns up no card, a legal move
that turns one up and wins in as many of the kept worlds is played first (``reveal_margin``:
or in at most that share fewer). Hindsight is
indifferent to when a card is seen; the player, who chooses later moves knowing it, is not.
``reveal_free=true`` also looks one move further: when no move turns up a card and wins as
often, a move that can be taken back, after which one does, is played first.

``shallow=N`` breaks hindsight's ties before a move that cannot be taken back: among such moves
winning in as many of the kept worlds as the vote's choice, it plays the one that wins in the
most of them within N classes, a win by plainer play.

``robust=true`` is another remedy for strategy fusion, where the worlds disagree: a candidate is
credited in a world only if the position its line there reaches on turning up its first card
is still won when the cards left hidden are dealt afresh. A line that plays towards cards
hindsight knows but the player will not see fails that test in the fresh deal.

``see_stock=true`` puts the agent on the stock-visible track: it is shown the stock's order
from the start (face-down tableau cards stay hidden), as the published draw-3 players are; its
results are labelled as that track. With unlimited passes it then has nothing to scout.

The defaults (``nodes=100000``, ``second=3``, ``followable=true``, ``reveal=true``) are the
options that won a pre-registered selection over ``val`` and ``test`` against the earlier defaults
(50 worlds of 10,000 classes, the rest off): docs/experiments/2026-12-06-deeper-solves-on-the-best.md.

Everything is seeded by the deal's seed and node budgets are deterministic, so a run is
reproducible; a ``budget`` in seconds trades that for a bound on time.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from agents.base import Agent, AgentOptionError, DealInfo, PlayerView, public_state
from klondike_env import core, move_memory
from agents.greedy import SKIP, GreedyAgent, move_priority
from klondike_env.game import Game
from klondike_env.solver import SolveResult, SolveStatus, solve
from klondike_env.solver.repair import repair
from agents.lookahead import majority, player_line
from agents.positions import alike, free_reveals, hidden_count, reversible, scouting_draw

# The agent's own solver schedule (probes after 50,000 nodes, the best-first search after
# 150,000: never within the default budgets), with which it was tuned and benchmarked. The
# solver's default (both after 2,000) decided more worlds in the same budget, but took the agent
# 1.6x the time for no significant gain (docs/experiments/2026-11-29-benchmark-history.md).
SOLVER_PROBE_AFTER = 50_000
SOLVER_BEST_AFTER = 150_000


class DeterminizedAgent(Agent):
    name = "determinized"
    OPTIONS = {
        "samples": (int, 50, "worlds sampled per decision"),
        "nodes": (int, 100000, "solver nodes per world: classes of positions, or positions with by_class=false "
                              "(a deterministic budget)"),
        "budget": (float, 0.0, "solver seconds per world, 0 for none (timing-dependent when set)"),
        "keep": (int, 5, "re-sample when fewer winning plans than this survive (0: every decision)"),
        "check": (bool, True, "when worlds disagree, try every candidate first action in every world"),
        "retry": (int, 4, "when no world is won, solve the undecided ones again with this many times the nodes (0: off)"),
        "retry_all": (bool, False, "retry the undecided worlds even when others are won, and try candidates in the "
                                   "worlds so won with as many nodes"),
        "scout": (bool, True, "with unlimited passes, first draw through the stock once to see every talon card"),
        "by_class": (bool, True, "solve worlds over classes of positions (the solver's default); "
                                 "off: over positions, as the agent's earlier defaults did"),
        "batch": (int, 0, "sample and solve worlds this many at a time, up to samples, stopping once at least "
                          "half this many are won and all their lines start alike (0: all samples at once)"),
        "batch_free": (bool, False, "with batch, stop early only when the move all the won worlds start with can be "
                                    "taken back (before any other move every sample votes)"),
        "second": (int, 3, "when worlds disagree, rank this many of the best first actions again by the worlds each "
                           "wins with one second action shared by the worlds it leaves alike (0: off)"),
        "contest": (bool, False, "on a unanimous vote for a move that cannot be taken back, try every other such legal "
                                 "move in the kept worlds, so that second ranks them too"),
        "lookahead": (int, 0, "with second, rank its candidates instead by the worlds where the player's own next "
                              "commitment wins: for each card a candidate may turn up, this many fresh worlds vote on "
                              "the moves up to the next one that cannot be taken back (0: off)"),
        "lookahead_nodes": (int, 10000, "with lookahead, solver classes per fresh world"),
        "second_depth": (int, 1, "with second, how many actions past the first the worlds left alike must share, "
                                 "regrouped by what the player sees after each"),
        "commit": (bool, False, "vote on commitments, not first actions: each winning line up to the first card "
                                "it turns up, credited in every world where it still wins"),
        "wide": (int, 0, "when the best action cannot be taken back, sample this many fresh worlds and play the "
                         "move that cannot be taken back and wins in the most of them (0: off)"),
        "refresh": (bool, False, "before a move that cannot be taken back, vote on freshly sampled worlds rather than "
                                 "on the plans kept from earlier decisions"),
        "refresh_below": (int, 0, "before a move that cannot be taken back, vote on freshly sampled worlds when fewer "
                                  "than this many plans are kept (0: off; refresh: always)"),
        "prior": (str, "", "a trained policy (.zip): its likeliest move is a candidate at every decision and its "
                           "probabilities break ties (empty: off)"),
        "free_own": (bool, False, "credit a move that can be taken back only in the worlds whose own line starts with "
                                  "it, and when every candidate walks back into a position played through, play the "
                                  "legal move that does not and wins in the most kept worlds"),
        "followable": (bool, True, "credit a candidate only with the lines the agent would follow: those never "
                                    "walking back into a position already played through"),
        "reveal": (bool, True, "when the vote's move turns up no card, play instead a move that turns one up and "
                                "wins in as many of the worlds (look before committing)"),
        "reveal_free": (bool, False, "with reveal, when no move turns up a card and wins as often, play a move that can "
                                     "be taken back and after which one does"),
        "reveal_margin": (float, 0.0, "with reveal, the share of the vote's worlds a move turning up a card may win "
                                      "in fewer and still be played first (0: none)"),
        "shallow": (int, 0, "before a move that cannot be taken back, play among such moves winning in as many kept "
                            "worlds the one won in the most within this many classes (0: off)"),
        "robust": (bool, False, "when worlds disagree, credit a candidate only in the worlds whose line still wins "
                                "after its first card turned up, the other hidden cards dealt afresh"),
        "repair": (bool, False, "check a candidate in a world by carrying the world's own winning line over first "
                                "(the solver only when that line, card by card, does not win)"),
        "see_stock": (bool, False, "the stock-visible track: shown the stock's order from the start (face-down "
                                   "tableau cards stay hidden); not the benchmark's protocol"),
    }
    MINIMUM = {"samples": 1, "second_depth": 1}

    def __init__(self, **options):
        super().__init__(**options)
        if self.reveal_margin > 1:
            raise AgentOptionError(f"bad value {self.reveal_margin!r} for option 'reveal_margin' of agent "
                                   f"'determinized': must be between 0 and 1")
        self._fallback = GreedyAgent()
        self._prior = None
        if self.prior:
            from agents.policy import PolicyAgent  # torch and sb3 only when asked for

            self._prior = PolicyAgent(path=self.prior, deterministic=True)

    @property
    def sees_stock(self) -> bool:
        return self.see_stock

    def reset(self, deal: DealInfo) -> None:
        super().reset(deal)
        self._fallback.reset(deal)
        self._plans: list[tuple[Game, list[int]]] = []  # (world, remaining winning line)
        self._visited: set[int] = set()  # position hashes (as the player sees them) already played through
        self._deep: set[int] = set()  # ids of the kept worlds won only by a retry (retry_all)
        self.solves = 0  # solver calls this game (for diagnostics)
        self.repaired = 0  # checks answered by a repaired line (repair)
        # lookahead's fresh worlds draw on a stream of their own, so the vote's worlds are those
        # the agent without it samples, and games part only where the option changes a move
        self._lookahead_rng = np.random.default_rng((deal.seed, 1))

    def act(self, view: PlayerView) -> int:
        if self.scout and scouting_draw(view):
            return core.DRAW
        self._plans = [(world, line) for world, line in self._plans if line and view.matches(world)]
        self._visited.add(view.position_hash())
        if (len(self._plans) < max(self.keep, 1) or self.keep == 0
                or ((self.refresh or len(self._plans) < self.refresh_below) and self._commits(view))):
            self._plans = self._solve_worlds(view)
        if self._plans:
            action = self._vote(view)
        else:
            action = self._fallback.choose(view)
        self._fallback.note(view, action)
        return action

    def _solve(self, world: Game, nodes: int, actions: bool = True):
        """The solver on one world under ``nodes`` (and ``budget`` seconds); counts the call.
        ``actions=False``: the status alone (no winning line)."""
        self.solves += 1
        return solve(world, node_limit=nodes, time_limit=self.budget or None,
                     probe_after=SOLVER_PROBE_AFTER, best_after=SOLVER_BEST_AFTER, by_class=self.by_class,
                     actions=actions)

    def _solve_after(self, world: Game, prefix: list[int], actions: bool = True, nodes: int = 0,
                     line: list[int] | None = None):
        """The solver, under ``nodes`` (the option's when 0), on ``world`` after the actions
        ``prefix`` (``world`` is left as it is). With ``repair``, ``line`` (winning from ``world``)
        is first carried over card by card (:func:`klondike_env.solver.repair.repair`)."""
        child = world.copy()
        for action in prefix:
            child.step(action)
        if self.repair and line:
            repaired = repair(world._state, line, child._state, world._rules_array)
            # a carried-over line the agent would not follow (one that goes round the talon
            # and back, say) is left to the solver, which may find one it would
            if repaired is not None and (not self.followable or self._followable(world, prefix + repaired)):
                self.repaired += 1
                return SolveResult(SolveStatus.SOLVED, actions=repaired)
        deep = self.nodes * self.retry if id(world) in self._deep else self.nodes
        return self._solve(child, nodes or deep, actions)

    # --- helpers ------------------------------------------------------------------
    def _solve_worlds(self, view: PlayerView) -> list[tuple[Game, list[int]]]:
        """Winning lines of freshly sampled worlds (one exact world when nothing is hidden)."""
        self._deep = set()
        if not view.hidden_cards:
            worlds = [view.sample_world(self.rng)]
            won, undecided = self._solve_each(worlds, self.nodes * self.samples)
            won = won or self._retry(worlds, undecided, self.nodes * self.samples)
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
            batch_won, batch_undecided = self._solve_each(fresh, self.nodes, first=len(worlds))
            worlds += fresh
            won += batch_won
            undecided += batch_undecided
            firsts = {line[0] for _, line in won}
            if 2 * len(won) >= step and len(firsts) == 1 and len(worlds) < self.samples and (
                    not self.batch_free or reversible(view, next(iter(firsts)))):
                break
        if not won or self.retry_all:
            won += self._retry(worlds, undecided, self.nodes)
        return [(worlds[index], line) for index, line in won]

    def _vote(self, view: PlayerView) -> int:
        """Play the first action of the candidate that wins in the most worlds, and keep those worlds' lines.

        A candidate is the start of a winning line: its first action, or with ``commit`` its
        commitment (:meth:`_candidate`). A world's solution names one winning candidate, not all
        of them: when the worlds disagree, each candidate is also tried in the worlds whose line
        starts otherwise (``check``), so it is credited wherever it wins.
        """
        prefixes: dict = {}  # candidate key -> its actions
        own: dict = {}  # candidate key -> (world, the rest of its own line) for the lines starting with it
        keys = []
        for world, line in self._plans:
            key, length = self._candidate(world, line)
            keys.append(key)
            prefixes.setdefault(key, line[:length])
            own.setdefault(key, []).append((world, line[length:]))
        prior = self._prior_probabilities(view) if self._prior is not None else None
        if prior is not None and not self.commit:
            choice = next((int(a) for a in np.argsort(-prior, kind="stable")
                           if view.legal_mask[a] and not self._repeats(int(a))), None)
            if choice is not None and choice not in prefixes:
                prefixes[choice] = [choice]
                own[choice] = []
        found = {key: list(entries) for key, entries in own.items()}
        if self.check and len(own) > 1:
            for key, prefix in prefixes.items():
                if self.free_own and self._free(view, prefix):
                    continue  # credited only where its own line starts with it
                for (world, line), world_key in zip(self._plans, keys):
                    if world_key != key:
                        result = self._solve_after(world, prefix, line=line)
                        if result.status == SolveStatus.SOLVED:
                            found[key].append((world, list(result.actions)))
        if self.followable and not self.commit:
            self._keep_followable(view, found, prefixes)
        if self.contest and len(found) == 1 and not self.commit:
            self._contest(view, found, prefixes)
        legal = set(view.legal_actions)
        robust = None
        if self.robust and len(found) > 1:
            robust = {key: sum(self._holds_up(world, prefixes[key] + rest) for world, rest in entries)
                      for key, entries in found.items()}
        ranked = self._ranked(view, found, own, prefixes, prior, robust)
        if self.second > 1 and len(found) > 1:
            ranked = self._ranked_by_second_action(ranked, found, prefixes)
        # never walk back into a position already played through: different samples can
        # favour opposite moves, and alternating between them would loop forever
        playable = [key for key in ranked if prefixes[key][0] in legal and not self._repeats(prefixes[key][0])]
        if not playable and self.free_own:
            playable = self._unvisited(view, found, prefixes)
        if not playable:
            return self._fallback.choose(view)
        if self.reveal and not self.commit:
            playable = self._revealing_first(view, playable, found, prefixes)
        if self.shallow and not self.commit:
            playable = self._easiest_first(view, playable, found, prefixes)
        if self.wide and not reversible(view, prefixes[playable[0]][0]):
            order = [prefixes[key][0] for key in playable]
            widened = self._wide_vote(view, order)
            if widened is not None:
                return widened
        prefix = prefixes[playable[0]]
        action = prefix[0]
        self._plans = []
        for world, rest in found[playable[0]]:
            world.step(action)
            self._plans.append((world, prefix[1:] + rest))
        return int(action)

    def _keep_followable(self, view: PlayerView, found: dict, prefixes: dict) -> None:
        """Drop from ``found`` the lines the agent would not follow: those walking back into a
        position already played through (``followable``); when that takes a candidate's credit,
        every other legal move is tried in the kept worlds too.

        Hindsight credits a draw in nearly every world, the solver winning after it by going
        round the talon and back; but the agent never walks back into a position it has played
        through, so it draws on, round to where it began, and gives up there. Credited only with
        the lines it can follow, a draw no longer outvotes the waste card the lines play now.
        """
        cut = False
        for key, entries in found.items():
            kept = [(world, rest) for world, rest in entries if self._followable(world, prefixes[key] + rest)]
            cut = cut or len(kept) < len(entries)
            found[key] = kept
        if not cut:
            return
        for action in view.legal_actions:
            if action not in found and not self._repeats(action):
                self._credit_move(action, 1, found, prefixes)

    def _contest(self, view: PlayerView, found: dict, prefixes: dict) -> None:
        """On a unanimous vote for a move that cannot be taken back, credit in the kept worlds every
        other legal move that cannot either (``contest``), so that ``second`` ranks them too.

        Most votes are unanimous: every world's line starts with the solver's first choice, and
        no other move is tried, so the shared continuation never weighs it against another
        commitment. An alternative is dropped once it cannot win in half the worlds the vote's
        move wins in (its hindsight count bounds its shared one).
        """
        (key,) = found
        if not view.hidden_cards or reversible(view, prefixes[key][0]):
            return
        target = (len(found[key]) + 1) // 2
        for action in view.legal_actions:
            if action in found or reversible(view, action) or self._repeats(action):
                continue
            self._credit_move(action, target, found, prefixes)

    def _credit_move(self, action: int, target: int, found: dict, prefixes: dict) -> None:
        """:meth:`_credit` for the move ``action``, keeping (with ``followable``) only the lines the
        agent would follow."""
        self._credit(action, target, found, prefixes)
        if self.followable:
            found[action] = [(world, rest) for world, rest in found[action]
                             if self._followable(world, [action] + rest)]

    def _followable(self, world: Game, line: list[int]) -> bool:
        """``line`` never walks back into a position already played through, up to its first move
        that plays a talon card or turns one up (after which none can come back)."""
        # on a bare copy of the state, not a Game: this runs for every credited line, and
        # solver lines are legal, so the Game's checks and undo history would only cost time
        state, rules = world._state.copy(), world._rules_array
        hidden = core.hidden_count(state, self.see_stock)
        for action in line:
            core.apply_action(state, rules, action)
            if int(move_memory.position_hash(state, rules)) in self._visited:
                return False
            if core.hidden_count(state, self.see_stock) < hidden or core.WASTE_TO_FOUNDATION <= action < core.COLUMN_TO_FOUNDATION:
                return True
        return True

    def _free(self, view: PlayerView, prefix: list[int]) -> bool:
        """The candidate ``prefix`` is one move that puts nothing off for good: a draw, a recycle,
        or a move that can be taken back (``free_own``)."""
        if len(prefix) != 1 or not view.legal_mask[prefix[0]]:
            return False
        return prefix[0] in (core.DRAW, core.RECYCLE) or reversible(view, prefix[0])

    def _unvisited(self, view: PlayerView, found: dict, prefixes: dict) -> list:
        """When every candidate walks back into a position already played through: the legal moves
        that do not, winning in at least one kept world, the most first (ties: the greedy agent's
        priority).

        The vote favours moves that can be taken back (hindsight credits them with every world
        any move wins, by coming back), so it can follow draws round the talon to where it
        began; handing that position to the greedy agent, which resigns when a trip through the
        stock would repeat the last, would give up a game the kept worlds still win.
        """
        options = [action for action in view.legal_actions if not self._repeats(action)]
        wins = {action: self._credit(action, 1, found, prefixes) for action in options}
        return sorted((action for action in options if wins[action]),
                      key=lambda action: (-wins[action], -self._priority(view, action), action))

    def _revealing_first(self, view: PlayerView, playable: list, found: dict, prefixes: dict) -> list:
        """``playable`` with a move that turns up a card put first, when one wins in as many of the
        kept worlds as the vote's choice (less ``reveal_margin`` of them) and that choice turns up
        none (``reveal``).

        Hindsight knows every card, so it is indifferent to when a card is seen: a world's line
        may commit a waste card or pick one of two cards for a column first and turn the card
        up later. The player is not indifferent: a commitment made after the card is seen is
        made knowing more. Each legal move that turns up a card is tried in every kept world
        (stopping once it cannot match the choice), and the best of those that match is played;
        ties go to the greedy agent's priority.
        """
        best = playable[0]
        if not view.hidden_cards or view.effect(prefixes[best][0]).flips:
            return playable
        target = len(found[best]) - int(self.reveal_margin * len(found[best]))
        matched = []
        for action in view.legal_actions:
            if view.effect(action).flips and self._credit(action, target, found, prefixes) >= target:
                matched.append((-len(found[action]), -self._priority(view, action), action))
        if not matched and self.reveal_free:
            matched = self._free_reveals(view, prefixes[best][0], target, found, prefixes)
        if not matched:
            return playable
        choice = min(matched)[2]
        return [choice] + [key for key in playable if key != choice]

    def _free_reveals(self, view: PlayerView, vote: int, target: int, found: dict, prefixes: dict) -> list:
        """Ranked ``(-wins, -priority, key)`` of the two-move lines that turn up a card after a move
        that can be taken back, winning in at least ``target`` kept worlds (``reveal_free``).

        A card under a column's run often comes up only once another move has made room for the
        run (a card moved off the one it needs, a card sent home); that move puts nothing off, so
        hindsight is as indifferent to it as to a move turning the card up directly. The key is
        the line's two actions; the vote's own move (played anyway) and draws (which turn up
        nothing after the scouting pass and make no room) are left out.
        """
        matched = []
        for first, second in free_reveals(view, self._plans[0][0]):
            if first == vote or self._repeats(first):
                continue
            key = (first, second)
            if self._credit(key, target, found, prefixes, [first, second]) >= target:
                matched.append((-len(found[key]), -self._priority(view, first), key))
        return matched

    def _easiest_first(self, view: PlayerView, playable: list, found: dict, prefixes: dict) -> list:
        """``playable`` with the move that cannot be taken back and wins most easily put first,
        among those winning in as many kept worlds as the vote's choice (``shallow``).

        Most votes are unanimous: every world's line starts with the solver's first choice, and
        the other moves are never tried. Hindsight often rates several of them equal, each
        world winning by its own continuation. The ones that win within a small budget
        (``shallow`` classes) in more worlds lead to positions won by plainer play, less
        dependent on which card lies where; the moves are taken in that order, and the first
        that wins in as many kept worlds as the vote's choice under the full budget is played.
        """
        best = playable[0]
        action = prefixes[best][0]
        if not view.hidden_cards or reversible(view, action):
            return playable
        target = len(found[best])
        options = [a for a in view.legal_actions if not reversible(view, a) and not self._repeats(a)]
        if len(options) < 2:
            return playable
        easy = {a: sum(self._solve_after(world, [a], actions=False, nodes=self.shallow).status == SolveStatus.SOLVED
                       for world, _ in self._plans) for a in options}
        for option in sorted(options, key=lambda a: (-easy[a], a != action, -self._priority(view, a), a)):
            if option == action:
                return playable
            if self._credit(option, target, found, prefixes) >= target:
                return [option] + [key for key in playable if key != option]
        return playable

    def _credit(self, key, target: int, found: dict, prefixes: dict, prefix: list[int] | None = None) -> int:
        """How many kept worlds the candidate ``key`` (the action ``key``, or the line ``prefix``)
        wins in (into ``found`` and ``prefixes`` when it was not a candidate yet), trying each world
        whose own line starts otherwise, and stopping once it cannot reach ``target``."""
        if key not in found:
            prefix = prefix or [key]
            size = len(prefix)
            found[key] = [(world, line[size:]) for world, line in self._plans if line[:size] == prefix]
            prefixes[key] = prefix
            lost = 0
            for world, line in self._plans:
                if line[:size] == prefix:
                    continue
                result = self._solve_after(world, prefix, line=line)
                if result.status == SolveStatus.SOLVED:
                    found[key].append((world, list(result.actions)))
                else:
                    lost += 1
                    if len(self._plans) - lost < target:
                        break
        return len(found[key])

    def _wide_vote(self, view: PlayerView, order: list[int]) -> int | None:
        """Play the move that cannot be taken back and wins in the most of ``wide`` fresh worlds
        (ties: first in ``order``, the vote's ranking), keeping those worlds' lines; None when
        there is no other such move or no world is won.

        The vote sees only the first actions the worlds' own solutions name, over worlds kept
        because an earlier choice wins in them. Before a move that cannot be taken back, every
        such legal move is tried in fresh worlds instead: a world lost from here is skipped, the
        move its solution starts with is credited at no cost, the others are solved. Moves that
        can be taken back are left out: in hindsight they win wherever any move does (play it,
        come back, play the winner), by lines the agent, which never walks back into a position,
        would not follow.
        """
        actions = [a for a in view.legal_actions if not reversible(view, a) and not self._repeats(a)]
        if len(actions) < 2:
            return None
        order = [a for a in order if a in actions] + [a for a in actions if a not in order]
        wins: dict[int, list[tuple[Game, list[int]]]] = {action: [] for action in order}
        for _ in range(self.wide):
            world = view.sample_world(self.rng)
            result = self._solve(world, self.nodes)
            if result.status == SolveStatus.UNSOLVABLE:
                continue
            first = result.actions[0] if result.status == SolveStatus.SOLVED and result.actions else None
            for action in order:
                if action == first:
                    wins[action].append((world, list(result.actions)))
                    continue
                after = self._solve_after(world, [action])
                if after.status == SolveStatus.SOLVED:
                    wins[action].append((world, [action] + list(after.actions)))
        best = max(order, key=lambda action: (len(wins[action]), -order.index(action)))
        if not wins[best]:
            return None
        self._plans = []
        for world, line in wins[best]:
            world = world.copy()
            world.step(best)
            self._plans.append((world, line[1:]))
        return int(best)

    def _candidate(self, world: Game, line: list[int]) -> tuple:
        """``(key, length)`` of the candidate ``line`` starts with: its first action, or with
        ``commit`` its commitment, the line up to and including its first action that turns up
        a hidden card.

        Up to that action the player can follow the line whatever the hidden cards are, so a
        commitment is a plan, and crediting it with the worlds it wins leaves no room for each
        world to pick its own continuation before the next card is seen. Its key is the
        position as the player sees it before that action, and the action: lines that reach it
        in different orders are one candidate.
        """
        if not self.commit:
            return line[0], 1
        for index, child, turned_up in self._walk(world, line):
            if turned_up:
                child.undo()
                return (public_state(child, self.see_stock).tobytes(), line[index]), index + 1
        return tuple(line), len(line)  # nothing is turned up: the whole line is the plan

    def _walk(self, world: Game, line: list[int]):
        """A copy of ``world`` stepped along ``line``: ``(index, position, turned_up)`` after each
        action, the last after the first action that turns up a card the player has not seen."""
        child = world.copy()
        hidden = hidden_count(child, self.see_stock)
        for index, action in enumerate(line):
            child.step(action)
            turned_up = hidden_count(child, self.see_stock) < hidden
            yield index, child, turned_up
            if turned_up:
                return

    def _priority(self, view: PlayerView, action: int) -> float:
        """The greedy agent's priority for ``action`` here (:data:`SKIP` when it is not legal)."""
        if not view.legal_mask[action]:
            return SKIP
        return move_priority(view, view.effect(action), self._fallback._previous)

    def _ranked(self, view: PlayerView, found: dict, own: dict, prefixes: dict, prior=None, robust=None) -> list:
        """Candidates, best first: most worlds won (with ``robust``, most worlds held up, then won),
        then (among exact ties) the ``prior`` policy's
        probability of the first action when there is one, the greedy agent's priority for it,
        the most lines starting with the candidate, and the lowest first action."""

        def rank(key) -> tuple:
            action = prefixes[key][0]
            priority = self._priority(view, action)
            probability = prior[action] if prior is not None else 0.0
            held = robust[key] if robust is not None else 0
            return (-held, -len(found[key]), -probability, -priority, -len(own.get(key, ())), action)

        return sorted(found, key=rank)

    def _ranked_by_second_action(self, ranked: list, found: dict, prefixes: dict) -> list:
        """The ``second`` best of ``ranked`` ordered again by :meth:`_shared_second_wins` (ties
        kept in their order), the rest after them."""
        top = [key for key in ranked[: self.second] if found[key]]
        score = self._lookahead_wins if self.lookahead else self._shared_second_wins
        wins = {key: score(prefixes[key], found[key]) for key in top}
        return sorted(top, key=lambda key: -wins[key]) + [key for key in ranked if key not in wins]

    def _shared_second_wins(self, prefix: list[int], entries: list[tuple[Game, list[int]]]) -> int:
        """Worlds won after ``prefix`` when the player, who cannot tell apart worlds that
        ``prefix`` leaves looking alike, must follow it with one second action in all of them
        (and with ``second_depth``, one action at each of that many steps).

        Hindsight votes credit a candidate with every world it wins in, each by its own
        continuation (strategy fusion); this asks the continuations to agree up to the next
        card turned up. Worlds are grouped by what the player sees after ``prefix``, and each
        group is scored by :meth:`_shared_wins`.
        """
        return sum(self._shared_wins(group, self.second_depth) for group in alike(entries, prefix, self.see_stock))

    def _lookahead_wins(self, prefix: list[int], entries: list[tuple[Game, list[int]]]) -> int:
        """Worlds won after ``prefix`` when the player then plays its own next commitment
        (``lookahead``): for each group of worlds ``prefix`` leaves looking alike, the line
        :func:`~agents.lookahead.player_line` chooses from what the player sees there, by a vote
        over fresh worlds, tried in every world of the group.

        :meth:`_shared_second_wins` asks the worlds of a group to share a continuation, but picks
        it by hindsight over those same worlds, and a group of one world is credited whole: after
        a card is turned up most groups are that small. The player, once the card is up, samples
        again, knowing that card and no other. When no fresh world is won, the action most of the
        group's own lines take next stands in.
        """
        won = 0
        for group in alike(entries, prefix, self.see_stock):
            view = PlayerView(group[0][0], stock_visible=self.see_stock)
            if not view.hidden_cards or any(not rest for _, rest in group):
                won += len(group)  # the player knows the world, or the prefix has won it
                continue
            line = player_line(view, self._lookahead_rng, self.lookahead,
                               lambda world: self._solve(world, self.lookahead_nodes))
            if not line:
                line = [majority(rest[0] for _, rest in group)]
            size = len(line)
            won += sum(rest[:size] == line
                       or self._solve_after(child, line, actions=False, line=rest).status == SolveStatus.SOLVED
                       for child, rest in group)
        return won

    def _shared_wins(self, group: list[tuple[Game, list[int]]], depth: int, choices: int = 2) -> int:
        """Worlds of ``group`` (positions the player cannot tell apart, each with its winning
        line) won when all of them follow one next action: the best of the ``choices`` next
        actions most lines take, each tried in every world of the group (by the solver where its
        own line goes on otherwise). Below ``depth`` 1 the worlds that action keeps are grouped
        again by what the player then sees, and each group scored the same way, ``depth - 1``
        deep, following the action most of its lines take (one choice: the deeper steps only ask
        the lines to agree, and trying two at each would double the solves at every step).

        A group of one world, or one already won, is credited whole: alone, its own line is
        the player's to follow.
        """
        if depth == 0 or len(group) == 1 or any(not rest for _, rest in group):
            return len(group)
        counts = Counter(rest[0] for _, rest in group)
        best = 0
        for action in sorted(counts, key=lambda a: (-counts[a], a))[:choices]:
            if depth == 1:
                won = counts[action] + sum(
                    self._solve_after(child, [action], actions=False, line=rest).status == SolveStatus.SOLVED
                    for child, rest in group if rest[0] != action)
            else:
                kept = []
                for child, rest in group:
                    if rest[0] == action:
                        kept.append((child, rest[1:]))
                        continue
                    result = self._solve_after(child, [action], line=rest)
                    if result.status == SolveStatus.SOLVED:
                        kept.append((child, list(result.actions)))
                won = sum(self._shared_wins(sub, depth - 1, 1) for sub in alike(kept, [action], self.see_stock))
            best = max(best, won)
            if best == len(group):
                break  # no action can do better
        return best

    def _holds_up(self, world: Game, line: list[int]) -> bool:
        """``line`` (winning in ``world``) reaches, on turning up its first card, a position still
        won when the cards left hidden are dealt afresh (``robust``); a line turning up nothing,
        or the last hidden card, holds up."""
        reached = None  # the position on turning up the first card
        for _, child, turned_up in self._walk(world, line):
            reached = child if turned_up else None
        if reached is None or hidden_count(reached, self.see_stock) == 0:
            return True
        fresh = PlayerView(reached, stock_visible=self.see_stock).sample_world(self.rng)
        return self._solve(fresh, self.nodes, actions=False).status == SolveStatus.SOLVED

    def _prior_probabilities(self, view: PlayerView) -> np.ndarray:
        """The ``prior`` policy's probability of each action at ``view`` (zero where illegal)."""
        mask = view.legal_mask
        return self._prior.probabilities(self._prior.observe(view)[None], mask[None])[0]

    def _commits(self, view: PlayerView) -> bool:
        """Some kept plan goes on with a move that cannot be taken back (``refresh``, ``refresh_below``).

        Kept plans are not a fresh sample of the worlds the view allows: they are the worlds where
        the moves played so far win, each with its own continuation, so their vote leans towards
        that continuation. Following them through moves that can be taken back costs nothing;
        before a move that cannot, the worlds are sampled again.
        """
        return any(not reversible(view, line[0]) for _, line in self._plans)

    def _repeats(self, action: int) -> bool:
        """``action`` leads to a position already visited (it turns no card up, so this is exact)."""
        child = self._plans[0][0].copy()
        child.step(action)
        return child.position_hash() in self._visited

    def _solve_each(self, worlds: list[Game], nodes: int, first: int = 0):
        """``(won, undecided)``: ``(index, winning line)`` of the worlds of ``worlds`` won under
        ``nodes`` and the indices of those left undecided, indexed from ``first``."""
        won, undecided = [], []
        for index, world in enumerate(worlds, start=first):
            result = self._solve(world, nodes)
            if result.status == SolveStatus.SOLVED and result.actions:
                won.append((index, list(result.actions)))
            elif result.status == SolveStatus.UNKNOWN:
                undecided.append(index)
        return won, undecided

    def _retry(self, worlds: list[Game], undecided: list[int], nodes: int) -> list[tuple[int, list[int]]]:
        """The undecided worlds solved again with ``retry`` times the nodes (0 or 1: off): the
        position may be hard rather than lost, so look deeper."""
        won = []
        if self.retry > 1:
            for index in undecided:
                result = self._solve(worlds[index], nodes * self.retry)
                if result.status == SolveStatus.SOLVED and result.actions:
                    won.append((index, list(result.actions)))
                    if self.retry_all:
                        self._deep.add(id(worlds[index]))
        return won
