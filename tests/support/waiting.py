"""Waiting for something to happen, by polling until a deadline — never a fixed sleep.

A fixed sleep is either too short on a loaded machine (a flaky test) or too long everywhere (a
slow suite); polling returns as soon as the condition holds and fails, naming what it waited for,
only when the deadline passes. The deadlines are generous on purpose: they bound a hang, they do
not measure speed (the benchmark does that).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

import pytest

__all__ = ["eventually", "wait_until"]

#: how long a condition may take before the test fails; a bound on a hang, not a speed claim
#: (a worker restarting on a machine with twice its cores busy took over 10 s)
DEFAULT_SECONDS = 30.0


async def eventually(
    check: Callable[[], Awaitable[bool]],
    what: str,
    *,
    seconds: float = DEFAULT_SECONDS,
    interval: float = 0.02,
) -> float:
    """Seconds until ``await check()`` holds; fails the test naming ``what`` past ``seconds``."""
    started = time.monotonic()
    while not await check():
        if time.monotonic() - started > seconds:
            pytest.fail(f"{what}: not within {seconds} s")
        await asyncio.sleep(interval)
    return time.monotonic() - started


def wait_until(
    condition: Callable[[], bool],
    what: str,
    *,
    seconds: float = DEFAULT_SECONDS,
    interval: float = 0.1,
) -> float:
    """The blocking twin of :func:`eventually`, for code that runs outside an event loop."""
    started = time.monotonic()
    while not condition():
        if time.monotonic() - started > seconds:
            pytest.fail(f"{what}: not within {seconds} s")
        time.sleep(interval)
    return time.monotonic() - started
