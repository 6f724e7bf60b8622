"""A person scored on a seed set (``klondike play --seeds SET --player NAME``).

The set's deals are dealt in order, one try each, as scored rounds
(:meth:`Rounds.create_scored`) owned by the run's own player id, so free play never touches
them. Each finished game is appended to the run's results CSV and its JSON summary rewritten,
through the evaluation harness's writer (:func:`agents.results.open_results`,
:func:`agents.evaluation.write_summary`): the files are those ``klondike evaluate`` writes, with
the agent ``human:NAME`` and the protocol in the run identity, so ``klondike compare`` pairs a
person with an agent deal by deal.

Resuming is the same command again: the results files say which deals are done, the storage
file which round is each deal's one try (its moves saved as they are played). A round that
ended but missed the CSV (a crash between the two writes) is recorded when the run is opened;
a deal already in the CSV is never written again.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from pathlib import Path

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from agents.evaluation import code_version, write_summary
from agents.results import DEFAULT_MAX_MOVES, GameRecord, open_results, result_stem, run_identity
from klondike_app.web.api import answer
from klondike_app.web.protocol import Protocol, check_player_name
from klondike_app.web.rounds import Live, Refused, Rounds, ending
from klondike_app.web.store import new_id
from klondike_env.cli import prepare_output_dir
from klondike_env.rules import Rules


@dataclass(frozen=True)
class ScoredPlan:
    """What ``klondike play --seeds`` asks for."""

    player: str  # the person's name; the results' agent is human:NAME
    seeds: str  # the seed set's name, as agents.evaluation.load_seed_set gives it
    deals: tuple[int, ...]
    rules: Rules = field(default_factory=Rules)
    protocol: Protocol = field(default_factory=Protocol)
    max_moves: int = DEFAULT_MAX_MOVES
    out_dir: Path = Path("results")
    overwrite: bool = False
    command: str | None = None

    @property
    def agent(self) -> str:
        return f"human:{check_player_name(self.player)}"


class ScoredSet:
    """The run: its results files, the rounds of its deals, and what the page is told."""

    def __init__(self, rounds: Rounds, plan: ScoredPlan):
        if plan.max_moves < 1:
            raise ValueError(f"bad --max-moves {plan.max_moves}: give 1 or more")
        self.rounds, self.plan = rounds, plan
        self.deals = list(plan.deals)
        identity = run_identity(plan.agent, plan.seeds, plan.rules, 0, plan.max_moves, plan.protocol.as_dict())
        stem = result_stem(plan.agent, plan.seeds, plan.rules, 0, plan.max_moves) + plan.protocol.stem_suffix()
        prepare_output_dir(plan.out_dir, "--out")
        header = self._header(new_id())
        self.files = open_results(plan.out_dir, stem, identity, self.deals, overwrite=plan.overwrite, extra=header)
        stored = json.loads(self.files.json_path.read_text())
        # the run's player id in the storage file: kept in the results, so a resumed run finds its rounds
        self.player = stored.get("web_run") or header["web_run"]
        self.games: dict[str, dict] = dict(stored.get("human_games") or {})
        self._lock = threading.RLock()
        rounds.store.add_player(self.player, rounds.clock())
        self._round_of = {record.deal: record.id for record in rounds.store.rounds_of(self.player)}
        rounds.on_end = self.record
        rounds.free_play_refusal = (f"this server scores {plan.agent} on {plan.seeds}, one try per deal: new deals and "
                                    "replays are off (free play: klondike play without --seeds)")
        for deal in self.deals:  # a game that ended but missed the CSV
            if deal not in self.files.done and deal in self._round_of:
                live = rounds.get(self._round_of[deal])
                if live.record.status != "playing":
                    self.record(live, write=False)
        self.write()

    def _header(self, web_run: str) -> dict:
        plan = self.plan
        return {
            "agent": plan.agent, "agent_spec": plan.agent, "player": plan.player,
            "sees_hidden_cards": False, "sees_stock": False,
            "seeds": plan.seeds, "seed": 0, "max_moves": plan.max_moves, "workers": 1,
            "protocol": plan.protocol.as_dict(), "protocol_text": plan.protocol.text(),
            "command": plan.command, "code_version": code_version(), "web_run": web_run,
        }

    # --- the set -------------------------------------------------------------------------
    def current_deal(self) -> int | None:
        """The first deal of the set not yet recorded (None: the set is done)."""
        return next((deal for deal in self.deals if deal not in self.files.done), None)

    def game(self) -> Live | None:
        """The round of the current deal, dealt the first time it is asked for (its one try)."""
        with self._lock:
            deal = self.current_deal()
            if deal is None:
                return None
            if deal in self._round_of:
                return self.rounds.get(self._round_of[deal])
            plan = self.plan
            live = self.rounds.create_scored(self.player, deal, plan.rules,
                                             {**plan.protocol.as_dict(), "max_moves": plan.max_moves})
            self._round_of[deal] = live.record.id
            return live

    def record(self, live: Live, write: bool = True) -> None:
        """Append a finished round of this run to the CSV (once) and rewrite the summary."""
        record = live.record
        with self._lock:
            if record.player != self.player or record.deal in self.files.done or record.status == "playing":
                return
            game = live.game
            self.files.append(GameRecord(record.deal, game.is_won, game.move_count, int(sum(game.foundations)),
                                         record.elapsed_ms / 1000, ending(live), 0.0, tuple(live.actions)))
            self.games[str(record.deal)] = {"undos": record.undos, "hints": record.hints, "round": record.id}
            if write:
                self.write()

    def write(self) -> None:
        """The JSON summary of the games recorded so far (complete once every deal is)."""
        with self._lock:
            recorded = [self.games[str(deal)] for deal in self.files.done if str(deal) in self.games]
            write_summary(self.files, self.deals, self.plan.rules, self._header(self.player),
                          undos=sum(game["undos"] for game in recorded), hints=sum(game["hints"] for game in recorded),
                          human_games=self.games)

    def state(self) -> dict:
        """The run as the page shows it (no deal number of a game not yet over)."""
        with self._lock:
            done = self.files.done
            deal = self.current_deal()
            plan = self.plan
            return {
                "scored": True, "player": plan.player, "agent": plan.agent, "seeds": plan.seeds,
                "games": len(self.deals), "finished": len(done), "won": sum(r.won for r in done.values()),
                "position": None if deal is None else self.deals.index(deal) + 1,
                "game": self._round_of.get(deal) if deal is not None else None,
                "complete": deal is None, "protocol": plan.protocol.as_dict(), "protocol_text": plan.protocol.text(),
                "max_moves": plan.max_moves, "results": str(self.files.csv_path), "summary": str(self.files.json_path),
            }

    def describe(self) -> str:
        """What ``klondike play`` prints at start."""
        state = self.state()
        return (f"scoring {state['agent']} on {state['seeds']}: {state['games']} deals, {state['finished']} played; "
                f"{state['protocol_text']}\nresults: {state['results']} and {state['summary']}")


def routes(scored: ScoredSet | None, rounds: Rounds) -> list[Route]:
    """``GET /api/session`` (the run, or ``{"scored": false}``) and ``POST /api/session/game``
    (the current deal's round, dealt at the first ask)."""
    async def session(request: Request) -> JSONResponse:
        return answer(scored.state() if scored else {"scored": False})

    async def game(request: Request) -> JSONResponse:
        if scored is None:
            raise Refused("this server scores no one: start it with klondike play --seeds SET --player NAME")
        live = scored.game()
        if live is None:
            state = scored.state()
            raise Refused(f"the set is done: {state['won']} of {state['games']} won; results in {state['results']}")
        return answer(rounds.view(live))

    return [Route("/api/session", session, methods=["GET"]), Route("/api/session/game", game, methods=["POST"])]
