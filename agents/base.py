"""The agent interface and the player view: everything an agent may know, nothing more.

An agent never receives a :class:`~klondike_env.Game`. Each turn the harness builds a
:class:`PlayerView` from the game; the view copies out what a player has seen (docs/contract.md,
"Information"): face-up cards, face-down counts, the foundations, the waste, the stock order
once it has been seen, the cards still hidden as a set. The only way back to the position is
:meth:`PlayerView.sample_world`, which reshuffles the hidden cards before handing a game out,
and :meth:`PlayerView.observe`, whose observations are built to hide the same cards.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from klondike_env import core
from klondike_env.game import Game, action_name
from klondike_env.observation import reveals_hidden_cards
from klondike_env.rules import Rules

#: A card the player has not seen, in :attr:`PlayerView.stock`.
UNKNOWN = -1
#: What :meth:`Agent.act` returns to stop playing a game it cannot progress in.
RESIGN = -1


class AgentOptionError(ValueError):
    """An unknown agent, an unknown option, or a bad option value."""


class ColumnView(NamedTuple):
    """One tableau column as the player sees it."""

    down: int  # face-down cards under the run (their identities are hidden)
    face_up: tuple[int, ...]  # face-up cards, bottom to top (the last is playable)

    @property
    def top(self) -> int:
        """The last card, or -1 for an empty column (or one showing only face-down cards)."""
        return self.face_up[-1] if self.face_up else -1

    def __len__(self) -> int:
        return self.down + len(self.face_up)


class MoveEffect(NamedTuple):
    """What an action does, as far as the player can tell before playing it."""

    action: int
    cards: tuple[int, ...]  # the cards that move, head first (empty for draw and recycle)
    source_column: int  # column the cards leave, or -1
    dest_column: int  # column they land on, or -1
    to_foundation: bool
    flips: bool  # a face-down card turns up (which one is not known yet)
    empties: bool  # the source column is left empty


@dataclass(frozen=True)
class DealInfo:
    """What an agent is told at the start of a game.

    Deliberately not the deal number: a deal number fixes the whole deck.
    """

    seed: int  # for the agent's own random choices; fixed per deal by the harness
    rules: Rules


class PlayerView:
    """The information state of one position: what the player knows, as plain values.

    Attributes (all snapshots, equal for any two games that differ only in where their
    hidden cards lie):

    * ``rules`` -- the :class:`~klondike_env.Rules`.
    * ``legal_mask`` -- 87 booleans; ``legal_actions`` -- the legal ids, sorted.
    * ``tableau`` -- 7 :class:`ColumnView` (face-down cards as counts).
    * ``foundations`` -- cards on each foundation, suit order.
    * ``waste`` -- waste cards, bottom to top (the player saw every one).
    * ``stock`` -- stock cards in draw order, :data:`UNKNOWN` where never seen (the whole stock
      during the first pass; all known after a recycle, since recycling keeps the order).
    * ``passes``, ``move_count``.
    * ``known_cards`` -- 52 booleans; ``hidden_cards`` -- ids of the cards never seen.
    * ``stock_visible`` -- the stock-visible track (``PlayerView(game, stock_visible=True)``):
      the stock's order is shown from the start, so ``stock`` holds no :data:`UNKNOWN`,
      ``hidden_cards`` are the face-down tableau cards only, and :meth:`sample_world` shuffles
      only those. Not the benchmark's protocol: published
      players of draw 3 see the stock, and this track ranks against them.
      :meth:`observe` still hides the unseen stock.
    """

    __slots__ = (
        "rules", "legal_mask", "legal_actions", "tableau", "foundations", "waste", "stock",
        "passes", "move_count", "known_cards", "hidden_cards", "stock_visible", "_sample_world", "_observe", "_action_name",
        "_effect", "_fits_foundation", "_matches", "_position_hash",
    )

    PUBLIC = (
        "rules", "legal_mask", "legal_actions", "tableau", "foundations", "waste", "stock",
        "passes", "move_count", "known_cards", "hidden_cards", "stock_visible",
    )

    def __init__(self, game: Game, stock_visible: bool = False):
        # The position lives only in these closures, never in an attribute, and the
        # view never returns it: sample_world hands out a reshuffled copy.
        snapshot = game.copy()
        snapshot._history = []
        self.rules = game.rules
        mask = game.action_mask()
        mask.flags.writeable = False
        self.legal_mask = mask
        self.legal_actions = tuple(int(a) for a in np.flatnonzero(mask))
        self.tableau = tuple(
            ColumnView(sum(1 for _, up in column if not up), tuple(card for card, up in column if up))
            for column in game.tableau
        )
        self.foundations = game.foundations
        self.waste = game.waste
        stock = game.stock
        self.stock = stock if game.passes > 1 or stock_visible else (UNKNOWN,) * len(stock)
        self.passes = game.passes
        self.move_count = game.move_count
        self.stock_visible = bool(stock_visible)
        hidden = game.hidden_cards()
        if stock_visible:
            hidden = [card for column in game.tableau for card, up in column if not up]
        known = np.ones(core.NUM_CARDS, bool)
        known[hidden] = False
        known.flags.writeable = False
        self.known_cards = known
        self.hidden_cards = tuple(sorted(hidden))
        shuffled = self.hidden_cards

        def sample_world(rng=None) -> Game:
            # dealt over the sorted hidden cards: the world depends on the random source and on
            # what the player knows, never on where the true hidden cards lie
            return snapshot.sample_world(rng, shuffled)

        def observe(mode: str = "information", dtype: str = "float32") -> np.ndarray:
            from klondike_env.observation import observe as build_observation

            return build_observation(snapshot, mode=mode, dtype=dtype)

        def name(action: int) -> str:
            return action_name(action, snapshot)

        def effect(action: int) -> MoveEffect:
            return _move_effect(snapshot, action)

        self._sample_world = sample_world
        self._observe = observe
        self._action_name = name
        self._effect = effect
        self._fits_foundation = lambda card: bool(core.fits_foundation(snapshot._state, card))
        public = public_state(snapshot, stock_visible)
        self._matches = lambda other: other.rules == snapshot.rules and np.array_equal(
            public_state(other, stock_visible), public)
        self._position_hash = snapshot.position_hash()

    # --- derived, public ------------------------------------------------------
    @property
    def waste_top(self) -> int:
        return self.waste[-1] if self.waste else -1

    @property
    def stock_count(self) -> int:
        return len(self.stock)

    @property
    def draw_count(self) -> int:
        return self.rules.draw_count

    @property
    def talon(self) -> tuple[int, ...]:
        """Waste then stock, in draw order (the order the talon keeps through recycles)."""
        return self.waste + self.stock

    def sample_world(self, rng: np.random.Generator | int | None = None) -> Game:
        """A full game equal to this view in all the player knows, hidden cards shuffled uniformly.

        The game is a guess (a determinization): search it freely. It depends on ``rng`` and on
        what the view shows alone, so the same ``rng`` gives the same world wherever the true
        hidden cards lie.
        """
        return self._sample_world(rng)

    def observe(self, mode: str = "information", dtype: str = "float32") -> np.ndarray:
        """The environment's observation of this position (``klondike_env.observation.observe``;
        ``dtype`` as the env's ``observation_dtype``).

        Modes ``"full"`` and ``"full+actions"`` show the hidden cards, so a view refuses them.
        """
        if reveals_hidden_cards(mode):
            raise ValueError(
                f"observation mode {mode!r} shows hidden cards; a player view allows 'information' and 'visible'"
                " (each optionally with '+actions')"
            )
        return self._observe(mode, dtype)

    def action_name(self, action: int) -> str:
        """Readable name of an action here (``"waste 7D -> col 3"``)."""
        return self._action_name(action)

    def effect(self, action: int) -> MoveEffect:
        """Which cards a legal action moves, from where to where, and whether it turns a card up."""
        if not (0 <= action < core.NUM_ACTIONS and self.legal_mask[action]):
            raise ValueError(f"action {action!r} is not legal here: legal actions are {list(self.legal_actions)}")
        return self._effect(action)

    def fits_foundation(self, card: int) -> bool:
        """``card`` is the next card of its foundation."""
        return self._fits_foundation(card)

    def matches(self, game: Game) -> bool:
        """``game`` agrees with everything this view knows (a world the player cannot rule out)."""
        return self._matches(game)

    def position_hash(self) -> int:
        """64-bit hash of the position as the player knows it (``klondike_env.move_memory``):
        the same for any placement of the hidden cards; for an agent's memory of its game."""
        return self._position_hash

    def public_values(self) -> dict[str, Any]:
        """The public attributes as a dict (for tests and debugging)."""
        return {name: getattr(self, name) for name in self.PUBLIC}

    def __repr__(self) -> str:
        return f"<PlayerView move={self.move_count} foundations={sum(self.foundations)}/52 hidden={len(self.hidden_cards)}>"


