"""KlondikeEnv: the Gymnasium API, masks, resets, rewards, episode ends, checkers, pickling."""

from __future__ import annotations

import pickle
import warnings

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import klondike_env
from klondike_env import Game, IllegalActionError, Rules, core, parse_card
from klondike_env.env import DEFAULT_MAX_EPISODE_STEPS, KlondikeEnv, start_game
from klondike_env.observation import observe


def random_legal(info, rng) -> int:
    legal = np.flatnonzero(info["action_mask"])
    return int(legal[rng.integers(len(legal))])


def play(env, rng, steps, seed=None, options=None):
    """Random masked play for ``steps`` steps, resetting on episode end; yields step results."""
    obs, info = env.reset(seed=seed, options=options)
    for _ in range(steps):
        action = random_legal(info, rng)
        obs, reward, terminated, truncated, info = env.step(action)
        yield action, obs, reward, terminated, truncated, info
        if terminated or truncated:
            obs, info = env.reset()


def set_position(env: KlondikeEnv, state: np.ndarray) -> None:
    """Put ``state`` on the table as a fresh episode (for hand-built endings)."""
    env.game._state[:] = state
    env.game._mask_valid = False
    start_game(env.game._state, env.config.rules_array, env.config.int_params, env._counters, env._mask, env._obs)


def one_card_from_winning() -> np.ndarray:
    """Every card on the foundations but the king of spades, alone in column 0."""
    state = np.empty(core.STATE_SIZE, np.int32)
    core.clear_state(state)
    state[core.TABLEAU] = parse_card("KS")
    state[core.COLUMN_LENGTH] = 1
    state[core.FOUNDATION:core.FOUNDATION + 4] = (13, 13, 13, 12)
    return state


# --- registration and construction ------------------------------------------------------
def test_registered_on_import_with_rules_as_keywords():
    env = gym.make("klondike_env/Klondike-v1", draw_count=1, max_passes=3, empty_column="any",
                   foundation_to_tableau=False)
    assert env.unwrapped.rules == Rules(draw_count=1, max_passes=3, empty_column="any", foundation_to_tableau=False)
    assert klondike_env.ENV_ID == "klondike_env/Klondike-v1"
    assert gym.make("klondike_env/Klondike-v1").unwrapped.rules == Rules()
    assert env.action_space == gym.spaces.Discrete(87)


def test_the_superseded_version_points_to_the_current_one():
    # v0 paid no Vegas stake after an illegal first action (the Version History in env.py)
    with pytest.raises(gym.error.DeprecatedEnv, match="Klondike-v1"):
        gym.make("klondike_env/Klondike-v0")


@pytest.mark.parametrize("kwargs, message", [
    ({"colour": "red"}, "unknown Klondike env argument.*colour"),
    ({"draw_count": 2}, "draw_count=2"),
    ({"reward": "points"}, "unknown reward 'points'"),
    ({"observation": "all"}, "unknown observation mode 'all'"),
    ({"illegal_action": "ignore"}, "bad illegal_action 'ignore'"),
    ({"max_episode_steps": 0}, "bad max_episode_steps 0"),
    ({"deals": [-1]}, "bad deal number -1"),
    ({"deals": 5}, r"^bad deals 5: give a sequence of deal numbers, e.g. deals=\[1, 2\], or None for random deals$"),
    ({"deals": "12"}, "^bad deals '12': give a sequence of deal numbers"),
    ({"render_mode": "human"}, "bad render_mode 'human'"),
    ({"win_reward": "big"}, "bad win_reward 'big'"),
    ({"observation_dtype": "float64"}, "^bad observation_dtype 'float64': allowed are 'float32', 'uint8'$"),
])
def test_bad_arguments_are_clear_value_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        KlondikeEnv(**kwargs)


