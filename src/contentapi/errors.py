"""One error hierarchy for every layer, rendered once per protocol.

Each error knows its HTTP status and Strapi's error ``name``; ``details`` is the free-form
object Strapi puts beside the message. Validation errors carry ``details.errors``: a list of
``{path, message, name}`` where ``path`` is the list of keys leading to the offending value.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = [
    "ApplicationError",
    "FieldError",
    "ForbiddenError",
    "MethodNotAllowedError",
    "NotFoundError",
    "PaginationError",
    "PayloadTooLargeError",
    "PolicyError",
    "RateLimitError",
    "ServiceUnavailableError",
    "UnauthorizedError",
    "UriTooLongError",
    "ValidationError",
]


class ApplicationError(Exception):
    """Base of every error a client may see; 500 when raised as such, with no internals."""

    status = 500
    name = "ApplicationError"

    def __init__(self, message: str = "Internal Server Error", details: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.details: Any = {} if details is None else details

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "name": self.name,
            "message": self.message,
            "details": self.details,
        }


@dataclass(frozen=True, slots=True)
class FieldError:
    """One problem with one value of a request, at ``path`` (keys from the root of ``data``)."""

    path: tuple[str | int, ...]
    message: str
    name: str = "ValidationError"

    def to_dict(self) -> dict[str, Any]:
        # Strapi (yup) writes array indexes in paths as strings: ["links", "0", "url"].
        path = [str(key) for key in self.path]
        return {"path": path, "message": self.message, "name": self.name}


class ValidationError(ApplicationError):
    """400: a bad query parameter or body. ``errors`` name each offending path."""

    status = 400
    name = "ValidationError"

    def __init__(
        self,
        message: str,
        details: Any = None,
        errors: list[FieldError] | None = None,
    ) -> None:
        if errors:
            details = {"errors": [error.to_dict() for error in errors]}
        super().__init__(message, details)
        self.errors: list[FieldError] = list(errors or [])

    @classmethod
    def from_errors(cls, errors: list[FieldError]) -> ValidationError:
        """Strapi's summary: the single message, or ``"N errors occurred"``."""
        message = errors[0].message if len(errors) == 1 else f"{len(errors)} errors occurred"
        return cls(message, errors=errors)


class PaginationError(ApplicationError):
    """Mixed page and offset pagination (GraphQL; REST inside a populate) and a bad page or
    pageSize inside a REST populate: Strapi's ``PaginationError``."""

    status = 400
    name = "PaginationError"


class UnauthorizedError(ApplicationError):
    status = 401
    name = "UnauthorizedError"

    def __init__(self, message: str = "Missing or invalid credentials", details: Any = None):
        super().__init__(message, details)


class ForbiddenError(ApplicationError):
    status = 403
    name = "ForbiddenError"

    def __init__(self, message: str = "Forbidden", details: Any = None) -> None:
        super().__init__(message, details)


class PolicyError(ForbiddenError):
    """A policy refused the request (Strapi's ``PolicyError``, GraphQL code ``FORBIDDEN``)."""

    name = "PolicyError"

    def __init__(self, message: str = "Policy Failed", details: Any = None) -> None:
        super().__init__(message, details)


class NotFoundError(ApplicationError):
    status = 404
    name = "NotFoundError"

    def __init__(self, message: str = "Not Found", details: Any = None) -> None:
        super().__init__(message, details)


class MethodNotAllowedError(ApplicationError):
    status = 405
    name = "MethodNotAllowedError"

    def __init__(self, message: str = "Method Not Allowed", details: Any = None) -> None:
        super().__init__(message, details)


class PayloadTooLargeError(ApplicationError):
    status = 413
    name = "PayloadTooLargeError"

    def __init__(self, message: str = "Payload Too Large", details: Any = None) -> None:
        super().__init__(message, details)


class UriTooLongError(ApplicationError):
    """414: a query string over ``CONTENTAPI_QUERY_STRING_LIMIT`` (koa's name for it)."""

    status = 414
    name = "URITooLongError"

    def __init__(self, message: str = "URI Too Long", details: Any = None) -> None:
        super().__init__(message, details)


class RateLimitError(ApplicationError):
    status = 429
    name = "RateLimitError"

    def __init__(
        self, message: str = "Too many requests, please try again later.", details: Any = None
    ) -> None:
        super().__init__(message, details)


class ServiceUnavailableError(ApplicationError):
    """The database cannot be reached or used right now (``db/outage.py``): a retry may
    succeed, so the answer is 503 with ``Retry-After`` (koa's name for the status)."""

    status = 503
    name = "ServiceUnavailableError"
    #: Seconds a client is asked to wait before retrying.
    retry_after = 5

    def __init__(self, message: str = "Service Unavailable", details: Any = None) -> None:
        super().__init__(message, details)
