"""The Thoughtful solver: verdicts that hold, solutions that replay, budgets that never lie."""

from __future__ import annotations

import csv
import importlib
import pkgutil

import numpy as np
import pytest

import klondike_env.solver
from klondike_env import Game, Rules, SolveResult, SolveStatus, core, parse_card, solve
from klondike_env.data import verdict_file
from klondike_env.solver import SolverInputError, api, best_first, classes, depth_first, keys, schedule, table

SOLVER_MODULES = [importlib.import_module(f"klondike_env.solver.{info.name}")
                  for info in pkgutil.iter_modules(klondike_env.solver.__path__)]


def tune(monkeypatch, **values) -> None:
    """Set the solver's tunable constants (and classes) for one test, in every module of the
    package that imported them."""
    for name, value in values.items():
        holders = [module for module in SOLVER_MODULES if hasattr(module, name)]
        assert holders, name
        for module in holders:
            monkeypatch.setattr(module, name, value)


# Deals pinned by solving with a variant of the rules that forbids the move (found by
# `python -m klondike_env.solver_examples --deals 1-1500 --node-limit 100000`).
DEALS_NEEDING_A_RECYCLE_DRAW3 = (3, 4, 5)
DEAL_NEEDING_WORRYING_BACK_DRAW3 = 1097


def make_position(columns, foundations=(0, 0, 0, 0), talon=(), waste_length=0, rules=None) -> Game:
    """A Game at a hand-built position.

    ``columns``: up to 7 lists of card texts, bottom first; a text ending in ``"!"`` is face
    down (face-down cards must come before the face-up ones). ``talon``: card texts in draw
    order, of which the first ``waste_length`` are the waste.
    """
    game = Game.new(0, rules)
    state = game._state
    core.clear_state(state)
    for col, cards in enumerate(columns):
        down = sum(text.endswith("!") for text in cards)
        for depth, text in enumerate(cards):
            state[core.TABLEAU + core.COLUMN_SLOTS * col + depth] = parse_card(text.rstrip("!"))
        state[core.COLUMN_LENGTH + col] = len(cards)
        state[core.COLUMN_DOWN + col] = down
    for i, text in enumerate(talon):
        state[core.TALON + i] = parse_card(text)
    state[core.TALON_LENGTH] = len(talon)
    state[core.WASTE_LENGTH] = waste_length
    state[core.FOUNDATION : core.FOUNDATION + 4] = foundations
    game._history = []
    game._mask_valid = False
    used = sorted(int(c) for c in state[: core.COLUMN_LENGTH] if c >= 0)
    used += [int(c) for c in state[core.TALON : core.TALON + len(talon)]]
    used += [13 * suit + rank for suit in range(4) for rank in range(foundations[suit])]
    assert sorted(used) == list(range(52)), "a hand-built position must hold every card once"
    return game


def assert_replays_to_a_win(game: Game, result: SolveResult) -> None:
    assert result.status == SolveStatus.SOLVED
    game = game.copy()
    for action in result.actions:
        game.step(action)  # raises on an illegal action
    assert game.is_won


# --- solutions replay -----------------------------------------------------------
@pytest.mark.parametrize("draw", [3, 1])
def test_every_solved_deal_replays_to_a_win(draw):
    rules = Rules(draw_count=draw)
    solved = 0
    for deal in range(1, 41):
        result = solve(deal, rules, node_limit=60_000)
        assert isinstance(result.status, SolveStatus)
        if result.status == SolveStatus.SOLVED:
            assert_replays_to_a_win(Game.new(deal, rules), result)
            solved += 1
    assert solved >= 25  # most deals are won within this budget


def test_solutions_replay_from_mid_game_positions():
    rng = np.random.default_rng(7)
    solved = 0
    for deal in range(50, 62):
        game = Game.new(deal)
        for _ in range(int(rng.integers(5, 40))):
            legal = game.legal_actions()
            if not legal or game.is_won:
                break
            game.step(int(rng.choice(legal)))
        result = solve(game, node_limit=40_000)
        if result.status == SolveStatus.SOLVED:
            assert_replays_to_a_win(game, result)
            solved += 1
    assert solved >= 5  # 8 of the 12 when written


def test_a_deck_a_deal_number_and_a_game_give_the_same_search():
    by_number = solve(3, node_limit=20_000)
    by_deck = solve(Game.new(3).deck_string(), node_limit=20_000)
    by_game = solve(Game.new(3), node_limit=20_000)
    assert by_number.actions == by_deck.actions == by_game.actions
    assert by_number.status == SolveStatus.SOLVED


@pytest.mark.parametrize("by_class", [True, False])
def test_actions_false_gives_the_same_verdict_without_the_line(by_class):
    for deal in (3, 5, 66):
        full = solve(deal, node_limit=20_000, by_class=by_class)
        bare = solve(deal, node_limit=20_000, by_class=by_class, actions=False)
        assert (bare.status, bare.nodes, bare.stopped_by) == (full.status, full.nodes, full.stopped_by)
        assert bare.actions == []
    assert full.status != SolveStatus.SOLVED or full.actions


# --- hand-built positions with known answers --------------------------------------
def test_trivial_endgame_is_solved():
    # every card home but the four kings, one per column
    game = make_position([["KC"], ["KD"], ["KH"], ["KS"]], foundations=(12, 12, 12, 12))
    result = solve(game)
    assert_replays_to_a_win(game, result)
    assert len(result.actions) == 4


