"""Small helpers the command-line scripts share, so that bad input is one clear line.

Argument types for ``argparse`` (``type=positive_int`` and so on): argparse then names the
flag itself (``error: argument --workers: expected an integer >= 1, got 0``). Output paths are
checked before the work that fills them starts, so a typo does not cost a finished run.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path


def int_at_least(low: int):
    """An argparse type: an integer ``>= low``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer >= {low}, got {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"expected an integer >= {low}, got {value}")
        return value

    parse.__name__ = f"integer >= {low}"  # argparse names the type in its messages
    return parse


positive_int = int_at_least(1)
nonnegative_int = int_at_least(0)


def positive_float(text: str) -> float:
    """An argparse type: a number ``> 0``."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number > 0, got {text!r}") from None
    if not value > 0:  # also refuses nan
        raise argparse.ArgumentTypeError(f"expected a number > 0, got {text}")
    return value


def prepare_output_dir(path: str | os.PathLike, flag: str) -> Path:
    """Create the folder ``path`` (and its parents) now; ValueError naming ``flag`` if it cannot be."""
    return _make_folder(Path(path), f"bad {flag} {str(path)!r}")


def _make_folder(folder: Path, error_start: str) -> Path:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ValueError(f"{error_start}: cannot create the folder {str(folder)!r} ({error.strerror or error})") from None
    if not os.access(folder, os.W_OK):
        raise ValueError(f"{error_start}: the folder {str(folder)!r} is not writable")
    return folder


def prepare_output_file(path: str | os.PathLike, flag: str) -> Path:
    """Check that the file ``path`` can be written later (its folder is created now, the file is
    not touched, so an existing file keeps its content until the caller writes it)."""
    file = Path(path)
    if file.is_dir():
        raise ValueError(f"bad {flag} {str(path)!r}: that is a folder; give a file name")
    _make_folder(file.parent, f"bad {flag} {str(path)!r}")
    if file.exists() and not os.access(file, os.W_OK):
        raise ValueError(f"bad {flag} {str(path)!r}: that file is not writable")
    return file


def read_text(path: str | os.PathLike, what: str) -> str:
    """The UTF-8 text of ``path``; ValueError naming the file and ``what`` it should be if it is
    missing or not text (a model .zip passed by mistake, say)."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ValueError(f"{str(path)!r} not found: expected {what}") from None
    except UnicodeDecodeError:
        raise ValueError(f"{str(path)!r} is not a text file: expected {what}") from None
    except OSError as error:
        raise ValueError(f"cannot read {str(path)!r} ({error.strerror or error}): expected {what}") from None
