"""The rules (docs/contract.md "From a deck to the opening layout", "Rules", "Actions").

One case per test.

Positions are built from explicit decks (``conftest.position``) and reached by playing moves,
so every test runs through the same kernels a user does.
"""

from collections import deque

import numpy as np
import pytest
from conftest import ALL_RULES, position, random_playout

from klondike_env import Game, IllegalActionError, Rules, core, deal_deck, parse_card

DRAW, RECYCLE, WASTE_TO_FOUNDATION = core.DRAW, core.RECYCLE, core.WASTE_TO_FOUNDATION


def waste_to_column(col):
    return core.WASTE_TO_COLUMN + col


def column_to_foundation(col):
    return core.COLUMN_TO_FOUNDATION + col


def column_to_column(source, dest):
    return int(core.column_action(source, dest))


def foundation_to_column(suit, col):
    return core.FOUNDATION_TO_COLUMN + 7 * suit + col


def cards(*texts):
    return tuple(parse_card(t) for t in texts)


def face_up_cards(game, col):
    return tuple(card for card, up in game.tableau[col] if up)


# --- layout ------------------------------------------------------------------------
def test_deal_1_opening_layout():
    game = Game.new(1)
    deck = deal_deck(1)
    assert game.tableau[0] == ((parse_card("7D"), True),)
    column6 = game.tableau[6]
    assert len(column6) == 7 and column6[-1] == (parse_card("8S"), True)
    assert not any(up for _, up in column6[:-1])
    # row by row: column c holds deck[k] for the k dealt to it, its last card face up
    k = 0
    expected = [[] for _ in range(7)]
    for row in range(7):
        for col in range(row, 7):
            expected[col].append((deck[k], row == col))
            k += 1
    assert game.tableau == tuple(tuple(column) for column in expected)
    assert game.stock == tuple(deck[28:]) and game.waste == ()
    assert game.foundations == (0, 0, 0, 0) and game.passes == 1 and game.move_count == 0


def test_action_table_ids():
    assert core.NUM_ACTIONS == 87
    pairs = [(s, d) for s in range(7) for d in range(7) if s != d]
    assert sorted(column_to_column(s, d) for s, d in pairs) == list(range(17, 59))
    for s, d in pairs:
        action = column_to_column(s, d)
        assert (action - 17) // 6 == s and core.column_action_dest(s, (action - 17) % 6) == d
    assert foundation_to_column(3, 6) == 86


# --- draw and recycle --------------------------------------------------------------
def test_draw_three_only_the_top_plays_then_the_next():
    # 4C 5H AS drawn together: AS on top; 5D on column 0 would take the 4C, 6S on column 1 the 5H
    kings = {2: ["KC"], 3: ["KS"], 4: ["KH"], 5: ["KD"], 6: ["9C"]}  # take none of the three
    game = position({0: ["5D"], 1: ["6S"], **kings}, stock=["4C", "5H", "AS"])
    game.step(DRAW)
    assert game.waste == cards("4C", "5H", "AS")
    waste_moves = {a for a in game.legal_actions() if WASTE_TO_FOUNDATION <= a < core.COLUMN_TO_FOUNDATION}
    assert waste_moves == {WASTE_TO_FOUNDATION}
    game.step(WASTE_TO_FOUNDATION)
    assert waste_to_column(1) in game.legal_actions()  # the five is now the top
    assert waste_to_column(0) not in game.legal_actions()  # the four may not jump the five
    game.step(waste_to_column(1))
    assert waste_to_column(0) in game.legal_actions()


def test_a_stock_of_two_draws_two():
    game = position(stock=["2D", "3D", "AC"])
    game.step(DRAW)
    game.step(WASTE_TO_FOUNDATION)  # 23 talon cards left
    for _ in range(7):
        game.step(DRAW)
    game.step(RECYCLE)
    for _ in range(7):
        game.step(DRAW)
    assert len(game.stock) == 2
    last_two = game.stock
    game.step(DRAW)
    assert game.stock == () and game.waste[-2:] == last_two


def test_recycle_keeps_the_order_without_drawing():
    game = Game.new(5)
    talon = game.stock
    for _ in range(8):
        game.step(DRAW)
    assert game.waste == talon and game.stock == ()
    game.step(RECYCLE)
    assert game.stock == talon and game.waste == () and game.passes == 2
    game.step(DRAW)
    assert game.waste == talon[:3]


