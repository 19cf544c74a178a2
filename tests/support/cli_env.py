"""The environment a ``contentapi`` command run in the test process reads: only the settings
given, none of the caller's ``CONTENTAPI_*`` variables, from a folder of its own (no stray
``contentapi.toml``), and what a refused command prints."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import Result

from tests.conftest import MODELS

__all__ = ["assert_refused", "cli_environment"]


def cli_environment(
    monkeypatch: pytest.MonkeyPatch, folder: Path, database_url: str, **settings: str
) -> None:
    """Commands run now see ``database_url``, the example models, the tests' token salt and
    ``settings`` (``uploads_dir="…"`` → ``CONTENTAPI_UPLOADS_DIR``), with ``folder`` as the
    working directory."""
    for name in list(os.environ):
        if name.upper().startswith("CONTENTAPI_"):
            monkeypatch.delenv(name)
    monkeypatch.chdir(folder)
    monkeypatch.setenv("CONTENTAPI_DATABASE_URL", database_url)
    monkeypatch.setenv("CONTENTAPI_CONTENT_TYPES_DIR", str(MODELS))
    monkeypatch.setenv("CONTENTAPI_API_TOKEN_SALT", "test-salt")
    for key, value in settings.items():
        monkeypatch.setenv(f"CONTENTAPI_{key.upper()}", value)


def assert_refused(result: Result, *expected: str) -> None:
    """A refused command: exit code 2 and one ``error: …`` line holding each of ``expected``."""
    assert result.exit_code == 2, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    for text in expected:
        assert text in lines[0], lines[0]
