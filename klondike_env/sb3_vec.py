"""``KlondikeVecEnv``: a stable-baselines3 ``VecEnv`` over the batched core (no subprocesses).

    from sb3_contrib import MaskablePPO
    from klondike_env.sb3_vec import KlondikeVecEnv

    model = MaskablePPO("MlpPolicy", KlondikeVecEnv(n_envs=64, seed=0)).learn(100_000)

This is the only module that imports stable_baselines3; import it only when training.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from klondike_env import core
from klondike_env.env import OUT_TERMINATED, OUT_TRUNCATED, OUT_WON
from klondike_env.move_memory import MoveMemory
from klondike_env.vector import STAT_FOUNDATION, STAT_MOVES, STAT_PASSES, KlondikeBatch


class KlondikeVecEnv(VecEnv):
    """N Klondike games for SB3, stepped by one compiled call.

    Keyword arguments are those of :class:`~klondike_env.env.KlondikeEnv`, plus
    ``num_threads`` (:class:`~klondike_env.vector.KlondikeBatch`). Same-step
    autoreset as SB3 expects: when game ``i`` ends, ``dones[i]`` is true, the returned
    observation is the new game's, and ``infos[i]`` carries ``terminal_observation``,
    ``TimeLimit.truncated``, ``is_success`` (won) and the finished game's ``deal``,
    ``foundation``, ``moves`` and ``passes``. Every step's info has ``won``, ``deal``
    and ``foundation``. ``env_method("action_masks")`` is answered from the one mask
    array, so sb3-contrib's ``MaskablePPO`` needs no wrapper.

    ``no_repeat=True`` narrows the masks handed to the agent with a
    :class:`~klondike_env.move_memory.MoveMemory`: back in a position, the moves a game
    already played from it are masked out (an agent's choice, for memoryless policies
    that would otherwise loop; the observations and the game's rules are unchanged).
    """

    def __init__(self, n_envs: int = 1, seed: int | None = None, no_repeat: bool = False, **kwargs):
        self.batch = KlondikeBatch(n_envs, **kwargs)
        self.memory = MoveMemory(self.batch.num_envs) if no_repeat else None
        self._all_rows = np.arange(self.batch.num_envs)
        self._hashes = np.zeros(self.batch.num_envs, np.uint64)
        self._masks = self.batch.masks
        config = self.batch.config
        from gymnasium import spaces

        self.render_mode = config.render_mode  # read by VecEnv.__init__ through get_attr
        super().__init__(self.batch.num_envs, config.observation_space, spaces.Discrete(core.NUM_ACTIONS))
        self._actions = np.zeros(self.num_envs, np.int64)
        if seed is not None:
            self.seed(seed)

    # --- VecEnv API ----------------------------------------------------------
    def reset(self):
        # seed() stores one seed per env (seed + index); the batch needs only the first
        self.batch.reset(seed=self._seeds[0])
        self._reset_seeds()
        self._reset_options()
        if self.memory is not None:
            self.memory.forget(self._all_rows)
        self._refresh_masks()
        return self.batch.observations  # a fresh array every reset and step

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs)

    def step_wait(self):
        batch = self.batch
        deals_before = batch.deals.copy()
        if self.memory is not None:
            self.memory.played(self._all_rows, self._hashes, self._actions)
        batch.step(self._actions)
        flags = batch.flags
        dones = (flags & (OUT_TERMINATED | OUT_TRUNCATED)) != 0
        if self.memory is not None:
            self.memory.forget(np.flatnonzero(dones))
        self._refresh_masks()
        foundations = batch.foundation_counts()
        infos: list[dict[str, Any]] = [
            {"won": False, "deal": deal, "foundation": count}
            for deal, count in zip(batch.deals.tolist(), foundations.tolist())
        ]
        for row in np.flatnonzero(dones):
            won = bool(flags[row] & OUT_WON)
            infos[row] = {
                "won": won,
                "is_success": won,
                "deal": int(deals_before[row]),
                "foundation": int(batch.final_stats[row, STAT_FOUNDATION]),
                "moves": int(batch.final_stats[row, STAT_MOVES]),
                "passes": int(batch.final_stats[row, STAT_PASSES]),
                "terminal_observation": batch.final_observations[row].copy(),
                "TimeLimit.truncated": bool(flags[row] & OUT_TRUNCATED) and not flags[row] & OUT_TERMINATED,
            }
        return batch.observations, batch.rewards.astype(np.float32), dones, infos

    def close(self) -> None:
        pass

    def action_masks(self) -> np.ndarray:
        """All masks, ``[N, 87]`` bool (with ``no_repeat``, less the moves already tried)."""
        return self._masks.astype(bool)

    def _refresh_masks(self) -> None:
        if self.memory is None:
            self._masks = self.batch.masks
            return
        self._hashes = MoveMemory.hashes(self.batch.states, self.batch.config.rules_array)
        self._masks = self.memory.untried(self._all_rows, self._hashes, self.batch.masks)

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        value = getattr(self, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list[Any]:
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[row] for row in self._get_indices(indices)]
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result for _ in self._get_indices(indices)]

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def get_images(self):
        from klondike_env.render import render_image

        return [render_image(self.batch.game(row)) for row in range(self.num_envs)]
