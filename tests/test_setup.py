"""Set-up as a user meets it: the CLI, a real server process, and CI's PostgreSQL guard."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.conftest import MODELS, ROOT

CONTENTAPI = str(Path(sys.executable).parent / "contentapi")


def _env(**values: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CONTENTAPI_")}
    env.update(values)
    return env


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_check_accepts_the_example_models():
    result = subprocess.run(
        [CONTENTAPI, "check"], cwd=ROOT, env=_env(), capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.endswith(": all valid\n")


def test_check_names_file_and_attribute_and_exits_1(tmp_path):
    bad = tmp_path / "post.json"
    bad.write_text(
        json.dumps(
            {
                "kind": "collectionType",
                "info": {"singularName": "post", "pluralName": "posts"},
                "attributes": {"body": {"type": "markdown"}},
            }
        )
    )
    result = subprocess.run(
        [CONTENTAPI, "check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=_env(CONTENTAPI_CONTENT_TYPES_DIR=str(tmp_path)),
    )
    assert result.returncode == 1
    assert f"{bad}: attribute 'body': unknown attribute type 'markdown'" in " ".join(
        result.stderr.split()
    )


async def test_server_process_answers_with_admin_token_and_cli_token(databases, tmp_path):
    url = await databases.new_url()
    env = _env(
        CONTENTAPI_DATABASE_URL=url,
        CONTENTAPI_CONTENT_TYPES_DIR=str(MODELS),
        CONTENTAPI_ADMIN_TOKEN="admin-secret-for-serve",
    )
    migrated = subprocess.run(
        [CONTENTAPI, "migrate"], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert migrated.returncode == 0, migrated.stderr
    created = subprocess.run(
        [CONTENTAPI, "tokens", "create", "--name", "reader", "--type", "read-only"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert created.returncode == 0, created.stderr
    secret = created.stdout.strip().splitlines()[-1]
    assert len(secret) == 256

    port = _free_port()
    server = subprocess.Popen(
        [CONTENTAPI, "serve", "--port", str(port)],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        async with httpx.AsyncClient(base_url=base) as client:
            while True:
                try:
                    response = await client.get(
                        "/api/articles", headers={"Authorization": "Bearer admin-secret-for-serve"}
                    )
                    break
                except httpx.TransportError:
                    if time.monotonic() > deadline or server.poll() is not None:
                        pytest.fail("server did not start")
                    time.sleep(0.3)
            assert response.status_code == 200
            assert response.json()["meta"]["pagination"]["total"] == 0
            reader = {"Authorization": f"Bearer {secret}"}
            assert (await client.get("/api/articles", headers=reader)).status_code == 200
            write = await client.post(
                "/api/articles", json={"data": {"title": "abc"}}, headers=reader
            )
            assert write.status_code == 403
            assert (await client.get("/api/articles")).status_code == 403
    finally:
        server.terminate()
        server.wait(timeout=20)


def test_tokens_create_rejects_an_unknown_type():
    result = subprocess.run(
        [CONTENTAPI, "tokens", "create", "--name", "x", "--type", "root"],
        cwd=ROOT,
        env=_env(),
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2


UNREACHABLE = "postgresql+asyncpg://postgres@127.0.0.1:1/postgres"


def test_ci_run_fails_when_postgres_is_unreachable():
    result = subprocess.run(
        [str(ROOT / ".ci" / "run")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env=_env(CONTENTAPI_TEST_POSTGRES_URL=UNREACHABLE, PATH=os.environ["PATH"]),
    )
    assert result.returncode != 0
    assert "PostgreSQL is not reachable" in result.stderr


def test_suite_fails_rather_than_skips_when_postgres_is_unreachable():
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "tests/api/rest/test_crud.py::test_empty_list_meta",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env=_env(CONTENTAPI_TEST_POSTGRES_URL=UNREACHABLE, PATH=os.environ["PATH"]),
    )
    assert result.returncode != 0
    assert "PostgreSQL is not reachable" in result.stdout
    assert "skipped" not in result.stdout.splitlines()[-1]


def test_production_refuses_to_start_without_a_jwt_secret(tmp_path):
    from contentapi.app import create_app
    from contentapi.config import Settings

    settings = Settings(
        env="production",
        database_url=f"sqlite+aiosqlite:///{tmp_path}/p.db",
        content_types_dir=MODELS,
    )
    with pytest.raises(ValueError, match="CONTENTAPI_JWT_SECRET"):
        create_app(settings)
    result = subprocess.run(
        [CONTENTAPI, "serve"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env=_env(
            CONTENTAPI_ENV="production",
            CONTENTAPI_DATABASE_URL=f"sqlite+aiosqlite:///{tmp_path}/p.db",
        ),
    )
    assert result.returncode == 2
    assert "CONTENTAPI_JWT_SECRET is required" in result.stderr
