"""The heartbeat a worker writes to its supervisor, from its event loop.

A dead worker is seen by ``waitpid``; a hung one is not: a worker whose event loop is blocked
(a busy loop, a blocking call in async code) keeps its share of the listening socket and its
process, and stops answering. So each worker started by ``supervisor.py`` writes one byte to a
pipe every ``interval`` seconds *from a task on its event loop*, once uvicorn has started
serving: the bytes stop when the loop stops turning, and the first one says the worker is ready
(the supervisor's rolling restart waits for it). The supervisor replaces a worker silent for
``CONTENTAPI_WORKER_TIMEOUT`` seconds.

Standard library only: the supervisor imports it and stays small.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable

__all__ = ["beat", "beat_interval"]

BEAT = b"."


def beat_interval(timeout: float) -> float:
    """Seconds between beats for a supervisor that waits ``timeout``: several beats fit in
    the timeout (a loop briefly busy is not a hung one), at most one a second."""
    return min(1.0, max(0.02, timeout / 5))


async def beat(fd: int, interval: float, started: Callable[[], bool]) -> None:
    """Write a beat to ``fd`` every ``interval`` seconds once ``started()`` holds; until
    cancelled, or until the supervisor is gone (the pipe closed: the caller stops the worker,
    which nobody would replace or stop any more). A full pipe (a supervisor busy elsewhere)
    skips a beat: the loop never blocks on it."""
    os.set_blocking(fd, False)
    try:
        while True:
            if started():
                try:
                    os.write(fd, BEAT)
                except BlockingIOError:
                    pass
                except BrokenPipeError:
                    return
            await asyncio.sleep(interval)
    finally:
        os.close(fd)
