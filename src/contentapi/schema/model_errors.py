"""What a model check reports: ``ModelError`` (file, attribute, message), ``ModelErrors`` (all of
them at once), the per-file collector the rules append to, and the did-you-mean hints.

Shared by every rule module (``attribute_rules``, ``document_rules``, ``reference_rules``,
``inverses``) and by the loader, so that ``contentapi check`` prints every problem in one form.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["ErrorCollector", "ModelError", "ModelErrors", "close_match", "did_you_mean"]


@dataclass(frozen=True, slots=True)
class ModelError:
    """One problem in one model file, optionally at one attribute."""

    source: Path
    attribute: str | None
    message: str

    def __str__(self) -> str:
        where = f"{self.source}"
        if self.attribute:
            where += f": attribute '{self.attribute}'"
        return f"{where}: {self.message}"


class ModelErrors(Exception):
    """Raised when any model is invalid; start-up and ``contentapi check`` print each error."""

    def __init__(self, errors: list[ModelError]) -> None:
        super().__init__("\n".join(str(error) for error in errors))
        self.errors = errors


class ErrorCollector:
    """The problems of one file: every rule appends, nothing stops at the first."""

    def __init__(self, source: Path) -> None:
        self.source = source
        self.errors: list[ModelError] = []

    def add(self, attribute: str | None, message: str) -> None:
        self.errors.append(ModelError(self.source, attribute, message))


def did_you_mean(value: Any, choices: Iterable[str]) -> str:
    """`` (did you mean 'integer'?)`` for a near miss, else ``"; use one of …"``."""
    return close_match(value, choices) or f"; use one of {', '.join(sorted(choices))}"


def close_match(value: Any, choices: Iterable[str]) -> str:
    """`` (did you mean 'integer'?)`` for a near miss of ``value`` among ``choices``, or ``""``."""
    if not isinstance(value, str):
        return ""
    close = difflib.get_close_matches(value, sorted(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""
