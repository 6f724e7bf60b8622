"""The loop breaker (klondike_env.move_memory): public position hashes and the untried-move masks."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import played

from agents.base import PlayerView
from klondike_env import Game, Rules, core
from klondike_env.move_memory import MoveMemory, position_hash


def _hash(game: Game) -> int:
    return int(position_hash(game._state, game._rules_array))


@pytest.mark.parametrize("deal,moves", [(1, 0), (2, 7), (3, 40), (4, 90), (5, 250), (6, 400)])
@pytest.mark.parametrize("draw", [3, 1])
def test_hash_is_the_same_wherever_the_hidden_cards_lie(deal, moves, draw):
    game = played(deal, moves, seed=deal, rules=Rules(draw_count=draw))
    for seed in range(4):
        world = game.sample_world(seed)  # same knowledge, hidden cards elsewhere
        assert _hash(world) == _hash(game)
        assert PlayerView(world).position_hash() == PlayerView(game).position_hash() == _hash(game)


def test_hash_changes_with_a_known_card_or_a_count():
    game = played(8, 30, seed=1)
    before = _hash(game)
    known = [card for card in range(52) if game.known_cards()[card]]
    swapped = game.copy()
    state = swapped._state
    # swap two known face-up/waste cards: a different position the player can tell apart
    slots = [i for i in range(core.TABLEAU, core.TALON + state[core.WASTE_LENGTH])
             if (i < core.COLUMN_LENGTH and (i % core.COLUMN_SLOTS) >= state[core.COLUMN_DOWN + i // core.COLUMN_SLOTS]
                 and (i % core.COLUMN_SLOTS) < state[core.COLUMN_LENGTH + i // core.COLUMN_SLOTS])
             or (i >= core.TALON)]
    assert len(slots) >= 2 and len(known) >= 2
    state[slots[0]], state[slots[-1]] = state[slots[-1]], state[slots[0]]
    assert _hash(swapped) != before
    drawn = game.copy()
    drawn.step(core.DRAW) if drawn.action_mask()[core.DRAW] else drawn.step(core.RECYCLE)
    assert _hash(drawn) != before


def test_hash_ignores_the_move_count_and_with_unlimited_passes_the_recycles():
    game = Game.new(12)
    start = _hash(game)
    for _ in range(8):  # through the whole stock and back: the same position, one recycle later
        game.step(core.DRAW)
    game.step(core.RECYCLE)
    assert game._state[core.RECYCLES] == 1
    assert _hash(game) != start  # the stock was unseen at the start and is known now
    after_one_trip = _hash(game)
    for _ in range(8):
        game.step(core.DRAW)
    game.step(core.RECYCLE)
    assert _hash(game) == after_one_trip
    limited = Game.new(12, Rules(max_passes=5))
    for _ in range(2):
        for _ in range(8):
            limited.step(core.DRAW)
        limited.step(core.RECYCLE)
    first = _hash(limited)
    for _ in range(8):
        limited.step(core.DRAW)
    limited.step(core.RECYCLE)
    assert _hash(limited) != first  # with max_passes the passes left matter


def test_untried_masks_out_moves_played_from_the_same_position_only():
    memory = MoveMemory(2)
    legal = np.zeros((2, core.NUM_ACTIONS), np.int8)
    legal[:, [0, 5, 9]] = 1
    memory.played([0, 1], [111, 222], [5, 9])
    masks = memory.untried([0, 1], [111, 111], legal)
    assert np.flatnonzero(masks[0]).tolist() == [0, 9]  # game 0 played 5 from position 111
    assert np.flatnonzero(masks[1]).tolist() == [0, 5, 9]  # game 1 played from another position
    assert np.array_equal(legal[:, [0, 5, 9]], np.ones((2, 3)))  # the input is not changed


def test_when_every_move_was_tried_the_position_starts_afresh():
    memory = MoveMemory(1)
    legal = np.zeros((1, core.NUM_ACTIONS), np.int8)
    legal[0, [2, 3]] = 1
    memory.played([0], [7], [2])
    memory.played([0], [8], [2])
    memory.played([0], [7], [3])
    assert np.array_equal(memory.untried([0], [7], legal), legal)  # never an empty mask
    assert memory.counts[0] == 1  # position 7's record dropped, position 8's kept
    assert np.flatnonzero(memory.untried([0], [8], legal)[0]).tolist() == [3]
    memory.forget([0])
    assert np.array_equal(memory.untried([0], [8], legal), legal)


def test_a_full_record_keeps_the_newest_entries():
    memory = MoveMemory(1, capacity=8)
    legal = np.ones((1, core.NUM_ACTIONS), np.int8)
    for position in range(20):
        memory.played([0], [position], [1])
    assert memory.counts[0] <= 8
    assert memory.untried([0], [19], legal)[0, 1] == 0  # the newest is remembered
    assert memory.untried([0], [0], legal)[0, 1] == 1  # the oldest is gone


def test_vec_env_masks_are_legal_never_empty_and_break_a_loop():
    pytest.importorskip("stable_baselines3")
    from klondike_env.sb3_vec import KlondikeVecEnv

    env = KlondikeVecEnv(n_envs=4, seed=3, no_repeat=True, max_episode_steps=200)
    env.reset()
    rng = np.random.default_rng(0)
    for _ in range(300):
        masks = env.action_masks()
        legal = env.batch.masks.astype(bool)
        assert not (masks & ~legal).any() and masks.any(axis=1).all()
        env.step(np.array([rng.choice(np.flatnonzero(row)) for row in masks]))
    # a game that draws through its stock and recycles is back where it was: DRAW is then
    # masked at that position as soon as some other move is legal there
    env = KlondikeVecEnv(n_envs=1, seed=0, no_repeat=True, deals=[12], max_episode_steps=200)
    env.reset()
    for _ in range(2):
        while env.action_masks()[0, core.DRAW]:
            env.step(np.array([core.DRAW]))
        env.step(np.array([core.RECYCLE]))
    mask = env.action_masks()[0]
    legal = env.batch.masks[0].astype(bool)
    assert legal[core.DRAW] and legal.sum() > 1
    assert not mask[core.DRAW]
