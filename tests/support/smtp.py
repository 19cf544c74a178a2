"""A real SMTP server in the test process (aiosmtpd), for the e-mail flows' tests.

It runs in aiosmtpd's own thread and event loop on a free port of 127.0.0.1 and keeps every
message it accepts; optionally it requires a login (``auth``), STARTTLS (``starttls``) or
speaks TLS from the first byte (``implicit_tls``) with a self-signed certificate made by the
``openssl`` command for 127.0.0.1.
"""

from __future__ import annotations

import email
import email.policy
import re
import socket
import ssl
import subprocess
from dataclasses import dataclass, field
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

__all__ = ["ReceivedMail", "SmtpServer", "make_certificate"]


@dataclass
class ReceivedMail:
    sender: str
    recipients: list[str]
    message: EmailMessage

    @property
    def html(self) -> str:
        part = self.message.get_body(("html",))
        assert part is not None
        return str(part.get_content())

    @property
    def text(self) -> str:
        part = self.message.get_body(("plain",))
        assert part is not None
        return str(part.get_content())

    def links(self) -> list[str]:
        """Every http(s) link of the text part."""
        return re.findall(r"https?://\S+", self.text)


@dataclass
class _Handler:
    received: list[ReceivedMail] = field(default_factory=list)

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        assert isinstance(message, EmailMessage)
        # Kept before the 250 answer: once the client's send returned, the mail is here.
        self.received.append(ReceivedMail(envelope.mail_from, list(envelope.rcpt_tos), message))
        return "250 OK"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def make_certificate(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate (and key) for 127.0.0.1, valid for a day."""
    cert, key = folder / "smtp-cert.pem", folder / "smtp-key.pem"
    subprocess.run(
        [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
            "-keyout", str(key), "-out", str(cert),
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return cert, key


class SmtpServer:
    """Start with ``start()``, stop with ``stop()``; ``settings`` are the client's settings."""

    def __init__(
        self,
        *,
        auth: tuple[str, str] | None = None,
        certificate: tuple[Path, Path] | None = None,
        implicit_tls: bool = False,
    ) -> None:
        self.handler = _Handler()
        self.port = _free_port()
        self.auth = auth
        self.certificate = certificate
        self.implicit_tls = implicit_tls
        kwargs: dict[str, Any] = {}
        tls = None
        if certificate is not None:
            tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            tls.load_cert_chain(str(certificate[0]), str(certificate[1]))
        if tls is not None and not implicit_tls:
            kwargs.update(tls_context=tls, require_starttls=True)
        if auth is not None:
            kwargs.update(
                authenticator=self._authenticate,
                auth_required=True,
                # aiosmtpd knows a STARTTLS session is encrypted, not an implicit-TLS one
                auth_require_tls=tls is not None and not implicit_tls,
            )
        self.controller = Controller(
            self.handler,
            hostname="127.0.0.1",
            port=self.port,
            ssl_context=tls if implicit_tls else None,
            **kwargs,
        )

    def _authenticate(self, server: Any, session: Any, envelope: Any, mechanism: str, data: Any):
        if not isinstance(data, LoginPassword) or self.auth is None:
            return AuthResult(success=False, handled=False)
        given = (data.login.decode(), data.password.decode())
        # handled=False: aiosmtpd answers a refusal with 535 itself
        return AuthResult(success=given == self.auth, handled=False)

    def start(self) -> SmtpServer:
        self.controller.start()
        return self

    def stop(self) -> None:
        self.controller.stop()

    @property
    def received(self) -> list[ReceivedMail]:
        return self.handler.received

    def settings(self) -> dict[str, object]:
        """The ``Settings`` overrides that make contentapi send its mail here."""
        values: dict[str, object] = {
            "email_provider": "smtp",
            "smtp_host": "127.0.0.1",
            "smtp_port": self.port,
            "smtp_security": "none",
            "email_from": "Site <no-reply@example.com>",
        }
        if self.certificate is not None:
            values["smtp_security"] = "tls" if self.implicit_tls else "starttls"
            values["smtp_ca_file"] = self.certificate[0]
        if self.auth is not None:
            values["smtp_username"], values["smtp_password"] = self.auth
        return values
