"""The ``hop`` agent: its candidates and its games (that it reads no hidden card: tests/test_agents.py)."""

from __future__ import annotations

import pytest

from agents import RESIGN, make_agent
from agents.base import AgentOptionError, DealInfo, PlayerView
from agents.evaluation import play_deals, play_game
from agents.hop import _commits, _free, _key, _layout, candidate_lines
from klondike_env import Game, Rules
from klondike_env.core import DRAW, RECYCLE

SMALL = "hop:samples=3,batch=1,nodes=300"


def scouted(deal: int) -> Game:
    """Deal ``deal`` after drawing through the stock and recycling: only face-down cards unseen."""
    game = Game.new(deal)
    for _ in range(len(game.stock) // 3 + 2):
        game.step(DRAW if DRAW in game.legal_actions() else RECYCLE)
    return game


@pytest.mark.parametrize("rules", [Rules(), Rules(draw_count=1), Rules(max_passes=3)])
def test_hop_plays_legal_moves_and_finishes(rules):
    """play_game raises on an illegal action, so finishing proves legality, with passes limited
    too (draws that turn up unseen cards are then candidates, not free)."""
    agent = make_agent(SMALL)
    for deal in (1, 2):
        record = play_game(agent, deal, rules, seed=deal, max_moves=300)
        assert record.ending in {"won", "dead", "resigned", "move limit"}
        assert record.won == (record.foundation_cards == 52)


def test_hop_games_repeat_for_a_seed():
    first = play_deals(SMALL, [2, 3], Rules(), seed=5, progress=False)
    second = play_deals(SMALL, [2, 3], Rules(), seed=5, progress=False)
    assert [r.actions for r in first] == [r.actions for r in second]


@pytest.mark.parametrize("spec, message", [
    ("hop:samples=0", "bad value '0' for option 'samples' of agent 'hop': must be >= 1"),
    ("hop:explore=wide", "bad value 'wide' for option 'explore' of agent 'hop': expected float"),
    ("hop:worlds=3", "unknown option 'worlds' for agent 'hop': allowed options are batch, explore, nodes, "
                     "positions, samples, scout, see_stock, spread"),
])
def test_hop_option_errors_are_one_line(spec, message):
    with pytest.raises(AgentOptionError) as error:
        make_agent(spec)
    assert str(error.value) == message


@pytest.mark.parametrize("deal", [3, 6, 9])
def test_candidates_are_free_lines_ending_in_one_move_that_commits(deal):
    """Along a game, every candidate replays as free moves then one that commits (or, when
    nothing commits, a move to or from a foundation); no two end in the same position; and the
    candidates are the same whatever the hidden cards are."""
    game, moves, checked = scouted(deal), 0, 0
    while not game.is_over and moves < 60:
        view = PlayerView(game)
        lines = candidate_lines(view, 2000)
        other = candidate_lines(PlayerView(game.sample_world(moves)), 2000)
        assert lines == other
        ends, commits = set(), []
        for line in lines:
            replay = game.copy()
            for action in line[:-1]:
                assert _free(PlayerView(replay), action)
                replay.step(action)
            last = PlayerView(replay)
            assert not _free(last, line[-1])
            commits.append(_commits(last, line[-1]))
            replay.step(line[-1])
            ends.add(_key(replay))
            checked += 1
        assert len(ends) == len(lines)
        assert all(commits) or not any(commits)
        game.step(lines[moves % len(lines)][0] if lines else view.legal_actions[0])
        moves += 1
    assert checked >= 100


def test_a_game_never_comes_back_to_a_tableau_it_has_left():
    """Each decision's line ends with a tableau and foundations not seen before in the game."""
    agent, decisions = make_agent(SMALL), 0
    for deal in (4, 5, 6):
        agent.reset(DealInfo(seed=deal, rules=Rules()))
        game, layouts = Game.new(deal), []
        while not game.is_over and game.move_count < 300:
            action = agent.act(PlayerView(game))
            if action == RESIGN:
                break
            game.step(action)
            if not agent._line and action not in (DRAW, RECYCLE):  # a line played out (or a card sent home)
                layouts.append(_layout(game))
        assert len(set(layouts)) == len(layouts)
        decisions += len(layouts)
    assert decisions >= 20
