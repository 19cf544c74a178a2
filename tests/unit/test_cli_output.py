"""What a command that succeeds prints: its answer on stdout (warnings and problems stay on
stderr), counts in singular or plural as they are."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from contentapi.cli import app
from contentapi.cli_common import counted
from tests.conftest import MODELS


@pytest.fixture
def models(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the example models, a fresh SQLite database, no other configuration."""
    for name in [n for n in os.environ if n.upper().startswith("CONTENTAPI_")]:
        monkeypatch.delenv(name)
    folder = tmp_path / "models"
    shutil.copytree(MODELS, folder)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CONTENTAPI_CONTENT_TYPES_DIR", str(folder))
    monkeypatch.setenv("CONTENTAPI_DATABASE_URL", f"sqlite+aiosqlite:///{tmp_path}/c.db")
    return folder


@pytest.mark.parametrize(
    ("count", "singular", "plural", "expected"),
    [
        (0, "column", None, "0 columns"),
        (1, "column", None, "1 column"),
        (2, "column", None, "2 columns"),
        (1, "index", "indexes", "1 index"),
        (3, "index", "indexes", "3 indexes"),
    ],
)
def test_counted_says_one_thing_or_several(count, singular, plural, expected):
    assert counted(count, singular, plural) == expected


def test_check_answers_on_stdout(models: Path):
    result = CliRunner().invoke(app, ["check"])
    assert result.exit_code == 0, result.output
    assert result.stdout == f"5 content types and 5 components in {models}: all valid\n"
    assert result.stderr == ""


def test_check_counts_one_content_type_in_the_singular(models: Path):
    shutil.rmtree(models)
    (models / "components" / "shared").mkdir(parents=True)
    note = {"singularName": "note", "pluralName": "notes", "displayName": "Note"}
    (models / "note.json").write_text(
        json.dumps(
            {
                "kind": "collectionType",
                "collectionName": "notes",
                "info": note,
                "attributes": {"link": {"type": "component", "component": "shared.link"}},
            }
        )
    )
    (models / "components" / "shared" / "link.json").write_text(
        json.dumps(
            {
                "collectionName": "components_shared_links",
                "info": {"displayName": "Link"},
                "attributes": {"url": {"type": "string"}},
            }
        )
    )
    result = CliRunner().invoke(app, ["check"])
    assert result.exit_code == 0, result.output
    assert result.stdout == f"1 content type and 1 component in {models}: all valid\n"


def test_migrate_counts_one_column_in_the_singular(models: Path):
    assert CliRunner().invoke(app, ["migrate"]).exit_code == 0
    author = models / "author.json"
    document = json.loads(author.read_text())
    document["attributes"]["nickname"] = {"type": "string"}
    author.write_text(json.dumps(document))
    result = CliRunner().invoke(app, ["migrate"])
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines()[-1] == (
        "migrated: 0 tables created, 1 column added, 0 indexes added, 0 unmodelled columns kept"
    )


def test_check_lists_the_indexes_the_models_ask_for(models: Path):
    author = models / "author.json"
    document = json.loads(author.read_text())
    document["attributes"]["name"]["pluginOptions"] = {"contentapi": {"index": True}}
    document["pluginOptions"] = {"contentapi": {"indexes": [["name", "createdAt"]]}}
    author.write_text(json.dumps(document))
    result = CliRunner().invoke(app, ["check"])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-1] == (
        "2 indexes asked for by the models (created at start when missing): "
        "authors(name), authors(name, created_at)"
    )