def test_king_buried_on_its_ace_with_no_way_round_is_unsolvable():
    # Column 0 is KS on a face-down AS. Every other card but the spades is home. The other
    # spades fill columns 1-6 and the stock: a spade fits only on a red card, every red card
    # is home and can come back only onto a black card one rank up (a spade) or, as a red
    # king, onto an empty column -- and no column can ever be emptied, since no spade can go
    # home before AS. So KS never moves and AS is never freed.
    columns = [["AS!", "KS"], ["2S"], ["3S!", "5S"], ["6S"], ["7S!", "8S"], ["9S"], ["TS"]]
    game = make_position(columns, foundations=(13, 13, 13, 0), talon=["JS", "QS", "4S"])
    result = solve(game)
    assert result.status == SolveStatus.UNSOLVABLE
    assert result.stopped_by is None


def test_a_card_buried_above_its_lower_suit_card_and_both_holders_is_unsolvable():
    # Deal 110: a card with a lower card of its suit and both of its holders beneath it in
    # its column can never leave it (docs/solver.md has the proof).
    result = solve(110)
    assert result.status == SolveStatus.UNSOLVABLE and result.nodes == 1
    # The same by hand: 7C covers 4C and both red 8s; the rest waits in the talon.
    foundations = (3, 7, 7, 13)
    rest = [f"{r}{s}" for s, height in zip("CDHS", foundations) for r in "A23456789TJQK"[height:]]
    talon = [card for card in rest if card not in {"8H", "8D", "4C", "7C"}]
    game = make_position([["8H!", "8D!", "4C!", "7C"]], foundations=foundations, talon=talon)
    assert solve(game).status == SolveStatus.UNSOLVABLE
    assert solve(game, Rules(empty_column="any")).status == SolveStatus.SOLVED


def test_a_deadlock_across_two_columns_is_unsolvable_at_the_root():
    # QD covers KS over JD, QH covers KC over JH: each queen's only free holder is under the
    # other queen, and its lower card is beneath it (docs/solver.md, "Cards stuck for good").
    # No single column shows a card with its lower card and both holders beneath it.
    columns = [["JD!", "KS!", "QD"], ["JH!", "KC!", "QH"]]
    for rules in (Rules(), Rules(foundation_to_tableau=False)):
        game = make_position(columns, foundations=(12, 10, 10, 12), talon=["KD", "KH"], rules=rules)
        result = solve(game)
        assert result.status == SolveStatus.UNSOLVABLE and result.nodes == 1
    assert brute_force_winnable(game) is False
    # with one holder free (KC in the talon instead) the same cards can be won
    free = make_position([["JD!", "KS!", "QD"], ["JH!", "QH"]], foundations=(12, 10, 10, 12),
                         talon=["KD", "KH", "KC"])
    assert_replays_to_a_win(free, solve(free))


def test_kings_waiting_for_an_empty_column_that_never_comes_are_unsolvable_at_the_root():
    # Each king covers the five of its suit and a queen; each jack lies on the six of its suit
    # and needs a queen of the other colour, all four under the kings. A king leaves only for an
    # empty column, and every other column holds a card that cannot leave before a king does
    # (docs/solver.md, "Cards stuck for good", the empty-column way out).
    kings = [["QD!", "5H!", "KH"], ["QC!", "5S!", "KS"], ["QH!", "5D!", "KD"], ["QS!", "5C!", "KC"]]

    def position(columns):
        used = {text.rstrip("!") for column in columns for text in column}
        talon = [f"{r}{s}" for s in "CDHS" for r in "56789TJQK" if f"{r}{s}" not in used]
        return make_position(columns, foundations=(4, 4, 4, 4), talon=talon)

    stuck = position(kings + [["6S!", "JS"], ["6H!", "JH"], ["6D!", "JD"]])
    result = solve(stuck)
    assert result.status == SolveStatus.UNSOLVABLE and result.nodes == 1
    # with the seventh column empty a king gets out, and the deal is won
    free = position(kings + [["6S!", "JS"], ["6H!", "JH"]])
    assert_replays_to_a_win(free, solve(free))


def test_talon_cards_that_draws_never_reach_are_unsolvable_at_the_root():
    # Only JS, KS, QS are out, in the talon in that draw order. Draw-3 brings only QS to the
    # waste top; QS cannot go home before JS, and its holders (red kings) are home for good
    # when worrying back is forbidden. No other talon card can leave first, so JS and KS are
    # never reached (docs/solver.md, "Cards stuck for good", talon cards).
    talon = ["JS", "KS", "QS"]
    forbidden = Rules(foundation_to_tableau=False)
    game = make_position([], foundations=(13, 13, 13, 10), talon=talon, rules=forbidden)
    result = solve(game)
    assert result.status == SolveStatus.UNSOLVABLE and result.nodes == 1
    assert brute_force_winnable(game) is False
    # worrying KH back to an empty column gives QS a holder; draw-1 reaches JS: both are won
    for rules in (Rules(), Rules(draw_count=1, foundation_to_tableau=False)):
        free = make_position([], foundations=(13, 13, 13, 10), talon=talon, rules=rules)
        assert_replays_to_a_win(free, solve(free))
    # with the waste's top card QS already drawn, playing nothing still reaches nothing else
    drawn = make_position([], foundations=(13, 13, 13, 10), talon=talon, waste_length=3, rules=forbidden)
    assert solve(drawn).nodes == 1


