"""How often the determinized agent's worlds agree on the first action, and where its solves go.

    python docs/experiments/2026-12-02-unanimous-vote/vote_agreement.py AGENT_SPEC FIRST LAST

Plays deals FIRST..LAST (seeded as the harness seeds them, run seed 0) and counts, over the
decisions that voted: those whose winning worlds all start with the same action (nothing to
check) and those where they disagree; and the solver calls made sampling fresh worlds against
those made checking candidates in the other worlds.
"""

from __future__ import annotations

import sys

from agents.determinized import DeterminizedAgent
from agents.evaluation import deal_seed, play_game
from agents.registry import make_agent
from klondike_env.rules import Rules


def main(spec: str, first: int, last: int) -> None:
    agent = make_agent(spec)
    assert isinstance(agent, DeterminizedAgent)
    counts = {"unanimous": 0, "split": 0, "fresh_solves": 0, "check_solves": 0, "wins": 0}
    solve_worlds, vote = agent._solve_worlds, agent._vote

    def counted_solve_worlds(view):
        before = agent.solves
        plans = solve_worlds(view)
        counts["fresh_solves"] += agent.solves - before
        return plans

    def counted_vote(view):
        firsts = {line[0] for _, line in agent._plans}
        counts["unanimous" if len(firsts) == 1 else "split"] += 1
        before = agent.solves
        action = vote(view)
        counts["check_solves"] += agent.solves - before
        return action

    agent._solve_worlds, agent._vote = counted_solve_worlds, counted_vote
    for deal in range(first, last + 1):
        counts["wins"] += play_game(agent, deal, Rules(), deal_seed(0, deal)).won
    voted = counts["unanimous"] + counts["split"]
    print(f"{spec}, deals {first}-{last}: {counts['wins']} won; {voted} votes, "
          f"{counts['unanimous']} unanimous ({counts['unanimous'] / max(voted, 1):.1%}), {counts['split']} split; "
          f"solver calls: {counts['fresh_solves']} on fresh worlds, {counts['check_solves']} checking candidates")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