def test_next_pass_groups_shift_after_a_waste_card_leaves():
    stock = ["9D", "9H", "AC", "2S", "3S", "4S"]
    game = position(stock=stock)
    game.step(DRAW)
    game.step(WASTE_TO_FOUNDATION)
    game.step(DRAW)
    assert game.waste[-1] == parse_card("4S")  # first pass: groups end on AC, 4S, ...
    while game.stock:
        game.step(DRAW)
    game.step(RECYCLE)
    game.step(DRAW)
    assert game.waste == cards("9D", "9H", "2S")  # second pass: the group now ends on 2S


def _empty_talon_game(draw_count):
    """A position whose whole talon went to the foundations (ace..6 of each suit)."""
    order = [f"{rank}{suit}" for suit in "CDHS" for rank in "A23456"]
    if draw_count == 3:  # each group of three drawn shows its last card on top
        order = [card for i in range(0, 24, 3) for card in reversed(order[i : i + 3])]
    game = position({c: ["K" + "CDHS"[c % 4]] for c in range(4)}, stock=order, draw_count=draw_count)
    while game.stock or game.waste:
        game.step(DRAW) if not game.waste else game.step(WASTE_TO_FOUNDATION)
    assert game.foundations == (6, 6, 6, 6)
    return game


@pytest.mark.parametrize("draw_count", [1, 3])
def test_draw_with_stock_and_waste_empty_is_illegal(draw_count):
    game = _empty_talon_game(draw_count)
    assert DRAW not in game.legal_actions()
    with pytest.raises(IllegalActionError, match="illegal action 0 \\(draw\\): the stock is empty"):
        game.step(DRAW)


@pytest.mark.parametrize("draw_count", [1, 3])
def test_recycle_with_an_empty_waste_is_illegal(draw_count):
    game = _empty_talon_game(draw_count)
    assert RECYCLE not in game.legal_actions()
    with pytest.raises(IllegalActionError, match="illegal action 1 \\(recycle\\): the waste is empty"):
        game.step(RECYCLE)


def test_recycle_is_illegal_while_the_stock_has_cards():
    game = Game.new(3)
    game.step(DRAW)
    with pytest.raises(IllegalActionError, match="the stock is not empty"):
        game.step(RECYCLE)


@pytest.mark.parametrize("max_passes", [1, 2, 3])
def test_max_passes_stops_recycling(max_passes):
    game = Game.new(7, Rules(max_passes=max_passes))
    for trip in range(1, max_passes + 1):
        assert game.passes == trip
        while game.stock:
            game.step(DRAW)
        if trip < max_passes:
            game.step(RECYCLE)
    assert RECYCLE not in game.legal_actions()
    with pytest.raises(IllegalActionError, match=f"no passes remain \\(max_passes={max_passes}\\)"):
        game.step(RECYCLE)


# --- building on the tableau ---------------------------------------------------------
def test_red_jack_goes_on_a_black_queen_not_a_red_one():
    game = position({1: ["JH"], 2: ["QS"], 3: ["QD"]})
    legal = game.legal_actions()
    assert column_to_column(1, 2) in legal
    assert column_to_column(1, 3) not in legal


def _run_six_five(**options):
    """Column 1 ends in the face-up run 6S 5H (5H moved there from column 2)."""
    game = position({1: ["6S"], 2: ["5H"], 3: ["7D"], 4: ["7C"], 5: ["6C"]}, **options)
    game.step(column_to_column(2, 1))
    assert face_up_cards(game, 1) == cards("6S", "5H")
    return game


def test_a_run_moves_onto_a_red_seven_not_a_black_one():
    game = _run_six_five()
    legal = game.legal_actions()
    assert column_to_column(1, 4) not in legal  # 6S on 7C: same colour
    assert column_to_column(1, 3) in legal
    assert game.action_name(column_to_column(1, 3)) == "col 1 6S -> col 3 (2 cards)"
    game.step(column_to_column(1, 3))
    assert face_up_cards(game, 3) == cards("7D", "6S", "5H")
    assert len(game.tableau[1]) == 1 and game.tableau[1][0][1]  # the card under 6S turned up


