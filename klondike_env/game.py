"""``Game``: the friendly Python object over the compiled rules in :mod:`klondike_env.core`."""

from __future__ import annotations

import numpy as np

from klondike_env import core, move_memory
from klondike_env.cards import SUIT_SYMBOLS, card_str, check_deal, deal_deck, deck_string, parse_deck
from klondike_env.rules import Rules


class IllegalActionError(ValueError):
    """An action that is out of range or not legal in the current position."""


class NothingToUndoError(IndexError):
    """:meth:`Game.undo` at the opening position (or a sampled world's start)."""


def action_name(action: int, game: "Game | None" = None) -> str:
    """A readable move for an action id (docs/contract.md "Actions").

    With ``game`` the name also says which card moves: the waste top, a column's top card, the
    head of the run that moves (and how many cards), or a foundation's top card
    (``"col 6 KD -> foundation"``, ``"col 3 9H -> col 6 (3 cards)"``). The card is named where
    the move's source holds one, legal or not.
    """
    check_action_range(action)
    if action == core.DRAW:
        return "draw"
    if action == core.RECYCLE:
        return "recycle"
    state = None if game is None else game._state
    if action < core.COLUMN_TO_FOUNDATION:
        waste = "waste" + _card_named(None if state is None else core.waste_top(state))
        if action == core.WASTE_TO_FOUNDATION:
            return f"{waste} -> foundation"
        return f"{waste} -> col {action - core.WASTE_TO_COLUMN}"
    if action < core.COLUMN_TO_COLUMN:
        col = action - core.COLUMN_TO_FOUNDATION
        return f"col {col}{_card_named(None if state is None else core.column_top(state, col))} -> foundation"
    if action < core.FOUNDATION_TO_COLUMN:
        offset = action - core.COLUMN_TO_COLUMN
        source = offset // 6
        dest = core.column_action_dest(source, offset % 6)
        if state is None:
            return f"col {source} -> col {dest}"
        start = core.run_start(state, game._rules_array, source, dest)
        if start < 0:  # not legal: name the column's top card
            return f"col {source}{_card_named(core.column_top(state, source))} -> col {dest}"
        count = int(state[core.COLUMN_LENGTH + source]) - start
        head = state[core.TABLEAU + core.COLUMN_SLOTS * source + start]
        return f"col {source}{_card_named(head)} -> col {dest} ({count} card{'s' if count > 1 else ''})"
    offset = action - core.FOUNDATION_TO_COLUMN
    suit, dest = offset // 7, offset % 7
    top = None
    if state is not None:
        height = int(state[core.FOUNDATION + suit])
        top = core.NUM_RANKS * suit + height - 1 if height > 0 else -1
    return f"foundation {SUIT_SYMBOLS[suit]}{_card_named(top)} -> col {dest}"


def _card_named(card) -> str:
    """`` 7H`` for a card id, nothing for ``None`` (no game) or -1 (no card there)."""
    return "" if card is None or card < 0 else f" {card_str(int(card))}"


def check_action_range(action) -> int:
    """``action`` as a Python int, or :class:`IllegalActionError` when it is not an id in 0..86."""
    if type(action) is int and 0 <= action < core.NUM_ACTIONS:  # the common case, kept cheap
        return action
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        raise IllegalActionError(f"illegal action {action!r}: an action is an integer id in 0..86")
    if not 0 <= action < core.NUM_ACTIONS:
        raise IllegalActionError(f"illegal action {action}: action ids are 0..86")
    return int(action)


_ALL_CARDS = np.arange(core.NUM_CARDS)


def _deck_array(deck) -> np.ndarray:
    """``deck`` as 52 distinct int32 card ids; anything but such ids goes through :func:`parse_deck`."""
    array = np.asarray(deck) if not isinstance(deck, str) else None
    if array is None or array.dtype.kind not in "iu" or array.shape != (core.NUM_CARDS,) \
            or not np.array_equal(np.sort(array), _ALL_CARDS):
        array = np.asarray(parse_deck(deck))  # raises a clear ValueError for a bad deck
    return array.astype(np.int32)


