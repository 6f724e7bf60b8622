"""The web app's storage: one SQLite file (standard library, WAL mode).

A round (one game played by a person) is stored as its deck, its rules and its log of
actions -- an action id, or :data:`UNDO` -- so it replays exactly; a scored round (a deal of a
seed set played once for the benchmark) also holds the protocol it is played under. Every accepted action is
committed before the answer goes out. Ids of players and rounds come from :mod:`secrets`.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import threading
from dataclasses import dataclass, field
from pathlib import Path

UNDO = -1  # in a round's log: the previous action was taken back
SCHEMA_VERSION = 2  # 2: rounds.protocol

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS players (id TEXT PRIMARY KEY, created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS rounds (
    id TEXT PRIMARY KEY,
    player TEXT NOT NULL REFERENCES players(id),
    deal TEXT,                      -- a deal number as text (up to 2**64 - 1), NULL for a given deck
    deck TEXT NOT NULL,             -- 52 cards as text, dealing order
    rules TEXT NOT NULL,            -- JSON of the Rules fields
    log TEXT NOT NULL,              -- JSON list: action ids, -1 for an undo
    status TEXT NOT NULL,           -- playing, won, lost, abandoned
    created REAL NOT NULL,
    started REAL,                   -- the first action's time
    last_action REAL,
    elapsed_ms INTEGER NOT NULL DEFAULT 0,
    moves INTEGER NOT NULL DEFAULT 0,
    cards_home INTEGER NOT NULL DEFAULT 0,
    recycles INTEGER NOT NULL DEFAULT 0,
    undos INTEGER NOT NULL DEFAULT 0,
    hints INTEGER NOT NULL DEFAULT 0,
    protocol TEXT                   -- JSON of a scored round's protocol (undo, hints, ...), NULL in free play
);
CREATE INDEX IF NOT EXISTS rounds_by_player ON rounds (player, status);
"""

ROUND_STATUSES = ("playing", "won", "lost", "abandoned")


def new_id() -> str:
    """An unguessable id (128 random bits, URL-safe)."""
    return secrets.token_urlsafe(16)


@dataclass
class RoundRecord:
    """One stored round (see the table ``rounds``)."""

    id: str
    player: str
    deal: int | None
    deck: str
    rules: dict
    log: list[int] = field(default_factory=list)
    status: str = "playing"
    created: float = 0.0
    started: float | None = None
    last_action: float | None = None
    elapsed_ms: int = 0
    moves: int = 0
    cards_home: int = 0
    recycles: int = 0
    undos: int = 0
    hints: int = 0
    protocol: dict | None = None

    def to_row(self) -> dict:
        row = dict(self.__dict__)
        row["deal"] = None if self.deal is None else str(self.deal)
        row["rules"] = json.dumps(self.rules, sort_keys=True)
        row["log"] = json.dumps(self.log, separators=(",", ":"))
        row["protocol"] = None if self.protocol is None else json.dumps(self.protocol, sort_keys=True)
        return row

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> "RoundRecord":
        values = dict(row)
        values["deal"] = None if values["deal"] is None else int(values["deal"])
        values["rules"] = json.loads(values["rules"])
        values["log"] = json.loads(values["log"])
        values["protocol"] = None if values["protocol"] is None else json.loads(values["protocol"])
        return cls(**values)


class Store:
    """The SQLite file. One connection, used under a lock (writes are short)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        if str(path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._db.row_factory = sqlite3.Row
        with self._lock:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA busy_timeout=5000")
            self._db.executescript(SCHEMA)
            found = self._db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
            if found is not None and int(found[0]) > SCHEMA_VERSION:
                raise RuntimeError(f"{path} was written by a newer version of klondike (schema {found[0]})")
            columns = {row[1] for row in self._db.execute("PRAGMA table_info(rounds)")}
            if "protocol" not in columns:  # a file of schema 1 gains the column; its rounds are free play
                self._db.execute("ALTER TABLE rounds ADD COLUMN protocol TEXT")
            self._db.execute("INSERT OR REPLACE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # --- players -------------------------------------------------------------------
    def new_player(self, now: float) -> str:
        player = new_id()
        with self._lock:
            self._db.execute("INSERT INTO players VALUES (?, ?)", (player, now))
        return player

    def player_exists(self, player: str) -> bool:
        with self._lock:
            return self._db.execute("SELECT 1 FROM players WHERE id=?", (player,)).fetchone() is not None

    # --- rounds ------------------------------------------------------------------------
    def insert_round(self, record: RoundRecord) -> None:
        row = record.to_row()
        columns = ", ".join(row)
        marks = ", ".join(f":{name}" for name in row)
        with self._lock:
            self._db.execute(f"INSERT INTO rounds ({columns}) VALUES ({marks})", row)

    def save_round(self, record: RoundRecord) -> None:
        """Write everything that changes as a round is played."""
        row = record.to_row()
        names = [n for n in row if n not in ("id", "player", "deal", "deck", "rules", "created", "protocol")]
        assignments = ", ".join(f"{name}=:{name}" for name in names)
        with self._lock:
            self._db.execute(f"UPDATE rounds SET {assignments} WHERE id=:id", row)

    def load_round(self, round_id: str) -> RoundRecord | None:
        with self._lock:
            row = self._db.execute("SELECT * FROM rounds WHERE id=?", (round_id,)).fetchone()
        return None if row is None else RoundRecord.from_row(row)

    def rounds_of(self, player: str) -> list[RoundRecord]:
        """Every round of ``player``, oldest first."""
        with self._lock:
            rows = self._db.execute("SELECT * FROM rounds WHERE player=? ORDER BY created, rowid", (player,)).fetchall()
        return [RoundRecord.from_row(row) for row in rows]

    def add_player(self, player: str, now: float) -> None:
        """Make sure ``player`` (an id chosen by the caller) exists."""
        with self._lock:
            self._db.execute("INSERT OR IGNORE INTO players VALUES (?, ?)", (player, now))

    def open_rounds(self, player: str) -> list[str]:
        """Ids of the player's rounds still being played."""
        with self._lock:
            rows = self._db.execute("SELECT id FROM rounds WHERE player=? AND status='playing'", (player,)).fetchall()
        return [row[0] for row in rows]

    def statistics(self, player: str) -> list[dict]:
        """Per rule set: rounds played (at least one action), won, lost, abandoned, best time and
        fewest moves among wins."""
        with self._lock:
            rows = self._db.execute(
                """SELECT rules,
                          COUNT(*) AS played,
                          SUM(status='won') AS won,
                          SUM(status='lost') AS lost,
                          SUM(status='abandoned') AS abandoned,
                          SUM(status='playing') AS playing,
                          MIN(CASE WHEN status='won' THEN elapsed_ms END) AS best_time_ms,
                          MIN(CASE WHEN status='won' THEN moves END) AS fewest_moves
                   FROM rounds WHERE player=? AND started IS NOT NULL
                   GROUP BY rules ORDER BY rules""",
                (player,),
            ).fetchall()
        return [dict(row, rules=json.loads(row["rules"])) for row in rows]
