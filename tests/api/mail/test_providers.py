"""The mail providers: SMTP with a login, STARTTLS and implicit TLS against a real server; a
failed delivery logged without secrets; the log provider's development and production modes."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.api.mail.conftest import PUBLIC_URL, delivered, register, set_advanced
from tests.support.smtp import SmtpServer, make_certificate

pytestmark = pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS")

FRONT = "https://front.example.test/reset"
CREDENTIALS = ("mailer", "smtp secret 42")


@pytest.fixture(scope="session")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return make_certificate(tmp_path_factory.mktemp("smtp-tls"))


@pytest.fixture
def servers() -> Iterator[list[SmtpServer]]:
    started: list[SmtpServer] = []
    yield started
    for server in started:
        server.stop()


async def _reset_mail_arrives(start_app, server: SmtpServer, leaks, **overrides) -> None:
    handle = await start_app(public_url=PUBLIC_URL, **{**server.settings(), **overrides})
    handle.client.event_hooks["response"].append(leaks.record)
    await register(handle)
    await set_advanced(handle, email_reset_password=FRONT)
    answer = await handle.client.post(
        "/api/auth/forgot-password", json={"email": "alice@example.com"}
    )
    assert answer.json() == {"ok": True}
    [mail] = await delivered(handle, server)
    [link] = mail.links()
    leaks.secret(link.split("code=")[1])


@pytest.mark.parametrize("transport", ["plain", "starttls", "tls"])
async def test_smtp_delivers_with_a_login(start_app, servers, certificate, leaks, transport):
    leaks.secret(CREDENTIALS[1])
    server = SmtpServer(
        auth=CREDENTIALS,
        certificate=None if transport == "plain" else certificate,
        implicit_tls=transport == "tls",
    ).start()
    servers.append(server)
    await _reset_mail_arrives(start_app, server, leaks)


async def test_starttls_refuses_an_untrusted_certificate(
    start_app, servers, certificate, leaks, caplog
):
    server = SmtpServer(certificate=certificate).start()
    servers.append(server)
    handle = await start_app(**{**server.settings(), "smtp_ca_file": None})
    await register(handle)
    answer = await handle.client.post(
        "/api/auth/forgot-password", json={"email": "alice@example.com"}
    )
    assert answer.json() == {"ok": True}
    assert await delivered(handle, server) == []
    assert "not delivered" in caplog.text


async def test_a_refused_login_is_logged_without_the_password_or_the_code(
    start_app, servers, leaks, caplog
):
    server = SmtpServer(auth=CREDENTIALS).start()
    servers.append(server)
    wrong = leaks.secret("not the password")
    handle = await start_app(**{**server.settings(), "smtp_password": wrong})
    handle.client.event_hooks["response"].append(leaks.record)
    await register(handle)
    answer = await handle.client.post(
        "/api/auth/forgot-password", json={"email": "alice@example.com"}
    )
    assert answer.json() == {"ok": True}, "the same answer: a delivery failure is no oracle"
    assert await delivered(handle, server) == []
    failures = [r for r in caplog.records if r.name == "contentapi.mail"]
    assert failures and "not delivered: SMTPAuthenticationError" in failures[0].getMessage()
    assert "alice@example.com" in failures[0].getMessage()


async def test_an_unreachable_server_does_not_fail_the_request(start_app, leaks, caplog):
    handle = await start_app(email_provider="smtp", smtp_host="127.0.0.1", smtp_port=1,
                             smtp_security="none")  # fmt: skip
    await register(handle)
    answer = await handle.client.post(
        "/api/auth/forgot-password", json={"email": "alice@example.com"}
    )
    assert answer.status_code == 200
    await handle.runtime.outbox.drain()
    assert "not delivered" in caplog.text


async def test_log_provider_logs_the_link_in_development_only(start_app, caplog):
    caplog.set_level(logging.INFO, logger="contentapi.mail")
    for env in ("development", "production"):
        caplog.clear()
        handle = await start_app(email_provider="log", env=env)
        await register(handle)
        await set_advanced(handle, email_reset_password=FRONT)
        await handle.client.post("/api/auth/forgot-password", json={"email": "alice@example.com"})
        await handle.runtime.outbox.drain()
        [record] = [r for r in caplog.records if r.name == "contentapi.mail"]
        message = record.getMessage()
        assert "alice@example.com" in message and "Reset password" in message
        if env == "development":
            assert f"{FRONT}?code=" in message, "the link is what a developer needs"
        else:
            assert "code=" not in message and "withheld" in message
            assert record.levelno == logging.WARNING
