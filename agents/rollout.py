"""``rollout``: a trained policy improved at play time by its own rollouts in sampled worlds.

``rollout:path=models/ppo_draw3_privileged_critic/model.zip`` plays the model as agent
``policy`` does (argmax, with the loop breaker), except at decisions where the policy is
unsure: when its likeliest move has probability below ``confident``, its ``top`` likeliest
moves (those of probability at least ``min_prob``) are each tried in ``samples`` worlds
sampled from the view (:meth:`~agents.base.PlayerView.sample_world`, the same worlds for
every move). In each world the move is played, then the policy itself plays ``depth`` more
moves, and the rollout is scored as the trained critic would score that move: the discounted
rewards it earned (the run's own reward and discount, from its ``config.yaml``) plus the
discounted critic value where it stopped (0 where the game ended). The move with the best
mean over the worlds is played; ties go to the likelier move.

This is one step of policy improvement by rollouts (Tesauro and Galperin's rollouts for
backgammon), with the critic cutting rollouts short: every rollout of a decision moves in
one batch, so each of its ``depth`` moves costs one network call for all worlds and moves.
A model trained with a critic that sees the hidden cards (a ``"...+full"`` observation
mode) gets each sampled world's full state there: the world is the agent's own guess, so
nothing hidden is read. The actor still sees only the player's part.

With ``scout=true`` and unlimited passes the agent first draws through the stock and recycles,
as agent ``determinized`` does: free, since the recycle restores the opening position, and
afterwards the sampled worlds differ only in the face-down tableau cards. Off by default: on
``val`` deals 1001-1200 it made no measurable difference (38 wins with it, 40 without).

When a game stalls -- ``stall`` moves without a card going to a foundation or a face-down
card turning up -- the agent stops searching and plays the policy's move: a game that
wanders with the loop breaker to the move cap would otherwise pay for a search at every one of
its moves. Everything is seeded by the deal's seed, so a run is reproducible.
"""

from __future__ import annotations

import numpy as np

from agents.base import Agent, AgentOptionError, DealInfo, PlayerView
from agents.positions import scouting_draw
from agents.policy import PolicyAgent
from klondike_env import core
from klondike_env.env import COUNTERS, EnvConfig
from klondike_env.move_memory import MoveMemory
from klondike_env.observation import encode_batch, mode_id, observation_size
from klondike_env.vector import play_batch

REWARD_KEYS = ("reward", "foundation_reward", "flip_reward", "win_reward")


