"""The corpus (``diff/corpus/``): real Strapi v4 projects, their models as their repositories
have them. Each passes ``contentapi check`` pointed at the project (its folder or its
``src/``), and the requests its front end builds are answered on SQLite and PostgreSQL as the
reference Strapi answered them (``strapi-answers.json``, recorded by
``make diff-corpus CORPUS_ARGS=--record``) — but for the differences ``diff/corpus_known.py``
gives a reason for (docs/corpus-report.md).

What each project needs of contentapi, beyond Strapi's layout and custom fields (issue 23):
FoodAdvisor extends the users-permissions user (branch ``user-extension``); FoodAdvisor and
corporate send unknown populate keys and dotted paths through dynamic zones (branch
``populate-lenient``). A test that needs a branch not merged yet is skipped, saying which.
"""

from __future__ import annotations

from importlib.util import find_spec
from pathlib import Path

import pytest
from diff.corpus import CORPUS, PROJECTS, compare_backend
from diff.corpus_known import reason_for
from typer.testing import CliRunner

from contentapi.cli import app
from contentapi.errors import ValidationError
from contentapi.query.parse import QueryLimits, QueryParser
from contentapi.schema import load_registry
from tests.conftest import MODELS, Databases


def _extends_the_user() -> bool:
    """Branch ``user-extension``: the user model's extension file is read."""
    return find_spec("contentapi.schema.extensions") is not None


def _ignores_unknown_populate() -> bool:
    """Branch ``populate-lenient``: an unknown populate key is ignored, as in Strapi."""
    registry = load_registry(MODELS)
    parser = QueryParser(registry, QueryLimits())
    try:
        parser.populate(registry.content_types["api::article.article"], "noSuchAttribute")
    except ValidationError:
        return False
    return True


def _needs(name: str, answers: bool) -> None:
    if name == "foodadvisor" and not _extends_the_user():
        pytest.skip("FoodAdvisor extends the users-permissions user: needs branch user-extension")
    if answers and name in ("foodadvisor", "corporate") and not _ignores_unknown_populate():
        pytest.skip(f"{name}'s front end sends unknown populate keys: needs populate-lenient")


@pytest.mark.parametrize("name", PROJECTS)
@pytest.mark.parametrize("folder", ["project", "src"])
def test_the_projects_models_pass_check_unchanged(
    name: str, folder: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
):
    _needs(name, answers=False)
    models = CORPUS / name if folder == "project" else CORPUS / name / "src"
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CONTENTAPI_CONTENT_TYPES_DIR", str(models))
    result = CliRunner().invoke(app, ["check"])
    assert result.exit_code == 0, result.stderr


@pytest.mark.parametrize("name", PROJECTS)
async def test_the_front_ends_requests_are_answered_as_strapi_answered(
    name: str, databases: Databases
):
    _needs(name, answers=True)
    report = await compare_backend(name, databases.backend, await databases.new_url())
    assert report["load_failure"] is None
    assert not [status for status in report["statuses"] if int(status) >= 500]
    unexplained = [
        (item["class"], request["url"], request["detail"])
        for item in report["classes"]
        for request in item["requests"]
        if reason_for(name, item["class"], request["url"]) is None
    ]
    assert unexplained == []
    assert report["identical"] >= report["requests"] // 2