def public_state(game: Game, stock_visible: bool = False) -> np.ndarray:
    """The game's state array with every hidden card replaced by -1 (and the move count dropped);
    with ``stock_visible`` only the face-down tableau cards count as hidden."""
    state = np.empty(core.MOVES, game._state.dtype)
    core.public_cards(game._state, stock_visible, state)
    return state


def _move_effect(game: Game, action: int) -> MoveEffect:
    """Play ``action`` on a scratch copy of the state with the core kernels and report what moved.

    Only face-up cards and face-down counts are read, so the answer is public.
    """
    state = game._state
    rules = game._rules_array
    source = dest = -1
    to_foundation = False
    if action in (core.DRAW, core.RECYCLE):
        cards: tuple[int, ...] = ()
    elif action < core.COLUMN_TO_FOUNDATION:
        cards = (int(core.waste_top(state)),)
        to_foundation = action == core.WASTE_TO_FOUNDATION
        dest = -1 if to_foundation else action - core.WASTE_TO_COLUMN
    elif action < core.COLUMN_TO_COLUMN:
        source = action - core.COLUMN_TO_FOUNDATION
        cards = (int(core.column_top(state, source)),)
        to_foundation = True
    elif action < core.FOUNDATION_TO_COLUMN:
        offset = action - core.COLUMN_TO_COLUMN
        source = offset // 6
        dest = int(core.column_action_dest(source, offset % 6))
        start = core.run_start(state, rules, source, dest)
        base = core.TABLEAU + core.COLUMN_SLOTS * source
        cards = tuple(int(c) for c in state[base + start : base + state[core.COLUMN_LENGTH + source]])
    else:
        suit, dest = divmod(action - core.FOUNDATION_TO_COLUMN, core.NUM_COLUMNS)
        cards = (int(core.NUM_RANKS * suit + state[core.FOUNDATION + suit] - 1),)
    after = state.copy()
    flips = core.apply_action(after, rules, action) == 1
    empties = source >= 0 and after[core.COLUMN_LENGTH + source] == 0
    return MoveEffect(action, cards, source, dest, to_foundation, bool(flips), bool(empties))