class RolloutAgent(Agent):
    name = "rollout"
    OPTIONS = {
        "path": (str, "", "the model .zip (its run's config.yaml beside it gives observation, reward and discount)"),
        "samples": (int, 16, "worlds sampled per searched decision"),
        "top": (int, 4, "at most this many of the policy's likeliest moves are tried"),
        "min_prob": (float, 0.02, "only moves the policy gives at least this probability are tried"),
        "confident": (float, 0.99, "no search where the policy's likeliest move has at least this probability"),
        "depth": (int, 20, "moves the policy plays after each tried move before the critic scores the position"),
        "stall": (int, 150, "no search after this many moves without a card going home or turning up (0: no limit)"),
        "scout": (bool, False, "with unlimited passes, first draw through the stock and recycle, to start knowing the talon"),
    }
    MINIMUM = {"samples": 1, "top": 1}

    def __init__(self, **options):
        super().__init__(**options)
        for option in ("min_prob", "confident"):
            if not 0.0 <= getattr(self, option) <= 1.0:
                raise AgentOptionError(f"bad value {getattr(self, option)!r} for option {option!r} of agent "
                                       f"'rollout': expected a probability from 0 to 1")
        if not self.path:
            raise AgentOptionError("agent 'rollout' needs path=MODEL.zip (a model saved by klondike train)")
        # the policy agent loads and checks the model, and owns the loop breaker of the real game
        self._policy = PolicyAgent(path=self.path, deterministic=True, no_repeat=True)
        settings = self._policy.settings
        self.model = self._policy.model
        self.gamma = settings.gamma
        self._mode = mode_id(self._policy.mode)
        self._observation_size = observation_size(self._policy.mode)
        self._dtype = np.dtype(self._policy.observation_dtype)
        # rollouts earn the run's rewards and are never cut by a step limit (depth is their limit)
        rewards = EnvConfig(**{key: settings.env[key] for key in REWARD_KEYS if key in settings.env},
                            max_episode_steps=None, no_progress_steps=None)
        self._int_params, self._float_params = rewards.int_params, rewards.float_params
        self.searched = 0  # decisions searched in the current game (for reports and tests)

    def reset(self, deal: DealInfo) -> None:
        super().reset(deal)
        self._policy.reset(deal)
        self._best_progress = None
        self._since_progress = 0
        self._scouting = self.scout
        self.searched = 0

    def act(self, view: PlayerView) -> int:
        if self._scouting:
            if scouting_draw(view):
                return core.DRAW
            self._scouting = False
            if core.RECYCLE in view.legal_actions and not view.stock:  # back to the opening, the talon known
                return core.RECYCLE
        self._track_progress(view)
        mask = self._policy.untried_mask(view)
        action = self._choose(view, mask)
        self._policy.remember(view, action)
        return action

    def _track_progress(self, view: PlayerView) -> None:
        progress = (sum(view.foundations), -sum(column.down for column in view.tableau))
        if self._best_progress is None or progress > self._best_progress:
            self._best_progress, self._since_progress = progress, 0
        else:
            self._since_progress += 1

    def _choose(self, view: PlayerView, mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask)
        if len(legal) == 1:
            return int(legal[0])
        probabilities = self._probabilities(self._policy.observe(view)[None], mask[None])[0]
        order = [int(action) for action in np.argsort(-probabilities, kind="stable") if mask[action]]
        stalled = self.stall and self._since_progress >= self.stall
        if stalled or probabilities[order[0]] >= self.confident:
            return order[0]
        candidates = [action for action in order[: self.top] if probabilities[action] >= self.min_prob] or order[:1]
        if len(candidates) == 1:
            return candidates[0]
        self.searched += 1
        scores = self._rollout_scores(view, candidates)
        return candidates[int(np.argmax(scores))]

    def _rollout_scores(self, view: PlayerView, candidates: list[int]) -> np.ndarray:
        """Mean over sampled worlds of each candidate's n-step return under the policy."""
        worlds = [view.sample_world(self.rng) for _ in range(self.samples)]
        rules = worlds[0]._rules_array
        rows = len(candidates) * self.samples
        states = np.stack([world._state for world in worlds] * len(candidates))
        actions = np.repeat(np.asarray(candidates, np.int64), self.samples)
        masks = np.stack([world.action_mask() for world in worlds] * len(candidates)).astype(np.int8)
        counters = np.zeros((rows, COUNTERS), np.int64)
        active = np.ones(rows, np.bool_)
        step_rewards, flags = np.zeros(rows), np.zeros(rows, np.int64)
        returns, discounts = np.zeros(rows), np.ones(rows)
        memory = MoveMemory(rows)  # each rollout's own loop breaker, as the policy plays
        observations = np.zeros((rows, self._observation_size), self._dtype)
        all_rows = np.arange(rows)
        for move in range(self.depth + 1):
            play_batch(states, rules, actions, self._int_params, self._float_params, counters, masks, active,
                       step_rewards, flags)
            returns += discounts * step_rewards
            discounts *= self.gamma
            playing = all_rows[active]
            if move == self.depth or len(playing) == 0:
                break
            hashes = MoveMemory.hashes(states[playing], rules)
            untried = memory.untried(playing, hashes, masks[playing])
            encode_batch(states[playing], rules, masks[playing], self._mode, observations[: len(playing)])
            chosen = self._probabilities(observations[: len(playing)], untried).argmax(axis=1)
            memory.played(playing, hashes, chosen)
            actions[playing] = chosen
        playing = all_rows[active]
        if len(playing):
            encode_batch(states[playing], rules, masks[playing], self._mode, observations[: len(playing)])
            returns[playing] += discounts[playing] * self._values(observations[: len(playing)])
        return returns.reshape(len(candidates), self.samples).mean(axis=1)

    def _probabilities(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return self._policy.probabilities(observations, masks)

    def _values(self, observations: np.ndarray) -> np.ndarray:
        import torch

        policy = self.model.policy
        with torch.no_grad():
            return policy.predict_values(policy.obs_to_tensor(observations)[0]).numpy()[:, 0]
