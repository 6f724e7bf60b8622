"""The batched envs: Gymnasium VectorEnv and SB3 VecEnv, equal to the single env game by game."""

from __future__ import annotations

import os
import pickle

import gymnasium as gym
import numba
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from klondike_env.env import OUT_TERMINATED, OUT_TRUNCATED, KlondikeEnv
from klondike_env.vector import KlondikeBatch, KlondikeVectorEnv, THREAD_SPIN_COUNT, start_thread_pool


def random_actions(masks: np.ndarray, rng: np.random.Generator, illegal_rate: float = 0.0) -> np.ndarray:
    """One random legal action per row; with ``illegal_rate``, sometimes any action at all."""
    actions = np.empty(len(masks), np.int64)
    for row, mask in enumerate(masks):
        legal = np.flatnonzero(mask)
        actions[row] = rng.integers(87) if rng.random() < illegal_rate else legal[rng.integers(len(legal))]
    return actions


def test_make_vec_vector_entry_point():
    envs = gym.make_vec("klondike_env/Klondike-v1", num_envs=4, vectorization_mode="vector_entry_point",
                        draw_count=1, observation="visible")
    assert isinstance(envs.unwrapped, KlondikeVectorEnv)
    assert envs.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    obs, info = envs.reset(seed=0)
    assert obs.shape == (4, 485) and obs.dtype == np.float32 and envs.observation_space.contains(obs)
    assert info["action_mask"].shape == (4, 87) and info["action_mask"].dtype == np.int8
    assert envs.unwrapped.batch.config.rules.draw_count == 1
    actions = envs.action_space.sample()
    assert envs.step(actions)[0].shape == (4, 485)


@pytest.mark.parametrize("kwargs", [
    {"max_episode_steps": 150},
    {"reward": "standard", "observation": "full", "max_episode_steps": 60},
    {"draw_count": 1, "max_passes": 2, "empty_column": "any", "no_progress_steps": 25, "reward": "vegas"},
    {"observation_dtype": "uint8", "observation": "information+actions", "max_episode_steps": 100},
    {"observation_dtype": "uint8", "observation": "full", "draw_count": 1, "max_episode_steps": 70},
])
def test_batched_equals_single_game_by_game(kwargs):
    """Same deals, same actions (legal and not): same observations, rewards, ends, masks, next deals."""
    n = 6
    rng = np.random.default_rng(1)
    vector = KlondikeVectorEnv(n, **kwargs)
    singles = [KlondikeEnv(**kwargs) for _ in range(n)]
    obs, infos = vector.reset(seed=3, options={"deals": list(range(100, 100 + n))})
    for row, env in enumerate(singles):
        single_obs, single_info = env.reset(options={"deal": 100 + row})
        assert np.array_equal(single_obs, obs[row])
    finished = 0
    for _ in range(400):
        actions = random_actions(infos["action_mask"], rng, illegal_rate=0.05)
        obs, rewards, terminated, truncated, infos = vector.step(actions)
        for row, env in enumerate(singles):
            single_obs, reward, single_terminated, single_truncated, info = env.step(int(actions[row]))
            assert reward == rewards[row] and single_terminated == terminated[row]
            assert single_truncated == truncated[row] and info["won"] == infos["won"][row]
            assert info["illegal_action"] == infos["illegal_action"][row]
            if single_terminated or single_truncated:
                finished += 1
                assert infos["_final_obs"][row] and np.array_equal(infos["final_obs"][row], single_obs)
                assert infos["final_info"]["foundation"][row] == info["foundation"]
                assert infos["final_info"]["moves"][row] == info["moves"]
                assert infos["final_info"]["deal"][row] == info["deal"]
                # the batch dealt a new game in place: the single env follows it
                single_obs, info = env.reset(options={"deal": int(infos["deal"][row])})
            assert np.array_equal(single_obs, obs[row])
            assert np.array_equal(info["action_mask"], infos["action_mask"][row])
            assert info["foundation"] == infos["foundation"][row] and info["moves"] == infos["moves"][row]
    assert finished >= 3


