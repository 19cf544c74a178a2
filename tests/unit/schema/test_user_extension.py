"""The users-permissions user extension (``schema/extensions.py``): read from
``<models>/extensions/users-permissions/content-types/user/schema.json``, merged as Strapi's
``applyUserExtension`` merges it (the file's top-level keys replace the plugin's, so its
``attributes`` are the user's, in its order), with the plugin's table, names and own
attributes kept; each refusal names the file."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

import pytest

from contentapi.schema import ModelErrors, load_registry
from contentapi.schema.builtin import BUILTIN_DOCUMENTS, USER_UID
from contentapi.schema.model import RelationAttribute, ScalarAttribute
from contentapi.schema.sources import OWN_USER_EXTENSION as USER_EXTENSION_PATH

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "user-extension" / "models"
USER = "plugin::users-permissions.user"


@pytest.fixture
def models(tmp_path: Path) -> Path:
    folder = tmp_path / "models"
    shutil.copytree(FIXTURE, folder)
    return folder


def _extension(folder: Path) -> dict:
    return json.loads((folder / USER_EXTENSION_PATH).read_text())


def _write_extension(folder: Path, document: object) -> Path:
    path = folder / USER_EXTENSION_PATH
    path.write_text(document if isinstance(document, str) else json.dumps(document))
    return path


def _errors(folder: Path) -> list[str]:
    with pytest.raises(ModelErrors) as caught:
        load_registry(folder)
    return [str(error) for error in caught.value.errors]


def test_foodadvisor_like_extension_loads_in_the_files_order(models: Path):
    user = load_registry(models).content_types[USER]
    assert list(user.attributes) == list(_extension(models)["attributes"])
    assert user.table == "up_users" and not user.draft_and_publish
    assert user.source == models / USER_EXTENSION_PATH
    job = user.attributes["job"]
    assert isinstance(job, ScalarAttribute) and job.required
    reviews = user.attributes["reviews"]
    assert isinstance(reviews, RelationAttribute) and reviews.mapped_by == "author"
    assert user.links["reviews"].table == "reviews_author_links"
    assert user.links["favorites"].table == "up_users_favorites_links"


def test_without_the_extension_the_inverse_side_is_what_check_reports(models: Path):
    """The symptom the extension fixes: ``review.author`` names ``inversedBy: reviews``."""
    (models / USER_EXTENSION_PATH).unlink()
    errors = _errors(models)
    assert any("review.json: attribute 'author': inversedBy 'reviews'" in e for e in errors)


def test_the_plugins_own_attributes_keep_their_flags(models: Path):
    document = _extension(models)
    document["attributes"]["email"]["private"] = True  # a project may hide e-mails
    document["attributes"]["password"]["private"] = False  # but never expose the hash
    document["attributes"]["username"].pop("unique")
    _write_extension(models, document)
    user = load_registry(models).content_types[USER]
    assert user.attributes["email"].private
    assert user.attributes["email"].unique  # contentapi's own guarantee (register races)
    assert user.attributes["password"].private
    assert user.attributes["username"].unique


def test_an_omitted_plugin_attribute_is_kept(models: Path):
    document = _extension(models)
    del document["attributes"]["provider"], document["attributes"]["role"]
    _write_extension(models, document)
    user = load_registry(models).content_types[USER]
    assert list(user.attributes)[-2:] == ["provider", "role"]


def test_absent_header_keys_stay_the_plugins(models: Path):
    document = {"attributes": _extension(models)["attributes"]}  # Strapi's merge keeps the rest
    _write_extension(models, document)
    user = load_registry(models).content_types[USER]
    assert (user.table, user.plural_name, user.draft_and_publish) == ("up_users", "users", False)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda d: d.update(collectionName="members"),
            "collectionName of the users-permissions user must be 'up_users', not 'members'",
        ),
        (
            lambda d: d["info"].update(pluralName="members"),
            "info.pluralName of the users-permissions user must be 'users', not 'members'",
        ),
        (
            lambda d: d.update(kind="singleType"),
            "kind of the users-permissions user must be 'collectionType', not 'singleType'",
        ),
        (
            lambda d: d["options"].update(draftAndPublish=True),
            "the user model cannot have draft & publish",
        ),
        (
            lambda d: d.update(pluginOptions={"i18n": {"localized": True}}),
            "the user model cannot be localized",
        ),
        (
            lambda d: d["attributes"]["confirmed"].update(type="string"),
            "attribute 'confirmed': the plugin's attribute keeps its type 'boolean', not 'string'",
        ),
    ],
    ids=["table", "plural", "kind", "draft", "localized", "type"],
)
def test_refusals_name_the_extension_file(models: Path, change, message):
    document = _extension(models)
    change(document)
    path = _write_extension(models, document)
    # one mistake, one error: the refused value is the plugin's own, the rest still applies
    assert _errors(models) == [f"{path}: {message}"]


def test_extension_attributes_must_be_an_object(models: Path):
    document = _extension(models)
    document["attributes"] = []
    path = _write_extension(models, document)
    errors = _errors(models)
    assert errors[0] == f"{path}: 'attributes' must be an object"  # then review.author's partner


def test_an_invalid_extension_attribute_is_reported_once(models: Path):
    document = _extension(models)
    document["attributes"]["reviews"]["relation"] = "oneToMany-ish"
    path = _write_extension(models, document)
    errors = _errors(models)
    assert len(errors) == 1 and errors[0].startswith(f"{path}: attribute 'reviews': unknown")


@pytest.mark.parametrize("text", ["{not json", "[]"])
def test_a_broken_extension_file_is_reported(models: Path, text: str):
    path = _write_extension(models, text)
    errors = _errors(models)
    assert any(e.startswith(str(path)) for e in errors), errors


def test_the_builtin_documents_are_not_changed_by_an_extension(models: Path):
    before = copy.deepcopy(BUILTIN_DOCUMENTS[USER_UID])
    load_registry(models)
    assert BUILTIN_DOCUMENTS[USER_UID] == before


def test_a_strapi_projects_extension_is_merged_from_its_src(models: Path, tmp_path: Path):
    """The same files in a Strapi project's layout (``schema/sources.py``)."""
    src = tmp_path / "project" / "src"
    for name in ("review", "article"):
        target = src / "api" / name / "content-types" / name / "schema.json"
        target.parent.mkdir(parents=True)
        shutil.copy(models / f"{name}.json", target)
    shutil.copytree(models / "components", src / "components")
    shutil.copytree(models / "extensions", src / "extensions")
    registry = load_registry(tmp_path / "project")
    user = registry.content_types[USER]
    assert user.source == src / USER_EXTENSION_PATH
    assert list(user.attributes) == list(_extension(models)["attributes"])
    assert registry.content_types["api::review.review"].links["author"].table == (
        "reviews_author_links"
    )


def test_a_mapped_by_naming_no_attribute_is_loaded_and_left_out(models: Path):
    """FoodAdvisor's user ``articles`` is ``mappedBy: "author"`` where its article has no
    ``author`` any more: Strapi 4.25 starts, and never populates, filters or answers it."""
    document = _extension(models)
    document["attributes"]["drafts"] = {
        "type": "relation",
        "relation": "oneToMany",
        "target": "api::article.article",
        "mappedBy": "writer",
    }
    _write_extension(models, document)
    registry = load_registry(models)
    user = registry.content_types[USER]
    assert "drafts" not in user.attributes and "drafts" not in user.links
    assert "articles" in user.attributes


def test_an_inversed_by_naming_no_attribute_stays_an_error(models: Path):
    """Strapi refuses to start on it (``inversedBy attribute … not found``)."""
    review = json.loads((models / "review.json").read_text())
    review["attributes"]["author"]["inversedBy"] = "critiques"
    (models / "review.json").write_text(json.dumps(review))
    errors = _errors(models)
    assert any("inversedBy 'critiques' is not a relation" in e for e in errors), errors
