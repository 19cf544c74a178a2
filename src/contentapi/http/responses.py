"""JSON responses rendered with orjson (fast, and correct for non-ASCII text)."""

from __future__ import annotations

from typing import Any

import orjson
from starlette.responses import JSONResponse

__all__ = ["OrjsonResponse"]


class OrjsonResponse(JSONResponse):
    media_type = "application/json; charset=utf-8"

    def render(self, content: Any) -> bytes:
        return orjson.dumps(content)