def test_vector_seed_reproducible_and_deals_cycle():
    def run(seed):
        envs = KlondikeVectorEnv(3, max_episode_steps=20)
        obs, infos = envs.reset(seed=seed)
        rng = np.random.default_rng(0)
        deals = [infos["deal"].copy()]
        for _ in range(45):
            obs, *_, infos = envs.step(random_actions(infos["action_mask"], rng))
            deals.append(infos["deal"].copy())
        return np.array(deals), obs

    first, second, other = run(7), run(7), run(8)
    assert np.array_equal(first[0], second[0]) and np.array_equal(first[1], second[1])
    assert not np.array_equal(first[0], other[0])
    # every game was re-dealt at least twice (20-step limit), each time to a deal not seen before
    episodes = [np.concatenate([[deals[0]], deals[1:][deals[1:] != deals[:-1]]]) for deals in first[0].T]
    assert all(len(game_deals) >= 3 for game_deals in episodes)
    all_deals = np.concatenate(episodes)
    assert len(np.unique(all_deals)) == len(all_deals)

    envs = KlondikeVectorEnv(2, deals=[4, 5, 6], max_episode_steps=1)
    _, infos = envs.reset(seed=0)
    seen = [infos["deal"].tolist()]
    for _ in range(2):
        seen.append(envs.step(np.zeros(2, np.int64))[4]["deal"].tolist())
    assert seen == [[4, 5], [6, 4], [5, 6]]


def test_bad_vector_input():
    with pytest.raises(ValueError, match="bad number of envs 0"):
        KlondikeVectorEnv(0)
    envs = KlondikeVectorEnv(2)
    envs.reset(seed=0)
    with pytest.raises(ValueError, match="bad actions of shape"):
        envs.step(np.zeros(3, np.int64))
    with pytest.raises(ValueError, match="2 envs"):
        envs.reset(options={"deals": [1]})
    with pytest.raises(ValueError, match="bad reset options"):
        envs.reset(options={"deal": 1})


def test_batch_memory_and_game_view():
    batch = KlondikeBatch(4)
    batch.reset(seed=0, deals=[1, 2, 3, 4])
    assert batch.memory_bytes_per_game < 16_000
    assert batch.game(0).deal == 1
    assert np.array_equal(batch.game(2).state, batch.states[2])


# --- stable-baselines3 --------------------------------------------------------------------
def test_sb3_vecenv_autoreset_infos_and_masks():
    from klondike_env.sb3_vec import KlondikeVecEnv

    envs = KlondikeVecEnv(n_envs=4, seed=0, max_episode_steps=30)
    obs = envs.reset()
    assert obs.shape == (4, 745)
    masks = envs.env_method("action_masks")
    assert len(masks) == 4 and np.array_equal(np.stack(masks), envs.batch.masks.astype(bool))
    assert envs.get_attr("render_mode") == [None] * 4
    rng = np.random.default_rng(0)
    done_seen = 0
    kept = []  # (terminal_observation as handed out, a copy made then): later steps must not change it
    for _ in range(40):
        deals = envs.batch.deals.copy()
        obs, rewards, dones, infos = envs.step(random_actions(envs.batch.masks, rng))
        assert rewards.dtype == np.float32 and len(infos) == 4
        for row in range(4):
            assert {"won", "deal", "foundation"} <= set(infos[row])
            if dones[row]:
                done_seen += 1
                info = infos[row]
                assert info["deal"] == deals[row] and info["is_success"] == info["won"]
                assert info["terminal_observation"].shape == (745,)
                truncated = bool(envs.batch.flags[row] & OUT_TRUNCATED)
                terminated = bool(envs.batch.flags[row] & OUT_TERMINATED)
                assert info["TimeLimit.truncated"] == (truncated and not terminated)
                assert np.array_equal(info["terminal_observation"], envs.batch.final_observations[row])
                kept.append((info["terminal_observation"], info["terminal_observation"].copy()))
            else:
                assert "terminal_observation" not in infos[row] and infos[row]["deal"] == deals[row]
    assert done_seen >= 4
    assert all(np.array_equal(handed_out, copy) for handed_out, copy in kept)


def test_sb3_vecenv_same_seed_same_run_and_pickles():
    from klondike_env.sb3_vec import KlondikeVecEnv

    def run(envs):
        envs.seed(11)
        obs = envs.reset()
        rng = np.random.default_rng(1)
        out = [obs]
        for _ in range(30):
            out.append(envs.step(random_actions(envs.batch.masks, rng))[0])
        return np.stack(out)

    assert np.array_equal(run(KlondikeVecEnv(3)), run(KlondikeVecEnv(3)))
    clone = pickle.loads(pickle.dumps(KlondikeVecEnv(3)))
    assert clone.reset().shape == (3, 745)


