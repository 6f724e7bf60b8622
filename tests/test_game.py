"""``Game``: steps and their errors, undo, names, copies, text, and what the player knows."""

import math

import numpy as np
import pytest
from conftest import ALL_RULES, position, random_playout

from klondike_env import Game, IllegalActionError, Rules, action_name, card_str, core, deal_deck, parse_card
from klondike_env.game import NothingToUndoError

DRAW, RECYCLE = core.DRAW, core.RECYCLE


def snapshot(game: Game):
    """Everything observable about a position, move counter included."""
    return (game.tableau, game.stock, game.waste, game.foundations, game.passes, game.move_count)


# --- construction --------------------------------------------------------------------
def test_new_and_from_deck_agree():
    game = Game.new(1)
    assert game.deal == 1 and game.deck == tuple(deal_deck(1))
    same = Game.from_deck(game.deck_string())
    assert same == game and same.deal is None
    assert Game.from_deck(list(game.deck)) == game


def test_bad_construction_input_is_a_clear_value_error():
    with pytest.raises(ValueError, match="bad deal number -1"):
        Game.new(-1)
    with pytest.raises(ValueError, match="bad deck: it has 3 cards"):
        Game.from_deck("AS KS QS")
    with pytest.raises(ValueError, match="bad rules .*expected a klondike_env.Rules"):
        Game.new(1, rules={"draw_count": 1})
    with pytest.raises(ValueError, match="card AC appears twice"):
        Game([0] * 52)  # the constructor checks its deck too


# --- step errors ---------------------------------------------------------------------------
@pytest.mark.parametrize("bad, message", [
    (87, "action ids are 0..86"),
    (-1, "action ids are 0..86"),
    ("3", "an action is an integer id in 0..86"),
    (2.0, "an action is an integer id in 0..86"),
    (True, "an action is an integer id in 0..86"),
    (None, "an action is an integer id in 0..86"),
])
def test_out_of_range_actions_are_rejected(bad, message):
    game = Game.new(2)
    with pytest.raises(IllegalActionError, match=message):
        game.step(bad)
    with pytest.raises(IllegalActionError):
        action_name(bad)


def test_an_illegal_step_names_the_action_and_changes_nothing():
    game = Game.new(2)
    game.step(DRAW)
    before, history = snapshot(game), len(game._history)
    with pytest.raises(IllegalActionError, match=r"illegal action 1 \(recycle\): the stock is not empty"):
        game.step(RECYCLE)
    assert snapshot(game) == before and len(game._history) == history
    assert isinstance(IllegalActionError("x"), ValueError)


def test_numpy_integer_actions_are_accepted():
    game = Game.new(2)
    game.step(np.int64(DRAW))
    game.step(np.uint8(DRAW))
    assert game.move_count == 2


# --- undo ----------------------------------------------------------------------------------
def test_undo_of_a_three_card_draw_restores_all_three():
    game = Game.new(4)
    game.step(DRAW)
    game.step(DRAW)
    assert len(game.waste) == 6
    before = snapshot(game)
    game.step(DRAW)
    assert len(game.waste) == 9
    game.undo()
    assert snapshot(game) == before and len(game.stock) == 18


def test_undo_takes_back_a_flip_with_its_move():
    game = position({2: ["QC", "9S", "5H"], 3: ["6S"]})
    before = snapshot(game)
    game.step(int(core.column_action(2, 3)))
    assert game.tableau[2][-1] == (parse_card("9S"), True)
    game.undo()
    assert snapshot(game) == before
    assert game.tableau[2][-2:] == ((parse_card("9S"), False), (parse_card("5H"), True))


def test_undo_at_the_start_is_a_clear_error():
    game = Game.new(4)
    with pytest.raises(NothingToUndoError, match="nothing to undo"):
        game.undo()
    assert issubclass(NothingToUndoError, IndexError)
    game.step(DRAW)
    game.undo()
    with pytest.raises(NothingToUndoError):
        game.undo()
    game.step(DRAW)
    world = game.sample_world(0)  # a sampled world starts with an empty history
    with pytest.raises(NothingToUndoError):
        world.undo()


def test_property_undo_returns_every_earlier_position():
    rng = np.random.default_rng(21)
    for i in range(300):
        game = Game.new(int(rng.integers(2**63)), ALL_RULES[i % len(ALL_RULES)])
        trail = [(snapshot(game), game.copy())]
        for _ in random_playout(game, rng, int(rng.integers(1, 150))):
            trail.append((snapshot(game), game.copy()))
        trail.pop()
        while trail:
            game.undo()
            seen, copy = trail.pop()
            assert snapshot(game) == seen and game == copy
            assert game.legal_actions() == copy.legal_actions()
        with pytest.raises(NothingToUndoError):
            game.undo()


