"""``contentapi check`` pointed at a Strapi project: valid once its custom fields are known,
and an unknown custom field is named with how to declare it."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from contentapi.cli import app

PROJECT = Path(__file__).resolve().parents[2] / "fixtures" / "strapi-project"
RESTAURANT = PROJECT / "src/api/restaurant/content-types/restaurant/schema.json"


@pytest.fixture(autouse=True)
def _environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for name in ("CONTENTAPI_CUSTOM_FIELDS", "CONTENTAPI_EXTENSIONS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CONTENTAPI_CONTENT_TYPES_DIR", str(PROJECT))


def check() -> tuple[int, list[str]]:
    result = CliRunner().invoke(app, ["check"])
    # problems and warnings on stderr, then the verdict of valid models on stdout
    return result.exit_code, result.stderr.splitlines() + result.stdout.splitlines()


def test_an_undeclared_custom_field_is_named_with_how_to_declare_it():
    code, lines = check()
    assert code == 1
    assert lines == [
        f"error {RESTAURANT}: attribute 'stars': unknown custom field 'plugin::rating.stars': "
        "declare the type its plugin stores it as (the 'type' its server's "
        "strapi.customFields.register gives), as "
        "CONTENTAPI_CUSTOM_FIELDS='plugin::rating.stars=<type>' or in an extension's "
        'register_custom_fields (docs/strapi-migration.md, "Custom fields")',
        f"1 problem in 1 file of {PROJECT}",
    ]


def test_declared_by_setting_the_project_is_valid(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("CONTENTAPI_CUSTOM_FIELDS", "plugin::rating.stars=integer")
    code, lines = check()
    assert (code, lines) == (
        0,
        [
            f"4 content types and 3 components in {PROJECT} (a Strapi project's layout: "
            f"{PROJECT / 'src'}): all valid"
        ],
    )


def test_declared_by_an_extension_the_project_is_valid(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[3]))
    monkeypatch.setenv("CONTENTAPI_EXTENSIONS", "tests.support.custom_fields_extension")
    code, _ = check()
    assert code == 0


def test_a_wrong_declaration_by_setting_names_the_variable(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("CONTENTAPI_CUSTOM_FIELDS", "plugin::rating.stars=relation")
    code, lines = check()
    assert code == 2
    assert "CONTENTAPI_CUSTOM_FIELDS" in lines[0]
    assert "type 'relation' cannot hold a custom field" in lines[0]


def test_a_conflicting_declaration_by_an_extension_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    (tmp_path / "clashing_fields.py").write_text(
        "def register_custom_fields(fields):\n"
        "    fields.register('plugin::ckeditor.CKEditor', 'text')\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("CONTENTAPI_EXTENSIONS", "clashing_fields")
    code, lines = check()
    assert code == 1
    assert lines == [
        "error Extension module 'clashing_fields': custom field 'plugin::ckeditor.CKEditor' is "
        "declared as 'text' by extension 'clashing_fields' but as 'richtext' by "
        "@ckeditor/strapi-plugin-ckeditor"
    ]
