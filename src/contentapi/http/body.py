"""Reading a write request's JSON body: JSON syntax and the ``data`` envelope, the size held to
``CONTENTAPI_BODY_LIMIT`` by ``http/limits.py``."""

from __future__ import annotations

from typing import Any

import orjson
from fastapi import Request

from contentapi.errors import ValidationError
from contentapi.http.limits import hold_body_to_json

__all__ = ["read_data", "read_json_object"]


async def _read_limited(request: Request) -> bytes:
    # ``http/limits.py`` counts the body; a multipart body sent to a JSON route is held to the
    # JSON limit there too.
    hold_body_to_json(request)
    chunks = [chunk async for chunk in request.stream()]
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
