"""``contentapi serve --reload`` as a real process on a temporary models folder (SQLite): a
changed model is answered within seconds, a broken one is refused while the server goes on."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import httpx
import psutil
import pytest

import contentapi
from tests.support.server import CONTENTAPI, free_port
from tests.support.waiting import wait_until

TOKEN = "reload-admin-token"
HEADERS = {"Authorization": f"Bearer {TOKEN}"}
EXTENSION = "def register(app):\n    pass\n"


def _model(singular: str, plural: str, attributes: dict[str, object]) -> str:
    return json.dumps(
        {
            "kind": "collectionType",
            "collectionName": plural,
            "info": {"singularName": singular, "pluralName": plural, "displayName": singular},
            "options": {"draftAndPublish": False},
            "attributes": attributes,
        }
    )


def _status(base: str, path: str) -> int | None:
    try:
        return httpx.get(f"{base}{path}", headers=HEADERS, timeout=5).status_code
    except httpx.TransportError:
        return None


@pytest.fixture
def reloading(tmp_path: Path):
    models = tmp_path / "models"
    models.mkdir()
    (models / "book.json").write_text(_model("book", "books", {"title": {"type": "string"}}))
    (tmp_path / "devext.py").write_text(EXTENSION)
    env = {k: v for k, v in os.environ.items() if not k.startswith("CONTENTAPI_")}
    env.update(
        CONTENTAPI_DATABASE_URL=f"sqlite+aiosqlite:///{tmp_path / 'data.db'}",
        CONTENTAPI_CONTENT_TYPES_DIR=str(models),
        CONTENTAPI_ADMIN_TOKEN=TOKEN,
        CONTENTAPI_UPLOADS_DIR=str(tmp_path / "uploads"),
        CONTENTAPI_EXTENSIONS="devext",  # found in the working folder, as a project's would be
        # the code under test, whatever the working folder and the installed checkout
        PYTHONPATH=str(Path(contentapi.__file__).parents[1]),
    )
    port = free_port()
    log_path = tmp_path / "server.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [CONTENTAPI, "serve", "--reload", "--port", str(port)],
            env=env,
            cwd=tmp_path,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until(lambda: _status(base, "/api/books") == 200, "the server answers", seconds=30)
        yield base, tmp_path, log_path, env
    finally:
        children = psutil.Process(process.pid).children(recursive=True)
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
        for child in children:
            if child.is_running():
                child.kill()


def test_reload_answers_a_new_attribute_and_keeps_serving_through_a_broken_model(reloading):
    base, folder, log_path, env = reloading
    models = folder / "models"
    assert _status(base, "/api/books?sort=subtitle") == 400

    attributes = {"title": {"type": "string"}, "subtitle": {"type": "string"}}
    (models / "book.json").write_text(_model("book", "books", attributes))
    wait_until(lambda: _status(base, "/api/books?sort=subtitle") == 200, "the new attribute")
    wait_until(lambda: "reloaded: 1 column added" in log_path.read_text(), "the reload line")

    (models / "shelf.json").write_text(_model("shelf", "shelves", {"rows": {"type": "nope"}}))
    wait_until(lambda: "not reloaded" in log_path.read_text(), "the refusal")
    check = subprocess.run(
        [CONTENTAPI, "check"], env=env, cwd=folder, capture_output=True, text=True
    )
    assert check.returncode == 1
    assert check.stderr.strip() in log_path.read_text()  # the very block `check` prints
    assert _status(base, "/api/books?sort=subtitle") == 200  # the old models go on
    assert _status(base, "/api/shelves") == 404

    (models / "shelf.json").write_text(_model("shelf", "shelves", {"rows": {"type": "integer"}}))
    wait_until(lambda: _status(base, "/api/shelves") == 200, "the fixed model")
    assert "reloaded: content type api::shelf.shelf added, 1 table created" in (
        log_path.read_text()
    )


def test_reload_checks_a_changed_extension_module_before_restarting(reloading):
    base, folder, log_path, _ = reloading
    (folder / "devext.py").write_text("def register(app):\n    raise NotImplemented(\n")
    wait_until(lambda: "not reloaded" in log_path.read_text(), "the refusal")
    refusal = log_path.read_text().split("changed: devext.py")[-1]
    assert "cannot import 'devext'" in refusal
    assert "Traceback" not in refusal
    assert _status(base, "/api/books") == 200

    (folder / "devext.py").write_text(EXTENSION + "# saved again\n")
    wait_until(lambda: "reloaded: no table changed" in log_path.read_text(), "the reload")
    wait_until(lambda: _status(base, "/api/books") == 200, "the new worker answers")
