"""GraphQL errors in Strapi's form (its ``formatGraphqlError`` over Apollo Server 3).

- our errors (``ApplicationError`` and subclasses): ``{message, extensions: {error: {name,
  message, details}, code}}`` without ``locations``/``path``; codes ``FORBIDDEN`` (forbidden or
  unauthorized), ``BAD_USER_INPUT`` (validation), else ``STRAPI_<SNAKE_NAME>``;
- graphql-core's own errors (parse, validation, coercion, non-null) keep ``locations`` and
  ``path``, get the code Apollo gives them and graphql-js's quotes (messages.py);
- a document that cannot run (``format_request_error``): the message, its locations and the
  code, whatever raised it — a scalar's ``ValidationError`` in a literal is a validation
  failure in Strapi too (``Expected value of type "Time", found 5; …``);
- anything unexpected: ``Internal Server Error`` (logged; never its message or a trace).
"""

from __future__ import annotations

import logging
import re
from typing import Any

from graphql import GraphQLError

from contentapi.errors import ApplicationError, ForbiddenError, UnauthorizedError, ValidationError
from contentapi.graphql.messages import requote

__all__ = ["PlainResolverError", "format_error", "format_request_error", "strapi_code"]

log = logging.getLogger("contentapi.graphql")


class PlainResolverError(Exception):
    """A plain JavaScript ``Error`` in Strapi: its message is shown, with
    ``INTERNAL_SERVER_ERROR`` (``me`` without a user answers ``Authentication requested``)."""


def strapi_code(name: str) -> str:
    """``NotFoundError`` → ``STRAPI_NOT_FOUND_ERROR`` (lodash ``snakeCase``, upper-cased)."""
    words = re.findall(r"[A-Z]{2,}(?=[A-Z][a-z]+|\b)|[A-Z]?[a-z]+|[A-Z]+|\d+", name)
    return "STRAPI_" + "_".join(word.upper() for word in words)


def _code_of(error: ApplicationError) -> str:
    if isinstance(error, ForbiddenError | UnauthorizedError):
        return "FORBIDDEN"
    if isinstance(error, ValidationError):
        return "BAD_USER_INPUT"
    return strapi_code(error.name)


def format_error(
    error: GraphQLError, default_code: str = "INTERNAL_SERVER_ERROR"
) -> dict[str, Any]:
    original = error.original_error
    if isinstance(original, ApplicationError):
        return {
            "message": original.message,
            "extensions": {
                "error": {
                    "name": original.name,
                    "message": original.message,
                    "details": original.details,
                },
                "code": _code_of(original),
            },
        }
    if original is not None and not isinstance(original, GraphQLError | PlainResolverError):
        log.error("GraphQL resolver failed", exc_info=original)
        return {"message": "Internal Server Error", "extensions": {"code": "INTERNAL_SERVER_ERROR"}}
    # graphql-core's own message (a non-null field, a leaf value): graphql-js's quotes
    message = requote(error.message) if original is None else error.message
    formatted: dict[str, Any] = {"message": message}
    if error.locations:
        formatted["locations"] = [
            {"line": where.line, "column": where.column} for where in error.locations
        ]
    if error.path:
        formatted["path"] = list(error.path)
    extensions = dict(error.extensions or {})
    extensions.setdefault("code", default_code)
    formatted["extensions"] = extensions
    return formatted


def format_request_error(error: GraphQLError, code: str) -> dict[str, Any]:
    """An error that stops the request before execution (parse, validation, variables):
    ``{message, locations, extensions: {code}}``, the message already in graphql-js's words."""
    formatted: dict[str, Any] = {"message": error.message}
    if error.locations:
        formatted["locations"] = [
            {"line": where.line, "column": where.column} for where in error.locations
        ]
    formatted["extensions"] = {**(error.extensions or {}), "code": code}
    return formatted
