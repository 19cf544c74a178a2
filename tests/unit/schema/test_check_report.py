"""``contentapi check`` reports every problem of every file at once, with hints, and one bad
attribute does not turn into errors about other files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from contentapi.cli import app
from tests.conftest import MODELS


@pytest.fixture
def models(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "models"
    shutil.copytree(MODELS, folder)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CONTENTAPI_CONTENT_TYPES_DIR", str(folder))
    return folder


def edit(path: Path, change) -> None:
    document = json.loads(path.read_text())
    change(document["attributes"])
    path.write_text(json.dumps(document))


def check(models: Path) -> tuple[int, list[str]]:
    result = CliRunner().invoke(app, ["check"])
    # problems and warnings on stderr, then the verdict of valid models on stdout
    return result.exit_code, result.stderr.splitlines() + result.stdout.splitlines()


def test_every_problem_of_every_file_and_no_follow_on_errors(models: Path):
    def article(attributes):
        attributes["readingTime"]["type"] = "integr"
        attributes["kind"]["default"] = "essay"
        attributes["bad name!"] = {"type": "string"}
        attributes["categories"]["relation"] = "manyToMny"

    def author(attributes):
        attributes["name"]["type"] = "strng"
        attributes["socials"]["component"] = "shared.links"

    edit(models / "article.json", article)
    edit(models / "author.json", author)
    code, lines = check(models)
    assert code == 1
    article_path, author_path = models / "article.json", models / "author.json"
    assert lines == [
        f"error {article_path}: attribute 'kind': default 'essay' is not one of the enum values "
        "('news', 'opinion', 'tutorial')",
        f"error {article_path}: attribute 'readingTime': unknown attribute type 'integr' "
        "(did you mean 'integer'?)",
        f"error {article_path}: attribute 'categories': unknown relation 'manyToMny' "
        "(did you mean 'manyToMany'?)",
        f"error {article_path}: attribute 'bad name!': invalid attribute name: use letters, "
        "digits and '_', starting with a letter",
        f"error {author_path}: attribute 'name': unknown attribute type 'strng' "
        "(did you mean 'string'?)",
        f"error {author_path}: attribute 'socials': component 'shared.links' does not exist "
        "(did you mean 'shared.link'?)",
        f"6 problems in 2 files of {models}",
    ]
    # nothing about category.json, profile.json or the quote component, which point at the
    # two models whose own attributes were wrong: those models still exist for the check


def test_a_broken_partner_attribute_is_reported_once(models: Path):
    # category.articles is mappedBy article.categories; break article.categories itself
    edit(models / "article.json", lambda a: a["categories"].update(type="relatoin"))
    code, lines = check(models)
    assert code == 1
    assert len(lines) == 2, lines
    assert "unknown attribute type 'relatoin' (did you mean 'relation'?)" in lines[0]


def test_unknown_type_far_from_any_lists_the_types(models: Path):
    edit(models / "profile.json", lambda a: a["headline"].update(type="markdown"))
    _, lines = check(models)
    listed = "unknown attribute type 'markdown'; use one of array, biginteger, blocks, boolean,"
    assert listed in lines[0]


def test_valid_models_count_the_users_own_types(models: Path):
    code, lines = check(models)
    assert code == 0
    assert lines == [f"5 content types and 5 components in {models}: all valid"]


def test_mapped_by_strapi_loads_silently_is_a_warning(models: Path):
    # Strapi 4.25 starts with both (checked on the reference): profile.author is still linked
    # through author.profile's inversedBy; author.fans holds nothing there.
    edit(models / "profile.json", lambda a: a["author"].update(mappedBy="gone"))
    fans = {"type": "relation", "relation": "oneToMany", "target": "api::profile.profile"}
    edit(models / "author.json", lambda a: a.update(fans={**fans, "mappedBy": "idol"}))
    code, lines = check(models)
    assert code == 0
    assert lines == [
        f"warning {models / 'author.json'}: attribute 'fans': mappedBy 'idol': no relation of "
        "'api::profile.profile' names 'fans' in its inversedBy, so it holds nothing (as in "
        "Strapi, which loads it silently); left out of the model",
        f"warning {models / 'profile.json'}: attribute 'author': mappedBy 'gone' is not the "
        "relation that points back: linked through 'api::author.author.profile' (inversedBy "
        "'author'), as Strapi does; write mappedBy 'profile'",
        f"5 content types and 5 components in {models}: valid, 2 warnings",
    ]
