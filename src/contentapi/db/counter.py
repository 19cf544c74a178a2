"""Counting the SQL statements a task executes: tests assert statement budgets with it, and
the benchmark captures the statements of a request (with their parameters) to replay them."""

from __future__ import annotations

import contextvars
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

__all__ = ["StatementCounter"]


class StatementCounter:
    """Counts SQL statements executed in the current task (tests assert statement budgets)."""

    _current: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar(
        "statements", default=None
    )
    _with_parameters: contextvars.ContextVar[list[tuple[str, Any]] | None] = contextvars.ContextVar(
        "statements_with_parameters", default=None
    )

    @classmethod
    @asynccontextmanager
    async def recording(cls) -> AsyncIterator[list[str]]:
        statements: list[str] = []
        token = cls._current.set(statements)
        try:
            yield statements
        finally:
            cls._current.reset(token)

    @classmethod
    @asynccontextmanager
    async def recording_with_parameters(cls) -> AsyncIterator[list[tuple[str, Any]]]:
        """Statements with their bound parameters (the benchmark replays them)."""
        statements: list[tuple[str, Any]] = []
        token = cls._with_parameters.set(statements)
        try:
            yield statements
        finally:
            cls._with_parameters.reset(token)

    @classmethod
    def record(cls, statement: str, parameters: Any = None) -> None:
        statements = cls._current.get()
        if statements is not None:
            statements.append(statement)
        detailed = cls._with_parameters.get()
        if detailed is not None:
            detailed.append((statement, parameters))
