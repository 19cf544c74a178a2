"""uvicorn's access log, the same lines for less of a worker's time.

uvicorn writes a line per request through ``logging``
(``INFO:     127.0.0.1:51234 - "GET /api/books HTTP/1.1" 200 OK``). Its formatter copies every
record twice (once for the request line, once for the coloured level) and builds an
``HTTPStatus`` for the phrase: some 14 µs a line on an idle machine, a tenth of what a worker
spends on a cached read (py-spy under ``bench.cached``, 2026-11-27). ``AccessFormatter`` writes
the same line, colours on a terminal included, from the record itself and phrases looked up
once.

``logging_config()`` is uvicorn's own logging configuration with this formatter for the
access lines (``worker.py`` hands it to uvicorn).
"""

from __future__ import annotations

import copy
import logging
from typing import Any

from uvicorn._ansi import style
from uvicorn.config import LOGGING_CONFIG
from uvicorn.logging import AccessFormatter as UvicornAccessFormatter

__all__ = ["AccessFormatter", "logging_config"]


class AccessFormatter(UvicornAccessFormatter):
    """uvicorn's access line (``%(client_addr)s``, ``%(request_line)s``, ``%(status_code)s``
    and ``%(levelprefix)s`` in its format) without copying the record: the fields are set on
    it — an access record is this handler's alone (``uvicorn.access`` does not propagate)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._statuses: dict[int, str] = {}
        self._prefixes: dict[int, str] = {}

    def get_status_code(self, status_code: int) -> str:
        known = self._statuses.get(status_code)
        if known is None:
            known = self._statuses[status_code] = super().get_status_code(status_code)
        return known

    def _level_prefix(self, record: logging.LogRecord) -> str:
        known = self._prefixes.get(record.levelno)
        if known is None:
            name = record.levelname
            separator = " " * (8 - len(name))
            if self.use_colors:
                name = self.color_level_name(name, record.levelno)
            known = self._prefixes[record.levelno] = name + ":" + separator
        return known

    def formatMessage(self, record: logging.LogRecord) -> str:
        client_addr, method, full_path, http_version, status_code = record.args  # type: ignore[misc]
        request_line = f"{method} {full_path} HTTP/{http_version}"
        if self.use_colors:
            request_line = style(request_line, bold=True)  # uvicorn's own colouring
        fields = record.__dict__
        fields["client_addr"] = client_addr
        fields["request_line"] = request_line
        fields["status_code"] = self.get_status_code(int(status_code))  # type: ignore[arg-type]
        fields["levelprefix"] = self._level_prefix(record)
        return self._style.format(record)


def logging_config() -> dict[str, Any]:
    """uvicorn's default logging configuration with ``AccessFormatter`` for access lines."""
    config = copy.deepcopy(LOGGING_CONFIG)
    config["formatters"]["access"]["()"] = f"{__name__}.AccessFormatter"
    return config
