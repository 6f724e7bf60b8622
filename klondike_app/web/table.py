"""What the browser may see of a game: the table as plain JSON values, hidden cards as ``null``.

Everything here is computed from what the player knows (docs/contract.md, "Information"): face-up
cards, face-down counts, the waste, the foundations, the stock's order only once a recycle
has shown it. Two games that differ only in where their hidden cards lie give equal values,
and so byte-identical responses (``tests/test_web_api.py`` checks it by permuting them).

Piles are named ``"stock"``, ``"waste"``, ``"found0"``..``"found3"`` (suit order ♣♦♥♠) and
``"col0"``..``"col6"``; every legal action is described by its source pile, its destination
pile and the cards it moves, so the page never needs a rule of its own.
"""

from __future__ import annotations

from agents.base import PlayerView
from klondike_env import core
from klondike_env.cards import card_str, parse_card
from klondike_env.game import Game, IllegalActionError

PILES = ("stock", "waste", *(f"found{f}" for f in range(4)), *(f"col{c}" for c in range(7)))


def card_text(card: int) -> str | None:
    return None if card < 0 else card_str(card)


def rules_json(rules) -> dict:
    return {
        "draw_count": rules.draw_count,
        "max_passes": rules.max_passes,
        "empty_column": rules.empty_column,
        "foundation_to_tableau": rules.foundation_to_tableau,
    }


# --- actions as moves between piles ----------------------------------------------
def action_piles(action: int) -> tuple[str, str]:
    """The source and destination pile of an action id (a foundation move names the suit's pile
    only when the card is known, so ``"found"`` stands for "its foundation")."""
    if action == core.DRAW:
        return "stock", "waste"
    if action == core.RECYCLE:
        return "waste", "stock"
    if action == core.WASTE_TO_FOUNDATION:
        return "waste", "found"
    if action < core.COLUMN_TO_FOUNDATION:
        return "waste", f"col{action - core.WASTE_TO_COLUMN}"
    if action < core.COLUMN_TO_COLUMN:
        return f"col{action - core.COLUMN_TO_FOUNDATION}", "found"
    if action < core.FOUNDATION_TO_COLUMN:
        source, k = divmod(action - core.COLUMN_TO_COLUMN, 6)
        return f"col{source}", f"col{core.column_action_dest(source, k)}"
    suit, column = divmod(action - core.FOUNDATION_TO_COLUMN, 7)
    return f"found{suit}", f"col{column}"


def _pile_index(name: str, kind: str, count: int) -> int | None:
    if name.startswith(kind) and name[len(kind):].isdigit() and len(name) == len(kind) + 1:
        index = int(name[len(kind):])
        return index if index < count else None
    return None


def intent_action(source: str, dest: str) -> int:
    """The action id that moves from pile ``source`` to pile ``dest`` (``"found"`` or
    ``"foundN"`` for a foundation), or ``ValueError`` naming the allowed piles."""
    for name in (source, dest):
        if not isinstance(name, str) or (name not in PILES and name != "found"):
            raise ValueError(f"bad pile {str(name)[:20]!r}: piles are stock, waste, found, found0..found3, col0..col6")
    to_foundation = dest == "found" or _pile_index(dest, "found", 4) is not None
    dest_column = _pile_index(dest, "col", 7)
    source_column = _pile_index(source, "col", 7)
    source_suit = _pile_index(source, "found", 4)
    if source == "stock" and dest == "waste":
        return core.DRAW
    if source == "waste" and dest == "stock":
        return core.RECYCLE
    if source == "waste" and to_foundation:
        return core.WASTE_TO_FOUNDATION
    if source == "waste" and dest_column is not None:
        return core.WASTE_TO_COLUMN + dest_column
    if source_column is not None and to_foundation:
        return core.COLUMN_TO_FOUNDATION + source_column
    if source_column is not None and dest_column is not None and source_column != dest_column:
        return int(core.column_action(source_column, dest_column))
    if source_suit is not None and dest_column is not None:
        return core.FOUNDATION_TO_COLUMN + 7 * source_suit + dest_column
    raise ValueError(f"no move goes from {source} to {dest}")


def move_json(view: PlayerView, action: int) -> dict:
    """A legal action as the page uses it: id, name, source and destination piles, cards moved."""
    effect = view.effect(action)
    source, dest = action_piles(action)
    if dest == "found":
        dest = f"found{core.card_suit(effect.cards[0])}"
    return {
        "action": action,
        "name": view.action_name(action),
        "from": source,
        "to": dest,
        "cards": [card_str(card) for card in effect.cards],
    }


