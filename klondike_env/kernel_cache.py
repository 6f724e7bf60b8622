"""Keep numba's on-disk kernel cache in step with the package's sources.

numba (``cache=True``) checks a cached kernel against its own source file only. A kernel that
calls a kernel of another module compiles the callee into itself, and keeps that old callee
after the other module changes: a change to ``observation.encode`` leaves the cached
``vector.py`` step writing the old observation, a change to ``env.play_step`` leaves the batched
env paying the old rewards. Anyone who edits a kernel module
or pulls a new version into an editable install would meet the same silent mismatch. So when
the sources of the kernel modules differ from those the cache was built from, every cached
kernel of the package is dropped (numba then compiles afresh, about a minute), and the new
sources' digest is recorded.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
STAMP_NAME = "kernel_sources.sha256"


def _imports_numba(source: bytes) -> bool:
    lines = b"\n" + source  # an import at the top of a line, the first line included
    return b"\nfrom numba import" in lines or b"\nimport numba" in lines


def sources_digest(package: Path) -> str:
    """A digest of the package's modules that compile kernels (those importing numba), and of
    every module of a subpackage that holds one (its kernels read constants from its other
    modules, which numba compiles in), each file read once: this runs at every import, pool
    workers' included."""
    sources = {path: path.read_bytes() for path in sorted(package.rglob("*.py")) if "__pycache__" not in path.parts}
    kernel_folders = {path.parent for path, source in sources.items() if _imports_numba(source)} - {package}
    digest = hashlib.sha256()
    for path, source in sources.items():
        if _imports_numba(source) or path.parent in kernel_folders:
            digest.update(path.relative_to(package).as_posix().encode() + b"\0" + source + b"\0")
    return digest.hexdigest()


def drop_stale_kernel_caches(package: Path = PACKAGE) -> bool:
    """Delete the package's cached kernels if its kernel sources changed since they were
    cached; True if it did. Does nothing where numba keeps its cache elsewhere
    (``NUMBA_CACHE_DIR``) or the package folder is read-only."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return False
    try:
        digest = sources_digest(package)
        stamp = package / "__pycache__" / STAMP_NAME
        if stamp.is_file() and stamp.read_text() == digest:
            return False
        for cache in package.rglob("__pycache__"):
            for path in [*cache.glob("*.nbi"), *cache.glob("*.nbc")]:
                path.unlink(missing_ok=True)  # another process may have dropped it first
        stamp.parent.mkdir(exist_ok=True)
        partial = stamp.with_name(f"{STAMP_NAME}.{os.getpid()}")
        partial.write_text(digest)
        os.replace(partial, stamp)  # whole or not at all, for processes importing at once
        return True
    except OSError:  # a read-only install: numba cannot write a cache there either
        return False
