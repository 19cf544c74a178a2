"""Invalid models stop loading with a message naming the file and the attribute."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from contentapi.schema import ModelErrors, load_registry
from contentapi.schema.model import ScalarAttribute

ROOT = Path(__file__).resolve().parents[3]


def _article(**attributes: object) -> dict:
    return {
        "kind": "collectionType",
        "collectionName": "posts",
        "info": {"singularName": "post", "pluralName": "posts", "displayName": "Post"},
        "options": {"draftAndPublish": False},
        "attributes": {"title": {"type": "string"}, **attributes},
    }


def _write(folder: Path, name: str, doc: object) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc) if not isinstance(doc, str) else doc)
    return path


def _errors(folder: Path) -> list[str]:
    with pytest.raises(ModelErrors) as caught:
        load_registry(folder)
    return [str(error) for error in caught.value.errors]


def test_example_models_are_valid():
    registry = load_registry(ROOT / "content-types")
    own = {plural for plural, ct in registry.by_plural.items() if not ct.is_builtin}
    assert own == {"articles", "authors", "categories", "globals", "profiles"}
    assert {"users", "roles", "permissions"} <= set(registry.by_plural)  # users-permissions
    assert registry.content_types["api::global.global"].is_single
    assert "shared.seo" in registry.components


INVALID = [
    ("unknown type", {"body": {"type": "markdown"}}, "body", "unknown attribute type 'markdown'"),
    ("missing type", {"body": {}}, "body", "unknown attribute type None"),
    ("empty enum", {"kind": {"type": "enumeration", "enum": []}}, "kind", "non-empty 'enum'"),
    (
        "enum default",
        {"kind": {"type": "enumeration", "enum": ["a"], "default": "b"}},
        "kind",
        "default 'b' is not one of the enum values ('a')",
    ),
    (
        "index on text",
        {"body": {"type": "text", "pluginOptions": {"contentapi": {"index": True}}}},
        "body",
        "an attribute of type 'text' cannot be indexed",
    ),
    (
        "index not a boolean",
        {"rank": {"type": "integer", "pluginOptions": {"contentapi": {"index": "yes"}}}},
        "rank",
        "'pluginOptions.contentapi.index' must be true or false",
    ),
    ("reserved id", {"id": {"type": "integer"}}, "id", "reserved attribute name"),
    (
        "reserved createdAt",
        {"createdAt": {"type": "datetime"}},
        "createdAt",
        "reserved attribute name",
    ),
    (
        "missing target",
        {"author": {"type": "relation", "relation": "manyToOne", "target": "api::nobody.nobody"}},
        "author",
        "relation target 'api::nobody.nobody' does not exist",
    ),
    (
        "bad relation kind",
        {"author": {"type": "relation", "relation": "manyToSome", "target": "api::post.post"}},
        "author",
        "unknown relation 'manyToSome'",
    ),
    (
        "missing component",
        {"seo": {"type": "component", "component": "shared.nothing"}},
        "seo",
        "component 'shared.nothing' does not exist",
    ),
    (
        "dz missing component",
        {"blocks": {"type": "dynamiczone", "components": ["shared.nothing"]}},
        "blocks",
        "component 'shared.nothing' does not exist",
    ),
    (
        "empty dz",
        {"blocks": {"type": "dynamiczone", "components": []}},
        "blocks",
        "non-empty 'components'",
    ),
    (
        # Strapi 4.25 refuses to start too ("inversedBy attribute nothing not found target …")
        "inversedBy pointing nowhere",
        {
            "parent": {
                "type": "relation",
                "relation": "manyToOne",
                "target": "api::post.post",
                "inversedBy": "nothing",
            }
        },
        "parent",
        "inversedBy 'nothing' is not a relation",
    ),
    (
        "inversedBy naming an owner",
        {
            "parent": {
                "type": "relation",
                "relation": "manyToOne",
                "target": "api::post.post",
                "inversedBy": "children",
            },
            "children": {"type": "relation", "relation": "oneToMany", "target": "api::post.post"},
        },
        "parent",
        "does not point back",
    ),
    (
        "kinds do not pair",
        {
            "parent": {
                "type": "relation",
                "relation": "manyToOne",
                "target": "api::post.post",
                "inversedBy": "children",
            },
            "children": {
                "type": "relation",
                "relation": "manyToMany",
                "target": "api::post.post",
                "mappedBy": "parent",
            },
        },
        "parent",
        "manyToOne cannot pair with manyToMany",
    ),
    (
        "min above max",
        {"n": {"type": "integer", "min": 5, "max": 1}},
        "n",
        "'min' is greater than 'max'",
    ),
    ("bad regex", {"s": {"type": "string", "regex": "("}}, "s", "invalid regex"),
    (
        "blocks default not a list",
        {"body": {"type": "blocks", "default": "text"}},
        "body",
        "default 'text' does not fit type 'blocks'",
    ),
    (
        "index on blocks",
        {"body": {"type": "blocks", "pluginOptions": {"contentapi": {"index": True}}}},
        "body",
        "an attribute of type 'blocks' cannot be indexed",
    ),
    (
        "uid target",
        {"slug": {"type": "uid", "targetField": "nothing"}},
        "slug",
        "targetField 'nothing'",
    ),
    ("bad name", {"has space": {"type": "string"}}, "has space", "invalid attribute name"),
    (
        "column clash",
        {"fooBar": {"type": "string"}, "foo_bar": {"type": "string"}},
        "foo_bar",
        "collides with attribute 'fooBar'",
    ),
]


@pytest.mark.parametrize(
    ("attributes", "attribute", "message"), [c[1:] for c in INVALID], ids=[c[0] for c in INVALID]
)
def test_invalid_attribute_is_reported_with_file_and_attribute(
    tmp_path, attributes, attribute, message
):
    path = _write(tmp_path, "post.json", _article(**attributes))
    errors = _errors(tmp_path)
    assert any(
        error.startswith(f"{path}: attribute '{attribute}'") and message in error
        for error in errors
    ), errors


def test_duplicate_plural_names_are_reported(tmp_path):
    _write(tmp_path, "post.json", _article())
    other = _article()
    other["info"] = {"singularName": "entry", "pluralName": "posts"}
    other["collectionName"] = "entries"
    path = _write(tmp_path, "entry.json", other)
    errors = _errors(tmp_path)
    assert any(
        str(path) in error and "name 'posts' is already used" in error for error in errors
    ), errors


def test_file_name_must_match_singular_name(tmp_path):
    path = _write(tmp_path, "wrong.json", _article())
    assert any(str(path) in e and "must match the file name" in e for e in _errors(tmp_path))


def test_invalid_json_names_the_file(tmp_path):
    path = _write(tmp_path, "post.json", "{not json")
    assert any(e.startswith(f"{path}: cannot read JSON") for e in _errors(tmp_path))


def test_component_problems_name_the_component_file(tmp_path):
    _write(tmp_path, "post.json", _article(seo={"type": "component", "component": "shared.seo"}))
    path = _write(
        tmp_path,
        "components/shared/seo.json",
        {"collectionName": "components_shared_seos", "attributes": {"x": {"type": "nope"}}},
    )
    assert any(e.startswith(f"{path}: attribute 'x'") for e in _errors(tmp_path))


def test_components_including_each_other_are_reported(tmp_path):
    _write(tmp_path, "post.json", _article())
    _write(
        tmp_path,
        "components/a/one.json",
        {"attributes": {"two": {"type": "component", "component": "a.two"}}},
    )
    _write(
        tmp_path,
        "components/a/two.json",
        {"attributes": {"one": {"type": "component", "component": "a.one"}}},
    )
    assert any("components include each other" in e for e in _errors(tmp_path))


def test_every_problem_is_reported_at_once(tmp_path):
    _write(
        tmp_path, "post.json", _article(a={"type": "nope"}, b={"type": "enumeration", "enum": []})
    )
    assert len(_errors(tmp_path)) == 2


def test_startup_fails_on_an_invalid_model(tmp_path):
    from contentapi.app import create_app
    from contentapi.config import Settings

    shutil.copytree(ROOT / "content-types", tmp_path / "models")
    path = _write(tmp_path / "models", "post.json", _article(body={"type": "markdown"}))
    with pytest.raises(ModelErrors) as caught:
        create_app(
            Settings(
                database_url=f"sqlite+aiosqlite:///{tmp_path}/x.db",
                content_types_dir=tmp_path / "models",
            )
        )
    assert f"{path}: attribute 'body': unknown attribute type 'markdown'" in str(caught.value)


@pytest.mark.parametrize(
    ("kind", "singular", "plural", "reserved"),
    [
        ("collectionType", "user", "users", "pluralName 'users'"),
        ("singleType", "upload", "uploads", "singularName 'upload'"),
        ("singleType", "auth", "auths", "singularName 'auth'"),
    ],
)
def test_names_the_server_routes_own_are_reserved(tmp_path, kind, singular, plural, reserved):
    """The content routes are tried before the plugins' (app.py): a model may not take a path
    under /api that a plugin serves."""
    doc = _article()
    doc.update(kind=kind, collectionName=plural.replace("-", "_"))
    doc["info"] = {"singularName": singular, "pluralName": plural, "displayName": singular}
    path = _write(tmp_path, f"{singular}.json", doc)
    errors = _errors(tmp_path)
    assert any(str(path) in e and f"{reserved} is reserved" in e for e in errors), errors


def test_blocks_attribute_is_read_with_its_options(tmp_path):
    """Strapi 4.15+'s ``blocks`` type: a scalar attribute (one JSON column) keeping
    ``required``, ``private`` and the i18n ``localized`` option."""
    doc = _article(
        body={"type": "blocks", "required": True, "pluginOptions": {"i18n": {"localized": True}}},
        notes={"type": "blocks", "private": True, "default": []},
    )
    doc["pluginOptions"] = {"i18n": {"localized": True}}
    _write(tmp_path, "post.json", doc)
    post = load_registry(tmp_path).content_types["api::post.post"]
    body, notes = post.attributes["body"], post.attributes["notes"]
    assert isinstance(body, ScalarAttribute) and isinstance(notes, ScalarAttribute)
    assert (body.type, body.column, body.required, body.localized) == ("blocks", "body", True, True)
    assert (notes.private, notes.default, notes.localized) == (True, [], False)


# A `mappedBy` is never read by Strapi 4.25 (its metadata links the inverse side through the
# owner's `inversedBy`): a wrong or stale one loads there silently (checked on the reference).
PARENT = {
    "type": "relation",
    "relation": "manyToOne",
    "target": "api::post.post",
    "inversedBy": "children",
}


def test_a_mapped_by_naming_another_attribute_is_linked_through_the_owner(tmp_path):
    children = {
        "type": "relation",
        "relation": "oneToMany",
        "target": "api::post.post",
        "mappedBy": "gone",
    }
    path = _write(tmp_path, "post.json", _article(parent=PARENT, children=children))
    registry = load_registry(tmp_path)
    post = registry.content_types["api::post.post"]
    assert post.links["children"].table == post.links["parent"].table
    assert not post.links["children"].owner
    assert [str(w) for w in registry.warnings] == [
        f"{path}: attribute 'children': mappedBy 'gone' is not the relation that points back: "
        "linked through 'api::post.post.parent' (inversedBy 'children'), as Strapi does; "
        "write mappedBy 'parent'"
    ]


def test_a_mapped_by_no_owner_names_loads_and_is_left_out(tmp_path):
    orphans = {
        "type": "relation",
        "relation": "oneToMany",
        "target": "api::post.post",
        "mappedBy": "nothing",
    }
    path = _write(tmp_path, "post.json", _article(orphans=orphans))
    registry = load_registry(tmp_path)
    assert "orphans" not in registry.content_types["api::post.post"].attributes
    assert [str(w) for w in registry.warnings] == [
        f"{path}: attribute 'orphans': mappedBy 'nothing': no relation of 'api::post.post' "
        "names 'orphans' in its inversedBy, so it holds nothing (as in Strapi, which loads it "
        "silently); left out of the model"
    ]


def test_the_example_models_have_no_warnings():
    assert load_registry(ROOT / "content-types").warnings == ()


def test_a_content_type_may_ask_for_multi_column_indexes(tmp_path):
    """``pluginOptions.contentapi.indexes``: each list of attribute names (system ones too) is
    an index of those columns in that order; a repeated one is kept once."""
    doc = _article(rank={"type": "integer"}, publishedOn={"type": "date"})
    doc["options"] = {"draftAndPublish": True}
    doc["pluginOptions"] = {
        "contentapi": {"indexes": [["publishedOn", "rank"], ["publishedAt", "title"], ["rank"]]}
    }
    doc["pluginOptions"]["contentapi"]["indexes"].append(["publishedOn", "rank"])
    _write(tmp_path, "post.json", doc)
    post = load_registry(tmp_path).content_types["api::post.post"]
    assert post.indexes == (("published_on", "rank"), ("published_at", "title"), ("rank",))


@pytest.mark.parametrize(
    ("indexes", "message"),
    [
        ("rank", "must be a list of lists of attribute names"),
        ([[]], "[] is not a list of distinct attribute names"),
        ([["rank", "rank"]], "is not a list of distinct attribute names"),
        ([["nosuch"]], "no attribute 'nosuch'"),
        ([["body"]], "'body' (text) cannot be indexed"),
        ([["locale"]], "no attribute 'locale'"),  # the type is not localized
        ([["publishedAt"]], "no attribute 'publishedAt'"),  # nor has it drafts
    ],
)
def test_bad_multi_column_indexes_are_reported(tmp_path, indexes, message):
    doc = _article(rank={"type": "integer"}, body={"type": "text"})
    doc["pluginOptions"] = {"contentapi": {"indexes": indexes}}
    _write(tmp_path, "post.json", doc)
    errors = _errors(tmp_path)
    assert any("pluginOptions.contentapi.indexes" in e and message in e for e in errors), errors


def test_a_content_type_may_set_its_cache_lifetimes(tmp_path):
    """``pluginOptions.contentapi.cache``: the keys given, by directive; ``null`` kept (that
    directive is then not sent), absent keys left to the settings."""
    doc = _article()
    doc["pluginOptions"] = {"contentapi": {"cache": {"maxAge": 60, "sMaxAge": None}}}
    _write(tmp_path, "post.json", doc)
    post = load_registry(tmp_path).content_types["api::post.post"]
    assert post.cache == {"max_age": 60, "s_maxage": None}


def test_a_content_type_without_cache_options_overrides_nothing(tmp_path):
    _write(tmp_path, "post.json", _article())
    assert load_registry(tmp_path).content_types["api::post.post"].cache == {}


@pytest.mark.parametrize(
    ("cache", "message"),
    [
        (60, "must be an object (maxAge, sMaxAge, staleWhileRevalidate)"),
        ({"max_age": 60}, "unknown key 'max_age' (known: maxAge, sMaxAge, staleWhileRevalidate)"),
        ({"maxAge": -1}, ".maxAge must be seconds (an integer, 0 or more) or null"),
        ({"sMaxAge": "60"}, ".sMaxAge must be seconds"),
        ({"staleWhileRevalidate": True}, ".staleWhileRevalidate must be seconds"),
        ({"maxAge": 1.5}, ".maxAge must be seconds"),
    ],
)
def test_bad_cache_options_are_reported(tmp_path, cache, message):
    doc = _article()
    doc["pluginOptions"] = {"contentapi": {"cache": cache}}
    _write(tmp_path, "post.json", doc)
    errors = _errors(tmp_path)
    assert any("pluginOptions.contentapi.cache" in e and message in e for e in errors), errors
