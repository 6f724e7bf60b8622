"""``KlondikeEnv``: the Gymnasium environment, and the compiled step shared with the batched envs."""

from __future__ import annotations

import operator
from collections.abc import Iterable
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from numba import njit

from klondike_env import core
from klondike_env.game import Game, IllegalActionError, action_name
from klondike_env.observation import check_dtype, encode, mode_id, observation_space, reveals_hidden_cards
from klondike_env.rules import Rules

REWARDS = ("progress", "win", "standard", "vegas")
REWARD_PROGRESS, REWARD_WIN, REWARD_STANDARD, REWARD_VEGAS = range(4)
ILLEGAL_ACTIONS = ("penalty", "raise")

# Measured (docs/env.md "Episode length", `klondike bench env`): the greedy
# agent's games all end within 140 moves and random games that end by themselves
# almost all end within 250; most random games never end (cards shuffled back and
# forth), so the limit only cuts such loops. 500 leaves room for multi-pass wins.
DEFAULT_MAX_EPISODE_STEPS = 500

# int parameters of the compiled step
I_MODE, I_REWARD, I_MAX_STEPS, I_NO_PROGRESS, INT_PARAMS = 0, 1, 2, 3, 4
# float parameters: the reward weights and the illegal-action penalty
F_FOUNDATION, F_FLIP, F_WIN, F_ILLEGAL, FLOAT_PARAMS = 0, 1, 2, 3, 4
# per-game counters
C_STEPS, C_SINCE_PROGRESS, C_BEST_FOUNDATION, COUNTERS = 0, 1, 2, 3
# step outcome flags (returned as one int: bit set)
OUT_TERMINATED, OUT_TRUNCATED, OUT_ILLEGAL, OUT_WON = 1, 2, 4, 8

# Windows Solitaire "standard" scoring (no time bonus or penalty; scores may go below 0)
STANDARD_WASTE_TO_TABLEAU = 5.0
STANDARD_TO_FOUNDATION = 10.0
STANDARD_TURN_UP = 5.0
STANDARD_FOUNDATION_TO_TABLEAU = -15.0
STANDARD_RECYCLE_DRAW3 = -20.0  # each recycle from the 3rd on (passes after the third)
STANDARD_RECYCLE_DRAW1 = -100.0  # each recycle
VEGAS_STAKE = -52.0
VEGAS_PER_CARD = 5.0


@njit(cache=True)
def begin_game(state, rules, counters, mask):
    """Start counting a game: ``state`` holds an opening position; fill counters and mask."""
    counters[C_STEPS] = 0
    counters[C_SINCE_PROGRESS] = 0
    counters[C_BEST_FOUNDATION] = core.foundation_total(state)
    core.legal_mask(state, rules, mask)


@njit(cache=True)
def start_game(state, rules, int_params, counters, mask, obs):
    """Finish a reset: ``state`` holds an opening position; fill counters, mask and observation."""
    begin_game(state, rules, counters, mask)
    encode(state, rules, mask, int_params[I_MODE], obs)


@njit(cache=True)
def step_game(state, rules, action, int_params, float_params, counters, mask, obs):
    """One env step on one game: apply, reward, episode end, new mask and observation.

    ``mask`` must hold the legal mask of ``state`` (it is refreshed here). An illegal
    action changes nothing but the step counters and earns the illegal penalty (and
    leaves ``obs`` as it was). Returns ``(reward, flags)`` with the ``OUT_*`` bits.
    """
    reward, flags = play_step(state, rules, action, int_params, float_params, counters, mask)
    if flags & OUT_ILLEGAL == 0:
        encode(state, rules, mask, int_params[I_MODE], obs)
    return reward, flags


