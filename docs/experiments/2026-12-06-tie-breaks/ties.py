"""Which of the moves the vote ranks equal wins more deals when played? (issue #37)

Plays a determinized agent on each deal, and at every decision where two or more moves it may
play (not walking back into a position played through) win in as many kept worlds, keeps a copy
of the agent and the game from before the decision. Afterwards, at up to ``--per-deal`` such
decisions picked at random, each tied move (up to four) is played in a copy of the true game and
the same agent plays on to the end of the game; the agent's kept worlds are dropped first in every
branch alike, so every branch starts from a fresh sample, and every branch starts from the same
random state. One more branch, the control, plays the agent's own move from another random state:
how often it parts from the agent's own branch is how often branches part by chance alone. One
CSV row a branch: deal, move number, the move, its kind (``kind``; ``control`` for the control),
whether the agent chose it, and whether the branch won.

    python docs/experiments/2026-12-06-tie-breaks/ties.py --deals 60001-60300 --out ties.csv
    python docs/experiments/2026-12-06-tie-breaks/ties.py --summary ties.csv

Rows already in ``--out`` are kept and their deals skipped, so a killed run resumes.
"""

from __future__ import annotations

import argparse
import copy
import csv
import itertools
import os
from collections import Counter, defaultdict

import numpy as np

from agents.base import RESIGN, DealInfo, PlayerView, choose_action
from agents.determinized import DeterminizedAgent
from agents.evaluation import deal_seed, play_on
from agents.greedy import is_safe_to_foundation
from agents.registry import parse_spec
from klondike_env import Rules, core
from klondike_env.game import Game

AGENT = "determinized:followable=true,reveal=true,second=3"
FIELDS = ["deal", "move", "action", "kind", "chosen", "ties", "won"]


def kind(view: PlayerView, action: int) -> str:
    """A coarse name for what ``action`` visibly does."""
    if action == core.DRAW:
        return "draw"
    if action == core.RECYCLE:
        return "recycle"
    effect = view.effect(action)
    if action >= core.FOUNDATION_TO_COLUMN:
        return "foundation_to_column"
    if effect.to_foundation:
        if effect.flips:
            return "home_turning_up"
        if is_safe_to_foundation(effect.cards[0], view.foundations):
            return "home_safe"
        return "home_waste" if effect.source_column < 0 else "home_column"
    if effect.source_column < 0:
        return "waste_to_empty" if view.tableau[effect.dest_column].top < 0 else "waste_to_column"
    if effect.flips:
        return "column_turning_up"
    if effect.empties:
        return "column_emptied"
    return "column_to_column"


class TieRecorder(DeterminizedAgent):
    """The determinized agent, noting at each decision the moves it ranks equal first."""

    def _revealing_first(self, view, playable, found, prefixes):
        best = max(len(found[key]) for key in playable)
        self.tied = sorted({prefixes[key][0] for key in playable if len(found[key]) == best})
        return super()._revealing_first(view, playable, found, prefixes)


def branch(agent, game: Game, action: int, reseed: int | None = None) -> bool:
    """Play ``action`` where ``agent`` was about to decide, its kept worlds dropped, then play on
    (with ``reseed``, from another random state: the control)."""
    agent, game = copy.deepcopy(agent), game.copy()
    if reseed is not None:
        agent.rng = np.random.default_rng(reseed)
    view = PlayerView(game)
    agent._visited.add(view.position_hash())
    agent._fallback.note(view, action)
    agent._plans = []
    game.step(action)
    play_on(agent, game)
    return bool(game.is_won)


