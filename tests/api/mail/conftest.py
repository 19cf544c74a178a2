"""Fixtures of the e-mail flow tests: an in-process SMTP server, an app that sends its mail
there, and a guard that fails the test when a one-time code or a password shows anywhere but
in the mail itself (a response body or header, a log line)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from contentapi.auth.plugin_settings import write_advanced
from tests.conftest import AppHandle, StartApp
from tests.support.smtp import ReceivedMail, SmtpServer

PUBLIC_URL = "http://cms.example.test"


@pytest.fixture
def smtp() -> Iterator[SmtpServer]:
    server = SmtpServer().start()
    yield server
    server.stop()


@dataclass
class LeakGuard:
    """Secrets the test handed out or received; every response is kept to be searched."""

    secrets: set[str] = field(default_factory=set)
    responses: list[str] = field(default_factory=list)

    def secret(self, value: str) -> str:
        self.secrets.add(value)
        return value

    async def record(self, response: httpx.Response) -> None:
        await response.aread()
        headers = "\n".join(f"{k}: {v}" for k, v in response.headers.items())
        self.responses.append(f"{headers}\n{response.text}")


@pytest.fixture
def leaks(caplog: pytest.LogCaptureFixture) -> Iterator[LeakGuard]:
    caplog.set_level(logging.DEBUG)
    guard = LeakGuard()
    yield guard
    # aiosmtpd's own log ("mail.log") is the receiving mailbox's: the mail is meant to be there.
    logged = "\n".join(
        record.getMessage() for record in caplog.records if not record.name.startswith("mail.")
    )
    for secret in guard.secrets:
        assert secret not in logged, "a secret was logged"
        for text in guard.responses:
            assert secret not in text, "a secret left the server in a response"


@pytest.fixture
async def mail_app(start_app: StartApp, smtp: SmtpServer, leaks: LeakGuard) -> AppHandle:
    """A fresh app whose mail goes to ``smtp``; every response recorded for ``leaks``."""
    handle = await start_app(public_url=PUBLIC_URL, **smtp.settings())
    handle.client.event_hooks["response"].append(leaks.record)
    return handle


async def delivered(handle: AppHandle, smtp: SmtpServer) -> list[ReceivedMail]:
    """The mails the SMTP server has accepted once the app's outbox is empty."""
    await handle.runtime.outbox.drain()
    return list(smtp.received)


async def set_advanced(handle: AppHandle, **changes: Any) -> None:
    async with handle.runtime.database.write() as conn:
        await write_advanced(conn, handle.runtime.tables, changes)


async def register(
    handle: AppHandle, username: str = "alice", password: str = "first pass 1"
) -> httpx.Response:
    return await handle.client.post(
        "/api/auth/local/register",
        json={
            "username": username,
            "email": f"{username.title()}@Example.com",
            "password": password,
        },
    )


async def login(handle: AppHandle, identifier: str, password: str) -> httpx.Response:
    return await handle.client.post(
        "/api/auth/local", json={"identifier": identifier, "password": password}
    )
