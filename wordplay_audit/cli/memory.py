"""Memory settings for the commands that read a large export: Arrow on the C library's
allocator, and the reader's freed memory handed back before the analysis starts.

Both are process-wide, so only the command line makes them, in its own process, around its
reads (``wa.read_balderdash`` in a notebook leaves the pool and the heap as they are)."""

from __future__ import annotations


def arrow_on_malloc() -> None:
    """Arrow allocates through malloc, as numpy does, unless ``ARROW_DEFAULT_MEMORY_POOL`` says
    otherwise: memory one frees the other reuses (1M player-rounds, ``metrics``: 630 → 548 MB
    peak against Arrow's default mimalloc, same time)."""
    import os

    import pyarrow as pa

    if not os.environ.get("ARROW_DEFAULT_MEMORY_POOL"):
        pa.set_memory_pool(pa.system_memory_pool())


def trim_heap() -> None:
    """Hand the memory the reader freed back to the system (glibc keeps freed blocks for reuse,
    often more than is reused): the read's transient columns then do not count in the peak of
    what follows. Nothing happens where the C library has no ``malloc_trim``."""
    import ctypes
    import ctypes.util

    try:
        ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc
        pass