@njit(cache=True)
def play_step(state, rules, action, int_params, float_params, counters, mask):
    """:func:`step_game` without the observation: apply, reward, episode end, new mask.

    The batched envs encode all observations in a second sweep (one loop of
    ``encode`` runs faster than encode interleaved with the rules' kernels).
    """
    counters[C_STEPS] += 1
    counters[C_SINCE_PROGRESS] += 1
    flags = 0
    if action < 0 or action >= core.NUM_ACTIONS or mask[action] == 0:
        reward = float_params[F_ILLEGAL]
        flags |= OUT_ILLEGAL
    else:
        before = core.foundation_total(state)
        flipped = core.apply_action(state, rules, action)
        after = core.foundation_total(state)
        gained = after - before
        won = after == core.NUM_CARDS
        kind = int_params[I_REWARD]
        reward = 0.0
        if kind == REWARD_PROGRESS:
            reward = float_params[F_FOUNDATION] * gained + float_params[F_FLIP] * flipped
            if won:
                reward += float_params[F_WIN]
        elif kind == REWARD_WIN:
            reward = 1.0 if won else 0.0
        elif kind == REWARD_STANDARD:
            if gained > 0:
                reward = STANDARD_TO_FOUNDATION
            elif gained < 0:
                reward = STANDARD_FOUNDATION_TO_TABLEAU
            elif core.WASTE_TO_COLUMN <= action < core.COLUMN_TO_FOUNDATION:
                reward = STANDARD_WASTE_TO_TABLEAU
            elif action == core.RECYCLE:
                if rules[core.RULE_DRAW_COUNT] == 1:
                    reward = STANDARD_RECYCLE_DRAW1
                elif state[core.RECYCLES] >= 3:
                    reward = STANDARD_RECYCLE_DRAW3
            reward += STANDARD_TURN_UP * flipped
        else:
            reward = VEGAS_PER_CARD * gained
        if flipped > 0 or after > counters[C_BEST_FOUNDATION]:
            counters[C_SINCE_PROGRESS] = 0
            if after > counters[C_BEST_FOUNDATION]:
                counters[C_BEST_FOUNDATION] = after
        legal = core.legal_mask(state, rules, mask)
        if won:
            flags |= OUT_WON | OUT_TERMINATED
        elif core.is_dead_given_mask(state, rules, mask, legal):
            flags |= OUT_TERMINATED
    if int_params[I_REWARD] == REWARD_VEGAS and counters[C_STEPS] == 1:
        reward += VEGAS_STAKE  # with the first action, legal or not, so the return is the Vegas score
    if flags & OUT_TERMINATED == 0:
        max_steps = int_params[I_MAX_STEPS]
        no_progress = int_params[I_NO_PROGRESS]
        if (max_steps > 0 and counters[C_STEPS] >= max_steps) or (
            no_progress > 0 and counters[C_SINCE_PROGRESS] >= no_progress
        ):
            flags |= OUT_TRUNCATED
    return reward, flags


