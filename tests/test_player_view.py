"""The player view shows what a player knows and nothing hidden (docs/contract.md "Information")."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import played

from agents.base import UNKNOWN, PlayerView, public_state
from agents.positions import hidden_count
from klondike_env import Game, Rules, core
from klondike_env.core import DRAW, RECYCLE


def _equal(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.array_equal(a, b)
    return a == b


@pytest.mark.parametrize("deal,moves", [(1, 0), (2, 5), (3, 30), (4, 80), (5, 200)])
@pytest.mark.parametrize("draw", [3, 1])
def test_permuting_hidden_cards_leaves_the_view_unchanged(deal, moves, draw):
    game = played(deal, moves, seed=deal, rules=Rules(draw_count=draw))
    view = PlayerView(game)
    for seed in range(3):
        other_game = game.sample_world(seed)  # same knowledge, hidden cards elsewhere
        other = PlayerView(other_game)
        for name, value in view.public_values().items():
            assert _equal(value, other.public_values()[name]), name
        for action in view.legal_actions:
            assert view.effect(action) == other.effect(action)
            assert view.action_name(action) == other.action_name(action)
        assert np.array_equal(view.observe(), other.observe())
        assert np.array_equal(view.observe("visible"), other.observe("visible"))
        assert view.matches(other_game) and other.matches(game)
        # the worlds a view samples depend on the random source and the view alone
        assert all(view.sample_world(world_seed) == other.sample_world(world_seed) for world_seed in range(3))


def test_sampled_hidden_cards_really_move():
    """The permutation test above is not vacuous: sampled worlds differ from the truth."""
    game = Game.new(7)
    view = PlayerView(game)
    worlds = [view.sample_world(seed) for seed in range(5)]
    assert all(view.matches(world) for world in worlds)
    assert any(world.deck != game.deck for world in worlds)
    assert all(sorted(world.hidden_cards()) == sorted(view.hidden_cards) for world in worlds)


def test_view_values_match_the_game():
    game = played(11, 40, seed=3)
    view = PlayerView(game)
    assert view.foundations == game.foundations
    assert view.waste == game.waste
    assert view.legal_actions == tuple(game.legal_actions())
    for column, column_view in zip(game.tableau, view.tableau):
        assert column_view.down == sum(not up for _, up in column)
        assert column_view.face_up == tuple(card for card, up in column if up)
    assert set(view.hidden_cards) == set(game.hidden_cards())
    assert np.array_equal(view.known_cards, game.known_cards())


def test_stock_is_unknown_until_the_first_recycle():
    game = Game.new(1)
    view = PlayerView(game)
    assert view.stock == (UNKNOWN,) * 24
    while DRAW in game.legal_actions():
        game.step(DRAW)
    game.step(RECYCLE)
    view = PlayerView(game)
    assert view.stock == game.stock and UNKNOWN not in view.stock


def test_view_is_a_snapshot_and_never_holds_the_game():
    game = Game.new(2)
    view = PlayerView(game)
    before = view.public_values()
    game.step(DRAW)
    assert view.public_values()["waste"] == before["waste"] == ()
    for name in dir(view):
        if name.startswith("__"):
            continue
        value = getattr(view, name)
        assert not isinstance(value, Game), name
    with pytest.raises(AttributeError):
        view.game  # noqa: B018
    world = view.sample_world(0)
    world.step(world.legal_actions()[0])
    assert PlayerView(Game.new(2)).public_values()["move_count"] == view.move_count == 0


def test_full_observation_is_refused():
    with pytest.raises(ValueError, match="hidden cards"):
        PlayerView(Game.new(1)).observe("full")


def test_effect_of_an_illegal_action_is_an_error():
    view = PlayerView(Game.new(1))
    illegal = next(a for a in range(87) if not view.legal_mask[a])
    with pytest.raises(ValueError, match="not legal"):
        view.effect(illegal)


def _face_down(game: Game) -> list[int]:
    return [card for column in game.tableau for card, up in column if not up]


@pytest.mark.parametrize("deal,moves", [(1, 0), (3, 30), (5, 200)])
def test_stock_visible_view_shows_the_stock_and_hides_the_face_down_cards(deal, moves):
    game = played(deal, moves, seed=deal)
    view = PlayerView(game, stock_visible=True)
    assert view.stock_visible and view.stock == game.stock and UNKNOWN not in view.stock
    assert view.hidden_cards == tuple(sorted(_face_down(game)))
    assert np.array_equal(~view.known_cards, np.isin(np.arange(52), _face_down(game)))
    for seed in range(3):
        other_game = game.sample_world(seed, cards=_face_down(game))  # face-down cards elsewhere, stock kept
        other = PlayerView(other_game, stock_visible=True)
        for name, value in view.public_values().items():
            assert _equal(value, other.public_values()[name]), name
        for action in view.legal_actions:
            assert view.effect(action) == other.effect(action)
        assert view.matches(other_game) and other.matches(game)
        # a world depends on the seed and what the player is shown, not on where the cards lie
        assert view.sample_world(seed) == other.sample_world(seed)
        world = view.sample_world(seed)
        assert world.stock == game.stock and world.waste == game.waste and view.matches(world)
    if _face_down(game):
        assert any(view.sample_world(seed) != game for seed in range(5))
        stock_moved = game.sample_world(0)  # the stock reshuffled too: no longer this view's world
        assert stock_moved.stock == game.stock or not view.matches(stock_moved)


@pytest.mark.parametrize("draw", [3, 1])
def test_public_state_and_hidden_count_agree_with_the_hidden_cards(draw):
    """The compiled public state blanks exactly the cards the game lists as hidden (or only the
    face-down ones when the stock is shown), and the compiled count counts them, along random games."""
    rng = np.random.default_rng(draw)
    for deal in range(1, 41):
        game = Game.new(deal, Rules(draw_count=draw))
        for _ in range(150):
            hidden = set(game.hidden_cards())
            face_down = {int(game._state[core.TABLEAU + core.COLUMN_SLOTS * col + depth])
                         for col in range(core.NUM_COLUMNS) for depth in range(game._state[core.COLUMN_DOWN + col])}
            for stock_visible, unseen in ((False, hidden), (True, face_down)):
                state = public_state(game, stock_visible)
                assert np.array_equal(state == -1, (game._state[: core.MOVES] == -1) | np.isin(
                    game._state[: core.MOVES], list(unseen)) & _card_slots())
                assert hidden_count(game, stock_visible) == len(unseen)
            actions = game.legal_actions()
            if not actions:
                break
            game.step(int(rng.choice(actions)))


def _card_slots() -> np.ndarray:
    """True at the state entries that hold cards (tableau and talon slots)."""
    slots = np.zeros(core.MOVES, bool)
    slots[core.TABLEAU : core.COLUMN_LENGTH] = True
    slots[core.TALON : core.TALON_LENGTH] = True
    return slots