# --- checkers ----------------------------------------------------------------------------
def test_gymnasium_check_env():
    from gymnasium.utils.env_checker import check_env

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the checker's warnings count as failures here
        check_env(gym.make("klondike_env/Klondike-v1").unwrapped, skip_render_check=False)
        check_env(gym.make("klondike_env/Klondike-v1", observation="visible", reward="standard").unwrapped)
        check_env(gym.make("klondike_env/Klondike-v1", observation_dtype="uint8").unwrapped)
        check_env(gym.make("klondike_env/Klondike-v1", observation="information+actions",
                           observation_dtype="uint8").unwrapped)


def test_stable_baselines3_check_env():
    from stable_baselines3.common.env_checker import check_env

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(KlondikeEnv(), warn=True)
        check_env(KlondikeEnv(observation="full+actions", observation_dtype="uint8"), warn=True)
    # a 1-D uint8 Box is not an image: SB3 neither transposes nor divides it by 255
    from stable_baselines3.common.preprocessing import is_image_space

    assert not is_image_space(KlondikeEnv(observation_dtype="uint8").observation_space)


# --- reset -------------------------------------------------------------------------------
def test_reset_seed_draws_a_deal_and_options_choose_one():
    env = KlondikeEnv()
    _, info = env.reset(seed=3)
    first_deal = info["deal"]
    assert isinstance(first_deal, int) and 0 <= first_deal < 2**64
    assert env.reset(seed=3)[1]["deal"] == first_deal
    obs, info = env.reset(options={"deal": 1})
    assert info["deal"] == 1 and env.unwrapped.game == Game.new(1)
    assert np.array_equal(obs, observe(Game.new(1)))
    deck = Game.new(7).deck_string()
    obs, info = env.reset(options={"deck": deck})
    assert info["deal"] is None and env.game == Game.new(7)
    with pytest.raises(ValueError, match="bad reset options"):
        env.reset(options={"deal": 1, "deck": deck})
    with pytest.raises(ValueError, match="bad deal number"):
        env.reset(options={"deal": 2**64})


def test_deals_cycle_in_order():
    env = KlondikeEnv(deals=[5, 9, 2])
    assert [env.reset()[1]["deal"] for _ in range(7)] == [5, 9, 2, 5, 9, 2, 5]
    assert env.reset(options={"deal": 40})[1]["deal"] == 40
    assert env.reset(seed=1)[1]["deal"] == 5 and env.reset()[1]["deal"] == 9


def test_step_before_reset_is_refused():
    with pytest.raises(RuntimeError, match="reset"):
        KlondikeEnv().step(0)


# --- masks and illegal actions --------------------------------------------------------------
def test_action_mask_every_step_matches_the_game():
    env = KlondikeEnv()
    rng = np.random.default_rng(0)
    for _, obs, _, _, _, info in play(env, rng, 300, options={"deal": 3}):
        # the env's observation is the leak-tested one (tests/test_observation.py)
        assert np.array_equal(obs, observe(env.game))
        mask = info["action_mask"]
        assert mask.dtype == np.int8 and mask.shape == (87,)
        assert np.array_equal(mask.astype(bool), env.game.action_mask())
        assert np.array_equal(env.action_masks(), env.game.action_mask())


def test_illegal_action_penalised_and_changes_nothing():
    env = KlondikeEnv(illegal_penalty=-0.5)
    obs, info = env.reset(options={"deal": 1})
    before = env.game.state
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    obs2, reward, terminated, truncated, info2 = env.step(illegal)
    assert reward == -0.5 and info2["illegal_action"] and not terminated and not truncated
    assert np.array_equal(obs, obs2) and np.array_equal(env.game.state, before)
    assert env.step(500)[3] is False and env.step(-1)[1] == -0.5  # out of range: illegal too
    _, _, _, _, info3 = env.step(core.DRAW)
    assert not info3["illegal_action"] and env.game.move_count == 1


def test_illegal_action_raise_mode():
    env = KlondikeEnv(illegal_action="raise")
    env.reset(options={"deal": 1})
    with pytest.raises(IllegalActionError, match="illegal action 1"):
        env.step(core.RECYCLE)
    with pytest.raises(IllegalActionError):
        env.step(87)
    with pytest.raises(IllegalActionError, match="integer id"):
        env.step(1.5)
    assert env.game.move_count == 0


