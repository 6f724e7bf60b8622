"""The results files of an evaluation run: ``<stem>.csv`` (one row per deal) and ``<stem>.json``.

The CSV is the record: each game's row is appended and flushed as soon as the game ends, so a
run that crashes or is killed keeps every finished game. The JSON holds the run's identity
(``"run"``: agent, seed set, rules, seed, move limit) from the start, and the summary, built from
the CSV's rows, once every deal is played; :func:`summarize_results` rebuilds it from any CSV.

Opening a run's files (:func:`open_results`) never replaces another run's results silently:
the same run resumes (deals already in the CSV are skipped, none is written twice), a different
one is refused with a one-line :class:`ResultsExistError` unless ``overwrite`` is given.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
from dataclasses import dataclass
from operator import attrgetter
from pathlib import Path
from typing import Callable

from klondike_env.cli import prepare_output_file, read_text
from klondike_env.rules import Rules

#: the CSV's columns, in order (readers: :func:`read_game_rows`, ``klondike compare``, pretraining)
CSV_COLUMNS = ("deal", "won", "moves", "foundation_cards", "seconds", "cpu_seconds", "ending", "actions")
RESULTS_CSV = "a results CSV of klondike evaluate"
DEFAULT_MAX_MOVES = 1000
#: the keys of a run's identity: two runs with equal values give the same games
RUN_KEYS = ("agent", "seeds", "rules", "seed", "max_moves")


class ResultsExistError(ValueError):
    """The results files hold another run (or cannot be resumed): nothing was changed."""


@dataclass
class GameRecord:
    """One game as the harness records it (one CSV row)."""

    deal: int
    won: bool
    moves: int
    foundation_cards: int
    seconds: float  # wall clock
    ending: str  # won, dead, resigned, move limit
    cpu_seconds: float = 0.0  # this process's CPU time: fairer than wall time on a shared machine
    actions: tuple[int, ...] = ()  # the game as played: replays with Game.new(deal).step(...)


def record_row(record: GameRecord) -> list:
    """``record`` as a CSV row (the columns of :data:`CSV_COLUMNS`)."""
    r = record
    return [r.deal, int(r.won), r.moves, r.foundation_cards, f"{r.seconds:.4f}", f"{r.cpu_seconds:.4f}", r.ending,
            " ".join(map(str, r.actions))]


def record_of_row(row: dict[str, str], path: str | os.PathLike = "?", index: int = 0) -> GameRecord:
    """The :class:`GameRecord` of a CSV row; a bad cell is a ``ValueError`` naming the file and line."""
    try:
        return GameRecord(int(row["deal"]), row["won"] == "1", int(row["moves"]), int(row["foundation_cards"]),
                          float(row["seconds"]), row["ending"], float(row.get("cpu_seconds") or 0.0),
                          tuple(parse_moves(row.get("actions") or "")))
    except (ValueError, TypeError, KeyError, AttributeError):
        raise ValueError(f"{path} line {index + 2}: bad row {dict(row)!r}: expected the columns "
                         f"{', '.join(CSV_COLUMNS)}") from None


def parse_moves(text: str) -> list[int]:
    """Space-separated action ids, as the ``actions`` column holds them."""
    return [int(move) for move in text.split()]


def read_game_rows(path: str | os.PathLike, columns: tuple[str, ...] = ("deal", "actions")) -> list[dict[str, str]]:
    """The rows of a results CSV (or a DAgger file, which adds a column); a one-line
    ``ValueError`` naming the file if it is missing, not text (a model .zip passed by mistake)
    or lacks one of ``columns``."""
    reader = csv.DictReader(io.StringIO(read_text(path, RESULTS_CSV)))
    missing = [column for column in columns if column not in (reader.fieldnames or ())]
    if missing:
        raise ValueError(f"{path} has no {missing[0]!r} column: it is not {RESULTS_CSV}")
    return list(reader)


def read_records(path: str | os.PathLike) -> list[GameRecord]:
    """Every game of a results CSV, in file order."""
    return [record_of_row(row, path, index) for index, row in enumerate(read_game_rows(path, CSV_COLUMNS))]


# --- names and identity -------------------------------------------------------------
def result_stem(agent_label: str, seeds_name: str, rules: Rules, seed: int = 0,
                max_moves: int = DEFAULT_MAX_MOVES) -> str:
    """The files' name: the agent, the seed set and the draw, then whatever else sets this run
    apart from the default one (other rules, a non-zero seed, another move limit)."""
    parts = [agent_label, Path(seeds_name).stem, f"draw{rules.draw_count}"]
    if rules.max_passes is not None:
        parts.append(f"passes{rules.max_passes}")
    if rules.empty_column != "king":
        parts.append(f"empty-{rules.empty_column}")
    if seed:
        parts.append(f"seed{seed}")
    if max_moves != DEFAULT_MAX_MOVES:
        parts.append(f"max{max_moves}")
    return re.sub(r"[^A-Za-z0-9._=-]+", "-", "_".join(parts)).strip("-")


def run_identity(agent_label: str, seeds_name: str, rules: Rules, seed: int, max_moves: int,
                 protocol: dict | None = None) -> dict:
    """What makes two runs the same run (:data:`RUN_KEYS`, and a person's ``protocol`` -- undo,
    hints, auto finish -- when given), as stored in the JSON's ``"run"``."""
    from dataclasses import asdict

    identity = {"agent": agent_label, "seeds": seeds_name, "rules": asdict(rules), "seed": seed, "max_moves": max_moves}
    if protocol is not None:
        identity["protocol"] = dict(protocol)
    return identity