def test_only_the_fitting_tail_of_a_run_moves():
    game = _run_six_five()
    # 6C takes the 5H alone: the 6S-5H block does not move as a unit onto it
    assert game.action_name(column_to_column(1, 5)) == "col 1 5H -> col 5 (1 card)"
    game.step(column_to_column(1, 5))
    assert face_up_cards(game, 1) == cards("6S")
    assert face_up_cards(game, 5) == cards("6C", "5H")


def test_a_block_whose_cards_do_not_fit_cannot_move():
    # 8H accepts a black seven; the run 6S 5H holds none, so neither the block nor a part moves
    game = position({1: ["6S"], 2: ["5H"], 3: ["8H"]})
    game.step(column_to_column(2, 1))
    assert column_to_column(1, 3) not in game.legal_actions()
    with pytest.raises(IllegalActionError, match="no face-up run of the source column fits"):
        game.step(column_to_column(1, 3))


def _with_empty_column_0(**options):
    """Column 0 emptied (its 5H went onto 6S in column 1); QD and a KC-QH run wait."""
    game = position({0: ["5H"], 1: ["6S"], 2: ["QD"], 3: ["KC"], 4: ["QH"]}, stock=["2S", "3S", "QS"], **options)
    game.step(column_to_column(0, 1))
    game.step(column_to_column(4, 3))
    assert game.tableau[0] == () and face_up_cards(game, 3) == cards("KC", "QH")
    return game


@pytest.mark.parametrize("draw_count", [1, 3])
def test_a_queen_cannot_start_an_empty_column_but_a_king_run_can(draw_count):
    game = _with_empty_column_0(draw_count=draw_count)
    legal = game.legal_actions()
    assert column_to_column(2, 0) not in legal
    assert column_to_column(1, 0) not in legal  # the 6S-5H run is not king-led
    assert column_to_column(3, 0) in legal
    while game.waste[-1:] != cards("QS"):  # the waste's queen may not start it either
        game.step(DRAW)
    assert waste_to_column(0) not in game.legal_actions()
    with pytest.raises(IllegalActionError, match="only a king starts an empty column"):
        game.step(waste_to_column(0))
    game.step(column_to_column(3, 0))
    assert face_up_cards(game, 0) == cards("KC", "QH")


def test_empty_column_any_takes_any_card_and_the_whole_run():
    game = _with_empty_column_0(empty_column="any")
    legal = game.legal_actions()
    assert {column_to_column(2, 0), column_to_column(1, 0), column_to_column(3, 0)} <= set(legal)
    game.step(column_to_column(1, 0))
    assert face_up_cards(game, 0) == cards("6S", "5H")


def test_a_king_that_heads_its_whole_column_may_move_to_an_empty_column():
    game = position({0: ["KD"], 1: ["7S", "6H"], 2: ["7C"], 3: ["8D"]})
    game.step(column_to_column(1, 2))  # 6H onto 7C; 7S turns up
    game.step(column_to_column(1, 3))  # 7S onto 8D; column 1 is empty
    assert game.tableau[1] == ()
    assert column_to_column(0, 1) in game.legal_actions()
    game.step(column_to_column(0, 1))
    assert game.tableau[0] == () and face_up_cards(game, 1) == cards("KD")


# --- foundations ------------------------------------------------------------------------
HEARTS_ACE_TO_QUEEN_IN_THREES = ["3H", "2H", "AH", "6H", "5H", "4H", "9H", "8H", "7H", "QH", "JH", "TH"]


def test_a_foundation_queen_takes_the_king_of_its_suit_only():
    game = position({1: ["KH"], 2: ["KD"]}, stock=HEARTS_ACE_TO_QUEEN_IN_THREES)
    for _ in range(4):
        game.step(DRAW)
        for _ in range(3):
            game.step(WASTE_TO_FOUNDATION)
    assert game.foundations == (0, 0, 12, 0)
    legal = game.legal_actions()
    assert column_to_foundation(2) not in legal
    assert column_to_foundation(1) in legal
    with pytest.raises(IllegalActionError, match="not the next one for its foundation"):
        game.step(column_to_foundation(2))
    game.step(column_to_foundation(1))
    assert game.foundations == (0, 0, 13, 0)


def test_an_ace_must_start_a_foundation():
    game = position({1: ["2C"], 2: ["AC"]})
    assert column_to_foundation(1) not in game.legal_actions()
    game.step(column_to_foundation(2))
    assert column_to_foundation(1) in game.legal_actions()


