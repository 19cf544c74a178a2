"""Counting the SQL statements a task executes: tests assert statement budgets with it, the
benchmark captures the statements of a request (with their parameters) to replay them, and the
response cache learns which tables an answer read (``observing``)."""

from __future__ import annotations

import contextvars
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, TypeVar

__all__ = ["StatementCounter"]

_Recorded = TypeVar("_Recorded")


@asynccontextmanager
async def _collecting(
    variable: contextvars.ContextVar[list[_Recorded] | None],
) -> AsyncIterator[list[_Recorded]]:
    """A fresh list that ``record`` fills while the block runs in this task: the one way both
    recordings (statements alone, statements with parameters) start and stop."""
    recorded: list[_Recorded] = []
    token = variable.set(recorded)
    try:
        yield recorded
    finally:
        variable.reset(token)


class StatementCounter:
    """Counts SQL statements executed in the current task (tests assert statement budgets)."""

    _current: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar(
        "statements", default=None
    )
    _with_parameters: contextvars.ContextVar[list[tuple[str, Any]] | None] = contextvars.ContextVar(
        "statements_with_parameters", default=None
    )

    _observed: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar(
        "statements_observed", default=None
    )

    @classmethod
    def observing(cls) -> AbstractAsyncContextManager[list[str]]:
        """The statements of the block, apart from ``recording``'s (the two may nest)."""
        return _collecting(cls._observed)

    @classmethod
    def recording(cls) -> AbstractAsyncContextManager[list[str]]:
        return _collecting(cls._current)

    @classmethod
    def recording_with_parameters(cls) -> AbstractAsyncContextManager[list[tuple[str, Any]]]:
        """Statements with their bound parameters (the benchmark replays them)."""
        return _collecting(cls._with_parameters)

    @classmethod
    def record(cls, statement: str, parameters: Any = None) -> None:
        statements = cls._current.get()
        if statements is not None:
            statements.append(statement)
        observed = cls._observed.get()
        if observed is not None:
            observed.append(statement)
        detailed = cls._with_parameters.get()
        if detailed is not None:
            detailed.append((statement, parameters))
