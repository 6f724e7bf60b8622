"""Shared test helpers: hand-built positions from explicit decks, and random playouts."""

from __future__ import annotations

import numpy as np
import pytest

from klondike_env import Game, Rules, parse_card


def deck_position(row: int, col: int) -> int:
    """Index in the deck of the card dealt to depth ``row`` of column ``col`` (SPEC.md layout)."""
    return sum(7 - r for r in range(row)) + col - row


def build_deck(columns: dict | None = None, stock=()) -> list[int]:
    """A 52-card deck that deals the chosen cards where asked.

    ``columns`` maps a column to its cards bottom to top; they fill the *top* of
    the column, so the last one is its face-up card (at most ``col + 1`` cards).
    ``stock`` fills the front of the stock, first drawn first. Every other place
    gets the unused cards, in id order.
    """
    deck: list[int | None] = [None] * 52
    for col, cards in (columns or {}).items():
        cards = [parse_card(c) for c in cards]
        assert len(cards) <= col + 1, f"column {col} holds {col + 1} cards at the deal"
        for offset, card in enumerate(cards):
            deck[deck_position(col + 1 - len(cards) + offset, col)] = card
    for i, card in enumerate(stock):
        deck[28 + i] = parse_card(card)
    chosen = [c for c in deck if c is not None]
    assert len(chosen) == len(set(chosen)), "a card is placed twice"
    spare = iter(c for c in range(52) if c not in set(chosen))
    return [c if c is not None else next(spare) for c in deck]


def position(columns: dict | None = None, stock=(), rules: Rules | None = None, **options) -> Game:
    """The opening position of :func:`build_deck` under ``rules`` (or ``Rules(**options)``)."""
    return Game.from_deck(build_deck(columns, stock), rules if rules is not None else Rules(**options))


def random_playout(game: Game, rng: np.random.Generator, max_moves: int, card_move_bias: float = 0.8):
    """Play random legal actions, preferring card moves (so games get deep), yielding each action."""
    for _ in range(max_moves):
        legal = game.legal_actions()
        if not legal:
            return
        card_moves = [a for a in legal if a > 1]
        choices = card_moves if card_moves and rng.random() < card_move_bias else legal
        action = choices[int(rng.integers(len(choices)))]
        game.step(action)
        yield action


#: every combination of the rule options, for tests that should hold under all of them
ALL_RULES = [
    Rules(draw_count=draw, max_passes=passes, empty_column=empty, foundation_to_tableau=back)
    for draw in (3, 1)
    for passes in (None, 1, 3)
    for empty in ("king", "any")
    for back in (True, False)
]


@pytest.fixture(params=ALL_RULES, ids=lambda rules: f"d{rules.draw_count}-p{rules.max_passes}-"
                f"{rules.empty_column}-{'back' if rules.foundation_to_tableau else 'noback'}")
def any_rules(request) -> Rules:
    return request.param
