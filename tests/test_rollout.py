"""The ``rollout`` agent (agents/rollout.py): the committed policy improved by its own rollouts."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from agents import make_agent  # noqa: E402
from agents.base import UNKNOWN, AgentOptionError, DealInfo, PlayerView  # noqa: E402
from agents.evaluation import play_game  # noqa: E402
from klondike_env import Game, Rules  # noqa: E402
from klondike_env.core import DRAW, RECYCLE  # noqa: E402
from klondike_env.observation import observe  # noqa: E402

MODEL = "models/ppo_draw3_privileged_critic/model.zip"
RULES = Rules(draw_count=3)


def rollout(**options):
    text = ",".join(f"{key}={value}" for key, value in options.items())
    return make_agent(f"rollout:path={MODEL}" + (f",{text}" if text else ""))


def searched_position(agent, deal=1001, seed=7):
    """The first position of ``deal`` (played by ``agent``) where it searches: the game there,
    its view, the move the search chose and the moves before it."""
    game = Game.new(deal, RULES)
    agent.reset(DealInfo(seed=seed, rules=RULES))
    moves = []
    while True:
        before = agent.searched
        view = PlayerView(game)
        action = agent.act(view)
        if agent.searched > before:
            return game, view, action, moves
        game.step(action)
        moves.append(action)


def test_without_search_it_plays_the_policy_move_for_move():
    policy = make_agent(f"policy:path={MODEL},no_repeat=true")
    plain = play_game(policy, 1005, RULES, seed=1, max_moves=300)
    unsure_never = play_game(rollout(confident=0), 1005, RULES, seed=1, max_moves=300)
    assert unsure_never.actions == plain.actions
    assert plain.won  # a deal the policy wins, so the comparison covers a whole game


def test_it_searches_where_the_policy_is_unsure_and_plays_legal_moves():
    agent = rollout(samples=2, depth=3)
    record = play_game(agent, 1001, RULES, seed=3, max_moves=120)  # AgentError on an illegal move
    assert agent.searched >= 5
    assert record.moves == 120 or record.ending != "move limit"


def test_it_first_draws_through_the_stock_and_recycles():
    record = play_game(rollout(confident=0, scout="true"), 1005, RULES, seed=1, max_moves=9)
    assert record.actions == (DRAW,) * 8 + (RECYCLE,)
    game = Game.new(1005, RULES)
    for action in record.actions:
        game.step(action)
    assert UNKNOWN not in PlayerView(game).stock and len(game.stock) == 24
    limited = Rules(draw_count=3, max_passes=3)  # a recycle costs a pass: no scouting
    policy = make_agent(f"policy:path={MODEL},no_repeat=true")
    assert play_game(rollout(confident=0, scout="true"), 1005, limited, seed=1, max_moves=12).actions == \
        play_game(policy, 1005, limited, seed=1, max_moves=12).actions


def test_a_move_is_scored_by_its_reward_plus_the_discounted_critic_value():
    """depth=0: each candidate's score is r + gamma * V(after), averaged over the sampled worlds,
    recomputed here from Game steps and the model's own critic."""
    agent = rollout(samples=3, depth=0)
    game, view, _, _ = searched_position(agent)
    candidates = sorted(view.legal_actions)[:2]
    agent.rng = np.random.default_rng(11)
    scores = agent._rollout_scores(view, candidates)
    rng = np.random.default_rng(11)
    worlds = [view.sample_world(rng) for _ in range(3)]
    expected = []
    for action in candidates:
        returns = []
        for world in worlds:
            after = world.copy()
            down_before = sum(1 for column in after.tableau for _, up in column if not up)
            home_before = sum(after.foundations)
            after.step(action)
            down_after = sum(1 for column in after.tableau for _, up in column if not up)
            reward = 0.1 * (sum(after.foundations) - home_before) + 0.05 * (down_before - down_after)
            value = agent._values(observe(after, "information+actions+full")[None])[0]
            returns.append(reward + 0.995 * value * (not after.is_over))
        expected.append(np.mean(returns))
    np.testing.assert_allclose(scores, expected, rtol=1e-5, atol=1e-6)


def test_what_it_plays_depends_only_on_what_the_player_knows():
    agent = rollout(samples=4, depth=4)
    game, view, action, moves = searched_position(agent)
    other = game.sample_world(np.random.default_rng(5))  # the same view, hidden cards elsewhere
    assert other.hidden_cards() == game.hidden_cards() and other._state.tolist() != game._state.tolist()
    again = rollout(samples=4, depth=4)
    replay = Game.new(1001, RULES)
    again.reset(DealInfo(seed=7, rules=RULES))
    for move in moves:
        again.act(PlayerView(replay))
        replay.step(move)
    assert again.act(PlayerView(other)) == action


def test_a_stalled_game_is_not_searched(monkeypatch):
    agent = rollout(stall=1)
    monkeypatch.setattr(agent, "_rollout_scores", lambda *args: pytest.fail("searched after the stall"))
    game = Game.new(1001, RULES)
    agent.reset(DealInfo(seed=0, rules=RULES))
    agent._track_progress(PlayerView(game))
    agent._since_progress = 1
    view = PlayerView(game)
    assert agent._choose(view, view.legal_mask) == int(np.argmax(agent._probabilities(
        agent._policy.observe(view)[None], view.legal_mask[None])[0]))


@pytest.mark.parametrize("spec, message", [
    ("rollout", "agent 'rollout' needs path=MODEL.zip"),
    ("rollout:path=no/such.zip", "model file 'no/such.zip' not found"),
    (f"rollout:path={MODEL},confident=2", "option 'confident' of agent 'rollout': expected a probability from 0 to 1"),
    (f"rollout:path={MODEL},samples=0", "samples"),
    (f"rollout:path={MODEL},depth=-1", "depth"),
])
def test_bad_options_are_one_line_errors(spec, message):
    with pytest.raises(AgentOptionError, match=message) as error:
        make_agent(spec)
    assert "\n" not in str(error.value)
