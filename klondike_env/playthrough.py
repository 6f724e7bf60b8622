"""Golden playthroughs: one game played through :class:`KlondikeEnv`, written down move by move.

OpenSpiel's idea: a text file holds the env's options, the deal, and for each step the action,
its reward, the episode flags, the info, the board, the legal actions and the observation.
:func:`read_playthrough` takes the options, deal and actions back out of such a file and
:func:`playthrough_text` plays them again, so a test can require the same text: any change of
behaviour (a rule, a reward, an observation entry, an action name) shows up as a changed line.
``klondike playthrough`` writes new files and rewrites old ones after an intended change.

The observation is written as its ``uint8`` numerators (the env's ``observation_dtype="uint8"``;
``obs / observation_divisors(mode)`` is the float32 observation bit for bit), nonzero entries
only, as ``index:numerator``.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

import numpy as np

FORMAT_LINE = "# klondike_env playthrough, format 1"
_WRAP = 100  # characters per line of the observation and legal-action lists


def playthrough_text(deal: int, actions: Sequence[int], **env_options) -> str:
    """Play ``actions`` on ``deal`` in ``KlondikeEnv(observation_dtype="uint8", **env_options)``.

    Every action is stepped, legal or not (an illegal one shows the env's penalty); the
    actions must end where the episode ends, if it ends.
    """
    from klondike_env.env import KlondikeEnv

    options = {"observation_dtype": "uint8", **env_options}
    env = KlondikeEnv(**options)
    obs, info = env.reset(options={"deal": deal})
    lines = [FORMAT_LINE, f"deal: {deal}"]
    lines += [f"option: {name}={value!r}" for name, value in sorted(options.items())]
    lines += [f"actions: {' '.join(str(int(a)) for a in actions)}", "", "--- reset"]
    lines += _describe(env, obs, info)
    for number, action in enumerate(actions, 1):
        if env._needs_reset:
            left = len(actions) - number + 1
            raise ValueError(f"the episode ended after action {number - 1}; {left} actions are left over")
        name = env.action_name(int(action))
        obs, reward, terminated, truncated, info = env.step(int(action))
        lines.append(f"--- step {number}: action {int(action)} ({name})")
        lines.append(f"reward {reward!r}  terminated {terminated}  truncated {truncated}")
        lines += _describe(env, obs, info)
    return "\n".join(lines) + "\n"


def _describe(env, obs: np.ndarray, info: dict) -> list[str]:
    facts = "  ".join(f"{key} {info[key]!r}" for key in sorted(info) if key != "action_mask")
    legal = " ".join(str(a) for a in np.flatnonzero(info["action_mask"]))
    entries = " ".join(f"{i}:{obs[i]}" for i in np.flatnonzero(obs))
    board = [line.rstrip() for line in str(env.game).splitlines()]
    return [f"info {facts}", *board, *_wrapped("legal", legal), *_wrapped("observation", entries)]


def _wrapped(label: str, text: str) -> list[str]:
    lines, line = [], label
    for word in text.split():
        if len(line) + 1 + len(word) > _WRAP:
            lines.append(line)
            line = " " * len(label)
        line += " " + word
    return [*lines, line]


def solver_actions(deal: int, **env_options) -> list[int]:
    """The solver's winning line for ``deal`` under the env's rules (``ValueError`` if none is found)."""
    from klondike_env.env import KlondikeEnv
    from klondike_env.solver import SolveStatus, solve

    env = KlondikeEnv(**env_options)
    env.reset(options={"deal": deal})
    result = solve(env.game, env.rules)
    if result.status is not SolveStatus.SOLVED:
        raise ValueError(f"deal {deal} is {result.status.name} for the solver: pick a deal it wins")
    return result.actions


def random_actions(deal: int, steps: int, seed: int, illegal_at: int | None = None, **env_options) -> list[int]:
    """Uniformly random legal actions (``numpy.random.default_rng(seed)``) until the episode ends
    or ``steps`` actions; at step ``illegal_at`` (1-based) the lowest illegal action id instead."""
    from klondike_env.env import KlondikeEnv

    rng = np.random.default_rng(seed)
    env = KlondikeEnv(**env_options)
    _, info = env.reset(options={"deal": deal})
    actions: list[int] = []
    while len(actions) < steps and not env._needs_reset:
        mask = info["action_mask"]
        if len(actions) + 1 == illegal_at:
            action = int(np.flatnonzero(mask == 0)[0])
        else:
            action = int(rng.choice(np.flatnonzero(mask)))
        actions.append(action)
        _, _, _, _, info = env.step(action)
    return actions


def read_playthrough(text: str) -> tuple[int, dict, list[int]]:
    """The deal, env options and actions a playthrough file was written from."""
    lines = text.splitlines()
    if not lines or lines[0] != FORMAT_LINE:
        raise ValueError(f"not a playthrough: the first line must be {FORMAT_LINE!r}")
    deal, options, actions = None, {}, None
    for line in lines[1:]:
        if not line:
            break
        field, _, value = line.partition(": ")
        if field == "deal":
            deal = int(value)
        elif field == "option":
            name, _, literal = value.partition("=")
            options[name] = ast.literal_eval(literal)
        elif field == "actions":
            actions = [int(a) for a in value.split()]
        else:
            raise ValueError(f"bad playthrough header line {line!r}: expected 'deal: ', 'option: ' or 'actions: '")
    if deal is None or actions is None:
        raise ValueError("bad playthrough header: it needs a 'deal: ' and an 'actions: ' line")
    return deal, options, actions
