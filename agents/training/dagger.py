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
replays ``actions`` and fits ``labels``. :func:`label_deals_into` writes each game's row as it
ends, through the harness's resumable files (:func:`agents.results.run_resumable`): the run's
settings go to the JSON beside the CSV, the same run again skips the deals already written.
"""

from __future__ import annotations

import csv
import os
from dataclasses import asdict, dataclass
from operator import attrgetter
from pathlib import Path

import numpy as np

from agents.base import RESIGN, Agent, DealInfo, choose_action
from agents.evaluation import deal_seed
from agents.jobs import Backend, JobStats, run_jobs
from agents.registry import make_agent
from agents.results import RowFormat, parse_moves, resumable_csv, run_resumable
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


def _check_options(beta: float, max_moves: int) -> None:
    if not 0.0 <= beta <= 1.0:
        raise ValueError(f"bad beta {beta!r}: the probability of playing the teacher's move must be in [0, 1]")
    if max_moves < 1:
        raise ValueError(f"bad max_moves {max_moves!r}: use a positive number of actions")


def label_deals(learner_spec: str, teacher_spec: str, deals: list[int], rules: Rules, *, beta: float,
                max_moves: int, seed: int = 0, workers: int = 1, progress: bool = True,
                backend: Backend | None = None, on_game=None, stats: JobStats | None = None,
                init_here: bool = True) -> list[LabelledGame]:
    """:func:`label_game` on every deal, on ``backend`` (default: ``workers`` local processes);
    games come back in deal order, and ``on_game(game)`` sees each as it ends
    (:func:`agents.jobs.run_jobs`)."""
    _check_options(beta, max_moves)
    jobs = [(deal, asdict(rules), deal_seed(seed, deal), beta, max_moves) for deal in deals]
    return run_jobs(_label_in_worker, jobs, _init_worker, (learner_spec, teacher_spec),
                    backend or Backend(workers=workers), progress=progress, desc="labelling", on_result=on_game,
                    stats=stats, init_here=init_here)


def labelled_row(game: LabelledGame) -> list:
    """``game`` as a row of the columns :data:`FIELDS`."""
    return [game.deal, int(game.won), len(game.actions), game.foundation_cards, game.ending,
            " ".join(map(str, game.actions)), " ".join(map(str, game.labels))]


def labelled_game_of_row(row: dict[str, str], path: str | os.PathLike = "?", index: int = 0) -> LabelledGame:
    """The :class:`LabelledGame` of a row; a bad cell is a ``ValueError`` naming the file and line."""
    try:
        game = LabelledGame(int(row["deal"]), row["won"] == "1", int(row["foundation_cards"]), row["ending"],
                            tuple(parse_moves(row["actions"])), tuple(parse_moves(row["labels"])))
        if len(game.actions) != int(row["moves"]) or len(game.labels) != len(game.actions):
            raise ValueError
    except (ValueError, TypeError, KeyError, AttributeError):
        raise ValueError(f"{path} line {index + 2}: bad row {dict(row)!r}: expected the columns "
                         f"{', '.join(FIELDS)}, one label per action") from None
    return game


#: a DAgger file's rows, as the harness's driver writes them (agents.results.run_resumable)
LABELLED_ROWS = RowFormat(FIELDS, labelled_row, labelled_game_of_row, attrgetter("deal"))


def summarize_labelled(games: list[LabelledGame]) -> dict:
    labels = sum(len(game.labels) for game in games)
    agree = sum(a == b for game in games for a, b in zip(game.actions, game.labels))
    return {"games": len(games), "wins": sum(game.won for game in games), "labels": labels,
            "teacher_moves_played": agree / max(labels, 1)}


def label_deals_into(path: str | os.PathLike, learner_spec: str, teacher_spec: str, deals: list[int], rules: Rules, *,
                     beta: float, max_moves: int, seed: int = 0, backend: Backend | None = None,
                     overwrite: bool = False, progress: bool = True, command: str | None = None) -> tuple[Path, dict]:
    """:func:`label_deals` into the CSV at ``path`` (each game's row as it ends) and the JSON
    beside it (the run's settings first, the summary at the end); a ``path`` not ending in ``.csv``
    or not writable is a ``ValueError``. The same run into the same CSV
    resumes it (deals already there are skipped, none is written twice); another run (learner,
    teacher, rules, beta, move limit, seed) is refused with an
    :class:`agents.results.ResultsExistError` unless ``overwrite``. Returns ``(json_path, summary)``."""
    _check_options(beta, max_moves)
    path = resumable_csv(path, "--out")  # before labelling: a bad path must not cost the games
    backend = backend or Backend()
    learner, teacher = make_agent(learner_spec), make_agent(teacher_spec)  # a bad spec fails before any file
    identity = {"job": "dagger", "learner": learner.label, "teacher": teacher.label, "rules": asdict(rules),
                "beta": beta, "max_moves": max_moves, "seed": seed}
    stats = JobStats(backend.name)

    def play(remaining: list[int], on_game) -> None:
        label_deals(learner_spec, teacher_spec, remaining, rules, beta=beta, max_moves=max_moves, seed=seed,
                    progress=progress, backend=backend, on_game=on_game, stats=stats, init_here=False)

    header = {"command": command, "learner_spec": learner_spec, "teacher_spec": teacher_spec,
              "workers": backend.workers, "backend": backend.name}
    return run_resumable(play, identity, list(dict.fromkeys(deals)), path.parent, path.stem, summarize_labelled,
                         rows=LABELLED_ROWS, overwrite=overwrite, header=header, stats=stats)


def write_labelled_games(games: list[LabelledGame], path: str | Path) -> Path:
    """Write finished games at once (no resume), in the order given."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(FIELDS)
        writer.writerows(labelled_row(game) for game in games)
    return path
