"""The environment a ``contentapi`` command run in the test process reads: only the settings
given, none of the caller's ``CONTENTAPI_*`` variables, from a folder of its own (no stray
``contentapi.toml``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import MODELS

__all__ = ["cli_environment"]


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