class EnvConfig:
    """The validated keyword arguments shared by :class:`KlondikeEnv` and the batched envs."""

    KEYWORDS = (
        "draw_count", "max_passes", "empty_column", "foundation_to_tableau", "observation", "observation_dtype",
        "reward",
        "foundation_reward", "flip_reward", "win_reward", "max_episode_steps", "no_progress_steps",
        "illegal_action", "illegal_penalty", "render_mode", "deals",
    )

    def __init__(self, **kwargs):
        unknown = sorted(set(kwargs) - set(self.KEYWORDS))
        if unknown:
            raise ValueError(
                f"unknown Klondike env argument(s) {', '.join(unknown)}: allowed are {', '.join(self.KEYWORDS)}"
            )
        self.rules = Rules.from_options({k: kwargs[k] for k in ("draw_count", "max_passes", "empty_column",
                                                                 "foundation_to_tableau") if k in kwargs})
        self.observation = kwargs.get("observation", "information")
        self.observation_dtype = check_dtype(kwargs.get("observation_dtype", "float32"))
        self.reward = kwargs.get("reward", "progress")
        if self.reward not in REWARDS:
            raise ValueError(f"unknown reward {self.reward!r}: allowed are {', '.join(map(repr, REWARDS))}")
        self.illegal_action = kwargs.get("illegal_action", "penalty")
        if self.illegal_action not in ILLEGAL_ACTIONS:
            raise ValueError(
                f"bad illegal_action {self.illegal_action!r}: allowed are {', '.join(map(repr, ILLEGAL_ACTIONS))}"
            )
        self.max_episode_steps = _optional_positive(kwargs.get("max_episode_steps", DEFAULT_MAX_EPISODE_STEPS),
                                                    "max_episode_steps")
        self.no_progress_steps = _optional_positive(kwargs.get("no_progress_steps"), "no_progress_steps")
        self.int_params = np.zeros(INT_PARAMS, np.int64)
        self.int_params[I_MODE] = mode_id(self.observation)
        self.int_params[I_REWARD] = REWARDS.index(self.reward)
        self.int_params[I_MAX_STEPS] = self.max_episode_steps or 0
        self.int_params[I_NO_PROGRESS] = self.no_progress_steps or 0
        self.float_params = np.zeros(FLOAT_PARAMS, np.float64)
        for index, name, default in ((F_FOUNDATION, "foundation_reward", 0.1), (F_FLIP, "flip_reward", 0.05),
                                     (F_WIN, "win_reward", 1.0), (F_ILLEGAL, "illegal_penalty", -0.1)):
            value = kwargs.get(name, default)
            if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
                raise ValueError(f"bad {name} {value!r}: expected a number")
            self.float_params[index] = float(value)
            setattr(self, name, float(value))
        self.render_mode = kwargs.get("render_mode")
        self.deals = _deal_list(kwargs.get("deals"))
        self.rules_array = self.rules.as_array()
        self.observation_space = observation_space(self.observation, self.observation_dtype)


def _optional_positive(value, name):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"bad {name} {value!r}: expected a positive integer or None")
    return int(value)


def _deal_list(deals) -> np.ndarray:
    """Deal numbers as a uint64 array (empty for "draw at random")."""
    if deals is None:
        return np.zeros(0, np.uint64)
    if isinstance(deals, (str, bytes)) or not isinstance(deals, Iterable):
        raise ValueError(f"bad deals {deals!r}: give a sequence of deal numbers, e.g. deals=[1, 2], or None for random deals")
    from klondike_env.cards import check_deal

    values = [check_deal(deal) for deal in deals]
    if not values:
        raise ValueError("bad deals []: give at least one deal number, or None for random deals")
    return np.array(values, np.uint64)


def random_deal(rng: np.random.Generator) -> int:
    """A deal number drawn uniformly from all 2**64."""
    return int(rng.integers(0, 2**64, dtype=np.uint64))


