"""Cards, deal numbers and deck forms (docs/contract.md "Cards", "Deal numbers")."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from klondike_env import card_str, deal_deck, deck_string, parse_card, parse_deck
from klondike_env.cards import deck_text

GOLDEN_DEALS = {
    0: "8S JH 9C 2S 2D QD 6S TC 3D AC JC 7C 9H 8C QS KH 5H 2C 3H 5C AH 6C 4S TD 5D 8H 8D AD QH TS QC JD 3S "
    "4D 2H 9D 3C KD AS 7S 9S 7D JS 6H KS 4C 7H 5S 6D 4H KC TH",
    1: "7D 9C 4D 8H 8D 5S JD 6D 9S JC 5D KD 3C 2D JH 5H 7H 4H 2C AD 6S KC KH TH TS JS TD 8S QC 4S 6C 7C AS "
    "5C AH KS 6H QS QH QD 9D 3D 3S AC 4C 2H 8C TC 3H 2S 9H 7S",
    2**64 - 1: "JC KS 7S 4C AD JH 5D 2H AH 7D 6D 6S 4D AS 4S 7H 3D 2D 9H QH 8D 3S 5S 9S AC 8S QD TD 7C QS 9C 4H "
    "JD KH KC 6H 9D 8H 8C TH 6C KD 2S 3H QC JS 3C 5H TS 2C TC 5C",
}


def test_card_ids_follow_suit_and_rank():
    assert [card_str(c) for c in (0, 12, 13, 26, 38, 39, 51)] == ["AC", "KC", "AD", "AH", "KH", "AS", "KS"]
    assert all(parse_card(card_str(c)) == c for c in range(52))


@pytest.mark.parametrize("text, card", [("as", 39), ("10h", 35), ("10H", 35), ("Q♦", 24), ("k♣", 12),
                                        ("2♥", 27), ("7♠", 45), (" TD ", 22), (51, 51)])
def test_parse_card_accepts_the_spec_forms(text, card):
    assert parse_card(text) == card


@pytest.mark.parametrize("bad", ["1S", "AX", "", "A", "11H", "ASS", "T", "♠A", "10"])
def test_parse_card_names_the_bad_token(bad):
    with pytest.raises(ValueError, match=f"bad card {bad!r}.*A23456789TJQK.*CDHS"):
        parse_card(bad)


@pytest.mark.parametrize("bad", [52, -1, True, 3.0, None])
def test_bad_card_ids_are_rejected(bad):
    with pytest.raises(ValueError, match="0..51"):
        parse_card(bad) if not isinstance(bad, int) or isinstance(bad, bool) else card_str(bad)


@pytest.mark.parametrize("deal", sorted(GOLDEN_DEALS))
def test_golden_deals(deal):
    assert deck_text(deal_deck(deal)) == GOLDEN_DEALS[deal]


def test_deal_numbers_accept_numpy_integers_and_reject_out_of_range():
    assert deal_deck(np.uint64(2**64 - 1)) == deal_deck(2**64 - 1)
    for bad in (-1, 2**64, 1.0, "1", True):
        with pytest.raises(ValueError, match=r"bad deal number .*0 <= deal < 2\*\*64"):
            deal_deck(bad)


def test_every_deal_is_a_permutation():
    for deal in range(200):
        assert sorted(deal_deck(deal)) == list(range(52))


def test_deck_forms_all_parse_to_the_same_ids():
    ids = deal_deck(1)
    text = GOLDEN_DEALS[1]
    assert parse_deck(ids) == ids
    assert parse_deck(np.array(ids)) == ids
    assert parse_deck(text) == ids
    assert parse_deck(text.split()) == ids
    assert parse_deck(text.lower()) == ids
    assert parse_deck(",".join(text.split())) == ids
    assert parse_deck(", ".join(text.split())) == ids
    assert parse_deck(deck_string(ids)) == ids


def test_klondike_solver_deck_string_round_trips():
    for deal in (0, 1, 2**64 - 1, 12345):
        ids = deal_deck(deal)
        text = deck_string(ids)
        assert len(text) == 156 and text.isdigit()
        assert parse_deck(text) == ids
        assert deck_string(parse_deck(text)) == text
    # 01-13 ranks, suits 1=C 2=D 3=H 4=S
    assert deck_string([0, 51] + list(range(1, 51)))[:6] == "011134"


def test_bad_decks_say_what_is_wrong():
    ids = deal_deck(0)
    with pytest.raises(ValueError, match="it has 51 cards, a deck has exactly 52"):
        parse_deck(ids[:51])
    with pytest.raises(ValueError, match="card 8S appears twice"):
        parse_deck([ids[0]] + ids[:51])
    with pytest.raises(ValueError, match="bad card 'XX'"):
        parse_deck(GOLDEN_DEALS[0].replace("JH", "XX"))
    with pytest.raises(ValueError, match="it has 153 digits.*156"):
        parse_deck(deck_string(ids)[:153])
    with pytest.raises(ValueError, match=r"'143' at position 0 is not RRS"):
        parse_deck("143" + deck_string(ids)[3:])
    with pytest.raises(ValueError, match="'015' at position 3"):
        parse_deck(deck_string(ids)[:3] + "015" + deck_string(ids)[6:])
    with pytest.raises(ValueError, match="bad deck"):
        parse_deck(7)


def test_klondike_solver_example_deals_as_documented():
    # the example of the Klondike-Solver deck format (ShootMe/Klondike-Solver README): columns row by
    # row, "7C is the first card to be turned over in the draw pile", suits 1=C 2=D 3=H 4=S
    from klondike_env import Game

    text = ("072103023042094134111092051034044074114052123011083122012131091082124064014093033112071104132"
            "053133102084041013073063031061043081054113062024021101022032121")
    game = Game.from_deck(text)
    columns = [" ".join(card_str(card) for card, _ in column) for column in game.tableau]
    assert columns == ["7D", "TH 9D", "2H 5C 5D", "4D 3S QH AD", "9S 4S AC KC QS", "KS 7S 8H 9C 6S 9H",
                       "JC JS QD 8D AS 3H JD"]
    assert [card_str(c) for c in game.stock[:8]] == ["7C", "TS", "KD", "5H", "KH", "TD", "8S", "4C"]
    assert game.deck_string() == text


@given(st.permutations(range(52)))
@settings(max_examples=300, deadline=None)
def test_any_deck_round_trips_through_every_text_form(deck):
    assert parse_deck(deck_string(deck)) == deck
    assert parse_deck(deck_text(deck)) == deck
    assert parse_deck(deck_text(deck).lower().split()) == deck


@given(st.integers(min_value=0, max_value=2**64 - 1))
@settings(max_examples=300, deadline=None)
def test_every_deal_number_gives_a_permutation(deal):
    assert sorted(deal_deck(deal)) == list(range(52))