@pytest.mark.parametrize("draw_count", [3, 1])
def test_the_stuck_card_check_never_fires_on_the_way_to_a_win(draw_count):
    # every position of a replayed winning line can be won: the check must pass all of them
    # (it is sound at any position, though the search only asks it at the root)
    from klondike_env.solver.stuck import stuck_for_good

    rules = Rules(draw_count=draw_count)
    checked = 0
    for deal in range(1, 31):
        game = Game.new(deal, rules)
        result = solve(game, node_limit=100_000)
        if result.status != SolveStatus.SOLVED:
            continue
        for action in result.actions:
            assert not stuck_for_good(game._state, game._rules_array), (deal, game.move_count)
            game.step(action)
            checked += 1
    assert checked > 2000


@pytest.mark.parametrize("draw_count", [3, 1])
def test_the_stuck_card_check_never_fires_on_a_deal_known_to_be_won(draw_count):
    # every SOLVED deal of the verdict file has a replayed win: the root check must pass it
    from klondike_env.solver.stuck import stuck_for_good

    rules = Rules(draw_count=draw_count)
    with verdict_file(draw_count).open() as handle:
        rows = list(csv.DictReader(handle))
    fired = {status: 0 for status in ("SOLVED", "UNSOLVABLE", "UNKNOWN")}
    for row in rows:
        game = Game.new(int(row["deal"]), rules)
        fired[row["status"]] += bool(stuck_for_good(game._state, game._rules_array))
    assert fired["SOLVED"] == 0
    assert fired["UNSOLVABLE"] >= 60  # and it does fire: on 89 (draw-3) and 72 (draw-1) lost deals


def test_hand_built_position_that_needs_worrying_back():
    # Only the clubs are out, in three columns whose face-down cards are all lower clubs
    # under higher ones; every other suit is home and four columns are empty. KC can move to
    # an empty column, but then QC needs a red king and 3C (on AC, 2C) a red 4: all home.
    # Without worrying back nothing else can ever move; with it, red and black cards come
    # down to build the runs that take the clubs off their buried aces and twos.
    columns = [["AC!", "2C!", "3C"], ["4C!", "5C!", "6C!", "7C"], ["8C!", "9C!", "TC"], ["JC!", "QC!", "KC"]]
    game = make_position(columns, foundations=(0, 13, 13, 13))
    result = solve(game)
    assert_replays_to_a_win(game, result)
    assert any(action >= core.FOUNDATION_TO_COLUMN for action in result.actions)
    forbidden = solve(game, Rules(foundation_to_tableau=False))
    assert forbidden.status == SolveStatus.UNSOLVABLE and forbidden.stopped_by is None


@pytest.mark.parametrize("deal", DEALS_NEEDING_A_RECYCLE_DRAW3)
def test_deals_that_need_a_recycle(deal):
    # Found by solving with max_passes=1 (the variant that forbids recycling): exhaustive
    # UNSOLVABLE there, SOLVED with the standard rules.
    assert solve(deal, Rules(max_passes=1), node_limit=2_000_000).status == SolveStatus.UNSOLVABLE
    result = solve(deal, node_limit=2_000_000)
    assert_replays_to_a_win(Game.new(deal), result)
    assert core.RECYCLE in result.actions


def test_a_deal_that_needs_worrying_back():
    deal = DEAL_NEEDING_WORRYING_BACK_DRAW3
    forbidden = solve(deal, Rules(foundation_to_tableau=False), node_limit=2_000_000)
    assert forbidden.status == SolveStatus.UNSOLVABLE
    result = solve(deal, node_limit=2_000_000)
    assert_replays_to_a_win(Game.new(deal), result)
    assert any(action >= core.FOUNDATION_TO_COLUMN for action in result.actions)


# --- exactness against a plain search -------------------------------------------
def brute_force_winnable(game: Game, limit: int = 3000) -> bool | None:
    """Depth-first search over every legal action, no pruning; None past ``limit`` positions."""
    rules = game._rules_array
    seen = set()
    stack = [game._state.copy()]
    mask = np.empty(core.NUM_ACTIONS, np.uint8)
    while stack:
        state = stack.pop()
        if core.is_won(state):
            return True
        key = state[: core.MOVES].tobytes() if rules[core.RULE_MAX_PASSES] else (
            state[: core.RECYCLES].tobytes())
        if key in seen:
            continue
        seen.add(key)
        if len(seen) > limit:
            return None
        core.legal_mask(state, rules, mask)
        for action in np.flatnonzero(mask):
            child = state.copy()
            core.apply_action(child, rules, int(action))
            stack.append(child)
    return False


def random_endgame(rng: np.random.Generator, rules: Rules) -> Game:
    """A random position with a few cards out, piled face down in few columns (often stuck)."""
    while True:
        foundations = [int(rng.integers(9, 14)) for _ in range(4)]
        rest = [13 * suit + rank for suit in range(4) for rank in range(foundations[suit], 13)]
        if 4 <= len(rest) <= 8:
            break
    rng.shuffle(rest)
    talon_size = int(rng.integers(0, 4))
    talon, cards = rest[:talon_size], rest[talon_size:]
    columns = [[] for _ in range(7)]
    used_columns = int(rng.integers(1, 4))
    for card in cards:
        columns[int(rng.integers(0, used_columns))].append(card)
    texts = [[("{}!" if i < len(col) - 1 else "{}").format(_text(card)) for i, card in enumerate(col)]
             for col in columns]
    return make_position(texts, tuple(foundations), [_text(c) for c in talon],
                         int(rng.integers(0, talon_size + 1)), rules)


