"""Verdict files: the CSV a sweep of deals writes (``klondike solve --csv``) and its readers."""

from __future__ import annotations

import csv

from klondike_env.solver.results import SolveStatus

# The columns of a sweep / verdict CSV (klondike solve --csv; klondike_env/data/verdicts/*.csv).
VERDICT_FIELDS = ("deal", "status", "solution_length", "nodes", "seconds", "stopped_by")


def read_verdict_rows(path) -> dict[int, dict[str, str]]:
    """Each deal's row (a dict by column) of a sweep CSV; a deal's last row counts. A file
    without ``deal`` and ``status`` columns, or with a status other than ``SOLVED``,
    ``UNSOLVABLE`` and ``UNKNOWN``, is a ``ValueError`` naming it."""
    known = {status.value for status in SolveStatus}
    rows: dict[int, dict[str, str]] = {}
    try:
        with open(path, newline="") as handle:
            reader = csv.DictReader(handle)
            if not {"deal", "status"} <= set(reader.fieldnames or ()):
                raise ValueError(f"bad sweep CSV {path}: it needs the columns deal and status "
                                 f"(klondike solve --csv writes {','.join(VERDICT_FIELDS)})")
            for row in reader:
                if row["status"] not in known:
                    raise ValueError(f"bad sweep CSV {path}: status {row['status']!r} for deal {row['deal']} "
                                     f"is not one of SOLVED, UNSOLVABLE, UNKNOWN")
                try:
                    rows[int(row["deal"])] = row
                except ValueError:
                    raise ValueError(f"bad sweep CSV {path} line {reader.line_num}: deal {row['deal']!r} "
                                     "is not a deal number") from None
    except OSError as error:
        raise ValueError(f"cannot read sweep CSV {path}: {error.strerror}") from None
    except UnicodeDecodeError:
        raise ValueError(f"bad sweep CSV {path}: not a text file (klondike solve --csv writes "
                         f"{','.join(VERDICT_FIELDS)})") from None
    return rows


def read_verdicts(path) -> dict[int, str]:
    """Each deal's status (``SOLVED``, ``UNSOLVABLE`` or ``UNKNOWN``) in a sweep CSV
    (:func:`read_verdict_rows`)."""
    return {deal: row["status"] for deal, row in read_verdict_rows(path).items()}
