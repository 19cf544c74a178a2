"""The heartbeat a worker writes to its supervisor, from its event loop.

A dead worker is seen by ``waitpid``; a hung one is not: a worker whose event loop is blocked
(a busy loop, a blocking call in async code) keeps its share of the listening socket and its
process, and stops answering. So each worker started by ``supervisor.py`` writes one byte to a
pipe every ``interval`` seconds *from a task on its event loop*, once uvicorn has started
serving: the bytes stop when the loop stops turning, and the first one says the worker is ready
(the supervisor's rolling restart waits for it). The supervisor replaces a worker silent for
``CONTENTAPI_WORKER_TIMEOUT`` seconds.

This module is the protocol both sides share, and nothing more: the supervisor imports it, and
asyncio alone would add 11 MB to the supervisor's 12 (the beating task is ``worker.py``'s).
"""

from __future__ import annotations

import os

__all__ = ["BEAT", "beat_interval", "send_beat"]

BEAT = b"."


def beat_interval(timeout: float) -> float:
    """Seconds between beats for a supervisor that waits ``timeout``: several beats fit in
    the timeout (a loop briefly busy is not a hung one), at most one a second."""
    return min(1.0, max(0.02, timeout / 5))


def send_beat(fd: int) -> bool:
    """Write one beat to the non-blocking pipe ``fd``; False when the supervisor is gone (the
    pipe closed). A full pipe (a supervisor busy elsewhere) skips the beat: the event loop
    never blocks on it."""
    try:
        os.write(fd, BEAT)
    except BlockingIOError:
        return True
    except BrokenPipeError:
        return False
    return True
