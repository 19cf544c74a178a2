"""The start-up summary of ``contentapi serve`` (the whole printed text is checked against a
real server in tests/test_readme_examples.py)."""

from __future__ import annotations

from pathlib import Path

from contentapi.config import Settings
from contentapi.schema import load_registry
from contentapi.startup import summary_lines
from tests.conftest import MODELS


def test_summary_hides_the_password_and_counts_built_in_types_apart():
    settings = Settings(
        database_url="postgresql://app:hunter2-secret@db.example:5433/content",
        content_types_dir=MODELS,
        locales="de,en",
        uploads_dir=Path("/srv/uploads"),
        env="staging",
        admin_token=None,
        graphql_enabled=False,
    )
    lines = summary_lines(settings, load_registry(MODELS), host="0.0.0.0", port=8080, workers=1)
    text = "\n".join(lines)
    assert "hunter2-secret" not in text
    assert lines[:2] == ["contentapi 0.1.0", "  environment:  staging"]
    assert "  database:     postgresql+asyncpg://app:***@db.example:5433/content" in lines
    assert (
        f"  models:       {MODELS}: 5 content types (article, author, category, global, "
        "profile), 5 components; 5 built-in types (file, folder, permission, role, user)"
    ) in lines
    assert "  locales:      de (default), en" in lines
    assert "  uploads:      /srv/uploads" in lines
    assert "  admin token:  not set" in lines
    assert "  GraphQL:      off" in lines
    assert lines[-1] == "  listening on: http://0.0.0.0:8080 (1 worker)"


def test_summary_names_each_replica_without_its_password():
    settings = Settings(
        database_url="postgresql://app:secret@primary/content",
        database_replica_urls=["postgresql://app:secret@replica-1/content"],
        replica_max_lag=2.5,
        content_types_dir=MODELS,
    )
    lines = summary_lines(settings, load_registry(MODELS), host="0.0.0.0", port=8080, workers=1)
    assert "secret" not in "\n".join(lines)
    index = lines.index("  database:     postgresql+asyncpg://app:***@primary/content")
    assert lines[index + 1] == (
        "  replica:      postgresql+asyncpg://app:***@replica-1/content "
        "(reads, at most 2.5 s behind)"
    )
