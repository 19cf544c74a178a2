"""The README's examples, exactly as README.md writes them, against a real ``contentapi serve``
(two workers, a fresh database of each backend), and what that server says as it starts."""

from __future__ import annotations

import asyncio
import os
import socket
import sys
import time
from pathlib import Path

import httpx
from examples.readme import README, ROOT, client_script, example_blocks, server_environment

from tests.conftest import Databases

CONTENTAPI = str(Path(sys.executable).parent / "contentapi")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def clean_environment() -> dict[str, str]:
    """The caller's environment without its CONTENTAPI_ settings (the test sets its own)."""
    return {k: v for k, v in os.environ.items() if not k.upper().startswith("CONTENTAPI_")}


async def wait_until_answering(url: str, process: asyncio.subprocess.Process, log: Path) -> None:
    deadline = time.monotonic() + 90
    async with httpx.AsyncClient() as client:
        while time.monotonic() < deadline:
            if process.returncode is not None:
                raise AssertionError(f"the server exited:\n{log.read_text()}")
            try:
                if (await client.get(url, timeout=2)).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.3)
    raise AssertionError(f"the server did not answer in 90 s:\n{log.read_text()}")


def test_the_examples_are_read_from_the_readme():
    blocks = example_blocks(README.read_text(encoding="utf-8"))
    assert server_environment(blocks[0]) == {
        "CONTENTAPI_ADMIN_TOKEN": "dev-token",
        "CONTENTAPI_LOCALES": "en,fr",
    }
    script = client_script(blocks)
    # every block after the server's is in the script, in the README's order
    assert all(block in script for block in blocks[1:])
    assert script.index("/api/authors") < script.index("/api/articles/1/localizations")
    assert script.count("curl -s") >= 20


async def test_readme_examples_run_as_written(databases: Databases, tmp_path: Path):
    blocks = example_blocks(README.read_text(encoding="utf-8"))
    port = free_port()
    database_url = await databases.new_url()
    env = {
        **clean_environment(),
        **server_environment(blocks[0]),
        "CONTENTAPI_DATABASE_URL": database_url,
        "CONTENTAPI_UPLOADS_DIR": str(tmp_path / "uploads"),
        "CONTENTAPI_PORT": str(port),
    }
    log = tmp_path / "serve.log"
    with log.open("wb") as output:
        server = await asyncio.create_subprocess_exec(
            CONTENTAPI,
            "serve",
            "--workers",
            "2",
            cwd=ROOT,
            env=env,
            stdout=output,
            stderr=asyncio.subprocess.STDOUT,
        )
    try:
        api = f"http://127.0.0.1:{port}"
        await wait_until_answering(f"{api}/", server, log)
        run = await asyncio.create_subprocess_exec(
            "bash",
            "-c",
            client_script(blocks),
            cwd=ROOT,
            env={**clean_environment(), "API": api},
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
        out, _ = await asyncio.wait_for(run.communicate(), timeout=120)
        assert run.returncode == 0, out.decode()
        assert '"title":"Bonjour"' in out.decode() and '"createArticle"' in out.decode()
    finally:
        server.terminate()
        await asyncio.wait_for(server.wait(), timeout=30)
    # the start-up summary, then one ready line per worker
    said = log.read_text()
    assert "contentapi 0.1.0\n  environment:  development\n" in said
    assert f"database:     {database_url.split('+', 1)[0]}" in said
    assert "models:       content-types: 5 content types" in said
    assert "5 built-in types" in said
    assert "locales:      en (default), fr" in said
    assert f"uploads:      {tmp_path / 'uploads'}" in said
    assert "admin token:  set (CONTENTAPI_ADMIN_TOKEN)" in said
    assert f"listening on: http://127.0.0.1:{port} (2 workers)" in said
    assert said.count("contentapi ready: worker") == 2, said
    assert "Traceback" not in said