# --- rewards ------------------------------------------------------------------------------
def face_down_count(game: Game) -> int:
    return sum(not up for column in game.tableau for _, up in column)


@pytest.mark.parametrize("seed", range(3))
def test_progress_return_is_foundation_plus_flips_plus_win(seed):
    env = KlondikeEnv(foundation_reward=0.25, flip_reward=0.5, win_reward=4.0, max_episode_steps=400)
    rng = np.random.default_rng(seed)
    for _ in range(10):
        _, info = env.reset(seed=seed * 100 + _)
        total = 0.0
        while True:
            _, reward, terminated, truncated, info = env.step(random_legal(info, rng))
            total += reward
            if terminated or truncated:
                break
        expected = 0.25 * info["foundation"] + 0.5 * (21 - face_down_count(env.game)) + 4.0 * info["won"]
        assert total == pytest.approx(expected)


def test_vegas_return_is_the_vegas_score():
    env = KlondikeEnv(reward="vegas", max_episode_steps=300)
    rng = np.random.default_rng(1)
    _, info = env.reset(seed=4)
    total, done = 0.0, False
    while not done:
        _, reward, terminated, truncated, info = env.step(random_legal(info, rng))
        total += reward
        done = terminated or truncated
    assert total == -52 + 5 * info["foundation"]


def test_vegas_stake_is_paid_even_when_the_first_action_is_illegal():
    env = KlondikeEnv(reward="vegas")
    _, info = env.reset(options={"deal": 1})
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    _, reward, _, _, _ = env.step(illegal)
    assert reward == pytest.approx(-52 + env.config.illegal_penalty)
    _, reward, _, _, _ = env.step(0)  # a draw: no stake twice
    assert reward == 0.0


def test_standard_scoring_per_move():
    env = KlondikeEnv(reward="standard", max_episode_steps=None)
    rng = np.random.default_rng(2)
    _, info = env.reset(options={"deal": 8})
    seen = set()
    for _ in range(3000):
        action = random_legal(info, rng)
        before_down, before_found = face_down_count(env.game), info["foundation"]
        recycles = env.game.passes - 1
        _, reward, terminated, truncated, info = env.step(action)
        flipped = before_down - face_down_count(env.game)
        gained = info["foundation"] - before_found
        if gained > 0:
            expected = 10
        elif gained < 0:
            expected = -15
        elif 3 <= action <= 9:
            expected = 5
        elif action == core.RECYCLE:
            expected = -20 if recycles + 1 >= 3 else 0
        else:
            expected = 0
        assert reward == expected + 5 * flipped
        seen.add(expected)
        if terminated or truncated:
            _, info = env.reset(options={"deal": int(rng.integers(100))})
    assert {10, 5, 0, -20} <= seen


def test_win_reward_and_termination():
    for reward, expected in (("win", 1.0), ("progress", 0.1 + 1.0), ("standard", 10.0), ("vegas", 5.0 - 52)):
        env = KlondikeEnv(reward=reward)
        env.reset(options={"deal": 0})
        set_position(env, one_card_from_winning())
        obs, got, terminated, truncated, info = env.step(core.COLUMN_TO_FOUNDATION + 0)
        assert got == pytest.approx(expected) and terminated and not truncated
        assert info["won"] and info["foundation"] == 52 and env.game.is_won


# --- episode end ----------------------------------------------------------------------------
def test_terminations_are_wins_or_dead_positions():
    env = KlondikeEnv(max_passes=1, max_episode_steps=150)  # one pass: games die often
    rng = np.random.default_rng(9)
    ends = {"dead": 0, "truncated": 0}
    for _, _, _, terminated, truncated, info in play(env, rng, 4000, seed=0):
        if terminated:
            assert info["won"] == env.game.is_won
            assert env.game.is_won or env.game.is_dead
            ends["dead"] += not info["won"]
        else:
            assert not env.game.is_dead and not info["won"]
        ends["truncated"] += truncated
    assert ends["dead"] > 10


