"""Memory given back to the system after a burst of requests (glibc's allocator tuned).

Large answers (a list with ``populate``, a wide GraphQL selection) allocate megabytes of rows,
dicts and JSON bytes in a worker; freed, glibc keeps most of it in its heaps for the next
allocation, so a worker's RSS stays at its high-water mark: after a hostile probe, 211 → 345
MiB, for good. Two measures, both needed (measured: docs/security.md):

- ``limit_arenas()``, at the worker's start: at most two malloc arenas (``M_ARENA_MAX``, as
  ``MALLOC_ARENA_MAX=2``). glibc gives each thread that allocates an arena of its own, and
  aiosqlite runs each SQLite connection in a thread: the rows read there stayed in those
  arenas, which trimming hardly shrinks (SQLite: +66% after a burst with the trim alone).
- ``trim_when_idle``: ``malloc_trim(0)`` once requests have been served and none is in
  flight, at most every second, hands the free pages of the heaps back (PostgreSQL: +51%
  after a burst without it, +7% with it).

No-ops where the C library is not glibc.
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import os
from collections.abc import Callable

__all__ = ["limit_arenas", "malloc_trim", "trim_when_idle"]

#: seconds between two checks for idleness (a trim takes about a millisecond)
TRIM_INTERVAL = 1.0
#: glibc's ``mallopt`` parameter number of ``M_ARENA_MAX`` (malloc.h), and the limit
_M_ARENA_MAX = -8
ARENAS = 2


def _glibc() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        libc = ctypes.CDLL(name)
        libc.malloc_trim.argtypes = [ctypes.c_size_t]
        libc.mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    except (OSError, AttributeError):  # musl, macOS: neither function
        return None
    return libc


_LIBC = _glibc()
_TRIM: Callable[[int], int] | None = None if _LIBC is None else _LIBC.malloc_trim


def limit_arenas(arenas: int = ARENAS) -> bool:
    """At most ``arenas`` malloc arenas from now on (call before threads start); ``False``
    where it cannot, or where ``MALLOC_ARENA_MAX`` already says how many."""
    if _LIBC is None or "MALLOC_ARENA_MAX" in os.environ:
        return False
    return bool(_LIBC.mallopt(_M_ARENA_MAX, arenas))


def malloc_trim() -> bool:
    """Return the allocator's free memory to the system; ``False`` where it cannot."""
    if _TRIM is None:
        return False
    _TRIM(0)
    return True


async def trim_when_idle(
    served: Callable[[], int], in_flight: Callable[[], int], interval: float = TRIM_INTERVAL
) -> None:
    """Until cancelled: trim after requests were served (``served()``, a running count) and
    none is in flight (``in_flight()``), so a busy worker is not slowed by trimming."""
    if _TRIM is None:
        return
    trimmed_at = served()
    while True:
        await asyncio.sleep(interval)
        count = served()
        if count != trimmed_at and in_flight() == 0:
            malloc_trim()
            trimmed_at = count
