"""Shared responses (every error in the contract's shape), request bodies and operation helpers.

operation("Find articles", "api::article.article.find", ok=json_ok(ref), errors=(400, 403))
"""

from __future__ import annotations

from typing import Any

from contentapi.openapi.attributes import Schema
from contentapi.openapi.parameters import PLUGIN_LIST_QUERY
from contentapi.openapi.shared_schemas import ref_to

__all__ = [
    "ERROR_RESPONSES",
    "item_path",
    "json_body",
    "json_ok",
    "operation",
    "path_id",
    "plain_list",
]

_ERRORS = {
    400: ("BadRequest", "a bad query parameter or body (`ValidationError`)"),
    401: ("Unauthorized", "a bad or expired credential (`UnauthorizedError`)"),
    403: ("Forbidden", "the caller may not do this (`ForbiddenError`)"),
    404: ("NotFound", "no such entry (`NotFoundError`)"),
    413: ("PayloadTooLarge", "the body is too large (`PayloadTooLargeError`)"),
    429: ("TooManyRequests", "too many requests to `/api/auth/*` (`RateLimitError`)"),
    503: (
        "ServiceUnavailable",
        "the database cannot be reached now (`ServiceUnavailableError`); retry after "
        "`Retry-After` seconds",
    ),
}

_JSON = "application/json"


def _error_response(status: int, description: str) -> Schema:
    response: Schema = {
        "description": description,
        "content": {_JSON: {"schema": ref_to("Error")}},
    }
    if status == 503:
        response["headers"] = {
            "Retry-After": {"schema": {"type": "integer"}, "description": "seconds"}
        }
    return response


#: ``components.responses``
ERROR_RESPONSES: dict[str, Schema] = {
    name: _error_response(status, description) for status, (name, description) in _ERRORS.items()
}


def json_ok(schema: Schema, description: str = "OK") -> Schema:
    return {"description": description, "content": {_JSON: {"schema": schema}}}


def json_body(schema: Schema, *, required: bool = True) -> Schema:
    return {"required": required, "content": {_JSON: {"schema": schema}}}


def plain_list(item: Schema) -> dict[str, Any]:
    """The parts of a plugin's list operation (users, files) for ``operation``: a plain array
    of ``item`` (no envelope), read with ``PLUGIN_LIST_QUERY`` (a bad one answers 400)."""
    return {
        "ok": json_ok({"type": "array", "items": item}),
        "errors": (400,),
        "parameters": PLUGIN_LIST_QUERY,
    }


def path_id(name: str = "id", description: str = "the entry's id") -> Schema:
    return {
        "name": name,
        "in": "path",
        "required": True,
        "description": description,
        "schema": {"type": "integer", "minimum": 1, "maximum": 2**31 - 1},
    }


def item_path(noun: str, **operations: Schema) -> Schema:
    """A plugin's ``/{id}`` path item (a user, a role, a file): the id parameter, named for
    ``noun``, then its operations by method."""
    return {"parameters": [path_id(description=f"the {noun}'s id")], **operations}


def operation(
    summary: str,
    operation_id: str,
    tag: str,
    *,
    ok: Schema,
    errors: tuple[int, ...],
    status: int = 200,
    parameters: list[Schema] | None = None,
    body: Schema | None = None,
    description: str | None = None,
    permission: str | None = None,
) -> Schema:
    """One operation; every route may also answer 503 (the database) and, with a credential,
    401 and 403."""
    codes = sorted({*errors, 401, 403, 503})
    responses: Schema = {str(status): ok}
    for code in codes:
        responses[str(code)] = {"$ref": f"#/components/responses/{_ERRORS[code][0]}"}
    result: Schema = {"summary": summary, "operationId": operation_id, "tags": [tag]}
    text = description or ""
    if permission:
        text = (text + "\n\n" if text else "") + f"Permission: `{permission}`."
    if text:
        result["description"] = text
    if parameters:
        result["parameters"] = parameters
    if body is not None:
        result["requestBody"] = body
    result["responses"] = responses
    return result
