"""A Strapi project's own layout is read as it is: from its root or its ``src/``, with
Strapi's uids (``api::<api folder>.<content type folder>``) and its table default."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from contentapi.schema import ModelErrors, load_registry
from contentapi.schema.custom_fields import CustomFields
from contentapi.schema.sources import resolve_sources

ROOT = Path(__file__).resolve().parents[3]
PROJECT = ROOT / "tests" / "fixtures" / "strapi-project"
OWN = ROOT / "content-types"


def _fields() -> CustomFields:
    fields = CustomFields.known()
    fields.register("plugin::rating.stars", "integer")
    return fields


@pytest.mark.parametrize("folder", [PROJECT, PROJECT / "src"], ids=["root", "src"])
def test_a_strapi_project_is_read_from_its_root_or_its_src(folder: Path):
    sources = resolve_sources(folder)
    assert (sources.layout, sources.root) == ("strapi", PROJECT / "src")
    assert [(file.uid, file.path.relative_to(PROJECT)) for file in sources.content_types] == [
        ("api::blog.article", Path("src/api/blog/content-types/article/schema.json")),
        ("api::category.category", Path("src/api/category/content-types/category/schema.json")),
        ("api::global.global", Path("src/api/global/content-types/global/schema.json")),
        (
            "api::restaurant.restaurant",
            Path("src/api/restaurant/content-types/restaurant/schema.json"),
        ),
    ]
    assert [f"{c.category}.{c.name}" for c in sources.components] == [
        "blocks.hero",
        "blocks.text",
        "shared.seo",
    ]
    assert sources.user_extension_path == (
        PROJECT / "src/extensions/users-permissions/content-types/user/schema.json"
    )
    assert sources.user_extension is None
    registry = load_registry(folder, _fields())
    own = {uid for uid in registry.content_types if uid.startswith("api::")}
    assert own == {
        "api::blog.article",
        "api::category.category",
        "api::global.global",
        "api::restaurant.restaurant",
    }
    article = registry.by_plural["articles"]
    assert (article.uid, article.api_name, article.singular_name) == (
        "api::blog.article",
        "blog",
        "article",
    )
    assert registry.content_types["api::restaurant.restaurant"].links  # relations resolved
    assert set(registry.components) == {"blocks.hero", "blocks.text", "shared.seo"}


def test_contentapis_own_layout_is_unchanged():
    sources = resolve_sources(OWN)
    assert (sources.layout, sources.root) == ("contentapi", OWN)
    assert {file.uid for file in sources.content_types} >= {"api::article.article"}
    assert all(file.path.parent == OWN for file in sources.content_types)
    assert sources.user_extension_path == (
        OWN / "extensions/users-permissions/content-types/user/schema.json"
    )


def test_the_user_extension_file_is_found_in_either_layout(tmp_path: Path):
    project = tmp_path / "project"
    shutil.copytree(PROJECT, project)
    extension = project / "src/extensions/users-permissions/content-types/user/schema.json"
    extension.parent.mkdir(parents=True)
    extension.write_text("{}")
    assert resolve_sources(project).user_extension == extension
    own = tmp_path / "own"  # the same relative path: src/extensions is copied as it is
    own_extension = own / "extensions/users-permissions/content-types/user/schema.json"
    own_extension.parent.mkdir(parents=True)
    own_extension.write_text("{}")
    assert resolve_sources(own).user_extension == own_extension


def _strapi_type(src: Path, api: str, folder: str, doc: dict) -> Path:
    path = src / "api" / api / "content-types" / folder / "schema.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc))
    return path


def _doc(singular: str, plural: str, **extra: object) -> dict:
    return {
        "kind": "collectionType",
        "info": {"singularName": singular, "pluralName": plural, "displayName": singular},
        "options": {"draftAndPublish": False},
        "attributes": {"name": {"type": "string"}},
        **extra,
    }


def test_folder_names_are_kebab_cased_and_the_table_defaults_to_the_singular_name(tmp_path):
    # Strapi's loader: normalizeName (kebab-case) of both folders; collectionName defaults
    # to info.singularName (core/domain/content-type)
    _strapi_type(tmp_path, "blogPosts", "post", _doc("post", "posts"))
    registry = load_registry(tmp_path)
    post = registry.by_plural["posts"]
    assert (post.uid, post.table) == ("api::blog-posts.post", "post")


def test_the_singular_name_must_be_the_folders(tmp_path):
    path = _strapi_type(tmp_path, "shop", "item", _doc("product", "products"))
    with pytest.raises(ModelErrors) as caught:
        load_registry(tmp_path)
    assert [str(e) for e in caught.value.errors] == [
        f"{path}: info.singularName 'product' must match its folder name 'item'"
    ]


def test_a_javascript_schema_or_none_is_named(tmp_path):
    _strapi_type(tmp_path, "shop", "product", _doc("product", "products"))
    scripted = tmp_path / "api/shop/content-types/order"
    scripted.mkdir(parents=True)
    (scripted / "schema.js").write_text("module.exports = {};")
    empty = tmp_path / "api/shop/content-types/cart"
    empty.mkdir(parents=True)
    with pytest.raises(ModelErrors) as caught:
        load_registry(tmp_path)
    assert [str(e) for e in caught.value.errors] == [
        f"{empty}: a content type folder without schema.json",
        f"{scripted}: the schema is JavaScript or TypeScript: contentapi reads schema.json only "
        "(write the exported object as JSON)",
    ]


def test_an_api_without_content_types_and_other_files_are_ignored(tmp_path):
    _strapi_type(tmp_path, "shop", "product", _doc("product", "products"))
    (tmp_path / "api/health/routes").mkdir(parents=True)
    (tmp_path / "api/health/routes/health.js").write_text("module.exports = {};")
    (tmp_path / "api/shop/content-types/product/lifecycles.js").write_text("module.exports = {};")
    (tmp_path / "index.js").write_text("module.exports = {};")
    registry = load_registry(tmp_path)
    assert "api::shop.product" in registry.content_types


def test_a_local_plugins_content_types_are_not_read_and_a_relation_to_one_says_why(tmp_path):
    # Strapi 4.25 loads src/plugins/<name> only when config/plugins.js enables it, and registers
    # the content types its server code exports (the generator writes the schema.json files but
    # not their registration): code contentapi does not run, so the files are not models.
    plugin_type = tmp_path / "plugins/shop/server/content-types/product/schema.json"
    plugin_type.parent.mkdir(parents=True)
    plugin_type.write_text(json.dumps(_doc("product", "products")))
    order = _doc("order", "orders")
    order["attributes"]["product"] = {
        "type": "relation",
        "relation": "manyToOne",
        "target": "plugin::shop.product",
    }
    path = _strapi_type(tmp_path, "shop", "order", order)
    assert [file.uid for file in resolve_sources(tmp_path).content_types] == ["api::shop.order"]
    with pytest.raises(ModelErrors) as caught:
        load_registry(tmp_path)
    assert [str(e) for e in caught.value.errors] == [
        f"{path}: attribute 'product': relation target 'plugin::shop.product' does not exist: "
        "of the plugins' content types only the upload and users-permissions ones are known; "
        "a local plugin's (src/plugins/<name>) are not read (docs/strapi-migration.md, "
        '"A Strapi project\'s models")'
    ]
