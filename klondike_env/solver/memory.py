"""Large arrays for the searches, in memory that is quick to hand out.

numpy asks Linux for transparent huge pages on large arrays. Where the kernel compacts memory at
fault time to find them (THP defrag ``madvise``, a common default), touching a 512 MB table took
up to 8 s of a process's CPU on our machines instead of 0.3 s, and most of the compaction failed
anyway (docs/experiments/2026-12-03-table-memory.md). So the searches' arrays are anonymous
mappings with ordinary pages.
A table kept between solves is touched once and then marked for huge pages, which the kernel's
``khugepaged`` assembles in the background (about 16 MB every 10 s with its defaults), so a long
sweep still gets their faster random access without paying for them up front.
"""

from __future__ import annotations

import mmap

import numpy as np

PAGE_BYTES = mmap.PAGESIZE
# Private, not Python's default shared mapping: Linux gives huge pages to shared anonymous memory
# only where shmem THP is on (`shmem_enabled`, "never" by default), so a shared table never got them.
PRIVATE = {"flags": mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS} if hasattr(mmap, "MAP_ANONYMOUS") else {}


def search_array(shape: int | tuple[int, ...], dtype, *, keep: bool = False) -> np.ndarray:
    """A zeroed C-contiguous array on ordinary pages. ``keep``: it lives across solves, so touch
    every page now (no timed solve pays for the faults) and let the kernel turn it into huge
    pages in the background where it can."""
    dtype = np.dtype(dtype)
    count = int(np.prod(shape, dtype=np.int64))
    if count * dtype.itemsize == 0:
        return np.zeros(shape, dtype)
    buffer = mmap.mmap(-1, count * dtype.itemsize, **PRIVATE)  # anonymous: zeroed pages, handed out on first touch
    array = np.frombuffer(buffer, dtype, count).reshape(shape)
    if keep:
        flat = array.reshape(-1).view(np.uint8)
        flat[::PAGE_BYTES] = 0
        if hasattr(buffer, "madvise") and hasattr(mmap, "MADV_HUGEPAGE"):  # Linux
            buffer.madvise(mmap.MADV_HUGEPAGE)
    return array
