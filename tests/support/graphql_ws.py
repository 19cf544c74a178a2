"""The ``graphql-ws`` library (github.com/enisdenjo/graphql-ws, what Apollo Client's
``GraphQLWsLink`` and urql use) as a subscriptions client of the tests: ``graphql_ws_client.cjs``
run by Node.js, the library installed once with npm into the user's cache.

    async with GraphQLWsClient(url, {"Authorization": "Bearer …"}) as client:
        await client.subscribe("1", "subscription { articleCreated { data { id } } }")
        message = await client.next_message()  # {"id": "1", "type": "next", "payload": …}

Tests using it skip where Node.js is not installed.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

__all__ = ["NODE", "GraphQLWsClient", "install"]

NODE = shutil.which("node")
NPM = shutil.which("npm")
SCRIPT = Path(__file__).with_name("graphql_ws_client.cjs")
#: the library and what it runs on, pinned by major version
PACKAGES = ("graphql-ws@6", "graphql@16", "ws@8")
_CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
PREFIX = _CACHE / "contentapi-tests" / "graphql-ws"
_QUIET = ("--no-audit", "--no-fund", "--loglevel=error")


def install() -> Path:
    """The folder whose ``node_modules`` holds the packages (installed on first use)."""
    if not (PREFIX / "node_modules" / "graphql-ws" / "package.json").exists():
        PREFIX.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [NPM or "npm", "install", "--prefix", str(PREFIX), *_QUIET, *PACKAGES],
            check=True,
            capture_output=True,
            timeout=300,
            env={
                **os.environ,
                "NPM_CONFIG_CACHE": str(_CACHE / "npm"),
                "NPM_CONFIG_UPDATE_NOTIFIER": "false",
            },
        )
    return PREFIX


class GraphQLWsClient:
    """One connection of the library; what it reports, in order, through :meth:`next_message`."""

    def __init__(self, url: str, connection_params: dict[str, Any]) -> None:
        self.url = url
        self.connection_params = connection_params
        self._process: asyncio.subprocess.Process | None = None

    async def __aenter__(self) -> GraphQLWsClient:
        prefix = await asyncio.to_thread(install)
        self._process = await asyncio.create_subprocess_exec(
            NODE or "node",
            str(SCRIPT),
            self.url,
            json.dumps(self.connection_params),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            env={**os.environ, "NODE_PATH": str(prefix / "node_modules")},
        )
        connected = await self.next_message()
        assert connected == {"type": "connected"}, connected
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._process is not None and self._process.stdin is not None
        self._process.stdin.close()
        try:
            await asyncio.wait_for(self._process.wait(), 10)
        except TimeoutError:
            self._process.kill()
            await self._process.wait()

    async def subscribe(self, operation_id: str, query: str, variables: dict | None = None) -> None:
        assert self._process is not None and self._process.stdin is not None
        line = {"id": operation_id, "query": query, "variables": variables or {}}
        self._process.stdin.write(json.dumps(line).encode() + b"\n")
        await self._process.stdin.drain()

    async def next_message(self, seconds: float = 20) -> dict[str, Any]:
        """What the library reported next; fails past ``seconds`` (a bound on a hang)."""
        assert self._process is not None and self._process.stdout is not None
        line = await asyncio.wait_for(self._process.stdout.readline(), seconds)
        assert line, "the graphql-ws client ended"
        return dict(json.loads(line))
