"""``X-Forwarded-For`` is believed only from ``CONTENTAPI_TRUSTED_PROXIES`` (none by default).

Before, ``contentapi serve`` ran uvicorn with ``proxy_headers=True``, which trusts the header
from 127.0.0.1: a local client (or anything behind a local proxy) could rotate it and get a new
rate-limit count with every request. The in-process clients below connect from 127.0.0.1.
"""

from __future__ import annotations

import os
import socket

import httpx
import pytest
import uvicorn
from starlette.requests import Request
from starlette.responses import Response
from typer.testing import CliRunner

from contentapi import cli, worker
from contentapi.config import Settings
from tests.conftest import MODELS


async def _login(client: httpx.AsyncClient, forwarded_for: str | None) -> int:
    headers = {"x-forwarded-for": forwarded_for} if forwarded_for else {}
    response = await client.post(
        "/api/auth/local", json={"identifier": "alice", "password": "wrong"}, headers=headers
    )
    return response.status_code


async def test_rotating_forwarded_for_does_not_escape_the_limit_by_default(start_app):
    handle = await start_app(auth_rate_limit_max=2)
    statuses = [await _login(handle.client, f"198.51.100.{n}") for n in range(4)]
    assert statuses == [400, 400, 429, 429]


async def test_a_peer_outside_the_trusted_networks_is_not_believed(start_app):
    handle = await start_app(auth_rate_limit_max=2, trusted_proxies="10.0.0.0/8, 192.0.2.1")
    statuses = [await _login(handle.client, f"198.51.100.{n}") for n in range(3)]
    assert statuses == [400, 400, 429]


async def test_a_trusted_proxy_names_the_client_the_limit_counts(start_app):
    handle = await start_app(auth_rate_limit_max=1, trusted_proxies="127.0.0.1")
    assert await _login(handle.client, "198.51.100.1") == 400
    assert await _login(handle.client, "198.51.100.2") == 400  # another client: its own count
    assert await _login(handle.client, "198.51.100.1") == 429
    # The client cannot prepend addresses of its own: the proxy's entry (rightmost) counts.
    assert await _login(handle.client, "203.0.113.9, 198.51.100.1") == 429


async def test_a_trusted_proxy_sets_the_scheme(start_app):
    handle = await start_app(trusted_proxies="127.0.0.0/8")
    seen: list[str] = []

    async def probe(request: Request) -> Response:
        seen.append(request.url.scheme)
        return Response()

    handle.app.add_route("/_scheme_probe", probe)

    await handle.client.get("/_scheme_probe", headers={"x-forwarded-proto": "https"})
    assert seen == ["https"]


def test_no_proxy_is_trusted_by_default_and_bad_entries_are_refused():
    assert Settings.model_fields["trusted_proxies"].default == ""
    with pytest.raises(ValueError, match="not an IP address or network"):
        Settings(trusted_proxies="127.0.0.1, proxy.internal")
    assert Settings(trusted_proxies=" 10.0.0.0/8 ,::1, *").trusted_proxy_list == [
        "10.0.0.0/8",
        "::1",
        "*",
    ]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_serve_leaves_forwarded_headers_to_the_app(monkeypatch: pytest.MonkeyPatch):
    captured: list[list[str]] = []
    monkeypatch.setattr(os, "execv", lambda path, command: captured.append(command))
    monkeypatch.setenv("CONTENTAPI_CONTENT_TYPES_DIR", str(MODELS))
    monkeypatch.setenv("CONTENTAPI_WORKER_TIMEOUT", "0")  # one worker, no supervisor
    result = CliRunner().invoke(cli.app, ["serve", "--workers", "1"])
    assert result.exit_code == 0, result.output
    assert captured and captured[0][1:3] == ["-m", "contentapi.worker"]
    # uvicorn's own default (proxy headers on) trusts X-Forwarded-For from 127.0.0.1.
    configs: list[uvicorn.Config] = []

    async def serve(server: uvicorn.Server, sockets: object = None) -> None:
        configs.append(server.config)  # the worker's own loop awaits it; nothing serves

    monkeypatch.setattr(uvicorn.Server, "serve", serve)
    worker.run_worker(host="127.0.0.1", port=_free_port())
    assert configs and configs[0].proxy_headers is False
