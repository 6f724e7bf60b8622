"""Rounds: games played by people, owned by the server, checked by :class:`klondike_env.Game`.

A round is a deck, rules and a log of actions (:mod:`klondike_app.web.store`). The live
:class:`Game` of recently used rounds stays in memory; any other is rebuilt by replaying its
log. Every change is on disk before the caller gets an answer; a change that cannot be saved
is taken back. Errors are :class:`BadInput` (the request is malformed), :class:`Refused`
(well-formed but not possible now: the engine's one-line reason) and :class:`UnknownRound`.

A scored round (:meth:`Rounds.create_scored`) is a deal of a seed set played once under a
protocol (:mod:`klondike_app.web.protocol`): its deal number stays hidden until it is over, the
aids the protocol turns off are refused, it ends at the move cap (and, with undo off, as soon
as the player can see it is dead), and ``on_end`` hears of it once it is over.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass

from agents.base import PlayerView
from klondike_env import core
from klondike_env.cards import check_deal, deal_deck, deck_text
from klondike_env.game import Game, IllegalActionError, NothingToUndoError, check_action_range
from klondike_env.rules import Rules
from klondike_app.web import hints
from klondike_app.web.protocol import refusal
from klondike_app.web.store import UNDO, RoundRecord, Store, new_id
from klondike_app.web.table import check_intent_card, dead_as_seen, intent_action, rules_json, table_json

IDLE_CAP_S = 120.0  # a pause between two actions counts for at most this long in a round's time
CACHE_SIZE = 2000
RANDOM_DEALS = 2**32  # a new deal without a number is drawn from 0 .. RANDOM_DEALS - 1


class BadInput(ValueError):
    """A malformed request (400)."""


class Refused(ValueError):
    """A well-formed request the position does not allow (409), with the engine's reason."""


class UnknownRound(LookupError):
    """No round has this id (404)."""


@dataclass
class Live:
    """A round in memory: its record, its game and its actions with undos applied."""

    record: RoundRecord
    game: Game
    actions: list[int]


def replay(record: RoundRecord) -> Live:
    game = Game.from_deck(record.deck, Rules.from_options(record.rules))
    game.deal = record.deal
    actions: list[int] = []
    for entry in record.log:
        if entry == UNDO:
            game.undo()
            actions.pop()
        else:
            game.step(entry)
            actions.append(entry)
    return Live(record, game, actions)


def ending(live: Live) -> str:
    """How a finished round ended, in the harness's words (won, dead, resigned, move limit)."""
    status = live.record.status
    if status == "won":
        return "won"
    if status == "abandoned":
        return "resigned"
    return "dead" if live.game.is_dead else "move limit"


def parse_rules(options: dict, defaults: Rules) -> Rules:
    try:
        return Rules.from_options({**rules_json(defaults), **options})
    except ValueError as error:
        raise BadInput(str(error)) from None