def legal_moves(view: PlayerView) -> list[dict]:
    """Every legal action as :func:`move_json` (all public)."""
    return [move_json(view, action) for action in view.legal_actions]


def check_intent_card(view: PlayerView, action: int, card) -> None:
    """Refuse a move whose named head card is not the one the action moves.

    The message names only face-up cards, and says the same for any card that is not a
    face-up card of the source, so it tells nothing about hidden ones.
    """
    if card is None:
        return
    try:
        wanted = parse_card(card)
    except ValueError as error:
        raise ValueError(str(error)) from None
    if not view.legal_mask[action]:
        return  # the engine's reason is the better message
    cards = view.effect(action).cards
    if cards and cards[0] != wanted:
        source, dest = action_piles(action)
        raise IllegalActionError(
            f"{card_str(wanted)} cannot move from {source} to {dest}: the cards that fit there start at {card_str(cards[0])}"
        )


# --- dead, as the player can know it -----------------------------------------------
def _playable(state, rules_array, card: int) -> bool:
    if core.fits_foundation(state, card):
        return True
    return any(core.fits_column(state, rules_array, card, col) for col in range(core.NUM_COLUMNS))


def dead_as_seen(game: Game) -> bool:
    """Dead (docs/contract.md, "Rules") in every deck that agrees with what the player has seen.

    The engine's :meth:`Game.is_dead` looks at the coming waste tops, which during the first
    pass are unseen stock cards: announcing it then would tell the player something about
    them. Here an unseen top counts as playable when any hidden card would be, so the answer
    depends on public values only. It implies ``game.is_dead`` and equals it once no unseen
    card can come up (after one trip through the stock at the latest).
    """
    if game.is_won or not game.is_dead:
        return False
    state, rules_array = game._state, game._rules_array
    draw_count = game.rules.draw_count
    forward, total = core.talon_walk(state, draw_count, core.recycle_allowed(state, rules_array))
    unseen_from = state[core.WASTE_LENGTH] if state[core.RECYCLES] == 0 else core.TALON_SLOTS
    any_hidden_playable = None
    for step in range(1, total):
        index = core.talon_walk_length(state, draw_count, forward, step) - 1
        if index >= unseen_from:
            if any_hidden_playable is None:
                any_hidden_playable = any(_playable(state, rules_array, card) for card in game.hidden_cards())
            if any_hidden_playable:
                return False
    return True


# --- the fanned waste --------------------------------------------------------------
def waste_fan(actions: list[int], rules) -> int:
    """How many waste cards to show fanned: those of the last draw still on the waste (at
    least 1 when the waste has cards), as the big solitaire sites show it."""
    stock, waste, last_draw = core.NUM_CARDS - 28, 0, 0
    for action in actions:
        if action == core.DRAW:
            last_draw = min(rules.draw_count, stock)
            stock, waste = stock - last_draw, waste + last_draw
        elif action == core.RECYCLE:
            stock, waste, last_draw = waste, 0, 0
        elif core.WASTE_TO_FOUNDATION <= action < core.COLUMN_TO_FOUNDATION:
            waste -= 1
            last_draw = max(last_draw - 1, 0)
    if waste == 0:
        return 0
    return max(last_draw, 1)


def auto_finish_offered(game: Game) -> bool:
    """Every tableau card face up and nothing unseen in the stock (so no card is hidden)."""
    return not game.is_won and not game.hidden_cards()


# --- the whole table ------------------------------------------------------------------
def table_json(game: Game, actions: list[int]) -> dict:
    """The table as the player sees it, with the legal moves; ``actions``: the game's actions."""
    view = PlayerView(game)
    return {
        "tableau": [[None] * column.down + [card_str(c) for c in column.face_up] for column in view.tableau],
        "stock": [card_text(card) for card in view.stock],
        "waste": [card_str(card) for card in view.waste],
        "waste_fan": waste_fan(actions, game.rules),
        "foundations": [card_text(core.NUM_RANKS * suit + count - 1) if count else None
                        for suit, count in enumerate(view.foundations)],
        "cards_home": int(sum(view.foundations)),
        "passes": view.passes,
        "recycles": view.passes - 1,
        "moves": view.move_count,
        "won": game.is_won,
        "dead": dead_as_seen(game),
        "auto_finish": auto_finish_offered(game),
        "legal": legal_moves(view),
    }