def test_a_foundation_card_comes_back_onto_a_column():
    game = position({0: ["2D"], 1: ["AC"]})
    game.step(column_to_foundation(1))
    assert foundation_to_column(0, 0) in game.legal_actions()
    assert foundation_to_column(0, 2) not in game.legal_actions()
    game.step(foundation_to_column(0, 0))
    assert game.foundations == (0, 0, 0, 0)
    assert face_up_cards(game, 0) == cards("2D", "AC")


def test_foundation_to_tableau_can_be_forbidden():
    game = position({0: ["2D"], 1: ["AC"]}, foundation_to_tableau=False)
    game.step(column_to_foundation(1))
    assert not any(a >= core.FOUNDATION_TO_COLUMN for a in game.legal_actions())
    with pytest.raises(IllegalActionError, match="forbid moves from a foundation to the tableau"):
        game.step(foundation_to_column(0, 0))


# --- flips -------------------------------------------------------------------------------
def test_a_move_that_uncovers_a_face_down_card_flips_it():
    game = position({2: ["QC", "9S", "5H"], 3: ["6S"]})
    state = game._state.copy()
    flipped = core.apply_action(state, game._rules_array, column_to_column(2, 3))
    assert flipped == 1
    game.step(column_to_column(2, 3))
    assert game.tableau[2] == ((parse_card("QC"), False), (parse_card("9S"), True))


def test_a_move_to_a_foundation_flips_too_and_emptying_a_column_flips_nothing():
    game = position({0: ["AS"], 1: ["7D", "AD"]})
    state = game._state.copy()
    assert core.apply_action(state, game._rules_array, column_to_foundation(0)) == 0
    game.step(column_to_foundation(1))
    assert game.tableau[1] == ((parse_card("7D"), True),)


# --- won and dead --------------------------------------------------------------------------
BLACK_TOPS = {c: [top] for c, top in enumerate(["KC", "KS", "QC", "QS", "JC", "JS", "TC"])}


def _stock_showing(shown):
    """A 24-card stock whose draw-3 tops are ``shown`` (8 cards); red low cards in between."""
    filler = ["2D", "3D", "4D", "5D", "6D", "7D", "8D", "2H", "3H", "4H", "5H", "6H", "7H", "8H", "AD", "AH"]
    return [card for i in range(8) for card in (filler[2 * i], filler[2 * i + 1], shown[i])]


def test_a_dead_position_is_recognised_at_once():
    # black tops take only red cards; in draw-3 only every third stock card shows, all black
    stock = _stock_showing(["2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S"])
    game = position(BLACK_TOPS, stock=stock)
    assert game.legal_actions() == [DRAW]
    assert game.is_dead and not game.is_won and _dead_by_search(game)
    # the same deal in draw-1 shows every card, aces included: not dead
    assert not position(BLACK_TOPS, stock=stock, draw_count=1).is_dead


def test_a_card_reachable_only_after_a_recycle_is_not_dead():
    stock = _stock_showing(["AC", "3S", "4S", "5S", "6S", "7S", "8S", "9S"])
    game = position(BLACK_TOPS, stock=stock)
    game.step(DRAW)
    assert WASTE_TO_FOUNDATION in game.legal_actions()
    game.step(DRAW)  # the ace is buried; it shows again only on the next pass
    assert game.legal_actions() == [DRAW]
    assert not game.is_dead and not _dead_by_search(game)
    # with a single pass the ace never shows again
    limited = position(BLACK_TOPS, stock=stock, max_passes=1)
    limited.step(DRAW)
    limited.step(DRAW)
    assert limited.is_dead and _dead_by_search(limited)


def test_a_won_game_is_won_and_not_dead():
    # deal a deck whose stock is every card in foundation order, in draw-1: play it all home
    order = [13 * suit + rank for suit in range(4) for rank in range(13)]
    game = Game.from_deck(_deck_with_tableau_last(order), Rules(draw_count=1))
    moves = 0
    while not game.is_won and moves < 400:
        legal = game.legal_actions()
        home = [a for a in legal if a == WASTE_TO_FOUNDATION or core.COLUMN_TO_FOUNDATION <= a < core.COLUMN_TO_COLUMN]
        game.step(home[0] if home else legal[0])
        moves += 1
    assert game.is_won and not game.is_dead and game.foundations == (13, 13, 13, 13)
    # the rules still let a king come down to an empty column; nothing else can move
    assert game.legal_actions() == [foundation_to_column(suit, col) for suit in range(4) for col in range(7)]