def _text(card: int) -> str:
    return "A23456789TJQK"[card % 13] + "CDHS"[card // 13]


def compare_with_brute_force(rules: Rules, seed: int, **options) -> dict[bool, int]:
    """Solve 60 random endgames (``solve(game, **options)``); each decided one must match the
    brute force (and replay)."""
    rng = np.random.default_rng(seed)
    compared = {True: 0, False: 0}
    for _ in range(60):
        game = random_endgame(rng, rules)
        truth = brute_force_winnable(game)
        if truth is None:
            continue
        result = solve(game, **options)
        assert result.status == (SolveStatus.SOLVED if truth else SolveStatus.UNSOLVABLE), game
        if truth:
            assert_replays_to_a_win(game, result)
        compared[truth] += 1
    return compared


def compare_with_verdict_file(deals=range(1, 41), node_limit: int = 40_000, threads: int = 1) -> int:
    """Solve ``deals``; every verdict reached must match the draw-3 verdict file. Returns how many."""
    with verdict_file(3).open() as handle:
        rows = {int(row["deal"]): row["status"] for row in csv.DictReader(handle)}
    compared = 0
    for deal in deals:
        if rows[deal] == "UNKNOWN":
            continue
        result = solve(deal, node_limit=node_limit, threads=threads)
        if result.status == SolveStatus.SOLVED:
            assert_replays_to_a_win(Game.new(deal), result)
        if result.status != SolveStatus.UNKNOWN:
            assert result.status.value == rows[deal], deal
            compared += 1
    return compared


# Worrying back is off here: with it, every home card can come back down and the plain
# search drowns; the hand-built positions above cover it. Both complete searches: over
# classes (the default) and over positions (by_class=False).
@pytest.mark.parametrize("by_class", [True, False], ids=["classes", "positions"])
@pytest.mark.parametrize("options", [{}, {"draw_count": 1}, {"max_passes": 2}, {"max_passes": 1, "draw_count": 1},
                                     {"empty_column": "any"}],
                         ids=["draw3", "draw1", "two-passes", "one-pass-draw1", "any-empty"])
def test_verdicts_match_a_search_without_pruning(options, by_class):
    rules = Rules(foundation_to_tableau=False, **options)
    compared = compare_with_brute_force(rules, seed=2026, by_class=by_class)
    assert compared[True] >= 20
    # with any card allowed on an empty column these small positions are all winnable
    assert compared[False] >= (0 if rules.empty_column == "any" else 3)


# --- the twin merge of the key (docs/solver.md) ----------------------------------
def position_key(game: Game, key_flags: int) -> tuple[int, ...]:
    key = np.empty(keys.KEY_WORDS, np.int64)
    talon_index = np.arange(core.NUM_CARDS, dtype=np.int32)  # any fixed talon numbering will do here
    keys.search_key(game._state, game._rules_array, talon_index, bool(key_flags & keys.KEY_LIMITED),
                              bool(key_flags & keys.KEY_EXACT_TWINS), key, np.empty(7, np.int64),
                              np.empty(7, np.int64))
    return tuple(int(word) for word in key)


def columns_with_the_rest_dealt(columns) -> Game:
    """``columns`` (at most five), then the cards left over: 24 in the talon, the others face
    down under one face-up card in columns 5 and 6."""
    placed = {parse_card(text.rstrip("!")) for column in columns for text in column}
    rest = [_text(card) for card in range(core.NUM_CARDS) if card not in placed]
    talon, rest = rest[:24], rest[24:]
    half = len(rest) // 2
    piles = [[text + "!" for text in pile[:-1]] + pile[-1:] for pile in (rest[:half], rest[half:])]
    return make_position([*columns, *[[]] * (5 - len(columns)), *piles], talon=talon)


def test_the_key_merges_swapped_twins_off_the_head_and_exact_twins_keeps_them_apart():
    exact = keys.KEY_EXACT_TWINS
    layout = columns_with_the_rest_dealt
    # 8S and 8C each lie on a red nine, QS and QC on red kings: swapping either pair changes no head
    one = layout([["2D!", "9H", "8S", "7D"], ["3D!", "9D", "8C"], ["KH", "QS"], ["KD", "QC"]])
    eights = layout([["2D!", "9H", "8C", "7D"], ["3D!", "9D", "8S"], ["KH", "QS"], ["KD", "QC"]])
    queens = layout([["2D!", "9H", "8S", "7D"], ["3D!", "9D", "8C"], ["KH", "QC"], ["KD", "QS"]])
    for swapped in (eights, queens):
        assert position_key(one, 0) == position_key(swapped, 0)
        assert position_key(one, exact) != position_key(swapped, exact)
    # columns without face-down cards in another order: one key, with or without the twins
    moved = layout([["2D!", "9H", "8S", "7D"], ["3D!", "9D", "8C"], ["KD", "QC"], [], ["KH", "QS"]])
    assert position_key(one, exact) == position_key(moved, exact)
    # heads are in the key: 8S and 8C alone on face-down cards are two keys already
    heads = layout([["2D!", "8S"], ["3D!", "8C"]])
    swapped = layout([["2D!", "8C"], ["3D!", "8S"]])
    assert position_key(heads, 0) != position_key(swapped, 0)


@pytest.mark.parametrize("options, lost, merged", [
    ({}, 10, 10), ({"draw_count": 1}, 2, 5), ({"empty_column": "any"}, 10, 5), ({"max_passes": 2}, 20, 3),
], ids=["draw3", "draw1", "any-empty", "two-passes"])
def test_property_the_twin_merge_never_changes_a_verdict(options, lost, merged):
    from klondike_env.solver_examples import twin_check

    counts = twin_check(60, seed=1, node_limit=30_000, rules=Rules(**options))  # raises on a disagreement
    # the check has teeth: lost positions decided both ways, and searches the merge changed
    assert counts["lost"] >= lost and counts["merged"] >= merged, counts


# --- the class search (klondike_env/solver/classes.py) -----------------------------
def covered_nine_position() -> Game:
    """9H (next on hearts) lies under 8C, which cannot go home (7C is face down under TH, and
    TH can only go home after 9H); 8C's other holder, 9D, is uncovered. Everything else is in
    the talon and goes home from it."""
    columns = [["9H", "8C"], ["9D"], ["JC!", "7C!", "TH"]]
    talon = ["TD", "JD", "QD", "KD", "JH", "QH", "KH", "9C", "TC", "QC", "KC"]
    return make_position(columns, foundations=(6, 8, 8, 13), talon=talon)


def test_class_sets_count_what_every_arrangement_shares():
    game = covered_nine_position()
    state, column_cards, down_masks, _ = classes.root_class(game._state)
    assert list(state[core.COLUMN_DOWN : core.COLUMN_DOWN + 7]) == [0, 0, 2, -1, -1, -1, -1]
    face_up, sitters, empty = classes._class_sets(state, column_cards, down_masks)
    cards = {text: 1 << parse_card(text) for text in ("9H", "8C", "9D", "TH", "7C", "JC")}
    assert face_up == cards["9H"] | cards["8C"] | cards["9D"] | cards["TH"]
    assert sitters == cards["8C"]  # 9H, 9D and TH are their columns' bases
    assert empty == 4
    # 8C lies on 9H here, but could lie on 9D: 9H can be uncovered; with 9D home it could not
    assert classes._can_uncover(parse_card("9H"), face_up, sitters)
    assert not classes._can_uncover(parse_card("9H"), face_up & ~cards["9D"], sitters)
    # a black eight arriving finds a red nine free whichever 8C takes, but not with 9D gone
    assert classes._room_for(parse_card("8S"), face_up, sitters, empty)
    assert not classes._room_for(parse_card("8S"), face_up & ~cards["9D"], sitters, empty)
    assert classes._room_for(parse_card("KS"), face_up, sitters, empty)


def test_a_covered_card_goes_home_after_one_move_within_its_class():
    game = covered_nine_position()
    home = (classes.CARD_HOME << classes._KIND_SHIFT) | (parse_card("9H") << classes._ARG_SHIFT)
    actions = classes.realize(game._state, game._rules_array, [home])
    # 8C onto 9D (column 0 -> 1), 9H home; then nothing is safe to auto-play (TH needs the black nines)
    assert actions == [core.column_action(0, 1), core.COLUMN_TO_FOUNDATION + 0]
    assert_replays_to_a_win(game, solve(game))
    # the compiled line counts every action even where its buffer is too short (realize then plays it again)
    short = np.empty(1, np.int32)
    assert classes._realize(game._state, game._rules_array, np.array([home], np.int32), short) == 2
    assert short[0] == actions[0]


def test_the_class_search_proves_a_loss_the_position_search_needs_millions_for():
    # deal 198 is lost: about 566,000 classes against over 4 million positions
    assert solve(198, node_limit=1_000_000, probe_after=10**9, best_after=10**9).status == SolveStatus.UNSOLVABLE
    cut = solve(198, node_limit=1_000_000, probe_after=10**9, best_after=10**9, by_class=False)
    assert cut.status == SolveStatus.UNKNOWN


@pytest.mark.parametrize("options, won, lost", [
    ({}, 20, 15), ({"draw_count": 1}, 30, 5), ({"max_passes": 2}, 1, 40), ({"foundation_to_tableau": False}, 15, 20),
], ids=["draw3", "draw1", "two-passes", "no-worrying-back"])
def test_property_the_class_search_agrees_with_the_position_search(options, won, lost):
    from klondike_env.solver_examples import class_check

    # raises on a disagreement, or on a solution of either search that does not replay
    counts = class_check(60, seed=3, node_limit=30_000, rules=Rules(**options))
    assert counts["won"] >= won and counts["lost"] >= lost and counts["merged"] >= 15, counts


# --- budgets ----------------------------------------------------------------------
def test_probes_win_deals_the_fixed_order_misses(monkeypatch):
    # Deal 144: the fixed move order spends over 150,000 classes in a lost subtree; a
    # shuffled-order probe (the best-first search kept out) wins it early, within about 9,000.
    # The probe's line replays like any other.
    tune(monkeypatch, BEST_AFTER=10**9)
    result = solve(144, node_limit=150_000)
    assert_replays_to_a_win(Game.new(144), result)
    tune(monkeypatch, PROBE_AFTER=10**9)
    assert solve(144, node_limit=150_000).status == SolveStatus.UNKNOWN


def test_a_shuffled_order_search_reaches_the_same_verdicts(monkeypatch):
    # Probes from the first node: a probe that exhausts its search proves UNSOLVABLE, one that
    # wins gives a replayable line; both must agree with the committed verdicts.
    tune(monkeypatch, PROBE_AFTER=1)
    tune(monkeypatch, PROBE_UNIT=50)
    assert compare_with_verdict_file() >= 25



def test_best_first_search_wins_a_deal_the_depth_first_searches_miss(monkeypatch):
    # Deal 139: neither the fixed order nor the probes win it within 600,000 positions; the
    # best-first search, started at BEST_AFTER, wins it a few thousand expansions later.
    result = solve(139, node_limit=600_000)
    assert_replays_to_a_win(Game.new(139), result)
    assert solve(139, node_limit=600_000, best_after=10**9).status == SolveStatus.UNKNOWN
    tune(monkeypatch, BEST_AFTER=10**9)  # the module default, the same way
    assert solve(139, node_limit=600_000).status == SolveStatus.UNKNOWN


@pytest.mark.parametrize("deal, status", [(139, SolveStatus.SOLVED), (144, SolveStatus.SOLVED),
                                          (526, SolveStatus.UNSOLVABLE)])
def test_helpers_on_a_thread_of_their_own_reach_the_same_verdicts(deal, status):
    # threads=2: the probes and the best-first search run beside the complete search. Deal 139
    # is won first by the best-first search (above), 144 by a probe, 526 is lost. Which search
    # decides depends on the threads' timing, so the budget is time, not nodes; a node budget
    # may be overrun by one chunk of each thread.
    result = solve(deal, time_limit=60, threads=2)
    assert result.status == status
    if status == SolveStatus.SOLVED:
        assert_replays_to_a_win(Game.new(deal), result)
    limit = schedule.PROBE_AFTER + 10
    cut = solve(deal, node_limit=limit, threads=2)
    assert cut.status == SolveStatus.UNKNOWN and cut.stopped_by == "nodes"
    assert cut.nodes <= limit + 2 * schedule.RACE_CHUNK


def test_a_search_on_a_shared_table_does_not_depend_on_the_epoch_numbers():
    # the stamps of a shared table are the epoch and the epoch + owner: a search must give the
    # same run whichever epoch the table is at
    root, _, rules_array = api._root_position(144, None)
    talon_index = api.talon_index(root)
    runs = []
    for epoch in (0, 3, 100):
        shared_table = table.Table(8192)
        shared_table.epoch = epoch
        search = depth_first.DepthFirst(root, rules_array, talon_index, keys.KEY_CLASSES, shared_table, 8192,
                                        seed=0, shared=(shared_table.next_epoch(table.SHARED_EPOCHS), 1))
        search.run(2000)
        runs.append((search.result, search.nodes, search.entries))
    assert runs[0] == runs[1] == runs[2]


def count_hand_overs(monkeypatch) -> dict[int, int]:
    """Count the classes one thread's search hands to the other (threads=2), by its owner number
    (1: the main thread, 2: the partner)."""
    counts = {1: 0, 2: 0}
    hand_over = depth_first.DepthFirst.hand_over

    def counting(self):
        handed = hand_over(self)
        counts[self.owner] += handed is not None
        return handed

    monkeypatch.setattr(depth_first.DepthFirst, "hand_over", counting)
    return counts


def short_turns(monkeypatch) -> None:
    """threads=2 with turns of 64 nodes from the 100th on: many hand-overs a deal, both ways."""
    tune(monkeypatch, RACE_CHUNK=64)
    tune(monkeypatch, PROBE_AFTER=100)


def test_the_class_search_on_two_threads_reaches_the_same_verdicts(monkeypatch):
    # threads=2: the complete search and its partner split the class graph over one table,
    # handing each other the classes waiting on their stacks; the verdicts (lost ones included:
    # the union of what both expanded) and the winning lines are those of one thread.
    short_turns(monkeypatch)
    counts = count_hand_overs(monkeypatch)
    assert compare_with_verdict_file(threads=2) >= 25
    assert counts[1] > 0 and counts[2] > 0


@pytest.mark.parametrize("options", [{"draw_count": 1}, {"max_passes": 2}, {"max_passes": 1, "draw_count": 1}],
                         ids=["draw1", "two-passes", "one-pass-draw1"])
def test_two_threads_agree_with_one_under_other_rules(monkeypatch, options):
    short_turns(monkeypatch)
    counts = count_hand_overs(monkeypatch)
    rules = Rules(**options)
    agreed = 0
    for deal in range(1, 21):
        one = solve(deal, rules, node_limit=40_000)
        two = solve(deal, rules, node_limit=40_000, threads=2)
        for result in (one, two):
            if result.status == SolveStatus.SOLVED:
                assert_replays_to_a_win(Game.new(deal, rules), result)
        if SolveStatus.UNKNOWN not in (one.status, two.status):
            assert one.status == two.status, deal
            agreed += 1
    assert agreed >= 5 and counts[1] > 0


def test_a_shared_table_stamps_which_search_expands_each_class():
    # epoch 5 of a shared table: stamp 5 = expanded (or a marked boundary), 6 and 7 = waiting
    # for the expansion of search 1 or 2; an older stamp is a free slot
    entries = np.zeros((8, table.ENTRY_WORDS), np.int64)
    entries[:, keys.KEY_WORDS] = 4
    key, other = np.array([1, 2, 3], np.int64), np.array([1, 2, 4], np.int64)
    claim = table.claim_entry

    def insert(entries, epoch, key, word):
        return table.shared_insert(entries, epoch, key, word, classes.BOUNDARY_WORD, classes.BOUNDARY_SHIFT)
    status, slot = insert(entries, 5, key, 6)
    assert status == 1 and entries[slot, keys.KEY_WORDS] == 6
    assert insert(entries, 5, key, 6) == (0, slot)  # search 1's own: it will expand it
    assert insert(entries, 5, key, 7) == (2, slot)  # search 2 may claim it too
    assert claim(entries, 5, slot) and not claim(entries, 5, slot)  # whoever comes first, once
    assert insert(entries, 5, key, 7) == (0, slot) and insert(entries, 5, key, 6) == (0, slot)
    assert insert(entries, 5, other, 5)[0] == 1 and insert(entries, 5, other, 7)[0] == 0  # a mark
    assert [insert(entries, 5, np.array([9, 9, n], np.int64), 6)[0] for n in range(7)] == [1] * 6 + [-1]


@pytest.mark.parametrize("threads", [1, 2])
def test_an_error_in_a_helper_search_reaches_the_caller(monkeypatch, threads):
    # on the thread beside (threads=2) too: the exception is handed back, not lost with the thread
    class Broken:
        def __init__(self, *args, **kwargs):
            raise RuntimeError("helper failed")

    tune(monkeypatch, BestFirst=Broken)
    with pytest.raises(RuntimeError, match="helper failed"):
        solve(139, node_limit=200_000, threads=threads)


@pytest.fixture
def best_first_only(monkeypatch):
    """The best-first search from the first node, with (nearly) every turn."""
    tune(monkeypatch, PROBE_AFTER=1)
    tune(monkeypatch, BEST_AFTER=1)
    tune(monkeypatch, BEST_SHARE=1e9)


@pytest.mark.parametrize("options", [{}, {"draw_count": 1}, {"max_passes": 2}], ids=["draw3", "draw1", "two-passes"])
def test_best_first_verdicts_match_a_search_without_pruning(best_first_only, options):
    # an exhausted best-first search is a proof: it must never call a winnable position lost
    compared = compare_with_brute_force(Rules(foundation_to_tableau=False, **options), seed=7)
    assert compared[True] >= 20 and compared[False] >= 3


def test_best_first_search_agrees_with_the_verdict_file(best_first_only):
    assert compare_with_verdict_file() >= 25


def _rule_fields(state: np.ndarray) -> list:
    """Everything the rules read from a state (not the move counter or stale empty slots)."""
    columns = [list(state[core.TABLEAU + core.COLUMN_SLOTS * col:][: state[core.COLUMN_LENGTH + col]])
               for col in range(core.NUM_COLUMNS)]
    return [columns, list(state[core.COLUMN_DOWN : core.COLUMN_DOWN + core.NUM_COLUMNS]),
            list(state[core.TALON : core.TALON + state[core.TALON_LENGTH]]), int(state[core.WASTE_LENGTH]),
            list(state[core.FOUNDATION : core.FOUNDATION + 4]), int(state[core.RECYCLES])]


def test_the_best_first_store_packs_positions_without_loss():
    # the best-first search keeps only packed positions and rebuilds each one it expands
    rng = np.random.default_rng(3)
    store = np.empty((1, best_first.PACKED_SIZE), np.int8)
    unpacked = np.empty(core.STATE_SIZE, np.int32)
    checked = 0
    for deal in range(1, 41):
        game = Game.new(deal, Rules(max_passes=3))
        for _ in range(int(rng.integers(0, 300))):
            legal = game.legal_actions()
            if game.is_won or not legal:
                break
            game.step(int(rng.choice(legal)))
        best_first._pack_position(game._state, store, 0)
        best_first._unpack_position(store, 0, unpacked)
        assert _rule_fields(unpacked) == _rule_fields(game._state), deal
        masks = np.zeros((2, core.NUM_ACTIONS), np.uint8)
        for mask, state in zip(masks, (game._state, unpacked)):
            core.legal_mask(state, game.rules.as_array(), mask)
        assert np.array_equal(masks[0], masks[1]), deal
        checked += 1
    assert checked == 40


def test_a_full_best_first_store_stops_that_search_only(monkeypatch):
    # a store too small for the deal: the best-first search reports FULL (no write past its
    # arrays), and the other searches still decide the deal
    root, rules, _ = api._root_position(66, None)
    talon_index = api.talon_index(root)
    best = best_first.BestFirst(root, rules.as_array(), talon_index, key_flags=0, memory_limit_mb=4)
    best.run(10**9)
    assert best.result == best_first.FULL
    assert best.memory_mb <= 4 * best_first.BEST_MEMORY_SHARE
    tune(monkeypatch, BEST_AFTER=1)
    tune(monkeypatch, BEST_SHARE=1e9)
    assert solve(526, memory_limit_mb=16).status == SolveStatus.UNSOLVABLE


def test_budget_exhaustion_never_yields_unsolvable():
    full = solve(1, node_limit=3000)
    assert full.status == SolveStatus.UNKNOWN and full.stopped_by == "nodes" and full.nodes == 3000
    # deal 526 is lost, proven after about 138,000 positions (all searches together): past the
    # point where probes start
    whole = solve(526, node_limit=200_000)
    assert whole.status == SolveStatus.UNSOLVABLE and whole.nodes > schedule.PROBE_AFTER
    for limit in (schedule.PROBE_AFTER + 1000, whole.nodes - 1):
        cut = solve(526, node_limit=limit)
        assert cut.status == SolveStatus.UNKNOWN and cut.stopped_by == "nodes" and cut.nodes == limit
    for deal in range(1, 30):
        exact = solve(deal, node_limit=50_000)
        if exact.status != SolveStatus.UNSOLVABLE or exact.nodes < 20:
            continue
        for limit in (1, exact.nodes // 2, exact.nodes - 1):
            cut = solve(deal, node_limit=max(limit, 1))
            assert cut.status == SolveStatus.UNKNOWN and cut.stopped_by == "nodes"


@pytest.mark.parametrize("by_class", [True, False], ids=["classes", "positions"])
def test_lines_cut_at_the_depth_cap_never_yield_unsolvable(monkeypatch, by_class):
    # With a stack of 12 search moves, neither deal 526 (lost) nor deal 7 (won, by lines of far
    # more search moves) can be searched to the end: the answer is UNKNOWN, stopped by "depth".
    tune(monkeypatch, MAX_DEPTH=12)
    for deal in (526, 7):
        cut = solve(deal, by_class=by_class, probe_after=10**9, best_after=10**9)
        assert cut.status == SolveStatus.UNKNOWN and cut.stopped_by == "depth"


def test_a_partner_cut_at_the_depth_cap_never_yields_unsolvable(monkeypatch):
    # threads=2: a line cut in either thread's search leaves the verdict UNKNOWN. The probes
    # (cut too) and no best-first search share the partner's thread.
    short_turns(monkeypatch)
    tune(monkeypatch, MAX_DEPTH=12)
    counts = count_hand_overs(monkeypatch)
    cut = solve(526, best_after=10**9, threads=2)
    assert cut.status == SolveStatus.UNKNOWN and cut.stopped_by == "depth" and counts[1] > 0


@pytest.mark.parametrize("threads", [1, 2])
def test_a_full_table_and_a_time_limit_give_unknown(threads):
    full = solve(1, memory_limit_mb=0.05, threads=threads)
    assert full.status == SolveStatus.UNKNOWN and full.stopped_by == "memory"
    timed = solve(1, time_limit=0.05, threads=threads)
    assert timed.status == SolveStatus.UNKNOWN and timed.stopped_by == "time"
    assert timed.seconds < 5


def test_a_won_position_is_solved_with_no_actions():
    game = make_position([], foundations=(13, 13, 13, 13))
    result = solve(game)
    assert result.status == SolveStatus.SOLVED and result.actions == []


@pytest.mark.parametrize("threads", [1, 2])
def test_progress_reports_nodes_and_table_fill_and_changes_nothing(threads):
    # the callback runs between chunks of search: the nodes grow, the fill stays a fraction, and
    # the verdict, nodes and line are those of a solve without it
    calls = []
    watched = solve(526, node_limit=200_000, progress=lambda nodes, fill: calls.append((nodes, fill)),
                    threads=threads)
    assert len(calls) >= 3
    assert [nodes for nodes, _ in calls] == sorted(nodes for nodes, _ in calls)
    assert all(0 <= fill <= 1 for _, fill in calls) and calls[-1][1] > 0
    if threads == 1:  # (two threads may decide by another search from run to run)
        plain = solve(526, node_limit=200_000)
        assert (watched.status, watched.nodes, watched.actions) == (plain.status, plain.nodes, plain.actions)


def test_terminal_progress_shows_a_line_on_a_terminal_only():
    import io

    from klondike_env.solver.progress import TerminalProgress

    piped = io.StringIO()  # not a terminal: nothing, however long the solve
    with TerminalProgress(delay=0, stream=piped) as progress:
        solve(526, node_limit=100_000, progress=progress)
    assert piped.getvalue() == ""
    shown = io.StringIO()  # redrawn at every call, so the line shows however fast the machine
    with TerminalProgress(delay=0, stream=shown, always=True, mininterval=0) as progress:
        solve(526, node_limit=200_000, progress=progress)
    line = shown.getvalue().split("\r")
    assert any("nodes/s" in part and "% full" in part and part.startswith("solving: ") for part in line)
    assert line[-1].strip() == ""  # cleared when the solve ends


@pytest.mark.parametrize("kwargs, message", [
    ({"progress": "yes"}, "progress"),
    ({"time_limit": 0}, "time_limit"),
    ({"node_limit": 1.5}, "node_limit"),
    ({"node_limit": True}, "node_limit"),
    ({"memory_limit_mb": -1}, "memory_limit_mb"),
    ({"rules": "draw3"}, "rules"),
    ({"probe_after": 0}, "probe_after"),
    ({"best_after": 2.5}, "best_after"),
    ({"exact_twins": "yes"}, "exact_twins"),
    ({"actions": 0}, "actions"),
    ({"threads": 3}, "threads"),
    ({"threads": True}, "threads"),
    ({"exact_twins": True, "rules": Rules(max_passes=100)}, "exact_twins needs max_passes <= 64"),
])
def test_bad_arguments_say_what_is_wrong(kwargs, message):
    with pytest.raises(SolverInputError, match=message):
        solve(1, **kwargs)
    with pytest.raises(ValueError, match="deal"):
        solve(-1)


# --- committed verdict files -----------------------------------------------------
@pytest.mark.parametrize("draw", [3, 1])
def test_verdict_files_cover_the_seed_sets_and_agree_with_the_solver(draw):
    with verdict_file(draw).open() as handle:
        rows = {int(row["deal"]): row for row in csv.DictReader(handle)}
    assert set(range(1, 2001)) <= set(rows)
    rules = Rules(draw_count=draw)
    checked = 0
    for deal in range(1, 61):
        row = rows[deal]
        if row["status"] == "UNKNOWN":
            continue
        result = solve(deal, rules, node_limit=30_000)
        if result.status != SolveStatus.UNKNOWN:
            assert result.status.value == row["status"], deal
            checked += 1
    assert checked >= 30