class Agent:
    """A player. Subclasses set :attr:`name` and implement :meth:`act`.

    The harness calls :meth:`reset` once per game, then :meth:`act` with a fresh
    :class:`PlayerView` for every decision. ``act`` returns a legal action id, or
    :data:`RESIGN` to stop a game it sees no way to progress in.
    """

    name = "agent"
    #: True only for the oracle: it alone is handed the real game (an upper bound).
    sees_hidden_cards = False
    #: True for an agent on the stock-visible track: its views show the stock's order.
    sees_stock = False
    #: option name -> (type, default, help); values given as text are converted with the type.
    OPTIONS: dict[str, tuple[type, Any, str]] = {}
    #: option name -> its least value, for numeric options whose bound is above 0 (the default bound).
    MINIMUM: dict[str, int] = {}

    def __init__(self, **options):
        self.options = {}
        for key, value in options.items():
            if key not in self.OPTIONS:
                allowed = ", ".join(sorted(self.OPTIONS)) or "none"
                raise AgentOptionError(f"unknown option {key!r} for agent {self.name!r}: allowed options are {allowed}")
            self.options[key] = _convert_option(self.name, key, value, self.OPTIONS[key][0], self.MINIMUM.get(key, 0))
        for key, (_, default, _) in self.OPTIONS.items():
            setattr(self, key, self.options.get(key, default))
        self.rng = np.random.default_rng(0)

    def reset(self, deal: DealInfo) -> None:
        self.rules = deal.rules
        self.rng = np.random.default_rng(deal.seed)

    def act(self, view: PlayerView) -> int:
        raise NotImplementedError

    @property
    def label(self) -> str:
        """Name plus options, as :func:`agents.registry.make_agent` would take it."""
        if not self.options:
            return self.name
        return self.name + ":" + ",".join(f"{key}={_option_text(value)}" for key, value in self.options.items())

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.label}>"


def _option_text(value: Any) -> str:
    """An option value as a spec writes it: booleans in lower case (``deterministic=false``), as typed."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def choose_action(agent: Agent, game: Game) -> int:
    """``agent``'s move in ``game``, as the harness asks for it: an agent that sees hidden cards
    (the oracle) is first handed a copy of the true game, a separate channel no other agent gets;
    every agent then decides from the :class:`PlayerView` alone (one that shows the stock's
    order to an agent on the stock-visible track)."""
    if agent.sees_hidden_cards:
        agent.reveal(game.copy())
    return agent.act(PlayerView(game, stock_visible=agent.sees_stock))


def _convert_option(agent: str, key: str, value: Any, kind: type, low: int = 0) -> Any:
    """Turn an option value (often text from the command line) into ``kind`` (``>= low`` for a
    number), or fail in one line."""
    try:
        if kind is bool and isinstance(value, str):
            if value.lower() not in ("1", "0", "true", "false", "yes", "no"):
                raise ValueError
            return value.lower() in ("1", "true", "yes")
        converted = kind(value)
    except (TypeError, ValueError):
        raise AgentOptionError(
            f"bad value {value!r} for option {key!r} of agent {agent!r}: expected {kind.__name__}"
        ) from None
    if kind in (int, float) and not converted >= low:  # "not >=": also refuses nan
        raise AgentOptionError(f"bad value {value!r} for option {key!r} of agent {agent!r}: must be >= {low}")
    return converted
