"""DAgger: label the positions a learner reaches with a teacher's moves.

Behaviour cloning fits the policy to positions the teacher reached. Played by itself, the clone
soon makes a move the teacher would not have made and arrives where the teacher never went:
there its moves were never fit, and its errors compound (Ross, Gordon & Bagnell, 2011). DAgger
closes the gap by letting the learner drive: at every position of a learner's game the teacher
is asked for its move (the *label*), and the learner's move is played -- or, with probability
``beta``, the teacher's, which keeps the games going where the learner alone would stall. The
labelled positions are added to the demonstrations and the policy is cloned again.

Both players see only a :class:`~agents.base.PlayerView`, as in the harness, so a label is a
decision made without the hidden cards. Both are told every position, including those reached
by the other's move; an agent that keeps plans (``determinized``) notices that its plan no
longer applies and plans afresh.

The games are written as a results CSV (``deal``, ``actions`` as played, ...) with one more
column, ``labels``: the teacher's move at each of those positions, space-separated (``-1``
where the teacher resigned, which gives no label). :func:`agents.training.pretrain.load_demonstrations`
replays ``actions`` and fits ``labels``.
"""

from __future__ import annotations

import csv
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from agents.base import RESIGN, Agent, DealInfo, choose_action
from agents.evaluation import deal_seed
from agents.jobs import Backend, run_jobs
from agents.registry import make_agent
from klondike_env.game import Game
from klondike_env.rules import Rules

NO_LABEL = -1
FIELDS = ("deal", "won", "moves", "foundation_cards", "ending", "actions", "labels")


@dataclass
class LabelledGame:
    deal: int
    won: bool
    foundation_cards: int
    ending: str  # won, dead, move limit, resigned (the learner resigned)
    actions: tuple[int, ...]  # as played
    labels: tuple[int, ...]  # the teacher's move at each position before actions[i]; NO_LABEL when it resigned


def label_game(learner: Agent, teacher: Agent, deal: int, rules: Rules, seed: int, beta: float,
               max_moves: int) -> LabelledGame:
    """Play ``deal`` with the learner's moves (the teacher's with probability ``beta``), asking the
    teacher for its move at every position."""
    game = Game.new(deal, rules)
    learner.reset(DealInfo(seed=seed, rules=rules))
    teacher.reset(DealInfo(seed=seed + 1, rules=rules))
    rng = np.random.default_rng(seed)  # who plays each move: a function of the deal's seed only
    actions: list[int] = []
    labels: list[int] = []
    resigned = False
    while not (game.is_won or game.is_dead) and game.move_count < max_moves:
        # as the harness asks (an oracle teacher labels from the true deal: hindsight)
        label = int(choose_action(teacher, game))
        own = int(choose_action(learner, game))
        played = label if label != RESIGN and rng.random() < beta else own
        if played == RESIGN:
            resigned = True
            break
        labels.append(NO_LABEL if label == RESIGN else label)
        actions.append(played)
        game.step(played)
    ending = "won" if game.is_won else "dead" if game.is_dead else "resigned" if resigned else "move limit"
    return LabelledGame(deal, game.is_won, int(sum(game.foundations)), ending, tuple(actions), tuple(labels))


_workers: tuple[Agent, Agent] | None = None


def _init_worker(learner_spec: str, teacher_spec: str) -> None:
    global _workers
    _workers = (make_agent(learner_spec), make_agent(teacher_spec))


def _label_in_worker(job: tuple[int, dict, int, float, int]) -> LabelledGame:
    deal, rules_options, seed, beta, max_moves = job
    return label_game(*_workers, deal, Rules(**rules_options), seed, beta, max_moves)


def label_deals(learner_spec: str, teacher_spec: str, deals: list[int], rules: Rules, *, beta: float,
                max_moves: int, seed: int = 0, workers: int = 1, progress: bool = True,
                backend: Backend | None = None) -> list[LabelledGame]:
    """:func:`label_game` on every deal, on ``backend`` (default: ``workers`` local processes);
    games come back in deal order."""
    if not 0.0 <= beta <= 1.0:
        raise ValueError(f"bad beta {beta!r}: the probability of playing the teacher's move must be in [0, 1]")
    if max_moves < 1:
        raise ValueError(f"bad max_moves {max_moves!r}: use a positive number of actions")
    jobs = [(deal, asdict(rules), deal_seed(seed, deal), beta, max_moves) for deal in deals]
    return run_jobs(_label_in_worker, jobs, _init_worker, (learner_spec, teacher_spec),
                    backend or Backend(workers=workers), progress=progress, desc="labelling")


def write_labelled_games(games: list[LabelledGame], path: str | Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(FIELDS)
        for game in games:
            writer.writerow([game.deal, int(game.won), len(game.actions), game.foundation_cards, game.ending,
                             " ".join(map(str, game.actions)), " ".join(map(str, game.labels))])
    return path