# --- names -------------------------------------------------------------------------------------
def test_every_action_has_a_name():
    names = [action_name(a) for a in range(core.NUM_ACTIONS)]
    assert len(set(names)) == core.NUM_ACTIONS
    assert names[:4] == ["draw", "recycle", "waste -> foundation", "waste -> col 0"]
    assert names[10] == "col 0 -> foundation"
    assert names[17] == "col 0 -> col 1" and names[22] == "col 0 -> col 6" and names[23] == "col 1 -> col 0"
    assert names[58] == "col 6 -> col 5"
    assert names[59] == "foundation ♣ -> col 0" and names[86] == "foundation ♠ -> col 6"


def test_names_in_a_game_say_which_cards_move():
    game = position({1: ["6S"], 2: ["5H"], 3: ["7D"]}, stock=["2D", "3D", "AC"])
    game.step(int(core.column_action(2, 1)))
    assert game.action_name(int(core.column_action(1, 3))) == "col 1 6S -> col 3 (2 cards)"
    assert game.action_name(int(core.column_action(1, 2))) == "col 1 5H -> col 2"  # not legal: the top card
    assert game.action_name(int(core.column_action(2, 1))) == "col 2 9C -> col 1"  # the card turned up
    game.step(DRAW)
    assert game.action_name(core.WASTE_TO_FOUNDATION) == "waste AC -> foundation"
    game.step(core.WASTE_TO_FOUNDATION)
    assert game.action_name(core.COLUMN_TO_FOUNDATION + 1) == "col 1 5H -> foundation"
    assert game.action_name(core.FOUNDATION_TO_COLUMN + 7 * 0 + 3) == "foundation ♣ AC -> col 3"
    assert game.action_name(core.FOUNDATION_TO_COLUMN + 7 * 3 + 3) == "foundation ♠ -> col 3"  # none home


# --- copies and equality ---------------------------------------------------------------------
def test_copy_is_independent():
    game = Game.new(6)
    copy = game.copy()
    copy.step(DRAW)
    assert game.stock != copy.stock and game.move_count == 0
    copy.undo()
    assert copy == game


def test_a_copy_keeps_its_own_undo_history():
    game = Game.new(1)
    game.step(DRAW)
    copy = game.copy()
    game.undo()
    game.step(DRAW)
    game.step(DRAW)
    copy.undo()
    assert copy == Game.new(1) and snapshot(copy) == snapshot(Game.new(1))


def test_equality_compares_positions_and_rules_not_move_counts():
    game = Game.new(6)
    drawn = game.copy()
    for _ in range(8):
        drawn.step(DRAW)
    drawn.step(RECYCLE)  # back to a full stock, but on pass 2
    assert drawn != game
    other = Game.new(6)
    other.step(DRAW)
    same_place = Game.new(6)
    same_place.step(DRAW)
    same_place.step(DRAW)
    same_place.undo()
    assert other == same_place and hash(other) == hash(same_place)
    assert Game.new(6) != Game.new(6, Rules(draw_count=1))
    assert Game.new(6) != Game.new(7)
    assert Game.new(6) != "a game"


def test_equality_ignores_the_move_counter():
    game = position({0: ["2D"], 1: ["AC"]})
    game.step(core.COLUMN_TO_FOUNDATION + 1)
    there = game.copy()
    game.step(core.FOUNDATION_TO_COLUMN + 0)  # the ace comes back onto 2D ...
    game.step(core.COLUMN_TO_FOUNDATION + 0)  # ... and goes home again
    assert game == there and game.move_count == there.move_count + 2


# --- text --------------------------------------------------------------------------------------
def test_str_shows_columns_waste_foundations_stock_and_pass():
    game = Game.new(1)
    text = str(game)
    assert "##" in text and "7D" in text and "8S" in text
    assert "Stock 24" in text and "Pass 1" in text
    game.step(DRAW)
    text = str(game)
    assert "Stock 21" in text and " ".join(card_str(c) for c in game.waste) in text
    assert repr(game).startswith("<Game deal=1")