def stored_identity(summary: dict) -> dict:
    """The run identity of a JSON written by the harness (older summaries carry the same keys at the top)."""
    if isinstance(summary.get("run"), dict):
        return summary["run"]
    return {key: summary.get(key) for key in RUN_KEYS}


def _difference(stored: dict, wanted: dict) -> str:
    keys = [*RUN_KEYS, *sorted((set(stored) | set(wanted)) - set(RUN_KEYS))]
    key = next(key for key in keys if stored.get(key) != wanted.get(key))
    return f"{key} {stored.get(key)!r}, not {wanted.get(key)!r}"


# --- writing --------------------------------------------------------------------------
@dataclass(frozen=True)
class RowFormat:
    """What one row of a run's CSV holds: its ``columns``, ``row(record)`` (the cells),
    ``parse(row_dict, path, index)`` (the record back) and ``deal(record)``."""

    columns: tuple[str, ...]
    row: Callable
    parse: Callable
    deal: Callable


#: an evaluation's rows: one :class:`GameRecord` per deal
GAME_ROWS = RowFormat(CSV_COLUMNS, record_row, record_of_row, attrgetter("deal"))


@dataclass
class ResultsFiles:
    """An open run: where its files are and the deals already recorded (skipped on resume)."""

    csv_path: Path
    json_path: Path
    identity: dict
    done: dict[int, object]
    rows: RowFormat = GAME_ROWS

    def append(self, record) -> None:
        """Write one finished deal's row to the CSV now (flushed); a deal already recorded is an error."""
        deal = self.rows.deal(record)
        if deal in self.done:
            raise RuntimeError(f"deal {deal} is already in {self.csv_path}")
        with open(self.csv_path, "a", newline="") as handle:
            csv.writer(handle).writerow(self.rows.row(record))
        self.done[deal] = record


def open_results(out_dir: str | os.PathLike, stem: str, identity: dict, deals: list[int], *,
                 overwrite: bool = False, extra: dict | None = None, rows: RowFormat = GAME_ROWS,
                 option: str = "--out") -> ResultsFiles:
    """Open ``<stem>.csv`` / ``<stem>.json`` in ``out_dir`` for the run ``identity`` on ``deals``.

    New files: the CSV gets its header and the JSON the run's identity, before any game. Files of
    the same run: resumed (the deals in the CSV are done; a row cut short by a kill is dropped).
    Files of another run, or a CSV with no JSON: :class:`ResultsExistError` in one line, files
    untouched, unless ``overwrite``, which starts afresh. ``rows`` is what a row holds (default
    an evaluation's games); ``option`` names the command's option for the files in messages.
    """
    out_dir = Path(out_dir)
    csv_path, json_path = out_dir / f"{stem}.csv", out_dir / f"{stem}.json"
    done: dict[int, object] = {}
    instead = f"give another {option}, or --overwrite to replace it"
    if overwrite or not (csv_path.exists() or json_path.exists()):
        _start(csv_path, json_path, identity, extra, rows)
        return ResultsFiles(csv_path, json_path, identity, done, rows)
    if not json_path.is_file():
        raise ResultsExistError(f"{csv_path} exists without its {json_path.name}: {instead}")
    try:
        stored = json.loads(json_path.read_text())
        stored_run = stored_identity(stored)
    except (json.JSONDecodeError, AttributeError, OSError):
        raise ResultsExistError(f"{json_path} is not a results summary: {instead}") from None
    if stored_run != identity:
        raise ResultsExistError(f"{json_path} holds another run ({_difference(stored_run, identity)}): {instead}")
    if not csv_path.is_file():
        _start(csv_path, json_path, identity, extra, rows)
        return ResultsFiles(csv_path, json_path, identity, done, rows)
    _drop_cut_row(csv_path)
    wanted = set(deals)
    for index, row in enumerate(read_game_rows(csv_path, rows.columns)):
        record = rows.parse(row, csv_path, index)
        deal = rows.deal(record)
        if deal not in wanted:
            raise ResultsExistError(f"{csv_path} holds deal {deal}, which this run's deals lack: {instead}")
        done[deal] = record
    return ResultsFiles(csv_path, json_path, identity, done, rows)


