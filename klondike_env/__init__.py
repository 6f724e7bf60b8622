"""Klondike solitaire for reinforcement learning: exact draw-3 rules, compiled with numba.

The rules are those of the contract, docs/contract.md.
"""

from klondike_env.kernel_cache import drop_stale_kernel_caches

drop_stale_kernel_caches()  # before any kernel module loads its cached kernels

from klondike_env.cards import card_str, deal_deck, deck_string, parse_card, parse_deck
from klondike_env.core import NUM_ACTIONS
from klondike_env.game import Game, IllegalActionError, NothingToUndoError, action_name
from klondike_env.rules import Rules
from klondike_env.solver import SolveResult, SolveStatus, solve  # noqa: F401  (issue 4)

__all__ = [
    "NUM_ACTIONS",
    "Game",
    "IllegalActionError",
    "NothingToUndoError",
    "Rules",
    "action_name",
    "card_str",
    "deal_deck",
    "deck_string",
    "parse_card",
    "parse_deck",
]

# --- Gymnasium registration ------------------------------------------------
import gymnasium as _gymnasium

ENV_ID = "klondike_env/Klondike-v1"
if ENV_ID not in _gymnasium.registry:
    _gymnasium.register(
        id=ENV_ID,
        entry_point="klondike_env.env:KlondikeEnv",
        vector_entry_point="klondike_env.vector:make_vector_env",
    )
