"""Reading a write request's JSON body: size limit, JSON syntax, the ``data`` envelope."""

from __future__ import annotations

from typing import Any

import orjson
from fastapi import Request

from contentapi.errors import PayloadTooLargeError, ValidationError

__all__ = ["read_data", "read_json_object"]


async def _read_limited(request: Request) -> bytes:
    # ``rest/limits.py`` holds every JSON body to the limit already; a multipart body sent to
    # a JSON route is held to it here.
    limit: int = request.app.state.runtime.settings.body_limit
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise PayloadTooLargeError()
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise PayloadTooLargeError()
        chunks.append(chunk)
    return b"".join(chunks)


async def read_data(request: Request) -> Any:
    """The ``data`` member of the JSON body; 400 unless it is JSON with an object ``data``."""
    raw = await _read_limited(request)
    body: Any = {}
    if raw.strip():
        try:
            body = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            raise ValidationError("Invalid JSON in the request body") from exc
    if not isinstance(body, dict) or not isinstance(body.get("data"), dict):
        raise ValidationError('Missing "data" payload in the request body')
    return body["data"]


async def read_json_object(request: Request) -> dict[str, Any]:
    """A plain JSON object body (the users-permissions routes take no ``data`` envelope)."""
    raw = await _read_limited(request)
    if not raw.strip():
        return {}
    try:
        body = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise ValidationError("Invalid JSON in the request body") from exc
    if not isinstance(body, dict):
        raise ValidationError("The request body must be a JSON object")
    return body
