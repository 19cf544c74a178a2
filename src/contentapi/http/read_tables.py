"""Which tables an answer read: the names of the known tables found in its statements' SQL.

A cached answer must be evicted when anything it read changes, and what it read is wider than
its content type: the link tables of the relations it populates or filters through, their
targets' tables, component and dynamic-zone tables, the files and their morph links, the
localization links. Deriving that from the parsed query would repeat the compiler's and the
populator's knowledge (and miss what an extension reads); the statements themselves already
name every table. So the request runs inside ``StatementCounter.observing()`` — fed by the
engine's hook and by the kept statements' own path (``db/driver.py``) alike — and each distinct
SQL text is read once for the table names it holds (``ReadTables.of``; a repeated statement is
a dictionary lookup).

A name counts when it is one of the database's tables, as an identifier token (quoted or not):
a column that happens to share a table's name only adds a dependency, never removes one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from contentapi.caching import BoundedCache

__all__ = ["ReadTables"]

#: identifiers, quoted (``"a""b"``) or bare
_IDENTIFIER = re.compile(r'"((?:[^"]|"")+)"|([A-Za-z_][A-Za-z0-9_$]*)')
#: distinct statement texts whose tables are kept (the kept statements are a few thousand)
_TEXTS = 4096


class ReadTables:
    """SQL texts → the known tables they name."""

    def __init__(self, tables: Iterable[str]) -> None:
        #: every table a statement may read (the content tables, the system tables)
        self.known = frozenset(tables)
        self._by_text: BoundedCache[str, frozenset[str]] = BoundedCache(_TEXTS)

    def of_statement(self, sql: str) -> frozenset[str]:
        found = self._by_text.get(sql)
        if found is None:
            names = {
                quoted.replace('""', '"') if quoted else bare
                for quoted, bare in _IDENTIFIER.findall(sql)
            }
            found = self._by_text.put(sql, frozenset(names & self.known))
        return found

    def of(self, statements: Iterable[str]) -> frozenset[str]:
        """The tables a request's statements read, together."""
        read: set[str] = set()
        for sql in statements:
            read |= self.of_statement(sql)
        return frozenset(read)