def _deck_with_tableau_last(order):
    """A deck whose stock holds ``order[:24]`` (drawn in order) and whose tableau holds the rest
    dealt so that each column, read top-down, continues the foundation order."""
    deck = [None] * 52
    deck[28:] = order[:24]
    rest = order[24:]  # 28 cards; the tableau must release them in this order
    # fill columns so the face-up cards come first in ``rest``: release column by column,
    # each column from its top (last dealt) to its bottom
    position_of = {}
    k = 0
    for row in range(7):
        for col in range(row, 7):
            position_of[(row, col)] = k
            k += 1
    index = 0
    for col in range(7):
        for row in range(col, -1, -1):
            deck[position_of[(row, col)]] = rest[index]
            index += 1
    return deck


# --- brute-force references for the property tests -------------------------------------------
def _dead_by_search(game: Game) -> bool:
    """Explore draws and recycles only, over copies: is a card move ever legal?"""
    if game.is_won:
        return False
    key_size = core.RECYCLES if game.rules.max_passes is None else core.MOVES  # unlimited: recycles don't matter
    seen = set()
    queue = deque([game.copy()])
    while queue:
        current = queue.popleft()
        key = current._state[:key_size].tobytes()
        if key in seen:
            continue
        seen.add(key)
        legal = current.legal_actions()
        if any(a > RECYCLE for a in legal):
            return False
        for action in legal:
            nxt = current.copy()
            nxt.step(action)
            queue.append(nxt)
    return True


