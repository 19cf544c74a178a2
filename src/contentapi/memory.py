"""Memory given back to the system after a burst of requests (glibc's ``malloc_trim``).

Large answers (a list with ``populate``, a wide GraphQL selection) allocate megabytes of rows,
dicts and JSON bytes in a worker; freed, glibc keeps most of it in its heap and arenas for the
next allocation, so a worker's RSS stays at its high-water mark: after a hostile probe, 211 →
345 MiB, for good. ``trim_when_idle`` calls ``malloc_trim(0)`` once requests have been served
and none is in flight, at most every ``interval`` seconds, which hands the free pages back
(figures: docs/security.md). A no-op where the C library is not glibc.
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
from collections.abc import Callable

__all__ = ["malloc_trim", "trim_when_idle"]

#: seconds between two checks for idleness (a trim takes about a millisecond)
TRIM_INTERVAL = 1.0


def _libc_trim() -> Callable[[int], int] | None:
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        function = ctypes.CDLL(name).malloc_trim
    except (OSError, AttributeError):  # musl, macOS: no malloc_trim
        return None
    function.argtypes = [ctypes.c_size_t]
    function.restype = ctypes.c_int
    return function


_TRIM = _libc_trim()


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
