"""Cards, decks and deal numbers in their text forms (docs/contract.md "Cards", "Deal numbers")."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from klondike_env import core

RANK_LETTERS = "A23456789TJQK"
SUIT_LETTERS = "CDHS"
SUIT_SYMBOLS = "♣♦♥♠"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
MAX_DEAL = 2**64 - 1


def card_str(card: int) -> str:
    """Text form of a card id: ``card_str(51) == "KS"``."""
    if isinstance(card, (bool, np.bool_)) or not isinstance(card, (int, np.integer)) or not 0 <= card < 52:
        raise ValueError(f"bad card id {card!r}: a card id is an integer in 0..51")
    return RANK_LETTERS[card % 13] + SUIT_LETTERS[card // 13]


def parse_card(token: str | int) -> int:
    """Card id of a text card (``"AS"``, ``"10h"``, ``"Q♦"``) or of an id in 0..51."""
    if isinstance(token, (int, np.integer)) and not isinstance(token, (bool, np.bool_)):
        card_str(int(token))  # validates the range
        return int(token)
    if not isinstance(token, str):
        raise ValueError(f"bad card {token!r}: expected text such as 'AS', 'TH', '10h', 'Q♦' or an id 0..51")
    text = token.strip()
    rank_text, suit_text = text[:-1].upper(), text[-1:]
    rank = "T" if rank_text == "10" else rank_text
    if suit_text in SUIT_SYMBOLS:
        suit = SUIT_SYMBOLS.index(suit_text)
    elif suit_text.upper() in SUIT_LETTERS and suit_text:
        suit = SUIT_LETTERS.index(suit_text.upper())
    else:
        suit = -1
    if len(rank) != 1 or rank not in RANK_LETTERS or suit < 0:
        raise ValueError(
            f"bad card {token!r}: expected a rank from A23456789TJQK (or 10) then a suit from CDHS or ♣♦♥♠"
        )
    return 13 * suit + RANK_LETTERS.index(rank)


def check_deal(deal) -> int:
    """Validate a deal number and return it as a Python int."""
    if isinstance(deal, (bool, np.bool_)) or not isinstance(deal, (int, np.integer)) or not 0 <= deal <= MAX_DEAL:
        raise ValueError(f"bad deal number {deal!r}: a deal is an integer with 0 <= deal < 2**64")
    return int(deal)


def deal_deck(deal: int) -> list[int]:
    """The 52 card ids of deal number ``deal`` (SplitMix64 + Fisher-Yates, docs/contract.md)."""
    deck = np.empty(52, np.int32)
    core.fill_deal_deck(np.uint64(check_deal(deal)), deck)
    return [int(c) for c in deck]


def _parse_solver_string(text: str) -> list[int]:
    """Klondike-Solver deck string: 52 x ``RRS`` (RR 01-13, S 1=C 2=D 3=H 4=S)."""
    cards = []
    for i in range(0, 156, 3):
        rank, suit = int(text[i : i + 2]), int(text[i + 2])
        if not (1 <= rank <= 13 and 1 <= suit <= 4):
            raise ValueError(
                f"bad deck string: {text[i:i + 3]!r} at position {i} is not RRS with RR 01-13 and S 1-4"
            )
        cards.append(13 * (suit - 1) + rank - 1)
    return cards


def parse_deck(deck: str | Iterable) -> list[int]:
    """A deck as 52 distinct card ids, from any accepted form.

    Accepts 52 card ids, 52 card strings, one string of cards separated by spaces
    and/or commas, or a Klondike-Solver 156-digit deck string.
    """
    if isinstance(deck, str):
        text = deck.strip()
        if text.isdigit():
            if len(text) != 156:
                raise ValueError(
                    f"bad deck string: it has {len(text)} digits, a Klondike-Solver deck string has 156 (52 x RRS)"
                )
            cards = _parse_solver_string(text)
        else:
            cards = [parse_card(token) for token in text.replace(",", " ").split()]
    elif isinstance(deck, np.ndarray) or isinstance(deck, Iterable):
        cards = [parse_card(token) for token in deck]
    else:
        raise ValueError(f"bad deck {deck!r}: expected 52 cards as ids, strings, one string, or a 156-digit deck string")
    if len(cards) != 52:
        raise ValueError(f"bad deck: it has {len(cards)} cards, a deck has exactly 52")
    seen = set()
    for card in cards:
        if card in seen:
            raise ValueError(f"bad deck: card {card_str(card)} appears twice; a deck has 52 distinct cards")
        seen.add(card)
    return cards


def deck_string(deck: Sequence[int]) -> str:
    """Klondike-Solver 156-digit form of a deck (inverse of :func:`parse_deck`)."""
    return "".join(f"{card % 13 + 1:02d}{card // 13 + 1}" for card in deck)


def deck_text(deck: Sequence[int]) -> str:
    """Space-separated text form of a deck, as in the golden decks of docs/contract.md."""
    return " ".join(card_str(int(card)) for card in deck)