def _reference_moves(game: Game) -> dict[int, int]:
    """Legal actions read straight off docs/contract.md, naively, from the public properties.

    A second, independent statement of the rules, kept deliberately simple, so the
    kernels' bit tricks are checked against something other than themselves. Maps
    each legal action to the number of cards it moves (0 for draw and recycle).
    """
    rules, tableau, foundations = game.rules, game.tableau, game.foundations

    def rank(card):
        return card % 13 + 1

    def red(card):
        return card // 13 in (1, 2)

    def goes_home(card):
        return foundations[card // 13] == rank(card) - 1

    def fits(card, col):
        if not tableau[col]:
            return rules.empty_column == "any" or rank(card) == 13
        top = tableau[col][-1][0]
        return rank(top) == rank(card) + 1 and red(top) != red(card)

    def is_run(cards):
        return all(rank(a) == rank(b) + 1 and red(a) != red(b) for a, b in zip(cards, cards[1:]))

    moves = {}
    if game.stock:
        moves[DRAW] = 0
    elif game.waste and (rules.max_passes is None or game.passes < rules.max_passes):
        moves[RECYCLE] = 0
    if game.waste:
        top = game.waste[-1]
        if goes_home(top):
            moves[WASTE_TO_FOUNDATION] = 1
        moves.update({waste_to_column(col): 1 for col in range(7) if fits(top, col)})
    for source, column in enumerate(tableau):
        if column and goes_home(column[-1][0]):
            moves[column_to_foundation(source)] = 1
        face_up = [card for card, up in column if up]
        all_tails = [face_up[i:] for i in range(len(face_up)) if is_run(face_up[i:])]
        for dest in range(7):
            tails = all_tails
            if not tableau[dest] and rules.empty_column == "any":
                tails = tails[:1]  # onto an empty column under "any": the whole run
            fitting = [tail for tail in tails if dest != source and fits(tail[0], dest)]
            assert len(fitting) <= 1
            if fitting:
                moves[column_to_column(source, dest)] = len(fitting[0])
    if rules.foundation_to_tableau:
        for suit, height in enumerate(foundations):
            if height:
                moves.update({foundation_to_column(suit, col): 1 for col in range(7) if fits(13 * suit + height - 1, col)})
    return moves


def _check_invariants(game: Game):
    tableau = game.tableau
    everything = [card for column in tableau for card, _ in column] + list(game.stock) + list(game.waste)
    everything += [13 * suit + rank for suit, height in enumerate(game.foundations) for rank in range(height)]
    assert sorted(everything) == list(range(52)), "every card exactly once"
    for column in tableau:
        if column:
            assert column[-1][1], "a column's last card is face up"
        ups = [card for card, up in column if up]
        downs = [up for _, up in column[: len(column) - len(ups)]]
        assert not any(downs), "face-down cards lie under the face-up ones"
        for upper, lower in zip(ups, ups[1:]):
            assert upper % 13 == lower % 13 + 1, "face-up cards descend by one"
            assert (upper // 13 in (1, 2)) != (lower // 13 in (1, 2)), "face-up cards alternate colour"
    assert len(game.stock) + len(game.waste) + sum(game.foundations) + sum(map(len, tableau)) == 52


def _random_games(count, seed, max_moves):
    rng = np.random.default_rng(seed)
    for i in range(count):
        game = Game.new(int(rng.integers(2**63)), ALL_RULES[i % len(ALL_RULES)])
        yield game, random_playout(game, rng, max_moves)


def test_property_cards_once_face_up_runs_valid_and_moves_as_the_spec_reads():
    positions = 0
    for game, playout in _random_games(400, seed=11, max_moves=250):
        _check_invariants(game)
        for step_index, _ in enumerate(playout):
            _check_invariants(game)
            if step_index % 3 == 0:
                assert set(game.legal_actions()) == set(_reference_moves(game))
            positions += 1
    assert positions > 50_000


def test_property_legal_actions_are_exactly_the_accepted_steps():
    checked = 0
    for game, playout in _random_games(100, seed=12, max_moves=250):
        for step_index, _ in enumerate(playout):
            if step_index % 5:
                continue
            legal = set(game.legal_actions())
            assert set(np.flatnonzero(game.action_mask())) == legal
            reference = _reference_moves(game)
            assert legal == set(reference), (sorted(legal), sorted(reference))
            before = game.copy()
            for action in range(core.NUM_ACTIONS):
                trial = game.copy()
                try:
                    trial.step(action)
                    accepted = True
                except IllegalActionError:
                    accepted = False
                    assert trial == before and trial.move_count == before.move_count
                assert accepted == (action in legal), (action, game.action_name(action))
                if accepted and core.COLUMN_TO_COLUMN <= action < core.FOUNDATION_TO_COLUMN:
                    dest = core.column_action_dest((action - 17) // 6, (action - 17) % 6)
                    assert len(trial.tableau[dest]) - len(game.tableau[dest]) == reference[action]
            checked += 1
    assert checked > 2000


def test_property_is_dead_agrees_with_brute_force_search():
    checked = dead = 0
    for game, playout in _random_games(600, seed=13, max_moves=250):
        for step_index, _ in enumerate(playout):
            if step_index % 4 and not game.is_dead:
                continue
            assert game.is_dead == _dead_by_search(game), game.state
            checked += 1
            dead += game.is_dead
    assert checked > 5000 and dead > 50


def _walk_by_playing(game: Game) -> tuple[list[int], list[int]]:
    """The waste lengths that playing draws, then one recycle and draws, actually goes through."""
    walk = game.copy()
    forward = [len(walk.waste)]
    while walk.action_mask()[core.DRAW]:
        walk.step(core.DRAW)
        forward.append(len(walk.waste))
    after_recycle = []
    if walk.action_mask()[core.RECYCLE]:
        walk.step(core.RECYCLE)
        while walk.action_mask()[core.DRAW]:
            walk.step(core.DRAW)
            after_recycle.append(len(walk.waste))
    return forward, after_recycle


def test_property_talon_walk_lists_the_waste_lengths_draws_and_one_recycle_go_through():
    checked = recycled = 0
    for game, playout in _random_games(200, seed=14, max_moves=250):
        for step_index, _ in enumerate(playout):
            if step_index % 7:
                continue
            draw_count = game.rules.draw_count
            forward, total = core.talon_walk(game._state, draw_count, core.recycle_allowed(game._state, game._rules_array))
            lengths = [core.talon_walk_length(game._state, draw_count, forward, step) for step in range(total)]
            expected_forward, expected_after = _walk_by_playing(game)
            assert lengths[:forward] == expected_forward, game.state
            # an empty talon has nothing to recycle, which the walk lists as nothing after the recycle
            assert lengths[forward:] == expected_after, game.state
            checked += 1
            recycled += bool(expected_after)
    assert checked > 3000 and recycled > 1000
