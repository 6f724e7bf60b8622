"""Data that ships inside the package: the named seed sets and the solver's verdict files.

Read through :mod:`importlib.resources`, so an installed copy (not only a checkout) finds them.

* ``seeds/<name>.txt`` -- a named seed set, one deal number per line (``#`` starts a comment):
  ``dev`` (deals 1-100), ``test`` (1-1000), ``val`` (1001-2000).
* ``verdicts/draw<N>_deals1-2000.csv`` -- the solver's verdict on every deal 1-2000 under the
  standard rules with draw N (columns of ``klondike_env.solver.VERDICT_FIELDS``): the deals an
  agent could have won, so a win rate can be reported over winnable deals.
"""

from __future__ import annotations

from importlib.resources import files

_ROOT = files(__name__)
SEED_SUFFIX = ".txt"


def seed_set_names() -> list[str]:
    """The names of the seed sets that ship (``dev``, ``test``, ``val``)."""
    return sorted(entry.name[: -len(SEED_SUFFIX)] for entry in (_ROOT / "seeds").iterdir()
                  if entry.name.endswith(SEED_SUFFIX))


def seed_set_file(name: str):
    """The file of the named seed set (a :class:`pathlib.Path` for an installed package), or
    ``None`` when no set has that name."""
    if name not in seed_set_names():
        return None
    return _ROOT / "seeds" / f"{name}{SEED_SUFFIX}"


def verdict_file(draw_count: int):
    """The solver's verdict file for the standard rules with ``draw_count`` (1 or 3), or ``None``."""
    path = _ROOT / "verdicts" / f"draw{draw_count}_deals1-2000.csv"
    return path if path.is_file() else None
