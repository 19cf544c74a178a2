"""A populator over the repository's content types with no database behind it.

``FakeKept`` answers the kept statements (``KeptStatements.rows``/``mappings``) and
``FakeConnection`` the ad-hoc ones (``conn.execute``) with canned rows in the order they are
asked, and record each statement, so the populator's grouping and statement building can be
tested as pure code.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

from sqlalchemy.dialects import postgresql, sqlite

from contentapi.db.dialect import dialect_named
from contentapi.db.tables import ContentTables, build_tables
from contentapi.query.compile import Compiler
from contentapi.query.populate import Populator
from contentapi.schema import load_registry
from contentapi.schema.registry import Registry

MODELS = Path(__file__).resolve().parents[3] / "content-types"
ARTICLE = "api::article.article"
AUTHOR = "api::author.author"
CATEGORY = "api::category.category"
#: the connection handed to a reader whose statements all go through ``FakeKept``
NO_CONNECTION: Any = None


@cache
def schema() -> tuple[Registry, ContentTables]:
    """The content types of ``content-types/`` and their tables (loaded once per run)."""
    registry = load_registry(MODELS)
    return registry, build_tables(registry)


class FakeKept:
    """``KeptStatements`` answering canned rows, one answer per call, in order."""

    def __init__(self, *answers: Sequence[Any]) -> None:
        self.answers = list(answers)
        self.calls: list[tuple[Any, dict[str, Any] | None]] = []

    async def rows(
        self, conn: Any, statement: Any, parameters: dict[str, Any] | None = None
    ) -> Sequence[Any]:
        self.calls.append((statement, parameters))
        return self.answers.pop(0)

    mappings = rows


class FakeResult:
    def __init__(self, rows: Sequence[Any]) -> None:
        self._rows = rows

    def all(self) -> list[Any]:
        return list(self._rows)

    def mappings(self) -> list[Any]:
        return list(self._rows)


class FakeConnection:
    """``AsyncConnection.execute`` answering canned rows, one answer per call, in order."""

    def __init__(self, *answers: Sequence[Any]) -> None:
        self.answers = list(answers)
        self.calls: list[tuple[Any, Any]] = []

    async def execute(self, statement: Any, parameters: Any = None) -> FakeResult:
        self.calls.append((statement, parameters))
        return FakeResult(self.answers.pop(0))


def populator(dialect: str = "postgresql", kept: FakeKept | None = None) -> Populator:
    """A populator of the repository's models for ``dialect``, its statements answered by
    ``kept``."""
    registry, tables = schema()
    compiler = Compiler(registry, tables, dialect_named(dialect))
    answers: Any = kept or FakeKept()
    return Populator(registry, tables, compiler, answers)


def sql(statement: Any, dialect: str = "postgresql") -> str:
    """The statement's SQL text for ``dialect``, on one line."""
    chosen = postgresql.dialect() if dialect == "postgresql" else sqlite.dialect()
    return " ".join(str(statement.compile(dialect=chosen)).split())


def parameters(statement: Any, dialect: str = "postgresql") -> dict[str, Any]:
    """The values bound in the statement as compiled for ``dialect``."""
    chosen = postgresql.dialect() if dialect == "postgresql" else sqlite.dialect()
    return dict(statement.compile(dialect=chosen).params)