def test_uint8_envs_send_the_float32_observations_numerators():
    """The same run in both dtypes: every uint8 observation (and final one) divided is the float32 one."""
    from klondike_env.observation import observation_divisors
    from klondike_env.sb3_vec import KlondikeVecEnv

    def run(dtype):
        envs = KlondikeVecEnv(5, seed=2, observation="information+actions", max_episode_steps=25,
                              observation_dtype=dtype)
        assert envs.observation_space.dtype == np.dtype(dtype)
        out = [envs.reset()]
        rng = np.random.default_rng(3)
        for _ in range(60):
            obs, _, dones, infos = envs.step(random_actions(envs.batch.masks, rng))
            out += [obs] + [infos[row]["terminal_observation"][None] for row in np.flatnonzero(dones)]
        return np.concatenate(out)

    values, numerators = run("float32"), run("uint8")
    assert numerators.dtype == np.uint8 and len(numerators) > 300
    rebuilt = numerators.astype(np.float32) / observation_divisors("information+actions")
    assert np.array_equal(rebuilt.view(np.uint32), values.view(np.uint32))


@pytest.mark.parametrize("make", [
    lambda: KlondikeBatch(2, observation_dtype="float16"),
    lambda: KlondikeVectorEnv(2, observation_dtype="float16"),
    lambda: __import__("klondike_env.sb3_vec").sb3_vec.KlondikeVecEnv(2, observation_dtype="float16"),
])
def test_bad_observation_dtype_is_a_one_line_error(make):
    with pytest.raises(ValueError, match=r"^bad observation_dtype 'float16': allowed are 'float32', 'uint8'$"):
        make()


@pytest.mark.slow
def test_maskable_ppo_trains_on_the_vecenv():
    from sb3_contrib import MaskablePPO

    from klondike_env.sb3_vec import KlondikeVecEnv

    envs = KlondikeVecEnv(n_envs=8, seed=0, max_episode_steps=200)
    model = MaskablePPO("MlpPolicy", envs, n_steps=32, batch_size=64, n_epochs=2, seed=0, device="cpu")
    model.learn(total_timesteps=512)
    assert model.num_timesteps >= 512
    action, _ = model.predict(envs.reset(), action_masks=envs.action_masks())
    assert all(envs.batch.masks[row, a] for row, a in enumerate(action))


def test_returned_observations_are_never_overwritten():
    envs = KlondikeVectorEnv(3, max_episode_steps=4)
    first, infos = envs.reset(seed=0)
    kept = first.copy()
    rng = np.random.default_rng(0)
    for _ in range(6):  # through an autoreset, with some illegal actions
        obs, *_, infos = envs.step(random_actions(infos["action_mask"], rng, illegal_rate=0.3))
        assert obs is not first
    assert np.array_equal(first, kept)


def test_vector_env_pickles_mid_run():
    envs = KlondikeVectorEnv(3, max_episode_steps=10)
    _, infos = envs.reset(seed=2)
    rng = np.random.default_rng(0)
    for _ in range(5):
        _, *_, infos = envs.step(random_actions(infos["action_mask"], rng))
    clone = pickle.loads(pickle.dumps(envs))
    for _ in range(12):  # through autoresets: the deal streams travel with the pickle
        actions = random_actions(infos["action_mask"], rng)
        first, second = envs.step(actions), clone.step(actions)
        assert np.array_equal(first[0], second[0]) and np.array_equal(first[1], second[1])
        assert np.array_equal(first[4]["deal"], second[4]["deal"])
        infos = first[4]


