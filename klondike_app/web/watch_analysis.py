"""The viewer's solver analyses of a recorded game, computed on request in a background process
and kept: in memory, and in the web app's SQLite file when the viewer has one.

- **Losing move** (:func:`agents.analysis.losing_move`): for a lost game, the first move after
  which the true deal is no longer winnable within the solver budget, or "undecided". A game
  asked for on its own goes ahead of the games of a whole file queued by :meth:`Analyses.analyse_all`
  (at most one of those is in the worker at a time).
- **Worlds** (optional, slower): for every move, the share of worlds sampled from what the
  player knew before it that are still winnable after it (:func:`agents.analysis.world_share`).

The solver holds the interpreter while it runs, so it runs in a worker process: stepping
through a game stays quick while an analysis is going on.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import sqlite3
import threading
from collections import deque
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import asdict
from pathlib import Path

from klondike_app.web.replays import Replay
from klondike_env.rules import Rules

DEFAULT_NODES = 200_000  # as klondike analyse-losses
DEFAULT_WORLDS = 8  # as klondike label-moves
DEFAULT_WORLD_NODES = 20_000

SCHEMA = "CREATE TABLE IF NOT EXISTS watch_analyses (key TEXT PRIMARY KEY, value TEXT NOT NULL)"


def _losing_job(deck: tuple[int, ...], rules: dict, actions: tuple[int, ...], nodes: int) -> dict:
    from agents.analysis import losing_move
    from klondike_env.game import Game

    found = losing_move(Game.from_deck(deck, Rules(**rules)), list(actions), nodes)
    return {"move": found.move, "verdict": found.verdict, "nodes": nodes}


def _worlds_job(deck: tuple[int, ...], rules: dict, actions: tuple[int, ...], move: int, worlds: int,
                nodes: int) -> list[int]:
    from agents.analysis import world_share
    from klondike_env.game import Game

    game = Game.from_deck(deck, Rules(**rules))
    for action in actions[: move - 1]:
        game.step(action)
    return list(world_share(game, actions[move - 1], worlds, nodes, seed=move))


def _warm_job() -> None:
    """Load the solver (its compiled kernels come from numba's cache): the first analysis asked
    for then starts at once."""
    from agents.analysis import losing_move
    from klondike_env.game import Game

    losing_move(Game.new(1), [], 1)


class Analyses:
    """Analyses of replays by key, each started once; ``db_path``: where finished ones are kept."""

    def __init__(self, db_path: str | Path | None = None, nodes: int = DEFAULT_NODES, worlds: int = DEFAULT_WORLDS,
                 world_nodes: int = DEFAULT_WORLD_NODES, verdicts: dict[int, str] | None = None, executor=None):
        """``executor``: where solves run (default: one worker process, started on first use)."""
        self.nodes, self.worlds, self.world_nodes = nodes, worlds, world_nodes
        self.verdicts = verdicts or {}
        self._lock = threading.RLock()  # re-entered by a done callback run at once
        self._running: dict[str, Future | list[Future]] = {}
        self._done: dict[str, object] = {}
        self._pool = executor
        self._closed = False
        self._queue: deque[tuple[str, Replay]] = deque()  # games of analyse_all not yet in the worker
        self._queued: set[str] = set()  # their keys
        self._bulk: tuple[str, Future] | None = None  # the one of them in the worker
        self._db = None
        if db_path is not None:
            Path(db_path).parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(db_path), check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA busy_timeout=5000")
            self._db.execute(SCHEMA)

    def close(self) -> None:
        """Stop: queued games are dropped, a job still running ends unrecorded."""
        with self._lock:
            self._queue.clear()
            self._queued.clear()
            if self._pool is not None:
                self._pool.shutdown(wait=False, cancel_futures=True)
            if self._db is not None:
                self._db.close()
                self._db = None
            self._closed = True

    def _submit(self, function, *args) -> Future:
        if self._pool is None:  # a fresh interpreter: forking a threaded server is not safe
            self._pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
        return self._pool.submit(function, *args)

    def warm_up(self) -> None:
        """Start the worker now rather than at the first request."""
        with self._lock:
            self._submit(_warm_job)

    def _key(self, kind: str, replay: Replay, **budget) -> str:
        text = json.dumps([kind, replay.deck, asdict(replay.rules), replay.actions, budget], sort_keys=True)
        return f"{kind}:{hashlib.sha256(text.encode()).hexdigest()}"

    def _stored(self, key: str):
        if key in self._done:
            return self._done[key]
        if self._db is not None:
            row = self._db.execute("SELECT value FROM watch_analyses WHERE key=?", (key,)).fetchone()
            if row is not None:
                self._done[key] = json.loads(row[0])
                return self._done[key]
        return None

    def _keep(self, key: str, value) -> None:
        self._done[key] = value
        self._running.pop(key, None)
        if self._db is not None:
            self._db.execute("INSERT OR REPLACE INTO watch_analyses VALUES (?, ?)", (key, json.dumps(value)))

    def _losing_key(self, replay: Replay) -> str:
        return self._key("losing", replay, nodes=self.nodes)

    def _start_losing(self, key: str, replay: Replay) -> Future:
        future = self._submit(_losing_job, replay.deck, asdict(replay.rules), replay.actions, self.nodes)
        self._running[key] = future
        return future

    def losing_move(self, replay: Replay, start: bool = True) -> dict:
        """``{"state": "done", "move", "verdict", ...}``, or ``{"state": "running"}`` (started now
        if it was not and ``start``; else ``{"state": "idle"}``)."""
        if replay.won:
            return {"state": "done", "move": None, "verdict": "won"}
        if self.verdicts.get(replay.deal) == "unsolvable":
            return {"state": "done", "move": 0, "verdict": "unwinnable", "source": "verdict file"}
        key = self._losing_key(replay)
        with self._lock:
            found = self._stored(key)
            if found is not None:
                return {"state": "done", **found}
            future = self._running.get(key)
            if future is None:
                if not start:
                    return {"state": "queued" if key in self._queued else "idle"}
                self._start_losing(key, replay)
                return {"state": "running"}
            if not future.done():
                return {"state": "running"}
            return self._collect(key, future)

    def _collect(self, key: str, future: Future) -> dict:
        """A finished losing-move job's answer, kept (under the lock)."""
        if future.exception() is not None:
            self._running.pop(key, None)
            return {"state": "failed", "error": str(future.exception())[:200]}
        self._keep(key, future.result())
        return {"state": "done", **future.result()}

    def analyse_all(self, replays) -> None:
        """Queue the losing move of every game of ``replays`` not yet analysed, in order."""
        with self._lock:
            for replay in replays:
                if self.losing_move(replay, start=False)["state"] == "idle":
                    key = self._losing_key(replay)
                    self._queue.append((key, replay))
                    self._queued.add(key)
            self._feed()

    def _feed(self) -> None:
        """Put the next queued game in the worker once the previous one is done (under the lock)."""
        if self._bulk is not None:
            key, future = self._bulk
            if not future.done():
                return
            self._bulk = None
            if key in self._running:
                self._collect(key, future)
        while self._queue:
            key, replay = self._queue.popleft()
            self._queued.discard(key)
            if key in self._running or self._stored(key) is not None:
                continue  # asked for on its own meanwhile
            self._bulk = key, self._start_losing(key, replay)
            self._bulk[1].add_done_callback(lambda _: self._fed())
            return

    def _fed(self) -> None:
        with self._lock:
            if not self._closed:
                self._feed()

    def world_shares(self, replay: Replay, start: bool) -> dict:
        """Per move, ``[worlds won, worlds decided]`` (None while not computed); ``state`` is
        ``idle`` (never started; ``start`` starts it), ``running`` or ``done``."""
        key = self._key("worlds", replay, worlds=self.worlds, nodes=self.world_nodes)
        base = {"worlds": self.worlds, "nodes": self.world_nodes}
        with self._lock:
            found = self._stored(key)
            if found is not None:
                return {"state": "done", **base, "shares": found}
            futures = self._running.get(key)
            if futures is None:
                if not start:
                    return {"state": "idle", **base, "shares": None}
                futures = [self._submit(_worlds_job, replay.deck, asdict(replay.rules), replay.actions, move,
                                        self.worlds, self.world_nodes) for move in range(1, len(replay.actions) + 1)]
                self._running[key] = futures
            shares = [future.result() if future.done() and future.exception() is None else None for future in futures]
            if all(future.done() for future in futures):
                if any(future.exception() is not None for future in futures):
                    self._running.pop(key)
                    return {"state": "failed", **base, "error": str(next(f.exception() for f in futures
                                                                         if f.exception() is not None))[:200]}
                self._keep(key, shares)
                return {"state": "done", **base, "shares": shares}
            return {"state": "running", **base, "shares": shares}
