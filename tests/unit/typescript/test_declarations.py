"""The generated ``.d.ts`` of the example models (content-types/), read as text."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from contentapi import cli
from contentapi.config import Settings
from contentapi.models import load_models
from contentapi.typescript import typescript_declarations
from contentapi.typescript.filters import accepted_operators
from contentapi.typescript.schema_to_ts import ts_type

MODELS = Path(__file__).resolve().parents[3] / "content-types"


@pytest.fixture(scope="module")
def text() -> str:
    settings = Settings(content_types_dir=MODELS, locales="en,fr")  # type: ignore[arg-type]
    return typescript_declarations(load_models(settings), settings.locale_codes)


def _type(text: str, name: str) -> str:
    match = re.search(rf"^export type {name} = (.*?);\n(\n|$)", text, re.S | re.M)
    assert match, f"no type {name}"
    return match.group(1)


def test_envelopes_are_strapis(text):
    assert _type(text, "ArticleEntry") == "{\n  id: number;\n  attributes: ArticleAttributes;\n}"
    assert "data: ArticleEntry | null;\n  meta: Record<string, unknown>;" in _type(
        text, "ArticleResponse"
    )
    listed = _type(text, "ArticleListResponse")
    assert "data: Array<ArticleEntry>;" in listed and "pagination: Pagination;" in listed
    assert "data: GlobalEntry | null;" in _type(text, "GlobalResponse")
    assert "GlobalListResponse" not in text  # a single type has no list


def test_attribute_types(text):
    article = _type(text, "ArticleAttributes")
    assert 'kind?: "news" | "opinion" | "tutorial" | null;' in article
    assert "views?: string | null;" in article  # biginteger
    assert "rating?: number | null;" in article and "price?: number | null;" in article
    assert "metadata?: unknown;" in article  # json
    assert "scheduledAt?: string | null;" in article
    assert "publishedAt?: string | null;" in article  # draft & publish
    assert "locale?: string;" in article and "data?: Array<ArticleEntry>;" in article
    assert "author?: {\n    data?: AuthorEntry | null;\n  };" in article
    assert "data?: Array<CategoryEntry> | RelationCountData;" in article
    assert "cover?: {\n    data?: UploadFileEntry | null;\n  };" in article
    assert "gallery?: {\n    data?: Array<UploadFileEntry> | null;\n  };" in article
    assert "publishedAt" not in _type(text, "AuthorAttributes")  # no draft & publish
    assert "locale" not in _type(text, "AuthorAttributes")  # not localized


def test_media_is_the_upload_file_shape(text):
    file = _type(text, "UploadFileAttributes")
    names = (
        "name",
        "alternativeText",
        "caption",
        "width",
        "height",
        "formats",
        "hash",
        "ext",
        "mime",
        "size",
        "url",
        "previewUrl",
        "provider",
        "provider_metadata",
        "createdAt",
        "updatedAt",
    )
    for name in names:
        assert re.search(rf"^  {name}\?: ", file, re.M), name


def test_private_and_password_attributes_are_absent(text):
    user = _type(text, "UsersPermissionsUserAttributes")
    assert "username?:" in user
    for hidden in ("password", "resetPasswordToken", "confirmationToken"):
        assert f"{hidden}?" not in user


def test_components_and_dynamic_zones(text):
    assert "id?: number;" in _type(text, "ComponentSharedSeo")
    assert _type(text, "ComponentBlocksQuoteZoneItem") == (
        'ComponentBlocksQuote & {\n  __component: "blocks.quote";\n}'
    )
    article = _type(text, "ArticleAttributes")
    assert re.search(
        r"blocks\?: Array<ComponentBlocks\w+ZoneItem( \| ComponentBlocks\w+ZoneItem)+>", article
    )


def test_request_bodies(text):
    create = _type(text, "ArticleCreateRequest")
    assert create.startswith("{\n  data: {\n    title: string;")  # required on create
    assert "author?: RelationInput;" in create and 'locale?: "en" | "fr";' in create
    assert "title?: string;" in _type(text, "ArticleRequest")  # optional on update
    relation = _type(text, "RelationInput")
    assert "connect?: " in relation and "disconnect?: " in relation and "set?: " in relation
    assert "cover?: FileReference | null;" in create


def test_filters_and_populate(text):
    filters = _type(text, "ArticleFilters")
    assert "title?: StringFilter | string;" in filters
    assert "author?: AuthorFilters;" in filters and "$or?: Array<ArticleFilters>;" in filters
    assert "$containsi?: string;" in _type(text, "StringFilter")
    assert "$contains?" not in _type(text, "IntegerFilter")
    assert "$between?: [number, number];" in _type(text, "IntegerFilter")
    populate = _type(text, "ArticlePopulateKey")
    assert '"author"' in populate and '"localizations"' in populate and '"title"' not in populate


def test_operators_follow_the_parser_tables():
    assert "$containsi" in accepted_operators("string")
    assert "$containsi" in accepted_operators("integer")  # matched as text
    assert "$contains" not in accepted_operators("integer")
    assert accepted_operators("array") == ["$null", "$notNull"]
    assert accepted_operators("blocks") == accepted_operators("json")


def test_schema_translation():
    assert ts_type({}) == "unknown"
    assert ts_type({"type": ["string", "null"]}) == "string | null"
    assert ts_type({"type": "integer", "enum": [1, 2]}) == "1 | 2"
    assert ts_type({"$ref": "#/components/schemas/Pagination"}) == "Pagination"
    assert ts_type({"type": "object", "properties": {"a-b": {}}}) == '{\n  "a-b"?: unknown;\n}'


def test_output_is_deterministic(text):
    settings = Settings(content_types_dir=MODELS, locales="en,fr")  # type: ignore[arg-type]
    assert typescript_declarations(load_models(settings), settings.locale_codes) == text


def test_cli_writes_the_file(tmp_path, monkeypatch):
    monkeypatch.setenv("CONTENTAPI_CONTENT_TYPES_DIR", str(MODELS))
    monkeypatch.setenv("CONTENTAPI_LOCALES", "en,fr")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli.app, ["types", "--out", "types"])
    assert result.exit_code == 0, result.output
    written = (tmp_path / "types" / "contentapi.d.ts").read_text()
    assert "export type ArticleListResponse = {" in written
    printed = CliRunner().invoke(cli.app, ["types"])
    assert printed.exit_code == 0 and printed.stdout == written