def probe_deal(deal: int, per_deal: int) -> list[dict]:
    agent = TieRecorder(**parse_spec(AGENT)[1])
    rules = Rules()
    agent.reset(DealInfo(seed=deal_seed(0, deal), rules=rules))
    game = Game.new(deal, rules)
    snapshots = []
    while not (game.is_won or game.is_dead or game.move_count >= 1000):
        before = (copy.deepcopy(agent), game.copy())
        agent.tied = []
        action = choose_action(agent, game)
        if action == RESIGN:
            break
        if len(agent.tied) > 1:
            snapshots.append((before, list(agent.tied), action))
        game.step(action)
    rng = np.random.default_rng(deal)
    picked = sorted(rng.choice(len(snapshots), size=min(per_deal, len(snapshots)), replace=False)) if snapshots else []
    rows = []
    for index in picked:
        (saved, saved_game), tied, chosen = snapshots[index]
        view = PlayerView(saved_game)
        for action in tied[:4]:
            rows.append(dict(deal=deal, move=saved_game.move_count, action=action, kind=kind(view, action),
                             chosen=int(action == chosen), ties=len(tied), won=int(branch(saved, saved_game, action))))
        # the control: the agent's own move again from another random state, to tell how often
        # branches part by the agent's own randomness alone
        rows.append(dict(deal=deal, move=saved_game.move_count, action=chosen, kind="control", chosen=0,
                         ties=len(tied), won=int(branch(saved, saved_game, chosen, reseed=deal * 1000 + index))))
    if not rows:  # a deal without ties still gets a row, so a resumed run skips it
        rows.append(dict(deal=deal, move=-1, action=-1, kind="", chosen=0, ties=0, won=int(game.is_won)))
    return rows


def summary(path: str) -> None:
    rows = [row for row in csv.DictReader(open(path)) if int(row["move"]) >= 0]
    controls = {(r["deal"], r["move"]): r for r in rows if r["kind"] == "control"}
    own = {(r["deal"], r["move"]): r for r in rows if r["chosen"] == "1"}
    noise = sum(controls[key]["won"] != own[key]["won"] for key in controls if key in own)
    print(f"control: the agent's own move from another random state parts from it at {noise} of "
          f"{len(controls)} decisions")
    rows = [row for row in rows if row["kind"] != "control"]
    decisions = defaultdict(list)
    for row in rows:
        decisions[(row["deal"], row["move"])].append(row)
    parted = [d for d in decisions.values() if len({r["won"] for r in d}) > 1]
    print(f"deals {len({r['deal'] for r in rows})}, decisions probed {len(decisions)}, "
          f"branches {len(rows)}, decisions whose branches part {len(parted)}")
    chosen_won = sum(int(r["won"]) for d in parted for r in d if r["chosen"] == "1")
    print(f"where branches part, the agent's own choice won {chosen_won} of {len(parted)}")
    # head to head: for each pair of kinds tied at a decision, the decisions where exactly one won
    pairs = Counter()
    for d in decisions.values():
        for a, b in itertools.combinations(d, 2):
            if a["kind"] != b["kind"] and a["won"] != b["won"]:
                winner, loser = (a, b) if a["won"] == "1" else (b, a)
                pairs[(winner["kind"], loser["kind"])] += 1
    print("\nkind A beat kind B (only A's branch won) / B beat A:")
    seen = set()
    for (x, y), n in sorted(pairs.items(), key=lambda item: -item[1] - pairs.get(item[0][::-1], 0)):
        if (y, x) in seen:
            continue
        seen.add((x, y))
        print(f"  {x:22s} vs {y:22s}  {n:3d} : {pairs.get((y, x), 0):3d}")
    wins = Counter(r["kind"] for d in parted for r in d if r["won"] == "1")
    tries = Counter(r["kind"] for d in parted for r in d)
    print("\nwhere branches part, win share by kind:")
    for k in sorted(tries, key=lambda k: -tries[k]):
        print(f"  {k:22s} {wins[k]:3d} / {tries[k]:3d}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", help="FIRST-LAST")
    parser.add_argument("--per-deal", type=int, default=3)
    parser.add_argument("--out", default="ties.csv")
    parser.add_argument("--summary", metavar="CSV")
    args = parser.parse_args()
    if args.summary:
        summary(args.summary)
        return
    first, last = map(int, args.deals.split("-"))
    done = {int(row["deal"]) for row in csv.DictReader(open(args.out))} if os.path.exists(args.out) else set()
    new = not os.path.exists(args.out)
    with open(args.out, "a", newline="") as handle:
        writer = csv.DictWriter(handle, FIELDS)
        if new:
            writer.writeheader()
        for deal in range(first, last + 1):
            if deal in done:
                continue
            writer.writerows(probe_deal(deal, args.per_deal))  # a deal's rows at once
            handle.flush()
            os.fsync(handle.fileno())


if __name__ == "__main__":
    main()
