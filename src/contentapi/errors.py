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
    #: the message when none is given: each error's is Strapi's (koa's status text mostly)
    default_message = "Internal Server Error"

    def __init__(self, message: str | None = None, details: Any = None) -> None:
        if message is None:
            message = self.default_message
        super().__init__(message)
        self.message = message
        self.details: Any = {} if details is None else details

    def __init_subclass__(
        cls,
        *,
        status: int | None = None,
        name: str | None = None,
        message: str | None = None,
        **kwargs: Any,
    ) -> None:
        """An error declares its status, Strapi name and default message in its class line,
        so the list below reads as the table it is; what a class leaves out it inherits."""
        super().__init_subclass__(**kwargs)
        if status is not None:
            cls.status = status
        if name is not None:
            cls.name = name
        if message is not None:
            cls.default_message = message

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


class ValidationError(ApplicationError, status=400, name="ValidationError"):
    """400: a bad query parameter or body. ``errors`` name each offending path."""

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


class PaginationError(ApplicationError, status=400, name="PaginationError"):
    """Mixed page and offset pagination (GraphQL; REST inside a populate) and a bad page or
    pageSize inside a REST populate: Strapi's ``PaginationError``."""


class UnauthorizedError(
    ApplicationError, status=401, name="UnauthorizedError", message="Missing or invalid credentials"
):
    """No credentials where a route needs them, or ones that do not verify."""


class ForbiddenError(ApplicationError, status=403, name="ForbiddenError", message="Forbidden"):
    """Credentials that do not grant the action."""


class PolicyError(ForbiddenError, name="PolicyError", message="Policy Failed"):
    """A policy refused the request (Strapi's ``PolicyError``, GraphQL code ``FORBIDDEN``)."""


class NotFoundError(ApplicationError, status=404, name="NotFoundError", message="Not Found"):
    """No such route, content type or entry."""


class MethodNotAllowedError(
    ApplicationError, status=405, name="MethodNotAllowedError", message="Method Not Allowed"
):
    """A known path asked with a method it does not take."""


class PayloadTooLargeError(
    ApplicationError, status=413, name="PayloadTooLargeError", message="Payload Too Large"
):
    """A body or upload over its limit."""


class UriTooLongError(ApplicationError, status=414, name="URITooLongError", message="URI Too Long"):
    """414: a query string over ``CONTENTAPI_QUERY_STRING_LIMIT`` (koa's name for it)."""


class RateLimitError(
    ApplicationError,
    status=429,
    name="RateLimitError",
    message="Too many requests, please try again later.",
):
    """Too many attempts of an auth flow from one address (``auth/ratelimit.py``)."""


class ServiceUnavailableError(
    ApplicationError, status=503, name="ServiceUnavailableError", message="Service Unavailable"
):
    """The database cannot be reached or used right now (``db/outage.py``): a retry may
    succeed, so the answer is 503 with ``Retry-After`` (koa's name for the status)."""

    #: Seconds a client is asked to wait before retrying.
    retry_after = 5