class Game:
    """One game of Klondike: a position, its rules, and the history for undo.

    Build with :meth:`new` (a deal number) or :meth:`from_deck` (an explicit deck).
    """

    __slots__ = ("rules", "deal", "_rules_array", "_state", "_deck", "_history", "_mask", "_actions", "_legal_count")

    def __init__(self, deck, rules: Rules | None = None, deal: int | None = None):
        rules = Rules() if rules is None else rules
        if not isinstance(rules, Rules):
            raise ValueError(f"bad rules {rules!r}: expected a klondike_env.Rules")
        self.rules = rules
        self.deal = deal
        self._rules_array = rules.as_array()
        self._deck = _deck_array(deck)
        self._state = np.empty(core.STATE_SIZE, np.int32)
        core.init_state(self._deck, self._state)
        self._history: list[np.ndarray] = []
        # legal moves of the current position, computed on first use after each change
        self._mask = np.empty(core.NUM_ACTIONS, np.uint8)
        self._actions = np.empty(core.NUM_ACTIONS, np.int32)
        self._legal_count = -1  # -1: not computed for this position yet

    # --- construction -------------------------------------------------------
    @classmethod
    def new(cls, deal: int, rules: Rules | None = None) -> "Game":
        """The opening position of deal number ``deal``."""
        return cls(deal_deck(deal), rules, deal=check_deal(deal))

    @classmethod
    def from_deck(cls, deck, rules: Rules | None = None) -> "Game":
        """The opening position of an explicit deck (ids, card strings, one string, or a deck string)."""
        return cls(deck, rules)

    def copy(self) -> "Game":
        other = Game.__new__(Game)
        other.rules = self.rules
        other.deal = self.deal
        other._rules_array = self._rules_array
        other._deck = self._deck
        other._state = self._state.copy()
        other._history = list(self._history)  # snapshots are shared: nothing ever writes to them
        other._mask = self._mask.copy()
        other._actions = self._actions.copy()
        other._legal_count = self._legal_count
        return other

    # --- moves --------------------------------------------------------------
    def action_mask(self) -> np.ndarray:
        """87 booleans, True where the action is legal."""
        self._update_legal()
        return self._mask.astype(bool)

    def legal_actions(self) -> list[int]:
        """The legal action ids, sorted."""
        return self._actions[: self._update_legal()].tolist()

    @property
    def _mask_valid(self) -> bool:
        """Whether the cached legal moves belong to the current position.

        Code that changes ``_state`` in place (the env's fused step kernel) sets
        this to False so the next query recomputes them.
        """
        return self._legal_count >= 0

    @_mask_valid.setter
    def _mask_valid(self, valid: bool) -> None:
        if not valid:
            self._legal_count = -1
        else:
            self._update_legal()

    def _update_legal(self) -> int:
        if self._legal_count < 0:
            self._legal_count = core.legal_actions(self._state, self._rules_array, self._mask, self._actions)
        return self._legal_count

    def step(self, action: int) -> None:
        """Play one action; an illegal one raises :class:`IllegalActionError` and changes nothing."""
        action = check_action_range(action)
        if self._legal_count < 0:
            self._update_legal()
        if not self._mask[action]:
            raise IllegalActionError(f"illegal action {action} ({action_name(action)}): {self._why_illegal(action)}")
        self._history.append(self._state.copy())
        core.apply_action(self._state, self._rules_array, action)
        self._legal_count = -1

    def undo(self) -> None:
        """Take back the last whole action (its draws and flips included)."""
        if not self._history:
            raise NothingToUndoError("nothing to undo: the game is at its opening position (or was sampled there)")
        # copy into the live array: a popped snapshot may be shared with a copy's history
        self._state[:] = self._history.pop()
        self._legal_count = -1

    def _why_illegal(self, action: int) -> str:
        state, rules = self._state, self.rules
        stock_count = int(state[core.TALON_LENGTH] - state[core.WASTE_LENGTH])
        if action == core.DRAW:
            return "the stock is empty"
        if action == core.RECYCLE:
            if stock_count > 0:
                return "the stock is not empty"
            if state[core.WASTE_LENGTH] == 0:
                return "the waste is empty"
            return f"no passes remain (max_passes={rules.max_passes})"
        if action < core.COLUMN_TO_FOUNDATION and state[core.WASTE_LENGTH] == 0:
            return "the waste is empty"
        if core.COLUMN_TO_FOUNDATION <= action < core.FOUNDATION_TO_COLUMN:
            offset = action - core.COLUMN_TO_FOUNDATION
            source = offset if action < core.COLUMN_TO_COLUMN else (action - core.COLUMN_TO_COLUMN) // 6
            if state[core.COLUMN_LENGTH + source] == 0:
                return f"column {source} is empty"
        if action >= core.FOUNDATION_TO_COLUMN:
            if not rules.foundation_to_tableau:
                return "these rules forbid moves from a foundation to the tableau"
            suit = (action - core.FOUNDATION_TO_COLUMN) // 7
            if state[core.FOUNDATION + suit] == 0:
                return f"the {SUIT_SYMBOLS[suit]} foundation is empty"
        if action in (core.WASTE_TO_FOUNDATION,) or core.COLUMN_TO_FOUNDATION <= action < core.COLUMN_TO_COLUMN:
            return "the card is not the next one for its foundation"
        if core.COLUMN_TO_COLUMN <= action < core.FOUNDATION_TO_COLUMN:
            return "no face-up run of the source column fits the destination"
        if rules.empty_column == "king":
            return "the card does not fit the column (builds go down in alternating colour; only a king starts an empty column)"
        return "the card does not fit the column (builds go down in alternating colour)"

    # --- read-only state ----------------------------------------------------
    @property
    def tableau(self) -> tuple[tuple[tuple[int, bool], ...], ...]:
        """7 columns, each a tuple of ``(card, face_up)`` from bottom to top."""
        state = self._state.tolist()  # one conversion to Python ints, then plain list work
        columns = []
        for col in range(core.NUM_COLUMNS):
            down = state[core.COLUMN_DOWN + col]
            base = core.TABLEAU + core.COLUMN_SLOTS * col
            length = state[core.COLUMN_LENGTH + col]
            face_up = (False,) * down + (True,) * (length - down)
            columns.append(tuple(zip(state[base : base + length], face_up)))
        return tuple(columns)

    @property
    def stock(self) -> tuple[int, ...]:
        """Stock cards, the next to be drawn first."""
        state = self._state
        return tuple(state[core.TALON + state[core.WASTE_LENGTH] : core.TALON + state[core.TALON_LENGTH]].tolist())

    @property
    def waste(self) -> tuple[int, ...]:
        """Waste cards, bottom to top (the last is the playable top)."""
        return tuple(self._state[core.TALON : core.TALON + self._state[core.WASTE_LENGTH]].tolist())

    @property
    def foundations(self) -> tuple[int, int, int, int]:
        """Cards on each foundation, in suit order (clubs, diamonds, hearts, spades)."""
        return tuple(self._state[core.FOUNDATION : core.FOUNDATION + 4].tolist())

    @property
    def passes(self) -> int:
        """The current trip through the stock: 1 until the first recycle."""
        return int(self._state[core.RECYCLES]) + 1

    @property
    def move_count(self) -> int:
        return int(self._state[core.MOVES])

    @property
    def is_won(self) -> bool:
        return bool(core.is_won(self._state))

    @property
    def is_dead(self) -> bool:
        """No card move can be reached by draws and recycles alone (docs/contract.md)."""
        return bool(core.is_dead(self._state, self._rules_array))

    @property
    def is_over(self) -> bool:
        return self.is_won or self.is_dead

    @property
    def state(self) -> np.ndarray:
        """A copy of the compact state array the kernels work on."""
        return self._state.copy()

    @property
    def deck(self) -> tuple[int, ...]:
        """The deck this game was dealt from."""
        return tuple(int(c) for c in self._deck)

    def deck_string(self) -> str:
        """The dealt deck as a Klondike-Solver 156-digit deck string."""
        return deck_string(self._deck)

    # --- information ----------------------------------------------------------
    def known_cards(self) -> np.ndarray:
        """52 booleans: True for every card the player has seen (docs/contract.md "Information")."""
        return ~self._hidden()

    def position_hash(self) -> int:
        """64-bit hash of the position as the player knows it (:func:`klondike_env.move_memory.position_hash`):
        the same for every placement of the hidden cards, so agents can remember positions."""
        return int(move_memory.position_hash(self._state, self._rules_array))

    def hidden_cards(self) -> list[int]:
        """Ids of the cards the player has never seen (face-down and undrawn stock cards)."""
        return np.flatnonzero(self._hidden()).tolist()

    def _hidden(self) -> np.ndarray:
        hidden = np.empty(core.NUM_CARDS, np.uint8)
        core.hidden_mask(self._state, hidden)
        return hidden.astype(bool)

    def sample_world(self, rng: np.random.Generator | int | None = None, cards=None) -> "Game":
        """A game identical in all the player knows, its hidden cards shuffled uniformly.

        The hidden cards are permuted among the hidden positions; the sampled game's
        deck is the true deck under the same permutation, so replaying this game's
        actions on it reaches the sampled position. Its undo history starts empty.

        ``cards`` shuffles only those cards (hidden ones: a player view passes every card its
        player has not seen, or the face-down cards only when the stock is shown). They are
        dealt to their places, tableau then talon, in an order drawn over the cards sorted by
        id, so the world depends on ``rng``, the set of cards and their places only, never on
        which of them lies where.
        """
        rng = np.random.default_rng(rng)
        relabel = np.arange(core.NUM_CARDS, dtype=np.int32)
        if cards is None:
            hidden = np.array(self.hidden_cards(), np.int32)
            relabel[hidden] = rng.permutation(hidden)
        else:
            chosen = np.zeros(core.NUM_CARDS, bool)
            chosen[list(cards)] = True
            state = self._state
            live = [state[core.TABLEAU + core.COLUMN_SLOTS * col : core.TABLEAU + core.COLUMN_SLOTS * col
                          + state[core.COLUMN_LENGTH + col]] for col in range(core.NUM_COLUMNS)]
            placed = np.concatenate(live + [state[core.TALON : core.TALON + state[core.TALON_LENGTH]]])
            placed = placed[chosen[placed]]  # the chosen cards in the order of their places
            relabel[placed] = rng.permutation(np.flatnonzero(chosen).astype(np.int32))
        world = self.copy()
        world.deal = None
        world._history = []
        world._deck = relabel[self._deck]
        cards = world._state[: core.COLUMN_LENGTH]
        cards[cards >= 0] = relabel[cards[cards >= 0]]
        talon = world._state[core.TALON : core.TALON + core.TALON_SLOTS]
        talon[talon >= 0] = relabel[talon[talon >= 0]]
        world._legal_count = -1  # hidden cards never decide legality, but don't lean on that
        return world

    # --- comparison and display -------------------------------------------------
    def __eq__(self, other) -> bool:
        """Same rules and same position (cards, face-down counts, talon, passes); move count ignored."""
        if not isinstance(other, Game):
            return NotImplemented
        return self.rules == other.rules and np.array_equal(
            self._state[: core.MOVES], other._state[: core.MOVES]
        )

    def __hash__(self):
        return hash((self.rules, self._state[: core.MOVES].tobytes()))

    def __repr__(self) -> str:
        where = f"deal={self.deal}" if self.deal is not None else "deck"
        return f"<Game {where} move={self.move_count} foundations={sum(self.foundations)}/52>"

    def __str__(self) -> str:
        from klondike_env.render import render_text

        return render_text(self)

    def action_name(self, action: int) -> str:
        return action_name(action, self)
