"""Recorded games for the viewer (``klondike watch``): results files loaded, positions replayed.

A results file is the per-deal CSV of ``klondike evaluate`` (read by
:func:`agents.results.read_records`) with the JSON summary beside it for the agent's name and
the rules (standard draw-3 when there is none). Each game replays on the engine from its deal
number, so a position is the engine's own, never a stored copy.

What the page may see of a position is the player's view (:func:`table.table_json`): hidden
cards are ``null``. Only with ``reveal`` does an answer carry them, under ``"revealed"``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agents.base import PlayerView
from agents.evaluation import summarize_results
from agents.results import read_records
from klondike_app.web.table import move_json, rules_json, table_json
from klondike_env.cards import card_str
from klondike_env.game import Game
from klondike_env.rules import Rules


@dataclass(frozen=True)
class Replay:
    """One recorded game: the deck it was dealt from, the rules, the actions and the result."""

    deal: int
    deck: tuple[int, ...]
    rules: Rules
    actions: tuple[int, ...]
    won: bool
    cards_home: int
    ending: str

    def game_at(self, moves: int) -> Game:
        """The true game after the first ``moves`` actions."""
        game = Game.from_deck(self.deck, self.rules)
        for action in self.actions[:moves]:
            game.step(action)
        return game

    def summary(self) -> dict:
        return {"won": self.won, "moves": len(self.actions), "cards_home": self.cards_home, "ending": self.ending}


@dataclass
class ResultsFile:
    """A results CSV's games, by deal, with the agent's name and the rules."""

    path: Path
    agent: str
    rules: Rules
    replays: dict[int, Replay]

    def describe(self) -> dict:
        wins = sum(replay.won for replay in self.replays.values())
        return {"name": self.path.name, "agent": self.agent, "rules": rules_json(self.rules),
                "games": len(self.replays), "wins": wins}


def load_results(path: str | Path) -> ResultsFile:
    """The games of a results CSV; a one-line ``ValueError`` naming the file for anything
    unreadable or a deal listed twice. The agent and the rules are those of the summary
    :func:`agents.evaluation.summarize_results` reads beside it."""
    path = Path(path)
    _, summary = summarize_results(path, write=False)
    try:
        rules = Rules(**summary["rules"])
    except (TypeError, ValueError) as error:
        raise ValueError(f"{path.with_suffix('.json')}: bad rules {summary['rules']!r}: {error}") from None
    replays = {record.deal: Replay(record.deal, Game.new(record.deal, rules).deck, rules, record.actions, record.won,
                                   record.foundation_cards, record.ending)
               for record in read_records(path)}
    return ResultsFile(path, summary["agent"], rules, replays)


def check_replay(replay: Replay, where: str) -> None:
    """A ``ValueError`` naming ``where`` unless every action of ``replay`` is legal in turn."""
    game = Game.from_deck(replay.deck, replay.rules)
    for number, action in enumerate(replay.actions, 1):
        if action not in game.legal_actions():
            raise ValueError(f"{where}: deal {replay.deal}, move {number}: action {action} is not legal there "
                             f"(under {replay.rules})")
        game.step(action)


def position_json(replay: Replay, moves: int, reveal: bool = False) -> dict:
    """The table after ``moves`` actions as the player saw it, the move just played and the one
    played next (their names and piles, as the play page describes legal moves) and, with
    ``reveal``, the hidden cards."""
    game = replay.game_at(max(moves - 1, 0))
    played = None
    if moves:
        played = move_json(PlayerView(game), replay.actions[moves - 1])
        game.step(replay.actions[moves - 1])
    table = table_json(game, list(replay.actions[:moves]))
    del table["legal"], table["auto_finish"]
    following = replay.actions[moves] if moves < len(replay.actions) else None
    position = {
        "deal": replay.deal,
        "move": moves,
        "total": len(replay.actions),
        "result": replay.summary(),
        **table,
        "played": played,
        "next": None if following is None else move_json(PlayerView(game), following),
    }
    if reveal:
        position["revealed"] = revealed_json(game)
    return position


def revealed_json(game: Game) -> dict:
    """The cards the player has not seen: each column's face-down cards (bottom first) and the
    stock in drawing order (next draw first), with ``null`` for cards already seen."""
    hidden = set(game.hidden_cards())
    return {
        "tableau": [[card_str(card) for card, up in column if not up] for column in game.tableau],
        "stock": [card_str(card) for card in game.stock],
        "stock_seen": [card not in hidden for card in game.stock],
    }