class KlondikeEnv(gym.Env):
    """Klondike solitaire (draw 3 by default) with masked discrete actions.

    ## Description
    The patience game Klondike, exactly as the contract (docs/contract.md) fixes it: seven
    columns dealt from a numbered deal, a stock turned ``draw_count`` cards at a time, four
    foundations to fill from ace to king. Every rule variant (draw-1, limited passes,
    any card on an empty column, no foundation-to-tableau moves) is a keyword.

    ## Action Space
    ``Discrete(87)``, the contract's action table (docs/contract.md): 0 draw, 1 recycle,
    2 waste→foundation, 3+c waste→column c, 10+c column c→foundation, 17+6s+k column s→column d
    (``k = d if d < s else d - 1``), 59+7f+c foundation f→column c. Legality is in
    ``info["action_mask"]`` (np.int8, 87) and :meth:`action_masks`, so sb3-contrib's
    MaskablePPO works unwrapped.

    ## Observation Space
    ``Box(0, 1, (n,), float32)`` with ``n`` 745 (``"information"``, default), 485
    (``"visible"``) or 1161 (``"full"``), plus 696 per-action features with ``"+actions"``
    appended (``"information+actions"``); the slices are documented in
    :mod:`klondike_env.observation`. ``"information"`` and ``"visible"`` never depend on
    where a hidden card lies. ``"full"`` SHOWS THE HIDDEN CARDS (Thoughtful Klondike),
    for curricula and oracles only; so do the ``"+full"`` modes (``"information+actions+full"``:
    the player's observation, then the 1161 ``"full"`` entries), for training a critic that
    sees hidden cards beside an actor that does not. With ``observation_dtype="uint8"`` the space is
    ``Box(0, 255, (n,), uint8)`` and each entry holds its value's integer numerator
    (every value is k / d for a small integer k and a fixed divisor d: counts / 6, / 13,
    / 24, / 10, 0/1 planes, talon index / 24, depth / 19): a quarter of the bytes, and
    ``obs / observation_divisors(mode)`` (float32) gives the float32 observation bit for
    bit (:func:`klondike_env.observation.observation_divisors`).

    ## Rewards
    ``reward="progress"`` (default): ``foundation_reward`` (0.1) per card onto a
    foundation (minus the same for one taken back), ``flip_reward`` (0.05) per
    face-down card turned up, ``win_reward`` (1.0) on a win. ``"win"``: 1 on a win,
    else 0. ``"standard"``: Windows standard scoring (+5 waste→tableau, +10 onto a
    foundation, +5 turn up, −15 foundation→tableau, −20 per recycle after the third
    pass in draw-3 / −100 per recycle in draw-1; no time terms). ``"vegas"``: −52 paid
    with the first action, +5 per foundation card (−5 taken back). A masked-out action
    earns ``illegal_penalty`` (−0.1) and changes nothing.

    ## Starting State
    ``reset(seed=s)`` seeds ``np_random`` and draws a deal number in ``[0, 2**64)``;
    ``options={"deal": n}`` plays deal ``n``, ``options={"deck": deck}`` an explicit
    deck; with ``deals=[...]`` successive plain resets play those deals in order,
    cycling (a seeded reset starts the cycle again). ``info["deal"]`` names the deal (``None`` for an explicit deck).

    ## Episode End
    Terminated on a win or a dead position (no card move reachable by draws and
    recycles alone), with ``info["won"]``. Truncated after ``max_episode_steps``
    steps (default 500, from measured game lengths; ``None`` for no limit) and, if
    ``no_progress_steps`` is set, after that many steps with no card turned up and no
    new foundation high. ``info`` also has ``foundation`` (cards on foundations),
    ``moves``, ``passes`` and ``illegal_action``.

    ## Arguments
    ``draw_count=3, max_passes=None, empty_column="king", foundation_to_tableau=True``
    (the rules); ``observation="information"``; ``observation_dtype="float32"`` (or
    ``"uint8"``: the observation's integer numerators, see Observation Space);
    ``reward="progress"`` with
    ``foundation_reward=0.1, flip_reward=0.05, win_reward=1.0``;
    ``max_episode_steps=500``; ``no_progress_steps=None``;
    ``illegal_action="penalty"`` (or ``"raise"``: raise
    :class:`~klondike_env.game.IllegalActionError`); ``illegal_penalty=-0.1``;
    ``render_mode=None | "ansi" | "rgb_array"``; ``deals=None`` (a sequence of deal
    numbers to cycle through). Unknown keywords raise ``ValueError``.
    ``gymnasium.make("klondike_env/Klondike-v1", max_episode_steps=m)`` adds Gymnasium's
    own ``TimeLimit(m)`` on top of the env's limit.

    ## Version History
    * v1: with ``reward="vegas"`` the −52 stake is paid on the first step of an episode even
      when that step's action is illegal (in v0 an illegal first action skipped it, so the
      return was not the Vegas score). Nothing else changed.
    * v0: initial version. Added within v0, without changing the defaults' behaviour: the
      ``"+actions"`` observation modes (per-action features), the ``observation_dtype`` keyword
      (``"uint8"`` observations) and the ``"+full"`` observation modes.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}

    def __init__(self, **kwargs):
        config = EnvConfig(**kwargs)
        if config.render_mode is not None and config.render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"bad render_mode {config.render_mode!r}: allowed are None, 'ansi', 'rgb_array'")
        self.config = config
        self.rules = config.rules
        self.render_mode = config.render_mode
        self.observation_mode = config.observation
        self.reveals_hidden_cards = reveals_hidden_cards(config.observation)
        self.action_space = spaces.Discrete(core.NUM_ACTIONS)
        self.observation_space = config.observation_space
        self.game = Game.new(0, self.rules)
        self._mask = np.zeros(core.NUM_ACTIONS, np.int8)
        self._obs = np.zeros(self.observation_space.shape, self.observation_space.dtype)
        self._counters = np.zeros(COUNTERS, np.int64)
        self._next_deal_index = 0
        self._needs_reset = True

    # --- Gymnasium API ---------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        if seed is not None:
            self._next_deal_index = 0  # a seeded reset restarts the ``deals`` cycle too
        options = dict(options or {})
        unknown = sorted(set(options) - {"deal", "deck"})
        if unknown or ("deal" in options and "deck" in options):
            raise ValueError(f"bad reset options {sorted(options)}: give at most one of 'deal' and 'deck'")
        if "deck" in options:
            self.game = Game.from_deck(options["deck"], self.rules)
        else:
            if "deal" in options:
                deal = options["deal"]
            elif len(self.config.deals):
                deal = int(self.config.deals[self._next_deal_index % len(self.config.deals)])
                self._next_deal_index += 1
            else:
                deal = random_deal(self.np_random)
            self.game = Game.new(deal, self.rules)
        start_game(self.game._state, self.config.rules_array, self.config.int_params, self._counters,
                   self._mask, self._obs)
        self._needs_reset = False
        return self._obs.copy(), self._info(0)

    def step(self, action):
        if self._needs_reset:
            raise RuntimeError("call reset() before step(): the episode has not started or has ended")
        try:
            action = operator.index(action)
        except TypeError:
            raise IllegalActionError(f"illegal action {action!r}: an action is an integer id in 0..86") from None
        game = self.game
        if self.config.illegal_action == "raise" and not (0 <= action < core.NUM_ACTIONS and self._mask[action]):
            game.step(action)  # raises IllegalActionError with the reason
        game._history.append(game._state.copy())
        reward, flags = step_game(game._state, self.config.rules_array, action, self.config.int_params,
                                  self.config.float_params, self._counters, self._mask, self._obs)
        if flags & OUT_ILLEGAL:
            game._history.pop()
        game._mask_valid = False
        terminated = bool(flags & OUT_TERMINATED)
        truncated = bool(flags & OUT_TRUNCATED)
        self._needs_reset = terminated or truncated
        return self._obs.copy(), float(reward), terminated, truncated, self._info(flags)

    def _info(self, flags: int) -> dict[str, Any]:
        # one slice to a list: much cheaper than four numpy scalar reads per step
        clubs, diamonds, hearts, spades, recycles, moves = self.game._state[core.FOUNDATION:core.MOVES + 1].tolist()
        return {
            "action_mask": self._mask.copy(),
            "won": bool(flags & OUT_WON),
            "deal": self.game.deal,
            "foundation": clubs + diamonds + hearts + spades,
            "moves": moves,
            "passes": recycles + 1,
            "illegal_action": bool(flags & OUT_ILLEGAL),
        }

    def action_masks(self) -> np.ndarray:
        """The legal-action mask (bool, 87) for sb3-contrib's MaskablePPO."""
        return self._mask.astype(bool)

    def render(self):
        if self.render_mode == "ansi":
            from klondike_env.render import render_text

            return render_text(self.game)
        if self.render_mode == "rgb_array":
            from klondike_env.render import render_image

            return render_image(self.game)
        return None

    def action_name(self, action: int) -> str:
        """A readable name for ``action`` in the current position."""
        return action_name(action, self.game)