def test_truncation_at_max_episode_steps_and_without_progress():
    env = KlondikeEnv(max_episode_steps=5)
    env.reset(options={"deal": 1})
    results = [env.step(core.DRAW)[3] for _ in range(5)]
    assert results == [False] * 4 + [True]
    env = KlondikeEnv(no_progress_steps=3)
    env.reset(options={"deal": 1})
    assert [env.step(core.DRAW)[3] for _ in range(3)] == [False, False, True]
    assert KlondikeEnv().config.max_episode_steps == DEFAULT_MAX_EPISODE_STEPS


def test_info_keys():
    env = KlondikeEnv()
    _, info = env.reset(options={"deal": 2})
    assert set(info) >= {"action_mask", "won", "deal", "foundation", "moves", "passes", "illegal_action"}
    _, _, _, _, info = env.step(core.DRAW)
    assert info["moves"] == 1 and info["passes"] == 1 and info["deal"] == 2


# --- determinism, pickling, Game integration ------------------------------------------------------
def trajectory(env, seed, steps=400):
    rng = np.random.default_rng(seed)
    return [(a, o.tobytes(), r, te, tr, i["deal"]) for a, o, r, te, tr, i in play(env, rng, steps, seed=seed)]


def test_same_seed_same_trajectory():
    assert trajectory(KlondikeEnv(max_episode_steps=100), 5) == trajectory(KlondikeEnv(max_episode_steps=100), 5)
    assert trajectory(KlondikeEnv(max_episode_steps=100), 5) != trajectory(KlondikeEnv(max_episode_steps=100), 6)


def test_pickle_mid_episode_continues_identically():
    env = KlondikeEnv()
    rng = np.random.default_rng(0)
    for _ in play(env, rng, 30, options={"deal": 4}):
        pass
    clone = pickle.loads(pickle.dumps(env))
    info = {"action_mask": env._mask}
    for _ in range(50):
        action = random_legal(info, rng)
        first, second = env.step(action), clone.step(action)
        assert np.array_equal(first[0], second[0]) and first[1:4] == second[1:4]
        info = first[4]
        if first[2] or first[3]:
            break


def test_env_game_supports_undo():
    env = KlondikeEnv()
    env.reset(options={"deal": 1})
    env.step(core.DRAW)
    env.game.undo()
    assert env.game == Game.new(1)


# --- rendering ------------------------------------------------------------------------------
def test_render_modes():
    env = KlondikeEnv(render_mode="ansi")
    env.reset(options={"deal": 1})
    assert env.render() == str(env.game)
    env = KlondikeEnv(render_mode="rgb_array")
    env.reset(options={"deal": 1})
    image = env.render()
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    assert KlondikeEnv.metadata["render_fps"] > 0


@settings(max_examples=40, deadline=None)
@given(deal=st.integers(0, 2**64 - 1), actions=st.lists(st.integers(-3, 90), max_size=80),
       observation=st.sampled_from(["information", "visible", "full"]))
def test_any_action_sequence_keeps_the_env_consistent(deal, actions, observation):
    """Arbitrary ids, legal or not: observations stay in the space and match the game; an
    illegal id changes nothing and earns the penalty."""
    env = KlondikeEnv(observation=observation)
    obs, info = env.reset(options={"deal": deal})
    for action in actions:
        legal = 0 <= action < 87 and bool(info["action_mask"][action])
        before = env.game.state
        obs, reward, terminated, truncated, info = env.step(action)
        assert env.observation_space.contains(obs)
        assert np.array_equal(obs, observe(env.game, observation))
        assert np.array_equal(info["action_mask"].astype(bool), env.game.action_mask())
        assert info["illegal_action"] == (not legal)
        if not legal:
            assert reward == -0.1 and np.array_equal(env.game.state, before)
        if terminated or truncated:
            break
