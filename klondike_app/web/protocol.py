"""The protocol a person is scored under on a seed set: which aids the page allows.

A scored game is always one try at its deal, with the deal number hidden until the game is
over. The protocol adds the aids: undo (allowed and counted, or off), hints (off, or allowed
and counted) and auto finish (the solver's winning line once no card is hidden). It is stored
with every scored round and in the results' run identity, so games played under different
protocols never share a results file.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

PLAYER_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,39}")
SWITCHES = ("on", "off")


@dataclass(frozen=True)
class Protocol:
    undo: bool = True  # allowed, and every undo counted
    hints: bool = False  # allowed (and counted) only when on
    auto_finish: bool = True

    @classmethod
    def from_switches(cls, undo: str = "on", hints: str = "off", auto_finish: str = "on") -> "Protocol":
        """From the command line's ``on``/``off`` words (a one-line ``ValueError`` for others)."""
        values = {}
        for name, word in (("undo", undo), ("hints", hints), ("auto-finish", auto_finish)):
            if word not in SWITCHES:
                raise ValueError(f"bad --{name} {str(word)[:20]!r}: write on or off")
            values[name.replace("-", "_")] = word == "on"
        return cls(**values)

    def as_dict(self) -> dict:
        return asdict(self)

    def text(self) -> str:
        """In words, as the page and the results show it."""
        return "; ".join([
            "one try per deal",
            "undo allowed and counted" if self.undo else "no undo",
            "hints allowed and counted" if self.hints else "no hints",
            "auto finish on" if self.auto_finish else "auto finish off",
        ])

    def stem_suffix(self) -> str:
        """What the results' file name adds for a protocol other than the default one."""
        default = Protocol()
        parts = [f"{name.replace('_', '')}-{'on' if value else 'off'}" for name, value in asdict(self).items()
                 if value != getattr(default, name)]
        return "".join(f"_{part}" for part in parts)


def check_player_name(name: str) -> str:
    """``name`` when it can name a person's results (``human:NAME`` and a file name), else a
    one-line ``ValueError``."""
    if not isinstance(name, str) or not PLAYER_NAME.fullmatch(name):
        raise ValueError(f"bad --player {str(name)[:40]!r}: a name of 1 to 40 letters, digits, '.', '_' or '-', "
                         "starting with a letter or digit")
    return name


def refusal(protocol: dict, aid: str) -> str | None:
    """Why a scored round under ``protocol`` (a stored dict) refuses ``aid`` (undo, hints,
    auto_finish), or None when it allows it."""
    if protocol is None or protocol.get(aid, True):
        return None
    named = {"undo": "undo", "hints": "hints", "auto_finish": "auto finish"}[aid]
    return f"{named} is off in this scored game (the protocol: {Protocol(**_fields(protocol)).text()})"


def _fields(protocol: dict) -> dict:
    return {key: protocol[key] for key in ("undo", "hints", "auto_finish") if key in protocol}
