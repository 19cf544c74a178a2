"""A live server (uvicorn in a subprocess, on a free local port) for the OpenAPI tests."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import ADMIN_TOKEN, MODELS, Databases


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="session")
async def live_server(
    databases: Databases, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[str]:
    """The base URL of a server on a fresh database of the session's backend."""
    folder = tmp_path_factory.mktemp("live")
    port = _free_port()
    env = {name: value for name, value in os.environ.items() if not name.startswith("CONTENTAPI_")}
    env.update(
        CONTENTAPI_DATABASE_URL=await databases.new_url(),
        CONTENTAPI_CONTENT_TYPES_DIR=str(MODELS),
        CONTENTAPI_ADMIN_TOKEN=ADMIN_TOKEN,
        CONTENTAPI_LOCALES="en,fr",
        CONTENTAPI_API_TOKEN_SALT="test-salt",
        CONTENTAPI_JWT_SECRET="live-server-jwt-secret-0123456789abcdef0123456789abcdef",
        CONTENTAPI_AUTH_RATE_LIMIT_MAX="100000",
        CONTENTAPI_UPLOADS_DIR=str(folder / "uploads"),
        CONTENTAPI_DOCUMENTATION="true",
    )
    command = [
        sys.executable,
        "-m",
        "uvicorn",
        "contentapi.app:create_app",
        "--factory",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--log-level",
        "warning",
        "--no-access-log",
    ]
    log = (folder / "server.log").open("wb")
    process = subprocess.Popen(command, env=env, cwd=folder, stdout=log, stderr=log)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                pytest.fail(f"the server exited: {Path(log.name).read_text()}")
            try:
                if httpx.get(f"{base}/_ready", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                pytest.fail("the server did not become ready within 60 s")
            time.sleep(0.1)
        yield base
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()