def _start(csv_path: Path, json_path: Path, identity: dict, extra: dict | None, rows: RowFormat) -> None:
    csv_path.parent.mkdir(parents=True, exist_ok=True)
    with open(csv_path, "w", newline="") as handle:
        csv.writer(handle).writerow(rows.columns)
    write_json(json_path, {"run": identity, **(extra or {}), "complete": False, "csv": str(csv_path)})


def _drop_cut_row(csv_path: Path) -> None:
    """Cut a last line that a kill left unfinished (no newline): that game is played again."""
    data = csv_path.read_bytes()
    if data and not data.endswith(b"\n"):
        with open(csv_path, "r+b") as handle:
            handle.truncate(data.rfind(b"\n") + 1)


def write_json(path: Path, content: dict) -> None:
    """Replace ``path`` at once (a kill leaves the old file or the new one, never half of one)."""
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(content, indent=2) + "\n")
    os.replace(partial, path)


def finish_results(files: ResultsFiles, deals: list[int], summary: dict) -> tuple[Path, dict]:
    """Rewrite the CSV in the seed set's order (the rows as they were written, not replayed) and
    write the JSON: ``summary`` with the run identity; returns ``(json_path, summary as written)``."""
    order = {deal: index for index, deal in enumerate(deals)}
    records = sorted(files.done.values(), key=lambda record: order[files.rows.deal(record)])
    partial = files.csv_path.with_name(files.csv_path.name + ".partial")
    with open(partial, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(files.rows.columns)
        writer.writerows(files.rows.row(record) for record in records)
    os.replace(partial, files.csv_path)
    summary = {**summary, "run": files.identity, "complete": len(records) == len(deals), "csv": str(files.csv_path)}
    write_json(files.json_path, summary)
    return files.json_path, summary


def resumable_csv(path: str | os.PathLike, option: str) -> Path:
    """The CSV a resumable run writes at ``path`` (its JSON goes beside it, same name): checked
    before the work that fills it -- a name ending in ``.csv`` and a folder that can be written --
    else a one-line ``ValueError`` naming ``option``."""
    path = Path(path)
    if path.suffix != ".csv":
        raise ValueError(f"bad {option} {str(path)!r}: the file name ends in .csv (its settings go to the .json beside it)")
    prepare_output_file(path, option)
    return path


def run_resumable(play, identity: dict, deals: list[int], out_dir: str | os.PathLike, stem: str, summarize, *,
                  rows: RowFormat = GAME_ROWS, option: str = "--out", overwrite: bool = False, header: dict | None = None,
                  stats=None) -> tuple[Path, dict]:
    """Open (or resume) a run's files, have ``play(remaining_deals, on_record)`` play the deals
    not yet recorded -- each record is appended to the CSV as it arrives --, then write the JSON:
    ``header``, ``summarize(records)`` and ``stats`` (an :class:`agents.jobs.JobStats`, under
    ``"jobs"``). Returns ``(json_path, summary)``."""
    import time

    files = open_results(out_dir, stem, identity, deals, overwrite=overwrite, extra=header, rows=rows, option=option)
    remaining = [deal for deal in deals if deal not in files.done]
    start = time.perf_counter()
    if remaining:
        play(remaining, files.append)
    return write_run_summary(files, deals, summarize, header, wall_seconds=time.perf_counter() - start,
                             resumed_games=len(deals) - len(remaining),
                             **({"jobs": stats.as_dict()} if stats is not None and stats.jobs else {}))


def write_run_summary(files: ResultsFiles, deals: list[int], summarize, header: dict | None = None,
                      **details) -> tuple[Path, dict]:
    """Write the run's JSON: ``header``, the deals, ``summarize(records)`` of the rows recorded so
    far, then ``details``; the CSV is put in the order of ``deals``. Returns ``(json_path, summary)``."""
    summary = {**(header or {}), "deals": deals_text(deals), **summarize(list(files.done.values())), **details}
    return finish_results(files, deals, summary)


def write_results(records: list[GameRecord], summary: dict, out_dir: Path, stem: str) -> Path:
    """Write ``<stem>.csv`` and ``<stem>.json`` at once from finished records (no resume); return the JSON path.

    The CSV's ``actions`` column holds each game's action ids, space-separated: every game
    can be replayed (``read_games``), and the games of a strong agent serve as demonstrations
    for training (``agents.training.pretrain``).
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    csv_path = out_dir / f"{stem}.csv"
    with open(csv_path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(CSV_COLUMNS)
        writer.writerows(record_row(record) for record in records)
    json_path = out_dir / f"{stem}.json"
    write_json(json_path, dict(summary, csv=str(csv_path)))
    return json_path


def deals_text(deals: list[int]) -> str:
    """``"FIRST-LAST"`` when the deals are consecutive, else ``"N deals"`` (no work beyond the list)."""
    if deals and all(later == earlier + 1 for earlier, later in zip(deals, deals[1:])):
        return f"{deals[0]}-{deals[-1]}"
    return f"{len(deals)} deals"