# --- information ------------------------------------------------------------------------------
def test_known_and_hidden_cards_follow_the_spec():
    game = Game.new(1)
    deck = deal_deck(1)
    tops = {deck[k] for k in (0, 7, 13, 18, 22, 25, 27)}
    assert set(np.flatnonzero(game.known_cards())) == tops
    assert len(game.hidden_cards()) == 45 and set(game.hidden_cards()) == set(range(52)) - tops
    game.step(DRAW)
    assert set(deck[28:31]) <= set(np.flatnonzero(game.known_cards()))  # the whole fan is seen
    assert len(game.hidden_cards()) == 42
    while game.stock:
        game.step(DRAW)
    game.step(RECYCLE)
    assert len(game.hidden_cards()) == 21  # after a pass the whole talon is known
    assert game.known_cards().dtype == bool and game.known_cards().shape == (52,)


def _counts(game):
    return (tuple(len(c) for c in game.tableau), tuple(sum(not up for _, up in c) for c in game.tableau),
            len(game.stock), len(game.waste), game.foundations, game.passes, game.move_count)


def _known_places(game):
    """Every known card and where it lies."""
    known = game.known_cards()
    places = {}
    for col, column in enumerate(game.tableau):
        for depth, (card, up) in enumerate(column):
            if known[card]:
                places[card] = ("col", col, depth, up)
    for i, card in enumerate(game.stock):
        if known[card]:
            places[card] = ("stock", i)
    for i, card in enumerate(game.waste):
        places[card] = ("waste", i)
    return places


def test_property_sample_world_keeps_what_the_player_knows():
    rng = np.random.default_rng(31)
    checked = 0
    for i in range(200):
        game = Game.new(int(rng.integers(2**63)), ALL_RULES[i % len(ALL_RULES)])
        actions = []
        for action in random_playout(game, rng, int(rng.integers(0, 200))):
            actions.append(action)
        for _ in range(3):
            world = game.sample_world(rng)
            assert _counts(world) == _counts(game)
            assert np.array_equal(world.known_cards(), game.known_cards())
            assert _known_places(world) == _known_places(game)
            assert set(world.hidden_cards()) == set(game.hidden_cards())
            assert world.rules == game.rules and world.deal is None and world._history == []
            replay = Game.from_deck(world.deck, game.rules)
            for action in actions:
                replay.step(action)
            assert replay == world and replay.move_count == world.move_count
            assert replay.legal_actions() == world.legal_actions()
            checked += 1
    assert checked == 600


def test_sample_world_with_nothing_hidden_is_the_same_position():
    game = _empty_hidden_game()
    assert game.hidden_cards() == []
    assert game.sample_world(0) == game


def _empty_hidden_game():
    """A position with no hidden card: all face-down cards uncovered, whole talon seen."""
    order = [13 * suit + rank for suit in range(4) for rank in range(13)]
    deck = [None] * 52
    deck[28:] = order[:24]
    k, position_of = 0, {}
    for row in range(7):
        for col in range(row, 7):
            position_of[(row, col)] = k
            k += 1
    rest = iter(order[24:])
    for col in range(7):
        for row in range(col, -1, -1):
            deck[position_of[(row, col)]] = next(rest)
    game = Game.from_deck(deck, Rules(draw_count=1))
    while game.hidden_cards():
        legal = game.legal_actions()
        home = [a for a in legal if a == core.WASTE_TO_FOUNDATION or core.COLUMN_TO_FOUNDATION <= a < core.COLUMN_TO_COLUMN]
        game.step(home[0] if home else legal[0])
    return game


def _chi_square_critical(df: int, z: float = 3.719) -> float:
    """Upper 0.9999 quantile of chi-square (Wilson-Hilferty approximation; z is the normal quantile)."""
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


@pytest.mark.parametrize("draws", [0, 3])
def test_sample_world_places_hidden_cards_uniformly(draws):
    game = Game.new(1)
    for _ in range(draws):
        game.step(DRAW)
    hidden = game.hidden_cards()
    index = {card: i for i, card in enumerate(hidden)}
    samples = 60 * len(hidden)
    rng = np.random.default_rng(41)
    # three hidden places: the bottom of column 6, a face-down card of column 3, the next stock card
    counts = np.zeros((3, len(hidden)))
    for _ in range(samples):
        world = game.sample_world(rng)
        tableau = world.tableau
        for row, card in enumerate((tableau[6][0][0], tableau[3][1][0], world.stock[0])):
            counts[row, index[card]] += 1
    expected = samples / len(hidden)
    chi_square = ((counts - expected) ** 2 / expected).sum(axis=1)
    assert (chi_square < _chi_square_critical(len(hidden) - 1)).all(), chi_square
    assert (counts.sum(axis=1) == samples).all()  # every sample counted (a fixed placement fails above)