@pytest.mark.parametrize("kwargs", [
    {"max_episode_steps": 15},
    {"deals": [5, 6, 7], "max_episode_steps": 9, "observation": "full", "draw_count": 1, "reward": "standard"},
    {"max_episode_steps": 12, "observation": "visible+actions", "observation_dtype": "uint8"},
])
def test_threads_give_the_same_results(kwargs):
    """num_threads shares the games among numba's threads: every output and the deal order stay the same."""
    threads = min(2, numba.config.NUMBA_NUM_THREADS)

    def run(num_threads):
        envs = gym.make_vec("klondike_env/Klondike-v1", num_envs=33, vectorization_mode="vector_entry_point",
                            num_threads=num_threads, **kwargs)
        assert envs.unwrapped.batch.num_threads == num_threads
        obs, infos = envs.reset(seed=4)
        rng = np.random.default_rng(2)
        out = [obs]
        for _ in range(40):  # through autoresets, with some illegal actions
            obs, rewards, terminated, truncated, infos = envs.step(
                random_actions(infos["action_mask"], rng, illegal_rate=0.1))
            out += [obs, rewards, terminated, truncated, infos["action_mask"], infos["deal"]]
            if "final_obs" in infos:
                out += [np.stack([o for o in infos["final_obs"] if o is not None]), infos["final_info"]["moves"]]
        return out

    serial, parallel = run(1), run(threads)
    assert len(serial) == len(parallel) > 240
    for first, second in zip(serial, parallel):
        assert np.array_equal(first, second)


def test_thread_pool_starts_with_a_bounded_spin_unless_told_otherwise(monkeypatch):
    """libgomp reads GOMP_SPINCOUNT when numba starts its pool: THREAD_SPIN_COUNT then, unless the
    user set it or OMP_WAIT_POLICY; the variable is not left behind, and a running pool is left alone."""
    seen = []

    def not_started():
        raise ValueError("Threading layer is not initialized.")

    monkeypatch.setattr(numba, "threading_layer", not_started)
    monkeypatch.setattr(numba, "get_num_threads", lambda: seen.append(os.environ.get("GOMP_SPINCOUNT")) or 2)
    monkeypatch.delenv("GOMP_SPINCOUNT", raising=False)
    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    start_thread_pool()
    assert seen == [str(THREAD_SPIN_COUNT)] and "GOMP_SPINCOUNT" not in os.environ
    monkeypatch.setenv("OMP_WAIT_POLICY", "PASSIVE")
    start_thread_pool()
    assert seen == [str(THREAD_SPIN_COUNT), None] and os.environ["OMP_WAIT_POLICY"] == "PASSIVE"
    monkeypatch.delenv("OMP_WAIT_POLICY")
    monkeypatch.setenv("GOMP_SPINCOUNT", "7")
    start_thread_pool()
    assert seen[-1] == "7" and os.environ["GOMP_SPINCOUNT"] == "7"
    monkeypatch.setattr(numba, "threading_layer", lambda: "omp")
    start_thread_pool()
    assert len(seen) == 3


def test_bad_num_threads():
    for bad in (0, "2", 2.0, numba.config.NUMBA_NUM_THREADS + 1):
        with pytest.raises(ValueError, match="bad num_threads"):
            KlondikeBatch(4, num_threads=bad)


def test_play_batch_is_play_step_on_the_active_rows():
    from klondike_env import core
    from klondike_env.env import COUNTERS, EnvConfig, play_step
    from klondike_env.vector import play_batch

    config = EnvConfig(max_episode_steps=5)
    rules = config.rules_array
    rng = np.random.default_rng(0)
    states = np.zeros((6, core.STATE_SIZE), np.int32)
    for row in range(6):
        core.init_state_from_deal(row + 1, states[row])
    masks = np.zeros((6, core.NUM_ACTIONS), np.int8)
    for row in range(6):
        core.legal_mask(states[row], rules, masks[row])
    counters = np.zeros((6, COUNTERS), np.int64)
    active = np.array([True, True, False, True, True, True])
    expected_states, expected_masks, expected_counters = states.copy(), masks.copy(), counters.copy()
    opening = states.copy()
    rewards, flags = np.ones(6), np.ones(6, np.int64)
    for _ in range(6):  # the 5-step limit ends every active game on the 5th step
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in masks])
        was_active = active.copy()
        play_batch(states, rules, actions, config.int_params, config.float_params, counters, masks, active,
                   rewards, flags)
        for row in range(6):
            if was_active[row]:
                reward, flag = play_step(expected_states[row], rules, actions[row], config.int_params,
                                         config.float_params, expected_counters[row], expected_masks[row])
                assert (rewards[row], flags[row]) == (reward, flag)
                assert active[row] == (flag & (OUT_TERMINATED | OUT_TRUNCATED) == 0)
            else:
                assert (rewards[row], flags[row], active[row]) == (0.0, 0, False)
        np.testing.assert_array_equal(states, expected_states)
        np.testing.assert_array_equal(masks, expected_masks)
    assert not active.any()
    np.testing.assert_array_equal(states[2], opening[2])  # never stepped
