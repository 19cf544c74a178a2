"""The shaper combinators the planner composes (``plan.py``): entries of a page, one or many
entities, values read under a populate key, union items shaped by their own type, a nested
list's page cut per parent, and the per-row ``null`` plus error of a forbidden relation or of
refused nested arguments (as Strapi's per-row resolvers answer)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from graphql import GraphQLError

from contentapi.errors import ApplicationError, ForbiddenError
from contentapi.graphql.errors import format_error
from contentapi.graphql.shape import NullInNonNull, ShapeErrors, Shaper
from contentapi.query.pagination import Window

__all__ = [
    "as_entity",
    "entity_list",
    "entries_of_page",
    "failing_field",
    "forbidden_error",
    "forbidden_row",
    "items_by_type",
    "optional_entity",
    "page_meta_shaper",
    "required_value",
    "sliced_items",
    "sliced_wrapper",
    "value_of",
]


def forbidden_error() -> dict[str, Any]:
    """Strapi's per-field ``Forbidden access`` (no ``locations``/``path``, as it answers)."""
    error = ForbiddenError("Forbidden access")
    return {
        "message": error.message,
        "extensions": {
            "error": {"name": error.name, "message": error.message, "details": {}},
            "code": "FORBIDDEN",
        },
    }


def items_by_type(name: str, shapers: dict[str, Shaper], type_key: str) -> Shaper:
    """A list of union items, each shaped by the shaper of its type (read from ``type_key``)."""

    def items(entry: Any, errors: ShapeErrors) -> Any:
        values = entry.get(name)
        if values is None:
            return None
        return [shapers[item[type_key]](item, errors) for item in values]

    return items


def as_entity(entry: Any) -> dict[str, Any]:
    """The parent of a custom ``XEntity`` field: ``{id, attributes}`` as Strapi's resolvers
    hand it on."""
    return {"id": entry["id"], "attributes": entry}


def entries_of_page(entity: Shaper) -> Shaper:
    """``data`` of a list root: each entry of its ``Page`` shaped as an entity."""

    def entries(page: Any, errors: ShapeErrors) -> list[Any]:
        return [entity(entry, errors) for entry in page.entries]

    return entries


def page_meta_shaper(fields: tuple[tuple[str, str], ...]) -> Shaper:
    """``meta.pagination`` of a list root: the selected ``(key, field)`` pairs of its window's
    meta (``query/pagination.py``, the page count REST answers too)."""

    def pagination(page: Any, errors: ShapeErrors) -> Any:
        values: dict[str, Any] = {**page.window.meta(page.total or 0), "__typename": "Pagination"}
        return {k: values[n] for k, n in fields}

    return pagination


def entity_list(entity: Shaper) -> Shaper:
    """``data`` of a to-many wrapper: every value shaped (none for a missing list)."""

    def many(values: Any, errors: ShapeErrors) -> list[Any]:
        return [entity(value, errors) for value in values or ()]

    return many


def optional_entity(entity: Shaper) -> Shaper:
    """``data`` of a to-one wrapper: the value shaped, or ``null``."""

    def one(value: Any, errors: ShapeErrors) -> Any:
        return None if value is None else entity(value, errors)

    return one


def forbidden_row(entry: Any, errors: ShapeErrors) -> None:
    """A relation the caller may not read: ``null`` and ``forbidden_error`` per parent row."""
    errors.append(forbidden_error())
    return None


def failing_field(error: ApplicationError) -> Callable[[str], Shaper]:
    """A nested field whose arguments are refused: ``null`` with the error once per parent
    row, as Strapi's per-row resolver answers (the rest of the answer stands)."""
    formatted = format_error(GraphQLError(error.message, original_error=error))

    def failing(entry: Any, errors: ShapeErrors) -> None:
        errors.append(formatted)
        return None

    return lambda key: failing


def value_of(name: str, shaper: Shaper) -> Shaper:
    """``shaper`` applied to what the entry holds under populate key ``name``."""
    return lambda entry, errors: shaper(entry.get(name), errors)


def sliced_wrapper(name: str, bounds: Window, wrapper: Shaper) -> Shaper:
    """A media list the database returned whole, paginated here (10 per parent by default)."""
    start, stop = bounds.start, bounds.start + bounds.limit
    return lambda entry, errors: wrapper((entry.get(name) or [])[start:stop], errors)


def sliced_items(name: str, bounds: Window, item: Shaper) -> Shaper:
    """Repeatable component items, paginated here as Strapi does (10 per parent by default)."""
    start, stop = bounds.start, bounds.start + bounds.limit

    def sliced(entry: Any, errors: ShapeErrors) -> Any:
        values = entry.get(name)
        if values is None:
            return None
        return [item(value, errors) for value in values[start:stop]]

    return sliced


def required_value(shaper: Shaper, owner: str, field_name: str) -> Shaper:
    """A non-null field: ``null`` from ``shaper`` raises, to null the nearest nullable parent
    as graphql-js does."""

    def required(entry: Any, errors: ShapeErrors) -> Any:
        value = shaper(entry, errors)
        if value is None:
            raise NullInNonNull(owner, field_name)
        return value

    return required