class Rounds:
    """All rounds of one storage file. Methods are safe to call from several threads."""

    def __init__(self, store: Store, default_rules: Rules | None = None, clock=time.time):
        self.store = store
        self.default_rules = default_rules or Rules()
        self.clock = clock
        self._lock = threading.RLock()
        self._live: OrderedDict[str, Live] = OrderedDict()
        self._finish_lines: dict[str, tuple[int, list[int]]] = {}
        self.on_end = None  # on_end(live): called once a scored round is over, outside the lock
        self.free_play_refusal: str | None = None  # set: new deals and replays are refused with it

    # --- players -----------------------------------------------------------------------
    def player(self, token: str | None) -> tuple[str, bool]:
        """``(player id, created)``: the given player if known, else a new one."""
        if token and self.store.player_exists(token):
            return token, False
        return self.store.new_player(self.clock()), True

    def statistics(self, player: str) -> list[dict]:
        return self.store.statistics(player)

    # --- rounds ---------------------------------------------------------------------------
    def create(self, player: str, *, deal=None, deck=None, replay_of: str | None = None, rules: dict | None = None) -> Live:
        """A new round for ``player``: a deal number, a deck, another round's deal again, or a
        random deal. The player's rounds in progress end (abandoned, or lost when dead)."""
        if self.free_play_refusal:
            raise Refused(self.free_play_refusal)
        if sum(x is not None for x in (deal, deck, replay_of)) > 1:
            raise BadInput("give at most one of deal, deck and replay")
        if replay_of is not None:
            source = self.get(replay_of).record
            if source.protocol is not None and source.status == "playing":
                raise Refused("a scored game cannot be replayed before it is over")
            deal, deck_cards, rule_set = source.deal, source.deck, Rules.from_options(source.rules)
            if rules:
                rule_set = parse_rules(rules, rule_set)
        else:
            rule_set = parse_rules(rules or {}, self.default_rules)
            if deck is not None:
                try:
                    deck_cards = deck_text(Game.from_deck(deck).deck)
                except ValueError as error:
                    raise BadInput(str(error)) from None
            else:
                if deal is None:
                    deal = secrets.randbelow(RANDOM_DEALS)
                try:
                    deal = check_deal(int(deal) if isinstance(deal, str) and deal.strip().isdigit() else deal)
                except ValueError as error:
                    raise BadInput(str(error)) from None
                deck_cards = deck_text(deal_deck(deal))
        record = RoundRecord(id=new_id(), player=player, deal=deal, deck=deck_cards, rules=rules_json(rule_set),
                             created=self.clock())
        with self._lock:
            for other in self.store.open_rounds(player):
                self._close(other)
            self.store.insert_round(record)
            live = replay(record)
            self._remember(live)
        return live

    def create_scored(self, player: str, deal: int, rules: Rules, protocol: dict) -> Live:
        """The one round of ``deal`` in a person's scored run (``player``: the run's own player
        id, so that free play never ends it); ``protocol`` includes ``max_moves``."""
        record = RoundRecord(id=new_id(), player=player, deal=check_deal(deal), deck=deck_text(deal_deck(deal)),
                             rules=rules_json(rules), created=self.clock(), protocol=dict(protocol))
        with self._lock:
            self.store.insert_round(record)
            live = replay(record)
            self._remember(live)
        return live

    def get(self, round_id) -> Live:
        if not isinstance(round_id, str) or len(round_id) > 64:
            raise UnknownRound("unknown game id")
        with self._lock:
            live = self._live.get(round_id)
            if live is None:
                record = self.store.load_round(round_id)
                if record is None:
                    raise UnknownRound(f"unknown game id {round_id!r}")
                live = replay(record)
                self._remember(live)
            self._live.move_to_end(round_id)
            return live

    def act(self, round_id: str, action=None, *, source=None, dest=None, card=None) -> Live:
        """Play an action id, or the move from pile ``source`` to pile ``dest`` (``card``: the
        head card the player picked, checked against what the move would carry)."""
        with self._lock:
            live = self._playing(round_id)
            action = self._resolve(live, action, source, dest, card)
            try:
                live.game.step(action)
            except IllegalActionError as error:
                raise Refused(str(error)) from None
            live.actions.append(action)
            live.record.log.append(action)
            self._save_or_undo(live)
            ended = self._referee(live)
        if ended:
            self.on_end(live)
        return live

    def check(self, round_id: str, *, source=None, dest=None, card=None) -> dict:
        """Whether the move from ``source`` to ``dest`` is legal, and if not the reason, without
        playing it (so a page can explain a refused drop without an error status)."""
        with self._lock:
            live = self._playing(round_id)
            try:
                action = self._resolve(live, None, source, dest, card)
                live.game.copy().step(action)
            except (Refused, IllegalActionError) as error:
                return {"legal": False, "action": None, "reason": str(error)}
            return {"legal": True, "action": action, "reason": None}

    def _resolve(self, live: Live, action, source, dest, card) -> int:
        """The action id a request names, checked for form (:class:`BadInput`) and for the
        named card (:class:`Refused`); its legality is left to ``Game.step``."""
        if action is None:
            try:
                action = intent_action(source, dest)
            except ValueError as error:
                raise BadInput(str(error)) from None
            if action == core.DRAW and not live.game.stock:
                if not live.game.waste:
                    raise Refused("the stock and the waste are both empty: there is nothing to draw")
                action = core.RECYCLE
        try:
            action = check_action_range(action)
        except IllegalActionError as error:
            raise BadInput(str(error)) from None
        try:
            check_intent_card(PlayerView(live.game), action, card)
        except IllegalActionError as error:
            raise Refused(str(error)) from None
        except ValueError as error:
            raise BadInput(str(error)) from None
        return action

    def undo(self, round_id: str) -> Live:
        with self._lock:
            live = self._playing(round_id, "undo")
            try:
                live.game.undo()
            except NothingToUndoError as error:
                raise Refused(str(error)) from None
            undone = live.actions.pop()
            live.record.log.append(UNDO)
            live.record.undos += 1
            try:
                self._save(live)
            except BaseException:
                live.game.step(undone)
                live.actions.append(undone)
                live.record.log.pop()
                live.record.undos -= 1
                raise
            return live

    def hint(self, round_id: str, strong: bool = False) -> dict:
        """A move suggested by an agent that sees only the player's view (the round is unchanged
        but for its hint count)."""
        with self._lock:
            live = self._playing(round_id, "hints")
            game, actions = live.game.copy(), list(live.actions)
        suggestion = hints.strong_hint(game, actions) if strong else hints.greedy_hint(game, actions)
        with self._lock:
            live.record.hints += 1
            self.store.save_round(live.record)
        return suggestion

    def finish_step(self, round_id: str) -> tuple[Live, int]:
        """Play the next move of a winning line (auto finish); only with no hidden card left."""
        with self._lock:
            live = self._playing(round_id, "auto_finish")
            game, position = live.game.copy(), len(live.actions)
            cached = self._finish_lines.get(round_id)
        if cached is not None and cached[0] == position and cached[1]:
            line = cached[1]
        else:
            try:
                line = hints.finishing_line(game)
            except ValueError as error:
                raise Refused(str(error)) from None
        live = self.act(round_id, line[0])
        with self._lock:
            self._finish_lines[round_id] = (len(live.actions), line[1:])
        return live, line[0]

    def resign(self, round_id: str) -> Live:
        """Give the round up: lost when it is dead, else abandoned (a scored round is recorded)."""
        with self._lock:
            live = self._playing(round_id)
            live.record.status = "lost" if live.game.is_dead else "abandoned"
            self.store.save_round(live.record)
        if live.record.protocol is not None and self.on_end is not None:
            self.on_end(live)
        return live

    # --- answers ----------------------------------------------------------------------------
    def view(self, live: Live) -> dict:
        """The round as the player may see it (no hidden card, in any form; a scored round's
        deal number only once it is over)."""
        record = live.record
        protocol = record.protocol
        hidden_deal = protocol is not None and record.status == "playing"
        table = table_json(live.game, live.actions)
        if refusal(protocol, "auto_finish"):
            table["auto_finish"] = False
        return {
            "id": record.id,
            "deal": None if record.deal is None or hidden_deal else str(record.deal),
            "rules": record.rules,
            "status": record.status,
            "protocol": protocol,
            **table,
            "can_undo": record.status == "playing" and bool(live.actions) and not refusal(protocol, "undo"),
            "undos": record.undos,
            "hints": record.hints,
            "elapsed_ms": record.elapsed_ms,
            "clock_running": record.status == "playing" and record.started is not None,
        }

    # --- inside ----------------------------------------------------------------------------
    def _playing(self, round_id: str, aid: str | None = None) -> Live:
        """The round, refused when it is over or its protocol turns ``aid`` off."""
        live = self.get(round_id)
        if live.record.status != "playing":
            if live.record.protocol is not None:
                raise Refused(f"this scored game is over ({live.record.status}): one try per deal")
            raise Refused(f"this game is over ({live.record.status}): start a new deal or replay this one")
        refused = aid and refusal(live.record.protocol, aid)
        if refused:
            raise Refused(refused)
        return live

    def _referee(self, live: Live) -> bool:
        """End a scored round its protocol ends (the move cap; dead as seen with undo off);
        True when a scored round is over now, so ``on_end`` must hear of it."""
        protocol, record, game = live.record.protocol, live.record, live.game
        if protocol is None:
            return False
        if record.status == "playing" and (game.move_count >= protocol["max_moves"]
                                           or (not protocol["undo"] and dead_as_seen(game))):
            record.status = "lost"
            self.store.save_round(record)
        return record.status != "playing" and self.on_end is not None

    def _remember(self, live: Live) -> None:
        self._live[live.record.id] = live
        while len(self._live) > CACHE_SIZE:
            evicted, _ = self._live.popitem(last=False)
            self._finish_lines.pop(evicted, None)

    def _save(self, live: Live) -> None:
        record, game = live.record, live.game
        now = self.clock()
        if record.started is None:
            record.started = now
        else:
            record.elapsed_ms += int(round(1000 * min(max(now - record.last_action, 0.0), IDLE_CAP_S)))
        record.last_action = now
        record.moves = game.move_count
        record.cards_home = sum(game.foundations)
        record.recycles = game.passes - 1
        if game.is_won:
            record.status = "won"
        self.store.save_round(record)

    def _save_or_undo(self, live: Live) -> None:
        snapshot = (live.record.status, live.record.started, live.record.last_action, live.record.elapsed_ms)
        try:
            self._save(live)
        except BaseException:
            live.game.undo()
            live.actions.pop()
            live.record.log.pop()
            live.record.status, live.record.started, live.record.last_action, live.record.elapsed_ms = snapshot
            raise

    def _close(self, round_id: str) -> None:
        """End a round in progress: lost when the player could see it was dead, else abandoned."""
        live = self.get(round_id)
        live.record.status = "lost" if dead_as_seen(live.game) else "abandoned"
        self.store.save_round(live.record)
