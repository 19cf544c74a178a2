"""Custom fields: each is stored as the type its plugin registers; an unknown one is a model
error saying how to declare it; declarations are checked as Strapi's registry checks them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from contentapi.config import Settings
from contentapi.schema import ModelErrors, load_registry
from contentapi.schema.custom_fields import (
    CustomFieldError,
    CustomFields,
    parse_custom_fields_setting,
)
from contentapi.schema.model import ScalarAttribute
from contentapi.settings_loader import ConfigError, load_settings


def _model(folder: Path, **attributes: object) -> Path:
    path = folder / "post.json"
    path.write_text(
        json.dumps(
            {
                "kind": "collectionType",
                "info": {"singularName": "post", "pluralName": "posts", "displayName": "Post"},
                "attributes": attributes,
            }
        )
    )
    return path


def _attribute(folder: Path, fields: CustomFields | None = None, **spec: object) -> ScalarAttribute:
    _model(folder, value=spec)
    attribute = load_registry(folder, fields).content_types["api::post.post"].attributes["value"]
    assert isinstance(attribute, ScalarAttribute)
    return attribute


@pytest.mark.parametrize(
    ("uid", "stored_as"),
    [
        ("plugin::ckeditor.CKEditor", "richtext"),
        ("plugin::ckeditor5.CKEditor", "richtext"),
        ("plugin::color-picker.color", "string"),
        ("plugin::multi-select.multi-select", "json"),
        ("plugin::country-select.country", "string"),
        ("plugin::google-maps.location-picker", "json"),
    ],
)
def test_known_public_plugins_are_stored_as_their_registered_type(tmp_path, uid, stored_as):
    attribute = _attribute(
        tmp_path, type="customField", customField=uid, options={"preset": "rich"}
    )
    assert (attribute.type, attribute.custom_field) == (stored_as, uid)


def test_the_attribute_keeps_the_underlying_types_options(tmp_path):
    attribute = _attribute(
        tmp_path,
        type="customField",
        customField="plugin::color-picker.color",
        required=True,
        regex="^#[0-9A-F]{6}$",
        maxLength=7,
        options={"format": "hex"},
    )
    assert (attribute.required, attribute.regex, attribute.max_length) == (
        True,
        "^#[0-9A-F]{6}$",
        7,
    )


def test_an_enumeration_custom_field_needs_its_enum(tmp_path):
    fields = CustomFields.known()
    fields.register("global::mood", "enumeration")
    attribute = _attribute(
        tmp_path, fields, type="customField", customField="global::mood", enum=["up"]
    )
    assert (attribute.type, attribute.enum) == ("enumeration", ("up",))
    _model(tmp_path, value={"type": "customField", "customField": "global::mood"})
    with pytest.raises(ModelErrors, match="non-empty 'enum'"):
        load_registry(tmp_path, fields)


def test_a_converted_attribute_naming_its_custom_field_is_its_own_type(tmp_path):
    # Strapi rewrites only "type": "customField"; a plain type with the key stays that type
    attribute = _attribute(tmp_path, type="text", customField="plugin::nothing.known")
    assert attribute.type == "text"


def test_an_unknown_custom_field_says_how_to_declare_it(tmp_path):
    path = _model(tmp_path, stars={"type": "customField", "customField": "plugin::rating.stars"})
    with pytest.raises(ModelErrors) as caught:
        load_registry(tmp_path)
    assert [str(error) for error in caught.value.errors] == [
        f"{path}: attribute 'stars': unknown custom field 'plugin::rating.stars': declare the "
        "type its plugin stores it as (the 'type' its server's strapi.customFields.register "
        "gives), as CONTENTAPI_CUSTOM_FIELDS='plugin::rating.stars=<type>' or in an "
        'extension\'s register_custom_fields (docs/strapi-migration.md, "Custom fields")'
    ]


def test_a_misspelt_custom_field_gets_a_hint(tmp_path):
    _model(tmp_path, body={"type": "customField", "customField": "plugin::ckeditor.CKEditr"})
    with pytest.raises(ModelErrors, match=r"\(did you mean 'plugin::ckeditor.CKEditor'\?\)"):
        load_registry(tmp_path)


def test_a_custom_field_without_its_uid(tmp_path):
    _model(tmp_path, body={"type": "customField"})
    with pytest.raises(ModelErrors, match="a custom field needs 'customField'"):
        load_registry(tmp_path)


def test_a_declared_custom_field_loads(tmp_path):
    fields = CustomFields.known()
    fields.register("plugin::rating.stars", "integer")
    attribute = _attribute(
        tmp_path, fields, type="customField", customField="plugin::rating.stars", max=5
    )
    assert (attribute.type, attribute.max) == ("integer", 5)


def test_strapis_register_form_names_plugin_and_global_fields():
    fields = CustomFields()
    fields.register({"name": "stars", "plugin": "rating", "type": "integer"})
    fields.register(
        [{"name": "slug", "type": "string"}, {"name": "map", "plugin": "geo", "type": "json"}]
    )
    assert {(field.uid, field.type) for field in fields} == {
        ("plugin::rating.stars", "integer"),
        ("global::slug", "string"),
        ("plugin::geo.map", "json"),
    }


@pytest.mark.parametrize(
    ("uid", "kind", "message"),
    [
        ("plugin::rating.stars", "relation", "type 'relation' cannot hold a custom field"),
        ("plugin::rating.stars", "media", "type 'media' cannot hold a custom field"),
        ("plugin::rating.stars", "blocks", "type 'blocks' cannot hold a custom field"),
        ("rating.stars", "integer", "is not 'plugin::<plugin>.<name>' or 'global::<name>'"),
        ("plugin::rating", "integer", "is not 'plugin::<plugin>.<name>'"),
        (
            "plugin::ckeditor.CKEditor",
            "string",
            "declared as 'string' by an extension but as "
            "'richtext' by @ckeditor/strapi-plugin-ckeditor",
        ),
    ],
)
def test_wrong_declarations_are_refused(uid, kind, message):
    with pytest.raises(CustomFieldError, match=re.escape(message)):
        CustomFields.known().register(uid, kind)


def test_the_same_declaration_twice_is_fine():
    fields = CustomFields.known()
    fields.register("plugin::ckeditor.CKEditor", "richtext")
    assert fields.get("plugin::ckeditor.CKEditor").type == "richtext"


def test_the_setting_lists_uid_type_pairs():
    parsed = parse_custom_fields_setting(" plugin::rating.stars=integer, global::slug=string ,")
    assert [(field.uid, field.type) for field in parsed] == [
        ("plugin::rating.stars", "integer"),
        ("global::slug", "string"),
    ]
    assert parse_custom_fields_setting(None) == []
    with pytest.raises(
        CustomFieldError, match=re.escape("'plugin::rating.stars' is not '<uid>=<type>'")
    ):
        parse_custom_fields_setting("plugin::rating.stars")


def test_a_wrong_setting_names_the_variable(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CONTENTAPI_CUSTOM_FIELDS", "plugin::rating.stars=number")
    with pytest.raises(ConfigError, match=r"CONTENTAPI_CUSTOM_FIELDS.*type 'number' cannot hold"):
        load_settings()
    assert Settings(custom_fields="plugin::rating.stars=integer").custom_fields
