"""The access log (``access_log.py``): uvicorn's lines, word for word and colour for colour."""

from __future__ import annotations

import copy
import logging

import pytest
from uvicorn.config import LOGGING_CONFIG
from uvicorn.logging import AccessFormatter as UvicornAccessFormatter

from contentapi.access_log import AccessFormatter, logging_config

FORMAT = LOGGING_CONFIG["formatters"]["access"]["fmt"]


def _record(status: int, level: int = logging.INFO) -> logging.LogRecord:
    return logging.LogRecord(
        "uvicorn.access",
        level,
        __file__,
        1,
        '%s - "%s %s HTTP/%s" %d',
        ("127.0.0.1:51234", "GET", "/api/books?populate=*", "1.1", status),
        None,
    )


@pytest.mark.parametrize("colours", [False, True])
@pytest.mark.parametrize("status", [200, 304, 404, 500, 599])
@pytest.mark.parametrize("level", [logging.INFO, logging.WARNING])
def test_lines_are_uvicorns(colours: bool, status: int, level: int) -> None:
    ours = AccessFormatter(FORMAT, use_colors=colours)
    theirs = UvicornAccessFormatter(FORMAT, use_colors=colours)
    for _ in range(2):  # the second line from what the first looked up
        assert ours.format(_record(status, level)) == theirs.format(_record(status, level))


def test_the_configuration_is_uvicorns_with_our_formatter() -> None:
    config = logging_config()
    expected = copy.deepcopy(LOGGING_CONFIG)
    expected["formatters"]["access"]["()"] = "contentapi.access_log.AccessFormatter"
    assert config == expected
    assert LOGGING_CONFIG["formatters"]["access"]["()"] == "uvicorn.logging.AccessFormatter"
